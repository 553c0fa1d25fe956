#!/bin/bash
# bench-runtime.sh - what landrun costs while the command runs, beside bubblewrap,
# and what the seccomp filter costs each system call.
#
#   scripts/bench-runtime.sh [all|workloads|trace|filter] [RUNS]   (as root, Debian 12+)
#
# workloads: three syscall-heavy workloads, unconfined vs landrun vs landrun
#   --report-denials (traced: every open goes to the tracer and back) vs
#   bubblewrap, each in one hyperfine session (medians, ratio against
#   unconfined):
#     opens   10,000 x (stat, open, read, fstat, close) over 1,000 files (a C helper)
#     git     `git status` + `git log --stat -n 200` in a generated repository of
#             3,000 files and 40 commits
#     make    `make -B -j2` of a generated C project of 24 files
# trace: what --report-denials costs the git workload, as CPU time (user +
#   system of landrun, the command and all they waited for: the tracer's work
#   too) from interleaved runs (scripts/bench/startup.py), which the load of
#   shared cores moves far less than the wall clock; the wall clock beside it.
# filter: the classic-BPF instructions each hot system call runs through in
#   landrun's filter, from scripts/bench/filter-cost.c linked with liblandrun.a.
# RUNS caps the runs of the fast workloads (default 30).  About two minutes on
# two cores.  Exit 0, or 2 on a harness error.
source "$(dirname "${BASH_SOURCE[0]}")/bench/common.sh"

MODE=${1:-all}
RUNS=${2:-30}
case $MODE in all|workloads|trace|filter) ;; *) bench_fail "unknown mode '$MODE' (all, workloads, trace, filter)" ;; esac

bench_install
bench_build
W=$BENCH_CACHE/work
mkdir -p "$BENCH_OUT"

filter_cost() {
	local libs

	libs=$(pkg-config --libs libseccomp 2>/dev/null) || libs="-lseccomp"
	# shellcheck disable=SC2086
	bench_cc filter-cost.c "$BENCH_OUT/filter-cost" -I"$BENCH_ROOT/include" -I"$BENCH_ROOT/tools/seccomp-gen" -I"$BENCH_BUILD" \
		"$BENCH_BUILD/tools/seccomp-gen/liblandrun-seccomp-builder.a" "$BENCH_BUILD/liblandrun.a" $libs
	echo
	echo "filter cost: BPF instructions run per system call (x86_64; arguments as a"
	echo "program passes them; 'tcp' is the plan with --connect-tcp 443)"
	"$BENCH_OUT/filter-cost" --time 100 || bench_fail "filter-cost failed"
}

# The generated inputs, made once and reused (delete $W to make them anew).
make_inputs() {
	[ -f "$W/.made" ] && return 0
	rm -rf "$W"
	mkdir -p "$W/files" "$W/tmp" "$W/repo" "$W/proj"
	bench_cc opens.c "$W/opens"
	"$W/opens" --make "$W/files" || bench_fail "cannot make $W/files"

	# git: 3,000 files in 30 directories, 40 commits touching 75 files each
	(
		cd "$W/repo"
		git init -q
		git config user.email bench@landrun.invalid
		git config user.name bench
		for d in $(seq -w 0 29); do
			mkdir -p "d$d"
			for f in $(seq -w 0 99); do echo "line $d $f" >"d$d/f$f.txt"; done
		done
		git add -A && git commit -qm initial
		for c in $(seq 1 39); do
			for f in $(seq -w 0 74); do echo "change $c" >>"d$((c % 30 < 10 ? 0 : 1))$((c % 10))/f$f.txt"; done
			git commit -qam "change $c"
		done
	) || bench_fail "cannot make the git repository"
	# no /etc/gitconfig, no ~/.gitconfig: the sandboxes do not grant them
	printf '#!/bin/sh\nexport GIT_CONFIG_NOSYSTEM=1 HOME=%s\n%s\n%s\n' "$W/tmp" \
		"git -C $W/repo status --porcelain >/dev/null &&" \
		"git -C $W/repo log --stat -n 200 >/dev/null" >"$W/git-work.sh"
	chmod +x "$W/git-work.sh"

	# make: 24 translation units of 20 functions each
	for i in $(seq -w 0 23); do
		{
			echo "#include <stdio.h>"
			echo "#include <string.h>"
			for j in $(seq 0 19); do
				echo "int f${i}_$j(const char *s, int n) { int h = $j; for (int k = 0; k < n && s[k]; k++) h = h * 31 + s[k] + (int)strlen(s + k); if (h % 7 == $((j % 7))) printf(\"%d\\n\", h); return h; }"
			done
		} >"$W/proj/u$i.c"
	done
	printf 'CC = /usr/bin/gcc\nCFLAGS = -O2 -Wall\nOBJS = $(patsubst %%.c,%%.o,$(wildcard u*.c))
libproj.a: $(OBJS)\n\t/usr/bin/ar rcs $@ $(OBJS)\n%%.o: %%.c\n\t$(CC) $(CFLAGS) -c -o $@ $<\n' \
		>"$W/proj/Makefile"
	touch "$W/.made"
}

# the same confinement for all: /usr read-only and executable, the work
# directory read-write, /dev/null, an empty environment but TMPDIR
confinements() {
	lr="$LANDRUN --rox /usr,/lib,/lib64,/bin --rwx $W --rw /dev/null --env TMPDIR=$W/tmp --"
	traced="$LANDRUN --report-denials --rox /usr,/lib,/lib64,/bin --rwx $W --rw /dev/null --env TMPDIR=$W/tmp --"
	un="env -i TMPDIR=$W/tmp"
}

trace_cost() {
	local lr traced un

	make_inputs
	confinements
	echo
	bench_machine
	python3 "$BENCH_DIR/startup.py" compare "$RUNS" "$BENCH_OUT/runtime-trace.json" \
		--floor unconfined --floor landrun \
		--title "run time of git status + git log --stat, CPU time (user + system)" -- \
		unconfined "$un $W/git-work.sh" landrun "$lr $W/git-work.sh" \
		"landrun --report-denials" "$traced $W/git-work.sh" ||
		bench_fail "startup.py failed"
	bench_load
}

workloads() {
	local lr traced bw un

	make_inputs
	confinements
	bw="bwrap --ro-bind /usr /usr --symlink usr/lib /lib --symlink usr/lib64 /lib64 --symlink usr/bin /bin --bind $W $W --dev /dev --unshare-all --die-with-parent --new-session --clearenv --setenv TMPDIR $W/tmp"

	echo
	bench_machine
	for wl in opens git make; do
		local cmd runs=$RUNS

		case $wl in
		opens) cmd="$W/opens $W/files 10" ;;
		git) cmd="$W/git-work.sh" ;;
		make) cmd="/usr/bin/make -s -B -j2 -C $W/proj"; runs=$(( RUNS < 5 ? RUNS : 5 )) ;;
		esac
		bench_add "$wl: unconfined" "$un $cmd"
		bench_add "$wl: landrun" "$lr $cmd"
		bench_add "$wl: landrun --report-denials" "$traced $cmd"
		bench_add "$wl: bubblewrap" "$bw $cmd"
		bench_run "run time: $wl" "$BENCH_OUT/runtime-$wl.json" "$wl: unconfined" \
			--warmup 2 --min-runs "$runs" --max-runs "$runs"
	done
}

case $MODE in
all) workloads; trace_cost; filter_cost ;;
workloads) workloads ;;
trace) trace_cost ;;
filter) filter_cost ;;
esac
bench_print_notes
