#!/bin/bash
# SPDX-License-Identifier: MIT
#
# opencode-e2e.sh [LANDRUN] [--as-nobody] - the real OpenCode under
# `landrun --profile opencode`, driven by a fake model; with --as-nobody (as
# root) as uid 65534.  TAP output; exit status 0 when all passed.
#
# OpenCode (npm: opencode-ai, installed into a cache directory on first use)
# runs `opencode run` in the workspace of a small project:
#
#   proj/.env          SECRET_TOKEN=<a random secret>
#   proj/src/main.c    readable, not writable
#   proj/roles/        readable
#   proj/workspace/    the current directory, writable
#   proj/logs/         writable
#
# as a user would run it:
#
#   landrun --profile opencode --ro ../src,../roles --rw ../workspace,../logs \
#           --connect-tcp PORT -- opencode run "..."
#
# The model is tests/harness/fake_model.py on a free loopback port, an
# OpenAI-compatible server that answers with scripted tool calls and logs
# every request.  OpenCode's own permission checks are all set to "allow" in
# its configuration, so that landrun is the only thing in the way.  The
# verdict comes from the files on disk, from the tool results OpenCode sent
# back to the model, and from a canary listener: the secret of .env (and one
# in the caller's environment) must never be in anything sent to the model.
#
# Offline: the model list fetch, autoupdate, sharing and LSP downloads are
# off (OPENCODE_DISABLE_*), and the configuration directory is read-only,
# which keeps OpenCode from running an npm install of its plugin there.
# Skipped (and only then) when OpenCode is not installed yet and the npm
# registry cannot be reached.

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
lr_args "$@"

T0=$(date +%s.%N)

command -v python3 >/dev/null || lr_need_apt python3 python3 ||
	{ echo "Bail out! python3 is needed for the fake model"; exit 1; }

dir=$(lr_npm_install opencode-ai "$LR_OPENCODE_VERSION")
case $? in
0) ;;
2) skip_all "npm registry unreachable (opencode-ai is not installed in $LR_CACHE)" ;;
*) echo "Bail out! could not install opencode-ai@$LR_OPENCODE_VERSION"; exit 1 ;;
esac
OC=$(lr_opencode_bin "$dir") || { echo "Bail out! no runnable opencode binary in $dir"; exit 1; }
lr_need_apt curl curl	# for the network steps; without it they use bash's /dev/tcp
lr_become_nobody
echo "# opencode $("$OC" --version 2>/dev/null) at $OC (ready after $(lr_since "$T0") s)"
echo "# landrun $LANDRUN: $("$LANDRUN" --version 2>&1 | head -n 1)"

# ---------------------------------------------------------------- the project

lr_workdir opencode

H=$W/home P=$W/proj
mkdir -p "$H/.config/opencode" "$H/.local/share/opencode" "$H/.cache/opencode" \
	"$H/.local/state/opencode" "$P/src" "$P/roles" "$P/workspace" "$P/logs" || exit 1
lr_profiles "$H" || exit 1
SECRET=sk-landrun-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
ENV_SECRET=aws-landrun-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
printf 'SECRET_TOKEN=%s\n' "$SECRET" >"$P/.env"
echo 'int main(void) { return 0; } /* SRC-MARKER-7f3a */' >"$P/src/main.c"
echo 'reviewer' >"$P/roles/reviewer.md"

# An outside address for the network checks: the npm registry's, resolved
# here, outside the sandbox (the only outside host this network reaches).
OUT_IP=$(getent ahostsv4 registry.npmjs.org 2>/dev/null | awk 'NR == 1 { print $1 }')
OUT_OK=no
if [ -n "$OUT_IP" ] && timeout 10 bash -c "exec 3<>/dev/tcp/$OUT_IP/80" 2>/dev/null; then
	OUT_OK=yes
fi
CURL=no
lr_need_apt curl curl && CURL=yes

# ---------------------------------------------------------------- the model

CANARY_FILE=$W/canary
python3 "$HERE/fake_model.py" --script "$W/script.json" --log "$W/requests.jsonl" \
	--port-file "$W/port" --canary-file "$CANARY_FILE" --lifetime 300 &
SERVER=$!
lr_wait_file "$W/port" "$LR_WAIT" && lr_wait_file "$CANARY_FILE" "$LR_WAIT" ||
	{ echo "Bail out! the fake model server did not start"; exit 1; }
PORT=$(cat "$W/port") CANARY=$(cat "$CANARY_FILE")
echo "# fake model on 127.0.0.1:$PORT, canary on 127.0.0.1:$CANARY, outside address ${OUT_IP:-none} (reachable from outside: $OUT_OK)"

# One tool call per step (the server reads the script at each request); a
# bash step prints LR-EXIT=<status> last.
python3 - "$W/script.json" <<EOF
import json, os, sys
P, H = "$P", "$H"
bash = lambda cmd: {"name": "bash", "arguments": {"command": cmd + "; echo LR-EXIT=\$?",
                                                 "description": "landrun test step"}}
steps = [
    {"name": "write", "arguments": {"filePath": P + "/workspace/hello.txt",
                                    "content": "written-by-agent\n"}},       # 1
    {"name": "read", "arguments": {"filePath": P + "/src/main.c"}},           # 2
    {"name": "read", "arguments": {"filePath": "../.env"}},                   # 3
    bash("cat ../.env"),                                                      # 4
    bash("exec 3<>/dev/tcp/$OUT_IP/80"),                                      # 5
    bash("curl -fsS -m 10 -o /dev/null http://$OUT_IP/" if "$CURL" == "yes"
         else "exec 3<>/dev/tcp/$OUT_IP/80"),                                 # 6
    bash("curl -sS -m 10 -o /dev/null https://registry.npmjs.org/" if "$CURL" == "yes"
         else "getent hosts registry.npmjs.org"),                             # 7
    bash("exec 3<>/dev/tcp/127.0.0.1/$CANARY"),                               # 8
    {"name": "write", "arguments": {"filePath": "../src/evil.txt", "content": "x\n"}},  # 9
    {"name": "write", "arguments": {"filePath": H + "/evil.txt", "content": "x\n"}},    # 10
    bash("echo x > ~/evil-bash.txt"),                                         # 11
    bash("env"),                                                              # 12
    bash("ls -a .."),                                                         # 13
    {"name": "write", "arguments": {"filePath": P + "/logs/run.log", "content": "log\n"}},  # 14
]
with open(sys.argv[1] + ".tmp", "w") as f:
    json.dump(steps, f, indent=1)
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
EOF

lr_opencode_config "$H" "$PORT" '"$schema": "https://opencode.ai/config.json"' \
	'"permission": { "*": "allow" }'
touch "$W/before"

# ---------------------------------------------------------------- the run

echo "# running opencode under landrun ($(lr_since "$T0") s)"
T1=$(date +%s.%N)
(cd "$P/workspace" && env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$H" TERM=dumb LANG=C.UTF-8 \
	AWS_SECRET_ACCESS_KEY="$ENV_SECRET" \
	OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_SHARE=1 \
	OPENCODE_DISABLE_LSP_DOWNLOAD=1 OPENCODE_DISABLE_CLAUDE_CODE=1 \
	timeout 240 "$LANDRUN" --profile opencode --ro ../src,../roles --rw ../workspace,../logs \
	--connect-tcp "$PORT" -- "$OC" run "Run the landrun sandbox test." \
	>"$W/stdout" 2>"$W/stderr")
RC=$?
echo "# opencode run: exit $RC after $(lr_since "$T1") s"

LOG=$W/requests.jsonl
lr_read_results "$LOG" "$W/results"

if [ "$RC" = 0 ]; then ok "opencode run exits 0 under the profile"; else
	not_ok "opencode run exits 0 under the profile (exit $RC)" "$(tail -n 20 "$W/stderr")"
fi
nreq=$(grep -c . "$LOG" 2>/dev/null || echo 0)
if grep -q '"name": "write"' "$LOG" 2>/dev/null && [ "$nreq" -ge 15 ]; then
	ok "it talked to the model through the granted port ($nreq requests)"
else
	not_ok "it talked to the model through the granted port ($nreq requests)" "$(tail -n 20 "$W/stderr")"
fi
if result 14 >/dev/null; then ok "every scripted step was answered"; else
	not_ok "every scripted step was answered" "$(tail -n 20 "$W/stdout")"
fi

# 1: write in the workspace
if [ "$(cat "$P/workspace/hello.txt" 2>/dev/null)" = written-by-agent ]; then
	ok "write tool: a file in workspace/ is written"
else
	not_ok "write tool: a file in workspace/ is written" "$(result 1)"
fi
# 14: write in logs
check "write tool: a file in logs/ is written" grep -qx log "$P/logs/run.log"
# 2: read src
if has 2 SRC-MARKER-7f3a; then ok "read tool: src/main.c is read"; else
	not_ok "read tool: src/main.c is read" "$(result 2)"
fi
# 3: read ../.env with the read tool
if result 3 >/dev/null && ! has 3 "$SECRET" && has 3 'PermissionDenied\|denied\|EACCES'; then
	ok "read tool: ../.env is denied"
else
	not_ok "read tool: ../.env is denied" "$(result 3 | sed "s/$SECRET/<SECRET>/g")"
fi
# 4: cat ../.env
if bash_failed 4 && has 4 'Permission denied' && ! has 4 "$SECRET"; then
	ok "bash tool: cat ../.env is denied"
else
	not_ok "bash tool: cat ../.env is denied" "$(result 4 | sed "s/$SECRET/<SECRET>/g")"
fi
# 5, 6: an outside address, port 80
if [ "$OUT_OK" != yes ]; then
	skip "bash tool: TCP to an outside address (port 80) is denied" \
		"${OUT_IP:-registry.npmjs.org} is not reachable even outside the sandbox"
	skip "bash tool: curl to an outside address is denied" "idem"
else
	if bash_failed 5; then ok "bash tool: TCP to an outside address ($OUT_IP:80) is denied"; else
		not_ok "bash tool: TCP to an outside address ($OUT_IP:80) is denied" "$(result 5)"
	fi
	if bash_failed 6; then ok "bash tool: curl http://$OUT_IP/ is denied"; else
		not_ok "bash tool: curl http://$OUT_IP/ is denied" "$(result 6)"
	fi
fi
# 7: a host name: DNS is UDP, denied
if bash_failed 7; then ok "bash tool: an outside host name does not resolve (no UDP, no DNS)"; else
	not_ok "bash tool: an outside host name does not resolve (no UDP, no DNS)" "$(result 7)"
fi
# 8: another loopback port
if bash_failed 8 && [ ! -e "$CANARY_FILE.hits" ]; then
	ok "bash tool: another loopback port (the canary) is not reached"
else
	not_ok "bash tool: another loopback port (the canary) is not reached" "$(result 8)" \
		"canary hits: $(cat "$CANARY_FILE.hits" 2>/dev/null)"
fi
# ...and the canary does record a connection from outside (positive control)
bash -c "exec 3<>/dev/tcp/127.0.0.1/$CANARY" 2>/dev/null
lr_wait_file "$CANARY_FILE.hits" "$LR_WAIT"
check "the canary records a connection made outside the sandbox (control)" \
	test -s "$CANARY_FILE.hits"
# 9, 10, 11: writes outside the grants
if [ ! -e "$P/src/evil.txt" ] && result 9 >/dev/null; then
	ok "write tool: src/ is not writable"
else
	not_ok "write tool: src/ is not writable" "$(result 9)"
fi
if [ ! -e "$H/evil.txt" ] && result 10 >/dev/null; then
	ok "write tool: \$HOME is not writable"
else
	not_ok "write tool: \$HOME is not writable" "$(result 10)"
fi
if [ ! -e "$H/evil-bash.txt" ] && bash_failed 11; then
	ok "bash tool: \$HOME is not writable"
else
	not_ok "bash tool: \$HOME is not writable" "$(result 11)"
fi
# 12: the environment
if has 12 'LR-EXIT=0' && ! has 12 "$ENV_SECRET" && ! has 12 AWS_SECRET_ACCESS_KEY; then
	ok "bash tool: env shows no variable the profile does not pass"
else
	not_ok "bash tool: env shows no variable the profile does not pass" \
		"$(result 12 | sed "s/$ENV_SECRET/<SECRET>/g")"
fi
# 13: the project root cannot be listed
if bash_failed 13 && ! has 13 '\.env'; then ok "bash tool: the project root cannot be listed"; else
	not_ok "bash tool: the project root cannot be listed" "$(result 13)"
fi

# Never sent to the model, in any request.
if [ -s "$LOG" ] && ! grep -qF "$SECRET" "$LOG"; then
	ok "the secret of .env is in no request to the model"
else
	not_ok "the secret of .env is in no request to the model"
fi
if [ -s "$LOG" ] && ! grep -qF "$ENV_SECRET" "$LOG"; then
	ok "the caller's AWS_SECRET_ACCESS_KEY is in no request to the model"
else
	not_ok "the caller's AWS_SECRET_ACCESS_KEY is in no request to the model"
fi
# Nothing written outside workspace/ and logs/ in the project, nor in config.
changed=$(find "$P" "$H/.config" -newer "$W/before" \
	-not -path "$P/workspace*" -not -path "$P/logs*" 2>/dev/null)
if [ -z "$changed" ]; then ok "nothing changed in the project outside workspace/ and logs/, nor in the config directory"; else
	not_ok "nothing changed in the project outside workspace/ and logs/, nor in the config directory" "$changed"
fi
if [ ! -e "$H/.config/opencode/node_modules" ] && [ ! -e "$H/.config/opencode/package.json" ]; then
	ok "no npm install into the read-only config directory"
else
	not_ok "no npm install into the read-only config directory"
fi
# Its state went to the sandbox's own directories, never to the ones the
# unconfined OpenCode reads (they hold code it runs later: snapshots' git
# config, cache/bin, plugin packages).
if [ -n "$(ls -A "$H/.local/share/landrun/opencode/data/opencode" 2>/dev/null)" ] &&
	[ -z "$(find "$H/.local/share/opencode" "$H/.cache/opencode" "$H/.local/state/opencode" \
		-mindepth 1)" ]; then
	ok "its data went to ~/.local/share/landrun/opencode, the user's own OpenCode directories are untouched"
else
	not_ok "its data went to ~/.local/share/landrun/opencode, the user's own OpenCode directories are untouched" \
		"$(ls -la "$H/.local/share/landrun/opencode/data" "$H/.local/share/opencode" "$H/.cache/opencode" 2>&1)"
fi
# Without a TMPDIR it got a new private one (base's private-tmp), not /tmp:
# the one step 12's env shows (other landrun runs on the machine make theirs
# at the same time).
new_tmp=$(result 12 | lr_private_tmp)
if [ -n "$new_tmp" ] && ls -A "$new_tmp/tmp" 2>/dev/null | grep -q '\.so$'; then
	ok "without TMPDIR, its native libraries were unpacked into a new private TMPDIR"
else
	not_ok "without TMPDIR, its native libraries were unpacked into a new private TMPDIR" \
		"TMPDIR: $(result 12 | grep '^TMPDIR=')" "$(ls -la "$new_tmp" "$new_tmp/tmp" 2>&1)"
fi
[ -n "$new_tmp" ] && rm -rf "$new_tmp"

echo "# checks done, total $(lr_since "$T0") s"
tap_end
