#!/bin/bash
# SPDX-License-Identifier: MIT
#
# End-to-end tests of landrun's network, IPC-scope and kernel-surface policy,
# TAP output.
#
#   net.sh LANDRUN LR_NET [--as-nobody]
#
# LR_NET is tests/e2e/lr-net.c linked -static -pthread.  Both binaries are
# copied into a fresh directory under /tmp, so that the unprivileged user can
# reach them wherever the build directory is.  With --as-nobody, a root
# caller runs the tests as uid/gid 65534 (setpriv); any other caller runs
# them as itself and says so.
#
# lr-net performs one operation and exits with its errno (0: it worked), so
# every case is "landrun --rox BIN [FLAGS] -- lr-net OP" and a check of the
# exit status.  What the status cannot prove is checked by witnesses outside
# the sandbox, started here with python3: two TCP listeners, a UDP receiver,
# a pathname UNIX stream listener and datagram receiver, an abstract UNIX
# listener, and a signal recorder; each appends a line per connection,
# datagram or signal to its log.  A denial is "the call failed with the
# documented errno AND the witness saw nothing": after the attempt the test
# pokes the witness itself from outside and waits for exactly that one line,
# so nothing is judged before the witness caught up.  Positive controls sit
# beside each denial: the same operation unconfined, or with the flag that
# grants it, must work and be seen.

set -u

# ---------------------------------------------------------------------------
# Setup: private copies of the binaries, then the test body (maybe as nobody).

. "$(dirname "$0")/lib.sh" || exit 2
e2e_start --grants-only net landrun lr-net -- "$@"	# from here on, the body

LANDRUN=$BIN/landrun
NET=$BIN/lr-net
W=$TMP/t/work	# witness logs and sockets, and the output of the last run
mkdir -p "$W/sock" || exit 1
PYTHON=/usr/bin/python3
trap e2e_reap EXIT

e2e_hello "landrun net e2e" "binaries in $BIN"

# ---------------------------------------------------------------------------
# TAP: tap_ok, tap_not_ok (TODO=reason before it), skip, assert, tap_done and
# diag (the last run's status and output) come from lib.sh.

DIAG_LINES=10

RC=0
run() {
	"$@" >"$W/out" 2>"$W/err" </dev/null
	RC=$?
}

# lr ARGS...: landrun with the helper's directory executable, then ARGS
lr() {
	run "$LANDRUN" --rox "$BIN" "$@"
}

# expect DESC WANT and the ERRNO names come from lib.sh.

err_has() { grep -qF -- "$1" "$W/err"; }

# ---------------------------------------------------------------------------
# Kernel features, from landrun's own account of this kernel.

"$LANDRUN" --explain=json --rox "$BIN" >"$W/explain.json" 2>/dev/null
ABI=$(grep -o '"landlock_abi":[0-9]*' "$W/explain.json" | cut -d: -f2)
ABI=${ABI:-0}
enforced() { grep -q "\"id\":\"$1\",\"requested\":true,\"enforced\":true" "$W/explain.json"; }
SECCOMP=no
enforced net.sockets && SECCOMP=yes
echo "# kernel $(uname -r), Landlock ABI $ABI, seccomp filter: $SECCOMP"

# has_abi N: the kernel has Landlock ABI N
has_abi() { [ "$ABI" -ge "$1" ]; }

# the kernel features each group needs, named for the skip messages
NEED_SECCOMP="needs seccomp filters (CONFIG_SECCOMP_FILTER)"
NEED_TCP="needs Landlock ABI 4 (TCP port rules; kernel has $ABI)"
NEED_SCOPE="needs Landlock ABI 6 (signal and abstract UNIX scopes; kernel has $ABI)"

# Errnos that depend on the ABI (see plan_network): below ABI 9, seccomp
# denies socket(AF_UNIX) and datagram socketpairs; from 9, Landlock denies
# connecting to a socket path outside the grants.  Below ABI 10, seccomp
# denies UDP: AF_INET outright by default, SOCK_DGRAM when TCP is granted;
# from 10, Landlock denies the send (no UDP port is ever granted).
if has_abi 9; then
	UNIX_SOCKET=0 UNIX_CONNECT=13 ABSTRACT_DEFAULT=1 DGRAM_PAIR=0 DGRAM_SENDTO=13
else
	UNIX_SOCKET=97 UNIX_CONNECT=97 ABSTRACT_DEFAULT=97 DGRAM_PAIR=93 DGRAM_SENDTO=93
fi
if has_abi 10; then
	UDP_DEFAULT=13 UDP_WITH_TCP=13
else
	UDP_DEFAULT=97 UDP_WITH_TCP=93
fi

# ---------------------------------------------------------------------------
# Witnesses: python3 on 127.0.0.1, each bounded to LIFE seconds.

LIFE=120
cat >"$W/witness.py" <<'EOF'
import os, select, signal, socket, sys, time

mode, d, life = sys.argv[1], sys.argv[2], float(sys.argv[3])
end = time.monotonic() + life

def rec(name, what):
    with open(os.path.join(d, name + ".log"), "a") as f:
        f.write(what + "\n")

def ready(name, text):
    with open(os.path.join(d, name + ".tmp"), "w") as f:
        f.write(text)
    os.rename(os.path.join(d, name + ".tmp"), os.path.join(d, name))

if mode == "signals":
    signal.signal(signal.SIGUSR1, lambda s, f: rec("signal", "SIGUSR1"))
    signal.signal(signal.SIGUSR2, lambda s, f: rec("signal", "SIGUSR2 (poke)"))
    ready("signal.ready", "SIGPID=%d\n" % os.getpid())
    while time.monotonic() < end:
        time.sleep(0.1)
    sys.exit(0)

socks = {}
def serve(name, family, kind, addr):
    s = socket.socket(family, kind)
    if family == socket.AF_INET:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(addr)
    if kind == socket.SOCK_STREAM:
        s.listen(64)
    socks[s] = name
    return s

def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port

abstract = "landrun-net-%d" % os.getpid()
tcp1 = serve("tcp1", socket.AF_INET, socket.SOCK_STREAM, ("127.0.0.1", 0))
tcp2 = serve("tcp2", socket.AF_INET, socket.SOCK_STREAM, ("127.0.0.1", 0))
udp = serve("udp", socket.AF_INET, socket.SOCK_DGRAM, ("127.0.0.1", 0))
serve("ustream", socket.AF_UNIX, socket.SOCK_STREAM, os.path.join(d, "sock/stream.sock"))
serve("udgram", socket.AF_UNIX, socket.SOCK_DGRAM, os.path.join(d, "sock/dgram.sock"))
serve("uabstract", socket.AF_UNIX, socket.SOCK_STREAM, "\0" + abstract)
ready("net.ready", "TCP1=%d TCP2=%d UDP=%d FREE1=%d FREE2=%d ABSTRACT=%s\n" % (
    tcp1.getsockname()[1], tcp2.getsockname()[1], udp.getsockname()[1],
    free_port(), free_port(), abstract))
while time.monotonic() < end:
    r, _, _ = select.select(list(socks), [], [], 0.2)
    for s in r:
        if s.type == socket.SOCK_STREAM:
            c, _ = s.accept()
            rec(socks[s], "accepted")
            c.close()
        else:
            rec(socks[s], "datagram " + s.recv(512).decode(errors="replace").strip())
EOF

start_witness() { # MODE READYFILE
	"$PYTHON" "$W/witness.py" "$1" "$W" "$LIFE" >>"$W/witness.out" 2>&1 &
	PIDS+=($!)
	wait_until "$WAIT_S" test -e "$W/$2" && return 0
	echo "Bail out! witness $1 did not start: $(cat "$W/witness.out")"
	exit 1
}
if [ ! -x "$PYTHON" ]; then
	echo "Bail out! $PYTHON is needed for the witnesses"
	exit 1
fi
start_witness net net.ready
start_witness signals signal.ready
eval "$(cat "$W/net.ready" "$W/signal.ready")"
STREAM_SOCK=$W/sock/stream.sock
DGRAM_SOCK=$W/sock/dgram.sock
echo "# witnesses: tcp $TCP1 and $TCP2, udp $UDP, unix $STREAM_SOCK and $DGRAM_SOCK," \
	"abstract @$ABSTRACT, signals to pid $SIGPID; free ports $FREE1 $FREE2"

# poke WITNESS: reach it from outside any sandbox (one log line)
poke() {
	case $1 in
	tcp1) "$NET" tcp-connect 127.0.0.1 "$TCP1" ;;
	tcp2) "$NET" tcp-connect 127.0.0.1 "$TCP2" ;;
	udp) "$NET" udp-send 127.0.0.1 "$UDP" ;;
	ustream) "$NET" unix-connect "$STREAM_SOCK" ;;
	udgram) "$NET" dgram-pair-sendto "$DGRAM_SOCK" ;;
	uabstract) "$NET" unix-abstract "$ABSTRACT" ;;
	signal) kill -USR2 "$SIGPID" ;;
	esac
}

# count, wait_count, mark, saw, saw_nothing (the witness logs $W/NAME.log,
# poked from outside by poke above) come from lib.sh.

# denied DESC WANT WITNESS LANDRUN-ARGS...: the attempt fails with WANT and
# the witness saw nothing
denied() {
	local desc=$1 want=$2 witness=$3 todo=$TODO
	shift 3
	mark "$witness"
	lr "$@"
	expect "$desc" "$want"
	TODO=$todo
	saw_nothing "$desc" "$witness"
}

# reached DESC WITNESS LANDRUN-ARGS...: the attempt works and is seen
reached() {
	local desc=$1 witness=$2 todo=$TODO
	shift 2
	mark "$witness"
	lr "$@"
	expect "$desc" 0
	TODO=$todo
	saw "$desc" "$witness"
}

# ---------------------------------------------------------------------------
# 1. The witnesses and the helper work outside any sandbox.

for w in tcp1 tcp2 udp ustream udgram uabstract signal; do
	mark $w
	poke $w
	RC=$?
	expect "unconfined: $w witness reachable" 0
	saw "unconfined: $w" $w
done
mark signal
run "$NET" kill "$SIGPID" 10
expect "unconfined: SIGUSR1 to the recorder" 0
saw "unconfined: SIGUSR1 to the recorder" signal

# ---------------------------------------------------------------------------
# 2. Default policy: no sockets but AF_UNIX pairs (and NETLINK_ROUTE).

if [ "$SECCOMP" = yes ]; then
	denied "default: tcp-connect to the listener" 97 tcp1 -- "$NET" tcp-connect 127.0.0.1 "$TCP1"
	denied "default: udp-send to the receiver" "$UDP_DEFAULT" udp -- "$NET" udp-send 127.0.0.1 "$UDP"
	denied "default: unix-connect to the pathname listener" "$UNIX_CONNECT" ustream \
		-- "$NET" unix-connect "$STREAM_SOCK"
	denied "default: dgram socketpair re-aimed at a pathname socket" "$DGRAM_SENDTO" udgram \
		-- "$NET" dgram-pair-sendto "$DGRAM_SOCK"
	denied "default: connect to the abstract listener" "$ABSTRACT_DEFAULT" uabstract \
		-- "$NET" unix-abstract "$ABSTRACT"
	lr -- "$NET" udp-bind "$FREE1"
	expect "default: udp-bind" "$UDP_DEFAULT"
	lr -- "$NET" tcp-bind "$FREE1"
	expect "default: tcp-bind" 97
	lr -- "$NET" tcp-listen
	expect "default: tcp-listen" 97
	for op in inet6 mptcp raw ping packet; do
		lr -- "$NET" $op
		expect "default: socket $op" 97
	done
	lr -- "$NET" netlink-audit
	expect "default: socket netlink-audit" 93
	lr -- "$NET" netlink-route
	expect "default: socket netlink-route (allowed)" 0
	lr -- "$NET" unix-socket
	expect "default: socket(AF_UNIX, SOCK_STREAM)" "$UNIX_SOCKET"
	lr -- "$NET" socketpair-stream
	expect "default: stream socketpair (allowed)" 0
	lr -- "$NET" socketpair-dgram
	expect "default: datagram socketpair" "$DGRAM_PAIR"
else
	skip "default policy: socket families" "$NEED_SECCOMP"
fi
for op in pipe fork thread kill-own-child; do
	lr -- "$NET" $op
	expect "default: $op (allowed)" 0
done
lr -- "$NET" exec "$NET" true
expect "default: exec within --rox (allowed)" 0

# ---------------------------------------------------------------------------
# 3. TCP ports: --connect-tcp and --bind-tcp (Landlock, with seccomp for the
#    rest of the IP stack).

if has_abi 4 && [ "$SECCOMP" = yes ]; then
	C=(--connect-tcp "$TCP1" --)
	reached "--connect-tcp TCP1: connect to TCP1" tcp1 "${C[@]}" "$NET" tcp-connect 127.0.0.1 "$TCP1"
	denied "--connect-tcp TCP1: connect to TCP2" 13 tcp2 "${C[@]}" "$NET" tcp-connect 127.0.0.1 "$TCP2"
	# connect(2) is Landlock's only TCP hook: sendto(MSG_FASTOPEN) connects
	# without it (landlock-lsm/linux#41); EPERM or EACCES, whoever denies it
	mark tcp2
	run "$NET" tcp-fastopen 127.0.0.1 "$TCP2"
	if [ "$RC" = 0 ] && wait_count tcp2 $((BEFORE + 1)); then
		tap_ok "unconfined: TCP Fast Open (sendto MSG_FASTOPEN) reaches TCP2"
		denied "--connect-tcp TCP1: TCP Fast Open (sendto MSG_FASTOPEN) to TCP2" "1|13" tcp2 \
			"${C[@]}" "$NET" tcp-fastopen 127.0.0.1 "$TCP2"
	else
		skip "--connect-tcp TCP1: TCP Fast Open to TCP2" \
			"needs TCP Fast Open clients (net.ipv4.tcp_fastopen bit 1): unconfined status $RC"
	fi
	denied "--connect-tcp TCP1: udp-send" "$UDP_WITH_TCP" udp "${C[@]}" "$NET" udp-send 127.0.0.1 "$UDP"
	lr "${C[@]}" "$NET" tcp-bind "$FREE1"
	expect "--connect-tcp TCP1: tcp-bind" 13
	lr "${C[@]}" "$NET" tcp-listen
	if has_abi 9; then
		# UNIX servers need listen(2), and seccomp cannot tell a UNIX
		# socket's from a TCP one's: Landlock's bind right does not see
		# autobind either
		TODO="from ABI 9 listen is allowed for UNIX servers: an unbound TCP socket listens on an ephemeral port"
		expect "--connect-tcp TCP1: tcp-listen (autobind)" 1
	else
		expect "--connect-tcp TCP1: tcp-listen (autobind)" 1
	fi
	lr "${C[@]}" "$NET" udp-bind "$FREE1"
	expect "--connect-tcp TCP1: udp-bind" "$UDP_WITH_TCP"
	for op in mptcp raw ping; do
		lr "${C[@]}" "$NET" $op
		expect "--connect-tcp TCP1: socket $op" 93
	done
	lr "${C[@]}" "$NET" packet
	expect "--connect-tcp TCP1: socket packet" 97
	lr "${C[@]}" "$NET" inet6
	expect "--connect-tcp TCP1: socket inet6 stream (allowed)" 0
	lr "${C[@]}" "$NET" unix-socket
	expect "--connect-tcp TCP1: socket(AF_UNIX)" "$UNIX_SOCKET"

	B=(--bind-tcp "$FREE1" --)
	lr "${B[@]}" "$NET" tcp-bind-listen "$FREE1"
	expect "--bind-tcp FREE1: bind and listen on FREE1" 0
	lr "${B[@]}" "$NET" tcp-bind "$FREE2"
	expect "--bind-tcp FREE1: bind FREE2" 13
	lr "${B[@]}" "$NET" tcp-bind 0
	expect "--bind-tcp FREE1: bind port 0 (an ephemeral port)" 13
	TODO="Landlock's bind right does not cover listen()'s autobind: the command listens on an ephemeral port"
	lr "${B[@]}" "$NET" tcp-listen
	expect "--bind-tcp FREE1: listen without bind (autobind)" "1|13"
	denied "--bind-tcp FREE1: connect to TCP1" 13 tcp1 "${B[@]}" "$NET" tcp-connect 127.0.0.1 "$TCP1"
else
	skip "--connect-tcp/--bind-tcp" "$( [ "$SECCOMP" = yes ] && echo "$NEED_TCP" || echo "$NEED_SECCOMP")"
fi

# ---------------------------------------------------------------------------
# 4. --unrestricted-network: every socket, but the IPC scopes stay.

U=(--unrestricted-network --)
reached "--unrestricted-network: tcp-connect TCP1" tcp1 "${U[@]}" "$NET" tcp-connect 127.0.0.1 "$TCP1"
reached "--unrestricted-network: tcp-connect TCP2" tcp2 "${U[@]}" "$NET" tcp-connect 127.0.0.1 "$TCP2"
reached "--unrestricted-network: udp-send" udp "${U[@]}" "$NET" udp-send 127.0.0.1 "$UDP"
reached "--unrestricted-network: unix-connect" ustream "${U[@]}" "$NET" unix-connect "$STREAM_SOCK"
reached "--unrestricted-network: dgram socketpair re-aimed" udgram \
	"${U[@]}" "$NET" dgram-pair-sendto "$DGRAM_SOCK"
if has_abi 6; then
	denied "--unrestricted-network: abstract connect (scope)" 1 uabstract \
		"${U[@]}" "$NET" unix-abstract "$ABSTRACT"
	reached "--unrestricted-network --unrestricted-scoped: abstract connect" uabstract \
		--unrestricted-scoped "${U[@]}" "$NET" unix-abstract "$ABSTRACT"
else
	skip "--unrestricted-network: abstract connect (scope)" "$NEED_SCOPE"
fi

# ---------------------------------------------------------------------------
# 5. --unix PATH.  Below ABI 9 it cannot be confined to PATH: refused under
#    --on-unsupported=error, run with a warning naming net.unix under warn.

X=(--unix "$STREAM_SOCK")
if has_abi 9; then
	reached "--unix: connect to the granted socket" ustream \
		--on-unsupported=error "${X[@]}" -- "$NET" unix-connect "$STREAM_SOCK"
	denied "--unix: datagram send to another socket" 13 udgram \
		--on-unsupported=error "${X[@]}" -- "$NET" dgram-pair-sendto "$DGRAM_SOCK"
elif [ "$SECCOMP" = yes ]; then
	denied "--unix under --on-unsupported=error (ABI $ABI < 9): refused" 125 ustream \
		--on-unsupported=error "${X[@]}" -- "$NET" unix-connect "$STREAM_SOCK"
	assert "--unix under error: the refusal names net.unix" err_has "net.unix"
	reached "--unix under --on-unsupported=warn: runs, connects" ustream \
		--on-unsupported=warn "${X[@]}" -- "$NET" unix-connect "$STREAM_SOCK"
	assert "--unix under warn: the warning names net.unix" err_has "net.unix"
	if has_abi 6; then
		denied "--unix under warn: abstract connect still denied (scope)" 1 uabstract \
			--on-unsupported=warn "${X[@]}" -- "$NET" unix-abstract "$ABSTRACT"
	else
		skip "--unix under warn: abstract connect still denied (scope)" "$NEED_SCOPE"
	fi
else
	skip "--unix" "$NEED_SECCOMP"
fi

# ---------------------------------------------------------------------------
# 6. Signals: outside the sandbox denied by the scope, own child allowed.

if has_abi 6; then
	denied "default: SIGUSR1 to the recorder outside" 1 signal -- "$NET" kill "$SIGPID" 10
	reached "--unrestricted-scoped: SIGUSR1 to the recorder" signal \
		--unrestricted-scoped -- "$NET" kill "$SIGPID" 10
	lr -- "$NET" kill-own-child
	expect "default: SIGTERM to its own child (allowed)" 0
	if [ "$SECCOMP" = yes ] && ! has_abi 9; then
		denied "--unrestricted-scoped: abstract connect (still no AF_UNIX socket)" 97 uabstract \
			--unrestricted-scoped -- "$NET" unix-abstract "$ABSTRACT"
	fi
else
	skip "signal scope" "$NEED_SCOPE"
fi

# ---------------------------------------------------------------------------
# 7. Kernel surface (seccomp, whatever the network flags).

if [ "$SECCOMP" = yes ]; then
	for case in io-uring:38 clone3:38 clone-newns:1 unshare-user:1 mount:1 keyctl:1 \
		bpf:1 perf:1 userfaultfd:1; do
		lr -- "$NET" "${case%:*}"
		expect "default: ${case%:*}" "${case#*:}"
	done
	lr --unrestricted-network --unrestricted-scoped -- "$NET" io-uring
	expect "--unrestricted-network --unrestricted-scoped: io-uring still" 38
	lr -- "$NET" ptrace "$SIGPID"
	expect "default: ptrace the recorder" 1

	# stdin is /dev/null: the tty layer says ENOTTY, the filter EPERM before it
	for op in tiocsti tiocsti-hi; do
		run "$NET" $op
		expect "unconfined: $op on /dev/null reaches the tty layer" 25
		lr -- "$NET" $op
		expect "default: $op" 1
	done

	for case in 0:0 0xffffffff:0 0x0040000:1 0x100000000:1 0x0040000ffffffff:1; do
		lr -- "$NET" personality "${case%:*}"
		expect "default: personality ${case%:*}" "${case#*:}"
	done
	run "$NET" personality 0x0040000
	expect "unconfined: personality 0x0040000" 0

	run "$NET" int80
	if [ "$RC" = 0 ]; then
		expect "unconfined: int \$0x80 getpid" 0
		# seen from outside: python reports a death by signal N as -N
		run "$PYTHON" -c 'import subprocess, sys; print(subprocess.run(sys.argv[1:]).returncode)' \
			"$LANDRUN" --rox "$BIN" -- "$NET" int80
		RC=$(cat "$W/out")
		expect "default: int \$0x80 getpid: killed by SIGSYS (-31)" -31
	else
		skip "int \$0x80" "needs the 32-bit syscall entry (CONFIG_IA32_EMULATION, ia32_emulation=): unconfined status $RC"
	fi

	# --deny-subprocess: no new process, threads and exec still work
	D=(--deny-subprocess --)
	for case in fork:1 kill-own-child:1 clone-newns:1 thread:0 pipe:0; do
		lr "${D[@]}" "$NET" "${case%:*}"
		expect "--deny-subprocess: ${case%:*}" "${case#*:}"
	done
	lr "${D[@]}" "$NET" exec "$NET" true
	expect "--deny-subprocess: exec (allowed)" 0
	lr -- "$NET" fork
	expect "without --deny-subprocess: fork (allowed)" 0
else
	skip "kernel surface" "$NEED_SECCOMP"
fi

tap_done
