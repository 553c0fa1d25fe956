#!/bin/bash
# SPDX-License-Identifier: MIT
#
# End-to-end tests of the landrun launcher, TAP output.
#
#   run.sh LANDRUN LR_TRY LR_FAKEABI [--as-nobody]
#
# The three binaries are copied into a fresh directory under /tmp, so that
# the unprivileged user can reach them wherever the build directory is.  With
# --as-nobody, a root caller runs the tests as uid/gid 65534 (setpriv); any
# other caller runs them as itself and says so.
#
# lr-try performs one operation and exits with its errno (0: it worked), so
# every case is "landrun GRANTS -- lr-try OP" and a check of the exit status.
# Every denial sits next to a positive control: the same operation outside
# the sandbox, or a granted one inside it, must work; a sandbox that breaks
# everything fails the suite.  "Did the command run?" is answered by a
# witness: the command creates mark/ran in a directory granted --rw, so the
# file exists only if the command was executed.

set -u

# ---------------------------------------------------------------------------
# Setup: private copies of the binaries, then the test body (maybe as nobody).

. "$(dirname "$0")/lib.sh" || exit 2
e2e_start --grants-only e2e landrun lr-try lr-fakeabi -- "$@"	# from here on, the body

LANDRUN=$BIN/landrun
TRY=$BIN/lr-try
FAKE=$BIN/lr-fakeabi
W=$TMP/t/.work-$$		# output of the last run
mkdir -p "$W" || exit 1
UID_NOW=$(id -u)

e2e_hello "landrun e2e" "binaries in $BIN"

# TAP: tap_ok, tap_not_ok (TODO=reason before it), skip, assert, tap_done and
# diag (the last run's status and output) come from lib.sh.

# ---------------------------------------------------------------------------
# Running things.  Each sets RC and leaves stdout/stderr in $W/out, $W/err.

# landrun with the helpers' directory executable, then the test's arguments
lr() {
	run "$LANDRUN" --rox "$BIN" "$@"
}

# the same under a simulated kernel: fake MODE LANDRUN-ARGS...
fake() {
	local mode=$1
	shift
	run "$FAKE" "$mode" -- "$LANDRUN" --rox "$BIN" "$@"
}

# lr-try outside any sandbox: the positive control for a fixture
plain() {
	run "$TRY" "$@"
}

declare -A ERRNO=([0]=ok [2]=ENOENT [9]=EBADF [13]=EACCES [17]=EEXIST [18]=EXDEV
	[125]=landrun-failed [126]=cannot-exec [127]=not-found)

# expect DESC WANT: the last run's status is WANT (or one of "A|B")
expect() {
	local desc=$1 want=$2 w
	for w in ${want//|/ }; do
		if [ "$RC" = "$w" ]; then
			tap_ok "$desc -> ${ERRNO[$RC]:-$RC}"
			return 0
		fi
	done
	tap_not_ok "$desc (want $want, got $RC ${ERRNO[$RC]:-})"
	return 1
}

err_has() { grep -qF -- "$1" "$W/err"; }
err_lacks() { ! grep -qF -- "$1" "$W/err"; }
err_matches() { grep -qE -- "$1" "$W/err"; }
out_has() { grep -qF -- "$1" "$W/out"; }
out_lacks() { ! grep -qF -- "$1" "$W/out"; }
out_matches() { grep -qE -- "$1" "$W/out"; }
err_empty() { [ ! -s "$W/err" ]; }
ran() { [ -e "$F/mark/ran" ]; }
not_ran() { [ ! -e "$F/mark/ran" ]; }

# ---------------------------------------------------------------------------
# Fixtures.  fixture NAME: a fresh tree $F, and the working directory there.
#
#   $F/proj/.env            SECRET=...   (must never be readable inside)
#   $F/proj/src/f1          a read-only tree
#   $F/proj/roles/r1
#   $F/proj/workspace/      the read-write tree
#   $F/proj/logs/
#   $F/mark/                the witness directory: "ran" appears if the command ran

SECRET_VALUE=e2e-hunter2-secret
F=

fixture() {
	F=$TMP/t/$1
	mkdir -p "$F/proj/src" "$F/proj/roles" "$F/proj/workspace" "$F/proj/logs" "$F/mark" &&
	printf 'SECRET=%s\n' "$SECRET_VALUE" >"$F/proj/.env" &&
	echo "f1 content" >"$F/proj/src/f1" &&
	echo "r1 content" >"$F/proj/roles/r1" &&
	cd "$F" || { echo "Bail out! cannot build fixture $F"; exit 1; }
}

# ---------------------------------------------------------------------------
# Kernel features.  Landlock's ABI as the kernel reports it, and seccomp user
# notifications for lr-fakeabi.

ABI=$("$TRY" abi 2>/dev/null) || ABI=0
echo "# kernel $(uname -r), Landlock ABI $ABI"
SECCOMP_NOTIF=no
grep -qw user_notif /proc/sys/kernel/seccomp/actions_avail 2>/dev/null && SECCOMP_NOTIF=yes
SECCOMP_ERRNO=no
grep -qw errno /proc/sys/kernel/seccomp/actions_avail 2>/dev/null && SECCOMP_ERRNO=yes

# needs_abi N DESC...: true if the kernel has ABI N, else skips every DESC
needs_abi() {
	local n=$1 d
	shift
	[ "$ABI" -ge "$n" ] && return 0
	for d; do skip "$d" "needs Landlock ABI $n"; done
	return 1
}

# ===========================================================================
# --ro / --rw: the basic grants

t_ro_rw() {
	local D=(
		"control: .env readable outside the sandbox"
		"ro: read src/f1" "ro: write src/f1 denied" "ro: create in src denied"
		"ro: list src" "ro: list proj (not granted) denied"
		"ro: read proj/.env denied" "ro: read src/../.env denied"
		"ro: read /proc/self/root/.../proj/.env denied"
		"ro: write in logs (not granted) denied"
		"rw: create in workspace" "rw: write in workspace" "rw: read in workspace"
		"rw: mkdir in workspace" "rw: unlink in workspace" "rw: effects visible outside")
	needs_abi 1 "${D[@]}" || return
	fixture ro_rw
	local g=(--ro proj/src --rw proj/workspace --)

	plain read proj/.env;					expect "${D[0]}" 0
	lr "${g[@]}" "$TRY" read proj/src/f1;			expect "${D[1]}" 0
	lr "${g[@]}" "$TRY" write proj/src/f1;			expect "${D[2]}" 13
	lr "${g[@]}" "$TRY" create proj/src/new;		expect "${D[3]}" 13
	lr "${g[@]}" "$TRY" list proj/src;			expect "${D[4]}" 0
	lr "${g[@]}" "$TRY" list proj;				expect "${D[5]}" 13
	lr "${g[@]}" "$TRY" read proj/.env;			expect "${D[6]}" 13
	lr "${g[@]}" "$TRY" read proj/src/../.env;		expect "${D[7]}" 13
	lr "${g[@]}" "$TRY" read "/proc/self/root$F/proj/.env";	expect "${D[8]}" 13
	lr "${g[@]}" "$TRY" write proj/logs/l1;			expect "${D[9]}" 13
	lr "${g[@]}" "$TRY" create proj/workspace/a;		expect "${D[10]}" 0
	lr "${g[@]}" "$TRY" write proj/workspace/a;		expect "${D[11]}" 0
	lr "${g[@]}" "$TRY" read proj/workspace/a;		expect "${D[12]}" 0
	lr "${g[@]}" "$TRY" mkdir proj/workspace/d;		expect "${D[13]}" 0
	lr "${g[@]}" "$TRY" unlink proj/workspace/a;		expect "${D[14]}" 0
	assert "${D[15]}" eval '[ -d proj/workspace/d ] && [ ! -e proj/workspace/a ] &&
		[ "$(cat proj/src/f1)" = "f1 content" ] && [ ! -e proj/src/new ] && [ ! -e proj/logs/l1 ]'
}

# ===========================================================================
# A symlink in the workspace to the secret: making it is allowed, following
# it is not (Landlock checks the file reached, not the name used).

t_symlink() {
	local D=("symlink: create workspace/l -> ../.env" "symlink: read through it denied"
		 "control: read through it outside the sandbox"
		 "control: read through workspace/l2 -> ../src/f1 (granted)")
	needs_abi 1 "${D[@]}" || return
	fixture symlink
	local g=(--ro proj/src --rw proj/workspace --)

	lr "${g[@]}" "$TRY" symlink ../.env proj/workspace/l;	expect "${D[0]}" 0
	lr "${g[@]}" "$TRY" read proj/workspace/l;		expect "${D[1]}" 13
	plain read proj/workspace/l;				expect "${D[2]}" 0
	ln -s ../src/f1 proj/workspace/l2
	lr "${g[@]}" "$TRY" read proj/workspace/l2;		expect "${D[3]}" 0
}

# ===========================================================================
# Hard links and renames across grants: nothing leaves a read-only tree, no
# secret is linked into the workspace.

t_link_rename() {
	local D=("link: proj/.env -> workspace/x denied" "control: the same link outside the sandbox"
		 "rename: src/f1 -> workspace/f1 denied" "link: src/f1 -> workspace/f1l denied"
		 "rename: within workspace" "link: within workspace"
		 "link/rename: src/f1 still there, no secret in workspace")
	needs_abi 1 "${D[@]}" || return
	fixture link_rename
	local g=(--ro proj/src --rw proj/workspace --)

	lr "${g[@]}" "$TRY" link proj/.env proj/workspace/x;	expect "${D[0]}" "18|13"
	plain link proj/.env proj/workspace/x0;			expect "${D[1]}" 0
	rm -f proj/workspace/x0
	lr "${g[@]}" "$TRY" rename proj/src/f1 proj/workspace/f1; expect "${D[2]}" "18|13"
	lr "${g[@]}" "$TRY" link proj/src/f1 proj/workspace/f1l; expect "${D[3]}" "18|13"
	echo a >proj/workspace/a
	lr "${g[@]}" "$TRY" rename proj/workspace/a proj/workspace/b; expect "${D[4]}" 0
	lr "${g[@]}" "$TRY" link proj/workspace/b proj/workspace/c; expect "${D[5]}" 0
	assert "${D[6]}" eval '[ -f proj/src/f1 ] && [ ! -e proj/workspace/x ] &&
		[ ! -e proj/workspace/f1 ] && [ ! -e proj/workspace/f1l ] && [ -f proj/workspace/c ]'
}

# ===========================================================================
# truncate(2) and ftruncate(2): Landlock ABI 3 guards truncation.

t_truncate() {
	local D=("truncate: truncate(2) src/f1 denied" "truncate: ftruncate src/f1 denied"
		 "truncate: src/f1 kept its content" "control: truncate(2) workspace/t"
		 "control: ftruncate workspace/t")
	needs_abi 3 "${D[@]}" || return
	fixture truncate
	local g=(--ro proj/src --rw proj/workspace --)

	echo data >proj/workspace/t
	lr "${g[@]}" "$TRY" truncate proj/src/f1;		expect "${D[0]}" 13
	lr "${g[@]}" "$TRY" ftruncate proj/src/f1;		expect "${D[1]}" 13
	assert "${D[2]}" [ "$(cat proj/src/f1)" = "f1 content" ]
	lr "${g[@]}" "$TRY" truncate proj/workspace/t;		expect "${D[3]}" 0
	echo data >proj/workspace/t
	lr "${g[@]}" "$TRY" ftruncate proj/workspace/t;		expect "${D[4]}" 0
}

# ===========================================================================
# Execute: only --rox/--rwx trees.

t_exec() {
	local D=("exec: lr-try copy in --rw workspace denied"
		 "exec: landrun COMMAND in --rw workspace -> 126"
		 "control: lr-try copy in --rwx tools" "control: the workspace copy outside the sandbox")
	needs_abi 1 "${D[@]}" || return
	fixture exec
	mkdir tools && cp "$TRY" proj/workspace/lr-try2 && cp "$TRY" tools/lr-try2

	lr --rw proj/workspace -- "$TRY" exec proj/workspace/lr-try2 exit 0; expect "${D[0]}" 13
	lr --rw proj/workspace -- proj/workspace/lr-try2 exit 0;	expect "${D[1]}" 126
	lr --rwx tools -- "$TRY" exec tools/lr-try2 exit 0;		expect "${D[2]}" 0
	plain exec proj/workspace/lr-try2 exit 0;			expect "${D[3]}" 0
}

# ===========================================================================
# .env exposure: a grant that would hand a secrets file to the command.

t_dotenv() {
	local D=("dotenv: --ro proj (holds .env) runs; proj/.env unreadable"
		 "dotenv: stderr names proj/.env as kept out" "dotenv: the rest of proj is readable"
		 "control: proj/.env readable outside the sandbox"
		 "dotenv: --allow-dotenv proj/.env makes it readable"
		 "dotenv: --ro proj/.env (the file itself) refused" "dotenv: message names --allow-dotenv"
		 "dotenv: the command did not run"
		 "dotenv: --env-file proj/.env --ro proj/src runs"
		 "dotenv: --env-file conf/settings under --ro conf: unreadable"
		 "dotenv: the grant's other files are readable")
	# (without Landlock nothing is carved: see the enosys cases)
	needs_abi 1 "${D[@]}" || return
	fixture dotenv
	local m=(--rw mark --)

	lr --ro proj -- "$TRY" read proj/.env;			expect "${D[0]}" 13
	assert "${D[1]}" err_has "kept out: proj/.env"
	lr --ro proj -- "$TRY" read proj/src/f1;		expect "${D[2]}" 0
	plain read proj/.env;					expect "${D[3]}" 0
	lr --ro proj --allow-dotenv proj/.env -- "$TRY" read proj/.env; expect "${D[4]}" 0
	lr --ro proj/.env "${m[@]}" "$TRY" create mark/ran;	expect "${D[5]}" 125
	assert "${D[6]}" err_has "--allow-dotenv"
	assert "${D[7]}" not_ran
	lr --env-file proj/.env --ro proj/src -- "$TRY" read proj/src/f1; expect "${D[8]}" 0
	mkdir -p conf && cp proj/.env conf/settings && echo other >conf/other
	lr --env-file conf/settings --ro conf -- "$TRY" read conf/settings; expect "${D[9]}" 13
	lr --env-file conf/settings --ro conf -- "$TRY" read conf/other; expect "${D[10]}" 0
}

# ===========================================================================
# Credential files by their well-known names, kept out like .env; templates,
# certificates and the project's own files stay readable; --secret and
# secret = GLOB add names.

CREDENTIALS=(.npmrc .pypirc .netrc .git-credentials .dev.vars credentials.json
	service-account.json id_rsa id_ed25519 server.key server.pem terraform.tfstate
	secrets.yaml secrets.yml .pgpass .aws/credentials .docker/config.json .npmrc~)
READABLE=(package.json cert.pem fullchain.pem id_rsa.pub .npmrc.example
	secrets.example.yaml .aws/config config.json)

t_credentials() {
	local f
	needs_abi 1 "credentials: kept out" || return
	fixture credentials
	mkdir -p proj/.aws proj/.docker
	for f in "${CREDENTIALS[@]}" "${READABLE[@]}" src/token.txt src/other.txt; do
		echo "token=$SECRET_VALUE" >"proj/$f"
	done
	for f in "${CREDENTIALS[@]}"; do
		plain read "proj/$f";			expect "control: proj/$f readable outside" 0
		lr --ro proj -- "$TRY" read "proj/$f";	expect "credentials: proj/$f kept out" 13
	done
	for f in "${READABLE[@]}"; do
		lr --ro proj -- "$TRY" read "proj/$f";	expect "credentials: proj/$f readable" 0
	done
	lr --ro proj -- "$TRY" read proj/src/token.txt
	expect "control: proj/src/token.txt readable without --secret" 0
	lr --ro proj --secret token.txt -- "$TRY" read proj/src/token.txt
	expect "credentials: --secret token.txt keeps it out" 13
	lr --ro proj --secret token.txt -- "$TRY" read proj/src/other.txt
	expect "credentials: ... and not the file beside it" 0
	lr --ro proj --secret 'src/*.txt' -- "$TRY" read proj/src/other.txt
	expect "credentials: --secret 'src/*.txt' keeps out src/other.txt" 13
	printf 'secret = *.TXT\n' >policy.conf
	lr --config policy.conf --ro proj -- "$TRY" read proj/src/other.txt
	expect "credentials: secret = *.TXT in a policy file (any case)" 13
	lr --ro proj --allow-dotenv proj/.npmrc -- "$TRY" read proj/.npmrc
	expect "credentials: --allow-dotenv proj/.npmrc makes it readable" 0
	lr --ro proj/.npmrc --rw mark -- "$TRY" create mark/ran
	expect "credentials: --ro proj/.npmrc (the file itself) refused" 125
	assert "credentials: the command did not run" not_ran
	lr --ro proj --secret token.txt --explain -- "$TRY" exit 0
	assert "credentials: --explain says why .npmrc is kept out" \
		out_matches "proj/\.npmrc.*credential file"
	assert "credentials: --explain names the --secret that kept token.txt out" \
		out_matches "token\.txt.*--secret token\.txt"
	lr --secret '' -- "$TRY" exit 0
	expect "credentials: --secret '' refused" 125
}

# ===========================================================================
# Inherited file descriptors are closed unless kept.

t_fds() {
	local D=("fds: inherited fd 7 on .env is closed" "fds: --keep-fd 7 keeps it"
		 "control: fd 7 readable outside the sandbox" "fds: --keep-fd 8 (not open) refused")
	fixture fds

	lr --ro proj/src -- "$TRY" readfd 7 7<proj/.env;		expect "${D[0]}" 9
	lr --ro proj/src --keep-fd 7 -- "$TRY" readfd 7 7<proj/.env;	expect "${D[1]}" 0
	plain readfd 7 7<proj/.env;					expect "${D[2]}" 0
	lr --ro proj/src --keep-fd 8 -- "$TRY" exit 0;			expect "${D[3]}" 125
}

# ===========================================================================
# The environment: exactly what the rules select.

t_env() {
	local D=("env: --env, --env-prefix, --env NAME=VALUE" "env: exactly FOO, OPENAI_*, X"
		 "control: PATH, HOME and BAR were in the caller's environment"
		 "env: no PATH, HOME or BAR inside"
		 "env: --env-file value wins over the caller's" "env: file-only SECRET not passed"
		 "env: --env SECRET passes it from the file")
	fixture env
	mkdir conf && printf 'FOO=fromfile\nSECRET=s\n' >conf/app.env
	local want got

	export HOME=${HOME:-/nonexistent}
	FOO=1 BAR=2 OPENAI_KEY=k OPENAI_ORG=o \
		lr --env FOO --env-prefix OPENAI_ --env X=y -- "$TRY" env;	expect "${D[0]}" 0
	want=$(printf 'FOO=1\nOPENAI_KEY=k\nOPENAI_ORG=o\nX=y\n')
	got=$(sort "$W/out")
	assert "${D[1]}" [ "$got" = "$want" ]
	assert "${D[2]}" eval 'FOO=1 BAR=2 "$TRY" env | grep -q "^BAR=2$" &&
		"$TRY" env | grep -q "^PATH=" && "$TRY" env | grep -q "^HOME="'
	assert "${D[3]}" eval '! grep -qE "^(PATH|HOME|BAR)=" "$W/out"'

	FOO=1 lr --env-file conf/app.env --env FOO -- "$TRY" env
	assert "${D[4]}" [ "$(cat "$W/out")" = FOO=fromfile ]
	assert "${D[5]}" out_lacks SECRET
	FOO=1 lr --env-file conf/app.env --env FOO --env SECRET -- "$TRY" env
	assert "${D[6]}" [ "$(sort "$W/out")" = "$(printf 'FOO=fromfile\nSECRET=s\n')" ]
}

# ===========================================================================
# Exit statuses, like env(1): 125 landrun, 126 cannot execute, 127 not found;
# otherwise the command's own, from the same process (exec in place).

t_status() {
	local D=("status: the command's own (42)" "status: missing command path -> 127"
		 "status: command not in PATH -> 127"
		 "status: command not in PATH, PATH has an unsearchable dir -> 127"
		 "status: non-executable file -> 126"
		 "status: bad flag -> 125" "status: bad flag: one line on stderr"
		 "status: missing granted path -> 125" "status: the message names it"
		 "status: --ignore-missing runs" "status: malformed --env-file -> 125"
		 "status: the message says FILE:LINE" "status: the secret value is not shown"
		 "status: the PID is landrun's (exec in place)"
		 "status: a missing policy file of a 770-byte path -> 125"
		 "status: ... the message names the whole path (lib/error.h: none is cut at 512)")
	local long
	fixture status

	lr -- "$TRY" exit 42;					expect "${D[0]}" 42
	lr -- "$F/no-such-command";				expect "${D[1]}" 127
	PATH=/usr/bin:/bin lr -- no-such-command-e2e;		expect "${D[2]}" 127
	# a PATH entry the caller cannot search (root's ~/.cargo/bin seen by
	# nobody) hides nothing: the command is still just not there
	mkdir -m 000 locked
	PATH=$F/locked:/usr/bin:/bin lr -- no-such-command-e2e;	expect "${D[3]}" 127
	lr -- "$F/proj/src/f1";					expect "${D[4]}" 126
	lr --no-such-flag -- "$TRY" exit 0;			expect "${D[5]}" 125
	assert "${D[6]}" [ "$(wc -l <"$W/err")" = 1 ]
	lr --ro "$F/missing" -- "$TRY" exit 0;			expect "${D[7]}" 125
	assert "${D[8]}" err_has "$F/missing"
	lr --ignore-missing --ro "$F/missing" -- "$TRY" exit 0;	expect "${D[9]}" 0
	mkdir conf && printf 'A=1\nSECRET="%s\nB=2\n' "$SECRET_VALUE" >conf/bad.env
	lr --env-file conf/bad.env -- "$TRY" exit 0;		expect "${D[10]}" 125
	assert "${D[11]}" err_has "conf/bad.env:2"
	assert "${D[12]}" err_lacks "$SECRET_VALUE"
	run sh -c 'echo $$; exec "$0" --rox "$1" -- "$2" pid' "$LANDRUN" "$BIN" "$TRY"
	assert "${D[13]}" eval '[ "$(wc -l <"$W/out")" = 2 ] &&
		[ "$(sed -n 1p "$W/out")" = "$(sed -n 2p "$W/out")" ]'
	long=$F/$(printf 'd%.0s' {1..250})/$(printf 'e%.0s' {1..250})/$(printf 'f%.0s' {1..250})/missing.conf
	lr --config "$long" -- "$TRY" exit 0;			expect "${D[14]}" 125
	assert "${D[15]}" err_has "$long: "
}

# ===========================================================================
# A policy file means what it shows (issue 20, item 9): a NUL byte that
# cat does not show, a line over the reader's limit, a control byte: each
# refused, naming FILE:LINE, and nothing run; the same file without them runs.

t_policy_shows() {
	local D=("policy file: control, the clean file grants workspace (the command writes there)"
		 "policy file: a NUL byte inside a value -> 125"
		 "policy file: ... the message says FILE:LINE and NUL"
		 "policy file: ... nothing ran (what the cut value would grant was not written)"
		 "policy file: a comment line over 64 KiB, a setting at its end -> 125"
		 "policy file: ... the message says FILE:LINE" "policy file: ... nothing ran"
		 "policy file: an escape byte in a value -> 125" "policy file: ... nothing ran")
	fixture policy

	printf 'rw = %s\n' "$F/proj/workspace" >clean.conf
	lr --config clean.conf -- "$TRY" create proj/workspace/new
	assert "${D[0]}" eval '[ "$RC" = 0 ] && [ -e proj/workspace/new ]'
	# cat shows "rw = $F/proj/workspace"; cut at the NUL it would be $F/proj
	printf 'rw = %s\0/workspace\n' "$F/proj" >nul.conf
	lr --config nul.conf -- "$TRY" create proj/cut;		expect "${D[1]}" 125
	assert "${D[2]}" eval 'err_has "nul.conf:1" && err_has "NUL"'
	assert "${D[3]}" [ ! -e proj/cut ]
	{ printf '# '; head -c 65600 /dev/zero | tr '\0' x; printf 'rw = %s\n' "$F/mark"; } >long.conf
	lr --config long.conf -- "$TRY" create mark/ran;	expect "${D[4]}" 125
	assert "${D[5]}" err_has "long.conf:1"
	assert "${D[6]}" not_ran
	printf 'rw = %s\033]0;title\007\n' "$F/mark" >esc.conf
	lr --config esc.conf -- "$TRY" create mark/ran;		expect "${D[7]}" 125
	assert "${D[8]}" not_ran
}

# ===========================================================================
# Privileges: no capabilities, no_new_privs.

# all_zero STATUS KEY...: every KEY line of STATUS (tabs removed) is all zeros
all_zero() {
	local status=$1 k
	shift
	for k; do
		grep -qx "$k:0000000000000000" <<<"$status" || return 1
	done
}

t_caps() {
	local D Z=0000000000000000 caps
	fixture caps
	if [ "$UID_NOW" = 0 ]; then
		D=("caps: as root, runs" "caps: CapInh/CapPrm/CapEff/CapBnd/CapAmb all 0"
		   "caps: NoNewPrivs 1" "control: root has capabilities outside the sandbox")
	else
		D=("caps: as uid $UID_NOW, runs" "caps: CapPrm/CapEff/CapAmb 0"
		   "caps: NoNewPrivs 1" "control: the caller has no_new_privs 0")
	fi
	# /proc/self is resolved by landrun, whose pid the command keeps
	lr --ro /proc/self/status -- "$TRY" caps;		expect "${D[0]}" 0
	caps=$(tr -d '\t' <"$W/out")
	if [ "$UID_NOW" = 0 ]; then
		assert "${D[1]}" all_zero "$caps" CapInh CapPrm CapEff CapBnd CapAmb
	else
		assert "${D[1]}" all_zero "$caps" CapPrm CapEff CapAmb
	fi
	assert "${D[2]}" grep -qx "NoNewPrivs:1" <<<"$caps"
	plain caps
	if [ "$UID_NOW" = 0 ]; then
		assert "${D[3]}" eval '! grep -q "^CapEff:.$Z" "$W/out"'
	elif grep -q "^NoNewPrivs:.1" "$W/out"; then
		# the suite's caller already set it: the check above cannot tell
		# landrun from its parent, which we say rather than hide
		echo "# the caller already has no_new_privs: NoNewPrivs 1 inside does not prove landrun set it"
		tap_ok "${D[3]} (already 1: inconclusive)"
	else
		assert "${D[3]}" true
	fi
}

# ===========================================================================
# Fallback: a kernel without Landlock (simulated with lr-fakeabi).

t_fallback_off() { # MODE (enosys|eopnotsupp)
	local mode=$1
	local D=("$mode: --on-unsupported=error -> 125" "$mode: the command did not run"
		 "$mode: stderr lists fs.read, fs.write, fs.exec"
		 "$mode: warn (default) runs" "$mode: and the command ran" "$mode: stderr says not enforced"
		 "$mode: Landlock really is off (.env readable: the simulation reached landrun)"
		 "$mode: ignore runs" "$mode: ignore is silent"
		 "$mode: LANDRUN_ON_UNSUPPORTED=error -> 125" "$mode: the command did not run"
		 "$mode: --on-unsupported=warn overrides LANDRUN_ON_UNSUPPORTED=error"
		 "$mode: --ro proj (holds .env): error names fs.secrets as lost")
	if [ "$SECCOMP_ERRNO" != yes ]; then
		local d; for d in "${D[@]}"; do skip "$d" "needs seccomp SECCOMP_RET_ERRNO"; done
		return
	fi
	fixture "fallback_$mode"
	local m=(--ro proj/src --rw mark --)

	fake "$mode" --on-unsupported=error "${m[@]}" "$TRY" create mark/ran; expect "${D[0]}" 125
	assert "${D[1]}" not_ran
	assert "${D[2]}" eval 'err_has "fs.read" && err_has "fs.write" && err_has "fs.exec"'
	fake "$mode" "${m[@]}" "$TRY" create mark/ran;		expect "${D[3]}" 0
	assert "${D[4]}" ran
	assert "${D[5]}" err_has "not enforced"
	rm -f mark/ran
	fake "$mode" "${m[@]}" "$TRY" read proj/.env;		expect "${D[6]}" 0
	fake "$mode" --on-unsupported=ignore "${m[@]}" "$TRY" create mark/ran; expect "${D[7]}" 0
	assert "${D[8]}" eval 'err_empty && ran'
	rm -f mark/ran
	LANDRUN_ON_UNSUPPORTED=error fake "$mode" "${m[@]}" "$TRY" create mark/ran
	expect "${D[9]}" 125
	assert "${D[10]}" not_ran
	LANDRUN_ON_UNSUPPORTED=error fake "$mode" --on-unsupported=warn "${m[@]}" "$TRY" exit 0
	expect "${D[11]}" 0
	fake "$mode" --on-unsupported=error --ro proj -- "$TRY" exit 0
	if [ "$RC" = 125 ] && err_has "fs.secrets"; then tap_ok "${D[12]}"; else tap_not_ok "${D[12]}"; fi
}

# Under a caller's seccomp filter that refuses what landrun needs (a
# container engine's profile): the messages name the filter, not the
# kernel, and seccomp(2) refused falls back to prctl(PR_SET_SECCOMP).
t_fallback_refused() {
	local D=("eperm: --on-unsupported=error -> 125"
		 "eperm: the message names the caller's seccomp filter, not the kernel"
		 "noseccomp: landrun's filter is loaded by prctl: 2 filters in force"
		 "control: noseccomp: 1 filter without landrun"
		 "noseccomp: --on-unsupported=error runs (nothing lost)"
		 "noseccomp: --explain says the filter is loaded by prctl")
	local sys=(--rox /usr,/bin,/lib,/lib64,"$BIN" --ignore-missing --ro /proc/self/status)
	if [ "$SECCOMP_ERRNO" != yes ]; then
		local d; for d in "${D[@]}"; do skip "$d" "needs seccomp SECCOMP_RET_ERRNO"; done
		return
	fi
	fake eperm --on-unsupported=error -- "$TRY" exit 0;	expect "${D[0]}" 125
	assert "${D[1]}" eval 'err_has "the caller'"'"'s seccomp filter refused landlock_create_ruleset: EPERM" && err_lacks "lsm="'
	run "$FAKE" noseccomp -- "$LANDRUN" "${sys[@]}" -- grep Seccomp_filters /proc/self/status
	assert "${D[2]}" eval '[ "$RC" = 0 ] && grep -q "Seccomp_filters:.2" "$W/out"'
	run "$FAKE" noseccomp -- "$(command -v grep)" Seccomp_filters /proc/self/status
	assert "${D[3]}" eval '[ "$RC" = 0 ] && grep -q "Seccomp_filters:.1" "$W/out"'
	run "$FAKE" noseccomp -- "$LANDRUN" "${sys[@]}" --on-unsupported=error -- "$TRY" exit 0
	expect "${D[4]}" 0
	run "$FAKE" noseccomp -- "$LANDRUN" "${sys[@]}" --explain
	assert "${D[5]}" grep -q "by prctl" "$W/out"
}

# A caller's filter that lies: landlock_restrict_self or seccomp(2) returns 0
# and does nothing.  Only the witnesses can tell, the command's and the
# supervisor's (--timeout keeps one), and --on-unsupported decides.
t_fallback_lying() {
	local D=("lying-restrict: --on-unsupported=error -> 125" "lying-restrict: the command did not run"
		 "lying-restrict: warn runs" "lying-restrict: and says what is not enforced"
		 "lying-restrict: the command's witness says Landlock is not in force"
		 "lying-restrict: the supervisor's witness says so of its own"
		 "lying-restrict: Landlock really is off (f1 writable: the lie reached landrun)"
		 "lying-seccomp: --on-unsupported=error -> 125" "lying-seccomp: the command did not run"
		 "lying-seccomp: warn refuses all the same: the broker's witness does not give way"
		 "lying-seccomp: the witnesses say the filter is not in force (command, supervisor)"
		 "control: without a lie, error runs supervised, no witness complains"
		 "lying-restrict: the egress helper, which holds the keys, refuses to run unconfined (warn too)"
		 "control: without a lie, the egress helper runs")
	if [ "$SECCOMP_ERRNO" != yes ]; then
		local d; for d in "${D[@]}"; do skip "$d" "needs seccomp SECCOMP_RET_ERRNO"; done
		return
	fi
	fixture fallback_lying
	local m=(--timeout 60 --ro proj/src --rw mark --)

	fake lying-restrict --on-unsupported=error "${m[@]}" "$TRY" create mark/ran
	expect "${D[0]}" 125
	assert "${D[1]}" not_ran
	fake lying-restrict "${m[@]}" "$TRY" create mark/ran;	expect "${D[2]}" 0
	assert "${D[3]}" eval 'ran && err_has "not enforced (witness)"'
	assert "${D[4]}" err_matches "warning: witness: listing .* was not denied: Landlock is not in force"
	assert "${D[5]}" err_matches "supervisor: witness: listing .* was not denied"
	fake lying-restrict "${m[@]}" "$TRY" write proj/src/f1;	expect "${D[6]}" 0
	rm -f mark/ran
	fake lying-seccomp --on-unsupported=error "${m[@]}" "$TRY" create mark/ran
	expect "${D[7]}" 125
	assert "${D[8]}" not_ran
	fake lying-seccomp "${m[@]}" "$TRY" create mark/ran
	# (the broker's own witness, or the command's of the broker, whichever
	# comes first: both refuse)
	assert "${D[9]}" eval '[ "$RC" = 125 ] && not_ran && err_matches "the broker: witness:|witness: the broker did not answer|the broker: cannot hand it the filter"'
	assert "${D[10]}" eval 'err_has "supervisor: witness: unshare(0) was not denied" &&
		err_has "warning: witness: unshare(0) was not denied"'
	rm -f mark/ran
	run "$LANDRUN" --rox "$BIN" --on-unsupported=error "${m[@]}" "$TRY" create mark/ran
	assert "${D[11]}" eval '[ "$RC" = 0 ] && ran && err_lacks "witness"'
	rm -f mark/ran
	fake lying-restrict --allow-domain example.com "${m[@]}" "$TRY" create mark/ran
	assert "${D[12]}" eval '[ "$RC" = 125 ] && not_ran &&
		err_has "egress: witness: listing" && err_has "the egress helper: cannot confine itself"'
	run "$LANDRUN" --rox "$BIN" --allow-domain example.com "${m[@]}" "$TRY" create mark/ran
	assert "${D[13]}" eval '[ "$RC" = 0 ] && ran'
}

# Fallback: an older Landlock (the real kernel, told to report ABI N).
t_fallback_abi() {
	local D=("abi=2: error -> 125" "abi=2: reports fs.truncate lost" "abi=2: fs.read is not lost"
		 "abi=2: the command did not run" "abi=2: warn runs"
		 "abi=2: the command CAN truncate src/f1 (the simulation reaches the kernel)"
		 "abi=2: src/f1 is now empty" "abi=2: reading .env is still denied"
		 "abi=4: error -> 125" "abi=4: reports fs.ioctl-dev lost" "abi=4: fs.truncate is not lost"
		 "abi=2: --explain says fs.truncate LOST" "control: --explain says fs.truncate by landlock"
		 "enosys: --explain=json has \"landlock_abi\":0"
		 "control: --explain=json has the kernel's ABI")
	if [ "$SECCOMP_NOTIF" != yes ]; then
		local d; for d in "${D[@]}"; do skip "$d" "needs seccomp user notifications"; done
		return
	fi
	needs_abi 4 "${D[@]}" || return
	fixture fallback_abi
	local m=(--ro proj/src --rw mark --)

	fake abi=2 --on-unsupported=error "${m[@]}" "$TRY" create mark/ran; expect "${D[0]}" 125
	assert "${D[1]}" err_has "cannot enforce fs.truncate"
	assert "${D[2]}" err_lacks "fs.read"
	assert "${D[3]}" not_ran
	fake abi=2 "${m[@]}" "$TRY" exit 0;			expect "${D[4]}" 0
	fake abi=2 "${m[@]}" "$TRY" truncate proj/src/f1;	expect "${D[5]}" 0
	assert "${D[6]}" [ ! -s proj/src/f1 ]
	fake abi=2 "${m[@]}" "$TRY" read proj/.env;		expect "${D[7]}" 13
	fake abi=4 --on-unsupported=error "${m[@]}" "$TRY" exit 0; expect "${D[8]}" 125
	assert "${D[9]}" err_has "cannot enforce fs.ioctl-dev"
	assert "${D[10]}" err_lacks "fs.truncate"
	fake abi=2 --explain "${m[@]}" "$TRY" exit 0
	assert "${D[11]}" out_matches '^ *fs\.truncate +LOST'
	lr --explain "${m[@]}" "$TRY" exit 0
	assert "${D[12]}" out_matches '^ *fs\.truncate +landlock'
	fake enosys --explain=json "${m[@]}" "$TRY" exit 0
	assert "${D[13]}" out_has '"landlock_abi":0'
	lr --explain=json "${m[@]}" "$TRY" exit 0
	assert "${D[14]}" out_has "\"landlock_abi\":$ABI"
}

# ===========================================================================
# --explain runs nothing.

t_explain() {
	local D=("explain: --explain exits 0" "explain: prints the plan" "explain: the command did not run"
		 "explain: --explain=json exits 0" "explain: the command did not run"
		 "control: without --explain the command runs")
	fixture explain
	local m=(--ro proj/src --rw mark --)

	lr --explain "${m[@]}" "$TRY" create mark/ran;		expect "${D[0]}" 0
	assert "${D[1]}" out_has "fs.read"
	assert "${D[2]}" not_ran
	lr --explain=json "${m[@]}" "$TRY" create mark/ran;	expect "${D[3]}" 0
	assert "${D[4]}" not_ran
	lr "${m[@]}" "$TRY" create mark/ran;			expect "${D[5]}" 0
	assert "${D[5]}: witness present" ran

	# a grant expanded from the environment, shown escaped (and its error)
	local esc
	esc=$(printf 'e\033]0;pwned\007\033[31m')
	mkdir -p "proj/$esc" && printf 'ro = ${LRT_ESC}\n' >esc.conf || exit 1
	LRT_ESC=$F/proj/$esc lr --config esc.conf --explain -- "$TRY" exit 0
	expect "explain: a grant from \${LRT_ESC} (escape sequences in it)" 0
	assert "explain: shown escaped, no raw ESC or BEL" \
		bash -c "! grep -q \"\$(printf '[\\033\\007]')\" '$W/out' && grep -qF 'e\\x1b]0;pwned\\x07' '$W/out'"
	LRT_ESC=$F/proj/missing-$esc lr --config esc.conf -- "$TRY" exit 0
	expect "explain: a missing one is refused" 125
	assert "explain: the error names it escaped" \
		bash -c "! grep -q \"\$(printf '[\\033\\007]')\" '$W/err' && grep -qF 'missing-e\\x1b]0;pwned' '$W/err'"
}

# ===========================================================================
# --private-tmp and --private-home: a new directory per run, made 0700 under
# /tmp; each run removes those of earlier runs whose process is gone, and no
# other.

t_private() {
	local D=("private: --private-tmp --private-home set TMPDIR and HOME"
		 "private: both in one new directory /tmp/landrun.PID.XXXXXX, mode 0700"
		 "private: the command can write in both"
		 "private: the next run removes the directory of a run whose process is gone"
		 "private: it keeps one whose process lives" "private: it keeps one not 0700"
		 "private: it follows no symlink left inside (the target is untouched)")
	local dir tmpd homed alive dead other
	fixture private
	lr --private-tmp --private-home -- "$TRY" env
	tmpd=$(sed -n 's/^TMPDIR=//p' "$W/out") homed=$(sed -n 's/^HOME=//p' "$W/out")
	dir=${tmpd%/tmp}
	assert "${D[0]}" eval '[ -n "$tmpd" ] && [ -n "$homed" ]'
	assert "${D[1]}" eval '[ "${homed%/home}" = "$dir" ] && [[ "$dir" == /tmp/landrun.[0-9]*.?????? ]] &&
		[ "$(stat -c %a "$dir")" = 700 ] && [ "$(stat -c %u "$dir")" = "$(id -u)" ]'
	lr --rox /usr,/bin,/lib,/lib64 --ignore-missing --private-tmp --private-home -- \
		/bin/sh -c 'echo a >"$TMPDIR/x" && echo b >"$HOME/y" && cat "$TMPDIR/x" "$HOME/y"'
	assert "${D[2]}" eval '[ "$RC" = 0 ] && [ "$(cat "$W/out")" = "$(printf "a\nb")" ]'
	# made by hand: a run whose process is gone (a pid just reaped), one that
	# lives (this shell), one that is not 0700; a symlink out of the first
	sh -c 'exit 0' & wait $!
	dead=/tmp/landrun.$!.deadXX alive=/tmp/landrun.$$.aliveX other=/tmp/landrun.$!.openXX
	mkdir -m 700 "$dead" "$alive" && mkdir -m 755 "$other" && echo keep >"$F/target" &&
		ln -s "$F/target" "$dead/link" && mkdir "$dead/sub" && echo x >"$dead/sub/f"
	lr --private-tmp -- "$TRY" exit 0
	assert "${D[3]}" eval '[ ! -e "$dead" ]'
	assert "${D[4]}" test -d "$alive"
	assert "${D[5]}" test -d "$other"
	assert "${D[6]}" eval '[ "$(cat "$F/target")" = keep ]'
	rm -rf "$alive" "$other" "$dir"
}

t_ro_rw
t_private
t_symlink
t_link_rename
t_truncate
t_exec
t_dotenv
t_credentials
t_policy_shows
t_fds
t_env
t_status
t_caps
t_fallback_off enosys
t_fallback_off eopnotsupp
t_fallback_refused
t_fallback_lying
t_fallback_abi
t_explain

tap_done
