#!/bin/bash
# bench-startup.sh - what landrun adds to a command's start, beside its peers,
# and how its start grows with the work it is given.
#
#   scripts/bench-startup.sh [all|compare|scaling] [RUNS]   (as root, Debian 12+)
#
# compare: every contender running /bin/true, in RUNS (default 500)
#   interleaved rounds (scripts/bench/startup.py): each round runs every
#   contender once, in a shuffled order, and the figure is CPU time per start
#   (user + system from wait4's rusage, of every process a contender starts:
#   the harness is a subreaper), with the wall clock and the minor page
#   faults beside it, and every ratio with its spread (lowest-highest over
#   ten blocks of consecutive rounds).  The floors: one extra exec, `env -i
#   /bin/true`, and the kernel's own Landlock sample (samples/landlock/
#   sandboxer.c, from Debian's linux-source) granting the same directories.
#   Every contender gets the same environment, empty but for the sample's
#   two settings (LL_FS_RO, LL_FS_RW; the sample unsets them, landrun and env
#   -i empty the environment, so that every /bin/true gets none), and runs
#   in the same directory: a project with .git and .env, where `landrun --
#   /bin/true` is the drop-in (its profile, the scan of the project, the
#   broker).  The load average is printed with the table, and a last table
#   holds the goals (issue 23): landrun at most 1.15x the sample, the drop-in
#   at most 1.5x `env -i`, --init at most 1.3x landrun, --allow-domain at
#   most 2x landrun.  Before it, each contender's system calls in one run
#   (strace -f -c): a count that load does not change.  Then the slow peers (firejail, the npm sandboxes) in a
#   session of their own (RUNS/10 rounds, at least 20), beside the same
#   floor and landrun.
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

bench_install valgrind linux-source strace
[ "$MODE" = scaling ] || bench_install_npm
bench_build
bench_sandboxer

# The same confinement, as near as each tool gets: /usr (and the merged-/usr
# links) read-only and executable, nothing else; empty environment; no network.
# landrun: the full default policy (Landlock + seccomp + empty environment +
# capability drop + witnesses).  The kernel sample: Landlock's filesystem rules
# only, read from its environment (LL_ENV, given to every contender alike).
LR_POLICY="--rox /usr,/lib,/lib64,/bin"
LL_ENV=(LL_FS_RO=/usr:/lib:/lib64:/bin LL_FS_RW=)
BWRAP="bwrap --ro-bind /usr /usr --symlink usr/lib /lib --symlink usr/lib64 /lib64 --symlink usr/bin /bin --unshare-all --die-with-parent --new-session --clearenv"
FIREJAIL="firejail --quiet --noprofile --net=none --caps.drop=all --nonewprivs --seccomp --private-tmp"
NPM_BIN=$BENCH_CACHE/node_modules/.bin
SAMPLE="Landlock sample"
FLOOR="env -i /bin/true"
# where every contender runs: a project, as the drop-in meets one
PROJECT=$BENCH_CACHE/startup-project

make_project() {
	[ -d "$PROJECT/.git" ] && [ -f "$PROJECT/.env" ] && return 0
	mkdir -p "$PROJECT/src" || bench_fail "cannot make $PROJECT"
	git -C "$PROJECT" init -q || bench_fail "git init $PROJECT failed"
	echo "API_KEY=not-a-real-one" >"$PROJECT/.env"
	echo "int main(void) { return 0; }" >"$PROJECT/src/main.c"
}

# add NAME COMMAND: kept if it runs and exits 0 as it will be measured (the
# same environment, in the project).
NAMES=()
CMDS=()
add() {
	local name=$1 cmd=$2 out

	# shellcheck disable=SC2086
	if ! out=$(cd "$PROJECT" && env -i "${LL_ENV[@]}" timeout 120 $cmd 2>&1 </dev/null); then
		bench_note "$name left out: '$cmd' failed here: $(echo "$out" | tail -n 2 | tr '\n' ' ')"
		return 0
	fi
	NAMES+=("$name")
	CMDS+=("$cmd")
}

has() { printf '%s\n' "${NAMES[@]}" | grep -qxF "$1"; }

# startup.py compare ROUNDS JSON [options...]: NAMES and CMDS, interleaved
session() {
	local runs=$1 json=$2 pairs=()
	shift 2

	for i in "${!NAMES[@]}"; do
		pairs+=("${NAMES[$i]}" "${CMDS[$i]}")
	done
	python3 "$BENCH_DIR/startup.py" compare "$runs" "$json" --cwd "$PROJECT" \
		--env "${LL_ENV[0]}" --env "${LL_ENV[1]}" "$@" -- "${pairs[@]}" ||
		bench_fail "startup.py compare failed"
	NAMES=()
	CMDS=()
}

# The same contenders' system calls, one run each (strace -f -c): a count
# that load does not change, to read the CPU figures by.
counts() {
	local pairs=()

	for i in "${!NAMES[@]}"; do
		pairs+=("${NAMES[$i]}" "${CMDS[$i]}")
	done
	python3 "$BENCH_DIR/startup.py" counts "$BENCH_OUT/startup-counts.json" --cwd "$PROJECT" \
		--env "${LL_ENV[0]}" --env "${LL_ENV[1]}" -- "${pairs[@]}" ||
		bench_note "startup.py counts failed: no system call counts"
}

compare() {
	local floors=() goals=() slow=$((RUNS / 10 < 20 ? 20 : RUNS / 10))

	make_project
	echo
	echo "floors: '$FLOOR' (one extra exec of a dynamically linked program, which empties"
	echo "the environment) and the kernel's Landlock sample (its filesystem rules only:"
	echo "LL_FS_RO=/usr:/lib:/lib64:/bin, nothing writable). landrun: $LR_POLICY, its full"
	echo "default policy (Landlock, the seccomp filter, the empty environment, the capability"
	echo "drop as root, the witnesses); the drop-in: landrun -- /bin/true in $PROJECT"
	echo "(.git and .env at its root). Every contender runs there, with the same environment."
	add "/bin/true" "/bin/true"
	add "$FLOOR" "env -i /bin/true"
	[ -n "$SANDBOXER" ] && add "$SAMPLE" "$SANDBOXER /bin/true"
	add "landrun" "$LANDRUN $LR_POLICY -- /bin/true"
	add "landrun drop-in" "$LANDRUN -- /bin/true"
	add "landrun --init" "$LANDRUN --init $LR_POLICY -- /bin/true"
	add "landrun --allow-domain" "$LANDRUN --allow-domain example.com $LR_POLICY -- /bin/true"
	add "bubblewrap" "$BWRAP /bin/true"
	bench_note "the Go landrun is not benchmarked: no Go module proxy here for other projects' source"
	has "$FLOOR" || bench_fail "the floor '$FLOOR' cannot run here"
	floors=(--floor "$FLOOR")
	has "$SAMPLE" && floors+=(--floor "$SAMPLE")
	has "$SAMPLE" && has landrun && goals+=(--goal "landrun / $SAMPLE <= 1.15")
	has "landrun drop-in" && goals+=(--goal "landrun drop-in / $FLOOR <= 1.5")
	has "landrun --init" && has landrun && goals+=(--goal "landrun --init / landrun <= 1.3")
	has "landrun --allow-domain" && has landrun &&
		goals+=(--goal "landrun --allow-domain / landrun <= 2")
	has landrun && floors+=(--floor landrun)
	counts
	session "$RUNS" "$BENCH_OUT/startup-cpu.json" "${floors[@]}" "${goals[@]}"

	# the slow peers, fewer rounds, beside the floor and landrun again
	add "$FLOOR" "env -i /bin/true"
	add "landrun" "$LANDRUN $LR_POLICY -- /bin/true"
	add "firejail" "$FIREJAIL /bin/true"
	if [ -x "$NPM_BIN/codex" ]; then
		add "codex sandbox" "$NPM_BIN/codex sandbox /bin/true"
	else
		bench_note "codex sandbox skipped: @openai/codex is not installed"
	fi
	if [ -x "$NPM_BIN/srt" ]; then
		add "sandbox-runtime (srt)" "$NPM_BIN/srt /bin/true"
	else
		bench_note "sandbox-runtime skipped: @anthropic-ai/sandbox-runtime is not installed"
	fi
	if [ ${#NAMES[@]} -gt 2 ]; then
		floors=(--floor "$FLOOR")
		has landrun && floors+=(--floor landrun)
		session "$slow" "$BENCH_OUT/startup-peers.json" "${floors[@]}" \
			--title "start-up of the slow peers, CPU time (user + system) per start"
	fi
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
