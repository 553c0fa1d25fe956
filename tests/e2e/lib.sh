# SPDX-License-Identifier: MIT
#
# lib.sh - shared by the end-to-end scripts (run.sh, net.sh, smoke.sh...):
# the setup that runs a script's body from private copies under /tmp, maybe
# as nobody, and the TAP helpers.  Sourced, from the script's own directory:
#
#   . "$(dirname "$0")/lib.sh" || exit 2
#
# The setup copies lib.sh beside the script's copy, so the body (possibly
# run by uid 65534) sources it from there.

# ---------------------------------------------------------------------------
# Setup

# e2e_start [--env-i] TAG NAME... -- ARG...
#
# ARG... are the script's own arguments: one file for each NAME, then
# optionally --as-nobody.  The files, the script and lib.sh are copied into
# $TMP/bin (TMP a fresh directory /tmp/landrun-TAG.XXXXXX, mode 755) under
# the names NAME... (and beside landrun, its egress helper landrun-egress
# when there is one beside the given landrun), and the body runs as
#
#   /bin/bash $TMP/bin/SCRIPT --body $TMP AS
#
# with an empty directory $TMP/t to work in.  AS is "nobody" (--as-nobody
# given to root: the body runs as uid/gid 65534 by setpriv, $TMP/t is
# theirs), "self-not-root" (--as-nobody given to anyone else: the body runs
# as the caller) or the caller's user name.  With --env-i the body starts in
# an empty environment but for PATH=/usr/bin:/bin.  $TMP is removed when
# the body is done, and the script exits with the body's status.
#
# E2E_LINK="NAME=PATH ..." adds optional files: each PATH that exists is
# hard-linked (or copied) into $TMP/bin as NAME, mode untouched, for a body
# that cannot reach PATH itself (as nobody).
#
# With --grants-only, $TMP/bin/landrun runs the copy of landrun (in
# $TMP/bin/real/) with --profile none --no-project first: the script tests
# what its command lines grant, and nothing else (without these, landrun adds
# the command's profile and the current directory's project to them).
#
# Called again in the body (ARG... starting with --body), it sets TMP, AS
# and BIN=$TMP/bin and returns.
e2e_start() {
	local envi= only= tag names=() n usage= i=0 self=${0##*/} as
	while [ "$1" = --env-i ] || [ "$1" = --grants-only ]; do
		[ "$1" = --env-i ] && envi=1
		[ "$1" = --grants-only ] && only=1
		shift
	done
	tag=$1
	shift
	while [ "$1" != -- ]; do
		names+=("$1")
		shift
	done
	shift
	if [ "${1:-}" = --body ]; then
		TMP=$2
		AS=$3
		BIN=$TMP/bin
		return 0
	fi
	if [ $# -lt ${#names[@]} ]; then
		for n in "${names[@]}"; do
			n=${n^^}
			usage+=" ${n//-/_}"
		done
		echo "usage: $0$usage [--as-nobody]" >&2
		exit 2
	fi
	TMP=$(mktemp -d "/tmp/landrun-$tag.XXXXXX") || exit 1
	trap 'rm -rf "$TMP"' EXIT
	chmod 755 "$TMP" && mkdir -m 755 "$TMP/bin" || exit 1
	for n in "${names[@]}"; do
		i=$((i + 1))
		cp "${!i}" "$TMP/bin/$n" || exit 1
		# landrun's egress helper goes where landrun finds it: beside it
		if [ "$n" = landrun ] && [ -f "$(dirname "${!i}")/landrun-egress" ]; then
			cp "$(dirname "${!i}")/landrun-egress" "$TMP/bin/landrun-egress" || exit 1
		fi
	done
	cp "$0" "$TMP/bin/$self" && cp "${BASH_SOURCE[0]}" "$TMP/bin/lib.sh" &&
	chmod 755 "$TMP/bin"/* || exit 1
	if [ -n "$only" ]; then
		mkdir -m 755 "$TMP/bin/real" && mv "$TMP/bin/landrun" "$TMP/bin/real/landrun" &&
			{ [ ! -e "$TMP/bin/landrun-egress" ] ||
				mv "$TMP/bin/landrun-egress" "$TMP/bin/real/landrun-egress"; } &&
			printf '#!/bin/sh\nexec %q --profile none --no-project "$@"\n' \
				"$TMP/bin/real/landrun" >"$TMP/bin/landrun" &&
			chmod 755 "$TMP/bin/landrun" || exit 1
	fi
	# linked after the chmod: a hard link shares its source's mode
	for n in ${E2E_LINK:-}; do
		if [ -f "${n#*=}" ]; then
			ln "${n#*=}" "$TMP/bin/${n%%=*}" 2>/dev/null || cp "${n#*=}" "$TMP/bin/${n%%=*}" ||
				exit 1
		fi
	done
	mkdir -m 755 "$TMP/t" || exit 1
	i=$((i + 1))
	as=${!i:-}
	local body=(/bin/bash "$TMP/bin/$self" --body "$TMP")
	if [ -n "$envi" ]; then
		# (and the suite's own settings: strict mode, the waits' deadline)
		body=(/usr/bin/env -i PATH=/usr/bin:/bin
		      ${LANDRUN_TEST_STRICT:+LANDRUN_TEST_STRICT=$LANDRUN_TEST_STRICT}
		      ${LANDRUN_TEST_WAIT:+LANDRUN_TEST_WAIT=$LANDRUN_TEST_WAIT} "${body[@]}")
	fi
	if [ "$as" = --as-nobody ] && [ "$(id -u)" = 0 ]; then
		chown 65534:65534 "$TMP/t" || exit 1
		setpriv --reuid=65534 --regid=65534 --clear-groups -- "${body[@]}" nobody
	elif [ "$as" = --as-nobody ]; then
		"${body[@]}" self-not-root
	else
		"${body[@]}" "$(id -un)"
	fi
	exit $?
}

# e2e_hello WHAT WHERE: the first lines of the body's output, saying who
# runs it ("# WHAT as uid U gid G (AS), WHERE")
e2e_hello() {
	echo "# $1 as uid $(id -u) gid $(id -g) ($AS), $2"
	if [ "$AS" = self-not-root ]; then
		echo "# not running as root: the nobody variant runs as the current user (uid $(id -u))"
	fi
}

# ---------------------------------------------------------------------------
# TAP

N=0 PASSED=0 FAILED=0 TODOS=0

# TODO="reason" before a check marks it as a known landrun bug: "not ok # TODO"
# does not fail the suite, and "ok # TODO" (fixed) tells to drop the marker.
TODO=

tap_ok() { # DESC
	N=$((N + 1)) PASSED=$((PASSED + 1))
	echo "ok $N - $1${TODO:+ # TODO $TODO}"
	TODO=
}

# ... followed by the diagnostics of `diag`
tap_not_ok() { # DESC
	N=$((N + 1))
	if [ -n "$TODO" ]; then
		TODOS=$((TODOS + 1))
	else
		FAILED=$((FAILED + 1))
	fi
	echo "not ok $N - $1${TODO:+ # TODO $TODO}"
	diag
	# and on stderr, which is what meson shows of a failed test (CI's log)
	if [ -z "$TODO" ]; then
		echo "not ok $N - $1"
		diag
		[ -s "$W/err" ] && tail -n 15 "$W/err" | sed 's/^/#   stderr, its end: /'
	fi >&2
	TODO=
}

# skip DESC REASON: every skip goes through here.  In strict mode
# (LANDRUN_TEST_STRICT=1, as scripts/test.sh sets it in CI) a skip is a
# failure, unless its REASON names a missing kernel feature of KERNEL_SKIPS,
# or it is a root-only check in the nobody variant (ROOT_SKIPS, when the
# body runs as uid 65534): CI must have every tool the tests need, but
# cannot choose its kernel.  docs/development.md lists both.
KERNEL_SKIPS=(
	'^needs Landlock'			# any Landlock, or ABI N
	'^needs seccomp'			# filters, SECCOMP_RET_ERRNO, user notifications
	'^needs (PID|mount|user) namespaces'
	'^needs IPv6'
	'^needs SysV IPC'
	'^needs TCP Fast Open'			# net.ipv4.tcp_fastopen
	'kernel\.yama\.ptrace_scope'
	"^needs the kernel's audit enabled"
	'\(CONFIG_[A-Z0-9_]+'			# a kernel option, named
)
ROOT_SKIPS=('^needs root' '^runs as uid 0 only')
allowed_skip() { # REASON
	local re
	for re in "${KERNEL_SKIPS[@]}"; do [[ $1 =~ $re ]] && return 0; done
	if [ "${AS:-}" = nobody ]; then
		for re in "${ROOT_SKIPS[@]}"; do [[ $1 =~ $re ]] && return 0; done
	fi
	return 1
}
skip() { # DESC REASON
	if [ "${LANDRUN_TEST_STRICT:-}" = 1 ] && ! allowed_skip "$2"; then
		N=$((N + 1)) FAILED=$((FAILED + 1))
		echo "not ok $N - $1 (LANDRUN_TEST_STRICT=1: a skip that names no missing kernel feature: $2)"
		echo "not ok $N - $1 (LANDRUN_TEST_STRICT=1: a skip that names no missing kernel feature: $2)" >&2
		return
	fi
	N=$((N + 1)) PASSED=$((PASSED + 1))
	echo "ok $N - $1 # SKIP $2"
}

# skip_all REASON: the whole script is skipped (or, strict, fails), and exits
skip_all() {
	if [ "${LANDRUN_TEST_STRICT:-}" = 1 ] && ! allowed_skip "$1"; then
		echo "1..1"
		echo "not ok 1 - ${0##*/} (LANDRUN_TEST_STRICT=1: a skip that names no missing kernel feature: $1)"
		echo "not ok 1 - ${0##*/} (LANDRUN_TEST_STRICT=1: skipped: $1)" >&2
		exit 1
	fi
	echo "1..0 # SKIP $1"
	exit 0
}

# The last run's status RC, and the first DIAG_LINES lines of its stdout and
# stderr in $W/out, $W/err.  A script may define its own diag.
DIAG_LINES=20
diag() {
	echo "#   exit status $RC"
	[ -s "$W/out" ] && sed -n "1,${DIAG_LINES}s/^/#   stdout: /p" "$W/out"
	[ -s "$W/err" ] && sed -n "1,${DIAG_LINES}s/^/#   stderr: /p" "$W/err"
	return 0
}

# assert DESC COMMAND...: COMMAND succeeds (diagnostics from the last run)
assert() {
	local desc=$1
	shift
	if "$@"; then
		tap_ok "$desc"
	else
		tap_not_ok "$desc"
	fi
}

# tool PACKAGE BINARY...: true if every BINARY exists; else skip (the Debian
# package is not installed) or fail (it is, yet BINARY is missing)
tool() {
	local pkg=$1 b f status
	shift
	for b; do
		[ -e "$b" ] && continue
		status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null)
		if [ "$status" = "install ok installed" ]; then
			RC=127	# and no earlier run's output in the diagnostics
			for f in "${OUT:-}" "${W:+$W/out}" "${W:+$W/err}"; do
				[ -n "$f" ] && : >"$f"
			done
			tap_not_ok "$b: missing, although the Debian package $pkg is installed"
		elif command -v dpkg-query >/dev/null; then
			skip "$b" "the Debian package $pkg is not installed"
		else
			skip "$b" "$b is missing (not a Debian system: no dpkg-query)"
		fi
		return 1
	done
	return 0
}

# Exit statuses by name, for expect (the helpers exit with the errno; a
# script may add its own: ERRNO[38]=ENOSYS).
declare -A ERRNO=([0]=ok [1]=EPERM [13]=EACCES [25]=ENOTTY [38]=ENOSYS
	[93]=EPROTONOSUPPORT [97]=EAFNOSUPPORT [101]=ENETUNREACH [111]=ECONNREFUSED
	[125]=landrun-refused [-31]=killed-by-SIGSYS)

# run COMMAND...: RC its status, its output in $W/out and $W/err (W is the
# test's work directory).  net.sh and egress.sh give it /dev/null for input.
RC=0
run() {
	"$@" >"$W/out" 2>"$W/err"
	RC=$?
}

# expect DESC WANT: the last run's status RC is WANT (or one of "A|B"),
# named by ERRNO; true if it is.  run.sh has its own.
expect() {
	local w
	for w in ${2//|/ }; do
		if [ "$RC" = "$w" ]; then
			tap_ok "$1 -> ${ERRNO[$RC]:-$RC}"
			return 0
		fi
	done
	tap_not_ok "$1 (want $2 ${ERRNO[$2]:-}, got $RC ${ERRNO[$RC]:-})"
	return 1
}

# Background processes of the body (servers, witnesses): PIDS+=($!) after
# starting one; e2e_reap, the body's EXIT trap, ends them all.
PIDS=()
e2e_reap() {
	local p
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
}

# ---------------------------------------------------------------------------
# Waiting: for the state a check reads (a file, a process, a screen), never for
# a fixed time.  Each wait polls every 0.05 s up to a generous deadline, so a
# loaded machine is only slower, and on timeout says on stdout, as TAP
# comments, what it saw instead.

# The deadline of a wait, in seconds (LANDRUN_TEST_WAIT overrides it).
WAIT_S=${LANDRUN_TEST_WAIT:-60}

# wait_until SECONDS COMMAND...: until COMMAND succeeds; false after SECONDS
# (quiet: the caller shows what it saw)
wait_until() {
	local end=$((${EPOCHREALTIME/./} + $1 * 1000000))
	shift
	until "$@"; do
		[ "${EPOCHREALTIME/./}" -lt "$end" ] || return 1
		sleep 0.05
	done
}

# show_file FILE: its end, as TAP comments
show_file() {
	if [ -e "$1" ]; then
		echo "#   $1 holds:"
		tail -n 20 "$1" | sed 's/^/#   | /'
	else
		echo "#   $1 does not exist"
	fi
}

# show_process PID: its state, as TAP comments
show_process() {
	if [ -r "/proc/$1/status" ]; then
		echo "#   process $1: $(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null)"
		grep -E '^(State|PPid|SigPnd|ShdPnd|SigBlk|SigIgn|SigCgt):' "/proc/$1/status" 2>/dev/null |
			tr '\n\t' '  ' | sed 's/^/#   /'
		echo " wchan=$(cat "/proc/$1/wchan" 2>/dev/null)"
	else
		echo "#   process $1 does not exist"
	fi
}

# file_has FILE [REGEX]: FILE is not empty (and has a line matching REGEX)
file_has() { [ -s "$1" ] && { [ -z "${2:-}" ] || grep -qE -- "$2" "$1"; }; }

# wait_for_file FILE [REGEX [SECONDS]]: until FILE is not empty (and has a
# line matching REGEX); on timeout shows the file
wait_for_file() {
	wait_until "${3:-$WAIT_S}" file_has "$1" "${2:-}" && return 0
	echo "# waited ${3:-$WAIT_S} s for $1${2:+ to have a line matching $2}"
	show_file "$1"
	return 1
}

# ended PID: the process is gone, or a zombie (kill -0 still reaches those)
ended() {
	local s
	s=$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$1/status" 2>/dev/null)
	[ -z "$s" ] || [ "$s" = Z ] || [ "$s" = X ]
}

# wait_for_exit PID [SECONDS]: until the process has ended; on timeout shows
# its state
wait_for_exit() {
	wait_until "${2:-$WAIT_S}" ended "$1" && return 0
	echo "# waited ${2:-$WAIT_S} s for process $1 to end"
	show_process "$1"
	return 1
}

# signal_taken PID SIG...: no SIG is pending for the process any more (it
# was delivered, ignored, or read from a signalfd), or the process is gone
signal_taken() {
	local pid=$1 sig mask f
	shift
	ended "$pid" && return 0
	for sig; do
		[[ $sig == [0-9]* ]] || sig=$(kill -l "$sig") || return 1
		mask=$((1 << (sig - 1)))
		for f in SigPnd ShdPnd; do
			(( 0x$(sed -n "s/^$f:[[:space:]]*//p" "/proc/$pid/status" 2>/dev/null || echo 0) \
				& mask )) && return 1
		done
	done
	return 0
}

# wait_for_screen NAME REGEX [SECONDS]: until the terminal NAME (what the
# script's screen_of NAME captures) shows REGEX; on timeout shows the screen
screen_shows() { screen_of "$1" | grep -qE -- "$2"; }	# NAME REGEX
wait_for_screen() {
	wait_until "${3:-$WAIT_S}" screen_shows "$1" "$2" && return 0
	echo "# $1: no \"$2\" on the screen after ${3:-$WAIT_S} s; it shows:"
	screen_of "$1" | grep -v '^ *$' | sed 's/^/#   | /'
	return 1
}

# tiny_wheel DIR: a wheel of the package tinypkg 1.0 in DIR, written as
# pip's format says (no setuptools, no network), for pip install --no-index
tiny_wheel() {
	/usr/bin/python3 - "$1" <<'EOF'
import base64, hashlib, sys, zipfile
files = {
    "tinypkg/__init__.py": "def add(a, b):\n    return a + b\n",
    "tinypkg-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0\n",
    "tinypkg-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: landrun's tests\n"
                                   "Root-Is-Purelib: true\nTag: py3-none-any\n",
}
record = []
with zipfile.ZipFile(sys.argv[1] + "/tinypkg-1.0-py3-none-any.whl", "w") as z:
    for path, text in files.items():
        z.writestr(path, text)
        h = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
        record.append(f"{path},sha256={h.decode()},{len(text)}")
    record.append("tinypkg-1.0.dist-info/RECORD,,")
    z.writestr("tinypkg-1.0.dist-info/RECORD", "\n".join(record) + "\n")
EOF
}

# ---------------------------------------------------------------------------
# Witnesses: servers outside the sandbox that append one line to $W/NAME.log
# for each arrival.  The script defines poke NAME, which reaches NAME from
# outside any sandbox (one line).  The attempt runs between mark and
# saw/saw_nothing.

count() { # NAME: lines in its log
	if [ -f "$W/$1.log" ]; then wc -l <"$W/$1.log"; else echo 0; fi
}

has_lines() { [ "$(count "$1")" -ge "$2" ]; }	# NAME N
wait_count() { # NAME N: until the log has at least N lines (WAIT_S at most)
	wait_until "$WAIT_S" has_lines "$1" "$2" && return 0
	echo "# waited $WAIT_S s for $2 lines in the $1 witness's log"
	show_file "$W/$1.log"
	return 1
}

BEFORE=0
mark() { BEFORE=$(count "$1"); }

saw() { # DESC NAME: the attempt reached the witness
	if wait_count "$2" $((BEFORE + 1)); then
		tap_ok "$1: the $2 witness saw it"
	else
		tap_not_ok "$1: the $2 witness saw nothing"
	fi
}

# saw_nothing DESC NAME: after the attempt, a poke from outside is the only
# new line in the witness's log
saw_nothing() {
	local n
	if ! poke "$2"; then
		tap_not_ok "$1: cannot poke the $2 witness from outside"
		return
	fi
	wait_count "$2" $((BEFORE + 1))
	# a grace for a late line of the attempt: what is checked is that nothing
	# more comes, and there is no state to wait for
	sleep 0.05
	n=$(count "$2")
	if [ "$n" = $((BEFORE + 1)) ]; then
		tap_ok "$1: the $2 witness saw nothing (but the poke from outside)"
	else
		tap_not_ok "$1: the $2 witness saw $((n - BEFORE - 1)) line(s) besides the poke"
		sed -n "$((BEFORE + 1)),\$s/^/#   $2: /p" "$W/$2.log"
	fi
}

# The plan and the summary, last: fails when a check failed (but a TODO).
tap_done() {
	echo "1..$N"
	if [ "$TODOS" = 0 ]; then
		echo "# $PASSED passed, $FAILED failed"
	else
		echo "# $PASSED passed, $FAILED failed, $TODOS known landrun bugs (TODO)"
	fi
	[ "$FAILED" = 0 ]
}
