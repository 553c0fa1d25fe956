#!/bin/bash
# bench-startup.sh - what landrun adds to a command's start, beside its peers.
#
#   scripts/bench-startup.sh [RUNS]        (as root, Debian 12+; RUNS default 500)
#
# Installs hyperfine, bubblewrap and firejail (and, optionally, Codex's and
# Anthropic's sandboxes from npm into ~/.cache/landrun-bench), builds landrun
# (build-bench, release), and times every contender running /bin/true in ONE
# hyperfine session.  The floor is one extra exec: `env -i /bin/true`.  Only
# ratios count on shared cores.  Exit 0, or 2 on a harness error.
# LANDRUN_BENCH_NO_NPM=1 skips the npm peers.
source "$(dirname "${BASH_SOURCE[0]}")/bench/common.sh"

RUNS=${1:-500}
bench_install
bench_install_npm
bench_build

# The same confinement, as near as each tool gets: /usr (and the merged-/usr
# links) read-only and executable, nothing else; empty environment; no network.
# landrun: the full default policy (Landlock + seccomp + empty environment +
# capability drop + witnesses).
LR_POLICY="--rox /usr,/lib,/lib64,/bin"
BWRAP="bwrap --ro-bind /usr /usr --symlink usr/lib /lib --symlink usr/lib64 /lib64 --symlink usr/bin /bin --unshare-all --die-with-parent --new-session --clearenv"
FIREJAIL="firejail --quiet --noprofile --net=none --caps.drop=all --nonewprivs --seccomp --private-tmp"
NPM_BIN=$BENCH_CACHE/node_modules/.bin

bench_add "/bin/true" "/bin/true"
bench_add "env -i /bin/true" "env -i /bin/true"
bench_add "landrun (C, default policy)" "$LANDRUN $LR_POLICY -- /bin/true"
bench_note "the Go landrun is not benchmarked: no Go module proxy here for other projects' source"
bench_add "bubblewrap" "$BWRAP /bin/true"
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

echo
bench_machine
echo "landrun $($LANDRUN --version | cut -d' ' -f2) ($(git -C "$BENCH_ROOT" describe --always --dirty 2>/dev/null || echo '?')), $BENCH_BUILD"
# The slow peers (node start-up, namespaces) get fewer runs, capped by time.
bench_run "start-up: /bin/true under each contender" "$BENCH_OUT/startup.json" \
	"env -i /bin/true" --warmup 20 --min-runs 20 --max-runs "$RUNS"
bench_print_notes
