#!/bin/bash
# SPDX-License-Identifier: MIT
#
# opencode-repo.sh [LANDRUN] [--as-nobody] - the real OpenCode as a user
# drops landrun in front of it, with no flags, in a realistic repository:
#
#   cd webapp && landrun --connect-tcp PORT -- opencode run "..."
#
# (--connect-tcp only for the fake model on loopback: a hosted model needs
# nothing, 443 is in the profile).  landrun picks the opencode profile from
# the command's name and grants the current directory as the project.  The
# repository has what a real one has at its root:
#
#   package.json (an npm "test" script), Makefile (make test), .gitignore,
#   src/add.js and src/add.test.js (node's test runner), .git (a real
#   repository with a commit), .env (a secret, ignored by git)
#
# The fake model (fake_model.py, scripted tool calls) makes the agent edit a
# root file and a source file, create a source file, run the project's tests
# (npm test, make test) and git diff; then read .env (read tool, cat), write
# .git/config and .git/hooks/pre-commit (write tool and bash) and commit.
# Checked from outside: the edits landed, the test output and the diff
# reached the model, the secret reached no request, .git is unchanged, the
# user's own OpenCode directories are untouched.  TAP output.  Skipped only
# when OpenCode is not installed and the npm registry cannot be reached.

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
lr_args "$@"

T0=$(date +%s.%N)

for t in python3:python3 git:git make:make node:nodejs npm:npm; do
	lr_need_apt "${t%%:*}" "${t#*:}" || { echo "Bail out! ${t%%:*} is needed (apt-get install ${t#*:})"; exit 1; }
done
dir=$(lr_npm_install opencode-ai "$LR_OPENCODE_VERSION")
case $? in
0) ;;
2) skip_all "npm registry unreachable (opencode-ai is not installed in $LR_CACHE)" ;;
*) echo "Bail out! could not install opencode-ai@$LR_OPENCODE_VERSION"; exit 1 ;;
esac
OC=$(lr_opencode_bin "$dir") || { echo "Bail out! no runnable opencode binary in $dir"; exit 1; }
lr_become_nobody
echo "# opencode $("$OC" --version 2>/dev/null) at $OC (ready after $(lr_since "$T0") s)"
echo "# landrun $LANDRUN: $("$LANDRUN" --version 2>&1 | head -n 1)"

lr_workdir opencode-repo

# ---------------------------------------------------------------- the user

# HOME with the user's own OpenCode data, cache and state (which the
# sandbox must leave alone: they hold code the unconfined OpenCode runs),
# and `opencode` on PATH as the npm package's postinstall links it.
H=$W/home P=$W/webapp
mkdir -p "$H/.config/opencode" "$H/.local/share/opencode" "$H/.cache/opencode/bin" \
	"$H/.local/state/opencode" "$W/bin" "$P/src" || exit 1
lr_profiles "$H" || exit 1
echo '{"fake": {"type": "api", "key": "users-own-key"}}' >"$H/.local/share/opencode/auth.json"
echo '{"recent": []}' >"$H/.local/state/opencode/model.json"
printf '#!/bin/sh\nexit 0\n' >"$H/.cache/opencode/bin/rg" && chmod 755 "$H/.cache/opencode/bin/rg"
ln -s "$OC" "$W/bin/opencode" || exit 1

# ---------------------------------------------------------------- the repository

SECRET=sk-landrun-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
cat >"$P/package.json" <<'EOF'
{
  "name": "webapp",
  "version": "1.0.0",
  "private": true,
  "scripts": {
    "test": "node --test src/"
  }
}
EOF
cat >"$P/Makefile" <<'EOF'
test:
	node --test src/
EOF
printf '.env\nnode_modules/\n' >"$P/.gitignore"
cat >"$P/src/add.js" <<'EOF'
function add(a, b) {
	return a + b;
}
module.exports = { add };
EOF
cat >"$P/src/add.test.js" <<'EOF'
const test = require('node:test');
const assert = require('node:assert');
const { add } = require('./add.js');
test('add adds', () => assert.strictEqual(add(2, 3), 5));
EOF
printf 'SECRET_TOKEN=%s\n' "$SECRET" >"$P/.env"
git() { command git -c user.name=Dev -c user.email=dev@example.org -c init.defaultBranch=main "$@"; }
(cd "$P" && git init -q && git add -A && git commit -qm "first commit") ||
	{ echo "Bail out! git init or commit failed in $P"; exit 1; }
HEAD0=$(git -C "$P" rev-parse HEAD)
git_state() { # the parts of .git that code runs from, and the history
	(cd "$P/.git" && sha256sum config && ls -la hooks | sed 1d && cat HEAD refs/heads/main)
}
git_state >"$W/git.before"

# ---------------------------------------------------------------- the model

python3 "$HERE/fake_model.py" --script "$W/script.json" --log "$W/requests.jsonl" \
	--port-file "$W/port" --lifetime 300 &
SERVER=$!
lr_wait_file "$W/port" "$LR_WAIT" || { echo "Bail out! the fake model server did not start"; exit 1; }
PORT=$(cat "$W/port")

# One tool call per step, relative paths as an agent gives them (the read,
# write and edit tools resolve them in the project); a bash step prints
# LR-EXIT=<status> last.  OpenCode edits or overwrites only a file read
# before in the session, so each such step reads it first.
python3 - "$W/script.json" <<'EOF'
import json, os, sys
bash = lambda cmd: {"name": "bash", "arguments": {"command": cmd + "; echo LR-EXIT=$?",
                                                 "description": "landrun test step"}}
read = lambda path: {"name": "read", "arguments": {"filePath": path}}
write = lambda path, text: {"name": "write", "arguments": {"filePath": path, "content": text}}
edit = lambda path, old, new: {"name": "edit", "arguments": {"filePath": path, "oldString": old,
                                                            "newString": new}}
hook = "#!/bin/sh\ntouch /tmp/landrun-hook-ran\n"
steps = [
    read("package.json"),                                                      # 1
    edit("package.json", '"version": "1.0.0"', '"version": "1.1.0"'),          # 2
    read("src/add.js"),                                                        # 3
    edit("src/add.js", "return a + b;", "return a + b; // EDITED-BY-AGENT"),   # 4
    write("src/sub.js", "module.exports = { sub: (a, b) => a - b };\n"),       # 5
    bash("npm test"),                                                          # 6
    bash("make test"),                                                         # 7
    bash("git diff"),                                                          # 8
    read(".env"),                                                              # 9
    bash("cat .env"),                                                          # 10
    read(".git/config"),                                                       # 11
    write(".git/config", "[core]\n\tfsmonitor = touch /tmp/landrun-fsmonitor-ran\n"),  # 12
    bash("git config core.hooksPath /tmp"),                                    # 13
    write(".git/hooks/pre-commit", hook),                                      # 14
    bash("printf '%s' '" + hook + "' > .git/hooks/pre-commit"),                # 15
    bash("git -c user.name=A -c user.email=a@example.org commit -qam agent"),  # 16
    bash('echo "TMPDIR=$TMPDIR"'),                                             # 17
]
with open(sys.argv[1] + ".tmp", "w") as f:
    json.dump(steps, f, indent=1)
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
EOF

lr_opencode_config "$H" "$PORT" '"$schema": "https://opencode.ai/config.json"' \
	'"permission": { "*": "allow" }'
touch "$W/before"
snapshot_user() { (cd "$H" && find .local/share/opencode .cache/opencode .local/state/opencode \
	-printf '%p %s %T@\n' | sort); }
snapshot_user >"$W/user.before"

# ---------------------------------------------------------------- the run

echo "# cd $P && landrun --connect-tcp $PORT -- opencode run ... ($(lr_since "$T0") s)"
T1=$(date +%s.%N)
(cd "$P" && env -i PATH="$W/bin:/usr/local/bin:/usr/bin:/bin" HOME="$H" TERM=dumb LANG=C.UTF-8 \
	OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_SHARE=1 \
	OPENCODE_DISABLE_LSP_DOWNLOAD=1 OPENCODE_DISABLE_CLAUDE_CODE=1 \
	timeout 240 "$LANDRUN" --connect-tcp "$PORT" -- opencode run "Work on this project." \
	>"$W/stdout" 2>"$W/stderr")
RC=$?
echo "# opencode run: exit $RC after $(lr_since "$T1") s"

LOG=$W/requests.jsonl
lr_read_results "$LOG" "$W/results"
hide() { sed "s/$SECRET/<SECRET>/g"; }

if [ "$RC" = 0 ]; then ok "landrun -- opencode run exits 0"; else
	oclog=$(ls -t "$H"/.local/share/landrun/opencode/log/*.log 2>/dev/null | head -n 1)
	not_ok "landrun -- opencode run exits 0 (exit $RC)" "$(tail -n 20 "$W/stderr" | hide)" \
		"opencode's log ${oclog:-(none)}:" "$([ -n "$oclog" ] && tail -n 30 "$oclog" | hide)"
fi
line=$(grep '^landrun: ' "$W/stderr" | head -n 1)
if echo "$line" | grep -qF "profile opencode (the default for this command), project $P" &&
	echo "$line" | grep -qF 'kept out: .env' && echo "$line" | grep -q 'read-only: [^;]*\.git'; then
	ok "its line on stderr names the opencode profile, the project, .env kept out, .git read-only"
else
	not_ok "its line on stderr names the opencode profile, the project, .env kept out, .git read-only" \
		"$(head -n 5 "$W/stderr")"
fi
if result 17 >/dev/null; then ok "every scripted step was answered"; else
	not_ok "every scripted step was answered" "$(tail -n 20 "$W/stdout" | hide)" \
		"$(tail -n 20 "$W/stderr" | hide)"
fi

# 1-5: the edits and the new file
if grep -q '"version": "1.1.0"' "$P/package.json"; then
	ok "edit tool: package.json at the root is edited"
else
	not_ok "edit tool: package.json at the root is edited" "$(result 2)"
fi
if grep -q 'EDITED-BY-AGENT' "$P/src/add.js"; then ok "edit tool: src/add.js is edited"; else
	not_ok "edit tool: src/add.js is edited" "$(result 4)"
fi
if grep -q 'sub:' "$P/src/sub.js" 2>/dev/null; then ok "write tool: a new file in src/ is written"; else
	not_ok "write tool: a new file in src/ is written" "$(result 5)"
fi
# 6, 7: the project's tests, and their output reached the model
for s in "6 npm test" "7 make test"; do
	if has "${s%% *}" '# pass 1' && has "${s%% *}" 'LR-EXIT=0'; then
		ok "bash tool: ${s#* } passes, its output reached the model"
	else
		not_ok "bash tool: ${s#* } passes, its output reached the model" "$(result "${s%% *}" | hide)"
	fi
done
# 8: git diff shows both edits
if has 8 '^+.*"version": "1.1.0"' && has 8 '^+.*EDITED-BY-AGENT' && has 8 'LR-EXIT=0'; then
	ok "bash tool: git diff shows both edits to the model"
else
	not_ok "bash tool: git diff shows both edits to the model" "$(result 8 | hide)"
fi
# 9, 10: .env
if result 9 >/dev/null && ! has 9 "$SECRET" && has 9 'PermissionDenied\|denied\|EACCES'; then
	ok "read tool: .env is denied"
else
	not_ok "read tool: .env is denied" "$(result 9 | hide)"
fi
if bash_failed 10 && has 10 'Permission denied' && ! has 10 "$SECRET"; then
	ok "bash tool: cat .env is denied"
else
	not_ok "bash tool: cat .env is denied" "$(result 10 | hide)"
fi
if [ -s "$LOG" ] && ! grep -qF "$SECRET" "$LOG"; then
	ok "the secret of .env is in no request to the model"
else
	not_ok "the secret of .env is in no request to the model"
fi
# 11-16: .git is readable, not writable
if has 11 'repositoryformatversion'; then ok "read tool: .git/config is readable"; else
	not_ok "read tool: .git/config is readable" "$(result 11)"
fi
if result 12 >/dev/null && has 12 'PermissionDenied\|denied\|EACCES'; then
	ok "write tool: .git/config is denied"
else
	not_ok "write tool: .git/config is denied" "$(result 12)"
fi
if bash_failed 13 && has 13 'could not lock config file .git/config: Permission denied'; then
	ok "bash tool: git config cannot write .git/config"
else
	not_ok "bash tool: git config cannot write .git/config" "$(result 13)"
fi
if result 14 >/dev/null && has 14 'PermissionDenied\|denied\|EACCES'; then
	ok "write tool: .git/hooks/pre-commit is denied"
else
	not_ok "write tool: .git/hooks/pre-commit is denied" "$(result 14)"
fi
if bash_failed 15 && has 15 'Permission denied'; then
	ok "bash tool: writing .git/hooks/pre-commit is denied"
else
	not_ok "bash tool: writing .git/hooks/pre-commit is denied" "$(result 15)"
fi
if bash_failed 16 && has 16 "index.lock': Permission denied"; then
	ok "bash tool: git commit cannot write .git"
else
	not_ok "bash tool: git commit cannot write .git" "$(result 16)"
fi
git_state >"$W/git.after"
if cmp -s "$W/git.before" "$W/git.after" && [ "$(git -C "$P" rev-parse HEAD)" = "$HEAD0" ]; then
	ok ".git/config, .git/hooks and the history are unchanged"
else
	not_ok ".git/config, .git/hooks and the history are unchanged" \
		"$(diff "$W/git.before" "$W/git.after")"
fi
# What changed in the project: the three files, and nothing else.
changed=$(cd "$P" && find . -newer "$W/before" -type f | sort | tr '\n' ' ')
if [ "$changed" = "./package.json ./src/add.js ./src/sub.js " ]; then
	ok "in the project only package.json, src/add.js and src/sub.js changed"
else
	not_ok "in the project only package.json, src/add.js and src/sub.js changed" "changed: $changed"
fi
# The user's own OpenCode directories, and its state in the sandbox's own.
snapshot_user >"$W/user.after"
if cmp -s "$W/user.before" "$W/user.after" &&
	[ -z "$(find "$H/.config" -newer "$W/before")" ]; then
	ok "the user's own OpenCode data, cache, state and configuration are untouched"
else
	not_ok "the user's own OpenCode data, cache, state and configuration are untouched" \
		"$(diff "$W/user.before" "$W/user.after")" "$(find "$H/.config" -newer "$W/before")"
fi
if [ -n "$(ls -A "$H/.local/share/landrun/opencode/data/opencode" 2>/dev/null)" ]; then
	ok "its data went to ~/.local/share/landrun/opencode"
else
	not_ok "its data went to ~/.local/share/landrun/opencode" \
		"$(ls -la "$H/.local/share/landrun/opencode" 2>&1)"
fi
if ! grep -q users-own-key "$LOG"; then ok "the user's own auth.json key is in no request"; else
	not_ok "the user's own auth.json key is in no request"
fi

# 17: without a TMPDIR it got a private one (removed here: nothing else does)
tmp=$(result 17 | lr_private_tmp)
if [ -n "$tmp" ]; then ok "its TMPDIR is a new private one ($tmp)"; else
	not_ok "its TMPDIR is a new private one" "$(result 17)"
fi
[ -n "$tmp" ] && rm -rf "$tmp"

echo "# checks done, total $(lr_since "$T0") s"
tap_end
