#!/bin/bash
# SPDX-License-Identifier: MIT
#
# codex-claude-smoke.sh [LANDRUN] [--as-nobody] - Codex and Claude Code
# under their profiles: --version and --help run, and each harness, driven
# by the fake model on the granted loopback port (Codex through the
# Responses API, Claude Code through Anthropic's Messages API), writes in the
# workspace through its tools and runs a shell command there, while writing
# to the read-only src/ and reading the project's .env are denied.  With
# --as-nobody (as root) it runs as uid 65534.  TAP output.  A harness that
# is not installed and cannot be (npm registry unreachable) is skipped.

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
lr_args "$@"

CX_DIR=$(lr_npm_install @openai/codex "$LR_CODEX_VERSION")
CX_RC=$?
CL_DIR=$(lr_npm_install @anthropic-ai/claude-code "$LR_CLAUDE_VERSION")
CL_RC=$?
lr_become_nobody

lr_workdir harness-smoke

echo '[]' >"$W/script.json"
python3 "$HERE/fake_model.py" --script "$W/script.json" --log "$W/requests.jsonl" \
	--port-file "$W/port" --lifetime 240 2>"$W/server.err" &
SERVER=$!
lr_wait_file "$W/port" "$LR_WAIT" || { echo "Bail out! the fake model server did not start"; exit 1; }
PORT=$(cat "$W/port")
H=$W/home P=$W/proj
# The user's own ~/.codex and ~/.claude, which the profiles must leave alone,
# and the sandbox's own CODEX_HOME (the profile's), where the fake model's
# configuration goes.
CODEX_SANDBOX_HOME=$H/.local/share/landrun/codex
mkdir -p "$H/.codex" "$H/.claude" "$CODEX_SANDBOX_HOME" "$P/src" "$P/workspace" || exit 1
lr_profiles "$H" || exit 1
echo 'SECRET_TOKEN=smoke-secret' >"$P/.env"
LOG=$W/requests.jsonl

# script JSON: the fake model's tool calls for the next run (it reads the
# script at each request).
script() {
	printf '%s\n' "$1" >"$W/script.json.tmp" && mv "$W/script.json.tmp" "$W/script.json"
}

run() { # PROFILE BIN ARGS... (in the workspace, with a clean environment)
	local profile=$1
	shift
	(cd "$P/workspace" && env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$H" TERM=dumb LANG=C.UTF-8 \
		ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" ANTHROPIC_API_KEY=fake-key \
		DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 \
		timeout 120 "$LANDRUN" --profile "$profile" --ro ../src --rw ../workspace \
		--connect-tcp "$PORT" -- "$@")
}

# ---------------------------------------------------------------- Codex

dir=$CX_DIR
case $CX_RC in
0)
	CX=$(ls "$dir"/node_modules/@openai/codex-linux-*/vendor/*/bin/codex 2>/dev/null | head -n 1)
	if [ -z "$CX" ]; then
		not_ok "codex: the native binary is in the npm package"
	else
		echo "# codex $("$CX" --version 2>/dev/null) at $CX"
		out=$(run codex "$CX" --version 2>&1)
		if [ $? = 0 ] && echo "$out" | grep -q codex; then ok "codex --version"; else
			not_ok "codex --version" "$out"
		fi
		out=$(run codex "$CX" --help 2>&1)
		if [ $? = 0 ] && echo "$out" | grep -q Usage; then ok "codex --help"; else
			not_ok "codex --help" "$out"
		fi
		cat >"$CODEX_SANDBOX_HOME/config.toml" <<EOF
model = "fake-model"
model_provider = "fake"
sandbox_mode = "danger-full-access"
approval_policy = "never"
[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:$PORT/v1"
wire_api = "responses"
EOF
		out=$(run codex "$CX" exec --skip-git-repo-check "say hi" 2>&1)
		if echo "$out" | grep -q "All scripted steps are done." &&
			grep -q '"/v1/responses"' "$LOG"; then
			ok "codex exec starts, reaches the model on the granted port and prints its answer"
		else
			not_ok "codex exec starts, reaches the model on the granted port and prints its answer" "$out"
		fi
		script '[{"name": "exec_command", "arguments": {"cmd": "echo by-codex > codex.txt; cat codex.txt; echo LR-EXIT=$?"}},
 {"name": "exec_command", "arguments": {"cmd": "echo x > ../src/codex-evil.txt; echo LR-EXIT=$?"}},
 {"name": "exec_command", "arguments": {"cmd": "cat ../.env; echo LR-EXIT=$?"}}]'
		: >"$LOG"
		out=$(run codex "$CX" exec --skip-git-repo-check "run the steps" 2>&1)
		lr_read_results "$LOG" "$W/results"
		if [ "$(cat "$P/workspace/codex.txt" 2>/dev/null)" = by-codex ] && has 1 'LR-EXIT=0'; then
			ok "codex exec_command: writes in the workspace"
		else
			not_ok "codex exec_command: writes in the workspace" "$(result 1)" "$out"
		fi
		if [ ! -e "$P/src/codex-evil.txt" ] && has 2 'codex-evil.txt: Permission denied'; then
			ok "codex exec_command: src/ is not writable"
		else
			not_ok "codex exec_command: src/ is not writable" "$(result 2)"
		fi
		if has 3 '\.env: Permission denied' && ! grep -q smoke-secret "$LOG"; then
			ok "codex exec_command: ../.env is denied and never reaches the model"
		else
			not_ok "codex exec_command: ../.env is denied and never reaches the model" "$(result 3)"
		fi
	fi
	;;
2) skip "codex" "npm registry unreachable (@openai/codex is not installed in $LR_CACHE)" ;;
*) not_ok "codex: install @openai/codex@$LR_CODEX_VERSION" ;;
esac

# ---------------------------------------------------------------- Claude Code

dir=$CL_DIR
case $CL_RC in
0)
	CL=
	for c in "$dir"/node_modules/@anthropic-ai/claude-code-linux-*/claude \
		"$dir/node_modules/@anthropic-ai/claude-code/bin/claude.exe"; do
		if [ -x "$c" ] && "$c" --version >/dev/null 2>&1; then CL=$c; break; fi
	done
	if [ -z "$CL" ]; then
		not_ok "claude: a runnable native binary is in the npm package"
	else
		echo "# claude $("$CL" --version 2>/dev/null) at $CL"
		out=$(run claude-code "$CL" --version 2>&1)
		if [ $? = 0 ] && echo "$out" | grep -q 'Claude Code'; then ok "claude --version"; else
			not_ok "claude --version" "$out"
		fi
		out=$(run claude-code "$CL" --help 2>&1)
		if [ $? = 0 ] && echo "$out" | grep -q Usage; then ok "claude --help"; else
			not_ok "claude --help" "$out"
		fi
		script '[]'
		: >"$LOG"
		out=$(run claude-code "$CL" -p "say hi" 2>&1)
		if echo "$out" | grep -q "All scripted steps are done." &&
			grep -q '"/v1/messages' "$LOG"; then
			ok "claude -p starts, reaches the model on the granted port and prints its answer"
		else
			not_ok "claude -p starts, reaches the model on the granted port and prints its answer" "$out"
		fi
		script '[{"name": "Write", "arguments": {"file_path": "'"$P"'/workspace/claude.txt", "content": "by-claude\n"}},
 {"name": "Edit", "arguments": {"file_path": "'"$P"'/workspace/claude.txt", "old_string": "by-claude", "new_string": "edited-by-claude"}},
 {"name": "Bash", "arguments": {"command": "cat claude.txt; echo LR-EXIT=$?", "description": "show the file"}},
 {"name": "Write", "arguments": {"file_path": "'"$P"'/src/claude-evil.txt", "content": "x\n"}},
 {"name": "Bash", "arguments": {"command": "cat ../.env; echo LR-EXIT=$?", "description": "read .env"}}]'
		: >"$LOG"
		out=$(run claude-code "$CL" -p "run the steps" --allowedTools Bash,Write,Edit 2>&1)
		lr_read_results "$LOG" "$W/results"
		if [ "$(cat "$P/workspace/claude.txt" 2>/dev/null)" = edited-by-claude ]; then
			ok "claude Write and Edit tools: a file in the workspace is written and edited"
		else
			not_ok "claude Write and Edit tools: a file in the workspace is written and edited" \
				"$(result 1)" "$(result 2)" "$out"
		fi
		if has 3 edited-by-claude && has 3 'LR-EXIT=0'; then
			ok "claude Bash tool: runs in the workspace"
		else
			not_ok "claude Bash tool: runs in the workspace" "$(result 3)"
		fi
		if [ ! -e "$P/src/claude-evil.txt" ] && has 4 'EACCES'; then
			ok "claude Write tool: src/ is not writable"
		else
			not_ok "claude Write tool: src/ is not writable" "$(result 4)"
		fi
		if has 5 '\.env: Permission denied' && ! grep -q smoke-secret "$LOG"; then
			ok "claude Bash tool: ../.env is denied and never reaches the model"
		else
			not_ok "claude Bash tool: ../.env is denied and never reaches the model" "$(result 5)"
		fi
	fi
	;;
2) skip "claude" "npm registry unreachable (@anthropic-ai/claude-code is not installed in $LR_CACHE)" ;;
*) not_ok "claude: install @anthropic-ai/claude-code@$LR_CLAUDE_VERSION" ;;
esac

# Their state went to the sandbox's own directories: the unconfined harnesses
# read ~/.codex and ~/.claude, and run what they hold.
lr_codex_claude_home_untouched "$H"
if [ -n "$(ls -A "$H/.local/share/landrun/claude-code" 2>/dev/null)" ] &&
	[ -n "$(ls "$CODEX_SANDBOX_HOME" | grep -v '^config.toml$')" ]; then
	ok "their state is in ~/.local/share/landrun/{codex,claude-code}"
else
	not_ok "their state is in ~/.local/share/landrun/{codex,claude-code}" \
		"$(ls -la "$H/.local/share/landrun" "$H/.local/share/landrun"/* 2>&1)"
fi

tap_end
