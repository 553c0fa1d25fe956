#!/bin/bash
# SPDX-License-Identifier: MIT
#
# opencode-tui.sh [LANDRUN] - OpenCode's TUI under `landrun --profile
# opencode`, in a terminal (a private tmux server): it must draw its prompt,
# take a typed message, and show the fake model's answer.  TAP output.
# Skipped only when OpenCode is not installed and the npm registry cannot be
# reached.  tmux is installed from Debian when missing (as root).

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
LANDRUN=$(realpath "${1:-$HERE/../../build/landrun}")
. "$HERE/lib.sh"

T0=$(date +%s.%N)
elapsed() { echo "$(date +%s.%N) - $T0" | bc | xargs printf '%.1f'; }

[ -x "$LANDRUN" ] || { echo "1..0 # landrun not found at $LANDRUN"; exit 1; }
lr_need_apt tmux tmux || { echo "Bail out! tmux is needed (apt-get install tmux)"; exit 1; }
dir=$(lr_npm_install opencode-ai "$LR_OPENCODE_VERSION")
case $? in
0) ;;
2) skip_all "npm registry unreachable (opencode-ai is not installed in $LR_CACHE)" ;;
*) echo "Bail out! could not install opencode-ai@$LR_OPENCODE_VERSION"; exit 1 ;;
esac
OC=$(lr_opencode_bin "$dir") || { echo "Bail out! no runnable opencode binary in $dir"; exit 1; }
echo "# opencode $("$OC" --version 2>/dev/null) at $OC"

W=$(mktemp -d /tmp/landrun-opencode-tui.XXXXXX) || exit 1
TMUX_SOCK=landrun-test-$$
SERVER=
cleanup() {
	tmux -L "$TMUX_SOCK" kill-server 2>/dev/null
	[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null
	if [ -n "${LANDRUN_KEEP:-}" ]; then echo "# kept $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT

H=$W/home P=$W/proj
mkdir -p "$H/.config/opencode" "$H/.local/share/opencode" "$H/.cache/opencode" \
	"$H/.local/state/opencode" "$P/src" "$P/workspace" || exit 1
echo 'SECRET_TOKEN=tui-secret' >"$P/.env"
echo '[]' >"$W/script.json"		# no tool calls: the model answers with text

python3 "$HERE/fake_model.py" --script "$W/script.json" --log "$W/requests.jsonl" \
	--port-file "$W/port" --lifetime 300 &
SERVER=$!
lr_wait_file "$W/port" 10 || { echo "Bail out! the fake model server did not start"; exit 1; }
PORT=$(cat "$W/port")
lr_opencode_config "$H" "$PORT"

cat >"$W/run.sh" <<EOF
cd "$P/workspace" || exit 1
env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$H" TERM=xterm-256color LANG=C.UTF-8 \\
	OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_SHARE=1 \\
	OPENCODE_DISABLE_LSP_DOWNLOAD=1 OPENCODE_DISABLE_CLAUDE_CODE=1 \\
	"$LANDRUN" --profile opencode --ro ../src --rw ../workspace --connect-tcp $PORT -- "$OC" \\
	2>"$W/stderr"
echo "LANDRUN-TUI-EXITED \$?"
sleep 600
EOF

screen() { tmux -L "$TMUX_SOCK" capture-pane -p -t tui 2>/dev/null; }
wait_for() { # TEXT SECONDS
	local i
	for i in $(seq 1 $(($2 * 2))); do
		screen | grep -qF -- "$1" && return 0
		screen | grep -q LANDRUN-TUI-EXITED && return 1
		sleep 0.5
	done
	return 1
}

tmux -L "$TMUX_SOCK" -f /dev/null new-session -d -s tui -x 120 -y 40 "bash $W/run.sh"
T1=$(date +%s.%N)
if wait_for "Ask anything" 90; then
	ok "the TUI draws its prompt ($(echo "$(date +%s.%N) - $T1" | bc | xargs printf '%.1f') s)"
else
	not_ok "the TUI draws its prompt" "$(screen | grep -v '^ *$')" "$(tail -n 20 "$W/stderr")"
fi
if screen | grep -q "Fake model"; then ok "it shows the model of the read-only configuration"; else
	not_ok "it shows the model of the read-only configuration" "$(screen | grep -v '^ *$')"
fi
tmux -L "$TMUX_SOCK" send-keys -t tui "hello from the landrun test"
sleep 1
tmux -L "$TMUX_SOCK" send-keys -t tui Enter
T2=$(date +%s.%N)
if wait_for "All scripted steps are done." 90; then
	ok "a typed message reaches the model and its answer is drawn ($(echo "$(date +%s.%N) - $T2" | bc | xargs printf '%.1f') s)"
else
	not_ok "a typed message reaches the model and its answer is drawn" \
		"$(screen | grep -v '^ *$')" "$(tail -n 20 "$W/stderr")"
fi
if grep -q "hello from the landrun test" "$W/requests.jsonl" 2>/dev/null; then
	ok "the model received the typed message"
else
	not_ok "the model received the typed message"
fi
if screen | grep -q LANDRUN-TUI-EXITED; then
	not_ok "the TUI is still running" "$(screen | grep -v '^ *$')"
else
	ok "the TUI is still running"
fi
tmux -L "$TMUX_SOCK" kill-session -t tui 2>/dev/null
echo "# total $(elapsed) s"
tap_end
