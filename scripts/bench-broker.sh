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
#
# Every contender has the same environment (an empty one but PATH, HOME and
# TMPDIR), the same grants (/usr read-only and executable, the project
# read-write), from the project's root.  RUNS caps the runs (default 5;
# start: 30).  About four minutes on two cores.  Exit 0, or 2 on a harness
# error.
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
	local runs=$((RUNS < 30 ? 30 : RUNS))

	make_inputs
	bench_add "start: landrun, plain project" "$LANDRUN $grants --rwx $W/plain -- /bin/true"
	bench_add "start: landrun, drop-in project (.git, .env)" \
		"$LANDRUN $grants --rwx $W/dropin -- /bin/true"
	bench_add "start: landrun, no writable grant (no broker)" "$LANDRUN $grants --ro $W/plain -- /bin/true"
	bench_run "start-up: landrun -- /bin/true" "$BENCH_OUT/broker-start.json" \
		"start: landrun, no writable grant (no broker)" --warmup 3 --min-runs "$runs" --max-runs "$runs"
}

run_workloads
start_up
bench_load
bench_print_notes
