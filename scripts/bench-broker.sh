#!/bin/bash
# bench-broker.sh - what the broker costs: the same work in a drop-in project
# (its root holds .git and .env, so every open goes to the broker) against a
# project without protected entries (the broker serves only what makes or
# removes names), and unconfined, each workload in one hyperfine session
# (medians, ratios against the plain project and against unconfined).
#
#   scripts/bench-broker.sh [RUNS]   (as root, Debian 12+)
#
#   git      git status of 3,000 files in 30 directories (the plain project's
#            repository lives outside it: GIT_DIR, so that it holds no .git)
#   npm      an offline npm install of 30 local package tarballs, then rm -r
#            of node_modules and the lock file
#   make     make -j2 of 200 C files, then make clean
#   cp       cp -r of 20,000 small files into the project, then rm -r
#   start    landrun -- /bin/true from the project's root
#   opens    the cost of one open, by what is opened: a file outside the
#            project and one in it, a missing name outside it and in it
#            (scripts/bench/open-cost.c, medians of RUNS runs)
#
# Every contender has the same environment (an empty one but PATH, HOME and
# TMPDIR), the same grants (/usr read-only and executable, the project
# read-write), from the project's root.  RUNS caps the runs (default 5;
# start: 200 interleaved rounds, CPU time).  About ten minutes on two cores.
# Exit 0, or 2 on a harness error.
source "$(dirname "${BASH_SOURCE[0]}")/bench/common.sh"

RUNS=${1:-5}
bench_install
bench_build
W=$BENCH_CACHE/broker
mkdir -p "$BENCH_OUT"

# One project, made twice: plain/ (no .git, no .env at its root: the
# repository is W/plain.git) and dropin/ (.git and .env at its root).
make_project() {
	local p=$1

	mkdir -p "$p/src" "$p/tree" "$p/pkgs" "$p/home" "$p/tmp"
	for d in $(seq -w 0 29); do
		mkdir -p "$p/src/d$d"
		for f in $(seq -w 0 99); do echo "line $d $f" >"$p/src/d$d/f$f.txt"; done
	done
	# 200 C files
	mkdir -p "$p/c"
	for i in $(seq -w 0 199); do
		printf 'int f%s(int x) { return x * %d + 1; }\n' "$i" "$((10#$i + 3))" >"$p/c/u$i.c"
	done
	printf 'OBJS = $(patsubst %%.c,%%.o,$(wildcard c/u*.c))\nall: $(OBJS)\n%%.o: %%.c\n\t/usr/bin/gcc -O0 -c -o $@ $<\nclean:\n\trm -f $(OBJS)\n' \
		>"$p/Makefile"
	# 30 local packages
	local deps=""
	for i in $(seq -w 0 29); do
		mkdir -p "$W/pkg-src/p$i"
		printf '{"name": "lrpkg%s", "version": "1.0.0", "main": "index.js"}\n' "$i" \
			>"$W/pkg-src/p$i/package.json"
		echo "module.exports = $i;" >"$W/pkg-src/p$i/index.js"
		[ -f "$W/pkg-src/lrpkg$i-1.0.0.tgz" ] ||
			(cd "$W/pkg-src" && npm pack --silent "./p$i" >/dev/null) || return 1
		cp "$W/pkg-src/lrpkg$i-1.0.0.tgz" "$p/pkgs/"
		deps="$deps${deps:+, }\"lrpkg$i\": \"file:pkgs/lrpkg$i-1.0.0.tgz\""
	done
	printf '{"name": "bench", "version": "1.0.0", "private": true, "dependencies": {%s}}\n' \
		"$deps" >"$p/package.json"
}

make_inputs() {
	[ -f "$W/.made" ] && return 0
	command -v npm >/dev/null || bench_fail "npm is not installed"
	rm -rf "$W"
	mkdir -p "$W"
	# 20,000 small files to copy in
	for d in $(seq -w 0 99); do
		mkdir -p "$W/tree-src/d$d" || bench_fail "cannot make $W/tree-src"
		for f in $(seq -w 0 199); do echo "$d $f" >"$W/tree-src/d$d/f$f"; done
	done
	make_project "$W/plain" && make_project "$W/dropin" || bench_fail "cannot make the projects"
	git -C "$W/dropin" init -q && git --git-dir="$W/plain.git" --work-tree="$W/plain" init -q ||
		bench_fail "git init failed"
	for r in "--git-dir=$W/plain.git --work-tree=$W/plain" "-C $W/dropin"; do
		# shellcheck disable=SC2086
		git $r -c user.email=b@landrun.invalid -c user.name=b add -A src Makefile c &&
			git $r -c user.email=b@landrun.invalid -c user.name=b commit -qm initial ||
			bench_fail "git commit failed"
	done
	echo "TOKEN=bench" >"$W/dropin/.env"
	touch "$W/.made"
}

# work NAME PROJECT: the script that does workload NAME in PROJECT (cd'd to it)
work() {
	local name=$1 p=$2 git="git"

	[ "$p" = "$W/plain" ] && git="git --git-dir=$W/plain.git --work-tree=$p"
	case $name in
	git) echo "$git status --porcelain >/dev/null" ;;
	npm) echo "npm install --offline --no-audit --no-fund --loglevel=error >/dev/null && rm -rf node_modules package-lock.json" ;;
	make) echo "/usr/bin/make -s -j2 all && /usr/bin/make -s clean" ;;
	cp) echo "cp -r $W/tree-src tree/copy && rm -rf tree/copy" ;;
	esac
}

run_workloads() {
	local env grants p name script

	make_inputs
	echo
	bench_machine
	for name in git npm make cp; do
		for p in plain dropin; do
			script=$W/$name-$p.sh
			env="PATH=/usr/bin:/bin HOME=$W/$p/home TMPDIR=$W/$p/tmp npm_config_cache=$W/$p/home/npm"
			printf '#!/bin/sh\nexport %s GIT_CONFIG_NOSYSTEM=1\ncd %s || exit 1\n%s\n' "$env" "$W/$p" \
				"$(work "$name" "$W/$p")" >"$script"
			chmod +x "$script"
		done
		grants="--profile none --no-project --rox /usr,/lib,/lib64,/bin --ro /etc --rw /dev/null"
		bench_add "$name: unconfined" "env -i $W/$name-plain.sh"
		bench_add "$name: landrun, plain project" \
			"$LANDRUN $grants --rwx $W/plain --rox $W/$name-plain.sh --ro $W/tree-src,$W/plain.git --log-level error -- $W/$name-plain.sh"
		bench_add "$name: landrun, drop-in project (.git, .env)" \
			"$LANDRUN $grants --rwx $W/dropin --rox $W/$name-dropin.sh --ro $W/tree-src --log-level error -- $W/$name-dropin.sh"
		bench_run "run time: $name" "$BENCH_OUT/broker-$name.json" "$name: landrun, plain project" \
			--warmup 1 --min-runs "$RUNS" --max-runs "$RUNS"
	done
}

start_up() {
	local grants="--profile none --no-project --rox /usr,/lib,/lib64,/bin --log-level error"
	local runs=$((RUNS < 200 ? 200 : RUNS))

	make_inputs
	echo
	# CPU time, interleaved: a start's wall clock moved by a fifth between
	# two sessions of the same binary here (30 hyperfine runs each)
	(cd /tmp && python3 "$BENCH_DIR/startup.py" compare "$runs" "$BENCH_OUT/broker-start.json" \
		--floor "no writable grant" --floor "plain project" \
		--title "start-up: landrun -- /bin/true, CPU time (user + system)" \
		--goal "drop-in project / plain project <= 1.10" -- \
		"no writable grant" "$LANDRUN $grants --ro $W/plain -- /bin/true" \
		"plain project" "$LANDRUN $grants --rwx $W/plain -- /bin/true" \
		"drop-in project" "$LANDRUN $grants --rwx $W/dropin -- /bin/true") ||
		bench_fail "startup.py failed"
}

# One open, by what is opened (median of RUNS runs of open-cost, interleaved).
open_costs() {
	local grants="--profile none --no-project --rox /usr,/lib,/lib64,/bin --ro /etc --rw /dev/null"
	local paths=("$W/tree-src/d00/f000" Makefile "$W/tree-src/none" c/none.c)
	local names=("a file outside the project" "a file in the project"
		"a missing name outside it" "a missing name in it")
	local out=$BENCH_OUT/broker-opens.txt p i

	make_inputs
	bench_cc open-cost.c "$W/open-cost"
	: >"$out"
	for ((i = 0; i < RUNS; i++)); do
		for p in unconfined plain dropin; do
			if [ "$p" = unconfined ]; then
				(cd "$W/plain" && env -i "$W/open-cost" 2000 "${paths[@]}")
			else
				# shellcheck disable=SC2086
				(cd "$W/$p" && $LANDRUN $grants --rwx "$W/$p" --rox "$W/open-cost" \
					--ro "$W/tree-src" --log-level error -- "$W/open-cost" 2000 "${paths[@]}")
			fi | sed "s|^|$p |" >>"$out" || bench_fail "open-cost failed"
		done
	done
	echo
	echo "one open and its close, us (median of $RUNS runs of 2,000 opens each)"
	echo "| open of | unconfined | plain project | drop-in project |"
	echo "|---|---:|---:|---:|"
	for i in "${!paths[@]}"; do
		printf '| %s |' "${names[$i]}"
		for p in unconfined plain dropin; do
			awk -v p="$p" -v f="${paths[$i]}" '$1 == p && $2 == f { print $3 }' "$out" |
				sort -n | awk '{ v[NR] = $1 } END { printf " %.1f |", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
		done
		echo
	done
}

run_workloads
start_up
open_costs
bench_load
bench_print_notes
