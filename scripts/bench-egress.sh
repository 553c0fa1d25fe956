#!/bin/bash
# bench-egress.sh - what --allow-domain's proxy costs a connection, and what
# its TLS interception (--allow-request, --secret-header) costs a request,
# against direct loopback connections measured in the same run.
#
#   scripts/bench-egress.sh [ROUNDS] [CONNECTIONS] [MEGABYTES] [REQUESTS] [TLS_MEGABYTES]
#   (Debian 12+)
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
# Then HTTPS, in the same rounds: a TLS server on 127.0.0.1 (egress.c again,
# with OpenSSL; its certificate, for localhost, from a test CA made here with
# openssl) and one client, three ways:
#   tls-direct     the client unconfined, straight to the server
#   tls-tunnel     under landrun --allow-domain localhost:PORT: CONNECT, and
#                  the TLS end to end through the proxy's tunnel
#   tls-intercept  under landrun --allow-request 'localhost:PORT=GET /*': the
#                  proxy ends the client's TLS with the run's CA, reads the
#                  request, judges it, and makes TLS of its own to the server
# (both with 127.0.0.1:PORT allowed as an address, as above).  landrun, whose
# helper verifies the server, is given the test CA in SSL_CERT_FILE, as
# docs/usage.md says for a gateway with a CA of its own; every client gets
# SSL_CERT_FILE (--env), which landrun replaces with its bundle (the test CA
# then the run's) when it intercepts.  Each round: REQUESTS (default 200)
# requests one after the other, each on a connection of its own (connect,
# CONNECT if any, the TLS handshake, GET, the answer: the median), the same
# number on one connection kept (GET, the answer: the median), and one GET
# of TLS_MEGABYTES (default 200).  The goals are printed beside them: under 1 ms added per
# request, at least 0.8x direct's throughput.
# Ratios are taken within a round, then their median (and range) over the
# rounds.  Then, in each round, the CPU time the proxy (the landrun-egress
# helper, found by its pidfd) spends relaying ten times MEGABYTES, against
# what the server spends sending them.  Last, what --allow-domain adds to
# landrun's start (hyperfine, /bin/true with and without it: the namespace,
# the helper's start, the witness).  About five minutes.  Exit 0, or 2 on a
# harness error.
source "$(dirname "${BASH_SOURCE[0]}")/bench/common.sh"

ROUNDS=${1:-10}
CONNS=${2:-300}
MB=${3:-100}
REQS=${4:-200}
TLS_MB=${5:-200}

bench_install
bench_build
W=$(mktemp -d /tmp/landrun-bench-egress.XXXXXX)
# the TLS server's and the test CA's keys: not under $W, which the clients
# are granted (landrun would keep them out, and say so)
K=$(mktemp -d /tmp/landrun-bench-egress-keys.XXXXXX)
SERVER=
TLS_SERVER=
cleanup() {
	[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null
	[ -n "$TLS_SERVER" ] && kill "$TLS_SERVER" 2>/dev/null
	rm -rf "$W" "$K"
}
trap cleanup EXIT
chmod 755 "$W"
bench_cc egress.c "$W/egress" -pthread -lssl -lcrypto
"$W/egress" serve "$W/port" &
SERVER=$!
for _ in $(seq 50); do [ -s "$W/port" ] && break; sleep 0.1; done
PORT=$(cat "$W/port" 2>/dev/null) || bench_fail "the server did not start"

# the test CA (EC P-256, as the run's CA is) and the server's certificate
# for localhost from it
if ! { openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
	-subj /CN=landrun-bench-ca -addext basicConstraints=critical,CA:TRUE \
	-addext keyUsage=critical,keyCertSign -keyout "$K/ca.key" -out "$W/ca.pem" &&
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=localhost \
		-keyout "$K/key.pem" -out "$K/csr.pem" &&
	printf 'subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth\n' >"$K/ext" &&
	openssl x509 -req -in "$K/csr.pem" -CA "$W/ca.pem" -CAkey "$K/ca.key" -CAcreateserial \
		-days 2 -extfile "$K/ext" -out "$K/cert.pem"; } >"$K/openssl.log" 2>&1; then
	bench_fail "openssl cannot make the test certificates: $(tail -n 3 "$K/openssl.log")"
fi
chmod 644 "$W/ca.pem"
"$W/egress" serve-tls "$W/tlsport" "$K/cert.pem" "$K/key.pem" &
TLS_SERVER=$!
for _ in $(seq 50); do [ -s "$W/tlsport" ] && break; sleep 0.1; done
TPORT=$(cat "$W/tlsport" 2>/dev/null) || bench_fail "the TLS server did not start"

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
# HTTPS: every way by the name localhost (the server's certificate's), and
# the same SSL_CERT_FILE given to the client
tls_client() { # WAY ARGS...
	local way=$1
	shift
	case $way in
	tls-direct) SSL_CERT_FILE=$W/ca.pem "$W/egress" "$@" ;;
	tls-tunnel) SSL_CERT_FILE=$W/ca.pem "$LANDRUN" "${G[@]}" --env SSL_CERT_FILE \
		--allow-domain "localhost:$TPORT,127.0.0.1:$TPORT" -- "$W/egress" "$@" ;;
	tls-intercept) SSL_CERT_FILE=$W/ca.pem "$LANDRUN" "${G[@]}" --env SSL_CERT_FILE \
		--allow-domain "127.0.0.1:$TPORT" --allow-request "localhost:$TPORT=GET /*" -- \
		"$W/egress" "$@" ;;
	esac
}

# the proxy's set-up, checked once: its explain says a namespace carries it
"$LANDRUN" "${G[@]}" --allow-domain "localhost:$PORT" --explain=json -- /bin/true |
	grep -q '"egress":{"mode":"netns"' ||
	bench_note "no network namespace here: the proxy runs on the host's loopback (the fallback)"
# and that --allow-request makes localhost an intercepted host, not a tunnel
SSL_CERT_FILE=$W/ca.pem "$LANDRUN" "${G[@]}" --allow-domain "127.0.0.1:$TPORT" \
	--allow-request "localhost:$TPORT=GET /*" --explain=json -- /bin/true |
	grep -q '"intercepted":\[{"host":"localhost"' ||
	bench_fail "--allow-request localhost:$TPORT: --explain=json names no intercepted host"

ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null; }

# One run through the proxy, landrun ARGS... (its network flags, --, the
# command): "HELPER-TICKS SERVER-TICKS" (user + system), SERVER's.  The
# command waits a little at its end, for the helper's last reading.
cpu_round() { # SERVER ARGS...
	local server=$1 lr helper= p s0 s1 t last=
	shift
	s0=$(ticks "$server")
	"$LANDRUN" "${G[@]}" "$@" &
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
	wait "$lr" || bench_fail "proxy: the CPU round failed ($*)"
	s1=$(ticks "$server")
	echo "${last:-0} $((s1 - s0))"
}

bench_machine
echo "egress: $ROUNDS rounds of $CONNS connections and $MB MB; port $PORT"
echo "https: the same rounds, $REQS requests and $TLS_MB MB; port $TPORT"
: >"$W/results"
: >"$W/tls"
: >"$W/keep"
for r in $(seq "$ROUNDS"); do
	for way in direct landrun proxy; do
		lat=$(client "$way" latency "$CONNS" "$(host_of "$way")" "$PORT") ||
			bench_fail "$way: latency failed"
		tp=$(client "$way" throughput $((MB * 1000000)) "$(host_of "$way")" "$PORT") ||
			bench_fail "$way: throughput failed"
		echo "$r $way ${lat%% *} $tp" >>"$W/results"
	done
	for way in tls-direct tls-tunnel tls-intercept; do
		lat=$(tls_client "$way" https-latency "$REQS" localhost "$TPORT") ||
			bench_fail "$way: https-latency failed"
		tp=$(tls_client "$way" https-throughput $((TLS_MB * 1000000)) localhost "$TPORT") ||
			bench_fail "$way: https-throughput failed"
		echo "$r $way ${lat%% *} $tp" >>"$W/tls"
		lat=$(tls_client "$way" https-keepalive "$REQS" localhost "$TPORT") ||
			bench_fail "$way: https-keepalive failed"
		echo "$r $way ${lat%% *}" >>"$W/keep"
	done
	cpu_round "$SERVER" --allow-domain "localhost:$PORT,127.0.0.1:$PORT" -- /bin/sh -c \
		'"$1" throughput "$2" localhost "$3" >/dev/null; sleep 0.5' sh "$W/egress" \
		$((MB * 10000000)) "$PORT" >>"$W/cpu"
	# the same for the proxy that ends TLS: per request, and per byte (one
	# line of four; not a pipe, where bench_fail would end a subshell only)
	line=
	for what in "https-latency $REQS" "https-throughput $((TLS_MB * 1000000))"; do
		# shellcheck disable=SC2086 # $what: the mode and its count
		line+=" $(SSL_CERT_FILE=$W/ca.pem cpu_round "$TLS_SERVER" --env SSL_CERT_FILE \
			--allow-domain "127.0.0.1:$TPORT" --allow-request "localhost:$TPORT=GET /*" -- \
			/bin/sh -c '"$@" localhost "$0" >/dev/null; sleep 0.5' "$TPORT" "$W/egress" $what)" ||
			exit 2
	done
	echo "$line" >>"$W/tlscpu"
	echo "bench: round $r/$ROUNDS done" >&2
done
bench_load

C_NAMES=()
C_CMDS=()
bench_add "landrun" "$LANDRUN --rox /usr,/lib,/lib64 -- /bin/true"
bench_add "landrun --allow-domain" "$LANDRUN --rox /usr,/lib,/lib64 --allow-domain localhost:$PORT -- /bin/true"
bench_run "start-up: /bin/true" "$W/startup.json" "landrun" --warmup 20 --runs 300

python3 - "$W/results" "$CONNS" "$MB" "$W/cpu" "$(getconf CLK_TCK)" \
	"$W/tls" "$REQS" "$TLS_MB" "$W/tlscpu" "$W/keep" <<'EOF'
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

# HTTPS: the same, and the goals (the issue's) judged on the medians
tls = {}
for l in open(sys.argv[6]):
    r, way, lat, tp = l.split()
    tls.setdefault(int(r), {})[way] = (float(lat), float(tp))
reqs, tls_mb = sys.argv[7], sys.argv[8]
trounds = sorted(tls)

def tcol(way, i):
    return [tls[r][way][i] for r in trounds]

def vs(way, base):
    added = [tls[r][way][0] - tls[r][base][0] for r in trounds]
    ratio = [tls[r][way][1] / tls[r][base][1] for r in trounds]
    return added, ratio

print()
print("| HTTPS | request, median | added per request | throughput | vs direct |")
print("|---|---:|---:|---:|---:|")
for way, name in (("tls-direct", "direct (unconfined)"),
                  ("tls-tunnel", "landrun --allow-domain (CONNECT tunnel)"),
                  ("tls-intercept", "landrun --allow-request (the proxy ends TLS)")):
    added, ratio = vs(way, "tls-direct")
    print("| %s | %.0f us | %s | %.0f MB/s | %s |" % (
        name, med(tcol(way, 0)),
        "" if way == "tls-direct"
        else "%+.0f us (%+.0f to %+.0f)" % (med(added), min(added), max(added)),
        med(tcol(way, 1)),
        "1.00x" if way == "tls-direct" else "%.2fx (%s)" % (med(ratio), rng(ratio))))
print()
print("request: connect, the answer to CONNECT (if any), the TLS handshake (TLS 1.3, P-256,")
print("the certificate verified), GET of one byte, the answer; each on a new connection;")
print("median of %s a round, then over %d rounds.  Throughput: one GET of %s MB."
      % (reqs, len(trounds), tls_mb))
# the same requests on one connection, kept, as HTTP clients send them
keep = {}
for l in open(sys.argv[10]):
    r, way, lat = l.split()
    keep.setdefault(int(r), {})[way] = float(lat)
kadded = lambda way: [keep[r][way] - keep[r]["tls-direct"] for r in sorted(keep)]
print()
print("| HTTPS, one connection kept | request, median | added per request |")
print("|---|---:|---:|")
for way, name in (("tls-direct", "direct (unconfined)"),
                  ("tls-tunnel", "landrun --allow-domain (CONNECT tunnel)"),
                  ("tls-intercept", "landrun --allow-request (the proxy ends TLS)")):
    a = kadded(way)
    print("| %s | %.0f us | %s |" % (
        name, med([keep[r][way] for r in sorted(keep)]),
        "" if way == "tls-direct" else "%+.0f us (%+.0f to %+.0f)" % (med(a), min(a), max(a))))
print()
print("request: GET of one byte and its answer, on a connection made (and its first request")
print("answered) before the clock starts; median of %s a round, then over %d rounds." % (
    reqs, len(keep)))
added, ratio = vs("tls-intercept", "tls-direct")
print()
print("goal, under 1 ms added per request, each on a new connection: %+.0f us (%+.0f to %+.0f): %s" % (
    med(added), min(added), max(added), "met" if med(added) < 1000 else "NOT met"))
a = kadded("tls-intercept")
print("goal, under 1 ms added per request, on a kept connection: %+.0f us (%+.0f to %+.0f): %s" % (
    med(a), min(a), max(a), "met" if med(a) < 1000 else "NOT met"))
print("goal, at least 0.80x direct's throughput: %.2fx (%s): %s" % (
    med(ratio), rng(ratio), "met" if med(ratio) >= 0.8 else "NOT met"))
added, ratio = vs("tls-intercept", "tls-tunnel")
print("interception against the tunnel: %+.0f us (%+.0f to %+.0f) a request, %.2fx (%s)"
      " throughput" % (med(added), min(added), max(added), med(ratio), rng(ratio)))
# the CPU of the proxy that ends TLS: what the load cannot stretch
cpu = [[float(x) for x in l.split()] for l in open(sys.argv[9])]
if cpu:
    ms = lambda i: med([c[i] for c in cpu]) / hz * 1000
    per = lambda i: ms(i) * 1000 / int(reqs)
    ratios = [c[2] / c[3] for c in cpu if c[3] > 0]
    print()
    print("CPU time, intercepted: %.0f us a request in the proxy (two TLS handshakes, the"
          % per(0))
    print("request read and judged), %.0f us in the server (one handshake; medians of %s"
          % (per(1), reqs))
    print("requests a round); relaying %s MB the proxy %.2f s (decrypting and encrypting),"
          % (tls_mb, ms(2) / 1000))
    print("the server sending them %.2f s: %.2fx (%s)" % (ms(3) / 1000, med(ratios), rng(ratios))
          if ratios else "the server sending them: too little to count")
EOF
bench_print_notes
