#!/bin/bash
# SPDX-License-Identifier: MIT
#
# denials.sh LANDRUN LR_TRY LR_NET [--as-nobody] - what the command was
# denied (--report-denials), the policy learned from it (--learn), and the
# kernel's own records (--landlock-audit).  TAP output.
#
#   one grant:  commands that each need one missing grant (a file read, an
#               exec, a write, a new file, a truncation, a TCP port, a UNIX
#               socket, a denied system call) report exactly that grant, and
#               get the same errno as without the report; a program denied
#               nothing reports nothing
#   secrets:    a .env is reported as kept out on purpose, never proposed,
#               never shown
#   learn:      run twice on a tool that needs three grants, the policy file
#               lets it run with no denial
#   the tracer: it traces the command and its children, dies with them
#               (and they with it), holds no secret; the audit log gets the
#               denials
# Each check that proves a thing has a control beside it.

set -u
. "$(dirname "$0")/lib.sh" || exit 2
e2e_start --grants-only denials landrun lr-try lr-net -- "$@"

LANDRUN=$BIN/landrun
TRY=$BIN/lr-try
NET=$BIN/lr-net
T=$TMP/t
W=$T/.work
mkdir -p "$W" || exit 1
e2e_hello "landrun --report-denials" "binaries in $BIN"
cd "$T" || exit 1

SYS=(--rox /usr,/bin,/lib,/lib64,"$BIN" --ro /etc/ld.so.cache --ignore-missing --rw /dev/null)

lr() { run "$LANDRUN" "${SYS[@]}" "$@"; }
ABI=$("$TRY" abi 2>/dev/null) || ABI=0
PID='[0-9]+'

# The regular expression of a path (its dots, pluses and brackets escaped).
re() { printf '%s' "$1" | sed 's/[][\.*^$+?(){}|/]/\\&/g'; }

# reports DESC WANT_RC LINE: the last run exited WANT_RC, and reported
# exactly one denial, "landrun: denied LINE" (an extended regex).
reports() {
	local n
	n=$(grep -c '^landrun: denied ' "$W/err")
	if [ "$RC" = "$2" ] && [ "$n" = 1 ] && grep -Eqx "landrun: denied $3" "$W/err"; then
		tap_ok "$1"
	else
		tap_not_ok "$1 (want status $2 and one line: landrun: denied $3)"
	fi
}

# quiet DESC WANT_RC: the last run exited WANT_RC and reported nothing.
quiet() {
	if [ "$RC" = "$2" ] && ! grep -q 'denied' "$W/err"; then
		tap_ok "$1"
	else
		tap_not_ok "$1 (want status $2 and no report)"
	fi
}

# ===========================================================================
# One missing grant each

echo hello >"$T/f"
mkdir -p "$T/ro" "$T/exe" "$T/sock" && echo data >"$T/ro/file" && cp "$TRY" "$T/exe/helper" ||
	exit 1

t_nothing() {
	lr --report-denials --ro "$T/f" -- "$TRY" read "$T/f"
	quiet "a program denied nothing reports nothing" 0
	lr --report-denials -- "$TRY" exit 3
	quiet "... nor one that fails by itself (its status passes through)" 3
}

t_read() {
	lr -- "$TRY" read "$T/f"
	expect "control: without --report-denials, the read is denied" 13
	lr --report-denials -- "$TRY" read "$T/f"
	reports "a file read: --ro FILE" 13 "read $(re "$T/f") \(by lr-try, pid $PID\) -> --ro $(re "$T/f")"
	lr --report-denials -- "$TRY" read ro/../f
	reports "... named another way: the path asked for, and the canonical one" 13 \
		"read ro/\.\./f \($(re "$T/f"), by lr-try, pid $PID\) -> --ro $(re "$T/f")"
}

t_exec() {
	lr --report-denials -- "$TRY" exec "$T/exe/helper" exit 0
	reports "an exec: --rox FILE" 13 \
		"execute $(re "$T/exe/helper") \(by lr-try, pid $PID\) -> --rox $(re "$T/exe/helper")"
	lr --report-denials --rox "$T/exe" -- "$TRY" exec "$T/exe/helper" exit 0
	quiet "control: with that grant, the exec works and nothing is reported" 0
}

t_write() {
	lr --report-denials --ro "$T/ro" -- "$TRY" write "$T/ro/file"
	reports "a write: --rw FILE" 13 \
		"write $(re "$T/ro/file") \(by lr-try, pid $PID\) -> --rw $(re "$T/ro/file")"
	lr --report-denials --ro "$T/ro" -- "$TRY" create "$T/ro/new"
	reports "a new file: --rw DIR" 13 \
		"create $(re "$T/ro/new") \(by lr-try, pid $PID\) -> --rw $(re "$T/ro")"
	lr --report-denials --rw "$T/ro" -- "$TRY" create "$T/ro/new"
	quiet "control: with --rw DIR the file is made, and nothing is reported" 0
	if [ "$ABI" -lt 3 ]; then
		skip "a truncation: --rw FILE" "needs Landlock ABI 3 (truncation rights); ABI $ABI here"
		return
	fi
	lr --report-denials --ro "$T/ro" -- "$TRY" truncate "$T/ro/file"
	reports "a truncation: --rw FILE" 13 \
		"truncate $(re "$T/ro/file") \(by lr-try, pid $PID\) -> --rw $(re "$T/ro/file")"
}

PORT=$((20000 + RANDOM % 20000))

t_tcp() {
	local D="a TCP port: --connect-tcp PORT"
	if [ "$ABI" -lt 4 ]; then
		skip "$D" "needs Landlock ABI 4 (TCP ports); ABI $ABI here"
		return
	fi
	lr --report-denials --connect-tcp 1 -- "$NET" tcp-connect 127.0.0.1 "$PORT"
	reports "$D" 13 \
		"connect to TCP port $PORT \(by lr-net, pid $PID\) -> --connect-tcp $PORT"
	lr --report-denials --connect-tcp 1 -- "$NET" tcp-bind "$PORT"
	reports "a TCP port to bind: --bind-tcp PORT" 13 \
		"bind TCP port $PORT \(by lr-net, pid $PID\) -> --bind-tcp $PORT"
	# without any TCP flag: below ABI 9 Landlock denies the port (and the
	# port shows); from ABI 9 seccomp denies the socket (and it does not)
	lr --report-denials -- "$NET" tcp-connect 127.0.0.1 "$PORT"
	if [ "$ABI" -lt 9 ]; then
		reports "$D, with no TCP flag at all" 13 \
			"connect to TCP port $PORT \(by lr-net, pid $PID\) -> --connect-tcp $PORT"
	else
		reports "no TCP flag, ABI 9+: the socket, and the way to see its port" 97 \
			"socket AF_INET SOCK_STREAM \(by lr-net, pid $PID\): net\.tcp: .*--connect-tcp PORT.*"
	fi
	lr -- "$NET" tcp-connect 127.0.0.1 "$PORT"
	expect "control: without --report-denials, no TCP socket at all" 97
}

t_unix() {
	local S=$T/sock/s.sock
	/usr/bin/python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$S" ||
		{ tap_not_ok "cannot make a UNIX socket for the test"; return; }
	lr --report-denials -- "$NET" unix-connect "$S"
	if [ "$ABI" -ge 9 ]; then
		reports "a UNIX socket: --unix PATH" 13 \
			"connect to the UNIX socket $(re "$S") \(by lr-net, pid $PID\) -> --unix $(re "$S")"
	else
		reports "a UNIX socket, below ABI 9: --unix PATH, which cannot be confined to it" 97 \
			"socket AF_UNIX SOCK_STREAM \(by lr-net, pid $PID\): net\.unix: --unix PATH .*below Landlock ABI 9.*"
	fi
}

t_calls() {
	lr -- "$NET" mount
	expect "control: mount is denied EPERM" 1
	lr --report-denials -- "$NET" mount
	reports "a denied system call: no flag allows it (the same errno)" 1 \
		"mount \(by lr-net, pid $PID\): kernel\.surface: no flag allows it"
	lr --report-denials --deny-subprocess -- "$NET" fork
	reports "a new process under --deny-subprocess" 1 \
		"clone \(by lr-net, pid $PID\): proc\.no-subprocess: --deny-subprocess forbids new processes"
	lr --report-denials -- "$NET" packet
	expect "a socket family the filter denies fails as without the report" 97
	lr --report-denials -- "$NET" clone3
	quiet "clone3's ENOSYS is a fallback by design, not reported" 38
}

t_children() {
	lr --report-denials -- /bin/sh -c "$TRY read $T/f; $TRY read $T/f; exit 0"
	reports "what a child of the command is denied, counted" 0 \
		"read $(re "$T/f") \(by lr-try, pid $PID, 2 times\) -> --ro $(re "$T/f")"
}

# ===========================================================================
# Secrets: kept out on purpose, never proposed, never shown

t_secret() {
	local P=$T/proj token=sk-test-$RANDOM$RANDOM
	mkdir -p "$P/src" && echo "API_KEY=$token" >"$P/.env" && echo code >"$P/src/a.c" || exit 1
	# a read-only grant: Landlock's carving denies it, the tracer reports
	# it (in a writable grant the broker refuses it, below)
	lr --report-denials --learn "$W/env.conf" --ro "$P" -- "$TRY" read "$P/.env"
	reports "a .env: kept out on purpose, --allow-dotenv with a warning" 13 \
		"read $(re "$P/.env") \(by lr-try, pid $PID\): a secret file, kept out on purpose; --allow-dotenv $(re "$P/.env") would let the command read it \(think twice: it holds keys\)"
	if [ -f "$W/env.conf" ] && ! grep -v '^#' "$W/env.conf" | grep -q .; then
		tap_ok "--learn proposes no setting for it"
	else
		tap_not_ok "--learn proposes no setting for it: $(grep -v '^#' "$W/env.conf" 2>&1)"
	fi
	if ! grep -q "$token" "$W/err" "$W/env.conf"; then
		tap_ok "its content is in neither the report nor the file"
	else
		tap_not_ok "its content is in neither the report nor the file"
	fi
	# the broker's refusal: its own line (the tracer does not see it)
	lr --report-denials --rw "$P" -- "$TRY" read "$P/.env"
	if [ "$RC" = 13 ] && grep -qF "landrun: refused reading $P/.env: a secret file (--allow-dotenv $P/.env allows it)" "$W/err" &&
		! grep -q "$token" "$W/err"; then
		tap_ok "a .env in a writable grant: the broker refuses it, in one line"
	else
		tap_not_ok "a .env in a writable grant: the broker refuses it, in one line"
	fi
	# ... and it is in the report, with the broker too (which tells the
	# supervisor), as is a protected name; --learn learns neither
	reports "a .env in a writable grant: in the report, --allow-dotenv with a warning" 13 \
		"read $(re "$P/.env") \(by lr-try, pid $PID\): a secret file, kept out on purpose; --allow-dotenv $(re "$P/.env") would let the command read it \(think twice: it holds keys\)"
	rm -f "$W/prot.conf"
	lr --report-denials --learn "$W/prot.conf" --rw "$P" -- "$TRY" mkdir "$P/.claude"
	reports "a new .claude in a writable grant: in the report, --allow-protected with a warning" 13 \
		"create $(re "$P/.claude") \(by lr-try, pid $PID\): read-only on purpose: Claude Code runs what is there later, outside the sandbox; --allow-protected $(re "$P/.claude") would make it writable \(think twice\)"
	if [ -f "$W/prot.conf" ] && ! grep -v '^#' "$W/prot.conf" | grep -q . && [ ! -e "$P/.claude" ]; then
		tap_ok "--learn proposes no setting for it, and nothing was made"
	else
		tap_not_ok "--learn proposes no setting for it, and nothing was made: $(grep -v '^#' "$W/prot.conf" 2>&1)"
	fi
	lr --learn "$P/learned.conf" --rw "$P" -- "$TRY" exit 0
	if [ "$RC" = 125 ] && grep -q -- "--learn $P/learned.conf: inside the writable grant" "$W/err"; then
		tap_ok "--learn FILE inside a writable grant is refused"
	else
		tap_not_ok "--learn FILE inside a writable grant is refused"
	fi
}

# ===========================================================================
# --learn: a tool that needs three grants, one behind another

t_learn() {
	local L=$T/learn C=$W/learned.conf n
	mkdir -p "$L/tool" "$L/out" && cp "$TRY" "$L/helper" && echo "$L/out" >"$L/cfg" || exit 1
	cat >"$L/tool/tool" <<EOF
#!/bin/sh
# reads its configuration, runs its helper, writes where the configuration says
out=\$(cat "$L/cfg" 2>/dev/null)
"$L/helper" exit 0 || echo "helper failed" >&2
[ -n "\$out" ] && echo done >"\$out/result"
exit 0
EOF
	chmod 755 "$L/tool/tool" || exit 1
	lr --learn "$C" --rox "$L/tool" -- "$L/tool/tool"
	n=$(grep -c '^[a-z-]* = ' "$C" 2>/dev/null)
	if [ "$RC" = 0 ] && [ "$n" = 2 ] && grep -qx "ro = $L/cfg" "$C" && grep -qx "rox = $L/helper" "$C"; then
		tap_ok "--learn, first run: the configuration and the helper ($n settings)"
	else
		tap_not_ok "--learn, first run: the configuration and the helper ($n settings): $(tr '\n' '|' <"$C")"
	fi
	lr --config "$C" --learn "$C" --rox "$L/tool" -- "$L/tool/tool"
	n=$(grep -c '^[a-z-]* = ' "$C" 2>/dev/null)
	if [ "$RC" = 0 ] && [ "$n" = 3 ] && grep -qx "rw = $L/out" "$C" &&
		grep -qx "# denied 1 time: create in $L/out" "$C"; then
		tap_ok "--learn, second run: where it writes ($n settings)"
	else
		tap_not_ok "--learn, second run: where it writes ($n settings): $(tr '\n' '|' <"$C")"
	fi
	lr --config "$C" --report-denials --rox "$L/tool" -- "$L/tool/tool"
	if [ "$RC" = 0 ] && ! grep -q denied "$W/err" && [ "$(cat "$L/out/result" 2>/dev/null)" = done ]; then
		tap_ok "under the learned file, the tool runs with no denial"
	else
		tap_not_ok "under the learned file, the tool runs with no denial"
	fi
	rm -f "$L/out/result"
	lr --rox "$L/tool" -- "$L/tool/tool"
	if [ ! -e "$L/out/result" ] && grep -q "helper failed" "$W/err"; then
		tap_ok "control: without it, the tool cannot do its work"
	else
		tap_not_ok "control: without it, the tool cannot do its work"
	fi
}

# ===========================================================================
# The tracer

t_tracer() {
	local D=("the command is traced by its supervisor, outside the sandbox"
		 "the command cannot trace its tracer (EPERM), and that is reported")
	lr --report-denials --ro /proc -- /bin/sh -c 'echo $PPID; exec grep TracerPid /proc/self/status'
	if [ "$RC" = 0 ] && [ "$(sed -n 2p "$W/out" | tr -dc 0-9)" = "$(sed -n 1p "$W/out")" ]; then
		tap_ok "${D[0]}"
	else
		tap_not_ok "${D[0]}"
	fi
	lr --report-denials -- /bin/sh -c 'exec '"$NET"' ptrace $PPID'
	reports "${D[1]}" 1 "ptrace \(by lr-net, pid $PID\): kernel\.surface: no flag allows it"
}

children() { cat /proc/"$1"/task/*/children 2>/dev/null; }
# processes running exactly "sleep MARK"
marked() { pgrep -xf "sleep $1" | tr '\n' ' '; }
wait_for() { wait_until "$WAIT_S" "$@"; }

# The tracer's death takes every traced process with it (PTRACE_O_EXITKILL),
# the daemon the command started too; a plain supervisor's takes the
# command only (its parent-death signal).
t_exitkill() {
	local D=("killing the tracer kills the command and what it started"
		 "control: killing a plain supervisor leaves what the command started")
	local m1=$((900000 + RANDOM)) m2=$((950000 + RANDOM)) flags i=0 sup left
	for flags in --report-denials --init; do
		"$LANDRUN" "${SYS[@]}" $flags -- /bin/sh -c "sleep $m1 & exec sleep $m2" >/dev/null 2>&1 &
		sup=$!
		wait_for eval '[ -n "$(marked $m1)" ] && [ -n "$(marked $m2)" ]'
		kill -KILL "$sup"
		wait "$sup" 2>/dev/null
		# the command goes in both cases (its parent-death signal); then, with
		# the tracer, what it started
		wait_for eval '[ -z "$(marked $m2)" ]' || echo "# the command (sleep $m2) outlived its supervisor"
		[ $i = 0 ] && wait_for eval '[ -z "$(marked $m1)" ]'
		left=$(marked $m1)
		kill -KILL $left $(marked $m2) 2>/dev/null
		if [ $i = 0 ] && [ -z "$left" ]; then
			tap_ok "${D[0]}"
		elif [ $i = 1 ] && [ -n "$left" ]; then
			tap_ok "${D[1]}"
		else
			tap_not_ok "${D[$i]}: left: '$left'"
		fi
		i=$((i + 1))
	done
}

# The tracer holds no secret: the caller's environment, wiped.
t_no_secret() {
	local D="the tracer's environment holds none of the caller's"
	local secret=sk-caller-$RANDOM$RANDOM m=$((980000 + RANDOM)) sup
	env LR_SECRET="$secret" "$LANDRUN" "${SYS[@]}" --report-denials --env LR_SECRET -- sleep $m \
		>/dev/null 2>&1 &
	sup=$!
	wait_for eval '[ -n "$(marked $m)" ]'
	if [ -r /proc/$sup/environ ] && ! tr '\0' '\n' </proc/$sup/environ | grep -q "$secret" &&
		tr '\0' '\n' </proc/"$(marked $m | tr -d ' ')"/environ | grep -q "$secret"; then
		tap_ok "$D (the command has the one it was given)"
	else
		tap_not_ok "$D"
	fi
	kill -TERM "$sup"
	wait "$sup" 2>/dev/null
}

t_audit() {
	local A=$W/audit.jsonl
	lr --report-denials --audit-log "$A" -- "$TRY" read "$T/f"
	if [ "$RC" = 13 ] && python3 - "$A" "$T/f" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
events = [r["event"] for r in recs]
d = [r for r in recs if r["event"] == "denied"]
assert events == ["started", "denied", "completed"], events
assert d[0]["what"] == "read " + sys.argv[2], d
assert d[0]["allowed_by"] == "--ro " + sys.argv[2], d
assert d[0]["comm"] == "lr-try" and d[0]["count"] == 1 and d[0]["errno"] == "EACCES", d
PY
	then
		tap_ok "the audit log gets one denied record per denial, before the end"
	else
		tap_not_ok "the audit log gets one denied record per denial, before the end"
	fi
}

# The kernel's own records of Landlock denials (ABI 7+, audit enabled, root
# to read them).  Not changed here: whether the kernel audits is the system's.
# audit_logged PATH: the kernel's log holds Landlock's record of a denied PATH
audit_logged() {
	dmesg 2>/dev/null | grep -q "type=1423.*path=\"$1\"" ||
		journalctl -q -k --since -1min 2>/dev/null | grep -q "path=\"$1\""
}

t_landlock_audit() {
	local D="--landlock-audit: the kernel records the command's Landlock denial" mark
	if [ "$ABI" -lt 7 ]; then
		skip "$D" "needs Landlock ABI 7 (audit flags); ABI $ABI here"
		return
	fi
	if [ "$(id -u)" != 0 ]; then
		skip "$D" "needs root (reading the kernel's audit records)"
		return
	fi
	if ! python3 - <<'PY'
import socket, struct, sys
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 9)  # NETLINK_AUDIT
s.sendto(struct.pack("=IHHII", 16, 1000, 1, 1, 0), (0, 0))  # AUDIT_GET
data = s.recv(8192)
sys.exit(0 if struct.unpack_from("=I", data, 20)[0] else 1)  # audit_status.enabled
PY
	then
		skip "$D" "needs the kernel's audit enabled (auditctl -e 1; it is off here)"
		return
	fi
	mark=$T/llaudit-$RANDOM$RANDOM
	echo x >"$mark"
	lr --landlock-audit -- "$TRY" read "$mark"
	if wait_for audit_logged "$mark"; then
		tap_ok "$D"
	else
		tap_not_ok "$D"
	fi
}

# --allow-domain starts its helper before the command, traced already: the
# tracer deals with its stops before the handshake (it hung there once).
t_egress() {
	run timeout 60 "$LANDRUN" "${SYS[@]}" --report-denials --allow-domain example.com -- \
		"$TRY" read "$T/f"
	reports "with --allow-domain (its helper starts first): the read, and nothing of the helper's" \
		13 "read $(re "$T/f") \(by lr-try, pid $PID\) -> --ro $(re "$T/f")"
}

# Names the command chose never become settings of the learned file, nor
# break its comments (issue 20): newlines that spell settings, and ' ;' after
# a newline, which the reader would take as the start of a comment.
t_learn_names() {
	local L=$T/names C=$W/names.conf evil deep n
	evil="$L/x
rw = /
unrestricted-network = true"
	deep="$L/s
rw = $L/opt/victim ;/f"
	mkdir -p "$L/opt" "$(dirname "$deep")" "$(dirname "$evil")" && echo x >"$evil" && echo x >"$deep" &&
		echo x >"$L/plain" || exit 1
	rm -f "$C"
	lr --learn "$C" -- "$TRY" read "$evil"
	lr --config "$C" --learn "$C" -- "$TRY" read "$deep"
	lr --config "$C" --learn "$C" -- "$TRY" read "$evil"
	n=$(grep -cv '^\(#.*\)\?$' "$C")
	if [ "$n" = 0 ] && grep -qF "read $L/x\x0arw = /\x0aunrestricted-network = true" "$C"; then
		tap_ok "--learn: names with newlines and ' ;' stay escaped in comments, three runs"
	else
		tap_not_ok "--learn: $n settings from names the command chose: $(tr '\n' '|' <"$C")"
	fi
	run "$LANDRUN" "${SYS[@]}" --config "$C" --explain -- "$TRY" exit 0
	if [ "$RC" = 0 ] && grep -q '^network: restricted' "$W/out" && ! grep -q "$L" "$W/out"; then
		tap_ok "--learn: the file read back grants nothing of theirs, network restricted"
	else
		tap_not_ok "--learn: read back: status $RC: $(grep -e network -e "$L" "$W/out" | tr '\n' '|')"
	fi
	lr --learn "$W/plain.conf" -- "$TRY" read "$L/plain"
	if grep -qx "ro = $L/plain" "$W/plain.conf"; then
		tap_ok "control: --learn writes a plain name as a setting"
	else
		tap_not_ok "control: --learn did not learn $L/plain: $(tr '\n' '|' <"$W/plain.conf")"
	fi
}

# Paths and process names the command chose reach the terminal escaped.
t_escaped() {
	local L=$T/esc f name
	f="$L/$(printf 'a\033]0;pwned\007\033[31mb')"
	name="$L/$(printf '\033[31mtry')"
	mkdir -p "$L" && echo x >"$f" && cp "$TRY" "$name" || exit 1
	lr --report-denials -- "$TRY" read "$f"
	if ! grep -q "$(printf '[\033\007]')" "$W/err" &&
		grep -qF 'a\x1b]0;pwned\x07\x1b[31mb' "$W/err"; then
		tap_ok "--report-denials: a path's escape sequences are shown escaped"
	else
		tap_not_ok "--report-denials: raw bytes reached the terminal: $(od -c "$W/err" | head -5 | tr '\n' '|')"
	fi
	lr --report-denials --rox "$L" -- "$name" read "$T/f"
	if ! grep -q "$(printf '\033')" "$W/err" && grep -qF '(by \x1b[31mtry, pid' "$W/err"; then
		tap_ok "--report-denials: a process name's escape sequences are shown escaped"
	else
		tap_not_ok "--report-denials: the process name: $(od -c "$W/err" | head -5 | tr '\n' '|')"
	fi
	lr --report-denials -- "$TRY" read "$T/f"
	if grep -qF "denied read $T/f (by lr-try, pid" "$W/err"; then
		tap_ok "control: a plain path and name are shown as they are"
	else
		tap_not_ok "control: $(tr '\n' '|' <"$W/err")"
	fi
}

# ===========================================================================
# The report's order, and what it keeps apart (issue 19)

# Probes that programs do without (/proc/filesystems: libselinux at every
# mkdir) are one line at the end, never learned; the real denial is told.
t_probes() {
	local C=$W/probes.conf
	rm -f "$C"
	lr --report-denials --learn "$C" -- /bin/sh -c "$TRY read /proc/filesystems; $TRY read $T/f"
	if [ "$RC" = 13 ] && [ "$(grep -c '^landrun: denied ' "$W/err")" = 1 ] &&
		grep -Eqx "landrun: denied read $(re "$T/f") \(by lr-try, pid $PID\) -> --ro $(re "$T/f")" "$W/err" &&
		grep -qx 'landrun: and 1 probe that programs do without (read /proc/filesystems): not needed; --log-level info shows it' "$W/err"; then
		tap_ok "a probe programs do without: one line at the end, the real denial told"
	else
		tap_not_ok "a probe: $(tr '\n' '|' <"$W/err")"
	fi
	if grep -qx "ro = $T/f" "$C" && ! grep -q '^ro = /proc' "$C" &&
		grep -q '^# denied 1 time: read /proc/filesystems: a probe' "$C"; then
		tap_ok "--learn learns the real one, and not the probe (a note)"
	else
		tap_not_ok "--learn and a probe: $(tr '\n' '|' <"$C")"
	fi
	lr --report-denials --log-level info -- /bin/sh -c "$TRY read /proc/filesystems; $TRY read $T/f"
	if grep -Eq "^landrun: denied read /proc/filesystems \(by lr-try, pid $PID\): a probe that programs do without" "$W/err" &&
		! grep -q 'probe that programs do without (' "$W/err"; then
		tap_ok "control: at --log-level info the probe is told in full"
	else
		tap_not_ok "--log-level info: $(tr '\n' '|' <"$W/err")"
	fi
}

# The denial that made the command fail (the last) comes first.
t_order() {
	local first
	lr --report-denials -- /bin/sh -c "$TRY read $T/ro/file; $TRY read $T/f"
	first=$(grep '^landrun: ' "$W/err" | head -2 | tr '\n' '|')
	if [ "$RC" = 13 ] && grep -Eqx "landrun: the command failed \(status 13\): its last denial first\|landrun: denied read $(re "$T/f") .*\|" <<<"$first" &&
		[ "$(grep -c '^landrun: denied ' "$W/err")" = 2 ]; then
		tap_ok "a failed command: its last denial first, the others after"
	else
		tap_not_ok "the order: $(tr '\n' '|' <"$W/err")"
	fi
	lr --report-denials -- /bin/sh -c "$TRY read $T/ro/file; $TRY read $T/f; exit 0"
	first=$(grep '^landrun: ' "$W/err" | head -1)
	if [ "$RC" = 0 ] && ! grep -q 'command failed' "$W/err" &&
		grep -Eqx "landrun: denied read $(re "$T/ro/file") .*" <<<"$first"; then
		tap_ok "control: a command that succeeds: the denials as they came"
	else
		tap_not_ok "control: $(tr '\n' '|' <"$W/err")"
	fi
}

# A terminal's device is never advised (its number is another's tomorrow).
t_terminal() {
	local dev ok=1
	for dev in /dev/tty /dev/ptmx; do
		lr --report-denials -- "$TRY" write "$dev"
		grep -Eqx "landrun: denied write $(re "$dev") \(by lr-try, pid $PID\): a terminal: landrun grants none by name.*" "$W/err" &&
			! grep -q -- "--rw $dev" "$W/err" || ok=0
	done
	if [ $ok = 1 ]; then
		tap_ok "a terminal device (/dev/tty, /dev/ptmx): a note, never --rw"
	else
		tap_not_ok "a terminal device: $(tr '\n' '|' <"$W/err")"
	fi
	lr --report-denials -- "$TRY" write /dev/zero
	reports "control: another device is advised" 13 \
		"write /dev/zero \(by lr-try, pid $PID\) -> --rw /dev/zero"
}

# mkdir -p ~/.cache/mytool/x: --learn makes the directories (mkdir =) and
# grants the tool's own, never ~/.cache; three runs, then no denial.
t_learn_mkdir() {
	local H=$T/home C=$W/mkdir.conf i ok=1 cfg=()
	local tool="mkdir -p \"\$HOME/.cache/mytool/x\" && echo done >\"\$HOME/.cache/mytool/x/out\""
	rm -rf "$H" "$C" && mkdir -p "$H" || exit 1
	for i in 1 2; do
		HOME=$H lr --env HOME "${cfg[@]}" --learn "$C" -- /bin/sh -c "$tool"
		[ "$RC" != 0 ] || ok=0
		cfg=(--config "$C")
	done
	if [ $ok = 1 ] && grep -qx "mkdir = $H/.cache/mytool" "$C" && grep -qx "rw = $H/.cache/mytool" "$C" &&
		! grep -q "^rw = $H/.cache\$" "$C" && [ "$(grep -c '^[a-z-]* = ' "$C")" = 2 ]; then
		tap_ok "--learn, two runs: mkdir and rw of the tool's own directory, not ~/.cache"
	else
		tap_not_ok "--learn, two runs: $(tr '\n' '|' <"$C")"
	fi
	HOME=$H lr --env HOME --config "$C" --report-denials -- /bin/sh -c "$tool"
	if [ "$RC" = 0 ] && ! grep -q '^landrun: denied' "$W/err" && [ "$(cat "$H/.cache/mytool/x/out" 2>/dev/null)" = done ] &&
		[ "$(stat -c %a "$H/.cache")" = 700 ]; then
		tap_ok "... the third runs with no denial (landrun made ~/.cache, 0700)"
	else
		tap_not_ok "the third run: status $RC: $(tr '\n' '|' <"$W/err")"
	fi
	rm -rf "$H/.cache"
	HOME=$H lr --env HOME -- /bin/sh -c "$tool"
	if [ "$RC" != 0 ] && [ ! -e "$H/.cache" ]; then
		tap_ok "control: without the learned file, the tool cannot make it"
	else
		tap_not_ok "control: status $RC, $(ls -a "$H")"
	fi
}

# base's private HOME: what the command looked for there and did not find,
# when the caller's HOME has it.
t_private_home() {
	local H=$T/realhome
	mkdir -p "$H/.config/tool" && echo x >"$H/.toolrc" && echo x >"$H/.config/tool/cfg" || exit 1
	HOME=$H lr --private-home --report-denials -- /bin/sh -c \
		"cat \"\$HOME/.toolrc\" \"\$HOME/.config/tool/cfg\" \"\$HOME/.absent\" 2>/dev/null; exit 0"
	if [ "$RC" = 0 ] && grep -qx "landrun: HOME is a new, empty directory (private-home): the command looked there for ~/.toolrc, ~/.config/tool/cfg, ~/.absent, and found nothing; your HOME has them: --env HOME --ro $H/.toolrc,$H/.config/tool/cfg gives it yours (or --env HOME=DIR --rw DIR, a HOME of its own that stays)" "$W/err"; then
		tap_ok "the private HOME lacked what the caller's has: said, with the way to give it"
	else
		tap_not_ok "the private HOME: $(tr '\n' '|' <"$W/err")"
	fi
	HOME=$H lr --private-home --report-denials -- /bin/sh -c "cat \"\$HOME/.absent\" 2>/dev/null; exit 0"
	if [ "$RC" = 0 ] && ! grep -q 'HOME is a new' "$W/err"; then
		tap_ok "control: what the caller's HOME has not either: not said"
	else
		tap_not_ok "control: $(tr '\n' '|' <"$W/err")"
	fi
}

# The broker's calls never reach the tracer (its user notification comes
# first): it tells the supervisor what it refused, and what it left to
# Landlock that Landlock denies for sure.
t_broker() {
	local B=$T/bw D=("with the broker: a directory made outside its grants is told"
		"with the broker: a file made outside its grants is told"
		"with a secret carved in its grant (every open the broker's): a read outside is told"
		"as uid 0 with the broker: a chmod outside its grants is told")
	mkdir -p "$B" || exit 1
	if ! "$LANDRUN" "${SYS[@]}" --explain=json --report-denials --rw "$B" -- "$TRY" exit 0 2>/dev/null |
		grep -q '"id":"fs.broker","requested":true,"enforced":true'; then
		for d in "${D[@]}"; do skip "$d" "needs Landlock, seccomp user notification and kernel.yama.ptrace_scope 0 (the broker with --report-denials)"; done
		return
	fi
	lr --report-denials --rw "$B" -- "$TRY" mkdir "$B/sub"
	quiet "control: with the broker, a directory made in its grant: nothing to tell" 0
	lr --report-denials --rw "$B" --ro "$T/ro" -- "$TRY" mkdir "$T/ro/sub"
	reports "${D[0]}" 13 "create $(re "$T/ro/sub") \(by lr-try, pid $PID\) -> --rw $(re "$T/ro")"
	lr --report-denials --rw "$B" --ro "$T/ro" -- "$TRY" mkdir "$T/ro/file"
	quiet "control: ... but not one that is there already (EEXIST)" 17
	lr --report-denials --rw "$B" --ro "$T/ro" -- "$TRY" create "$T/ro/made-$RANDOM"
	reports "${D[1]}" 13 "create $(re "$T/ro/")made-[0-9]+ \(by lr-try, pid $PID\) -> --rw $(re "$T/ro")"
	lr --report-denials --rw "$B" --ro "$T/ro" -- "$TRY" create "$T/ro/file"
	quiet "control: ... but not an O_EXCL one that is there already (EEXIST)" 17
	lr --report-denials --rw "$B" --ro "$T/ro" -- "$TRY" write "$T/ro/file"
	reports "with the broker: a file written outside its grants is told" 13 \
		"write $(re "$T/ro/file") \(by lr-try, pid $PID\) -> --rw $(re "$T/ro/file")"
	echo "K=v" >"$B/.env" || exit 1
	lr --report-denials --rw "$B" -- "$TRY" read "$T/f"
	reports "${D[2]}" 13 "read $(re "$T/f") \(by lr-try, pid $PID\) -> --ro $(re "$T/f")"
	rm -f "$B/.env"
	if [ "$(id -u)" != 0 ]; then
		skip "${D[3]}" "runs as uid 0 only"
		return
	fi
	lr --report-denials --rw "$B" --ro "$T/ro" -- "$TRY" chmod "$T/ro/file" 600
	reports "${D[3]}" 1 "chmod \(by lr-try, pid $PID\): privs\.root-metadata: .*"
}

t_nothing
t_read
t_egress
t_exec
t_write
t_tcp
t_unix
t_calls
t_children
t_secret
t_learn
t_learn_names
t_escaped
t_probes
t_order
t_terminal
t_learn_mkdir
t_private_home
t_broker
t_tracer
t_exitkill
t_no_secret
t_audit
t_landlock_audit
tap_done
