#!/bin/bash
# SPDX-License-Identifier: MIT
#
# broker.sh LANDRUN LR_TRY [--as-nobody] - the broker (src/supervisor/broker.c): a project
# whose root holds .git, .env and package.json behaves like any writable
# directory, but for the names that must stay out, whether or not they exist
# at start; every outcome is judged from outside the sandbox (the file, its
# content, what git runs afterwards), each refusal beside a control that
# works.  TAP output.
#
#   works:    a new file, a directory and files in it, rm, rm -r, an atomic
#             save (a temporary file renamed over), sed -i, a program made at
#             the root and run, a symlink and a hard link of ordinary files,
#             a file made in a directory renamed meanwhile
#   refused:  the harnesses' settings, .vscode, .envrc, a hook manager's
#             directory, a shell start-up file, a new .git at the root, in a
#             subdirectory and in a directory made during the run; a new
#             secret; renaming, linking or symlinking a secret to another name
#             (its content is never read); renaming .git away; writing
#             .git/config; each with the line that names the flag
#   #!:       a secret that begins with #! is not run (the kernel would show
#             its first line)
#   threads:  a thread with its own descriptor table and working directory
#             is served on what they name, not its leader's
#   fd links: /dev/fd/N, /dev/stdin and /proc/self/fd/N name the command's
#             descriptors (process substitution works), and what they reach
#             is judged as any name
#   races:    a second thread rewriting the path between an ordinary file and
#             .env (reads), an ordinary name and .claude (mkdir)
#   signals:  the command cannot kill the broker or its opener thread
#   after:    a plain git status in the project and in its subdirectories
#             runs nothing the command wrote

set -u
. "$(dirname "$0")/lib.sh" || exit 2
e2e_start --grants-only broker landrun lr-try -- "$@"

LANDRUN=$BIN/landrun
TRY=$BIN/lr-try
W=$TMP/t/.work-$$
P=$TMP/t/proj
mkdir -p "$W" || exit 1
e2e_hello "landrun broker" "binaries in $BIN"

SECRET=sk-broker-$$-$RANDOM
SYS=(--rox /usr,/bin,/lib,/lib64 --ro /etc --rw /dev/null --rox "$BIN" --ignore-missing)
ROUNDS=${LANDRUN_RACE_ROUNDS:-3000}

# the project as the command's, from its root
lr() { (cd "$P" && "$LANDRUN" "${SYS[@]}" --rwx "$P" --env PATH=/usr/bin:/bin "$@") \
	>"$W/out" 2>"$W/err"; RC=$?; }
err_has() { grep -qF -- "$1" "$W/err"; }
no_secret() { ! grep -qF -- "$SECRET" "$W/out" "$W/err"; }
gone() { [ ! -e "$P/$1" ] && [ ! -L "$P/$1" ]; }

ABI=$("$TRY" abi 2>/dev/null) || ABI=0
mkdir -p "$P"
BROKER=$("$LANDRUN" "${SYS[@]}" --explain=json --rwx "$P" -- "$TRY" exit 0 2>/dev/null |
	grep -o '"id":"fs.broker","requested":true,"enforced":true' || true)
needs_broker() {
	[ -n "$BROKER" ] && return 0
	local d
	for d; do skip "$d" "needs Landlock, seccomp user notification (Linux 5.14+) and kernel.yama.ptrace_scope 0 or 1"; done
	return 1
}

# .git, .env and package.json at the root, src/ with a file, old files
project() {
	rm -rf "$P" && mkdir -p "$P/src" "$P/build/obj" || exit 1
	(cd "$P" && git init -q . && printf 'TOKEN=%s\n' "$SECRET" >.env &&
		echo '{"name": "p", "version": "1.0.0"}' >package.json &&
		echo code >src/a.c && echo old >old.txt && echo o >build/obj/x.o &&
		printf 'SAFE\n' >safe.txt) || exit 1
	cp "$P/.git/config" "$W/config.before"
}

cd "$TMP/t" || exit 1

t_works() {
	local D=("works: a new file at the root"
		 "works: a new directory at the root, and files in it"
		 "works: rm of a file at the root, rm -r of a tree"
		 "works: an atomic save over package.json (a temporary file renamed over it)"
		 "works: sed -i on package.json"
		 "works: a program made at the root runs there"
		 "works: a symlink and a hard link of ordinary files"
		 "works: reading what was made, in a later run"
		 "works: what is made in a directory renamed meanwhile lands where the kernel finds it"
		 "works: a name that is not there is not found, in the project and outside it")
	needs_broker "${D[@]}" || return
	project
	lr -- sh -c 'echo notes >NOTES.md'
	assert "${D[0]}" eval '[ "$RC" = 0 ] && [ "$(cat "$P/NOTES.md")" = notes ]'
	lr -- sh -c 'mkdir -p node_modules/a/b && echo m >node_modules/a/b/index.js'
	assert "${D[1]}" eval '[ "$RC" = 0 ] && [ "$(cat "$P/node_modules/a/b/index.js")" = m ]'
	lr -- sh -c 'rm old.txt && rm -r build'
	assert "${D[2]}" eval '[ "$RC" = 0 ] && gone old.txt && gone build'
	lr -- sh -c 'echo "{\"name\": \"q\"}" >.package.json.tmp && mv .package.json.tmp package.json'
	assert "${D[3]}" eval '[ "$RC" = 0 ] && grep -q q "$P/package.json" && gone .package.json.tmp'
	lr -- sed -i s/q/r/ package.json
	assert "${D[4]}" eval '[ "$RC" = 0 ] && grep -q r "$P/package.json"'
	lr -- sh -c "cp $TRY ./tool && ./tool exit 7"
	assert "${D[5]}" eval '[ "$RC" = 7 ] && [ -x "$P/tool" ]'
	lr -- sh -c 'ln -s NOTES.md notes-link && ln NOTES.md notes-hard && cat notes-link notes-hard'
	assert "${D[6]}" eval '[ "$RC" = 0 ] && [ -L "$P/notes-link" ] &&
		[ "$(stat -c %h "$P/NOTES.md")" = 2 ] && [ "$(grep -c notes "$W/out")" = 2 ]'
	lr -- cat NOTES.md node_modules/a/b/index.js
	assert "${D[7]}" eval '[ "$RC" = 0 ] && grep -qx notes "$W/out" && grep -qx m "$W/out"'
	# the broker knows the working directory by its path after the first
	# call there: renamed, and its old name taken by a new directory
	lr -- sh -c 'mkdir d && cd d && echo 1 >f1 && mv ../d ../e && mkdir ../d && echo 2 >f2 &&
		cd ../d && echo 3 >f3 && cd ../e && echo 4 >f4'
	assert "${D[8]}" eval '[ "$RC" = 0 ] && [ "$(cat "$P/e/f1" "$P/e/f2" "$P/e/f4")" = "$(printf "1\n2\n4")" ] &&
		[ "$(ls "$P/d")" = f3 ]'
	# answered by the broker itself (ENOENT, ENOTDIR), beside what is there
	lr -- sh -c 'for f in src/a.c src/none none/x src/a.c/x /usr/none /usr/none/x /etc/hostname/x; do
		cat "$f" >/dev/null 2>&1; echo "$f $?"; done; cat src/none /usr/none src/a.c/x; true'
	assert "${D[9]}" eval '[ "$RC" = 0 ] && grep -qx "src/a.c 0" "$W/out" &&
		[ "$(grep -c " 1$" "$W/out")" = 6 ] &&
		[ "$(grep -c "No such file or directory" "$W/err")" = 2 ] && grep -q "src/a.c/x: Not a directory" "$W/err"'
}

# refused WHAT MADE COMMAND...: the command fails, MADE is not there outside,
# and the line names --allow-protected (or --allow-dotenv)
refused() {
	local what=$1 made=$2 flag=--allow-protected
	shift 2
	case $what in *env*) flag=--allow-dotenv ;; esac
	lr -- "$@"
	if [ "$RC" != 0 ] && gone "$made" && err_has "refused" && err_has "$flag"; then
		tap_ok "refused: $what"
	else
		tap_not_ok "refused: $what (RC $RC; $made there: $([ -e "$P/$made" ] && echo yes || echo no))"
	fi
}

t_refused() {
	local names=(".claude" ".mcp.json" ".opencode" "opencode.json" ".codex" ".vscode" ".husky"
		     ".bashrc" ".git-new")
	needs_broker "refused: the protected names" "refused: .git, made anew" \
		"refused: a new secret" "refused: a secret by another name" \
		"refused: .git renamed away" "refused: .git/config written" \
		"control: the command's other work is there" || return
	project
	for n in "${names[@]}"; do
		[ "$n" = .git-new ] && continue
		refused "mkdir $n at the root" "$n" "$TRY" mkdir "$n"
		refused "creating $n in src" "src/$n" "$TRY" create "src/$n"
	done
	refused "a new .git in src" "src/.git" "$TRY" mkdir src/.git
	refused "git init in a directory made during the run" "made/.git" \
		sh -c 'mkdir made && cd made && git init -q'
	refused "a new secret .env.local" ".env.local" "$TRY" create .env.local
	refused "a new .envrc (direnv runs it)" ".envrc" "$TRY" create .envrc
	refused "renaming a file to .env.prod" ".env.prod" sh -c 'echo x >f && mv f .env.prod'
	refused "renaming .env to another name" "leak" "$TRY" rename .env leak
	refused "hard-linking .env to another name" "leak" "$TRY" link .env leak
	lr -- sh -c 'ln -s .env leak; cat leak'
	assert "refused: a symlink to .env is not read through (its content is not shown)" \
		eval '[ "$RC" != 0 ] && no_secret'
	rm -f "$P/leak"
	lr -- "$TRY" rename .git .git-away
	assert "refused: .git renamed away" eval '[ "$RC" = 13 ] && [ -d "$P/.git" ] && gone .git-away'
	lr -- sh -c 'printf "[core]\n\tfsmonitor = touch %s\n" "$1" >>.git/config' sh "$W/PWNED"
	assert "refused: .git/config written" eval '[ "$RC" != 0 ] && cmp -s "$P/.git/config" "$W/config.before"'
	lr -- sh -c 'cat .env; cat ./.env; cat src/../.env'
	assert "refused: .env read by any path (its content is not shown)" eval '[ "$RC" != 0 ] && no_secret'
	lr -- sh -c 'echo work >made-file'
	assert "control: the command's other work is there" eval '[ "$(cat "$P/made-file")" = work ]'
	lr --allow-protected "$P/.claude" -- "$TRY" mkdir .claude
	assert "control: --allow-protected PATH lets that name be made" eval '[ "$RC" = 0 ] && [ -d "$P/.claude" ]'
}

t_races() {
	local D=("races: a path rewritten between safe.txt and .env by a second thread: .env is never read"
		 "races: a path rewritten between a name and .claude: .claude is never made"
		 "races: four threads making one new directory's entries as mkdir -p does all succeed"
		 "races: a program written and run at once is never busy (ETXTBSY)")
	needs_broker "${D[@]}" || return
	project
	lr -- "$TRY" race-read "$P/safe.txt" "$P/.env" "$ROUNDS"
	assert "${D[0]} ($ROUNDS rounds)" eval '[ "$RC" = 0 ] && grep -qx 0 "$W/out" && no_secret'
	lr -- "$TRY" race-mkdir "$P/okdir" "$P/.claude" "$ROUNDS"
	assert "${D[1]} ($ROUNDS rounds)" eval '[ "$RC" = 0 ] && grep -qx 0 "$W/out" && gone .claude'
	# (npm's and Node's: a child whose parent another thread makes meanwhile;
	# the broker answered "not mine", the kernel then found the parent made,
	# and Landlock denied the name: EACCES)
	mkdir "$P/made" || exit 1
	lr -- "$TRY" mkdirp-race "$P/made" 1000
	assert "${D[2]} (1000 rounds)" eval '[ "$RC" = 0 ] && grep -qx 0 "$W/out" &&
		[ "$(ls "$P/made" | wc -l)" = 1000 ] && [ "$(ls "$P/made/r999" | wc -l)" = 4 ]'
	# (the broker's copy of what it opened to write, closed only after the
	# call returned: the program just written was busy to exec, ETXTBSY)
	lr -- sh -c 'i=0; while [ $i -lt 100 ]; do cp "$1" ./tool && ./tool exit 0 || exit 1
		i=$((i+1)); done' sh "$TRY"
	assert "${D[3]} (100 rounds)" test "$RC" = 0
}

t_after() {
	local D=("after: a plain git status in the project runs nothing the command wrote"
		 "after: nor in its subdirectories")
	needs_broker "${D[@]}" || return
	project
	lr -- sh -c "mkdir -p sub/deep && git init -q sub 2>/dev/null;
		printf '[core]\n\tfsmonitor = touch $W/PWNED\n' >>.git/config 2>/dev/null;
		mkdir -p sub/deep/.git 2>/dev/null; true"
	rm -f "$W/PWNED"
	(cd "$P" && git status >/dev/null 2>&1)
	assert "${D[0]}" test ! -e "$W/PWNED"
	(cd "$P/sub/deep" && git status >/dev/null 2>&1)
	assert "${D[1]}" eval '[ ! -e "$W/PWNED" ] && gone sub/.git && gone sub/deep/.git'
}

# uid 0 (a container's entrypoint, no --user): chmod and chown inside the
# grant are the broker's, so the tools that set modes work at the root
t_root() {
	local D=("root: python3 -m venv .venv at the root, and its pip runs"
		 "root: git init in a new directory allowed by --allow-protected"
		 "root: chmod +x of a script made at the root, and it runs"
		 "root: chmod of a file outside the grant stays denied"
		 "root: install -m, cp -p and tar -xf set modes at the root (through ACLs too)"
		 "root: a user.* attribute set in the project works"
		 "root: chmod of /proc/self/fd/N, a file read through a --ro grant, stays denied"
		 "control: chmod of /proc/self/fd/N, a file of the project, works"
		 "root: gcc -o prog at the root, and prog runs"
		 "root: npm install of a local package with a bin, and the bin runs")
	if [ "$(id -u)" != 0 ]; then
		for d in "${D[@]}"; do skip "$d" "runs as uid 0 only"; done
		return
	fi
	needs_broker "${D[@]}" || return
	project
	if [ -e "/usr/lib/python3/dist-packages/pip" ] || python3 -c 'import ensurepip' 2>/dev/null; then
		lr -- sh -c 'python3 -m venv .venv && .venv/bin/pip --version'
		assert "${D[0]}" eval '[ "$RC" = 0 ] && grep -q "^pip " "$W/out" && [ -x "$P/.venv/bin/python3" ]'
	else
		skip "${D[0]}" "python3-venv missing (Debian package python3-venv)"
	fi
	lr --allow-protected "$P/made/.git" -- sh -c 'mkdir made && cd made && git init -q'
	assert "${D[1]}" eval '[ "$RC" = 0 ] && [ -f "$P/made/.git/HEAD" ]'
	lr -- sh -c 'printf "#!/bin/sh\necho ran\n" >run.sh && chmod +x run.sh && ./run.sh'
	assert "${D[2]}" eval '[ "$RC" = 0 ] && grep -qx ran "$W/out" && [ -x "$P/run.sh" ]'
	echo x >"$W/outside" && chmod 600 "$W/outside"
	lr -- chmod 666 "$W/outside"
	assert "${D[3]}" eval '[ "$RC" != 0 ] && [ "$(stat -c %a "$W/outside")" = 600 ]'
	# nor by its descriptor's /proc link (a file read through a --ro grant)
	chmod 644 "$W/outside"
	lr --ro "$W" -- sh -c 'exec 3<"$0" && chmod 666 /proc/self/fd/3' "$W/outside"
	assert "${D[6]}" eval '[ "$RC" != 0 ] && [ "$(stat -c %a "$W/outside")" = 644 ]'
	lr --ro "$W" -- sh -c 'exec 3<src/a.c && chmod 606 /proc/self/fd/3'
	assert "${D[7]}" eval '[ "$RC" = 0 ] && [ "$(stat -c %a "$P/src/a.c")" = 606 ]'
	mkdir -p "$W/tsrc" && echo a >"$W/tsrc/a" && chmod 640 "$W/tsrc/a" &&
		tar -C "$W" -cf "$P/t.tar" tsrc || exit 1
	lr -- sh -c 'echo x >f && install -m 750 f g && chmod 604 f && cp -p f h && tar -xf t.tar'
	assert "${D[4]}" eval '[ "$RC" = 0 ] && [ "$(stat -c %a "$P/g" "$P/h" "$P/tsrc/a" | tr "\n" " ")" = "750 604 640 " ]'
	if command -v gcc >/dev/null; then
		printf 'int main(void) { return 3; }\n' >"$P/t.c"
		lr --env TMPDIR="$P" -- sh -c 'gcc -o prog t.c && ./prog'
		assert "${D[8]}" eval '[ "$RC" = 3 ] && [ -x "$P/prog" ]'
	else
		skip "${D[8]}" "gcc missing (Debian package gcc)"
	fi
	if command -v npm >/dev/null && command -v node >/dev/null; then
		mkdir -p "$W/tb/bin" &&
			echo '{"name": "tinybin", "version": "1.0.0", "bin": {"tinybin": "bin/t.js"}}' \
				>"$W/tb/package.json" &&
			printf '#!/usr/bin/env node\nconsole.log("tinybin ran")\n' >"$W/tb/bin/t.js" &&
			(cd "$W/tb" && npm pack --silent >/dev/null 2>&1) && cp "$W/tb/tinybin-1.0.0.tgz" "$P/" ||
			exit 1
		lr --env HOME="$P/.home" --env TMPDIR="$P" -- sh -c \
			'npm install --offline --no-audit --no-fund ./tinybin-1.0.0.tgz >/dev/null &&
			 node_modules/.bin/tinybin'
		assert "${D[9]}" eval '[ "$RC" = 0 ] && grep -qx "tinybin ran" "$W/out"'
	else
		skip "${D[9]}" "npm missing (Debian package npm)"
	fi
	lr -- "$TRY" setxattr src/a.c user.lr 1
	assert "${D[5]}" eval '[ "$RC" = 0 ] && [ "$("$TRY" xattrs "$P/src/a.c")" = user.lr ]'
}

# A secret that begins with #! and is run: the kernel reads its first line
# itself, and the interpreter shows it, with no open to refuse.
t_shebang() {
	needs_broker "control: outside, running the secret shows its first line" \
		"refused: a secret that begins with #! is not run (its first line is not shown)" \
		"control: a program made in a subdirectory runs" \
		"... and landrun says why one made at the root cannot" || return
	project
	printf '#!/bin/echo %s\n' "$SECRET" >"$P/.envrc" && chmod +x "$P/.envrc" || exit 1
	(cd "$P" && ./.envrc) >"$W/out" 2>&1
	assert "control: outside, running the secret shows its first line" grep -qF -- "$SECRET" "$W/out"
	lr -- sh -c './.envrc; sh -c "exec ./.envrc"; "$1" exec ./.envrc' sh "$TRY"
	assert "refused: a secret that begins with #! is not run (its first line is not shown)" \
		eval '[ "$RC" != 0 ] && no_secret'
	lr -- sh -c 'cp /bin/true src/t && ./src/t'
	assert "control: a program made in a subdirectory runs" eval '[ "$RC" = 0 ]'
	assert "... and landrun says why one made at the root cannot" \
		err_has ".envrc, a secret file beneath it, begins with #! (running it would show its first line)"
	rm -f "$P/.envrc"
}

# O_TMPFILE and linkat, as atomic saves do: the unnamed file made in a
# carved directory is named there; named as a protected or secret name, it
# is refused, and so is a second name for a secret by its O_PATH descriptor
t_tmpfile() {
	local D=("works: an O_TMPFILE file made at the root and linked by its /proc/self/fd link"
		 "works: ... in a subdirectory, by AT_EMPTY_PATH where the kernel allows it"
		 "refused: an O_TMPFILE file linked as .env.local, opencode.json or .git"
		 "refused: an O_TMPFILE file made in .git"
		 "refused: .env linked to another name by its O_PATH descriptor"
		 "refused: a file outside the grant linked into the project by its descriptor"
		 "control: a file of the project linked by its descriptor")
	needs_broker "${D[@]}" || return
	project
	lr -- "$TRY" tmpfile . saved
	assert "${D[0]}" eval '[ "$RC" = 0 ] && [ "$(cat "$P/saved")" = tmpfile ]'
	# AT_EMPTY_PATH: as the kernel answers the command outside (ENOENT
	# without CAP_DAC_READ_SEARCH on some kernels), the same inside
	local want=0
	mkdir -p "$W/plain" && chmod 777 "$W/plain"
	"$TRY" tmpfile "$W/plain" "$W/plain/x" empty || want=$?
	lr -- "$TRY" tmpfile src src/saved-empty empty
	assert "${D[1]} (outside: $want)" eval '[ "$RC" = "$want" ] &&
		{ [ "$want" != 0 ] || [ "$(cat "$P/src/saved-empty")" = tmpfile ]; }'
	local bad=0 n
	for n in .env.local opencode.json src/.git src/.claude; do
		lr -- "$TRY" tmpfile . "$n"
		{ [ "$RC" = 13 ] && gone "$n" && err_has "refused linking to $P/$n"; } || bad=1
	done
	assert "${D[2]}" test "$bad" = 0
	lr -- "$TRY" tmpfile .git x
	assert "${D[3]}" eval '[ "$RC" = 13 ] && err_has "refused making an unnamed file in $P/.git"'
	lr -- "$TRY" linkfd .env leak
	assert "${D[4]}" eval '[ "$RC" = 13 ] && gone leak && err_has "refused linking $P/.env"'
	echo outside >"$W/outside-file" && chmod 666 "$W/outside-file"
	lr --ro "$W" -- "$TRY" linkfd "$W/outside-file" in
	assert "${D[5]}" eval '[ "$RC" = 13 ] && gone in'
	lr -- "$TRY" linkfd safe.txt safe2
	assert "${D[6]}" eval '[ "$RC" = 0 ] && [ "$(cat "$P/safe2")" = SAFE ]'
}

# FIFOs in a carved directory: made (not as a protected name), and opened
# as the kernel opens them, the broker never waiting for their other end
t_fifo() {
	local D=("works: mkfifo at the root"
		 "refused: mkfifo of a secret name"
		 "works: O_WRONLY|O_NONBLOCK of a FIFO with no reader is ENXIO, O_RDONLY|O_NONBLOCK and O_RDWR open"
		 "works: a blocking read open waits for its writer, and the broker serves the others meanwhile"
		 "works: a blocking write open waits for its reader"
		 "works: a read open that waits, its thread killed, leaves no reader behind"
		 "works: --timeout ends a command waiting in a FIFO's open")
	needs_broker "${D[@]}" || return
	project
	lr -- "$TRY" mkfifo ff
	assert "${D[0]}" eval '[ "$RC" = 0 ] && [ -p "$P/ff" ]'
	lr -- "$TRY" mkfifo .env.fifo
	assert "${D[1]}" eval '[ "$RC" = 13 ] && gone .env.fifo && err_has "refused making $P/.env.fifo"'
	chmod 666 "$P/ff"
	local rcs=""
	lr -- "$TRY" fifo ff wn; rcs="$rcs$RC "
	lr -- "$TRY" fifo ff rn; rcs="$rcs$RC "
	lr -- "$TRY" fifo ff rw; rcs="$rcs$RC"
	assert "${D[2]} ($rcs)" test "$rcs" = "6 0 0"
	# the reader waits in its open while the mark is made; then the
	# writer, from outside, once the mark is there
	rm -f "$P/mark"
	(cd "$P" && exec "$LANDRUN" "${SYS[@]}" --rwx "$P" --ro /proc/self -- "$TRY" fifo-wait ff mark) \
		>"$W/fifo-out" 2>"$W/fifo-err" &
	local pid=$! i
	for i in $(seq 200); do [ -e "$P/mark" ] && break; sleep 0.05; done
	[ -e "$P/mark" ] && timeout 10 sh -c 'echo hello >"$1"' sh "$P/ff"
	wait "$pid"
	assert "${D[3]}" eval '[ "$?" = 0 ] && grep -qx hello "$W/fifo-out"'
	(cd "$P" && exec "$LANDRUN" "${SYS[@]}" --rwx "$P" -- "$TRY" fifo ff w) \
		>"$W/fifo-out" 2>"$W/fifo-err" &
	pid=$!
	timeout 10 cat "$P/ff" >"$W/fifo-read"
	wait "$pid"
	assert "${D[4]}" eval '[ "$?" = 0 ] && grep -qx fifo "$W/fifo-read"'
	lr -- sh -c '"$1" -k 1 1 "$2" fifo ff r; i=0
		while [ $i -lt 500 ]; do "$2" fifo ff wn; [ $? = 6 ] && exit 0; i=$((i+1)); done
		exit 1' sh "$(command -v timeout)" "$TRY"
	assert "${D[5]}" test "$RC" = 0
	lr --timeout 1 -- "$TRY" fifo ff r
	assert "${D[6]}" test "$RC" = 124
}

# FIFOs outside the brokered grants, where every open is the broker's (a
# secret is carved) and the opener opens them in the command's domain: an
# open that waits for the other end waits in a thread of the opener's, and
# the broker serves the command's other calls meanwhile
t_fifo_outside() {
	local D=("works: outside the brokered grants, a blocking read open waits for its writer while another thread's create is served"
		 "works: outside the brokered grants, a blocking write open waits for its reader while another thread's create is served"
		 "works: outside the brokered grants, O_WRONLY|O_NONBLOCK with no reader is ENXIO, O_RDONLY|O_NONBLOCK opens"
		 "works: a write open that waits outside, its thread killed, leaves no writer behind")
	needs_broker "${D[@]}" || return
	project
	local F=$W/pipe/of pid i how out
	rm -rf "$W/pipe" && mkdir -p "$W/pipe" && mkfifo "$F" && chmod 755 "$W/pipe" &&
		chmod 666 "$F" || exit 1
	for how in r w; do
		rm -f "$P/mark"
		(cd "$P" && exec "$LANDRUN" "${SYS[@]}" --rwx "$P" --rw "$F" --ro /proc/self -- \
			"$TRY" fifo-wait "$F" mark $how) >"$W/fifo-out" 2>"$W/fifo-err" &
		pid=$!
		# the mark is made while the first open waits; then its other end
		for i in $(seq 200); do [ -e "$P/mark" ] && break; sleep 0.05; done
		out=
		if [ -e "$P/mark" ] && [ $how = r ]; then
			timeout 10 sh -c 'echo hello >"$1"' sh "$F"
		elif [ -e "$P/mark" ]; then
			out=$(timeout 10 cat "$F")
		fi
		wait "$pid"
		local rc=$?
		if [ $how = r ]; then
			assert "${D[0]} ($rc)" eval '[ "$rc" = 0 ] && grep -qx hello "$W/fifo-out"'
		else
			assert "${D[1]} ($rc)" eval '[ "$rc" = 0 ] && [ "$out" = fifo ]'
		fi
	done
	local rcs=""
	lr --rw "$F" -- "$TRY" fifo "$F" wn; rcs="$rcs$RC "
	lr --rw "$F" -- "$TRY" fifo "$F" rn; rcs="$rcs$RC"
	assert "${D[2]} ($rcs)" test "$rcs" = "6 0"
	# (a writer left behind would let the last open through at once)
	lr --rw "$F" -- sh -c '"$1" -k 1 1 "$2" fifo "$3" w; [ $? = 124 ] || exit 1
		"$1" 1 "$2" fifo "$3" r; [ $? = 124 ]' sh "$(command -v timeout)" "$TRY" "$F"
	assert "${D[3]}" test "$RC" = 0
}

# a lease the command holds on its own file makes another's open of it wait
# until given up: in the project (the broker's own open) and outside the
# brokered grants (the opener's), the open waits in a thread, not in the
# broker, which serves another thread's create meanwhile (lr-try lease:
# 105 if that create waited, 104 if the open did not wait, 103 no lease)
t_lease() {
	local D=("works: a write open of a leased file in the project waits for the lease while another thread's create is served"
		 "works: a write open of a leased file outside the brokered grants waits for the lease while another thread's create is served"
		 "works: truncate(2) of a leased file in the project waits for the lease (was EAGAIN) while another thread's create is served")
	needs_broker "${D[@]}" || return
	project
	lr --ro /proc/self -- "$TRY" lease leased mark
	if [ "$RC" = 103 ]; then
		skip "${D[0]}" "no lease could be taken (fs.leases-enable 0?)"
		skip "${D[1]}" "no lease could be taken (fs.leases-enable 0?)"
		skip "${D[2]}" "no lease could be taken (fs.leases-enable 0?)"
		return
	fi
	assert "${D[0]} ($RC)" eval '[ "$RC" = 0 ] && [ -e "$P/mark" ]'
	: >"$W/leased" || exit 1
	lr --ro /proc/self --rw "$W/leased" -- "$TRY" lease "$W/leased" mark2
	assert "${D[1]} ($RC)" eval '[ "$RC" = 0 ] && [ -e "$P/mark2" ]'
	echo data >"$P/leased"
	lr --ro /proc/self -- "$TRY" lease leased mark3 t
	assert "${D[2]} ($RC)" eval '[ "$RC" = 0 ] && [ -e "$P/mark3" ] && [ ! -s "$P/leased" ]'
}

# the command's own descriptors by their links (/dev/fd/N, /dev/stdin,
# /proc/self/fd/N): where the broker opens all, they are the command's
# descriptors, not the broker's, and what they reach is judged as any name
t_fd_links() {
	local D=("works: cat <(echo ...), cat /dev/stdin, diff <(...) <(...)"
		 "works: a file in a directory by its descriptor's link (/dev/fd/3/src/a.c, /proc/self/fd/3/made)"
		 "refused: .env by the link of an O_PATH descriptor of it, and by /proc/self/fd/N/../.env"
		 "refused: .envrc and .git/config by the link of the root's descriptor; .git/config read by its own")
	needs_broker "${D[@]}" || return
	project
	lr -- bash -c 'cat <(echo sub-$$); echo here | cat /dev/stdin; cat /proc/self/fd/0 <<<"heredoc";
		diff <(echo a) <(echo a) && echo same'
	assert "${D[0]}" eval '[ "$RC" = 0 ] && grep -qx "sub-[0-9]*" "$W/out" && grep -qx here "$W/out" &&
		grep -qx heredoc "$W/out" && grep -qx same "$W/out"'
	lr -- bash -c 'exec 3<. && cat /dev/fd/3/src/a.c && echo made >/proc/self/fd/3/made'
	assert "${D[1]}" eval '[ "$RC" = 0 ] && grep -qx code "$W/out" && [ "$(cat "$P/made")" = made ]'
	lr -- /usr/bin/python3 -c 'import os, sys
e = os.open(".env", os.O_PATH)
s = os.open("src", os.O_PATH)
for p in ("/proc/self/fd/%d" % e, "/dev/fd/%d" % e, "/proc/thread-self/fd/%d" % e,
	  "/proc/%d/fd/%d" % (os.getpid(), e), "/proc/self/fd/%d/../.env" % s):
	try:
		print(os.read(os.open(p, os.O_RDONLY), 100))
	except OSError as x:
		print(p, x.errno)'
	assert "${D[2]}" eval '[ "$RC" = 0 ] && no_secret && [ "$(grep -c " 13$" "$W/out")" = 5 ]'
	lr -- /usr/bin/python3 -c 'import os
r = os.open(".", os.O_PATH)
g = os.open(".git/config", os.O_PATH)
for p, f in (("/proc/self/fd/%d/.envrc" % r, os.O_WRONLY | os.O_CREAT),
	     ("/proc/self/fd/%d/.git/config" % r, os.O_WRONLY | os.O_APPEND),
	     ("/dev/fd/%d" % g, os.O_WRONLY | os.O_APPEND)):
	try:
		os.write(os.open(p, f), b"[core]\n\tfsmonitor = touch /tmp/x\n")
		print(p, "written")
	except OSError as x:
		print(p, x.errno)
print(len(os.read(os.open("/dev/fd/%d" % g, os.O_RDONLY), 10)))'
	assert "${D[3]}" eval '[ "$RC" = 0 ] && [ "$(grep -c " 13$" "$W/out")" = 3 ] && grep -qx 10 "$W/out" &&
		gone .envrc && cmp -s "$P/.git/config" "$W/config.before"'
}

# a thread with a descriptor table and a working directory of its own
# (clone without CLONE_FILES, CLONE_FS), where descriptor 50 names another
# directory than in its leader's: what it makes is judged, and made, where
# its own table and directory say, never its leader's
t_threads() {
	local D=("refused: a thread's mkdirat in .git by its own descriptor, which names the root in its leader's table"
		 "works: a thread's mkdirat at the root by its own descriptor, which names .git in its leader's table"
		 "refused: a thread's create in .git by its own descriptor, the root in its leader's table"
		 "works: a thread's create at the root by its own descriptor, .git in its leader's table"
		 "refused: a thread's mkdir in its own working directory, .git (its leader's: the root)"
		 "works: a thread's mkdir in its own working directory, the root (its leader's: .git)"
		 "works: a thread's unnamed file linked by its own descriptor (AT_EMPTY_PATH, /proc/thread-self/fd), a directory in its leader's table"
		 "works: /proc/self/fd from that thread is its leader's table, as for the kernel (a directory: EPERM)"
		 "refused: a thread's unnamed file linked into .git by its own descriptor")
	needs_broker "${D[@]}" || return
	project
	local how i=0
	for how in mkdir create cwd; do
		lr -- "$TRY" thread-fd "$how" . .git "in-git-$how"
		assert "${D[i]}" eval '[ "$RC" = 13 ] && gone ".git/in-git-$how" && gone "in-git-$how" &&
			err_has "$P/.git/in-git-$how"'
		lr -- "$TRY" thread-fd "$how" .git . "at-root-$how"
		assert "${D[i+1]}" eval '[ "$RC" = 0 ] && [ -e "$P/at-root-$how" ] &&
			gone ".git/at-root-$how"'
		i=$((i + 2))
	done
	local rcs="" kv
	kv=$(uname -r)
	lr -- "$TRY" thread-fd link-empty src . linked-empty; rcs="$rcs$RC "
	lr -- "$TRY" thread-fd link-thread src . linked-thread; rcs="$rcs$RC"
	# (before Linux 6.9, whose pidfds name threads, the broker reaches a
	# thread's descriptors through its leader's only: where they differ it
	# does not serve the call, and Landlock makes no name here)
	if [ "${kv%%.*}" -gt 6 ] || { [ "${kv%%.*}" = 6 ] && kv=${kv#*.} && [ "${kv%%[!0-9]*}" -ge 9 ]; }; then
		assert "${D[6]} ($rcs)" eval '[ "$rcs" = "0 0" ] && [ -f "$P/linked-empty" ] &&
			[ -f "$P/linked-thread" ]'
	else
		assert "${D[6]}: before Linux 6.9, not served ($rcs)" eval '[ "${rcs% *}" != 0 ] &&
			[ "${rcs#* }" != 0 ] && gone linked-empty && gone linked-thread'
	fi
	lr -- "$TRY" thread-fd link-self src . linked-self
	assert "${D[7]} ($RC)" eval '[ "$RC" = 1 ] && gone linked-self'
	lr -- "$TRY" thread-fd link-thread . . .git/linked
	assert "${D[8]}" eval '[ "$RC" = 13 ] && gone .git/linked'
}

# what an agent can try beyond paths: an O_PATH descriptor (whose open
# Landlock does not check) read through its /proc/self/fd link, which the
# broker opens for the command where /proc/self is granted
t_descriptors() {
	local D=("refused: .env read through the /proc/self/fd link of its O_PATH descriptor"
		 "told: a refusal after the command asked the broker to keep the next one quiet"
		 "refused: a credential file of a --ro grant read so"
		 "control: a file of that grant read so")
	needs_broker "${D[@]}" || return
	project
	mkdir -p "$W/home/.ssh" "$W/home/docs" && printf '%s\n' "$SECRET" >"$W/home/.ssh/id_rsa" &&
		echo doc >"$W/home/docs/a" && chmod -R a+rwX "$W/home" || exit 1
	lr --ro "$W/home" --ro /proc/self -- "$TRY" opath-read .env
	assert "${D[0]}" eval '[ "$RC" = 13 ] && no_secret'
	lr --ro "$W/home" --ro /proc/self -- "$TRY" opath-read "$W/home/.ssh/id_rsa"
	assert "${D[2]}" eval '[ "$RC" = 13 ] && no_secret'
	lr --ro "$W/home" --ro /proc/self -- "$TRY" opath-read "$W/home/docs/a"
	assert "${D[3]}" test "$RC" = 0
	# (landrun's own witness asks so, before the command runs)
	lr -- sh -c '"$1" ping 1; "$1" create .env.quiet' sh "$TRY"
	assert "${D[1]}" eval '[ "$RC" = 13 ] && gone .env.quiet && err_has "refused creating $P/.env.quiet"'
}

# The broker refuses the protected names: the command must not be able to
# end or stop it.  It serves the command from outside the command's domain,
# and its opener is a thread of its own in a domain with the command's
# rules: Landlock's signal scope (ABI 6) keeps the command's signals out of
# both.  The command is told every thread of the broker (found from outside,
# by its session) and sends each SIGKILL; the broker must live on and serve.
t_signal() {
	local D=("the command's SIGKILL of each of the broker's threads, its opener too: EPERM"
		 "... and the broker serves on: a directory made at the root afterwards"
		 "control: the same call ends the command's own child")
	local cmd broker t i
	needs_broker "${D[@]}" || return
	if [ "$ABI" -lt 6 ]; then
		for t in "${D[@]}"; do skip "$t" "needs Landlock ABI 6 (signal scoping)"; done
		return
	fi
	project
	(cd "$P" && exec setsid "$LANDRUN" "${SYS[@]}" --rwx "$P" --env PATH=/usr/bin:/bin -- \
		/bin/sh -c 'try=$1; : >ready; while [ ! -e go ]; do sleep 0.05; done
			for t in $(cat tids); do "$try" tgkill "$(cat tgid)" "$t" 9; echo "$?"; done
			sleep 1000 & "$try" tgkill $! $! 9; echo "control $?"; wait $!; echo "child $?"
			mkdir after' sh "$TRY") >"$W/out" 2>"$W/err" &
	cmd=$!
	wait_until "$WAIT_S" eval '[ -e "$P/ready" ] || ! kill -0 "$cmd" 2>/dev/null'
	# the broker: the process of landrun's in the command's session (setsid
	# made it the session's leader) that is not the command
	broker=$(cat /proc/[0-9]*/stat 2>/dev/null |
		awk -v s="$cmd" '$2 == "(landrun)" && $6 == s { print $1 }')
	i=0
	if [ -n "$broker" ] && [ "$broker" != "$cmd" ]; then
		echo "$broker" >"$P/tgid"
		ls "/proc/$broker/task" >"$P/tids"
		i=$(wc -l <"$P/tids")
	fi
	touch "$P/go"
	wait "$cmd"
	RC=$?
	assert "${D[0]} ($i threads of broker ${broker:-none}: $(grep -cx 1 "$W/out") EPERM, RC $RC)" \
		eval '[ "$i" -ge 2 ] && [ "$(grep -cx 1 "$W/out")" = "$i" ]'
	assert "${D[1]}" eval '[ "$RC" = 0 ] && [ -d "$P/after" ]'
	assert "${D[2]} ($(grep -E "control|child" "$W/out" | tr '\n' ' '))" \
		eval 'grep -qx "control 0" "$W/out" && grep -qx "child 137" "$W/out"'
}

t_works
t_refused
t_tmpfile
t_fifo
t_fifo_outside
t_fd_links
t_lease
t_threads
t_descriptors
t_signal
t_shebang
t_races
t_after
t_root
tap_done
