#!/bin/bash
# SPDX-License-Identifier: MIT
#
# everyday.sh LANDRUN BASE_CONF [--as-nobody] - everyday development under the default
# policy: every command runs as `landrun -- COMMAND` (no grant, no profile:
# `base` and the current directory as the project) in a realistic project,
# and what it did is checked from outside.  TAP output.  BASE_CONF is the
# shipped profiles/base.conf: the copy of landrun under /tmp finds it in the
# caller's profile directory (~/.config/landrun/profiles).
#
#   webapp/   .git .env .gitignore README.md Makefile package.json
#             package-lock.json src/ test/ vendor/ py/ work/
#
#   node      a script that loads https, tls (OpenSSL's configuration, the
#             CA store) and crypto, and writes a file
#   npm       install of a local tarball (made by `npm pack`), npm test, npm ci
#   git       status, diff, log; clone of the project into work/, commit in
#             the clone and log, in one run (as a harness does)
#   python    venv in py/, pip install from a local wheel directory
#   gcc/make  make builds src/hello, which then runs
#   terminal  (tmux) interactive bash with no rc-file error, less on a file
#             and on a pipe, vim editing a file
#   denied    reading .env, writing .git/config (beside controls)
#   the root  a project root that holds .git and .env takes new entries (the
#             broker): npm install's node_modules and lock file, a venv,
#             make's build/, vim's swap file; a clone made in the run is
#             refused unless --allow-protected names it
#
# A tool whose Debian package is not installed is skipped, naming the package
# (scripts/deps.sh installs them).  The private TMPDIR and HOME landrun makes
# under /tmp for each command are found (LANDRUN_LOG_LEVEL=debug, or the
# command's environment for the terminal cases) and removed at the end.

set -u
. "$(dirname "$0")/lib.sh" || exit 2
e2e_start --env-i everyday landrun base.conf -- "$@"

LANDRUN=$BIN/landrun
export PATH=/usr/bin:/bin	# Debian's tools, never a pyenv or nvm shim
export HOME=$TMP/t/home-outside	# the caller's; the commands get one of their own
W=$TMP/t/.work
P=$TMP/t/webapp
SECRET=sk-everyday-$$-$RANDOM
# Started as root, every command runs as uid 65534 (--user) in a project
# that is theirs, as docs/harnesses.md tells root to (Running as root): as uid 0 it
# may not chmod, which git clone, pip and the linker need.
AS_USER=()
RUN_UID=$(id -u)
if [ "$RUN_UID" = 0 ]; then
	AS_USER=(--user 65534:65534)
	RUN_UID=65534
fi
mkdir -p "$HOME/.config/landrun/profiles" "$W" &&
	cp "$BIN/base.conf" "$HOME/.config/landrun/profiles/" || exit 1
: >"$W/private"
e2e_hello "landrun everyday" "landrun $LANDRUN"

# ---------------------------------------------------------------------------
# Running

RC=0
# lr [FLAGS...] -- COMMAND...: landrun from the project (or from $CWD); the
# private directory it makes is noted, its debug lines dropped
lr() {
	(cd "${CWD:-$P}" && LANDRUN_LOG_LEVEL=debug "$LANDRUN" "${AS_USER[@]}" "$@") \
		>"$W/out" 2>"$W/err.all" </dev/null
	RC=$?
	sed -n 's|^landrun: debug: [A-Z]*=\(/tmp/landrun\.[^/]*\)/.*(--private-.*|\1|p' \
		"$W/err.all" >>"$W/private"
	grep -v '^landrun: debug: ' "$W/err.all" >"$W/err"
}
out_has() { grep -qF -- "$1" "$W/out"; }
err_has() { grep -qF -- "$1" "$W/err"; }
no_secret() { ! grep -qF -- "$SECRET" "$W/out" "$W/err"; }

# works DESC [LINE]: the last run exited 0 (and printed LINE, on stdout or stderr)
works() {
	if [ "$RC" = 0 ] && { [ -z "${2:-}" ] || out_has "$2" || err_has "$2"; }; then
		tap_ok "$1"
	else
		tap_not_ok "$1${2:+ (want exit 0 and \"$2\")}"
	fi
}

# denied DESC TEXT: the last run failed, saying TEXT (stdout or stderr)
denied() {
	if [ "$RC" != 0 ] && { out_has "$2" || err_has "$2"; }; then
		tap_ok "$1"
	else
		tap_not_ok "$1 (want a failure saying \"$2\")"
	fi
}

# outside DESC COMMAND...: COMMAND, run outside the sandbox, succeeds (git
# trusting the project, which is uid 65534's when we are root)
outside() {
	local desc=$1
	shift
	if (cd "$P" && export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory \
		GIT_CONFIG_VALUE_0='*' && "$@") >"$W/out" 2>"$W/err"; then
		tap_ok "outside: $desc"
	else
		RC=$?
		tap_not_ok "outside: $desc"
	fi
}

# ---------------------------------------------------------------------------
# The terminal: a tmux server of our own, one pane at a time.  A shell in the
# pane runs landrun and writes its status to a file: tmux itself does not
# always reap a pane's process (seen as uid 65534, with no landrun at all),
# so #{pane_dead_status} cannot be relied on.  The pane stays on exit, so
# that the screen can be read afterwards.

printf 'set -g remain-on-exit on\nset -g exit-empty off\n' >"$TMP/t/tmux.conf"
tm() { SHELL=/bin/bash tmux -S "$TMP/t/tmux.sock" -f "$TMP/t/tmux.conf" "$@"; }
trap 'tm kill-server 2>/dev/null' EXIT
screen() { tm capture-pane -p -J -t tui 2>/dev/null; }
screen_has() { screen | grep -qE -- "$1"; }	# REGEX
screen_lacks() { ! screen | grep -qE -- "$1"; }	# REGEX
# bash's job control, which the filter denies while a terminal is within
# reach (tty.foreground in --explain, docs/harnesses.md: The terminal)
NO_JOBS='^bash: initialize_job_control: setpgid: Operation not permitted$'
# bash_started_clean: nothing on the screen but landrun's notice, the prompt
# and that line (no error from a start-up file)
bash_started_clean() {
	! screen | grep -v -e '^landrun: ' -e '^$' -e '[$#] *$' -e "$NO_JOBS" | grep -q .
}

screen_of() { screen; }	# for wait_for_screen (lib.sh)

# wait_screen REGEX: until the screen shows REGEX (lib.sh's deadline; on
# timeout the screen is shown)
wait_screen() { wait_for_screen tui "$1"; }

# the private directory of the pane's landrun, from its environment, once it
# has execed the command
private_of_pane() {
	local sh pid
	sh=$(tm display -p -t tui '#{pane_pid}') &&
		read -r pid _ <"/proc/$sh/task/$sh/children" 2>/dev/null && [ -n "$pid" ] &&
		tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null |
		sed -n 's|^HOME=\(/tmp/landrun\.[^/]*\)/home$|\1|p' | grep . >>"$W/private"
}

# tui_start COMMAND...: landrun -- COMMAND in a new 100x30 terminal, in the
# project; waits until landrun has execed COMMAND
tui_start() {
	rm -f "$W/status"
	tm kill-session -t tui 2>/dev/null
	tm new-session -d -s tui -x 100 -y 30 -c "$P" \
		sh -c '"$@"; echo $? >"$0"' "$W/status" "$LANDRUN" "${AS_USER[@]}" -- "$@" &&
		wait_until "$WAIT_S" private_of_pane
}

# tui_keys KEYS...: tmux key names (Enter, Escape) or, with -l, literal text
# (the caller waits for what they should draw: a loaded machine draws late)
tui_keys() { tm send-keys -t tui "$@"; }

# tui_status: waits for landrun -- COMMAND to end; RC is its status
tui_status() {
	RC=timeout
	wait_for_file "$W/status" && RC=$(cat "$W/status")
}

# the screen, for a failure's diagnostics
# vim_append LINE: in the vim of the pane, a LINE at the end, then :wq; each
# key once vim has drawn what the one before did (an Escape followed too soon
# by ':' would be read as Alt-:)
vim_append() {
	tui_keys G o
	wait_screen '^-- INSERT --'
	tui_keys -l "$1"
	wait_screen "^$1\$"
	tui_keys Escape
	wait_until "$WAIT_S" screen_lacks '^-- INSERT --' ||
		{ echo "# vim stays in insert mode after Escape"; tui_diag; }
	tui_keys -l ':wq'
	wait_screen '^:wq'
	tui_keys Enter
}

tui_diag() {
	echo "#   status $RC; the screen:"
	screen | grep -v '^$' | sed 's/^/#   | /'
}

# ---------------------------------------------------------------------------
# The project, made from outside: committed but for .env and what is ignored

make_project() {
	mkdir -p "$P"/{src,test,vendor,py/wheels,work} "$TMP/t/tinylib" && cd "$P" || return 1
	printf 'API_TOKEN=%s\n' "$SECRET" >.env
	printf '%s\n' .env node_modules/ build/ .venv/ py/.venv/ work/ 'src/hello' >.gitignore
	echo "# webapp" >README.md
	cat >package.json <<'EOF'
{
  "name": "webapp",
  "version": "1.0.0",
  "private": true,
  "scripts": { "test": "node test/test.js" }
}
EOF
	cat >Makefile <<'EOF'
CFLAGS = -O2 -Wall
src/hello: src/hello.c
	$(CC) $(CFLAGS) -o $@ $<
build/hello: src/hello.c
	mkdir -p build
	$(CC) $(CFLAGS) -o $@ $<
EOF
	cat >src/hello.c <<'EOF'
#include <stdio.h>
int main(void) { puts("hello from the project"); return 0; }
EOF
	cat >src/index.js <<'EOF'
// OpenSSL's configuration and the CA store (a TLS context), hashing, randomness
const https = require('https'), tls = require('tls'), crypto = require('crypto');
const fs = require('fs'), os = require('os');
tls.createSecureContext();
new https.Agent({ keepAlive: true }).destroy();
const digest = crypto.createHash('sha256').update('landrun').digest('hex');
const out = { digest, random: crypto.randomBytes(16).length, roots: tls.rootCertificates.length };
fs.writeFileSync(__dirname + '/out.json', JSON.stringify(out) + '\n');
console.log('node ' + digest.slice(0, 16) + (os.cpus().length > 0 ? ' with CPUs' : ' no CPUs'));
EOF
	echo "console.log('tinylib says ' + require('tinylib')(2, 3));" >test/test.js
	printf 'line one\n' >src/notes.txt
	touch work/.keep
	# a package to install, packed by npm; the project's lock file
	cat >"$TMP/t/tinylib/package.json" <<'EOF'
{ "name": "tinylib", "version": "1.0.0", "main": "index.js" }
EOF
	echo 'module.exports = (a, b) => a + b;' >"$TMP/t/tinylib/index.js"
	if [ -x /usr/bin/npm ]; then
		(cd "$TMP/t/tinylib" && npm pack --silent --pack-destination "$P/vendor") >/dev/null &&
			npm install --silent --offline --package-lock-only --no-audit --no-fund ||
			return 1
	fi
	tiny_wheel py/wheels || return 1
	git init -q && git add -A && git -c user.name=dev -c user.email=dev@example.invalid \
		commit -qm initial || return 1
	git ls-files --error-unmatch .env >/dev/null 2>&1 && return 1
	[ ${#AS_USER[@]} = 0 ] || chown -R 65534:65534 "$P" || return 1
	cd "$TMP/t"
}

tool git /usr/bin/git && tool python3 /usr/bin/python3 || {
	echo "Bail out! git and python3 make the project"
	exit 1
}
make_project || {
	echo "Bail out! cannot make the project in $P"
	exit 1
}

# ---------------------------------------------------------------------------
# What stays denied, beside what works

lr -- cat package.json
works "control: cat package.json" '"name": "webapp"'
lr -- cat .env
denied "denied: cat .env" "Permission denied"
assert "denied: the secret is not in its output" no_secret
lr -- sh -c 'echo "[core] fsmonitor = evil" >>.git/config'
denied "denied: appending to .git/config" "Permission denied"
lr -- git config core.pager evil
denied "denied: git config core.pager" "Permission denied"
outside ".git/config is as it was" sh -c '! grep -q evil .git/config'
lr -- sh -c 'echo "edited in place" >>README.md'
works "control: appending to README.md (a file at the root)"
outside "README.md has the line" grep -qx "edited in place" README.md

# ---------------------------------------------------------------------------
# node

if tool nodejs /usr/bin/node; then
	lr -- node src/index.js
	works "node: https, tls, crypto, os.cpus()" "node $(printf landrun | sha256sum | cut -c1-16) with CPUs"
	outside "node: src/out.json has the digest" \
		grep -qF "\"digest\":\"$(printf landrun | sha256sum | cut -d' ' -f1)\"" src/out.json
fi

# ---------------------------------------------------------------------------
# npm, offline

NPM_INSTALL=(npm install --offline --no-audit --no-fund ./vendor/tinylib-1.0.0.tgz)
if tool npm /usr/bin/npm; then
	# without a lock file: npm makes it at the root too
	cp -a "$P" "$TMP/t/nolock" && rm "$TMP/t/nolock/package-lock.json"
	CWD=$TMP/t/nolock lr -- "${NPM_INSTALL[@]}"
	works "npm install without package-lock.json makes it at the root (the broker)" \
		"added 1 package"
	outside "npm: the new package-lock.json has it" \
		grep -qF '"node_modules/tinylib"' "$TMP/t/nolock/package-lock.json"
	rm -rf "$TMP/t/nolock"

	lr -- "${NPM_INSTALL[@]}"
	works "npm install TARBALL makes node_modules at the root (the broker)" "added 1 package"
	outside "npm: node_modules/tinylib is installed" test -f node_modules/tinylib/index.js
	outside "npm: package.json depends on it" grep -qF '"tinylib": "file:vendor/' package.json
	outside "npm: package-lock.json has it" grep -qF '"node_modules/tinylib"' package-lock.json
	lr -- npm test
	works "npm test" "tinylib says 5"
	lr -- npm ci --offline --no-audit --no-fund
	works "npm ci (node_modules now exists)" "added 1 package"
	outside "npm ci: node_modules/tinylib is installed" test -f node_modules/tinylib/index.js
fi

# ---------------------------------------------------------------------------
# git: the project's repository is read-only, and so is a clone made in the run

lr -- git status --short
works "git status" " M README.md"
lr -- git diff --stat -- README.md
works "git diff" "README.md | 1 +"
lr -- git log --format=%s
works "git log" "initial"

# a clone made in the run is refused: its .git would run what the command
# wrote there, for whoever uses git in it afterwards; --allow-protected names it
lr -- git clone -q . work/refused
denied "protected: git clone into work/ is refused (a new .git)" "refused making the directory"
outside "git: no clone was made" test ! -e work/refused/.git
lr --allow-protected work/copy/.git -- bash -c 'git clone -q . work/copy && cd work/copy &&
	echo "agent line" >>README.md &&
	git -c user.name=agent -c user.email=agent@example.invalid commit -qam "agent change" &&
	git log --format=%s'
works "git clone into work/ with --allow-protected, commit there, log (one run)" "agent change"
outside "git: the clone's last commit is the agent's" \
	sh -c '[ "$(git -C work/copy log -1 --format=%an:%s)" = "agent:agent change" ]'
outside "git: the clone is clean" sh -c '[ -z "$(git -C work/copy status --porcelain)" ]'
lr -- git -C work/copy log --format=%s
works "git log in the clone, in a later run" "agent change"
lr -- git -C work/copy -c user.name=agent -c user.email=agent@example.invalid \
	commit -q --allow-empty -m later
denied "protected: a later run cannot commit in the clone (its .git is read-only)" \
	"ermission denied"
outside "git: the clone has no later commit" \
	sh -c '[ "$(git -C work/copy log -1 --format=%s)" = "agent change" ]'

# ---------------------------------------------------------------------------
# python: a venv in a subdirectory, pip from a local wheel directory

PYV=$(/usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
if tool "python$PYV-venv" "/usr/lib/python$PYV/ensurepip/__init__.py"; then
	lr -- python3 -m venv py/.venv
	works "python3 -m venv py/.venv"
	outside "venv: py/.venv has pip" test -x py/.venv/bin/pip
	lr -- py/.venv/bin/pip install --no-index --find-links py/wheels tinypkg
	works "pip install from py/wheels" "Successfully installed tinypkg-1.0"
	outside "pip: tinypkg is in the venv" \
		sh -c '[ "$(py/.venv/bin/python -c "import tinypkg; print(tinypkg.add(2, 3))")" = 5 ]'
	lr -- py/.venv/bin/python -c 'import tinypkg, mimetypes
print("tinypkg", tinypkg.add(2, 3), mimetypes.guess_type("a.json")[0])'
	works "the venv's python imports it" "tinypkg 5 application/json"

	lr -- python3 -m venv .venv
	works "python3 -m venv .venv at the root (the broker)"
	outside "venv: .venv has pip" test -x .venv/bin/pip
	lr -- .venv/bin/pip --version
	works "the root's .venv/bin/pip runs (a script made there)" "pip "
fi

# ---------------------------------------------------------------------------
# gcc and make, and what they built

if tool make /usr/bin/make && tool gcc /usr/bin/gcc && tool libc6-dev /usr/include/stdio.h; then
	lr -- make
	works "make: builds src/hello with gcc" "-o src/hello src/hello.c"
	outside "make: src/hello runs" sh -c '[ "$(src/hello)" = "hello from the project" ]'
	lr -- ./src/hello
	works "./src/hello, built in the project" "hello from the project"
	lr -- make build/hello
	works "make makes build/ at the root, and build/hello (the broker)"
	outside "make: build/hello runs" sh -c '[ "$(build/hello)" = "hello from the project" ]'
	lr -- ./build/hello
	works "./build/hello, made at the root during a run, runs" "hello from the project"
fi

# ---------------------------------------------------------------------------
# The terminal (tmux)

diag() { tui_diag; }
if tool tmux /usr/bin/tmux; then
	if tool bash /bin/bash; then
		tui_start bash && wait_screen '[$#] *$'
		assert "bash: starts with no error from a start-up file" bash_started_clean
		assert "cost: bash has no job control (tty.foreground)" screen_has "$NO_JOBS"
		tui_keys -l 'echo "home=$HOME"; echo "made in bash" >src/bash.txt; cat .env; echo "sum=$((6 * 7))"'
		wait_screen 'echo "sum=\$\(\(6 \* 7\)\)"$'
		tui_keys Enter
		wait_screen '^sum=42'
		assert "bash: commands run" screen_has '^sum=42$'
		assert "bash: HOME is a private directory" screen_has '^home=/tmp/landrun\.[^/]+/home$'
		assert "bash: cat .env is denied" screen_has '^cat: \.env: Permission denied$'
		assert "bash: the secret is not on the screen" screen_lacks "$SECRET"
		tui_keys -l exit
		wait_screen '[$#] *exit$'
		tui_keys Enter
		tui_status
		assert "bash: exits with 0" test "$RC" = 0
		outside "bash: src/bash.txt was made" grep -qx "made in bash" src/bash.txt
	fi
	if tool less /usr/bin/less; then
		tui_start less src/hello.c && wait_screen '\(END\)'
		assert "less: shows the file" screen_has 'hello from the project'
		tui_keys q
		tui_status
		assert "less: q quits, status 0" test "$RC" = 0
		# reading keys from the terminal while its input is a pipe (a pager)
		tui_start bash -c 'seq 1 500 | less' && wait_screen '^:'
		tui_keys G
		assert "less on a pipe: G shows the end" wait_screen '^500$'
		tui_keys q
		tui_status
		assert "less on a pipe: q quits, status 0" test "$RC" = 0
	fi
	if tool vim /usr/bin/vim; then
		tui_start vim src/notes.txt && wait_screen '"src/notes.txt"'
		assert "vim: opens src/notes.txt with no message to confirm" \
			screen_lacks 'Press ENTER|E[0-9]+:'
		vim_append 'added by vim'
		tui_status
		assert "vim: :wq, status 0" test "$RC" = 0
		outside "vim: the line is in src/notes.txt" \
			sh -c '[ "$(tail -n1 src/notes.txt)" = "added by vim" ]'
		outside "vim: no swap file is left" test ! -e src/.notes.txt.swp

		# at the root too: its swap file is made there (the broker)
		tui_start vim README.md && wait_screen '"README.md"'
		assert "vim: opens README.md at the root with no message to confirm" \
			screen_lacks 'Press ENTER|E[0-9]+:'
		vim_append 'vim at the root'
		tui_status
		assert "vim README.md: :wq, status 0" test "$RC" = 0
		outside "vim: README.md was saved" \
			sh -c '[ "$(tail -n1 README.md)" = "vim at the root" ]'
	fi
fi

# ---------------------------------------------------------------------------
# What the command line adds to the profile and the project, the repository
# as the project, and the Go landrun's command lines (docs/harnesses.md,
# docs/compatibility.md)

LIBS=$TMP/t/libs
mkdir -p "$LIBS" && echo 'lib data' >"$LIBS/l.txt" && chmod -R a+rX "$LIBS"
CWD=$P/src lr -- sh -c 'cat ../package.json && echo from-src >>notes.txt'
works "from src/: the project is the repository (../package.json read)" '"name": "webapp"'
assert "from src/: the notice names the repository" \
	err_has "project $P (the git repository holding the current directory"
outside "from src/: src/notes.txt was written" grep -qx from-src src/notes.txt
lr --ro "$LIBS" -- sh -c "cat '$LIBS/l.txt' && echo added >>src/notes.txt"
works "--ro DIR adds to the default: DIR read" 'lib data'
assert "--ro DIR: the notice says what the command line added" \
	err_has "added on the command line: --ro $LIBS"
assert "--ro DIR: the notice still names the profile" err_has "profile base (the default"
outside "--ro DIR adds to the default: the project is still writable" grep -qx added src/notes.txt
lr --no-project -- cat package.json
denied "--no-project: the project is not granted" "Permission denied"
lr --ro . -- sh -c 'echo x >>README.md'
denied "--ro .: the project stays read-only" "Permission denied"
outside "--ro .: README.md unchanged" sh -c '[ "$(head -n1 README.md)" = "# webapp" ]'
# the Go landrun's lines: the command line is the whole policy
lr --rox /usr --ro /lib,/lib64 -- ls /usr
works "Go landrun: --rox /usr --ro /lib,/lib64 -- ls /usr" bin
lr --rox /usr --ro /lib,/lib64 -- cat package.json
denied "Go landrun: no project is added" "Permission denied"
mkdir -p "$W/go" && chmod 777 "$W/go"
lr --rox /usr --rw "$W/go" -- /usr/bin/touch "$W/go/made"
works "Go landrun: --rox /usr --rw DIR -- touch DIR/made"
outside "Go landrun: --rw DIR is writable" test -e "$W/go/made"
lr --rox /usr -- cat /etc/passwd
denied "Go landrun: no profile is added (no /etc/passwd of base)" "Permission denied"

# a repository that tracks its .env: as docs/secrets.md's table says.  Its
# .env's times are then set apart from the index's, so that git must read it
# (else git reads it only when the commit came within its mtime's second,
# which a loaded machine may miss: then .env is clean and diff has nothing)
T=$TMP/t/tracked
mkdir -p "$T" && (cd "$T" && echo 'A=1' >.env && echo x >f && git init -q && git add -A &&
	git -c user.name=dev -c user.email=dev@example.invalid commit -qm i &&
	touch -d 2000-01-01 .env) &&
	{ [ ${#AS_USER[@]} = 0 ] || chown -R 65534:65534 "$T"; }
CWD=$T lr -- git -c safe.directory='*' status --short
works "tracked .env: git status exits 0 and lists it as modified" ' M .env'
CWD=$T lr -- git -c safe.directory='*' diff
denied "tracked .env: git diff stops (cannot hash it)" "fatal: cannot hash .env"
if [ "$RC" = 128 ]; then tap_ok "tracked .env: git diff exits 128"; else
	tap_not_ok "tracked .env: git diff exits 128 (got $RC)"
fi

# ---------------------------------------------------------------------------
# The private directories landrun made for the commands

sort -u "$W/private" | while read -r d; do
	case $d in
	/tmp/landrun.??????) [ "$(stat -c %u "$d")" = "$RUN_UID" ] && rm -rf "$d" ;;
	esac
done
tap_done
