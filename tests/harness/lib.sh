# SPDX-License-Identifier: MIT
# lib.sh - shared by the harness tests: their arguments and running as uid
# 65534, TAP output, installing the real harnesses from the npm registry
# into a cache directory, driving a TUI in tmux.  Sourced.
#
# The harnesses are installed once into $LANDRUN_HARNESS_CACHE (default
# ~/.cache/landrun-harness/<name>), at the versions pinned below; set
# LANDRUN_OPENCODE_VERSION=latest (and so on) to try another.  The npm
# registry is asked only when the pinned version is not installed yet.

LR_OPENCODE_VERSION=${LANDRUN_OPENCODE_VERSION:-1.18.33}
LR_CODEX_VERSION=${LANDRUN_CODEX_VERSION:-0.171.0}
LR_CLAUDE_VERSION=${LANDRUN_CLAUDE_VERSION:-2.1.197}
LR_CACHE=${LANDRUN_HARNESS_CACHE:-${HOME:-/root}/.cache/landrun-harness}

# ---------------------------------------------------------------- who runs it

# lr_args "$@": the script's arguments, [LANDRUN] [--as-nobody].  Sets
# LANDRUN (absolute) and LR_NOBODY (yes when --as-nobody was given).  In the
# body that lr_become_nobody starts, LANDRUN is its copy.
lr_args() {
	local here
	here=$(cd "$(dirname "$0")" && pwd)
	LANDRUN=$here/../../build/landrun LR_NOBODY=no
	while [ $# -gt 0 ]; do
		case $1 in
		--as-nobody) LR_NOBODY=yes ;;
		*) LANDRUN=$1 ;;
		esac
		shift
	done
	LANDRUN=$(realpath "$LANDRUN")
	[ -x "$LANDRUN" ] || { echo "1..0 # landrun not found at $LANDRUN"; exit 1; }
}

# lr_become_nobody: with --as-nobody, run the rest of the script as uid
# and gid 65534, from the top again, once what it needs is installed (call it
# after the installs, which then find everything in place).  As root it
# copies the script, this library, the fake model and landrun into a new
# directory /tmp/landrun-harness-nobody.XXXXXX readable by all, with the
# harness cache beside them (hard links, or a copy: ~root is closed to
# others; made readable by all, which with hard links changes the modes in
# the cache too) and the shipped profiles (the copy of landrun is not in its build
# directory, where it would find them: lr_profiles puts them in the test's
# HOME), gives uid 65534 a HOME there, runs the script again under setpriv,
# removes the directory and exits with the script's status.  Not root, it
# runs on as the caller and says so.  Without --as-nobody, or in the body,
# it returns.
lr_become_nobody() {
	local here self s
	[ "$LR_NOBODY" = yes ] || return 0
	if [ -n "${LR_BODY:-}" ]; then
		echo "# as uid $(id -u) gid $(id -g), HOME=$HOME, harnesses in $LR_CACHE"
		return 0
	fi
	if [ "$(id -u)" != 0 ]; then
		echo "# not running as root: the nobody variant runs as the current user (uid $(id -u))"
		return 0
	fi
	here=$(cd "$(dirname "$0")" && pwd) self=${0##*/}
	s=$(mktemp -d /tmp/landrun-harness-nobody.XXXXXX) || exit 1
	trap 'rm -rf "$s"' EXIT
	chmod 755 "$s" && mkdir -m 755 "$s/bin" "$s/profiles" && mkdir -m 700 "$s/home" &&
		cp "$here/$self" "$here/lib.sh" "$here/fake_model.py" "$LANDRUN" "$s/bin/" &&
		{ [ ! -f "${LANDRUN%/*}/landrun-egress" ] ||	# its egress helper, beside it
			cp "${LANDRUN%/*}/landrun-egress" "$s/bin/"; } &&
		cp "$here"/../../profiles/*.conf "$s/profiles/" &&
		chmod a+rX "$s/bin"/* "$s/profiles"/* && chown 65534:65534 "$s/home" || exit 1
	if [ -d "$LR_CACHE" ]; then
		cp -al "$LR_CACHE" "$s/cache" 2>/dev/null || { rm -rf "$s/cache" && cp -a "$LR_CACHE" "$s/cache"; } ||
			{ echo "Bail out! cannot copy $LR_CACHE for uid 65534"; exit 1; }
		chmod -R a+rX "$s/cache" || exit 1
	fi
	setpriv --reuid=65534 --regid=65534 --clear-groups -- \
		env HOME="$s/home" LANDRUN_HARNESS_CACHE="$s/cache" LR_BODY=1 LR_PROFILES="$s/profiles" \
		/bin/bash "$s/bin/$self" "$s/bin/${LANDRUN##*/}" --as-nobody
	exit $?
}

# lr_profiles HOME: in the body that lr_become_nobody started, the shipped
# profiles into HOME/.config/landrun/profiles, where its copy of landrun
# looks first (a user's own profiles; nothing of HOME is granted by them).
lr_profiles() {
	[ -n "${LR_PROFILES:-}" ] || return 0
	mkdir -p "$1/.config/landrun/profiles" && cp "$LR_PROFILES"/*.conf "$1/.config/landrun/profiles/"
}

# ---------------------------------------------------------------- TAP

# Seconds since T (a `date +%s.%N`), one decimal, for the test's comments.
lr_since() { # T
	awk -v t="$1" -v now="$(date +%s.%N)" 'BEGIN { printf "%.1f", now - t }'
}

N=0 FAILED=0

ok() { # DESC
	N=$((N + 1))
	echo "ok $N - $1"
}

not_ok() { # DESC [DETAIL...]
	N=$((N + 1)) FAILED=$((FAILED + 1))
	echo "not ok $N - $1"
	shift
	local line
	for line in "$@"; do
		printf '%s\n' "$line" | head -c 2000 | sed 's/^/#   /'
	done
	# and on stderr, which is what meson shows of a failed test (CI's log)
	{
		echo "not ok $N"
		for line in "$@"; do printf '%s\n' "$line" | head -c 2000 | sed 's/^/#   /'; done
	} >&2
}

# In strict mode (LANDRUN_TEST_STRICT=1, CI) a skip is a failure: the
# harnesses' skips name the npm registry or an install, never a kernel
# feature (docs/development.md).
skip() { # DESC REASON
	if [ "${LANDRUN_TEST_STRICT:-}" = 1 ]; then
		not_ok "$1 (LANDRUN_TEST_STRICT=1: a skip that names no missing kernel feature: $2)"
		return
	fi
	N=$((N + 1))
	echo "ok $N - $1 # SKIP $2"
}

check() { # DESC COMMAND... : ok when COMMAND succeeds
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}

tap_end() {
	echo "1..$N"
	echo "# $((N - FAILED)) passed, $FAILED failed"
	[ "$FAILED" = 0 ]
}

# Skip the whole file: the plan with a reason, exit 0.
skip_all() { # REASON
	if [ "${LANDRUN_TEST_STRICT:-}" = 1 ]; then
		not_ok "${0##*/} (LANDRUN_TEST_STRICT=1: a skip that names no missing kernel feature: $1)"
		tap_end
		exit 1
	fi
	echo "1..0 # SKIP $1"
	exit 0
}

# ---------------------------------------------------------------- installing

# Install what the tests need from Debian (as root; otherwise it must be there).
lr_need_apt() { # COMMAND PACKAGE
	command -v "$1" >/dev/null 2>&1 && return 0
	[ "$(id -u)" = 0 ] || return 1
	echo "# installing $2 from Debian" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$2" \
		>/dev/null 2>&1 && return 0
	DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$2" >/dev/null
}

lr_registry_reachable() {
	timeout 60 npm view --silent opencode-ai version >/dev/null 2>&1
}

# lr_npm_install PACKAGE VERSION: installs into $LR_CACHE/<name> unless that
# version is there.  Prints the directory.  Returns 2 when the registry cannot
# be reached (the caller skips), 1 on any other failure.
lr_npm_install() {
	local pkg=$1 ver=$2 dir have
	dir=$LR_CACHE/$(printf '%s' "$pkg" | tr -d @ | tr / -)
	have=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' \
		"$dir/node_modules/$pkg/package.json" 2>/dev/null | head -n 1)
	if [ -n "$have" ] && { [ "$have" = "$ver" ] || [ "$ver" = latest ]; }; then
		echo "$dir"
		return 0
	fi
	if ! command -v npm >/dev/null 2>&1 && ! lr_need_apt npm npm; then
		echo "# npm is not installed and cannot be (not root)" >&2
		return 1
	fi
	lr_registry_reachable || return 2
	mkdir -p "$dir" || return 1
	echo "# installing $pkg@$ver from the npm registry into $dir" >&2
	# In DIR itself: a directory named like the package in the current
	# directory would be taken for a local package.
	(cd "$dir" && npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
		"$pkg@$ver" >&2) || return 1
	echo "$dir"
}

# The native OpenCode executable in an opencode-ai install: the platform
# package's binary (the npm package's postinstall only links it into
# opencode-ai/bin; its scripts may not have run).
lr_opencode_bin() { # DIR
	local dir=$1 arch base cands c
	case $(uname -m) in
	x86_64) arch=x64 ;;
	aarch64) arch=arm64 ;;
	*) return 1 ;;
	esac
	base=$dir/node_modules/opencode-linux-$arch
	cands="$base/bin/opencode $base-baseline/bin/opencode"
	if [ "$arch" = x64 ] && ! grep -qw avx2 /proc/cpuinfo 2>/dev/null; then
		cands="$base-baseline/bin/opencode $base/bin/opencode"
	fi
	for c in $cands "$dir/node_modules/opencode-ai/bin/opencode.exe"; do
		if [ -x "$c" ] && "$c" --version >/dev/null 2>&1; then
			echo "$c"
			return 0
		fi
	done
	return 1
}

# OpenCode's configuration in HOME/.config/opencode (which must exist), then
# that directory made read-only: the fake model on 127.0.0.1:PORT as the only
# provider and model, no autoupdate, no sharing.  Each MEMBER ('"key": value')
# is added to the top-level object.
lr_opencode_config() { # HOME PORT [MEMBER...]
	local cfg=$1/.config/opencode port=$2 m more=
	shift 2
	for m in "$@"; do
		more+=",
  $m"
	done
	cat >"$cfg/opencode.json" <<EOF
{
  "provider": {
    "fake": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Fake",
      "options": { "baseURL": "http://127.0.0.1:$port/v1", "apiKey": "fake-key" },
      "models": { "fake-model": { "name": "Fake model", "tool_call": true } }
    }
  },
  "model": "fake/fake-model",
  "small_model": "fake/fake-model",
  "autoupdate": false,
  "share": "disabled"$more
}
EOF
	chmod -R a-w "$cfg"
}

# Remove the test's directory W, unless LANDRUN_KEEP is set (then say where
# it is).  Read-only directories in it (the OpenCode configuration) are
# made writable first: uid 65534 cannot remove their entries otherwise.
lr_cleanup_dir() { # W
	if [ -n "${LANDRUN_KEEP:-}" ]; then
		echo "# kept $1"
	else
		chmod -R u+w "$1" 2>/dev/null
		rm -rf "$1"
	fi
}

# lr_workdir NAME: the test's directory W (/tmp/landrun-NAME.XXXXXX), and at
# exit the fake model server SERVER (once the test sets its pid) and the
# test's tmux server, if any, ended and W removed (lr_cleanup_dir).
lr_workdir() {
	W=$(mktemp -d "/tmp/landrun-$1.XXXXXX") || exit 1
	SERVER=
	trap lr_workdir_cleanup EXIT
}
lr_workdir_cleanup() {
	lr_tmux kill-server 2>/dev/null
	[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null
	lr_cleanup_dir "$W"
}

# lr_codex_claude_home_untouched H: TAP, the user's own ~/.codex, ~/.claude
# and ~/.claude.json in H got nothing: the harnesses' state went to the
# sandbox's directories (the unconfined harnesses read those, and run what
# they hold).
lr_codex_claude_home_untouched() { # H
	if [ -z "$(find "$1/.codex" "$1/.claude" -mindepth 1)" ] && [ ! -e "$1/.claude.json" ]; then
		ok "the user's ~/.codex, ~/.claude and ~/.claude.json are untouched"
	else
		not_ok "the user's ~/.codex, ~/.claude and ~/.claude.json are untouched" \
			"$(ls -la "$1/.codex" "$1/.claude" "$1/.claude.json" 2>&1)"
	fi
}

# The private directory landrun made for a command given no TMPDIR
# (/tmp/landrun.XXXXXX, TMPDIR its tmp/), from the "TMPDIR=..." line the
# command printed (read from standard input); nothing when there is none.
lr_private_tmp() {
	sed -n 's|^TMPDIR=\(/tmp/landrun\.[0-9]*\.[A-Za-z0-9]\{6\}\)/tmp$|\1|p' | head -n 1
}

# ---------------------------------------------------------------- waiting

# The deadline of a wait for a state (a file, a screen), in seconds: generous,
# so that a loaded machine is only slower (LANDRUN_TEST_WAIT overrides it).
# OpenCode's start and answer, which took more than 90 s on a machine loaded
# by QEMU and other suites, get three times that.
LR_WAIT=${LANDRUN_TEST_WAIT:-60}

# ---------------------------------------------------------------- tool results

LR_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# lr_read_results LOG DIR: the tool results the harness sent to the fake
# model (its request LOG), one file per call in DIR (emptied first), read
# once after a run; then `result N` prints the N-th call's, or fails when
# the harness sent none.
lr_read_results() {
	LR_RESULTS=$2
	rm -rf "$2" && mkdir -p "$2" && python3 "$LR_LIB_DIR/fake_model.py" tool-results "$1" "$2"
}
result() { cat "$LR_RESULTS/call_$1" 2>/dev/null; }
has() { result "$1" | grep -q -- "$2"; }	# N TEXT: the result holds TEXT (a regexp)
# The status a bash step printed last as LR-EXIT=<status>.
exit_of() { result "$1" | sed -n 's/.*LR-EXIT=\([0-9]*\).*/\1/p' | tail -n 1; }
# a bash step that must fail: LR-EXIT is there, not 0, and not "command not found"
bash_failed() { local e; e=$(exit_of "$1"); [ -n "$e" ] && [ "$e" != 0 ] && [ "$e" != 127 ]; }

# ---------------------------------------------------------------- terminals

# The TUI tests run each harness in a window of a private tmux server: a
# script (lr_tui_script) runs landrun in the foreground, prints
# "LANDRUN-TUI-EXITED <status>" when it is done and keeps the window open,
# so that the last screen and the status can be read.
LR_TMUX=landrun-test-$$
# SHELL: the server runs each window through it; uid 65534's login shell
# (taken when SHELL is unset, as in CI) is nologin.
lr_tmux() { SHELL=/bin/bash tmux -L "$LR_TMUX" "$@"; }

# lr_tui_start NAME W CWD COMMAND...: a 120x40 window NAME running COMMAND
# in CWD, by the script W/NAME.sh; its standard error goes to W/NAME.stderr.
lr_tui_start() {
	local name=$1 w=$2 cwd=$3 script=$2/$1.sh
	shift 3
	{
		printf 'cd %q || exit 1\n' "$cwd"
		printf '%q ' "$@"
		printf '2>%q\n' "$w/$name.stderr"
		echo 'echo "LANDRUN-TUI-EXITED $?"'
		echo 'exec sleep 600'
	} >"$script"
	lr_tmux -f /dev/null new-session -d -s "$name" -x 120 -y 40 "bash $script"
}

lr_screen() { lr_tmux capture-pane -p -t "$1" 2>/dev/null; }
lr_screen_text() { lr_screen "$1" | grep -v '^ *$'; }	# for a failure's detail

# lr_wait_screen NAME TEXT SECONDS: until TEXT is on NAME's screen; fails
# at once when the command has exited (and TEXT is not on the screen).
# One capture a round, for both checks: with two, the command could exit
# between them, and waiting for LANDRUN-TUI-EXITED itself would fail.  A
# look every 0.05 s: some text is there for a moment only (Claude Code's
# "again to exit").
lr_wait_screen() {
	local end=$((${EPOCHREALTIME/./} + $3 * 1000000)) screen
	while :; do
		screen=$(lr_screen "$1")
		grep -qF -- "$2" <<<"$screen" && return 0
		grep -q LANDRUN-TUI-EXITED <<<"$screen" && return 1
		[ "${EPOCHREALTIME/./}" -lt "$end" ] || return 1
		sleep 0.05
	done
}

# lr_type_text NAME TEXT: type TEXT (no Enter) into NAME's TUI and wait until
# it is drawn (a TUI that was not reading input yet gets it once more after
# 10 seconds); fails when it never appears (LR_WAIT more).
lr_type_text() {
	lr_tmux send-keys -t "$1" -l "$2"
	lr_wait_screen "$1" "$2" 10 && return 0
	lr_screen "$1" | grep -q LANDRUN-TUI-EXITED && return 1
	lr_tmux send-keys -t "$1" -l "$2"
	lr_wait_screen "$1" "$2" "$LR_WAIT"
}

# The exit status of NAME's command, once it has exited (waits up to SECONDS).
lr_tui_status() { # NAME SECONDS
	lr_wait_screen "$1" LANDRUN-TUI-EXITED "$2" &&
		lr_screen "$1" | sed -n 's/.*LANDRUN-TUI-EXITED \([0-9]*\).*/\1/p' | tail -n 1
}

# The TMPDIR that NAME's command runs with (from its /proc environ: landrun
# execs in place as the child of the window's shell).
lr_tui_tmpdir() { # NAME
	local pids pid t
	# the command is the shell's child, or (with --pty) the supervisor's
	pids=$(lr_tmux display -p -t "$1" '#{pane_pid}') || return 1
	while [ -n "$pids" ]; do
		pids=$(for pid in $pids; do ps -o pid= --ppid "$pid"; done | tr -d ' ')
		for pid in $pids; do
			t=$(tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | sed -n 's/^TMPDIR=//p')
			[ -n "$t" ] && { echo "$t"; return 0; }
		done
	done
	return 1
}

# Wait until FILE exists and is not empty (at most SECONDS); on timeout,
# say what is there.
lr_wait_file() { # FILE SECONDS
	local i
	for i in $(seq 1 $((${2} * 10))); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	echo "# waited $2 s for $1: $(ls -l "$1" 2>&1)"
	return 1
}
