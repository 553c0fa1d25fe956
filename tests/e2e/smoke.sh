#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Smoke test: no false denials.  Everyday tools work under the default policy
# (no network flags) with the usual grants:
#
#   landrun --rox /usr,/bin,/lib,/lib64 --ro /etc --rwx WORKSPACE
#           --env PATH=/usr/bin:/bin --env HOME=WORKSPACE --env TMPDIR=WORKSPACE/tmp
#
#   smoke.sh LANDRUN [--as-nobody]
#
# TAP output.  LANDRUN is copied into a fresh directory under /tmp; with
# --as-nobody, a root caller runs the tests as uid/gid 65534 (setpriv); any
# other caller runs them as itself and says so.
#
# Debian packages the test needs (CI installs them):
#   git gcc libc6-dev python3 nodejs npm
# A tool whose Debian package is not installed is skipped, naming the
# package; a tool missing although its package is installed is a failure.
#
# Each case is judged inside (the command's own output) and outside (the
# files it left in the workspace), beside an unconfined run of the same
# script, so that a broken tool is not mistaken for a denial.  A case that
# fails only because the policy denies something the tool needs is marked
# TODO with what was denied: it is for landrun's authors to decide.

set -u

# ---------------------------------------------------------------------------
# Setup: a private copy of landrun, then the test body (maybe as nobody), in
# an empty environment but for PATH.

. "$(dirname "$0")/lib.sh" || exit 2
e2e_start --env-i smoke landrun -- "$@"	# from here on, the body

LANDRUN=$BIN/landrun
export PATH=/usr/bin:/bin	# Debian's tools, never a pyenv or nvm shim
export HOME=$TMP/t/home-outside
mkdir -p "$HOME" || exit 1

e2e_hello "landrun smoke" "landrun $LANDRUN"
echo "# kernel $(uname -r), $("$LANDRUN" --explain=json 2>/dev/null |
	grep -o '"landlock_abi":[0-9]*' | tr '":' '  ')"

# ---------------------------------------------------------------------------
# TAP: tap_ok, tap_not_ok (TODO=reason before it), skip and tap_done come
# from lib.sh; a failure shows the status and the end of the case's output.

diag() {
	echo "#   exit status $RC"
	tail -n 12 "$OUT" | sed 's/^/#   out: /'
}

# ---------------------------------------------------------------------------
# Running: a fresh workspace per case, the same script outside and inside.

WS=
OUT=$TMP/t/out
RC=0

workspace() { # NAME
	WS=$TMP/t/ws-$1
	rm -rf "$WS"
	mkdir -p "$WS/tmp" || exit 1
}

# inside SCRIPT: sh -c SCRIPT in the workspace, confined (plus the grants
# in the array EXTRA, if any).  Started as root, the command runs as uid
# 65534 (--user), in a workspace of its own: as uid 0 it may not chmod,
# which git and the linker need (docs/harnesses.md: Running as root).
EXTRA=()
AS_USER=()
[ "$(id -u)" = 0 ] && AS_USER=(--user 65534:65534)
inside() {
	[ ${#AS_USER[@]} = 0 ] || chown -R 65534:65534 "$WS" || exit 1
	(cd "$WS" && "$LANDRUN" "${AS_USER[@]}" --rox /usr,/bin,/lib,/lib64 --ro /etc --rwx "$WS" \
		--env PATH=/usr/bin:/bin --env HOME="$WS" --env TMPDIR="$WS/tmp" \
		"${EXTRA[@]}" -- /bin/sh -c "$1") >"$OUT" 2>&1 </dev/null
	RC=$?
}

# outside SCRIPT: the same, unconfined (the control)
outside() {
	(cd "$WS" && /usr/bin/env -i PATH=/usr/bin:/bin HOME="$WS" TMPDIR="$WS/tmp" \
		/bin/sh -c "$1") >"$OUT" 2>&1 </dev/null
	RC=$?
}

# check DESC WANT: the last run exited 0 and its output has the line WANT
check() {
	if [ "$RC" = 0 ] && grep -qxF -- "$2" "$OUT"; then
		tap_ok "$1"
	else
		tap_not_ok "$1 (want exit 0 and the line \"$2\")"
	fi
}

# case_ NAME SCRIPT WANT [VERIFY]: the control outside (unless EXTRA grants
# are given: then it ran before), then the test inside; VERIFY (a shell
# command run outside afterwards) checks the files the confined run left in
# the workspace.  A TODO set before applies to both checks of the confined run.
case_() {
	local name=$1 script=$2 want=$3 verify=${4:-} todo=$TODO label=landrun
	TODO=
	workspace "$name-outside"
	prepare "$name"
	outside "$script"
	check "unconfined: $name" "$want"
	[ ${#EXTRA[@]} = 0 ] || label="landrun ${EXTRA[*]}"
	workspace "$name"
	prepare "$name"
	inside "$script"
	TODO=$todo
	check "$label: $name" "$want"
	if [ -n "$verify" ]; then
		TODO=$todo
		# (a workspace of uid 65534's, checked by root: git must trust it)
		if (cd "$WS" && export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory \
			GIT_CONFIG_VALUE_0='*' && eval "$verify") >"$OUT" 2>&1; then
			tap_ok "$label: $name: its work is in the workspace"
		else
			RC=$?
			tap_not_ok "$label: $name: its work is not in the workspace ($verify)"
		fi
	fi
	TODO=
}

# the files each case starts with, written from outside
prepare() {
	case $1 in
	gcc)
		cat >"$WS/hello.c" <<'EOF'
#include <stdio.h>
int main(void) { puts("hello from gcc"); return 0; }
EOF
		;;
	python-multiprocessing)
		cat >"$WS/mp.py" <<'EOF'
import multiprocessing, os
def square(x):
    return x * x, os.getpid()
if __name__ == "__main__":
    with multiprocessing.Pool(2) as pool:
        results = pool.map(square, range(20))
    assert {pid for _, pid in results} - {os.getpid()}, "ran in the parent"
    print("pool", multiprocessing.get_start_method(), sum(r for r, _ in results))
EOF
		;;
	python-asyncio)
		cat >"$WS/aio.py" <<'EOF'
import asyncio, socket
async def main():
    proc = await asyncio.create_subprocess_exec(
        "/bin/echo", "child", stdout=asyncio.subprocess.PIPE)
    out, _ = await proc.communicate()
    assert proc.returncode == 0 and out == b"child\n", (proc.returncode, out)
    a, b = socket.socketpair()
    ra, wa = await asyncio.open_connection(sock=a)
    rb, wb = await asyncio.open_connection(sock=b)
    wa.write(b"ping\n")
    await wa.drain()
    line = await rb.readline()
    wb.write(line.replace(b"ping", b"pong"))
    await wb.drain()
    print("asyncio", out.decode().strip(), (await ra.readline()).decode().strip())
    for w in (wa, wb):
        w.close()
asyncio.run(main())
EOF
		;;
	python-subprocess)
		cat >"$WS/sp.py" <<'EOF'
import subprocess, sys
r = subprocess.run(["/bin/sh", "-c", "echo sub; exit 3"], capture_output=True)
assert r.returncode == 3 and r.stdout == b"sub\n", r
r = subprocess.run([sys.executable, "-c", "print(6 * 7)"], capture_output=True, check=True)
print("subprocess", r.stdout.decode().strip())
EOF
		;;
	node-child-process)
		cat >"$WS/cp.js" <<'EOF'
const cp = require('child_process');
const out = cp.execFileSync('/bin/echo', ['child']).toString().trim();
const sh = cp.spawnSync('/bin/sh', ['-c', 'echo sh; exit 4']);
if (sh.status !== 4 || sh.stdout.toString() !== 'sh\n') throw new Error(JSON.stringify(sh));
console.log('execFileSync ' + out);
EOF
		;;
	node-worker-threads)
		cat >"$WS/wt.js" <<'EOF'
const { Worker } = require('worker_threads');
const w = new Worker('require("worker_threads").parentPort.postMessage(6 * 7)', { eval: true });
w.on('message', (m) => console.log('worker ' + m));
w.on('error', (e) => { console.error(e); process.exit(1); });
EOF
		;;
	esac
}

# ---------------------------------------------------------------------------
# The cases

# git opens /dev/null read-write (run-command's stdin, gc) and reads
# /dev/urandom (temporary object names): those are filesystem grants (the
# base profile has them), not the filter's business.
GIT_SCRIPT='git init -q repo && cd repo && echo f1 >f1 && git add f1 &&
	git -c user.name=landrun -c user.email=landrun@example.invalid commit -q -m c1 &&
	git log --format=%s'
GIT_VERIFY='[ "$(git -C repo log --format=%an)" = landrun ] && [ -z "$(git -C repo status --porcelain)" ]'
# A repository made during the run is refused unless --allow-protected
# names it (the broker): git then runs what the command wrote there.
if tool git /usr/bin/git; then
	EXTRA=(--rw /dev/null --ro /dev/urandom --allow-protected repo/.git)
	case_ git "$GIT_SCRIPT" c1 "$GIT_VERIFY"
	EXTRA=()
fi

if tool gcc /usr/bin/gcc && tool libc6-dev /usr/include/stdio.h; then
	case_ gcc 'gcc -O2 -Wall -o hello hello.c && ./hello' "hello from gcc" \
		'[ -x hello ] && [ "$(./hello)" = "hello from gcc" ]'
fi

# multiprocessing's locks are POSIX semaphores: sem_open creates
# /dev/shm/sem.*, which needs a /dev/shm grant (deliberately not in the base
# profile: /dev/shm is shared with every process of the user).
MP_WANT="pool $(/usr/bin/python3 -c 'import multiprocessing as m; print(m.get_start_method())' 2>/dev/null) 2470"
if tool python3 /usr/bin/python3; then
	EXTRA=(--rw /dev/shm)
	case_ python-multiprocessing '/usr/bin/python3 mp.py' "$MP_WANT"
	EXTRA=()
	case_ python-asyncio '/usr/bin/python3 aio.py' "asyncio child pong"
	case_ python-subprocess '/usr/bin/python3 sp.py' "subprocess 42"
fi

if tool nodejs /usr/bin/node; then
	case_ node-child-process 'node cp.js' "execFileSync child"
	case_ node-worker-threads 'node wt.js' "worker 42"
fi

if tool npm /usr/bin/npm; then
	case_ npm-version 'npm --version' "$(cd "$HOME" && npm --version 2>/dev/null)"
fi

tap_done
