#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The terminal: a leftover of the command must not read what is typed at the
# user's shell once the command has exited.  TAP output.
#
#   tty.sh LANDRUN LR_TTY [--as-nobody]
#
# Each case runs an interactive bash in a private tmux server (send-keys,
# capture-pane), types a command at it that leaves a background child behind
# (lr-tty leftover METHOD: it tries one way out of job control, then reads
# the terminal and writes what it read into a file), then types a line at
# the shell.  Judged outside the sandbox: the shell ran the line, and the
# leftover's file holds none of it.  Each escape also runs without landrun,
# where it must steal the line, or the test proves nothing.
#
# The positive controls: an interactive bash under landrun runs commands and
# stops one on Ctrl-C; --explain says what it does with the terminal.

set -u

. "$(dirname "$0")/lib.sh" || exit 2
e2e_start --grants-only tty landrun lr-tty -- "$@"	# from here on, the body

LANDRUN=$BIN/landrun
LRTTY=$BIN/lr-tty
W=$TMP/t/.work-$$
mkdir -p "$W" || exit 1
UID_NOW=$(id -u)
export HOME=$TMP/t PATH=/usr/bin:/bin

e2e_hello "landrun tty" "binaries in $BIN"

# a failed check shows the last leftover's state
STATUS= STOLEN= SHELL_GOT=
diag() {
	echo "#   leftover: $STATUS"
	echo "#   it read: $(printf %q "$STOLEN")"
	echo "#   the shell wrote: $(printf %q "$SHELL_GOT")"
}

if ! command -v tmux >/dev/null; then
	skip_all "tmux missing (Debian package tmux)"
fi

SOCK=$TMP/t/tmux.sock
# SHELL: the server runs each window through it, and uid 65534's login shell
# (when SHELL is unset, as in CI) is nologin.
tm() { SHELL=/bin/bash tmux -S "$SOCK" "$@"; }
cleanup_tmux() { tm kill-server 2>/dev/null; }
trap 'cleanup_tmux; rm -rf "$TMP"' EXIT

pane() { tm capture-pane -p -t "$1" 2>/dev/null; }
screen_of() { pane "$1"; }	# for wait_for_screen (lib.sh)

# shell NAME: a fresh interactive bash in its own tmux session (its prompt is
# "$ "), in the work directory
shell() {
	tm -f /dev/null new-session -d -s "$1" -x 150 -y 40 -c "$W" \
		"env -i PATH=$PATH HOME=$HOME TERM=xterm PS1='\$ ' bash --norc --noprofile -i"
	wait_for_screen "$1" '^\$' || { echo "# the shell of $1 did not start"; return 1; }
}

# runs NAME COMM: a process named COMM runs below NAME's shell
runs() {
	local pids pid
	pids=$(tm display -p -t "$1" '#{pane_pid}' 2>/dev/null) || return 1
	while [ -n "$pids" ]; do
		pids=$(for pid in $pids; do ps -o pid= --ppid "$pid"; done | tr -d ' ')
		for pid in $pids; do
			[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ] && return 0
		done
	done
	return 1
}

# wait_runs NAME COMM [not]: until COMM runs below NAME (or, with "not",
# until it does not)
runs_not() { ! runs "$@"; }
wait_runs() {
	if [ "${3:-}" = not ]; then wait_until "$WAIT_S" runs_not "$1" "$2"; else
		wait_until "$WAIT_S" runs "$1" "$2"; fi && return 0
	echo "# $1: $2 ${3:+still }$([ "${3:-}" = not ] && echo runs || echo "does not run") after $WAIT_S s; the screen:"
	pane "$1" | grep -v '^ *$' | sed 's/^/#   | /'
	return 1
}

# type NAME TEXT: type TEXT and Enter at NAME's terminal
type_line() {
	tm send-keys -t "$1" -l "$2" && tm send-keys -t "$1" Enter
}

# The leftover of PID is in its last state: gone, stopped by job control,
# its read failed, or blocked in read (sleeping, once its status is written:
# it sleeps on nothing else then)
settled() { # PID STATUS-FILE
	local s
	ended "$1" && return 0
	s=$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$1/status" 2>/dev/null)
	case $s in
	T | t) return 0 ;;
	S) [ -s "$2" ] ;;
	*) grep -q '^read=' "$2" 2>/dev/null ;;
	esac
}

# shell_has_fg PID: the terminal's foreground group is the shell's (PID's)
shell_has_fg() {
	local st
	st=$(cat "/proc/$1/stat" 2>/dev/null) && st=${st##*) } && set -- $1 $st &&
		[ "${7:-}" = "$1" ]
}

# The line typed last has arrived: at the shell (its marker in FILE), or at
# the leftover (its file grew beyond SIZE bytes); or it never will: the
# leftover (PID, if any) has ended, leaving the foreground to another group
# than the shell (SHELL)
arrived() { # FILE MARKER THIEF SIZE PID SHELL
	grep -qx -- "$2" "$1" 2>/dev/null || [ "$(size_of "$3")" -gt "$4" ] ||
		{ [ -n "$5" ] && ended "$5" && ! shell_has_fg "$6"; }
}
size_of() { stat -c %s "$1" 2>/dev/null || echo 0; }

# leftover NAME METHOD WRAP...: at a fresh shell, run WRAP... lr-tty leftover
# METHOD (which exits at once, leaving its child behind); then type a
# command line at the shell that writes a marker into $W/NAME.shell.  Sets
# STOLEN (what the leftover read: $W/NAME), STATUS (how its escape and its
# reads went) and SHELL_GOT.  With LEFTOVER_ENDED=1 (--pty), the supervisor
# ends the leftover with the command: it may write nothing.
leftover() {
	local name=$1 method=$2 line pid= sh
	shift 2
	rm -f "$W/$name" "$W/$name".*
	STOLEN="(the case did not run)" SHELL_GOT= STATUS=
	shell "$name" || return 1
	sh=$(tm display -p -t "$name" '#{pane_pid}')
	type_line "$name" "$* $LRTTY leftover $method $W/$name; echo \$? > $W/$name.done"
	wait_for_file "$W/$name.done"
	if [ -z "${LEFTOVER_ENDED:-}" ]; then
		# its escape comes half a second after the command exited
		wait_for_file "$W/$name.pid" && wait_for_file "$W/$name.status"
	fi
	[ -s "$W/$name.pid" ] && pid=$(cat "$W/$name.pid")
	if [ -n "$pid" ] && ! wait_until "$WAIT_S" settled "$pid" "$W/$name.status"; then
		echo "# $name: the leftover did not settle in $WAIT_S s"
		show_process "$pid"
		show_file "$W/$name.status"
	fi
	line="echo typed-at-the-shell-$name > $W/$name.shell"
	type_line "$name" "$line"
	wait_until "$WAIT_S" arrived "$W/$name.shell" "typed-at-the-shell-$name" "$W/$name" 0 "$pid" "$sh" ||
		{ echo "# $name: the first line reached neither the shell nor the leftover"; show_file "$W/$name.shell"
		  [ -n "$pid" ] && show_process "$pid"; show_process "$sh"; }
	local size
	size=$(size_of "$W/$name")
	type_line "$name" "echo second-line-$name >> $W/$name.shell"
	wait_until "$WAIT_S" arrived "$W/$name.shell" "second-line-$name" "$W/$name" "$size" "$pid" "$sh" ||
		{ echo "# $name: the second line reached neither the shell nor the leftover"; show_file "$W/$name.shell"; }
	STOLEN=$(cat "$W/$name" 2>/dev/null)
	SHELL_GOT=$(cat "$W/$name.shell" 2>/dev/null)
	STATUS=$(tr '\n' ' ' 2>/dev/null <"$W/$name.status")
	[ -s "$W/$name.pid" ] && kill -9 "$(cat "$W/$name.pid")" 2>/dev/null
	tm kill-session -t "$name" 2>/dev/null
	return 0
}

LR=("$LANDRUN" --rox "$BIN" --rw "$W" --)

# ===========================================================================
# The escapes: without landrun each steals typed input; under it none does.

for method in spgrp setsid notty joinshell none; do
	# the thief races the shell for the terminal: on a loaded machine it may
	# lose a round, so the control has three
	for try in 1 2 3; do
		leftover "c-$method" "$method"
		echo "# control $method, round $try: status: $STATUS; stolen: $(printf %q "$STOLEN")"
		[ -n "$STOLEN" ] || [ "$method" = none ] && break
	done
	if [ "$method" = none ]; then
		# a plain leftover is stopped by job control even without landrun
		assert "control: a plain leftover reads nothing, job control stops it (${STATUS})" \
			[ -z "$STOLEN" ]
	else
		assert "control: without landrun, the $method leftover reads what is typed at the shell" \
			[ -n "$STOLEN" ]
	fi

	leftover "l-$method" "$method" "${LR[@]}"
	echo "# landrun $method: status: $STATUS; stolen: $(printf %q "$STOLEN")"
	if [ "$method" != none ]; then
		assert "landrun: the $method escape is denied (EPERM)" \
			grep -q "^$method=1\$" "$W/l-$method.status"
	fi
	assert "landrun: the $method leftover reads nothing typed at the shell" [ -z "$STOLEN" ]
	assert "landrun: the shell got both lines ($method)" \
		eval '[ "$(printf "%s\n" "$SHELL_GOT" | head -1)" = "typed-at-the-shell-l-$method" ] &&
		printf "%s\n" "$SHELL_GOT" | grep -qx "second-line-l-$method"'
done

# ===========================================================================
# --pty: the command gets a pseudo-terminal of its own, which landrun relays.
# Every escape may succeed in there (setsid, job control), and still nothing
# left behind reads what is typed at the shell: the relay ends with the
# command, and the supervisor ends what it left.

for method in spgrp setsid notty joinshell; do
	LEFTOVER_ENDED=1 leftover "p-$method" "$method" "$LANDRUN" --pty --rox "$BIN" --rw "$W" --
	echo "# landrun --pty $method: status: $STATUS; stolen: $(printf %q "$STOLEN")"
	assert "landrun --pty: the $method leftover reads nothing typed at the shell" [ -z "$STOLEN" ]
	assert "landrun --pty: the shell got both lines ($method)" \
		eval '[ "$(printf "%s\n" "$SHELL_GOT" | head -1)" = "typed-at-the-shell-p-$method" ] &&
		printf "%s\n" "$SHELL_GOT" | grep -qx "second-line-p-$method"'
done

# TIOCSCTTY: a session leader (landrun started by setsid) with the user's
# terminal on fd 0 may not take another terminal as its controlling one.
shell sctty
type_line sctty "setsid -w $LRTTY sctty < \$(tty); echo outside=\$? > $W/sctty.out"
type_line sctty "setsid -w $LANDRUN --on-unsupported=ignore --rox $BIN --rw /dev/ptmx,/dev/pts -- $LRTTY sctty < \$(tty); echo inside=\$? >> $W/sctty.out"
wait_for_file "$W/sctty.out" '^inside='
echo "# TIOCSCTTY: $(tr '\n' ' ' <"$W/sctty.out" 2>/dev/null)"
tm kill-session -t sctty 2>/dev/null
assert "control: outside landrun, a session leader takes a new pty as its terminal" \
	grep -qx "outside=0" "$W/sctty.out"
assert "landrun: TIOCSCTTY is denied (EPERM)" grep -qx "inside=1" "$W/sctty.out"

# ===========================================================================
# Positive controls: an interactive bash under landrun.

BASH_LR=("$LANDRUN" --rox /usr,/bin,/lib,/lib64 --ro /etc --rw "$W",/dev/tty,/dev/null
	--env PATH=/usr/bin:/bin --env TERM=xterm --env PS1=inside: -- bash --norc --noprofile -i)
shell bash
type_line bash "${BASH_LR[*]}"
wait_for_screen bash '^inside:'
type_line bash "echo ran-$((6 * 7))-inside > $W/bash.out"
type_line bash "sleep 30"
wait_runs bash sleep
tm send-keys -t bash C-c
wait_runs bash sleep not
type_line bash "echo after-ctrl-c >> $W/bash.out; ls $W >> $W/bash.out"
type_line bash "echo \$(echo sub) | tr a-z A-Z >> $W/bash.out"
type_line bash "exit"
wait_runs bash landrun not && wait_runs bash bash not
type_line bash "echo outer-shell-back > $W/bash.back"
wait_for_file "$W/bash.back"
SCREEN=$(pane bash)
echo "# the bash under landrun printed:"
grep -iE "job control|setpgid|tcsetpgrp|Operation not permitted" <<<"$SCREEN" | sed 's/^/#   /'
tm kill-session -t bash 2>/dev/null
assert "bash under landrun: runs a command" grep -qx "ran-42-inside" "$W/bash.out"
assert "bash under landrun: Ctrl-C stops sleep and the next command runs" \
	grep -qx "after-ctrl-c" "$W/bash.out"
assert "bash under landrun: pipes and command substitution" grep -qx "SUB" "$W/bash.out"
assert "bash under landrun: exit gives the terminal back to the outer shell" \
	grep -qx "outer-shell-back" "$W/bash.back"

# An interactive bash under --pty has job control: Ctrl-Z stops a job.
PTY_LR=("$LANDRUN" --pty --rox /usr,/bin,/lib,/lib64 --ro /etc --rw "$W",/dev/null
	--env PATH=/usr/bin:/bin --env TERM=xterm --env PS1=inside: -- bash --norc --noprofile -i)
shell pbash
type_line pbash "${PTY_LR[*]}"
wait_for_screen pbash '^inside:'
type_line pbash "tty > $W/pbash.tty; setsid -w true && echo setsid-ok > $W/pbash.setsid; sleep 30"
wait_runs pbash sleep
tm send-keys -t pbash C-z
wait_for_screen pbash 'Stopped'
type_line pbash "jobs > $W/pbash.jobs; kill -9 %1; exit"
# bash may first say "There are stopped jobs" and stay: exit again
gone_or_warned() { runs_not pbash landrun || screen_shows pbash 'There are stopped jobs'; }
wait_until "$WAIT_S" gone_or_warned
runs pbash landrun && screen_shows pbash 'There are stopped jobs' && type_line pbash "exit"
wait_runs pbash landrun not
type_line pbash "echo outer-shell-back > $W/pbash.back"
wait_for_file "$W/pbash.back"
SCREEN=$(pane pbash)
tm kill-session -t pbash 2>/dev/null
assert "bash under --pty: its terminal is a new pty, not the shell's" \
	eval '[ -s "$W/pbash.tty" ] && ! grep -qxF "$(tm display -p "#{pane_tty}" 2>/dev/null || echo none)" "$W/pbash.tty"'
assert "bash under --pty: setsid works (the pty is the command's own)" \
	grep -qx "setsid-ok" "$W/pbash.setsid"
assert "bash under --pty: job control (Ctrl-Z stopped sleep)" grep -q "Stopped" "$W/pbash.jobs"
assert "bash under --pty: no job-control errors on the screen" \
	eval '! grep -qiE "setpgid|no job control|Operation not permitted" <<<"$SCREEN"'
assert "bash under --pty: exit gives the terminal back to the outer shell" \
	grep -qx "outer-shell-back" "$W/pbash.back"

# ===========================================================================
# --pty: the relay never blocks on what the command writes or refuses to
# read (issue 20, item 8).  The command floods its pty, in raw mode, with
# cursor-position queries and never reads: the terminal's answers pile up
# in its input.  --timeout must still end the run on time, and so must a
# SIGTERM to landrun, and the terminal must get its mode back, also when
# the command dies of SIGKILL.

cat >"$W/flood.sh" <<EOF
stty -g > $W/flood.before
$LRTTY ask 20 $W/flood.ask
s=\$(date +%s%N)
$LANDRUN --pty --timeout 2 --timeout-grace 1 --rox $BIN -- $LRTTY flood 40000
echo "\$? \$(( (\$(date +%s%N) - s) / 1000000 ))" > $W/flood.end
stty -g > $W/flood.after
$LANDRUN --pty --rox $BIN -- $LRTTY rawkill
echo \$? > $W/rawkill.end
stty -g > $W/rawkill.after
s=\$(date +%s%N)
timeout --foreground --preserve-status -s TERM 2 $LANDRUN --pty --rox $BIN -- $LRTTY flood 40000
echo "\$? \$(( (\$(date +%s%N) - s) / 1000000 ))" > $W/floodterm.end
stty -g > $W/floodterm.after
EOF
shell flood
type_line flood "bash $W/flood.sh"
wait_for_file "$W/floodterm.after" "" 120
type_line flood "echo typed-after-the-flood > $W/flood.typed"
wait_for_file "$W/flood.typed"
tm kill-session -t flood 2>/dev/null
read -r FLOOD_RC FLOOD_MS <"$W/flood.end" 2>/dev/null
assert "control: the terminal answers cursor-position queries (20 of 20)" \
	grep -qx "answers=20" "$W/flood.ask"
assert "--pty, 40000 queries never read, --timeout 2: the run ends with 124 (got ${FLOOD_RC:-none})" \
	[ "${FLOOD_RC:-}" = 124 ]
assert "--pty flood: ... on time, in ${FLOOD_MS:-?} ms (< 6000)" \
	[ "${FLOOD_MS:-99999}" -lt 6000 ]
assert "--pty flood: the terminal has its mode back" \
	eval '[ -s "$W/flood.before" ] && cmp -s "$W/flood.before" "$W/flood.after"'
assert "--pty, the command dies of SIGKILL in raw mode: 137" grep -qx 137 "$W/rawkill.end"
assert "--pty SIGKILL: the terminal has its mode back" \
	eval '[ -s "$W/flood.before" ] && cmp -s "$W/flood.before" "$W/rawkill.after"'
read -r FT_RC FT_MS <"$W/floodterm.end" 2>/dev/null
assert "--pty flood, SIGTERM to landrun after 2 s: it ends (143, got ${FT_RC:-none}) in ${FT_MS:-?} ms (< 6000)" \
	eval '[ "${FT_RC:-}" = 143 ] && [ "${FT_MS:-99999}" -lt 6000 ]'
assert "--pty flood, SIGTERM: the terminal has its mode back" \
	eval '[ -s "$W/flood.before" ] && cmp -s "$W/flood.before" "$W/floodterm.after"'
assert "--pty flood: the shell reads the next line, no answer mixed in" \
	grep -qx "typed-after-the-flood" "$W/flood.typed"

# The user's terminal stops reading (a paused pane, a hung ssh): the relay
# holds what it cannot write and stops reading the pty; --timeout still
# ends the run on time, and the terminal is left in its own mode (cooked),
# as a pty whose master nobody reads shows.
cat >"$W/stuck.py" <<'EOF'
import os, pty, sys, termios, time
t0 = time.monotonic()
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
_, status = os.waitpid(pid, 0)	# the master is never read
lflag = termios.tcgetattr(fd)[3]
cooked = lflag & termios.ICANON and lflag & termios.ECHO
print(os.waitstatus_to_exitcode(status), int((time.monotonic() - t0) * 1000),
      "cooked" if cooked else "raw")
EOF
read -r ST_RC ST_MS ST_MODE < <(/usr/bin/python3 "$W/stuck.py" "$LANDRUN" --pty --timeout 2 \
	--timeout-grace 1 --rox "$BIN" -- "$LRTTY" flood 400000 2>/dev/null)
assert "--pty, a terminal that never reads, --timeout 2: the run ends with 124 (got ${ST_RC:-none}) in ${ST_MS:-?} ms (< 8000)" \
	eval '[ "${ST_RC:-}" = 124 ] && [ "${ST_MS:-99999}" -lt 8000 ]'
assert "--pty, a terminal that never reads: its mode is its own again (${ST_MODE:-none})" \
	[ "${ST_MODE:-}" = cooked ]

# ===========================================================================
# --pty: what acts on the terminal beyond the screen.  The user's terminal
# here is a tmux pane with set-clipboard on, so OSC 52 from the command makes
# a tmux buffer (the clipboard a user pastes from), and tmux's own flags say
# which modes the pane is in.  The command writes the clipboard, and a TUI
# dies of SIGKILL with the alternate screen, mouse reporting and the keypad
# on and the cursor hidden.  Judged outside: tmux's buffers and flags.

FLAGS="'#{alternate_on} #{mouse_any_flag} #{mouse_sgr_flag} #{keypad_flag} #{cursor_flag}'"
TMUX_HERE="SHELL=/bin/bash tmux -S $SOCK"
MODES_ON='\e[?1049h\e[?1003h\e[?1006h\e=\e[?25l'
cat >"$W/osc.sh" <<EOF
printf '\\033]52;c;%s\\a' \$(printf clip-outside | base64)
$LANDRUN --pty --rox $BIN -- $LRTTY emit "\\\\e]52;c;\$(printf clip-inside | base64)\\\\a" 2> $W/osc.err
$LANDRUN --pty --pty-passthrough --rox $BIN -- $LRTTY emit "\\\\e]52;c;\$(printf clip-passed | base64)\\\\a"
$LRTTY emit '$MODES_ON' kill
$TMUX_HERE display -p -t osc $FLAGS > $W/modes.outside
printf '\\033[?1049l\\033[?1003l\\033[?1006l\\033>\\033[?25h'
$TMUX_HERE display -p -t osc $FLAGS > $W/modes.reset
$LANDRUN --pty --rox $BIN -- $LRTTY emit '$MODES_ON' kill
echo \$? > $W/modes.rc
$TMUX_HERE display -p -t osc $FLAGS > $W/modes.after
$TMUX_HERE list-buffers -F '#{buffer_sample}' > $W/osc.buffers
EOF
shell osc
tm set -g set-clipboard on
type_line osc "bash $W/osc.sh"
wait_for_file "$W/osc.buffers"
tm kill-session -t osc 2>/dev/null
diag() { # (from here on, a failed check shows these)
	echo "#   buffers: $(tr '\n' ' ' <"$W/osc.buffers" 2>/dev/null)"
	echo "#   stderr: $(cat "$W/osc.err" 2>/dev/null)"
	echo "#   modes outside, reset, after landrun: $(cat "$W/modes.outside" "$W/modes.reset" "$W/modes.after" 2>/dev/null | tr '\n' /)"
	echo "#   the script: $(tr '\n' ';' <"$W/osc.sh")"
}
assert "control: OSC 52 outside landrun sets the clipboard (a tmux buffer)" \
	grep -qx "clip-outside" "$W/osc.buffers"
assert "--pty: the command's OSC 52 does not reach the clipboard" \
	eval '[ -s "$W/osc.buffers" ] && ! grep -q "clip-inside" "$W/osc.buffers"'
assert "--pty: ... and landrun says so in one line, naming the flag" \
	grep -qE '^landrun: --pty: dropped 1 sequence .*clipboard 1.*--pty-passthrough' "$W/osc.err"
assert "--pty --pty-passthrough: OSC 52 sets the clipboard" \
	grep -qx "clip-passed" "$W/osc.buffers"
assert "control: a TUI killed outside landrun leaves the alternate screen, the mouse, the keypad on, the cursor hidden" \
	grep -qx "1 1 1 1 0" "$W/modes.outside"
assert "control: printf turns them off again" grep -qx "0 0 0 0 1" "$W/modes.reset"
assert "--pty: the TUI dies of SIGKILL (137)" grep -qx 137 "$W/modes.rc"
assert "--pty: ... and every mode it left on in the terminal is off again" \
	grep -qx "0 0 0 0 1" "$W/modes.after"

# ===========================================================================
# --explain: requested when a terminal is within reach; lost when the
# command would hold another session's terminal.

shell explain
EXPLAIN=("$LANDRUN" --explain --rox "$BIN" -- /bin/true)
type_line explain "${EXPLAIN[*]} > $W/explain.tty"
type_line explain "$LANDRUN --explain --pty --rox $BIN -- /bin/true > $W/explain.pty"
type_line explain "setsid -w ${EXPLAIN[*]} < /dev/null > $W/explain.none 2>&1"
type_line explain "setsid -w ${EXPLAIN[*]} < \$(tty) > $W/explain.foreign 2>&1"
type_line explain "setsid -w $LANDRUN --on-unsupported=error --rox $BIN -- $LRTTY sctty < \$(tty) > $W/error.foreign 2>&1; echo \$? > $W/error.rc"
wait_for_file "$W/error.rc"
tm kill-session -t explain 2>/dev/null
assert "--explain in a terminal: tty.foreground by seccomp" \
	grep -qE '^ *tty\.foreground +seccomp' "$W/explain.tty"
assert "--explain --pty in a terminal: tty.foreground by landrun (the relay)" \
	grep -qE '^ *tty\.foreground +landrun' "$W/explain.pty"
assert "--explain with no terminal (setsid, </dev/null): tty.foreground off" \
	grep -qE '^ *tty\.foreground +off' "$W/explain.none"
assert "--explain with another session's terminal on fd 0: tty.foreground LOST" \
	grep -qE '^ *tty\.foreground +LOST' "$W/explain.foreign"
assert "--on-unsupported=error then refuses (125) and names tty.foreground" \
	eval '[ "$(cat "$W/error.rc")" = 125 ] && grep -q "cannot enforce tty.foreground" "$W/error.foreign"'

tap_done
