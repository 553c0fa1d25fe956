#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Privileges: what a command started as root can do to the files around it,
# and --user.  TAP output.
#
#   privs.sh LANDRUN LR_TRY LR_FAKEABI [--as-nobody]
#
# As root, the command keeps uid 0 with empty capability sets, and uid 0
# owns the system's files: chmod, chown and the xattr calls need no Landlock
# right, and a descriptor opened read-only through a grant is enough for the
# f* forms.  Each attack is judged outside the sandbox (stat, the xattr
# list), beside a control that shows uid 0 without capabilities, outside
# landrun, succeeds at the same thing.  As uid 65534, chmod inside a
# writable grant must keep working.

set -u

. "$(dirname "$0")/lib.sh" || exit 2
e2e_start --grants-only privs landrun lr-try lr-fakeabi -- "$@"	# from here on, the body

LANDRUN=$BIN/landrun
TRY=$BIN/lr-try
FAKE=$BIN/lr-fakeabi
W=$TMP/t/.work-$$
mkdir -p "$W" || exit 1
UID_NOW=$(id -u)

e2e_hello "landrun privs" "binaries in $BIN"

# the broker serves the writable grants (fs.broker)
mkdir -p "$W/probe"
BROKER=$("$LANDRUN" --rox "$BIN" --rw "$W/probe" --explain=json -- "$TRY" exit 0 2>/dev/null |
	grep -o '"id":"fs.broker","requested":true,"enforced":true' || true)

lr() {
	run "$LANDRUN" --rox "$BIN" "$@"
}

# expect DESC WANT (or "A|B") comes from lib.sh.

out_has() { grep -qF -- "$1" "$W/out"; }
out_matches() { grep -qE -- "$1" "$W/out"; }

# meta FILE: mode, owner, group and extended attributes, seen from outside
meta() {
	stat -c '%a %u %g' "$1" && "$TRY" xattrs "$1"
}

F=
fixture() {
	F=$TMP/t/$1
	mkdir -p "$F/outside" "$F/sys" "$F/ws" &&
	echo secret >"$F/outside/secret" && chmod 600 "$F/outside/secret" &&
	cp "$TRY" "$F/sys/tool" && chmod 755 "$F/sys/tool" &&
	echo '#!/bin/sh' >"$F/ws/s.sh" && chmod 644 "$F/ws/s.sh" &&
	cd "$F" || { echo "Bail out! cannot build fixture $F"; exit 1; }
}

# ===========================================================================
# uid 0: the chmod/chown/xattr family is denied, by path and by descriptor.

# The calls, as lr-try ARGS (TARGET is substituted).  Without CAP_CHOWN the
# owner of a file may still give it to any group it is a member of: the
# command runs with the supplementary group 65534 (setpriv --groups), as
# root does in many container images (disk, adm, ...).
PATH_ATTACKS=(
	"chmod TARGET 4755" "fchmodat2 TARGET 4755" "chown TARGET 0:65534"
	"fchownat-empty TARGET 0:65534" "setxattr TARGET user.lr 1" "setxattrat TARGET user.lr 1"
	"removexattr TARGET user.keep"
)
# by a descriptor opened read-only: only through a grant
FD_ATTACKS=("fchmod TARGET 4755" "fchown TARGET 0:65534" "fsetxattr TARGET user.lr 1")
GROUPS_=(setpriv --groups 65534 --)
NOCAPS=(setpriv --groups 65534 --no-new-privs --inh-caps=-all --ambient-caps=-all
	--bounding-set=-all --)

t_root_metadata() {
	local a target before desc
	fixture root
	# an xattr to remove, set outside
	"$TRY" setxattr outside/secret user.keep 1 && "$TRY" setxattr sys/tool user.keep 1 ||
		{ echo "Bail out! cannot set an xattr in $F (user xattrs on this filesystem?)"; exit 1; }
	for target in outside/secret sys/tool; do
		before=$(meta "$target")
		local attacks=("${PATH_ATTACKS[@]}")
		[ "$target" = sys/tool ] && attacks+=("${FD_ATTACKS[@]}")
		for a in "${attacks[@]}"; do
			desc="root: ${a/TARGET/$target}"
			# shellcheck disable=SC2086 # ARGS are words
			run "${GROUPS_[@]}" "$LANDRUN" --rox "$BIN" --ro sys --rw ws -- \
				"$TRY" ${a/TARGET/$target}
			expect "$desc" 1
			if [ "$(meta "$target")" = "$before" ]; then
				tap_ok "$desc: mode, owner and xattrs unchanged outside"
			else
				tap_not_ok "$desc: mode, owner and xattrs unchanged outside"
				echo "#   before: $before"
				echo "#   after:  $(meta "$target")"
			fi
		done
	done

	# the controls: uid 0 with empty capability sets and no_new_privs,
	# outside landrun, does each of these (so the filter is what stops it)
	cp outside/secret ctl && chmod 600 ctl && "$TRY" setxattr ctl user.keep 1
	for a in "${PATH_ATTACKS[@]}" "${FD_ATTACKS[@]}"; do
		# shellcheck disable=SC2086
		run "${NOCAPS[@]}" "$TRY" ${a/TARGET/ctl}
		expect "control: uid 0 without capabilities, outside landrun: ${a/TARGET/ctl}" 0
	done
	# (the change of group clears the setuid bit)
	assert "control: and the file changed (mode 755, group 65534, user.lr set, user.keep gone)" \
		eval '[ "$(stat -c "%a %u %g" ctl)" = "755 0 65534" ] &&
		[ "$("$TRY" xattrs ctl)" = user.lr ]'

	# setfacl, the tool: ACLs are xattrs
	if command -v setfacl >/dev/null; then
		before=$(meta outside/secret)
		run "$LANDRUN" --rox /usr,/bin,/lib,/lib64 --ro /etc -- \
			setfacl -m u:65534:r "$F/outside/secret"
		assert "root: setfacl -m u:65534:r on a file outside the grants fails" [ "$RC" != 0 ]
		assert "root: and its ACL is unchanged outside" [ "$(meta outside/secret)" = "$before" ]
		run setfacl -m u:65534:r ctl
		expect "control: setfacl outside landrun" 0
	else
		skip "root: setfacl on a file outside the grants" "setfacl missing (Debian package acl)"
		skip "root: and its ACL is unchanged outside" "setfacl missing (Debian package acl)"
		skip "control: setfacl outside landrun" "setfacl missing (Debian package acl)"
	fi

	# inside the writable grant the broker makes chmod and chown (beneath
	# the grant, no setuid, nothing protected); without it they stay denied
	if [ -n "$BROKER" ]; then
		lr --rw ws -- "$TRY" chmod ws/s.sh 755
		expect "root: chmod +x inside the writable grant works (the broker's)" 0
		assert "root: ws/s.sh has mode 755, seen outside" [ "$(stat -c %a ws/s.sh)" = 755 ]
		lr --rw ws -- "$TRY" fchmod ws/s.sh 700
		expect "root: fchmod of a descriptor inside the writable grant works" 0
		assert "root: ws/s.sh has mode 700, seen outside" [ "$(stat -c %a ws/s.sh)" = 700 ]
		# pidfd_getfd refused, as Docker's and podman's default profiles
		# do without CAP_SYS_PTRACE: the broker opens the descriptor's
		# /proc link instead, and judges the file all the same
		NP=("$FAKE" nopidfd -- "$LANDRUN" --rox "$BIN" --ro "$F/outside" --rw ws --)
		run "${NP[@]}" "$TRY" fchmod ws/s.sh 750
		expect "root, no pidfd_getfd: fchmod of a descriptor inside the writable grant works" 0
		assert "root, no pidfd_getfd: ws/s.sh has mode 750, seen outside" [ "$(stat -c %a ws/s.sh)" = 750 ]
		run "${NP[@]}" "$TRY" fchmod ws/s.sh 4755
		expect "root, no pidfd_getfd: fchmod to setuid inside the writable grant is denied" 1
		before=$(meta outside/secret)
		run "${NP[@]}" "$TRY" fchmod outside/secret 644
		expect "root, no pidfd_getfd: fchmod of a descriptor outside the writable grant is denied" 1
		assert "root, no pidfd_getfd: outside/secret unchanged, seen outside" \
			[ "$(meta outside/secret)" = "$before" ]
		chmod 700 ws/s.sh
		run "${GROUPS_[@]}" "$LANDRUN" --rox "$BIN" --rw ws -- "$TRY" chown ws/s.sh 0:65534
		expect "root: chown to a group of its own inside the writable grant works" 0
		assert "root: ws/s.sh has group 65534, seen outside" \
			[ "$(stat -c %g ws/s.sh)" = 65534 ]
		for a in "chmod ws/s.sh 4755" "fchmod ws/s.sh 4755" "fchmodat2 ws/s.sh 2755"; do
			lr --rw ws -- "$TRY" $a
			expect "root: ${a%% *} to setuid or setgid inside the writable grant is denied" 1
		done
		assert "root: ws/s.sh is neither setuid nor setgid, seen outside" \
			eval '[ ! -u ws/s.sh ] && [ ! -g ws/s.sh ] && [ "$(stat -c %a ws/s.sh)" = 700 ]'
		# a symlink in the grant to a file outside it: the broker follows it
		# beneath the grant only
		ln -s ../outside/secret ws/link
		before=$(meta outside/secret)
		lr --rw ws -- "$TRY" chmod ws/link 644
		expect "root: chmod through a symlink out of the writable grant is denied" 1
		lr --rw ws -- "$TRY" chown ws/link 0:65534
		expect "root: chown through a symlink out of the writable grant is denied" 1
		assert "root: outside/secret unchanged, seen outside" [ "$(meta outside/secret)" = "$before" ]
		# what runs later outside stays as it is
		mkdir -p ws/.git && echo '[core]' >ws/.git/config && chmod 644 ws/.git/config
		lr --rw ws -- "$TRY" chmod ws/.git/config 777
		expect "root: chmod of .git/config inside the writable grant is refused" 13
		assert "root: .git/config kept mode 644, seen outside" \
			[ "$(stat -c %a ws/.git/config)" = 644 ]
		rm -rf ws/.git ws/link
		chmod 644 ws/s.sh
	else
		skip "root: chmod +x inside the writable grant works (the broker's)" \
			"needs seccomp user notification (Linux 5.14+) and kernel.yama.ptrace_scope 0 or 1 (the broker)"
		lr --rw ws -- "$TRY" chmod ws/s.sh 755
		expect "root: without the broker, chmod +x inside the writable grant is denied" 1
		assert "root: ws/s.sh kept mode 644" [ "$(stat -c %a ws/s.sh)" = 644 ]
	fi

	# nor can a file be born setuid or setgid there
	lr --rw ws -- "$TRY" mkfile ws/suid 4755
	expect "root: creating ws/suid with mode 4755 is denied" 1
	lr --rw ws -- "$TRY" mkfile ws/sgid 2755
	expect "root: creating ws/sgid with mode 2755 is denied" 1
	assert "root: neither exists, seen outside" eval '[ ! -e ws/suid ] && [ ! -e ws/sgid ]'
	lr --rw ws -- "$TRY" mkfile ws/x 755
	expect "control: root creates ws/x with mode 755 (how it makes an executable)" 0
	assert "control: ws/x is executable and not setuid, seen outside" \
		eval '[ -x ws/x ] && [ ! -u ws/x ]'
	run "${NOCAPS[@]}" "$TRY" mkfile ctl-suid 4755
	expect "control: uid 0 without capabilities, outside landrun, creates a setuid file" 0
	assert "control: and it is setuid" [ -u ctl-suid ]

	lr --rw ws --explain -- "$TRY" exit 0
	assert "root: --explain names privs.root-metadata, by seccomp" \
		out_matches '^ *privs\.root-metadata +seccomp'
	assert "root: --explain says the command runs as uid 0" out_has "runs as: uid 0, gid 0"
}

# ===========================================================================
# --user: started as root, the command runs as another user, the way
# container entrypoints drop privilege; the family above is then the
# kernel's business (it owns nothing of root's), and chmod works in its grant.

t_user_switch() {
	local caps
	fixture user_switch
	chown 65534:65534 ws ws/s.sh
	lr --user 65534:65534 --rw ws -- "$TRY" ids
	expect "--user 65534:65534: runs" 0
	assert "--user: real, effective and saved uid and gid are 65534, no other group" \
		out_has "uid=65534/65534/65534 gid=65534/65534/65534 groups=65534"
	lr --user nobody --rw ws --ro /proc/self/status -- "$TRY" caps
	caps=$(tr -d '\t' <"$W/out")
	assert "--user nobody (a name): every capability set empty, no_new_privs" \
		eval 'for k in CapInh CapPrm CapEff CapBnd CapAmb; do
			grep -qx "$k:0000000000000000" <<<"$caps" || exit 1; done &&
			grep -qx "NoNewPrivs:1" <<<"$caps"'
	lr --user 65534 --rw ws -- "$TRY" chmod ws/s.sh 755
	expect "--user: chmod +x inside the writable grant works" 0
	assert "--user: ws/s.sh is executable, seen outside" [ -x ws/s.sh ]
	for a in "chmod outside/secret 4755" "chown outside/secret 0:65534" \
		"setxattr outside/secret user.lr 1"; do
		# shellcheck disable=SC2086
		lr --user 65534 --rw ws -- "$TRY" $a
		expect "--user: $a (root's file: the kernel refuses)" "1|13"
	done
	assert "--user: outside/secret unchanged" \
		eval '[ "$(stat -c "%a %u %g" outside/secret)" = "600 0 0" ] &&
		[ -z "$("$TRY" xattrs outside/secret)" ]'
	lr --user 65534 --rw ws --explain -- "$TRY" exit 0
	assert "--user: --explain: privs.root-metadata not requested" \
		out_matches '^ *privs\.root-metadata +off'
	assert "--user: --explain says the uid and gid, switched to" \
		out_has "runs as: uid 65534, gid 65534 (--user"
	lr --user 65534 --rw ws --explain=json -- "$TRY" exit 0
	assert "--user: --explain=json process.uid, gid, switch_user" \
		out_has '"uid":65534,"gid":65534,"switch_user":true'
	lr --user root --rw ws --explain -- "$TRY" exit 0
	assert "--user root: privs.root-metadata by seccomp" \
		out_matches '^ *privs\.root-metadata +seccomp'

	# what landrun makes for the command is the command's
	lr --user 65534 --mkdir ws/made/by --rw ws/made/by -- "$TRY" create ws/made/by/f
	expect "--user: --mkdir makes the directory, and the command writes in it" 0
	assert "--user: the directories --mkdir made are uid 65534's" \
		eval '[ "$(stat -c %u ws/made ws/made/by | sort -u)" = 65534 ]'
	lr --user 65534 --mkdir made --rw ws -- "$TRY" exit 0
	expect "--user: --mkdir where uid 65534 may not create is refused" 125
	assert "--user: and nothing was made" [ ! -e made ]

	local tmpdir
	lr --user 65534 --private-tmp -- "$TRY" env
	tmpdir=$(sed -n 's/^TMPDIR=//p' "$W/out")
	assert "--user: the --private-tmp directory is uid 65534's" \
		eval '[ -n "$tmpdir" ] && [ "$(stat -c %u "$tmpdir" "${tmpdir%/tmp}" | sort -u)" = 65534 ]'
	[ -n "$tmpdir" ] && rm -rf "${tmpdir%/tmp}"

	lr --user ghost-user-e2e -- "$TRY" exit 0
	expect "--user ghost-user-e2e: refused" 125
	assert "--user: one line naming the user and /etc/passwd" \
		eval '[ "$(wc -l <"$W/err")" = 1 ] && grep -q "ghost-user-e2e.*/etc/passwd" "$W/err"'
	lr --user 4242 -- "$TRY" exit 0
	expect "--user 4242 (not in /etc/passwd, no group): refused" 125
	lr --user 4242:4242 -- "$TRY" ids
	expect "--user 4242:4242: runs" 0
	assert "--user 4242:4242: as uid and gid 4242" out_has "uid=4242/4242/4242 gid=4242/4242/4242"
}

t_user_not_root() {
	lr --user root -- "$TRY" exit 0
	expect "uid $UID_NOW: --user root refused" 125
	assert "uid $UID_NOW: the message says only root can" grep -q "only root can" "$W/err"
	lr --user "$UID_NOW" -- "$TRY" ids
	expect "uid $UID_NOW: --user naming the caller runs" 0
	assert "uid $UID_NOW: as the caller" out_has "uid=$UID_NOW/$UID_NOW/$UID_NOW"
}

# ===========================================================================
# Not root: nothing of the above is denied.

t_user_metadata() {
	fixture user
	lr --rw ws -- "$TRY" chmod ws/s.sh 755
	expect "uid $UID_NOW: chmod +x inside the writable grant" 0
	assert "uid $UID_NOW: ws/s.sh is executable, seen outside" [ -x ws/s.sh ]
	lr --rw ws --explain -- "$TRY" exit 0
	assert "uid $UID_NOW: --explain: privs.root-metadata not requested" \
		out_matches '^ *privs\.root-metadata +off'
	assert "uid $UID_NOW: --explain says who the command runs as" \
		out_has "runs as: uid $UID_NOW, gid $(id -g)"
}

if [ "$UID_NOW" = 0 ]; then
	t_root_metadata
	t_user_switch
else
	t_user_metadata
	t_user_not_root
fi

tap_done
