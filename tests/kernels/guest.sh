#!/bin/sh
# SPDX-License-Identifier: MIT
#
# guest.sh BINDIR - the contract of landrun's plan on the kernel this runs on; TAP.
#
# Run by scripts/test-kernels.sh inside a QEMU guest (busybox sh, nothing else), once
# as root and once as an unprivileged user.  BINDIR holds a static landrun, its egress
# helper landrun-egress beside it (where landrun looks first), and the static helpers lr-try (filesystem), lr-net (network, IPC, kernel surface) and
# lr-kguest (witnesses outside the sandbox, device ioctls, the Landlock ABI).
#
# For three policies, all with --rox BINDIR --ro DIR,/dev/null --rw DIR: tcp adds
# --connect-tcp PORT, default adds nothing (the default network policy), unix adds
# --unix PATH --deny-subprocess:
#
#   plan      what --explain=json says enforces each protection is what this kernel's
#             Landlock ABI gives, derived here independently of landrun
#   enforced  every protection it says is enforced is attacked and holds, with the
#             error of the layer it names, next to a positive control (the same
#             operation outside the sandbox, or a granted one inside it)
#   lost      every protection it says is lost is named in the warning, makes
#             --on-unsupported=error refuse (125) without running the command, and
#             really is lost: the attack goes through (the plan says nothing false)
#
# Witnesses outside the sandbox (listeners, a signal recorder) count what reached
# them, so that "denied" is not just an exit status.

set -u
BIN=${1:-/tests/bin}
TRY=$BIN/lr-try NET=$BIN/lr-net KG=$BIN/lr-kguest
W=$(mktemp -d /tmp/lrk.XXXXXX) || exit 1
# the contract of exactly the grants given: no profile (the guest has none
# installed), no project added; a wrapper that the guest's other user can run too
LR=$(mktemp -d /tmp/lrk-bin.XXXXXX)/landrun || exit 1
printf '#!/bin/sh\nexec %s --profile none --no-project "$@"\n' "$BIN/landrun" >"$LR" &&
	chmod 755 "${LR%/landrun}" "$LR" || exit 1
F=$W/f
UID_NOW=$(id -u)
set -- $("$KG" abi)
ABI=$1 ABI_ERRNO=$2
KNOWN=10	# LR_LANDLOCK_ABI_KNOWN; checked against --explain=json below

echo "# landrun on $(uname -r), Landlock ABI $ABI ($ABI_ERRNO), as uid $UID_NOW"

# ---------------------------------------------------------------- TAP
N=0 FAILED=0 RC=0 NOTE=
ok() { N=$((N + 1)) NOTE=; echo "ok $N - $1"; }
not_ok() {
	N=$((N + 1)) FAILED=$((FAILED + 1))
	echo "not ok $N - $1"
	[ -n "$NOTE" ] && echo "#   $NOTE"
	NOTE=
	echo "#   last command: exit status $RC"
	sed -n '1,8s/^/#   stdout: /p' "$W/out"
	sed -n '1,8s/^/#   stderr: /p' "$W/err"
}
check() { # DESC COMMAND...
	local d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}

# ---------------------------------------------------------------- running things
# Each sets RC and leaves stdout and stderr in $W/out and $W/err.
run() { "$@" >"$W/out" 2>"$W/err" </dev/null; RC=$?; }
lr() { run "$LR" $POL -- "$@"; }		# landrun under the current policy (warn)
lr_mode() { local m=$1; shift; run "$LR" --on-unsupported="$m" $POL -- "$@"; }
plain() { run "$@"; }				# outside the sandbox: a control

# witnesses: servers outside the sandbox that log one line per arrival
serve() { # NAME KIND [ADDR]: start a server logging to $W/NAME.log
	local name=$1 kind=$2 pid
	shift 2
	pid=$("$KG" serve "$kind" "$@" "$W/$name.log") || { echo "Bail out! cannot serve $name"; exit 1; }
	echo "$pid" >>"$W/pids"
	: >"$W/$name.log"
	[ "$kind" = signal ] && SIG_PID=$pid
	return 0
}
count() { wc -l <"$W/$1.log"; }
# settle NAME WANT: wait (up to 3 s) until NAME has logged WANT arrivals; true if exactly
settle() {
	local i=0
	while [ "$(count "$1")" -lt "$2" ] && [ $i -lt 60 ]; do sleep 0.05; i=$((i + 1)); done
	[ "$(count "$1")" = "$2" ]
}
cleanup() { [ -f "$W/pids" ] && kill $(cat "$W/pids") 2>/dev/null; rm -rf "$W"; }
trap cleanup EXIT

# ---------------------------------------------------------------- fixtures
P_OK=47801 P_BAD=47802 P_UDP=47803
mkdir -p "$F/ro" "$F/rw" "$F/secret" "$F/out" "$F/proj/src" "$F/proj/.git" || exit 1
echo "ro content" >"$F/ro/f"
echo "SECRET=kernels-hunter2" >"$F/secret/.env"
# a project: a secret and a git directory inside a writable grant
echo "SECRET=kernels-proj" >"$F/proj/.env"
echo "code" >"$F/proj/src/a"
printf '[core]\n\tbare = false\n' >"$F/proj/.git/config"
cp "$TRY" "$F/rw/x"
serve tcp_ok tcp $P_OK
serve tcp_bad tcp $P_BAD
serve udp udp $P_UDP
serve unix_out unix "$F/out/srv.sock"
serve unix_ok unix "$F/out/ok.sock"
serve unix_in unix "$F/rw/in.sock"
serve abstract abstract "lrk-abstract-$UID_NOW"
serve signal signal

# (--log-level error: the line that says what was kept out of the project is
# not a warning, and "ignore: says nothing" is about warnings)
GRANTS="--rox $BIN --ro $F/ro,/dev/null --rw $F/rw,$F/proj --log-level error"
policy() {
	case $1 in
	tcp) POL="$GRANTS --connect-tcp $P_OK" ;;
	default) POL="$GRANTS" ;;
	unix) POL="$GRANTS --unix $F/out/ok.sock --deny-subprocess" ;;
	esac
}
IDS="fs.read fs.write fs.exec fs.truncate fs.ioctl-dev fs.secrets fs.protected fs.broker net.sockets net.tcp net.udp net.unix
scope.abstract-unix scope.signal proc.others ipc.sysv kernel.surface kernel.foreign-abi proc.no-subprocess
privs.no-new-privs privs.capabilities privs.root-metadata env.filtered fds.closed"

# ---------------------------------------------------------------- the plan, derived
# want_layer POLICY ID: the layer this kernel's ABI gives ID, or lost, or off
ge() { [ "$ABI" -ge "$1" ]; }
want_layer() {
	case $2 in
	fs.read | fs.write | fs.exec | fs.secrets | fs.protected) ge 1 && echo landlock || echo lost ;;
	fs.truncate) ge 3 && echo landlock || echo lost ;;
	fs.broker) ge 1 && echo broker || echo lost ;; # every kernel of the matrix is 5.14+
	fs.ioctl-dev) ge 5 && echo landlock || echo lost ;;
	net.sockets | kernel.surface | kernel.foreign-abi | proc.others | ipc.sysv) echo seccomp ;;
	net.tcp)
		if [ "$1" != tcp ]; then echo seccomp
		elif ge 4; then echo landlock
		else echo lost; fi ;;
	net.udp) ge 10 && echo landlock || echo seccomp ;;
	net.unix)
		if ge 9; then echo landlock
		elif [ "$1" = unix ]; then echo lost
		else echo seccomp; fi ;;
	scope.abstract-unix)
		if ge 6; then echo landlock
		elif [ "$1" = unix ]; then echo lost
		else echo seccomp; fi ;;
	scope.signal) ge 6 && echo landlock || echo lost ;;
	proc.no-subprocess) [ "$1" = unix ] && echo seccomp || echo off ;;
	privs.root-metadata) [ "$UID_NOW" = 0 ] && echo seccomp || echo off ;;
	privs.* | env.filtered | fds.closed) echo landrun ;;
	*) echo unknown ;;
	esac
}

# explain POLICY: $W/plan.POLICY, one "ID LAYER" line per protection (LAYER: the
# layer, lost, or off), from --explain=json
explain() {
	run "$LR" --explain=json $POL -- "$TRY" exit 0
	cp "$W/out" "$W/json.$1"
	[ "$UID_NOW" = 0 ] && echo "# EXPLAIN-JSON $1 $(cat "$W/out")"
	tr '{' '\n' <"$W/out" | sed -n 's/^"id":"\([^"]*\)","requested":\([a-z]*\),"enforced":\([a-z]*\),"layer":"\{0,1\}\([a-z]*\).*/\1 \2 \3 \4/p' |
		awk '{ print $1, ($2 == "false" ? "off" : $3 == "true" ? $4 : "lost") }' >"$W/plan.$1"
}
layer_of() { awk -v id="$2" '$1 == id { print $2 }' "$W/plan.$1"; }
json_field() { grep -o "\"$2\":[^,}]*" "$W/json.$1" | head -1 | cut -d: -f2 | tr -d '"'; }

# ---------------------------------------------------------------- attacks
# attack_ID LAYER: RES=held (denied, with LAYER's error), breached (it worked), or
# "broken: ..." (a control failed, or an unexpected error).  Controls first.
RES=
control() { # DESC COMMAND...: the command must work, else RES=broken
	local d=$1
	shift
	"$@"
	[ "$RC" = 0 ] && return 0
	RES="broken: control ($d) -> $RC"
	return 1
}
verdict() { # "ERRNOS" held when the last RC is one of them
	case " $1 " in
	*" $RC "*) RES=held ;;
	*) [ "$RC" = 0 ] && RES=breached || RES="broken: unexpected exit status $RC, not $1" ;;
	esac
}
# the errors each layer answers with: Landlock EACCES (scopes EPERM), seccomp's
# socket rules EAFNOSUPPORT or EPROTONOSUPPORT
ll_or_sc() { [ "$1" = landlock ] && echo "$2" || echo "$3"; }

attack_fs_read() {
	control "read outside" plain "$TRY" read "$F/secret/.env" &&
	control "granted read" lr "$TRY" read "$F/ro/f" &&
	{ lr "$TRY" read "$F/secret/.env"; verdict 13; }
}
attack_fs_write() {
	control "granted write" lr "$TRY" write "$F/rw/w" &&
	{ lr "$TRY" write "$F/ro/f"; verdict 13; }
	echo "ro content" >"$F/ro/f"
}
attack_fs_exec() {
	control "exec outside" plain "$TRY" exec "$F/rw/x" exit 0 &&
	control "granted exec" lr "$TRY" exec "$TRY" exit 0 &&
	{ lr "$TRY" exec "$F/rw/x" exit 0; verdict 13; }
}
attack_fs_truncate() {
	echo data >"$F/ro/t"
	echo data >"$F/rw/t"
	control "granted truncate" lr "$TRY" truncate "$F/rw/t" &&
	{ lr "$TRY" truncate "$F/ro/t"; verdict 13; }
}
attack_fs_ioctl_dev() {
	control "ioctl outside" plain "$KG" ioctl-dev /dev/null &&
	control "granted ioctl (--rw /dev/null)" run "$LR" --rox "$BIN" --rw /dev/null -- "$KG" ioctl-dev /dev/null &&
	{ lr "$KG" ioctl-dev /dev/null; verdict 13; }
}
attack_fs_secrets() { # the project's .env, inside a granted tree
	control "read outside" plain "$TRY" read "$F/proj/.env" &&
	control "granted read beside it" lr "$TRY" read "$F/proj/src/a" &&
	{ lr "$TRY" read "$F/proj/.env"; verdict 13; }
}
attack_fs_protected() { # the project's .git/config, inside a writable grant
	control "granted write beside it" lr "$TRY" write "$F/proj/src/a" &&
	{ lr "$TRY" write "$F/proj/.git/config"; verdict 13; }
	printf '[core]\n\tbare = false\n' >"$F/proj/.git/config"
}
attack_fs_broker() { # a harness's settings made at the project's root, which holds .env and .git
	rm -rf "$F/proj/new" "$F/proj/.claude"
	control "a new file at the root" lr "$TRY" create "$F/proj/new" &&
	{ lr "$TRY" mkdir "$F/proj/.claude"; verdict 13; }
	rm -rf "$F/proj/new" "$F/proj/.claude"
}
attack_proc_others() { # another process's limits: this script's, the same user's
	control "prlimit of another process outside" plain "$KG" prlimit-other $$ &&
	control "its own, inside" lr "$KG" prlimit-other 0 &&
	{ lr "$KG" prlimit-other $$; verdict 1; }
}
attack_ipc_sysv() { # a SysV shared memory segment
	control "shmget outside" plain "$KG" shmget &&
	{ lr "$KG" shmget; verdict 1; }
}
attack_net_sockets() { # each kind that works outside must be refused inside
	local op tried=
	for op in mptcp netlink-audit raw packet; do
		plain "$NET" $op
		[ "$RC" = 0 ] || continue
		tried="$tried $op"
		lr "$NET" $op
		verdict "93 97"
		[ "$RES" = held ] || { RES="$RES ($op)"; return; }
	done
	[ -n "$tried" ] || RES="broken: no socket kind to attack works outside"
}
attack_net_tcp() {
	local bad=$(count tcp_bad)
	if [ "$POLICY" = tcp ]; then	# the granted port works, another does not
		control "granted port" lr "$NET" tcp-connect 127.0.0.1 $P_OK || return
		lr "$NET" tcp-connect 127.0.0.1 $P_BAD
		verdict "$(ll_or_sc "$1" 13 "93 97")"
	else				# no TCP at all
		lr "$NET" tcp-connect 127.0.0.1 $P_BAD
		verdict "93 97"
	fi
	witness tcp_bad "$bad" "connect outside" plain "$NET" tcp-connect 127.0.0.1 $P_BAD
}
attack_net_udp() {
	local n=$(count udp)
	lr "$NET" udp-send 127.0.0.1 $P_UDP
	verdict "$(ll_or_sc "$1" 13 "93 97")"
	witness udp "$n" "send outside" plain "$NET" udp-send 127.0.0.1 $P_UDP
}
attack_net_unix() {
	local n=$(count unix_out)
	if [ "$POLICY" = unix ]; then
		control "the --unix socket" lr "$NET" unix-connect "$F/out/ok.sock" || return
	fi
	lr "$NET" unix-connect "$F/out/srv.sock"
	verdict "$(ll_or_sc "$1" 13 97)"
	witness unix_out "$n" "connect outside" plain "$NET" unix-connect "$F/out/srv.sock"
}
attack_scope_abstract_unix() {
	local n=$(count abstract) deny
	deny=$(ll_or_sc "$1" 1 97)
	# where seccomp also denies socket(AF_UNIX), it answers first
	[ "$(layer_of "$POLICY" net.unix)" = seccomp ] && deny="$deny 97"
	lr "$NET" unix-abstract "lrk-abstract-$UID_NOW"
	verdict "$deny"
	witness abstract "$n" "connect outside" plain "$NET" unix-abstract "lrk-abstract-$UID_NOW"
}
attack_scope_signal() {
	local n=$(count signal)
	if [ "$(layer_of "$POLICY" proc.no-subprocess)" = off ]; then	# its own children it may signal
		control "signal own child" lr "$NET" kill-own-child || return
	fi
	lr "$NET" kill "$SIG_PID" 10
	verdict 1
	witness signal "$n" "signal outside" plain "$NET" kill "$SIG_PID" 10
}
attack_kernel_surface() { # every call denied with the filter's error
	local c op want works=
	for c in io-uring:38 clone3:38 unshare-user:1 clone-newns:1 mount:1 keyctl:1 bpf:1 \
		perf:1 userfaultfd:1 tiocsti-hi:1; do
		op=${c%:*} want=${c#*:}
		plain "$NET" $op
		[ "$RC" = 0 ] && works="$works $op"
		lr "$NET" $op
		verdict "$want"
		[ "$RES" = held ] || { RES="$RES ($op)"; return; }
	done
	[ -n "$works" ] || RES="broken: no call to attack works outside"
}
attack_kernel_foreign_abi() { # SIGSYS kills it: 128 + 31
	plain "$NET" int80
	if [ "$RC" = 139 ]; then # a kernel without IA32 emulation faults it: x32 instead
		plain "$NET" x32
		case $RC in 0 | 38) ;; *) RES="broken: control (x32 outside) -> $RC"; return ;; esac
		control "the same process runs inside" lr "$NET" true &&
		{ lr "$NET" x32; verdict 159; }
		return
	fi
	control "int 0x80 outside" plain "$NET" int80 &&
	control "the same process runs inside" lr "$NET" true &&
	{ lr "$NET" int80; verdict 159; }
}
attack_proc_no_subprocess() {
	control "a thread" lr "$NET" thread &&
	{ lr "$NET" fork; verdict 1; }
}
attack_privs_no_new_privs() {
	plain "$TRY" caps
	grep -q '^NoNewPrivs:[[:space:]]*0' "$W/out" || { RES="broken: no_new_privs already set outside"; return; }
	run "$LR" $POL --ro /proc/self/status -- "$TRY" caps
	if grep -q '^NoNewPrivs:[[:space:]]*1' "$W/out"; then RES=held
	elif [ "$RC" = 0 ]; then RES=breached
	else RES="broken: caps -> $RC"; fi
}
attack_privs_capabilities() {
	local k
	plain "$TRY" caps
	[ "$UID_NOW" != 0 ] || ! grep -q '^CapEff:[[:space:]]*0*$' "$W/out" ||
		{ RES="broken: root without capabilities outside"; return; }
	run "$LR" $POL --ro /proc/self/status -- "$TRY" caps
	[ "$RC" = 0 ] || { RES="broken: caps -> $RC"; return; }
	RES=held
	for k in CapInh CapPrm CapEff CapBnd CapAmb; do
		[ "$UID_NOW" != 0 ] && [ $k = CapBnd ] && continue	# a user keeps the full bounding set
		grep -q "^$k:[[:space:]]*0*\$" "$W/out" || RES=breached
	done
}
attack_privs_root_metadata() { # uid 0 owns the file outside the grants
	echo meta >"$F/out/meta"
	chmod 600 "$F/out/meta"
	control "chmod outside" plain "$TRY" chmod "$F/out/meta" 640 &&
	{ lr "$TRY" chmod "$F/out/meta" 4755; verdict 1; }
	[ "$RES" = held ] && [ "$(stat -c %a "$F/out/meta")" != 640 ] &&
		RES="denied, but the mode changed to $(stat -c %a "$F/out/meta")"
}
attack_env_filtered() {
	run env LRK_SECRET=s "$TRY" env
	grep -q '^LRK_SECRET=' "$W/out" || { RES="broken: env outside"; return; }
	run env LRK_SECRET=s "$LR" $POL -- "$TRY" env
	[ "$RC" = 0 ] || { RES="broken: env -> $RC"; return; }
	[ -s "$W/out" ] && RES=breached || RES=held
}
attack_fds_closed() {
	control "fd 7 outside" plain "$TRY" readfd 7 7<"$F/ro/f" &&
	{ lr "$TRY" readfd 7 7<"$F/ro/f"; verdict 9; }
}

# witness NAME BEFORE DESC COMMAND...: after an attack on NAME's server, a control
# reaches it from outside; the server must then have logged exactly that control,
# plus the attack if it went through.
witness() {
	local name=$1 before=$2 res=$RES d=$3 want
	shift 3
	# an attack that went through arrives first (signals would merge)
	[ "$res" = breached ] && settle "$name" $((before + 1))
	"$@"
	[ "$RC" = 0 ] || { RES="broken: control ($d) -> $RC"; return; }
	RES=$res
	want=$((before + 1))
	[ "$res" = breached ] && want=$((want + 1))
	settle "$name" $want && return
	RES="$res, but the witness logged $(( $(count "$name") - before )) arrivals (want $((want - before)))"
}

# ---------------------------------------------------------------- the contract
# ran STATUS: the last run exited STATUS, and its witness file exists iff STATUS is 0
ran() {
	[ "$RC" = "$1" ] || return 1
	if [ "$1" = 0 ]; then [ -e "$F/rw/ran" ]; else [ ! -e "$F/rw/ran" ]; fi
}
quiet() { [ "$RC" = 0 ] && [ ! -s "$W/err" ]; }

contract() { # POLICY
	POLICY=$1
	policy "$POLICY"
	local p=$1 id want have lost=0 fn
	echo "# policy $p: landrun $POL -- ..."
	explain "$p"
	check "$p: --explain=json exits 0" [ "$RC" = 0 ]
	check "$p: explain: landlock_abi $ABI (the kernel's)" [ "$(json_field "$p" landlock_abi)" = "$ABI" ]
	check "$p: explain: landlock_abi_known $KNOWN" [ "$(json_field "$p" landlock_abi_known)" = $KNOWN ]
	want=$ABI
	[ "$ABI" -gt $KNOWN ] && want=$KNOWN
	check "$p: explain: landlock_abi_used $want" [ "$(json_field "$p" landlock_abi_used)" = "$want" ]
	want=null
	[ "$ABI" = 0 ] && want=$ABI_ERRNO
	check "$p: explain: landlock_errno $want" [ "$(json_field "$p" landlock_errno)" = "$want" ]
	check "$p: explain: seccomp true" [ "$(json_field "$p" seccomp)" = true ]

	for id in $IDS; do
		want=$(want_layer "$p" "$id")
		have=$(layer_of "$p" "$id")
		check "$p: plan: $id ${want} (ABI $ABI)" [ "$have" = "$want" ]
		[ "$have" = lost ] && lost=$((lost + 1))
	done

	# warn (the default): runs, and names exactly the lost protections
	rm -f "$F/rw/ran"
	lr "$TRY" create "$F/rw/ran"
	check "$p: warn: the command runs" ran 0
	check "$p: warn: $lost 'not enforced' lines" [ "$(grep -c 'not enforced' "$W/err")" = $lost ]
	for id in $IDS; do
		if [ "$(layer_of "$p" "$id")" = lost ]; then
			check "$p: warn names lost $id" grep -q "not enforced.*: $id (" "$W/err"
		fi
	done
	# error: refuses without running the command if anything is lost
	rm -f "$F/rw/ran"
	lr_mode error "$TRY" create "$F/rw/ran"
	if [ $lost = 0 ]; then
		check "$p: error: nothing lost, the command runs" ran 0
	else
		check "$p: error: refuses with 125, the command did not run" ran 125
		for id in $IDS; do
			if [ "$(layer_of "$p" "$id")" = lost ]; then
				check "$p: error names lost $id" grep -q "cannot enforce $id " "$W/err"
			fi
		done
	fi
	lr_mode ignore "$TRY" exit 0
	check "$p: ignore: runs, says nothing" quiet

	# every protection attacked: enforced ones hold, lost ones are lost
	for id in $IDS; do
		have=$(layer_of "$p" "$id")
		[ "$have" = off ] && continue
		fn=attack_$(echo "$id" | tr '.-' '__')
		RES=
		$fn "$have"
		NOTE="result: $RES"
		case $have in
		lost) check "$p: $id lost: the attack goes through" [ "$RES" = breached ] ;;
		*) check "$p: $id by $have: the attack is denied" [ "$RES" = held ] ;;
		esac
	done
}

contract tcp
contract default
contract unix

# ---------------------------------------------------------------- UNIX sockets in grants
# With Landlock ABI 9 the command may use UNIX sockets inside its --rw grants (and only
# there: the attacks above); below it seccomp denies socket(AF_UNIX) altogether.
# (With --connect-tcp and no --bind-tcp, listen(2) is denied below ABI 9, where no
# UNIX socket can be made either; from ABI 9 UNIX servers need it, as docs/usage.md says.)
policy default
lr "$NET" unix-connect "$F/rw/in.sock"
if ge 9; then
	check "unix: connect to a socket inside --rw works (ABI 9+)" [ "$RC" = 0 ]
	lr "$KG" unix-selftest "$F/rw/self.sock"
	check "unix: bind, listen, connect inside --rw works (ABI 9+)" [ "$RC" = 0 ]
	# the broker binds the command's socket, beneath a root that holds a
	# secret too (every open brokered); a protected name stays refused
	rm -f "$F/proj/self.sock" "$F/proj/.git/self.sock"
	lr "$KG" unix-selftest "$F/proj/self.sock"
	check "unix: bind, listen, connect at a root with .env and .git works (ABI 9+)" [ "$RC" = 0 ]
	lr "$KG" unix-selftest "$F/proj/.git/self.sock"
	check "unix: a socket bound in .git is refused (ABI 9+)" \
		eval '[ "$RC" = 13 ] && [ ! -e "$F/proj/.git/self.sock" ]'
	rm -f "$F/proj/self.sock"
	policy tcp
	lr "$KG" unix-selftest "$F/rw/self2.sock"
	check "unix: a UNIX server inside --rw works with --connect-tcp too (ABI 9+)" [ "$RC" = 0 ]
	policy default
	lr "$NET" unix-connect "$F/rw/../out/srv.sock"
	check "unix: connect through rw/../ to a socket outside denied" [ "$RC" = 13 ]
else
	check "unix: socket(AF_UNIX) denied by seccomp below ABI 9" [ "$RC" = 97 ]
fi

# ---------------------------------------------------------------- Yama's ptrace_scope
# From kernel.yama.ptrace_scope 1 (Ubuntu's, Arch's) only a process's ancestors read
# its memory: the broker, which reads each call's path there, is then the command's
# parent, and passes signals, stops and the exit status on.  With 2 no process
# without CAP_SYS_PTRACE reads another's: fs.broker is lost, and says why, and the
# carving keeps what it kept.
YAMA=/proc/sys/kernel/yama/ptrace_scope
yama_user=${LRK_USER_UID:-1000}
if [ "$UID_NOW" = 0 ] && [ -w "$YAMA" ] && [ "$(cat "$YAMA")" = 0 ] && ge 1; then
	echo 1 >"$YAMA"
	policy default
	explain yama1
	check "yama 1: plan: fs.broker by the broker (the command's parent)" \
		[ "$(layer_of yama1 fs.broker)" = broker ]
	rm -rf "$F/proj/new" "$F/proj/.claude"
	lr "$TRY" create "$F/proj/new"
	check "yama 1: a new file at a root with .env and .git" eval '[ "$RC" = 0 ] && [ -e "$F/proj/new" ]'
	lr "$TRY" mkdir "$F/proj/.claude"
	check "yama 1: a harness's settings there are refused" \
		eval '[ "$RC" = 13 ] && [ ! -e "$F/proj/.claude" ]'
	lr "$TRY" read "$F/proj/.env"
	check "yama 1: .env stays unreadable" [ "$RC" = 13 ]
	lr "$TRY" exit 7
	check "yama 1: the command's exit status is landrun's" [ "$RC" = 7 ]
	run "$LR" $POL --ro /proc/self/status -- "$TRY" read /proc/self/status
	check "yama 1: a grant of /proc/self is the command's own" [ "$RC" = 0 ]
	lr "$TRY" kill 15
	check "yama 1: the command's death by SIGTERM is landrun's (143)" [ "$RC" = 143 ]
	# as another user, in a project of its own
	Y=$(mktemp -d /tmp/lrk-yama.XXXXXX) && chmod 755 "$Y" && mkdir -p "$Y/.git" &&
		echo "S=1" >"$Y/.env" && chown -R "$yama_user:$yama_user" "$Y" || exit 1
	run "$KG" runas "$yama_user" "$yama_user" "$LR" --rox "$BIN" --rw "$Y" --log-level error -- \
		"$TRY" create "$Y/made"
	check "yama 1, uid $yama_user: a new file at its project's root" \
		eval '[ "$RC" = 0 ] && [ -e "$Y/made" ]'
	run "$KG" runas "$yama_user" "$yama_user" "$LR" --rox "$BIN" --rw "$Y" --log-level error -- \
		"$TRY" read "$Y/.env"
	check "yama 1, uid $yama_user: its .env stays unreadable" [ "$RC" = 13 ]
	rm -rf "$F/proj/new" "$Y"

	echo 2 >"$YAMA"
	explain yama2
	check "yama 2: plan: fs.broker lost" [ "$(layer_of yama2 fs.broker)" = lost ]
	lr_mode error "$TRY" exit 0
	check "yama 2: error refuses (125), naming ptrace_scope" \
		eval '[ "$RC" = 125 ] && grep -q "ptrace_scope is 2" "$W/err"'
	lr "$TRY" write "$F/proj/src/a"
	check "yama 2: a granted write beside .env and .git works" [ "$RC" = 0 ]
	rm -rf "$F/proj/.claude"
	lr "$TRY" mkdir "$F/proj/.claude"
	check "yama 2: a harness's settings at the root stay denied" \
		eval '[ "$RC" = 13 ] && [ ! -e "$F/proj/.claude" ]'
	lr "$TRY" read "$F/proj/.env"
	check "yama 2: .env stays unreadable" [ "$RC" = 13 ]
	echo 0 >"$YAMA"
else
	echo "# yama: skipped: no Yama here (kernel.yama.ptrace_scope), or not root, or not 0"
fi

# ---------------------------------------------------------------- egress (--allow-domain)
# In the world of world.sh: the command's only way out is landrun's proxy,
# in a network namespace of its own when this kernel and user can have one
# (asked by lr-kguest netns-probe, landrun's steps written out anew).
P_WEB=47811
egress() {
	local netns want have
	if ! grep -q allowed.test /etc/hosts || ! ip addr show lo 2>/dev/null | grep -q 11.1.1.1; then
		echo "# egress: skipped, the world of world.sh is not set up here"
		return 0
	fi
	serve web_ok tcp 11.1.1.1:$P_WEB
	serve web_bad tcp 11.2.2.2:$P_WEB
	serve web_loop tcp $P_WEB
	serve web_3128 tcp 11.1.1.1:3128
	POL="$GRANTS --allow-domain allowed.test:$P_WEB,loop.test:$P_WEB"
	netns=$("$KG" netns-probe)
	explain egress
	want=lost
	[ "$netns" = ok ] && want=netns
	# without one: the broker's connects, with Landlock's TCP rules and Yama at most 1
	[ "$want" = lost ] && [ "$ABI" -ge 4 ] &&
		[ "$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo -1)" -le 1 ] && want=broker
	have=$(layer_of egress net.egress-domains)
	NOTE="netns-probe: $netns"
	check "egress: plan: net.egress-domains $want (a network namespace: $netns)" [ "$have" = "$want" ]
	if [ "$have" = netns ]; then
		egress_attacks egress
	elif [ "$have" = broker ]; then
		lr_mode error "$TRY" exit 0
		check "egress: no namespace, the broker's connects: error runs (0)" [ "$RC" = 0 ]
		egress_loopback egress
	else
		lr_mode error "$TRY" exit 0
		check "egress: no namespace: error refuses (125)" [ "$RC" = 125 ]
		egress_loopback egress
	fi
	# no user namespaces for an unprivileged user: the plan says so; with
	# Landlock's TCP rules (ABI 4) and Yama at most 1 the broker connects the
	# command to the proxy on the loopback (nothing lost), else warn runs the
	# proxy there, its port open on any address
	if [ "$UID_NOW" = 0 ] && [ -w /proc/sys/user/max_user_namespaces ]; then
		local old yama brokered=
		yama=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo -1)
		[ "$ABI" -ge 4 ] && [ "$yama" -le 1 ] && brokered=1
		old=$(cat /proc/sys/user/max_user_namespaces)
		trap 'echo "$old" >/proc/sys/user/max_user_namespaces; cleanup' EXIT
		if echo 0 >/proc/sys/user/max_user_namespaces 2>/dev/null; then
			# the user cannot reach this run's files: its own grants only
			local upol="--rox $BIN --allow-domain allowed.test:$P_WEB"
			run "$KG" runas $GUEST_USER $GUEST_USER "$LR" --explain=json $upol -- "$TRY" exit 0
			NOTE="explain: $(grep -o '"egress":{[^}]*}' "$W/out")"
			check "egress, user.max_user_namespaces=0, uid $GUEST_USER: mode loopback" \
				grep -q '"egress":{"mode":"loopback"' "$W/out"
			local n=$(count web_ok)
			if [ -n "$brokered" ]; then
				check "egress, user.max_user_namespaces=0: brokered (ABI $ABI, Yama $yama)" \
					grep -q '"brokered":true' "$W/out"
				run "$KG" runas $GUEST_USER $GUEST_USER "$LR" --on-unsupported=error $upol -- \
					"$KG" proxy-connect allowed.test:$P_WEB
				check "egress, user.max_user_namespaces=0: error runs; CONNECT allowed.test through the proxy the broker connects to" \
					[ "$RC" = 0 ]
			else
				check "egress, user.max_user_namespaces=0: not brokered (ABI $ABI, Yama $yama)" \
					grep -q '"brokered":false' "$W/out"
				run "$KG" runas $GUEST_USER $GUEST_USER "$LR" --on-unsupported=error $upol -- "$TRY" exit 0
				check "egress, user.max_user_namespaces=0: error refuses (125)" [ "$RC" = 125 ]
				check "... naming net.egress-domains" grep -q "cannot enforce net.egress-domains" "$W/err"
				run "$KG" runas $GUEST_USER $GUEST_USER "$LR" $upol -- "$KG" proxy-connect allowed.test:$P_WEB
				check "egress, user.max_user_namespaces=0: warn: CONNECT allowed.test through the loopback proxy" \
					[ "$RC" = 0 ]
			fi
			check "... and allowed.test's server saw it" settle web_ok $((n + 1))
		else
			echo "# egress: cannot set user.max_user_namespaces: the fallback is not tested here"
		fi
		echo "$old" >/proc/sys/user/max_user_namespaces
		trap cleanup EXIT
	fi
}

# through the proxy: allowed works; forbidden, literal, rebinding and direct
# fail, and their servers saw nothing but a poke from outside after them
egress_attacks() {
	local ok0 bad0 loop0 p0
	ok0=$(count web_ok) bad0=$(count web_bad) loop0=$(count web_loop) p0=$(count web_3128)
	lr "$KG" proxy-connect allowed.test:$P_WEB
	check "egress: CONNECT allowed.test (control)" [ "$RC" = 0 ]
	check "egress: ... allowed.test's server saw it" settle web_ok $((ok0 + 1))
	lr "$KG" proxy-connect forbidden.test:$P_WEB
	check "egress: CONNECT forbidden.test: 403" [ "$RC" = 43 ]
	lr "$KG" proxy-connect 11.1.1.1:$P_WEB
	check "egress: CONNECT 11.1.1.1 (an IP literal): 403" [ "$RC" = 43 ]
	lr "$KG" proxy-connect loop.test:$P_WEB
	check "egress: CONNECT loop.test (an allowed name on 127.0.0.1): 403" [ "$RC" = 43 ]
	lr "$NET" tcp-connect 11.1.1.1 3128
	check "egress: direct TCP to 11.1.1.1:3128 (the proxy's port): no route (ENETUNREACH)" \
		[ "$RC" = 101 ]
	plain "$NET" tcp-connect 11.2.2.2 $P_WEB
	check "egress: forbidden.test's server saw only the poke from outside" settle web_bad $((bad0 + 1))
	plain "$NET" tcp-connect 127.0.0.1 $P_WEB
	check "egress: the loopback server saw only the poke from outside" settle web_loop $((loop0 + 1))
	plain "$NET" tcp-connect 11.1.1.1 3128
	check "egress: 11.1.1.1:3128 saw only the poke from outside" settle web_3128 $((p0 + 1))
	check "egress: allowed.test's server saw the control only (not the IP literal)" \
		settle web_ok $((ok0 + 1))
}

# without a namespace (warn): the proxy on the loopback still decides
egress_loopback() {
	local n=$(count web_ok)
	lr "$KG" proxy-connect allowed.test:$P_WEB
	check "egress (loopback): CONNECT allowed.test works" [ "$RC" = 0 ]
	check "egress (loopback): ... allowed.test's server saw it" settle web_ok $((n + 1))
	lr "$KG" proxy-connect forbidden.test:$P_WEB
	check "egress (loopback): CONNECT forbidden.test: 403" [ "$RC" = 43 ]
}

GUEST_USER=${LRK_USER_UID:-1000}
[ "$UID_NOW" = 0 ] || GUEST_USER=$UID_NOW
egress

echo "1..$N"
echo "# $((N - FAILED)) passed, $FAILED failed (uid $UID_NOW, ABI $ABI)"
[ $FAILED = 0 ]
