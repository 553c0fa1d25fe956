#!/bin/bash
# bench-egress.sh - what --allow-domain's proxy costs a connection, against a
# direct loopback connection measured in the same run.
#
#   scripts/bench-egress.sh [ROUNDS] [CONNECTIONS] [MEGABYTES]   (Debian 12+)
#
# A server on 127.0.0.1 (scripts/bench/egress.c) and one client, three ways,
# interleaved round by round (ROUNDS, default 10):
#   direct   the client unconfined, straight to the server
#   landrun  the client under landrun --connect-tcp PORT (Landlock and seccomp,
#            no proxy): what landrun costs without it
#   proxy    the client under landrun --allow-domain localhost:PORT (and the
#            address 127.0.0.1:PORT, a loopback one, allowed as such): a
#            network namespace, CONNECT localhost:PORT to the proxy, which
#            resolves the name (/etc/hosts), checks it and connects outside
# Each round: CONNECTIONS (default 300) connections one after the other
# (connect, the proxy's answer, one byte there and back, close: the median
# set-up), and MEGABYTES (default 100) over one connection (the throughput).
# Ratios are taken within a round, then their median (and range) over the
# rounds.  Then, in each round, the CPU time the proxy (the landrun-egress
# helper, found by its pidfd) spends relaying ten times MEGABYTES, against
# what the server spends sending them.  Last, what --allow-domain adds to
# landrun's start (hyperfine, /bin/true with and without it: the namespace,
# the helper's start, the witness).  About three minutes.  Exit 0, or 2 on a
# harness error.
source "$(dirname "${BASH_SOURCE[0]}")/bench/common.sh"

ROUNDS=${1:-10}
CONNS=${2:-300}
MB=${3:-100}

bench_install
bench_build
W=$(mktemp -d /tmp/landrun-bench-egress.XXXXXX)
SERVER=
cleanup() {
	[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
chmod 755 "$W"
bench_cc egress.c "$W/egress" -pthread
"$W/egress" serve "$W/port" &
SERVER=$!
for _ in $(seq 50); do [ -s "$W/port" ] && break; sleep 0.1; done
PORT=$(cat "$W/port" 2>/dev/null) || bench_fail "the server did not start"

G=(--rox /usr,/lib,/lib64,"$W" --ro /etc/hosts --rw /dev/null)
client() { # WAY ARGS...
	local way=$1
	shift
	case $way in
	direct) "$W/egress" "$@" ;;
	landrun) "$LANDRUN" "${G[@]}" --connect-tcp "$PORT" -- "$W/egress" "$@" ;;
	proxy) "$LANDRUN" "${G[@]}" --allow-domain "localhost:$PORT,127.0.0.1:$PORT" -- \
		"$W/egress" "$@" ;;
	esac
}
host_of() { [ "$1" = proxy ] && echo localhost || echo 127.0.0.1; }

# the proxy's set-up, checked once: its explain says a namespace carries it
"$LANDRUN" "${G[@]}" --allow-domain "localhost:$PORT" --explain=json -- /bin/true |
	grep -q '"egress":{"mode":"netns"' ||
	bench_note "no network namespace here: the proxy runs on the host's loopback (the fallback)"

ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null; }

# One transfer through the proxy: "HELPER-TICKS SERVER-TICKS" (user + system)
cpu_round() {
	local lr helper= p s0 s1 t last=
	s0=$(ticks "$SERVER")
	"$LANDRUN" "${G[@]}" --allow-domain "localhost:$PORT,127.0.0.1:$PORT" -- /bin/sh -c \
		'"$1" throughput "$2" localhost "$3" >/dev/null; sleep 0.5' sh "$W/egress" \
		$((MB * 10000000)) "$PORT" &
	lr=$!
	for _ in $(seq 50); do
		for p in $(pgrep -x landrun-egress); do
			grep -qx "Pid:[[:space:]]*$lr" "/proc/$p/fdinfo/4" 2>/dev/null && helper=$p
		done
		[ -n "$helper" ] && break
		sleep 0.02
	done
	while kill -0 "$lr" 2>/dev/null; do
		t=$(ticks "$helper") && [ -n "$t" ] && last=$t
		sleep 0.05
	done
	wait "$lr" || bench_fail "proxy: the CPU round failed"
	s1=$(ticks "$SERVER")
	echo "${last:-0} $((s1 - s0))"
}

bench_machine
echo "egress: $ROUNDS rounds of $CONNS connections and $MB MB; port $PORT"
: >"$W/results"
for r in $(seq "$ROUNDS"); do
	for way in direct landrun proxy; do
		lat=$(client "$way" latency "$CONNS" "$(host_of "$way")" "$PORT") ||
			bench_fail "$way: latency failed"
		tp=$(client "$way" throughput $((MB * 1000000)) "$(host_of "$way")" "$PORT") ||
			bench_fail "$way: throughput failed"
		echo "$r $way ${lat%% *} $tp" >>"$W/results"
	done
	cpu_round >>"$W/cpu"
	echo "bench: round $r/$ROUNDS done" >&2
done
bench_load

C_NAMES=()
C_CMDS=()
bench_add "landrun" "$LANDRUN --rox /usr,/lib,/lib64 -- /bin/true"
bench_add "landrun --allow-domain" "$LANDRUN --rox /usr,/lib,/lib64 --allow-domain localhost:$PORT -- /bin/true"
bench_run "start-up: /bin/true" "$W/startup.json" "landrun" --warmup 20 --runs 300

python3 - "$W/results" "$CONNS" "$MB" "$W/cpu" "$(getconf CLK_TCK)" <<'EOF'
import statistics, sys

rows = [l.split() for l in open(sys.argv[1])]
conns, mb = sys.argv[2], sys.argv[3]
by = {}
for r, way, lat, tp in rows:
    by.setdefault(int(r), {})[way] = (float(lat), float(tp))
rounds = sorted(by)
med = statistics.median

def col(way, i):
    return [by[r][way][i] for r in rounds]

def rng(v):
    return "%.2f-%.2f" % (min(v), max(v))

print()
print("| way | set-up, median | added per connection | throughput | vs direct |")
print("|---|---:|---:|---:|---:|")
for way, name in (("direct", "direct loopback (unconfined)"),
                  ("landrun", "landrun --connect-tcp (no proxy)"),
                  ("proxy", "landrun --allow-domain (the proxy)")):
    lat, tp = med(col(way, 0)), med(col(way, 1))
    added = [by[r][way][0] - by[r]["direct"][0] for r in rounds]
    ratio = [by[r][way][1] / by[r]["direct"][1] for r in rounds]
    print("| %s | %.0f us | %s | %.0f MB/s | %s |" % (
        name, lat,
        "" if way == "direct" else "%+.0f us (%+.0f to %+.0f)" % (med(added), min(added), max(added)),
        tp,
        "1.00x" if way == "direct" else "%.2fx (%s)" % (med(ratio), rng(ratio))))
print()
print("set-up: connect, the proxy's answer to CONNECT (if any), one byte there and back, close;")
print("median of %s connections a round, then the median over %d rounds (added: the same" % (conns, len(rounds)))
print("round's difference to direct).  Throughput: %s MB over one connection." % mb)
cpu = [[float(x) for x in l.split()] for l in open(sys.argv[4])]
hz = float(sys.argv[5])
ratios = [h / sv for h, sv in cpu if sv > 0]
if ratios:
    print()
    print("CPU time relaying %d MB: the proxy %.2f s, the server sending them %.2f s (medians);"
          % (int(mb) * 10, med([h for h, _ in cpu]) / hz, med([sv for _, sv in cpu]) / hz))
    print("the proxy / the server: %.2fx (%.2f-%.2f)" % (med(ratios), min(ratios), max(ratios)))
EOF
bench_print_notes
