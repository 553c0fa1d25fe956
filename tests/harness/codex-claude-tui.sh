#!/bin/bash
# SPDX-License-Identifier: MIT
#
# codex-claude-tui.sh [LANDRUN] [--as-nobody] - the Codex and Claude Code
# TUIs as the README starts them, in a repository (.git, .env, src/), each
# in a terminal (a private tmux server):
#
#   landrun --connect-tcp PORT -- codex --sandbox danger-full-access --no-daemon
#   landrun --connect-tcp PORT -- claude
#
# with no TMPDIR (landrun gives a private one) and `codex`, `claude` on PATH
# (the native executables; --connect-tcp only for the fake model on
# loopback).  Each must draw its folder-trust screen, take the keystroke
# that accepts it (saved in the sandbox's own state directory, not in
# ~/.codex or ~/.claude), draw its prompt, send a typed message to the fake
# model and draw the answer, and quit on Ctrl+C with status 0.  Codex's
# model is set in its sandbox CODEX_HOME (~/.local/share/landrun/codex/
# config.toml); Claude Code's API key and base URL come from ANTHROPIC_*,
# its onboarding and key approval from a .claude.json in its sandbox
# CLAUDE_CONFIG_DIR.  Then the npm packages' own commands print their
# version under landrun: node_modules/.bin/codex (a Node script that starts
# the native binary: granted with --rox of the package directory, as
# docs/harnesses.md says) and node_modules/.bin/claude.  TAP output; a harness that is
# not installed and cannot be (npm registry unreachable) is skipped.

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
lr_args "$@"

T0=$(date +%s.%N)

for t in python3:python3 git:git tmux:tmux node:nodejs; do
	lr_need_apt "${t%%:*}" "${t#*:}" || { echo "Bail out! ${t%%:*} is needed (apt-get install ${t#*:})"; exit 1; }
done
CX_DIR=$(lr_npm_install @openai/codex "$LR_CODEX_VERSION")
CX_RC=$?
CL_DIR=$(lr_npm_install @anthropic-ai/claude-code "$LR_CLAUDE_VERSION")
CL_RC=$?
lr_become_nobody

lr_workdir harness-tui

echo '[]' >"$W/script.json"		# no tool calls: the model answers with text
python3 "$HERE/fake_model.py" --script "$W/script.json" --log "$W/requests.jsonl" \
	--port-file "$W/port" --lifetime 300 &
SERVER=$!
lr_wait_file "$W/port" "$LR_WAIT" || { echo "Bail out! the fake model server did not start"; exit 1; }
PORT=$(cat "$W/port")
LOG=$W/requests.jsonl

# The user: their own ~/.codex and ~/.claude (left alone by the profiles),
# the harnesses on PATH.  The repository: .git with a commit, .env, src/.
H=$W/home P=$W/repo
CODEX_SANDBOX_HOME=$H/.local/share/landrun/codex
CLAUDE_SANDBOX_DIR=$H/.local/share/landrun/claude-code
mkdir -p "$H/.codex" "$H/.claude" "$CODEX_SANDBOX_HOME" "$CLAUDE_SANDBOX_DIR" \
	"$W/bin" "$P/src" || exit 1
lr_profiles "$H" || exit 1
echo 'SECRET_TOKEN=tui-secret-1f0c' >"$P/.env"
echo '.env' >"$P/.gitignore"
echo 'console.log("hello");' >"$P/src/index.js"
(cd "$P" && git init -q && git add -A &&
	git -c user.name=Dev -c user.email=dev@example.org commit -qm "first commit") ||
	{ echo "Bail out! git init or commit failed in $P"; exit 1; }

# tui NAME COMMAND ARGS...: the harness in a window, in the repository, as
# the user starts it.
tui() {
	local name=$1
	shift
	lr_tui_start "$name" "$W" "$P" env -i PATH="$W/bin:/usr/local/bin:/usr/bin:/bin" HOME="$H" \
		TERM=xterm-256color LANG=C.UTF-8 \
		ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" ANTHROPIC_API_KEY=fake-key \
		CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
		"$LANDRUN" --connect-tcp "$PORT" -- "$@"
}

# drive NAME LABEL TRUST-TEXT PROMPT-TEXT QUIT-KEYS...: the checks common to
# both TUIs, from the trust screen to the exit.
drive() {
	local name=$1 label=$2 trust=$3 prompt=$4 t tmp st msg="hello from the landrun $1 test"
	shift 4
	t=$(date +%s.%N)
	if lr_wait_screen "$name" "$trust" "$LR_WAIT"; then
		ok "$label: the TUI draws its folder-trust screen ($(lr_since "$t") s)"
	else
		not_ok "$label: the TUI draws its folder-trust screen" "$(lr_screen_text "$name")" \
			"$(tail -n 20 "$W/$name.stderr")"
	fi
	tmp=$(lr_tui_tmpdir "$name")
	lr_tmux send-keys -t "$name" Enter
	if lr_wait_screen "$name" "$prompt" "$LR_WAIT"; then
		ok "$label: Enter accepts it and the prompt is drawn"
	else
		not_ok "$label: Enter accepts it and the prompt is drawn" "$(lr_screen_text "$name")" \
			"$(tail -n 20 "$W/$name.stderr")"
	fi
	lr_type_text "$name" "$msg" ||
		not_ok "$label: the typed message is drawn in the prompt" "$(lr_screen_text "$name")"
	lr_tmux send-keys -t "$name" Enter
	t=$(date +%s.%N)
	if lr_wait_screen "$name" "All scripted steps are done." "$LR_WAIT" && grep -qF "$msg" "$LOG"; then
		ok "$label: a typed message reaches the model and its answer is drawn ($(lr_since "$t") s)"
	else
		not_ok "$label: a typed message reaches the model and its answer is drawn" \
			"$(lr_screen_text "$name")" "$(tail -n 20 "$W/$name.stderr")"
	fi
	# the keys one after the other, and none once the TUI has exited.
	# Claude Code exits on a second Ctrl-C that comes within a moment of the
	# first (its "Press Ctrl-C again to exit" is there for about 2 s): on a
	# loaded machine even that can be missed; and Codex once, in CI, stayed
	# at its prompt a minute after its one Ctrl-C (taken, it seems, for the
	# turn it was just ending).  So, the TUI still running 5 s later, the
	# keys again (up to LR_WAIT)
	local tries=$((LR_WAIT / 5))
	while :; do
		for key in "$@"; do
			lr_screen "$name" | grep -q LANDRUN-TUI-EXITED && break 2
			lr_tmux send-keys -t "$name" "$key"
		done
		lr_wait_screen "$name" LANDRUN-TUI-EXITED 5 && break
		tries=$((tries - 1))
		[ $tries -gt 0 ] || break
		echo "# $label: still running after $*: the keys again"
	done
	# (landrun ends what the TUI left, SIGKILL after a 10 s grace)
	st=$(lr_tui_status "$name" "$LR_WAIT")
	if [ "$st" = 0 ]; then ok "$label: Ctrl+C quits it, exit 0"; else
		not_ok "$label: Ctrl+C quits it, exit 0 (${st:-still running})" \
			"$(lr_screen_text "$name")" "$(tail -n 20 "$W/$name.stderr")" \
			"processes: $(ps -o pid,ppid,stat,etime,args -u "$(id -u)" | grep -v ' ps ' | tail -n 30)"
	fi
	if head -n 1 "$W/$name.stderr" | grep -qF "profile $label (the default for this command), project $P"; then
		ok "$label: landrun chose the $label profile and the repository as the project"
	else
		not_ok "$label: landrun chose the $label profile and the repository as the project" \
			"$(head -n 3 "$W/$name.stderr")"
	fi
	case $tmp in
	/tmp/landrun.[0-9]*.??????/tmp) ok "$label: its TMPDIR was a new private one"; rm -rf "${tmp%/tmp}" ;;
	*) not_ok "$label: its TMPDIR was a new private one (${tmp:-none seen})" ;;
	esac
}

# ---------------------------------------------------------------- Codex

case $CX_RC in
0)
	CX=$(ls "$CX_DIR"/node_modules/@openai/codex-linux-*/vendor/*/bin/codex 2>/dev/null | head -n 1)
	echo "# codex $("$CX" --version 2>/dev/null) at ${CX:-nowhere}"
	ln -s "${CX:-/nonexistent/codex}" "$W/bin/codex"
	cat >"$CODEX_SANDBOX_HOME/config.toml" <<EOF
model = "fake-model"
model_provider = "fake"
[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:$PORT/v1"
wire_api = "responses"
EOF
	tui codex codex --sandbox danger-full-access --no-daemon
	drive codex codex "Trust this folder?" "Ask Codex to do anything" C-c
	if grep -A1 -F "[projects.\"$P\"]" "$CODEX_SANDBOX_HOME/config.toml" | grep -q 'trust_level = "trusted"'; then
		ok "codex: the trust is saved in its sandbox CODEX_HOME"
	else
		not_ok "codex: the trust is saved in its sandbox CODEX_HOME" "$(cat "$CODEX_SANDBOX_HOME/config.toml")"
	fi
	out=$(cd "$P" && env -i PATH=/usr/bin:/bin HOME="$H" "$LANDRUN" --profile codex \
		--rox "$CX_DIR/node_modules/@openai" -- "$CX_DIR/node_modules/.bin/codex" --version 2>&1)
	if [ $? = 0 ] && echo "$out" | grep -q "^codex-cli $LR_CODEX_VERSION"; then
		ok "codex: the npm package's node_modules/.bin/codex --version (--rox of the package)"
	else
		not_ok "codex: the npm package's node_modules/.bin/codex --version (--rox of the package)" "$out"
	fi
	;;
2) skip "codex" "npm registry unreachable (@openai/codex is not installed in $LR_CACHE)" ;;
*) not_ok "codex: install @openai/codex@$LR_CODEX_VERSION" ;;
esac

# ---------------------------------------------------------------- Claude Code

case $CL_RC in
0)
	CL=$(readlink -f "$CL_DIR/node_modules/.bin/claude")	# native (the postinstall's)
	echo "# claude $("$CL" --version 2>/dev/null) at $CL"
	ln -s "$CL" "$W/bin/claude"
	# Onboarding done and the API key approved (its last 20 characters, or
	# the whole key when shorter): the profile holds ANTHROPIC_API_KEY
	# outside, so what Claude Code sees is landrun's placeholder; the
	# folder trust is left to the keystroke.
	echo '{"hasCompletedOnboarding": true,
 "customApiKeyResponses": {"approved": ["landrun-placeholder"], "rejected": []}}' \
		>"$CLAUDE_SANDBOX_DIR/.claude.json"
	tui claude claude
	drive claude claude-code "Yes, I trust this folder" "? for shortcuts" C-c C-c
	if python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["projects"][sys.argv[2]]["hasTrustDialogAccepted"] else 1)' \
		"$CLAUDE_SANDBOX_DIR/.claude.json" "$P" 2>/dev/null; then
		ok "claude: the trust is saved in its sandbox CLAUDE_CONFIG_DIR"
	else
		not_ok "claude: the trust is saved in its sandbox CLAUDE_CONFIG_DIR" \
			"$(head -c 1000 "$CLAUDE_SANDBOX_DIR/.claude.json")"
	fi
	out=$(cd "$P" && env -i PATH=/usr/bin:/bin HOME="$H" "$LANDRUN" -- \
		"$CL_DIR/node_modules/.bin/claude" --version 2>&1)
	if [ $? = 0 ] && echo "$out" | grep -q "^$LR_CLAUDE_VERSION (Claude Code)"; then
		ok "claude: the npm package's node_modules/.bin/claude --version, no flags"
	else
		not_ok "claude: the npm package's node_modules/.bin/claude --version, no flags" "$out"
	fi
	;;
2) skip "claude" "npm registry unreachable (@anthropic-ai/claude-code is not installed in $LR_CACHE)" ;;
*) not_ok "claude: install @anthropic-ai/claude-code@$LR_CLAUDE_VERSION" ;;
esac

# ---------------------------------------------------------------- the user's own

lr_codex_claude_home_untouched "$H"
if [ "$(git -C "$P" status --porcelain)" = "" ]; then ok "the repository is unchanged"; else
	not_ok "the repository is unchanged" "$(git -C "$P" status --porcelain)"
fi
if ! grep -q tui-secret-1f0c "$LOG"; then ok "the secret of .env is in no request"; else
	not_ok "the secret of .env is in no request"
fi

echo "# total $(lr_since "$T0") s"
tap_end
