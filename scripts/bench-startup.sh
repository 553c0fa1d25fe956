#!/bin/bash
# bench-startup.sh - what landrun adds to a command's start, beside its peers,
# and how its start grows with the work it is given.
#
#   scripts/bench-startup.sh [all|compare|scaling] [RUNS]   (as root, Debian 12+)
#
# compare: every contender running /bin/true.  First one hyperfine session
#   (wall clock, medians and standard deviations, RUNS default 500); then the
#   fast contenders again in RUNS interleaved rounds, measured by CPU time
#   (user + system, from wait4), the figure that holds from session to session
#   (scripts/bench/startup.py).  Two floors: one extra exec, `env -i /bin/true`,
#   and the kernel's own Landlock sample (samples/landlock/sandboxer.c, from
#   Debian's linux-source) granting the same directories.
# scaling: landrun with 1,000 / 5,000 / 20,000 variables (--env-prefix), 10 /
#   1,000 / 5,000 --ro grants of empty directories, and a 1 MiB --env-file with
#   every key selected; CPU medians of RUNS/10 rounds (at least 20) and, with
#   valgrind, landrun's user-space instructions.  Growth is linear when the cost
#   per item stays flat from row to row.
#
# Installs hyperfine, bubblewrap, firejail, valgrind and linux-source (and,
# optionally, Codex's and Anthropic's sandboxes from npm into
# ~/.cache/landrun-bench) and builds landrun (build-bench, release).  Only
# ratios count on shared cores.  Exit 0, or 2 on a harness error.
# LANDRUN_BENCH_NO_NPM=1 skips the npm peers.
source "$(dirname "${BASH_SOURCE[0]}")/bench/common.sh"

MODE=all
case ${1:-} in
all|compare|scaling) MODE=$1; shift ;;
''|[0-9]*) ;;
*) bench_fail "unknown mode '$1' (all, compare, scaling)" ;;
esac
RUNS=${1:-500}
[[ $RUNS =~ ^[0-9]+$ ]] && [ "$RUNS" -ge 20 ] || bench_fail "RUNS must be a number, at least 20"

bench_install valgrind linux-source
[ "$MODE" = scaling ] || bench_install_npm
bench_build
bench_sandboxer

# The same confinement, as near as each tool gets: /usr (and the merged-/usr
# links) read-only and executable, nothing else; empty environment; no network.
# landrun: the full default policy (Landlock + seccomp + empty environment +
# capability drop + witnesses).  The kernel sample: Landlock's filesystem rules
# only, read from its environment (hence exported, for every contender).
LR_POLICY="--rox /usr,/lib,/lib64,/bin"
export LL_FS_RO=/usr:/lib:/lib64:/bin LL_FS_RW=
BWRAP="bwrap --ro-bind /usr /usr --symlink usr/lib /lib --symlink usr/lib64 /lib64 --symlink usr/bin /bin --unshare-all --die-with-parent --new-session --clearenv"
FIREJAIL="firejail --quiet --noprofile --net=none --caps.drop=all --nonewprivs --seccomp --private-tmp"
NPM_BIN=$BENCH_CACHE/node_modules/.bin
SAMPLE="Landlock sample (sandboxer.c)"

compare() {
	local cpu_args=()

	bench_add "/bin/true" "/bin/true"
	bench_add "env -i /bin/true" "env -i /bin/true"
	[ -n "$SANDBOXER" ] && bench_add "$SAMPLE" "$SANDBOXER /bin/true"
	bench_add "landrun (C, default policy)" "$LANDRUN $LR_POLICY -- /bin/true"
	bench_note "the Go landrun is not benchmarked: no Go module proxy here for other projects' source"
	bench_add "bubblewrap" "$BWRAP /bin/true"
	# the fast contenders, again, for the CPU-time session
	for i in "${!C_NAMES[@]}"; do
		cpu_args+=("${C_NAMES[$i]}" "${C_CMDS[$i]}")
	done
	bench_add "firejail" "$FIREJAIL /bin/true"
	if [ -x "$NPM_BIN/codex" ]; then
		bench_add "codex sandbox" "$NPM_BIN/codex sandbox /bin/true"
	else
		bench_note "codex sandbox skipped: @openai/codex is not installed"
	fi
	if [ -x "$NPM_BIN/srt" ]; then
		bench_add "sandbox-runtime (srt)" "$NPM_BIN/srt /bin/true"
	else
		bench_note "sandbox-runtime skipped: @anthropic-ai/sandbox-runtime is not installed"
	fi

	# The slow peers (node start-up, namespaces) get fewer runs, capped by time.
	bench_run "start-up, wall clock: /bin/true under each contender" "$BENCH_OUT/startup.json" \
		"env -i /bin/true" --warmup 20 --min-runs 20 --max-runs "$RUNS"

	local floors=(--floor "env -i /bin/true")
	[ -n "$SANDBOXER" ] && floors+=(--floor "$SAMPLE")
	(cd /tmp && python3 "$BENCH_DIR/startup.py" compare "$RUNS" "$BENCH_OUT/startup-cpu.json" \
		"${floors[@]}" -- "${cpu_args[@]}") || bench_fail "startup.py compare failed"
}

scaling() {
	local runs=$((RUNS / 10 < 20 ? 20 : RUNS / 10))

	(cd /tmp && python3 "$BENCH_DIR/startup.py" scaling "$runs" "$BENCH_OUT/scaling.json" \
		"$LANDRUN" "$BENCH_CACHE/scaling" "$LR_POLICY") || bench_fail "startup.py scaling failed"
}

echo
bench_machine
echo "landrun $($LANDRUN --version | cut -d' ' -f2) ($(git -C "$BENCH_ROOT" describe --always --dirty 2>/dev/null || echo '?')), $BENCH_BUILD"
[ -n "$SANDBOXER" ] && echo "Landlock sample: $SANDBOXER (from $(find /usr/src -maxdepth 1 -name 'linux-source-*.tar.xz' | sort -V | tail -n 1 | xargs -r basename))"
[ "$MODE" = scaling ] || compare
[ "$MODE" = compare ] || scaling
echo
bench_load
bench_print_notes
