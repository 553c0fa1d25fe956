#!/bin/bash
# SPDX-License-Identifier: MIT
#
# escapes.sh LANDRUN LR_TRY [--as-nobody] - the policy escapes of issue 9,
# each performed as an attacker would and judged from OUTSIDE the sandbox
# (the file's content, the hook that is or is not there, what cat printed),
# next to the controls that must keep working.  TAP output.
#
#   secrets:  a .env two levels down, under the project's parent, under /,
#             /proc/self/root, a directory that can be entered but not
#             listed, a file grant whose symlink flips, names (.envrc, .env~,
#             .ENV, prod.env) and templates, the project however high
#   planted:  .git/config, .git/hooks, core.hooksPath (also not there yet, and
#             from a grant inside the work tree), the harnesses' project
#             settings, explicit grants inside .git, a repository made during
#             the run; controls: edit and create files, git commit in a
#             repository made during the run that --allow-protected names
#   TMPDIR:   a ${VAR} is one item (TMPDIR=/x,/ grants nothing); shared
#             TMPDIRs are refused

set -u
. "$(dirname "$0")/lib.sh" || exit 2
e2e_start --grants-only escapes landrun lr-try -- "$@"

LANDRUN=$BIN/landrun
TRY=$BIN/lr-try
W=$TMP/t/.work-$$
mkdir -p "$W" || exit 1
e2e_hello "landrun escapes" "binaries in $BIN"

SECRET=sk-escape-$$-$RANDOM
SYS=(--rox /usr,/bin,/lib,/lib64 --ignore-missing --rw /dev/null)

lr() { run "$LANDRUN" --rox "$BIN" "$@"; }
# from DIR COMMAND...: COMMAND (lr, lrs, run) from DIR; RC is kept
from() { local d=$1; shift; (cd "$d" && "$@"; exit $RC); RC=$?; }
# landrun with the system's programs, for cat, sh and git
lrs() { run "$LANDRUN" "${SYS[@]}" "$@"; }
err_has() { grep -qF -- "$1" "$W/err"; }
out_has() { grep -qF -- "$1" "$W/out"; }
no_secret() { ! grep -qF -- "$SECRET" "$W/out" "$W/err"; }

ABI=$("$TRY" abi 2>/dev/null) || ABI=0
needs_landlock() {
	[ "$ABI" -ge 1 ] && return 0
	local d
	for d; do skip "$d" "needs Landlock (ABI 1+)"; done
	return 1
}

# a project: src/, a .env at its root, a README
project() { # DIR
	mkdir -p "$1/src" && printf 'TOKEN=%s\n' "$SECRET" >"$1/.env" &&
		echo "readme" >"$1/README" && echo "code" >"$1/src/a.c"
}

cd "$TMP/t" || exit 1

# ===========================================================================
# Secrets

t_secret_depth() {
	local D=("secrets: .env two levels down is unreadable"
		 "secrets: its sibling is readable"
		 "control: it is readable outside"
		 "secrets: under a grant of the project's parent, proj/.env is unreadable"
		 "secrets: and proj/src is readable")
	needs_landlock "${D[@]}" || return
	mkdir -p deep/proj/a/b && project deep/proj &&
		printf 'X=%s\n' "$SECRET" >deep/proj/a/b/.env && echo ok >deep/proj/a/b/code
	lr --ro deep/proj -- "$TRY" read deep/proj/a/b/.env;	expect "${D[0]}" 13
	lr --ro deep/proj -- "$TRY" read deep/proj/a/b/code;	expect "${D[1]}" 0
	run "$TRY" read deep/proj/a/b/.env;			expect "${D[2]}" 0
	from deep/proj lr --ro .. -- "$TRY" read .env;		expect "${D[3]}" 13
	from deep/proj lr --ro .. -- "$TRY" read src/a.c;		expect "${D[4]}" 0
}

t_secret_names() {
	local secret=(.envrc .env~ .ENV prod.env .env.production.local "#.env#" .env.bak)
	local template=(.env.example .env.sample .env.template .env.dist)
	local n
	needs_landlock "secrets: names" || return
	mkdir -p names
	for n in "${secret[@]}" "${template[@]}"; do printf 'V=%s\n' "$SECRET" >"names/$n"; done
	for n in "${secret[@]}"; do
		lr --ro names -- "$TRY" read "names/$n"; expect "secrets: $n is unreadable" 13
	done
	for n in "${template[@]}"; do
		lr --ro names -- "$TRY" read "names/$n"; expect "secrets: the template $n is readable" 0
	done
	mkdir -p venv/.env/bin && echo ok >venv/.env/bin/activate
	lr --ro venv -- "$TRY" read venv/.env/bin/activate
	expect "secrets: a directory named .env (a virtualenv) is not a secret" 0
}

t_secret_broad() {
	local D=("secrets: --ro / never shows proj/.env" "secrets: --ro / is refused (too large to check) or carved"
		 "secrets: --ro /proc/self/root never shows proj/.env"
		 "secrets: --ro /proc/self/root is refused or carved")
	needs_landlock "${D[@]}" || return
	project broad
	lrs --ro / -- cat "$TMP/t/broad/.env"
	assert "${D[0]}" no_secret
	expect "${D[1]}" "125|1"
	lrs --ro /proc/self/root -- cat "$TMP/t/broad/.env"
	assert "${D[2]}" no_secret
	expect "${D[3]}" "125|1"
}

# A directory that can be entered but not listed: landrun cannot know what
# is in it, and the command could open .env by name.
t_secret_unlistable() {
	local D=("secrets: a grant holding a searchable, unlistable directory never shows its .env"
		 "secrets: it is refused (cannot check), or carved (landrun could list it)"
		 "control: the .env is readable by name outside")
	needs_landlock "${D[@]}" || return
	mkdir -p locked/proj/vault && printf 'K=%s\n' "$SECRET" >locked/proj/vault/.env &&
		chmod 0311 locked/proj/vault
	lrs --ro locked/proj -- cat locked/proj/vault/.env
	assert "${D[0]}" no_secret
	if [ "$(id -u)" = 0 ]; then expect "${D[1]}" 1; else expect "${D[1]}" 125; fi
	run cat locked/proj/vault/.env
	assert "${D[2]}" eval 'grep -qF -- "$SECRET" "$W/out"'
	chmod 0755 locked/proj/vault
}

# A file grant whose path is a symlink flipped between a harmless file and
# .env while landrun starts: the check and the rule must see the same inode.
t_secret_symlink_race() {
	local D=("secrets: a flipping symlink grant never leaks .env (300 runs)"
		 "control: some runs read the harmless file")
	local i leaks=0 reads=0 flipper
	needs_landlock "${D[@]}" || return
	mkdir -p race && printf 'R=%s\n' "$SECRET" >race/.env && echo harmless >race/notes
	ln -sfn notes race/link
	(while :; do ln -sfn .env race/tmp && mv -T race/tmp race/link
		ln -sfn notes race/tmp && mv -T race/tmp race/link; done) 2>/dev/null &
	flipper=$!
	for i in $(seq 300); do
		lrs --ro race/link -- cat race/link
		grep -qF -- "$SECRET" "$W/out" && leaks=$((leaks + 1))
		grep -q harmless "$W/out" && reads=$((reads + 1))
	done
	kill $flipper 2>/dev/null; wait $flipper 2>/dev/null
	if [ $leaks = 0 ]; then tap_ok "${D[0]}"; else tap_not_ok "${D[0]}: $leaks leaks"; fi
	if [ $reads -gt 0 ]; then tap_ok "${D[1]} ($reads)"; else tap_not_ok "${D[1]}"; fi
}

# The project is walked however high the grant: here it sits in a
# directory the general walk skips (a cache).
t_secret_project() {
	local D=("secrets: the current project inside a skipped directory: .env unreadable"
		 "secrets: the --env-file under a grant is unreadable whatever its name"
		 "control: the grant's other files are readable")
	needs_landlock "${D[@]}" || return
	mkdir -p high/.cache && project high/.cache/proj
	from high/.cache/proj lr --ro "$TMP/t/high" -- "$TRY" read .env; expect "${D[0]}" 13
	mkdir -p cfg && printf 'A=%s\n' "$SECRET" >cfg/settings && echo x >cfg/other
	lr --env-file cfg/settings --ro cfg -- "$TRY" read cfg/settings; expect "${D[1]}" 13
	lr --env-file cfg/settings --ro cfg -- "$TRY" read cfg/other; expect "${D[2]}" 0
}

# A project under /usr (WORKDIR /usr/src/app): needs root to make one there.
# A grant of /usr is not walked (system tree); the project is, when it is
# the current directory, and a grant inside /usr/src is.
t_secret_usr() {
	local D=("secrets: from a project in /usr/src, under --rox /usr: .env unreadable"
		 "control: its other files are readable"
		 "secrets: --ro of a project in /usr/src: .env unreadable")
	local app=/usr/src/landrun-escapes-$$ d
	if [ "$(id -u)" != 0 ]; then
		for d in "${D[@]}"; do skip "$d" "needs root to create a project under /usr"; done
		return
	fi
	needs_landlock "${D[@]}" || return
	project "$app"
	from "$app" lr --rox /usr -- "$TRY" read .env;		expect "${D[0]}" 13
	from "$app" lr --rox /usr -- "$TRY" read README;	expect "${D[1]}" 0
	lr --ro "$app" -- "$TRY" read "$app/.env";		expect "${D[2]}" 13
	rm -rf "$app"
}

# ===========================================================================
# Code planted for later

git_repo() { # DIR
	project "$1" && git -C "$1" init -q && git -C "$1" config user.email t@t &&
		git -C "$1" config user.name t && git -C "$1" add -A README src &&
		git -C "$1" commit -qm init
}

t_planted_git() {
	local D=("planted: .git/config cannot be written under --rw proj"
		 "planted: .git/hooks/pre-commit cannot be created"
		 "planted: outside, .git/config is unchanged and no hook exists"
		 "planted: git status outside runs no planted fsmonitor"
		 "control: README (a root file) can be edited in place"
		 "control: a file can be created in src"
		 "control: git diff works inside and shows the edit"
		 "planted: a repository made during the run (git init) is refused, and none is made"
		 "control: with --allow-protected for it, git commit works in a repository made during the run"
		 "planted: --rw proj/.git refused"
		 "planted: --rw proj/.git/hooks refused" "planted: the message names --allow-protected"
		 "planted: --allow-protected proj/.git lets it be written")
	needs_landlock "${D[@]}" || return
	git_repo g
	cp g/.git/config "$W/config.before"
	lrs --rw g -- /bin/sh -c "printf '[core]\n\tfsmonitor = touch $TMP/t/PWNED\n' >>g/.git/config"
	expect "${D[0]}" 2
	lrs --rw g -- /bin/sh -c "echo 'touch $TMP/t/PWNED' >g/.git/hooks/pre-commit"
	expect "${D[1]}" 2
	assert "${D[2]}" eval 'cmp -s g/.git/config "$W/config.before" && [ ! -e g/.git/hooks/pre-commit ]'
	git -C g status >/dev/null 2>&1
	assert "${D[3]}" test ! -e PWNED
	lrs --rw g -- /bin/sh -c 'echo more >>g/README'
	expect "${D[4]}" 0
	lrs --rw g -- /bin/sh -c 'echo new >g/src/new.c'
	expect "${D[5]}" 0
	lrs --rw g --ro /etc/passwd,/etc/group,/etc/gitconfig,/dev/urandom -- git -C g diff
	if [ "$RC" = 0 ] && out_has "+more"; then tap_ok "${D[6]}"; else tap_not_ok "${D[6]}"; fi
	# as uid 0 the command may not chmod, which git init needs: started as
	# root, it runs as uid 65534 in a src of its own (docs/harnesses.md: Running as root)
	local as=()
	if [ "$(id -u)" = 0 ]; then
		as=(--user 65534:65534)
		chown 65534:65534 g/src
	fi
	mkdir g/src/inner && chown "$(stat -c %u g/src)" g/src/inner
	lrs "${as[@]}" --rw g --ro /etc/passwd,/etc/group,/etc/gitconfig,/dev/urandom -- /bin/sh -c 'cd g/src/inner &&
		git init -q'
	if [ "$RC" != 0 ] && [ ! -e g/src/inner/.git ] && err_has "--allow-protected"; then
		tap_ok "${D[7]}"
	else
		tap_not_ok "${D[7]}"
	fi
	lrs "${as[@]}" --rw g --allow-protected g/src/inner/.git \
		--ro /etc/passwd,/etc/group,/etc/gitconfig,/dev/urandom -- /bin/sh -c 'cd g/src/inner &&
		git init -q && echo x >f && git add f &&
		git -c user.email=a@b -c user.name=n commit -qm x && git log --oneline'
	expect "${D[8]}" 0
	lr --rw g/.git -- "$TRY" exit 0;		expect "${D[9]}" 125
	lr --rw g/.git/hooks -- "$TRY" exit 0;		expect "${D[10]}" 125
	assert "${D[11]}" err_has "--allow-protected"
	lr --rw g/.git --allow-protected g/.git -- "$TRY" create g/.git/hooks/x; expect "${D[12]}" 0
	rm -f g/.git/hooks/x
}

t_planted_hookspath() {
	local D=("planted: core.hooksPath that does not exist yet cannot be created"
		 "planted: core.hooksPath inside a --rw grant of the work tree's src cannot be written"
		 "control: src's files stay writable (new entries directly in src cannot be made)"
		 "planted: an include.path file in the work tree cannot be written"
		 "planted: nothing was planted (checked outside)")
	needs_landlock "${D[@]}" || return
	git_repo h
	git -C h config core.hooksPath .husky/_
	lr --rw h -- "$TRY" mkdir h/.husky;			expect "${D[0]}" 13
	git -C h config core.hooksPath src/hooks
	lr --rw h/src -- "$TRY" mkdir h/src/hooks;		expect "${D[1]}" 13
	lr --rw h/src -- "$TRY" write h/src/a.c;		expect "${D[2]}" 0
	echo "[user]" >h/shared.gitconfig
	git -C h config include.path ../shared.gitconfig
	lr --rw h -- "$TRY" write h/shared.gitconfig;		expect "${D[3]}" 13
	assert "${D[4]}" eval '[ ! -e h/.husky ] && [ ! -e h/src/hooks ] && [ "$(cat h/shared.gitconfig)" = "[user]" ]'
}

t_planted_harness() {
	local n
	needs_landlock "planted: harness settings" || return
	mkdir -p hp/.claude hp/.vscode hp/.opencode && echo '{}' >hp/.claude/settings.json &&
		echo '{}' >hp/.mcp.json && echo '{}' >hp/opencode.json && echo '{}' >hp/.vscode/tasks.json
	for n in .claude/settings.json .mcp.json opencode.json .vscode/tasks.json; do
		lr --rw hp -- "$TRY" write "hp/$n"; expect "planted: $n cannot be written" 13
	done
	lr --rw hp -- "$TRY" create hp/.opencode/plugin.ts
	expect "planted: nothing can be created in .opencode" 13
	lr --rw hp -- "$TRY" create hp/.claude/commands
	expect "planted: nothing can be created in .claude" 13
	printf 'K=%s\n' "$SECRET" >hp/.vscode/.env
	lr --rw hp -- "$TRY" read hp/.vscode/.env
	expect "secrets: a .env inside a protected directory is unreadable" 13
	lr --rw hp -- "$TRY" read hp/.vscode/tasks.json
	expect "control: the protected directory's files are readable" 0
	assert "planted: the settings are unchanged outside" eval \
		'[ "$(cat hp/.claude/settings.json hp/.mcp.json hp/opencode.json)" = "$(printf "{}\n{}\n{}")" ]'
}

# A bare repository (a git directory by another name): its hooks run when
# someone pushes to it.
t_planted_bare() {
	local D=("planted: a bare repository's hooks cannot be written under --rw of its parent"
		 "planted: --rw of the bare repository itself is refused"
		 "control: the rest of the parent is writable")
	needs_landlock "${D[@]}" || return
	mkdir -p bare/src && git init -q --bare bare/x.git
	lr --rw bare -- "$TRY" create bare/x.git/hooks/post-receive;	expect "${D[0]}" 13
	lr --rw bare/x.git -- "$TRY" exit 0;				expect "${D[1]}" 125
	lr --rw bare -- "$TRY" create bare/src/f;			expect "${D[2]}" 0
}

# A read-only grant inside a writable one stays read-only.
t_nested_ro() {
	needs_landlock "nested: --ro inside --rw" || return
	mkdir -p nest/keep && echo k >nest/keep/f
	lr --rw nest --ro nest/keep -- "$TRY" write nest/keep/f
	expect "nested: --rw nest --ro nest/keep: keep/f is not writable" 13
	lr --rw nest --ro nest/keep -- "$TRY" read nest/keep/f
	expect "nested: and it is readable" 0
}

# ===========================================================================
# TMPDIR: a ${VAR} in a policy file is one item; shared TMPDIRs are refused.

t_tmpdir() {
	local D=("tmpdir: TMPDIR=/x,/ under a profile grants nothing above it (/etc/hostname unreadable)"
		 "tmpdir: TMPDIR=/tmp refused" "tmpdir: TMPDIR=/ refused"
		 "tmpdir: TMPDIR=\$HOME refused" "tmpdir: the message names TMPDIR"
		 "control: a private TMPDIR is granted and writable")
	needs_landlock "${D[@]}" || return
	mkdir -p pol priv
	printf 'rw = ${TMPDIR:-/dev/null}\nenv = TMPDIR\nignore-missing = true\n' >pol/p.conf
	TMPDIR=/x,/ lr --config pol/p.conf -- "$TRY" read /etc/hostname; expect "${D[0]}" 13
	TMPDIR=/tmp lr --config pol/p.conf -- "$TRY" exit 0;	expect "${D[1]}" 125
	TMPDIR=/ lr --config pol/p.conf -- "$TRY" exit 0;	expect "${D[2]}" 125
	HOME=$TMP/t/pol TMPDIR=$TMP/t/pol lr --config pol/p.conf -- "$TRY" exit 0
	expect "${D[3]}" 125
	assert "${D[4]}" err_has "TMPDIR="
	TMPDIR=$TMP/t/priv lr --config pol/p.conf -- "$TRY" create "$TMP/t/priv/f"; expect "${D[5]}" 0
}

t_secret_depth
t_secret_names
t_secret_broad
t_secret_unlistable
t_secret_symlink_race
t_secret_project
t_secret_usr
t_planted_git
t_planted_hookspath
t_planted_harness
t_planted_bare
t_nested_ro
t_tmpdir
tap_done
