#!/bin/bash
# SPDX-License-Identifier: MIT
#
# supervise.sh LANDRUN LR_TRY LR_NET LR_FAKEABI BASE_CONF DOCKERFILE [--as-nobody] - the
# supervisor (issue 11),
# judged from OUTSIDE: exit statuses, the processes left in the process
# table, zombies under landrun, elapsed time, the audit log's lines, the
# supervisor's memory.  TAP output.
#
#   pid 1:    in a PID namespace (and a user namespace when not root):
#             SIGTERM ends the command within a second (143); zombies stay
#             at zero while a child makes orphans; statuses pass through;
#             --timeout ends the whole tree
#   --init:   forwarded signals, statuses, orphans, --timeout with a
#             grandchild that ignores SIGTERM and a daemon, what the command
#             leaves behind, --die-with-parent, the supervisor's own death
#   limits:   --rlimit-* seen and enforced, core dumps off, policy files
#   audit:    started + completed/cancelled per run, against its schema;
#             a log the command could rewrite is refused
#   the supervisor: out of the command's reach (Landlock ABI 6), confined,
#             holding no secret; job control through a terminal
#   the image: examples/Dockerfile's ENTRYPOINT, exactly, as PID 1 (no
#             container engine runs here: a PID namespace stands in)
# Each check that proves a thing kept has a control beside it that shows
# the thing happening without landrun.

set -u
. "$(dirname "$0")/lib.sh" || exit 2
e2e_start --grants-only supervise landrun lr-try lr-net lr-fakeabi base.conf Dockerfile -- "$@"

LANDRUN=$BIN/landrun
TRY=$BIN/lr-try
NET=$BIN/lr-net
FAKE=$BIN/lr-fakeabi
W=$TMP/t/.work-$$
mkdir -p "$W" || exit 1
e2e_hello "landrun supervisor" "binaries in $BIN"
cd "$TMP/t" || exit 1

SYS=(--rox /usr,/bin,/lib,/lib64,"$BIN" --ignore-missing --rw /dev/null)
# A shell cannot trap what it was started ignoring, and landrun leaves the
# dispositions it was given as they are (nohup's SIGHUP stays ignored): a
# script's background job ignores SIGINT and SIGQUIT, and a caller may
# ignore more (nohup scripts/test.sh).  Every test starts from the defaults.
LR=(env --default-signal "$LANDRUN" "${SYS[@]}")

# bg COMMAND...: in the background, BG its pid; fin: RC its status
bg() { "$@" >"$W/out" 2>"$W/err" & BG=$!; }
fin() { wait "$BG"; RC=$?; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# until SECONDS COMMAND...: poll every 20 ms
until_ok() {
	local n=$(($1 * 50))
	shift
	while [ $n -gt 0 ]; do
		"$@" && return 0
		sleep 0.02
		n=$((n - 1))
	done
	return 1
}
children() { cat /proc/"$1"/task/*/children 2>/dev/null; }
has_child() { [ -n "$(children "$1")" ]; }
# the first child of PID, once it has one
child_of() { until_ok "$WAIT_S" has_child "$1" && set -- $(children "$1") && echo "$1"; }
# has_grandchild PID: its child has a child (the command is running)
has_grandchild() { local c; for c in $(children "$1"); do has_child "$c" && return 0; done; return 1; }
# quiet PID: the process sleeps with no signal pending: whatever it was sent
# has been dealt with (ignored, or handled and back to waiting)
quiet() {
	grep -q '^State:.S' "/proc/$1/status" 2>/dev/null && [ -z "$(pending_of "$1")" ]
}
pending_of() { # PID: its pending signal masks, when any is not zero
	sed -n 's/^\(SigPnd\|ShdPnd\):[[:space:]]*0*\([1-9a-f]\)/\1 \2/p' "/proc/$1/status" 2>/dev/null
}
# ignores PID SIG: the process's disposition of SIG is "ignore"
ignores() {
	local ign
	ign=$(sed -n 's/^SigIgn:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null) && [ -n "$ign" ] &&
		(( 0x$ign & (1 << ($(kill -l "$2") - 1)) ))
}
# ignores_term PID: SIGTERM is ignored by the process (builtins only)
ignores_term() {
	local k v
	while IFS=$': \t' read -r k v; do
		[ "$k" = SigIgn ] && { (( 0x$v & (1 << 14) )); return; }
	done <"/proc/$1/status"
	return 1
} 2>/dev/null
# runs_below PID ARGV...: a descendant of PID runs exactly ARGV
runs_below() {
	local pid=$1 c want
	shift
	want=$(printf '%s\n' "$@")
	for c in $(children "$pid"); do
		[ "$(tr '\0' '\n' <"/proc/$c/cmdline" 2>/dev/null)" = "$want" ] && return 0
		runs_below "$c" "$@" && return 0
	done
	return 1
}
zombies() { # PID: how many of its children are zombies
	local c n=0
	for c in $(children "$1"); do
		grep -q '^State:.Z' /proc/"$c"/status 2>/dev/null && n=$((n + 1))
	done
	echo $n
}
# processes running exactly "sleep MARK", by pid
marked() { pgrep -xf "sleep $1" | tr '\n' ' '; }
alive() { [ -n "$(marked "$1")" ]; }
gone() { [ -z "$(marked "$1")" ]; }
kill_marked() { local m p; for m; do for p in $(marked "$m"); do kill -KILL "$p"; done; done; }
MARK=$((800000 + RANDOM * 8))
# mark VAR...: a new mark in each VAR (not $(mark): a subshell's count
# would not carry, and every mark would be the same)
mark() { local v; for v; do MARK=$((MARK + 1)); printf -v "$v" %s "$MARK"; done; }

ABI=$("$TRY" abi 2>/dev/null) || ABI=0

# A PID namespace of its own, as root; as anyone else inside a user
# namespace that maps the caller to itself (so landrun stays unprivileged).
if [ "$(id -u)" = 0 ]; then
	PIDNS=(unshare --pid --fork --mount-proc)
else
	PIDNS=(unshare --user --map-current-user --pid --fork --mount-proc)
fi
PIDNS_OK=
"${PIDNS[@]}" true 2>/dev/null && PIDNS_OK=1
needs_pidns() {
	[ -n "$PIDNS_OK" ] && return 0
	local d
	for d; do skip "$d" "needs PID namespaces (${PIDNS[*]} failed here)"; done
	return 1
}

# ===========================================================================
# As PID 1

t_pid1_sigterm() {
	local D=("pid 1: SIGTERM ends a confined sleep within a second, with 143"
		 "control: a sleep that is PID 1 itself ignores SIGTERM")
	local lp sp t0 t1
	needs_pidns "${D[@]}" || return
	bg "${PIDNS[@]}" "${LR[@]}" -- sleep 1000
	lp=$(child_of "$BG") && until_ok "$WAIT_S" has_child "$lp"
	t0=$(now_ms)
	kill -TERM "$lp"
	until_ok 2 eval '! kill -0 "$BG" 2>/dev/null'
	t1=$(now_ms)
	fin
	if [ "$RC" = 143 ] && [ $((t1 - t0)) -lt 1000 ]; then
		tap_ok "${D[0]} -> $RC in $((t1 - t0)) ms"
	else
		tap_not_ok "${D[0]} (got $RC after $((t1 - t0)) ms)"
		[ "$RC" = 143 ] || kill -KILL "$BG" 2>/dev/null
	fi
	bg "${PIDNS[@]}" sleep 1000
	sp=$(child_of "$BG")
	kill -TERM "$sp"
	# once the signal is dealt with (dropped: PID 1 has no handler), it sleeps on
	wait_until "$WAIT_S" eval 'ended "$sp" || quiet "$sp"'
	if kill -0 "$sp" 2>/dev/null && quiet "$sp"; then tap_ok "${D[1]}"
	else tap_not_ok "${D[1]}"; show_process "$sp"; fi
	kill -KILL "$sp" 2>/dev/null
	fin
}

# 5 orphans that end only once PID 1 no longer runs the shell, which reaps
# any child while it waits for its own (on a slow machine, short-lived
# orphans were reaped by the shell, and the control saw no zombie); the
# command needs --rw "$W" for the markers: go, and one that each orphan
# writes as it ends
ORPHANS="rm -f $W/go $W/orphan.*; for i in 1 2 3 4 5; do sh -c \"(until [ -e $W/go ]; do sleep 0.05; done; : >$W/orphan.\\\$\\\$) & exit 0\"; done; : >$W/go; exec sleep 30"
# the 5 orphans have ended (each wrote its marker, none runs): what is
# left of them is a zombie or nothing.  A run starts with no marker: the
# last run's would make its orphans look ended before they start.
orphans_ended() {
	[ "$(ls "$W"/orphan.* 2>/dev/null | wc -l)" = 5 ] && ! pgrep -f "^sh -c \\(until \\[ -e $W/go" >/dev/null
}

t_pid1_zombies() {
	local D=("pid 1: zombies stay at zero while the command makes orphans"
		 "control: 5 orphans stay zombies under a PID 1 that does not reap")
	local lp n
	needs_pidns "${D[@]}" || return
	rm -f "$W"/go "$W"/orphan.*
	bg "${PIDNS[@]}" "${LR[@]}" --rw "$W" -- sh -c "$ORPHANS"
	lp=$(child_of "$BG")
	until_ok "$WAIT_S" orphans_ended
	until_ok "$WAIT_S" eval '[ "$(zombies "$lp")" = 0 ]'
	n=$(orphans_ended && zombies "$lp")
	kill -TERM "$lp"
	fin
	if [ "$n" = 0 ] && [ "$RC" = 143 ]; then tap_ok "${D[0]}"; else tap_not_ok "${D[0]}: $n zombies"; fi
	rm -f "$W"/go "$W"/orphan.*
	bg "${PIDNS[@]}" sh -c "$ORPHANS"
	lp=$(child_of "$BG")
	until_ok "$WAIT_S" eval '[ "$(zombies "$lp")" = 5 ]'
	n=$(zombies "$lp")
	kill -KILL "$lp"
	fin
	if [ "$n" = 5 ]; then tap_ok "${D[1]}"; else tap_not_ok "${D[1]}: $n zombies"; fi
}

t_pid1_status() {
	local D=("pid 1: the command's exit status passes through"
		 "pid 1: a command killed by SIGUSR1 gives 128+10")
	needs_pidns "${D[@]}" || return
	run "${PIDNS[@]}" "${LR[@]}" -- sh -c 'exit 7';		expect "${D[0]}" 7
	run "${PIDNS[@]}" "${LR[@]}" -- sh -c 'kill -USR1 $$';	expect "${D[1]}" 138
}

# A tree: a grandchild that ignores SIGTERM (an orphan, adopted by the
# supervisor), a daemon in its own session, and the command.
tree_cmd() { # M1 M2 M3
	echo "( (trap '' TERM; exec sleep $1) & ); setsid sleep $2 & exec sleep $3"
}

# check_timeout DESC PREFIX...: --timeout 1 --timeout-grace 0.5 on the
# tree (and the landrun options in EXTRA)
EXTRA=()
check_timeout() {
	local desc=$1 m1 m2 m3 t0 t1 before
	shift
	mark m1 m2 m3
	t0=$(now_ms)
	bg "$@" "${LR[@]}" "${EXTRA[@]}" --timeout 1 --timeout-grace 0.5 -- \
		sh -c "$(tree_cmd $m1 $m2 $m3)"
	until_ok 1 eval 'alive $m1 && alive $m2 && alive $m3' && before=1 || before=
	fin
	t1=$(now_ms)
	if [ -n "$before" ]; then tap_ok "control: $desc: the tree runs before the timeout"
	else tap_not_ok "control: $desc: the tree runs before the timeout"; fi
	if [ "$RC" = 124 ] && [ $((t1 - t0)) -lt 3000 ]; then
		tap_ok "$desc: --timeout 1 -> 124 after $((t1 - t0)) ms"
	else
		tap_not_ok "$desc: --timeout 1 (got $RC after $((t1 - t0)) ms)"
	fi
	if gone $m1 && gone $m2 && gone $m3; then
		tap_ok "$desc: no process of the tree is left (the SIGTERM-proof grandchild, the daemon)"
	else
		tap_not_ok "$desc: left: $(marked $m1) $(marked $m2) $(marked $m3)"
		kill_marked $m1 $m2 $m3
	fi
}

t_pid1_timeout() {
	needs_pidns "pid 1: --timeout" || return
	check_timeout "pid 1" "${PIDNS[@]}"
}

# check_stop DESC PREFIX...: a SIGTERM to landrun (docker stop) when the
# whole tree ignores it: killed after --timeout-grace 1.5, 137, and the audit
# log ends with "cancelled"; the control: once landrun has taken the SIGTERM
# (and passed it on), before the grace is over, the tree is still there (it
# does ignore SIGTERM)
check_stop() {
	local desc=$1 m1 m2 lp t0 t1 alive_after log=$W/stop.jsonl pre=() opt=() p tree
	mark m1 m2
	rm -f "$log"
	if [ "$desc" = "pid 1" ]; then pre=("${PIDNS[@]}"); else opt=(--init); fi
	bg "${pre[@]}" "${LR[@]}" "${opt[@]}" --audit-log "$log" --timeout-grace 1.5 -- \
		sh -c "trap '' TERM; sleep $m1 & exec sleep $m2"
	if [ -n "${pre[*]}" ]; then lp=$(child_of "$BG"); else lp=$BG; fi
	if ! until_ok "$WAIT_S" eval 'alive $m1 && alive $m2'; then
		kill -KILL "$BG"; fin; kill_marked $m1 $m2
		tap_not_ok "$desc: the tree did not start ($(cat "$W/err"))"
		return
	fi
	# the tree's processes, found before the SIGTERM: after it the grace
	# runs, and a look must be quick (builtins only: a loaded machine forks
	# slowly).  Each is there and ignores SIGTERM, so what landrun passes on
	# cannot end it.
	tree=$(marked $m1; marked $m2)
	t0=$(now_ms)
	kill -TERM "$lp"
	kill -0 "$BG" 2>/dev/null && alive_after=1 || alive_after=
	for p in $tree; do
		kill -0 "$p" 2>/dev/null && ignores_term "$p" || alive_after=
	done
	[ -n "$alive_after" ] || for p in $tree; do show_process "$p"; done
	until_ok "$WAIT_S" eval '! kill -0 "$BG" 2>/dev/null' || kill -KILL "$BG"
	t1=$(now_ms)
	fin
	if [ -n "$alive_after" ]; then tap_ok "control: $desc: the tree ignores SIGTERM (there after it)"
	else tap_not_ok "control: $desc: the tree ignores SIGTERM (gone after it)"; fi
	if [ "$RC" = 137 ] && [ $((t1 - t0)) -ge 1400 ] && [ $((t1 - t0)) -lt 4000 ]; then
		tap_ok "$desc: a stop kills the tree after --timeout-grace 1.5 -> 137 in $((t1 - t0)) ms"
	else
		tap_not_ok "$desc: a stop with --timeout-grace 1.5 (got $RC after $((t1 - t0)) ms; $(head -c 300 "$W/err"))"
	fi
	if gone $m1 && gone $m2; then tap_ok "$desc: a stop leaves no process of the tree"
	else tap_not_ok "$desc: a stop left $(marked $m1) $(marked $m2)"; kill_marked $m1 $m2; fi
	if tail -1 "$log" 2>/dev/null | grep -q '"event":"cancelled".*"reason":"signal","signal":"SIGTERM".*"exit_signal":"SIGKILL"'; then
		tap_ok "$desc: a stop ends the audit log with cancelled (SIGTERM, then SIGKILL)"
	else
		tap_not_ok "$desc: a stop's audit record: $(tail -1 "$log" 2>/dev/null | head -c 300)"
	fi
}

t_pid1_stop() {
	needs_pidns "pid 1: a stop" || return
	check_stop "pid 1"
}

# PID 1 with a terminal (docker run -it): the command gets a pty of its own
# (a job-control shell may take its foreground); the control: not PID 1,
# the command is on the caller's terminal
t_pid1_pty() {
	local D=("pid 1, fd 0 a terminal: the command gets a pseudo-terminal of its own (--pty)"
		 "control: --init, not PID 1: the command is on the caller's terminal")
	needs_pidns "${D[@]}" || return
	python3 - "${PIDNS[*]}" "${LR[*]}" >"$W/out" 2>"$W/err" <<'PY'
import os, pty, sys, time
def tty_of(cmd):
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp("sh", ["sh", "-c", cmd])
    out, end = b"", time.time() + 20
    while time.time() < end:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.waitpid(pid, 0)
    return out.decode(errors="replace")
pidns, lr = sys.argv[1], sys.argv[2]
print("PID1", tty_of(f"echo outer=$(tty); {pidns} {lr} -- sh -c 'echo inner=$(tty)'").replace("\r", ""))
print("INIT", tty_of(f"echo outer=$(tty); {lr} --init -- sh -c 'echo inner=$(tty)'").replace("\r", ""))
PY
	python3 - "$W/out" >"$W/verdict" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
for part in ("PID1", "INIT"):
    block = text.split(part, 1)[1].split("INIT" if part == "PID1" else "\0", 1)[0]
    o = re.search(r"outer=(/dev/pts/\d+)", block)
    i = re.search(r"inner=(/dev/pts/\d+)", block)
    print(part, "same" if o and i and o.group(1) == i.group(1) else "other" if o and i else "none")
PY
	if grep -qx "PID1 other" "$W/verdict"; then tap_ok "${D[0]}"
	else tap_not_ok "${D[0]}: $(tr '\n' ' ' <"$W/out" | head -c 300)"; fi
	if grep -qx "INIT same" "$W/verdict"; then tap_ok "${D[1]}"
	else tap_not_ok "${D[1]}: $(tr '\n' ' ' <"$W/out" | head -c 300)"; fi
}

t_stop_grace_default() {
	local D="the grace of a stop is 5 s by default, within docker stop's 10 s"
	run "${LR[@]}" --init --explain -- true
	if grep -q 'grace 5000 ms' "$W/out"; then tap_ok "$D"
	else tap_not_ok "$D: $(grep -i grace "$W/out" | head -1)"; fi
}

# ===========================================================================
# --init: a supervisor that is not PID 1 (a child subreaper)

t_forward() {
	local sig
	for sig in HUP INT QUIT USR1 USR2 WINCH TERM; do
		bg "${LR[@]}" --init -- sh -c "trap 'exit 42' $sig; while :; do sleep 0.05; done"
		until_ok "$WAIT_S" has_grandchild "$BG"
		kill -"$sig" "$BG"
		# (15 s, not WAIT_S: seven signals must fail within the test's time)
		until_ok 15 eval '! kill -0 "$BG" 2>/dev/null' || { show_process "$BG"; kill -KILL "$BG"; }
		fin
		expect "--init: SIG$sig reaches the command (its trap exits 42)" 42
	done
}

t_init_status() {
	run "${LR[@]}" --init -- sh -c 'exit 7';		expect "--init: exit status 7 passes through" 7
	run "${LR[@]}" --init -- sh -c 'kill -USR1 $$';		expect "--init: death by SIGUSR1 is 128+10" 138
	run "${LR[@]}" --init -- sh -c 'kill -KILL $$';		expect "--init: death by SIGKILL is 128+9" 137
	run "${LR[@]}" --init -- no-such-command-$$;		expect "--init: a missing command is 127" 127
	run "${LR[@]}" --init --env-file "$W/no-such.env" -- true
	expect "--init: a refused policy is 125" 125
}

t_init_zombies() {
	local n
	rm -f "$W"/go "$W"/orphan.*
	bg "${LR[@]}" --init --rw "$W" -- sh -c "$ORPHANS"
	until_ok "$WAIT_S" orphans_ended
	until_ok "$WAIT_S" eval '[ "$(zombies "$BG")" = 0 ]'
	n=$(orphans_ended && zombies "$BG")
	kill -TERM "$BG"
	fin
	if [ "$n" = 0 ]; then tap_ok "--init: zombies stay at zero (a child subreaper reaps the orphans)"
	else tap_not_ok "--init: $n zombies under landrun"; fi
}

t_init_timeout() {
	check_timeout "--init"
}

t_init_stop() {
	check_stop "--init"
}

t_left_behind() {
	local D=("--init: what the command leaves behind (a daemon, setsid) is ended when it exits"
		 "control: exec in place, the daemon outlives the command")
	local m
	mark m
	run "${LR[@]}" --init -- sh -c "setsid sleep $m & sleep 0.2"
	if [ "$RC" = 0 ] && gone $m; then tap_ok "${D[0]}"; else tap_not_ok "${D[0]}: $RC, $(marked $m)"; fi
	kill_marked $m
	mark m
	run "${LR[@]}" -- sh -c "setsid sleep $m & sleep 0.2"
	if alive $m; then tap_ok "${D[1]}"; else tap_not_ok "${D[1]}"; fi
	kill_marked $m
}

t_die_with_parent() {
	local D=("--die-with-parent: the tree ends when landrun's parent is killed"
		 "control: without it, the command outlives the parent")
	local m1 m2 p sup
	mark m1 m2
	bash -c '"$@" & wait' _ "${LR[@]}" --die-with-parent --audit-log "$AUD" -- \
		sh -c "setsid sleep $m1 & exec sleep $m2" >"$W/out" 2>"$W/err" &
	p=$!
	until_ok "$WAIT_S" eval 'alive $m1 && alive $m2'
	kill -KILL $p
	wait $p 2>/dev/null
	if until_ok "$WAIT_S" eval 'gone $m1 && gone $m2'; then tap_ok "${D[0]}"
	else tap_not_ok "${D[0]}: left $(marked $m1) $(marked $m2)"; kill_marked $m1 $m2; fi
	mark m2
	bash -c '"$@" & wait' _ "${LR[@]}" --init -- sleep $m2 >"$W/out" 2>"$W/err" &
	p=$!
	until_ok "$WAIT_S" alive $m2
	sup=$(children $p)
	kill -KILL $p
	wait $p 2>/dev/null
	# the supervisor, adopted, has dealt with whatever its parent's death
	# sent it (nothing, without --die-with-parent)
	wait_until "$WAIT_S" eval 'ended "$sup" || quiet "$sup"' || show_process "$sup"
	if alive $m2; then tap_ok "${D[1]}"; else tap_not_ok "${D[1]}"; fi
	kill_marked $m2
}

# check_supervisor_killed DESC LANDRUN-OPTION...
check_supervisor_killed() {
	local desc=$1 m
	shift
	mark m
	bg "${LR[@]}" "$@" --init -- sleep $m
	if ! until_ok "$WAIT_S" alive $m; then
		fin
		tap_not_ok "$desc: the command did not start"
		return
	fi
	kill -KILL "$BG"
	fin
	if until_ok "$WAIT_S" gone $m; then tap_ok "$desc: the command dies with its supervisor (SIGKILL)"
	else tap_not_ok "$desc: the command outlived its supervisor"; kill_marked $m; fi
}

t_supervisor_killed() {
	check_supervisor_killed "--init"
}

# --user: the supervisor becomes that user too, or it could not signal
# the command's tree
t_user() {
	local D="--user: the supervisor forwards SIGTERM to a command run as another user"
	if [ "$(id -u)" != 0 ]; then
		skip "$D" "needs root (--user names another user)"
		skip "--user: --timeout" "needs root"
		skip "--user: the command dies with its supervisor" "needs root"
		return
	fi
	bg "${LR[@]}" --user 65534 --init -- sh -c "trap 'exit 42' TERM; while :; do sleep 0.05; done"
	until_ok "$WAIT_S" has_grandchild "$BG"
	kill -TERM "$BG"
	until_ok "$WAIT_S" eval '! kill -0 "$BG" 2>/dev/null' || kill -KILL "$BG"
	fin
	expect "$D" 42
	EXTRA=(--user 65534)
	check_timeout "--user"
	EXTRA=()
	# the ids' change makes the kernel forget the parent-death signal
	mkdir -p "$W/u" && chown 65534:65534 "$W/u"
	check_supervisor_killed "--user" --user 65534 --mkdir "$W/u/made-as-user"
}

# ===========================================================================
# Limits

t_limits() {
	local caller
	caller=$(ulimit -n)
	run "${LR[@]}" -- sh -c 'ulimit -n'
	if [ "$RC" = 0 ] && [ "$(cat "$W/out")" = "$caller" ]; then
		tap_ok "control: the command gets the caller's limit of open files ($caller)"
	else tap_not_ok "control: the caller's limit of open files ($caller)"; fi
	for init in "" --init; do
		run "${LR[@]}" $init --rlimit-nofile 77 -- sh -c 'ulimit -n; ulimit -Hn'
		if [ "$RC" = 0 ] && [ "$(tr '\n' ' ' <"$W/out")" = "77 77 " ]; then
			tap_ok "rlimits${init:+ ($init)}: --rlimit-nofile 77 is the command's soft and hard limit"
		else tap_not_ok "rlimits${init:+ ($init)}: --rlimit-nofile 77"; fi
	done
	run "${LR[@]}" --rlimit-cpu 7 --rlimit-as 1g --rlimit-fsize 1m -- sh -c 'ulimit -t; ulimit -v; ulimit -f'
	if [ "$RC" = 0 ] && [ "$(tr '\n' ' ' <"$W/out")" = "7 1048576 2048 " ]; then
		tap_ok "rlimits: cpu 7 s, as 1 GiB, fsize 1 MiB"
	else tap_not_ok "rlimits: cpu, as, fsize: $(tr '\n' ' ' <"$W/out")"; fi
	run "${LR[@]}" -- sh -c 'ulimit -c; ulimit -Hc'
	if [ "$(tr '\n' ' ' <"$W/out")" = "0 0 " ]; then tap_ok "rlimits: no core dumps by default (soft and hard 0)"
	else tap_not_ok "rlimits: core dumps by default: $(tr '\n' ' ' <"$W/out")"; fi
	run "${LR[@]}" --rlimit-core 1m -- sh -c 'ulimit -c'
	if [ "$(cat "$W/out")" = 2048 ]; then tap_ok "rlimits: --rlimit-core 1m allows them"
	else tap_not_ok "rlimits: --rlimit-core 1m: $(cat "$W/out")"; fi
	mkdir -p "$W/fs" && printf 'rlimit-nproc = 50\n' >"$W/limits.conf"
	run "${LR[@]}" --config "$W/limits.conf" -- bash -c 'ulimit -u'
	if [ "$(cat "$W/out")" = 50 ]; then tap_ok "rlimits: from a policy file (rlimit-nproc = 50)"
	else tap_not_ok "rlimits: from a policy file: $(cat "$W/out")"; fi
	# enforced, seen from outside: a 4 KiB write under a 1 KiB limit
	run "${LR[@]}" --rw "$W/fs" --rlimit-fsize 1k -- sh -c "printf '%4096s' x >$W/fs/big"
	if [ "$(stat -c %s "$W/fs/big" 2>/dev/null)" = 1024 ]; then
		tap_ok "rlimits: --rlimit-fsize 1k stops a file at 1024 bytes (exit $RC)"
	else tap_not_ok "rlimits: --rlimit-fsize 1k: the file has $(stat -c %s "$W/fs/big" 2>/dev/null) bytes"; fi
	run "${LR[@]}" --rw "$W/fs" -- sh -c "printf '%4096s' x >$W/fs/big"
	if [ "$(stat -c %s "$W/fs/big" 2>/dev/null)" = 4096 ]; then tap_ok "control: without it, 4096 bytes"
	else tap_not_ok "control: without --rlimit-fsize"; fi
	if [ "$(id -u)" != 0 ] && [ "$(ulimit -Hn)" != unlimited ]; then
		run "${LR[@]}" --rlimit-nofile $(($(ulimit -Hn) + 1)) -- true
		expect "rlimits: above the hard limit is refused" 125
	fi
}

# ===========================================================================
# The audit log

AUD=$TMP/t/audit/log.jsonl
mkdir -p "$(dirname "$AUD")"

t_audit_runs() {
	local m
	run "${LR[@]}" --audit-log "$AUD" -- sh -c 'exit 3'
	expect "audit: a run with --audit-log (exit 3)" 3
	run "${LR[@]}" --audit-log "$AUD" --timeout 0.3 -- sleep 5
	expect "audit: a run that times out" 124
	bg "${LR[@]}" --audit-log "$AUD" -- sleep 30
	until_ok "$WAIT_S" has_child "$BG"
	kill -TERM "$BG"
	fin
	expect "audit: a run ended by SIGTERM" 143
	if [ -n "$PIDNS_OK" ]; then
		run "${PIDNS[@]}" "${LR[@]}" --audit-log "$AUD" -- sh -c 'exit 0'
		expect "audit: a run as PID 1" 0
	fi
}

t_audit_refused() {
	local D=("audit: a log inside a writable grant is refused"
		 "audit: ... and the command did not run"
		 "audit: a log with another hard link is refused"
		 "control: a log outside the grants; the command runs")
	mkdir -p "$W/rw"
	run "${LR[@]}" --rw "$W/rw" --audit-log "$W/rw/log" -- sh -c "touch $W/rw/ran"
	expect "${D[0]}" 125
	if [ ! -e "$W/rw/ran" ]; then tap_ok "${D[1]}"; else tap_not_ok "${D[1]}"; fi
	: >"$W/linked" && ln "$W/linked" "$W/rw/link"
	run "${LR[@]}" --rw "$W/rw" --audit-log "$W/linked" -- true
	expect "${D[2]}" 125
	run "${LR[@]}" --rw "$W/rw" --audit-log "$W/outside.log" -- sh -c "touch $W/rw/ran"
	if [ "$RC" = 0 ] && [ -e "$W/rw/ran" ]; then tap_ok "${D[3]}"; else tap_not_ok "${D[3]}"; fi
	mkfifo "$W/fifo"
	run timeout 10 "${LR[@]}" --audit-log "$W/fifo" -- true
	expect "audit: a FIFO is refused at once (its open would wait for a reader)" 125
	# without Landlock (simulated) nothing confines writes: the log could be rewritten
	rm -f "$W/rw/ran"
	run "$FAKE" enosys -- "$LANDRUN" "${SYS[@]}" --audit-log "$W/outside.log" -- sh -c "touch $W/rw/ran"
	expect "audit: refused where writes are not confined (no Landlock)" 125
	if [ ! -e "$W/rw/ran" ]; then tap_ok "audit: ... and the command did not run"
	else tap_not_ok "audit: ... and the command did not run"; fi
	run "$FAKE" enosys -- "$LANDRUN" "${SYS[@]}" -- sh -c "touch $W/rw/ran"
	if [ "$RC" = 0 ] && [ -e "$W/rw/ran" ]; then tap_ok "control: without --audit-log it runs there (warn)"
	else tap_not_ok "control: without --audit-log it runs there (warn)"; fi
}

# The schema of docs/supervisor.md, checked line by line.
# The placement check looks at the file, not at its name: a bind mount that
# shows the log's directory inside a writable grant is refused too (the
# command replaced the started record through it).
t_audit_bind_mount() {
	local D=("audit: a log that a bind mount shows inside a writable grant is refused"
		 "audit: ... and the command did not run"
		 "control: through that mount the command rewrites the file"
		 "control: the same log, no mount inside the grant, is accepted")
	local ns d back=()
	# not root: a user namespace to mount in, as its root, and a second one
	# to be the caller again (uid $(id -u)) for landrun
	if [ "$(id -u)" = 0 ]; then ns=(unshare --mount)
	else
		ns=(unshare --user --map-root-user --mount)
		back=(unshare --user --map-user="$(id -u)" --map-group="$(id -g)")
	fi
	if ! "${ns[@]}" true 2>/dev/null; then
		for d in "${D[@]}"; do skip "$d" "needs mount namespaces (${ns[*]} failed here)"; done
		return
	fi
	mkdir -p "$W/bm/logs" "$W/bm/proj/logs" && rm -f "$W/bm/logs/"* "$W/bm/proj/ran"
	cat >"$W/bm/run.sh" <<EOF
mount --make-rprivate / && mount --bind "$W/bm/logs" "$W/bm/proj/logs" || exit 99
exec ${back[*]} "\$@"
EOF
	run "${ns[@]}" sh "$W/bm/run.sh" "${LR[@]}" --rw "$W/bm/proj" --audit-log "$W/bm/logs/log" \
		-- sh -c "touch $W/bm/proj/ran; echo replaced > $W/bm/proj/logs/log"
	expect "${D[0]}" 125
	if [ ! -e "$W/bm/proj/ran" ] && ! grep -q replaced "$W/bm/logs/log" 2>/dev/null
	then tap_ok "${D[1]}"; else tap_not_ok "${D[1]}"; fi
	run "${ns[@]}" sh "$W/bm/run.sh" "${LR[@]}" --rw "$W/bm/proj" \
		-- sh -c "echo replaced > $W/bm/proj/logs/other"
	if [ "$RC" = 0 ] && grep -qx replaced "$W/bm/logs/other"; then tap_ok "${D[2]}"
	else tap_not_ok "${D[2]}"; fi
	run "${LR[@]}" --rw "$W/bm/proj" --audit-log "$W/bm/logs/log" -- true
	expect "${D[3]}" 0
}

t_audit_schema() {
	python3 - "$AUD" >"$W/out" 2>"$W/err" <<'PY'
import json, sys

STR, INT, NUM, BOOL, NULL = str, int, (int, float), bool, type(None)
COMMON = {"schema": INT, "event": STR, "run": STR, "time": STR, "pid": INT}
STARTED = {"command_pid": INT, "uid": INT, "gid": INT, "landrun_version": STR,
           "cwd": (STR, NULL), "argv": list, "command": STR, "policy": dict}
ENDED = {"exit_code": (INT, NULL), "exit_signal": (STR, NULL), "core_dumped": BOOL,
         "status": INT, "duration_s": NUM, "user_s": NUM, "system_s": NUM,
         "max_rss_kb": INT, "left_behind": INT, "killed": BOOL}
POLICY = {"schema": INT, "protections": list, "grants": list, "kept_out": list,
          "on_unsupported": STR, "lifetime": dict, "limits": dict, "command": STR}

def check(obj, fields, where):
    for k, t in fields.items():
        if k not in obj:
            raise SystemExit(f"{where}: no {k}")
        if not isinstance(obj[k], t) or (t is INT and isinstance(obj[k], bool)):
            raise SystemExit(f"{where}: {k} is {obj[k]!r}")

runs, order = {}, []
for n, line in enumerate(open(sys.argv[1], encoding="utf-8"), 1):
    r = json.loads(line)
    where = f"line {n}"
    check(r, COMMON, where)
    if r["schema"] != 1:
        raise SystemExit(f"{where}: schema {r['schema']}")
    if r["event"] == "started":
        check(r, STARTED, where)
        check(r["policy"], POLICY, where + " policy")
        for p in r["policy"]["protections"]:
            check(p, {"id": STR, "requested": BOOL, "enforced": BOOL}, where + " protection")
        if r["run"] in runs:
            raise SystemExit(f"{where}: run {r['run']} started twice")
        runs[r["run"]] = [r]
        order.append(r["run"])
    elif r["event"] in ("completed", "cancelled"):
        check(r, ENDED, where)
        if (r["exit_code"] is None) == (r["exit_signal"] is None):
            raise SystemExit(f"{where}: exit_code and exit_signal")
        if r["event"] == "cancelled":
            check(r, {"reason": STR}, where)
            if r["reason"] not in ("timeout", "signal", "parent-died"):
                raise SystemExit(f"{where}: reason {r['reason']}")
            if r["reason"] == "signal":
                check(r, {"signal": STR}, where)
        if len(runs.get(r["run"], [])) != 1:
            raise SystemExit(f"{where}: an end without one start")
        if runs[r["run"]][0]["pid"] != r["pid"]:
            raise SystemExit(f"{where}: another supervisor")
        runs[r["run"]].append(r)
    else:
        raise SystemExit(f"{where}: event {r['event']}")
for run in order:
    if len(runs[run]) != 2:
        raise SystemExit(f"run {run}: started, never ended")
ends = [runs[r][1] for r in order]
print(" ".join(f"{e['event']}:{e.get('reason', '-')}:{e['status']}" for e in ends))
PY
	RC=$?
	if [ "$RC" = 0 ]; then tap_ok "audit: every line parses and fits the schema; each run has started + one end"
	else tap_not_ok "audit: the schema check"; fi
	local want="completed:-:3 cancelled:timeout:124 cancelled:signal:143"
	[ -n "$PIDNS_OK" ] && want="$want completed:-:0"
	want="$want cancelled:parent-died:143"
	if [ "$(cat "$W/out")" = "$want" ]; then tap_ok "audit: the runs' ends, in order: $want"
	else tap_not_ok "audit: the ends: $(cat "$W/out"), want $want"; fi
}

# ===========================================================================
# The supervisor itself

t_scope() {
	local D=("the command cannot signal its supervisor (Landlock signal scope)"
		 "control: with --unrestricted-scoped it can (and SIGTERM comes back to it: 143)")
	if [ "$ABI" -lt 6 ]; then
		skip "${D[0]}" "needs Landlock ABI 6 (signal scoping); below it the command can signal the supervisor"
		skip "${D[1]}" "needs Landlock ABI 6"
		return
	fi
	run "${LR[@]}" --init -- sh -c "$NET kill \$PPID 15; echo \$?; sleep 0.3"
	if [ "$RC" = 0 ] && [ "$(cat "$W/out")" = 1 ]; then tap_ok "${D[0]} (EPERM, it ran on)"
	else tap_not_ok "${D[0]}: $RC, $(cat "$W/out")"; fi
	run "${LR[@]}" --init --unrestricted-scoped -- sh -c "$NET kill \$PPID 15; sleep 2"
	expect "${D[1]}" 143
}

# The supervisor does not depend on limits the command could set (issue 20,
# items 3 and 4): from inside, the command's prlimit64 of its supervisor
# (a setsid leftover, --timeout, the audit log's end record) is denied;
# from outside, its soft limits cut to nothing (as the same user could) do
# not stop it either.
last_event() { tail -n 1 "$1" | grep -o '"event":"[a-z]*"' | cut -d'"' -f4; }
t_supervisor_limits() {
	local D=("the command's prlimit64 of its supervisor is denied"
		 "... and the supervisor's limits, seen outside, are unchanged"
		 "... --timeout 1 still ends the run (124)"
		 "... the setsid leftover is gone"
		 "... the audit log ends with the run's cancelled record"
		 "control: from outside, the supervisor's soft limits were cut (0 files, 1 byte)"
		 "supervisor with 0 files and 1 byte: --timeout 1 still ends the run (124)"
		 "... the setsid leftover is gone"
		 "... the audit log ends with the run's cancelled record")
	local m sup before t0 t1 log=$W/limits.jsonl
	if ! [ -x /usr/bin/prlimit ]; then
		for m in "${D[@]}"; do skip "$m" "needs prlimit (util-linux)"; done
		return
	fi
	mark m
	bg "${LR[@]}" --init --timeout 1 --timeout-grace 0.5 --audit-log "$log" -- sh -c \
		"prlimit --pid \$PPID --nofile=0:0 --fsize=1:1; echo prlimit=\$?; setsid sleep $m & sleep 30"
	sup=$BG
	until_ok "$WAIT_S" alive $m
	before=$(grep -E '^Max (open files|file size)' /proc/$sup/limits)
	fin
	if grep -qx prlimit=1 "$W/out"; then tap_ok "${D[0]}"
	else tap_not_ok "${D[0]}: $(cat "$W/out")"; fi
	if ! grep -Eq ' 0 +0 | 1 +1 ' <<<"$before"; then tap_ok "${D[1]}"
	else tap_not_ok "${D[1]}: $before"; fi
	expect "${D[2]}" 124
	if gone $m; then tap_ok "${D[3]}"; else tap_not_ok "${D[3]}"; kill_marked $m; fi
	if [ "$(last_event "$log")" = cancelled ]; then tap_ok "${D[4]}"
	else tap_not_ok "${D[4]}: $(tail -n 1 "$log" | cut -c1-200)"; fi

	mark m
	t0=$(now_ms)
	bg "${LR[@]}" --init --timeout 2 --timeout-grace 0.5 --audit-log "$log" -- sh -c \
		"setsid sleep $m & sleep 30"
	sup=$BG
	until_ok "$WAIT_S" alive $m
	prlimit --pid "$sup" --nofile=0: --fsize=1: 2>"$W/prlimit.err"
	before=$(grep -E '^Max (open files|file size)' /proc/$sup/limits)
	fin
	t1=$(now_ms)
	if grep -Eq '^Max open files +0 ' <<<"$before" && grep -Eq '^Max file size +1 ' <<<"$before"
	then tap_ok "${D[5]}"; else tap_not_ok "${D[5]}: $before $(cat "$W/prlimit.err")"; fi
	if [ "$RC" = 124 ] && [ $((t1 - t0)) -lt 5000 ]; then tap_ok "${D[6]} after $((t1 - t0)) ms"
	else tap_not_ok "${D[6]}: got $RC after $((t1 - t0)) ms"; fi
	if gone $m; then tap_ok "${D[7]}"; else tap_not_ok "${D[7]}"; kill_marked $m; fi
	if [ "$(last_event "$log")" = cancelled ]; then tap_ok "${D[8]}"
	else tap_not_ok "${D[8]}: $(tail -n 1 "$log" | cut -c1-200)"; fi
}

t_confined() {
	local sup
	bg "${LR[@]}" --init -- sleep 30
	sup=$BG
	until_ok "$WAIT_S" has_child "$sup"
	# the bounding set only matters, and can only be emptied, when root
	grep -E "^(NoNewPrivs|Seccomp|CapEff|CapPrm|CapInh|CapAmb$([ "$(id -u)" = 0 ] && echo '|CapBnd')):" \
		/proc/$sup/status >"$W/status"
	kill -TERM "$sup"
	fin
	if grep -q '^NoNewPrivs:.1' "$W/status" && grep -q '^Seccomp:.2' "$W/status" &&
		! grep -q '^Cap...:.*[1-9a-f]' "$W/status"; then
		tap_ok "the supervisor runs with no_new_privs, a seccomp filter and no capability"
	else
		tap_not_ok "the supervisor's own confinement: $(tr '\n' ' ' <"$W/status")"
	fi
}

# The supervisor never read the --env-file, and wiped its own environment:
# neither secret is anywhere in its memory, while the command holds the one
# it was given.
t_no_secrets() {
	local D=("the supervisor's memory holds neither the --env-file's secret nor the caller's"
		 "control: the command's memory holds the secret it was given")
	local sup cmd file=sk-file-$RANDOM$RANDOM-$$ caller=sk-caller-$RANDOM$RANDOM-$$
	printf 'API_KEY=%s\n' "$file" >"$W/secrets.env"
	bg env LR_CALLER_SECRET="$caller" "${LR[@]}" --env-file "$W/secrets.env" --env API_KEY \
		--init -- sleep 30
	sup=$BG
	# the command has execed sleep, and the supervisor waits for it
	until_ok "$WAIT_S" runs_below "$sup" sleep 30 && until_ok "$WAIT_S" quiet "$sup"
	cmd=$(child_of "$sup")
	cat >"$W/scan.py" <<'PY'
import sys
pid, needles = sys.argv[1], [n.encode() for n in sys.argv[2:]]
found = set()
with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb", 0) as mem:
    for line in maps:
        lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
        if "r" not in line.split()[1]:
            continue
        try:
            mem.seek(lo)
            data = mem.read(hi - lo)
        except OSError:
            continue
        found |= {n.decode() for n in needles if n in data}
print(" ".join(sorted(found)) or "none")
PY
	python3 "$W/scan.py" "$sup" "$file" "$caller" >"$W/sup" 2>&1
	python3 "$W/scan.py" "$cmd" "$file" >"$W/cmd" 2>&1
	kill -TERM "$sup"
	fin
	if grep -q "Permission denied\|Operation not permitted" "$W/sup" "$W/cmd"; then
		skip "${D[0]}" "reading another process's memory is not allowed here ($(head -c 80 "$W/sup"))"
		skip "${D[1]}" "the same"
		return
	fi
	if [ "$(cat "$W/sup")" = none ]; then tap_ok "${D[0]}"; else tap_not_ok "${D[0]}: $(cat "$W/sup")"; fi
	if [ "$(cat "$W/cmd")" = "$file" ]; then tap_ok "${D[1]}"; else tap_not_ok "${D[1]}: $(cat "$W/cmd")"; fi
}

# The example image's ENTRYPOINT, word for word but for the image's paths
# (/work, /var/log/landrun), which move under $W/ep; the base profile found
# as the user's own.
t_entrypoint() {
	local D=("image: the example ENTRYPOINT as PID 1 runs the command confined (it writes /work)"
		 "image: ... and nothing outside /work"
		 "image: ... docker stop's SIGTERM ends it within a second, with 143"
		 "image: ... its audit log holds started, then cancelled by SIGTERM")
	local ep=() lp t0 t1
	needs_pidns "${D[@]}" || return
	mkdir -p "$W/xdg/landrun/profiles" "$W/ep/work" "$W/ep/var/log/landrun" &&
		cp "$BIN/base.conf" "$W/xdg/landrun/profiles/" || return
	mapfile -t ep < <(python3 - "$BIN/Dockerfile" "$LANDRUN" "$W/ep" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
ep = json.loads(re.search(r"^ENTRYPOINT\s+(\[.*\])\s*$", text, re.M).group(1))
if ep[0] != "landrun" or ep[-1] != "--":
    sys.exit("the ENTRYPOINT is not landrun ... --")
ep[0] = sys.argv[2]
for i, a in enumerate(ep):
    if any(a == p or a.startswith(p + "/") for p in ("/work", "/var/log/landrun")):
        ep[i] = sys.argv[3] + a
print("\n".join(ep))
PY
	)
	(cd "$W/ep/work" && XDG_CONFIG_HOME=$W/xdg exec "${PIDNS[@]}" env --default-signal \
		"${ep[@]}" sh -c "echo in >$W/ep/work/hello; echo out >$W/ep/escaped; exec sleep 1000") \
		>"$W/out" 2>"$W/err" &
	BG=$!
	# the command has made both writes and execed sleep 1000, and landrun
	# waits for it
	lp=$(child_of "$BG") && until_ok "$WAIT_S" runs_below "$lp" sleep 1000 &&
		until_ok "$WAIT_S" quiet "$lp"
	if [ -s "$W/ep/work/hello" ]; then tap_ok "${D[0]}"; else tap_not_ok "${D[0]}"; fi
	if [ ! -e "$W/ep/escaped" ] && grep -q "escaped" "$W/err"; then tap_ok "${D[1]}"
	else tap_not_ok "${D[1]}: $(head -c 200 "$W/err")"; fi
	t0=$(now_ms)
	kill -TERM "$lp"
	until_ok 2 eval '! kill -0 "$BG" 2>/dev/null'
	t1=$(now_ms)
	fin
	if [ "$RC" = 143 ] && [ $((t1 - t0)) -lt 1000 ]; then tap_ok "${D[2]} ($((t1 - t0)) ms)"
	else tap_not_ok "${D[2]}: $RC after $((t1 - t0)) ms"; kill -KILL "$BG" 2>/dev/null; fi
	if [ "$(python3 -c 'import json, sys
print(" ".join(json.loads(l)["event"] + ":" + json.loads(l).get("signal", "-")
               for l in open(sys.argv[1])))' "$W/ep/var/log/landrun/audit.jsonl" 2>&1)" = \
		"started:- cancelled:SIGTERM" ]; then
		tap_ok "${D[3]}"
	else
		tap_not_ok "${D[3]}: $(cat "$W/ep/var/log/landrun/audit.jsonl" 2>&1 | cut -c1-200)"
	fi
}

# Through a terminal, in an interactive bash: ^Z stops the job (the
# supervisor stops with its command), fg resumes it, ^C ends it (130); a
# job started in the background that reads the terminal stops, and fg
# gives it the terminal.
t_job_control() {
	local D=("terminal: ^Z stops a supervised job, as bash sees it"
		 "terminal: fg resumes it, and ^C ends it with 130"
		 "terminal: a background job that reads the terminal stops; fg gives it the terminal")
	python3 - "$LANDRUN" "${SYS[@]}" >"$W/out" 2>"$W/err" <<'PY'
import os, pty, select, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execvp("bash", ["bash", "--norc", "--noprofile", "-i"])
seen = ""
def wait_for(text, seconds=60):
    """Read until TEXT appears after what was seen so far; True if it did."""
    global seen
    start, end = len(seen), time.time() + seconds
    while text not in seen[start:] and time.time() < end:
        if select.select([fd], [], [], 0.05)[0]:
            try:
                seen += os.read(fd, 4096).decode(errors="replace")
            except OSError:
                break
    return text in seen[start:]
def say(text):
    os.write(fd, text.encode())
def stat(p):
    """state, pgrp and the terminal's foreground group of process P"""
    with open(f"/proc/{p}/stat") as f:
        rest = f.read().rsplit(")", 1)[1].split()
    return rest[0], int(rest[2]), int(rest[5])
def job_has_terminal():
    """The terminal's foreground group is a job's, and none of it is stopped."""
    try:
        tpgid = stat(pid)[2]
        if tpgid in (pid, -1):
            return False
        states = []
        for p in os.listdir("/proc"):
            if p.isdigit():
                try:
                    st, pg, _ = stat(p)
                except OSError:
                    continue
                if pg == tpgid:
                    states.append(st)
        return bool(states) and not any(st in "Tt" for st in states)
    except OSError:
        return False
def until(cond, what, seconds=60):
    """Poll COND (the deadline generous: a loaded machine is slow)."""
    end = time.time() + seconds
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.05)
    print(f"waited {seconds} s for {what}; the terminal shows:\n{seen[-1500:]}", file=sys.stderr)
    return False
landrun = " ".join(sys.argv[1:]) + " --init -- "
prompt = "# " if os.geteuid() == 0 else "$ "
wait_for(prompt)
def in_order(m, *texts):
    """TEXTS, in this order, in what was seen after index M"""
    for t in texts:
        i = seen.find(t, m)
        if i < 0:
            return False
        m = i + len(t)
    return True
def pump():
    """read what the terminal has (0.05 s at most)"""
    wait_for("\0", 0.05)
def shell_has_terminal(m):
    """bash has the terminal again, and has drawn its prompt after index M"""
    pump()
    return stat(pid)[2] == pid and in_order(m, prompt)
# the terminal echoes what is typed: the markers are split in the command
# (and no shell loop: dash's vfork child can stop before its parent may)
say(landrun + "sh -c 'echo RE\"\"ADY; exec sleep 30'\n")
ok = wait_for("READY", 60)
m = len(seen)
say("\x1a")
# each key once what the one before did is done: the job has stopped and
# bash has drawn its prompt, the job has the terminal (the ^C is for it),
# then bash has it back (input typed before would be flushed by the ^C)
stopped = ok and until(lambda: pump() or in_order(m, "Stopped", prompt), "^Z to stop the job")
say("fg\n")
until(job_has_terminal, "fg to give the job the terminal")
m = len(seen)
say("\x03")
until(lambda: shell_has_terminal(m), "bash to take the terminal back after ^C")
say("echo status=$?\n")
ended = stopped and wait_for("status=130", 60)
say(landrun + "sh -c 'echo RE\"\"ADY; read x; echo got $x; exit 5' &\n")
wait_for("READY", 60)
bg = False
for _ in range(120):  # until the read from the background has stopped it (60 s)
    say("jobs\n")
    if wait_for("Stopped", 0.5):
        bg = True
        break
say("fg\n")
until(job_has_terminal, "fg to give the background job the terminal")
say("hello\n")
bg = bg and wait_for("got hello", 60)
say("echo status=$?\n")
bg = bg and wait_for("status=5", 60)
say("exit\n")
print("stopped" if stopped else "-", "ended" if ended else "-", "bg" if bg else "-")
if not (stopped and ended and bg):
    print(seen[-1500:], file=sys.stderr)
PY
	local got=($(cat "$W/out") - - -) i want=(stopped ended bg)
	for i in 0 1 2; do
		if [ "${got[$i]}" = "${want[$i]}" ]; then tap_ok "${D[$i]}"; else tap_not_ok "${D[$i]}"; fi
	done
}

t_entrypoint
t_pid1_sigterm
t_pid1_zombies
t_pid1_status
t_pid1_timeout
t_pid1_stop
t_pid1_pty
t_stop_grace_default
t_forward
t_init_status
t_init_zombies
t_init_timeout
t_init_stop
t_left_behind
t_supervisor_killed
t_user
t_limits
t_audit_runs
t_die_with_parent
t_audit_schema
t_audit_refused
t_audit_bind_mount
t_scope
t_supervisor_limits
t_confined
t_no_secrets
t_job_control
tap_done
