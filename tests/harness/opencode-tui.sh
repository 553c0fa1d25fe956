#!/bin/bash
# SPDX-License-Identifier: MIT
#
# opencode-tui.sh [LANDRUN] [--as-nobody] - OpenCode's TUI under
# `landrun --profile opencode`, in a terminal (a private tmux server): it
# must draw its prompt, take a typed message, show the fake model's answer,
# and quit on Ctrl+C with status 0.  With --as-nobody (as root) it runs as
# uid 65534.  TAP output.  Skipped only when OpenCode is not installed and
# the npm registry cannot be reached.  tmux is installed from Debian when
# missing (as root).

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
lr_args "$@"

T0=$(date +%s.%N)

lr_need_apt tmux tmux || { echo "Bail out! tmux is needed (apt-get install tmux)"; exit 1; }
dir=$(lr_npm_install opencode-ai "$LR_OPENCODE_VERSION")
case $? in
0) ;;
2) skip_all "npm registry unreachable (opencode-ai is not installed in $LR_CACHE)" ;;
*) echo "Bail out! could not install opencode-ai@$LR_OPENCODE_VERSION"; exit 1 ;;
esac
OC=$(lr_opencode_bin "$dir") || { echo "Bail out! no runnable opencode binary in $dir"; exit 1; }
lr_become_nobody
echo "# opencode $("$OC" --version 2>/dev/null) at $OC"

lr_workdir opencode-tui

H=$W/home P=$W/proj
mkdir -p "$H/.config/opencode" "$H/.local/share/opencode" "$H/.cache/opencode" \
	"$H/.local/state/opencode" "$P/src" "$P/workspace" || exit 1
lr_profiles "$H" || exit 1
echo 'SECRET_TOKEN=tui-secret' >"$P/.env"
echo '[]' >"$W/script.json"		# no tool calls: the model answers with text

python3 "$HERE/fake_model.py" --script "$W/script.json" --log "$W/requests.jsonl" \
	--port-file "$W/port" --lifetime 300 &
SERVER=$!
lr_wait_file "$W/port" "$LR_WAIT" || { echo "Bail out! the fake model server did not start"; exit 1; }
PORT=$(cat "$W/port")
lr_opencode_config "$H" "$PORT"

lr_tui_start tui "$W" "$P/workspace" \
	env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$H" TERM=xterm-256color LANG=C.UTF-8 \
	OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_SHARE=1 \
	OPENCODE_DISABLE_LSP_DOWNLOAD=1 OPENCODE_DISABLE_CLAUDE_CODE=1 \
	"$LANDRUN" --profile opencode --ro ../src --rw ../workspace --connect-tcp "$PORT" -- "$OC"
T1=$(date +%s.%N)
if lr_wait_screen tui "Ask anything" $((LR_WAIT * 3)); then
	ok "the TUI draws its prompt ($(lr_since "$T1") s)"
else
	not_ok "the TUI draws its prompt" "$(lr_screen_text tui)" "$(tail -n 20 "$W/tui.stderr")"
fi
if lr_screen tui | grep -q "Fake model"; then ok "it shows the model of the read-only configuration"; else
	not_ok "it shows the model of the read-only configuration" "$(lr_screen_text tui)"
fi
tmp=$(lr_tui_tmpdir tui)
lr_type_text tui "hello from the landrun test" ||
	not_ok "the typed message is drawn in the prompt" "$(lr_screen_text tui)"
lr_tmux send-keys -t tui Enter
T2=$(date +%s.%N)
if lr_wait_screen tui "All scripted steps are done." $((LR_WAIT * 3)); then
	ok "a typed message reaches the model and its answer is drawn ($(lr_since "$T2") s)"
else
	not_ok "a typed message reaches the model and its answer is drawn" \
		"$(lr_screen_text tui)" "$(tail -n 20 "$W/tui.stderr")"
fi
if grep -q "hello from the landrun test" "$W/requests.jsonl" 2>/dev/null; then
	ok "the model received the typed message"
else
	not_ok "the model received the typed message"
fi
if lr_screen tui | grep -q LANDRUN-TUI-EXITED; then
	not_ok "the TUI is still running" "$(lr_screen_text tui)"
else
	ok "the TUI is still running"
fi
lr_tmux send-keys -t tui C-c
st=$(lr_tui_status tui "$LR_WAIT")
if [ "$st" = 0 ]; then ok "Ctrl+C quits it, exit 0"; else
	not_ok "Ctrl+C quits it, exit 0 (${st:-still running})" "$(lr_screen_text tui)" \
		"$(tail -n 20 "$W/tui.stderr")"
fi
case $tmp in
/tmp/landrun.[0-9]*.??????/tmp) ok "its TMPDIR was a new private one ($tmp)"; rm -rf "${tmp%/tmp}" ;;
*) not_ok "its TMPDIR was a new private one (${tmp:-none seen})" ;;
esac
echo "# total $(lr_since "$T0") s"
tap_end
