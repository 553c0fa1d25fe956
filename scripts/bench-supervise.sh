#!/bin/bash
# bench-supervise.sh - what the supervisor adds to a start, beside tini, and
# that exec in place (the default) did not get slower.
#
#   scripts/bench-supervise.sh [RUNS]        (as root, Debian 12+; RUNS default 500)
#
# Every contender runs /bin/true, in RUNS interleaved rounds measured by CPU
# time (user + system from wait4: the child's and what it waited for, so a
# supervisor's process counts) and wall clock (scripts/bench/startup.py):
#
#   env -i /bin/true               the floor: one extra exec
#   tini -s -- /bin/true           tini's own cost (Debian's tini, as a subreaper)
#   landrun                        exec in place, the default policy
#   landrun --init                 the supervisor (fork, handshake, its own
#                                  confinement, the wait)
#   landrun --init --audit-log F   with the two records written
#   tini -s -- landrun             the alternative: tini in front of landrun
#   landrun at REV                 exec in place as built from another commit
#                                  (LANDRUN_BENCH_BASELINE=REV, default main;
#                                  "none" leaves it out)
#
# Then the supervisor's own cost (landrun --init minus landrun) beside tini's
# in front of landrun (tini -s -- landrun minus landrun: the alternative to
# --init) and tini's loop alone (tini minus env -i: two dynamically linked
# execs), as differences of CPU and wall medians.  Only ratios
# count on shared cores.  Exit 0, or 2 on a harness error.
source "$(dirname "${BASH_SOURCE[0]}")/bench/common.sh"

RUNS=${1:-500}
[[ $RUNS =~ ^[0-9]+$ ]] && [ "$RUNS" -ge 20 ] || bench_fail "RUNS must be a number, at least 20"
BASELINE=${LANDRUN_BENCH_BASELINE:-main}

bench_install tini
bench_build
command -v tini >/dev/null || bench_fail "tini is not installed"

# landrun exec in place as built from BASELINE, for the same session
baseline_build() {
	local rev dir

	[ "$BASELINE" = none ] && return 0
	rev=$(git -C "$BENCH_ROOT" rev-parse --short "$BASELINE" 2>/dev/null) ||
		{ bench_note "baseline '$BASELINE' is not a commit here: left out"; return 0; }
	dir=$BENCH_CACHE/baseline-$rev
	if [ ! -x "$dir/build/landrun" ]; then
		rm -rf "$dir" && mkdir -p "$dir/src" || bench_fail "cannot make $dir"
		git -C "$BENCH_ROOT" archive "$rev" | tar -x -C "$dir/src" ||
			bench_fail "cannot export $BASELINE"
		meson setup "$dir/build" "$dir/src" --buildtype=release -Dtests=disabled >/dev/null &&
			ninja -C "$dir/build" landrun >/dev/null || bench_fail "building $BASELINE failed"
	fi
	BASELINE_NAME="landrun at $BASELINE ($rev)"
	BASELINE_BIN=$dir/build/landrun
}
BASELINE_NAME=
baseline_build

LR_POLICY="--rox /usr,/lib,/lib64,/bin"
AUDIT=$BENCH_OUT/supervise-audit.jsonl
mkdir -p "$BENCH_OUT" && rm -f "$AUDIT"
PAIRS=(
	"env -i /bin/true" "env -i /bin/true"
	"tini" "tini -s -- /bin/true"
	"landrun" "$LANDRUN $LR_POLICY -- /bin/true"
	"landrun --init" "$LANDRUN $LR_POLICY --init -- /bin/true"
	"landrun --init --audit-log" "$LANDRUN $LR_POLICY --init --audit-log $AUDIT -- /bin/true"
	"tini -s -- landrun" "tini -s -- $LANDRUN $LR_POLICY -- /bin/true"
)
[ -n "$BASELINE_NAME" ] && PAIRS+=("$BASELINE_NAME" "$BASELINE_BIN $LR_POLICY -- /bin/true")

echo
bench_machine
echo "landrun $($LANDRUN --version | cut -d' ' -f2) ($(git -C "$BENCH_ROOT" describe --always --dirty 2>/dev/null || echo '?')), $BENCH_BUILD; $(tini --version)"
JSON=$BENCH_OUT/supervise.json
(cd /tmp && python3 "$BENCH_DIR/startup.py" compare "$RUNS" "$JSON" --floor "env -i /bin/true" \
	--floor landrun -- "${PAIRS[@]}") || bench_fail "startup.py compare failed"

python3 - "$JSON" "$BASELINE_NAME" <<'PY' || bench_fail "cannot read $JSON"
import json, statistics, sys
res = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
med = lambda name, k: statistics.median(res[name][k]) * 1e3
print()
print("what a supervisor adds to a start (median differences, ms)")
print("| | CPU ms | wall ms |")
print("|---|---:|---:|")
diff = lambda a, b: [med(a, k) - med(b, k) for k in ("cpu", "wall")]
rows = [("landrun's supervisor: landrun --init - landrun", diff("landrun --init", "landrun")),
        ("... with --audit-log", diff("landrun --init --audit-log", "landrun")),
        ("tini in front: tini -s -- landrun - landrun", diff("tini -s -- landrun", "landrun")),
        ("tini's loop: tini -s /bin/true - env -i /bin/true", diff("tini", "env -i /bin/true"))]
for name, (cpu, wall) in rows:
    print(f"| {name} | {cpu:.3f} | {wall:.3f} |")
sup, tini = rows[0][1], rows[2][1]
print(f"| ratio, supervisor / tini in front | {sup[0] / tini[0]:.2f}x | {sup[1] / tini[1]:.2f}x |")
if sys.argv[2]:
    r = res[sys.argv[2]]["ratios"]["landrun"]
    inv = sorted(1 / b for b in r["blocks"])
    print(f"\nexec in place, this build / {sys.argv[2]}: {1 / r['ratio']:.3f}x CPU "
          f"(blocks {inv[0]:.2f}-{inv[-1]:.2f})")
PY
echo
bench_load
bench_print_notes
