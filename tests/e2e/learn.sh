#!/bin/bash
# SPDX-License-Identifier: MIT
#
# learn.sh LANDRUN BASE_CONF [--as-nobody] - the loop of docs/finding-grants.md
# on five real tools, offline:
#
#   landrun --learn tool.conf -- TOOL ...
#   landrun --config tool.conf --learn tool.conf -- TOOL ...   (until nothing is denied)
#
#   make    a Makefile that includes a file of the checkout beside the project
#   npm     npm install of a tarball made by `npm pack` beside the project
#   pip     pip install into a venv, from a wheel directory beside the project
#   cargo   cargo build of a crate with no dependencies, with a HOME of its
#           own (--env HOME=DIR) where cargo makes ~/.cargo
#   clangd  a short LSP session on stdin: initialize, open a file, its symbols
#
# For each: a run with no denial (and the tool's own status 0) comes by the
# third run; the tool did its work (checked from outside); and the learned
# file holds no setting a reviewer would strike (/, /tmp, the HOME or a
# directory every tool of it shares, a top directory, a terminal, /etc/resolv.conf
# without a network).  The learned settings are shown as diagnostics.  The
# controls: the checker strikes a file that grants the HOME, and the first run
# of make and of npm is denied what lies beside the project (the loop learns).
#
# A tool whose Debian package is not installed is skipped, naming it.

set -u
. "$(dirname "$0")/lib.sh" || exit 2
e2e_start --env-i learn landrun base.conf -- "$@"

LANDRUN=$BIN/landrun
export PATH=/usr/bin:/bin
export HOME=$TMP/t/home-outside	# the caller's: base.conf is found there
T=$TMP/t
W=$T/.work
mkdir -p "$HOME/.config/landrun/profiles" "$W" &&
	cp "$BIN/base.conf" "$HOME/.config/landrun/profiles/" || exit 1
e2e_hello "landrun --learn, five tools" "landrun $LANDRUN"

RUNS_MAX=3
RC=0
ROUNDS=0

# learn_loop CONF DIR [FLAGS...] -- COMMAND...: the documented loop, from
# DIR, at most RUNS_MAX runs; stdin is $W/stdin when it exists.  ROUNDS is
# the run that had no denial (0: none had).  $W/out, $W/err: the last run's.
learn_loop() {
	local conf=$1 dir=$2 i cfg=()
	shift 2
	local flags=()
	while [ "$1" != -- ]; do
		flags+=("$1")
		shift
	done
	shift
	rm -f "$conf"
	ROUNDS=0
	for ((i = 1; i <= RUNS_MAX; i++)); do
		[ "$i" -gt 1 ] && cfg=(--config "$conf")
		(cd "$dir" && "$LANDRUN" "${flags[@]}" "${cfg[@]}" --learn "$conf" -- "$@") \
			>"$W/out" 2>"$W/err" <"$([ -f "$W/stdin" ] && echo "$W/stdin" || echo /dev/null)"
		RC=$?
		cp "$W/err" "$W/err.$i"
		echo "#   run $i: status $RC, $(grep -c '^landrun: denied' "$W/err") denial(s)"
		if [ "$RC" = 0 ] && ! grep -q '^landrun: denied' "$W/err"; then
			ROUNDS=$i
			return 0
		fi
	done
	return 1
}

# struck CONF HOME: the settings of CONF that a reviewer would strike, one a line
struck() {
	local home=$2 key value
	grep -v -e '^#' -e '^[[:space:]]*$' "$1" | while IFS=' =' read -r key value; do
		value=${value# }
		case $key in include) continue ;; esac
		case $value in
		/ | /tmp | /tmp/ | /var/tmp | /dev/shm | "$home" | "$home"/ | "$home"/.cache | \
			"$home"/.config | "$home"/.local | "$home"/.local/share | \
			"$home"/.local/state | /dev/pts* | /dev/tty* | /dev/console | /dev/ptmx | \
			/etc/resolv.conf)
			echo "$key = $value" ;;
		/*)
			# a top directory (/etc, /usr, /opt, /home): every file in it
			[ "$(printf '%s' "${value%/}" | tr -cd / | wc -c)" -lt 2 ] &&
				echo "$key = $value" ;;
		esac
	done
}

# settings CONF: its settings but the include, sorted, on one line ("|" between)
settings() { grep -v -e '^#' -e '^[[:space:]]*$' -e '^include = ' "$1" | sort | tr '\n' '|'; }

# learned TOOL CONF WANT...: CONF holds exactly the settings WANT (what the run
# needs, and no more)
learned() {
	local tool=$1 conf=$2 want
	shift 2
	want=$(printf '%s\n' "$@" | sort | tr '\n' '|')
	if [ "$(settings "$conf")" = "$want" ]; then
		tap_ok "$tool: learned what it needs, and no more"
	else
		tap_not_ok "$tool: learned $(settings "$conf"), want $want"
	fi
}

# converged TOOL CONF HOME: the loop ended by run RUNS_MAX, and CONF has
# nothing to strike
converged() {
	local s
	sed -e '/^#/d' -e '/^$/d' -e 's/^/#   learned: /' "$2"
	if [ "$ROUNDS" -ge 1 ]; then
		tap_ok "$1: no denial by run $ROUNDS (at most $RUNS_MAX)"
	else
		tap_not_ok "$1: still denied after $RUNS_MAX runs"
		grep '^landrun: ' "$W/err" | sed 's/^/#   /'
	fi
	s=$(struck "$2" "$3")
	if [ -z "$s" ]; then
		tap_ok "$1: the learned file grants nothing a reviewer would strike"
	else
		tap_not_ok "$1: the learned file grants what a reviewer would strike: $(echo "$s" | tr '\n' '|')"
	fi
}

# ---------------------------------------------------------------------------
# The checker's control: it strikes what it should

printf 'include = base\n# denied 1 time: x\nrw = %s\n# denied 1 time: y\nro = /etc\n' \
	"$T/h" >"$W/bad.conf"
printf 'include = base\n# denied 1 time: x\nrw = %s/.cargo\nro = /etc/pip.conf\n' \
	"$T/h" >"$W/good.conf"
if [ "$(struck "$W/bad.conf" "$T/h" | wc -l)" = 2 ] && [ -z "$(struck "$W/good.conf" "$T/h")" ]; then
	tap_ok "control: the checker strikes rw = HOME and ro = /etc, and not a tool's own"
else
	tap_not_ok "control: the checker: $(struck "$W/bad.conf" "$T/h" | tr '\n' '|')"
fi

# ---------------------------------------------------------------------------
# make: the project includes a file of the checkout it lives in

if tool make /usr/bin/make && tool gcc /usr/bin/cc; then
	mkdir -p "$T/mk/proj" && cd "$T/mk/proj" || exit 1
	printf 'CFLAGS = -O0\n' >../common.mk
	printf 'include ../common.mk\nall: hello\n\t./hello\nhello: hello.c\n\t$(CC) $(CFLAGS) -o $@ $<\n' \
		>Makefile
	printf 'int main(void) { return 0; }\n' >hello.c
	cd "$T"
	learn_loop "$W/make.conf" "$T/mk/proj" -- make
	if grep -q "^landrun: denied read .*$T/mk/common.mk" "$W/err.1"; then
		tap_ok "make: the first run is denied the included file (control)"
	else
		tap_not_ok "make: the first run is denied the included file (control)"
	fi
	grep '^landrun: denied' "$W/err.1" | sed 's/^/#   run 1: /'
	assert "make: built and ran hello" test -x "$T/mk/proj/hello"
	converged make "$W/make.conf" "$HOME"
	# make lists ../ for its directory cache, and does without: a probe, not
	# ro = the directory beside the project
	learned make "$W/make.conf" "ro = $T/mk/common.mk"
fi

# ---------------------------------------------------------------------------
# npm: install of a tarball packed beside the project, offline

if tool npm /usr/bin/npm; then
	mkdir -p "$T/np/tinylib" "$T/np/app" && cd "$T/np/tinylib" || exit 1
	printf '{"name":"tinylib","version":"1.0.0","main":"index.js"}\n' >package.json
	echo 'module.exports = 1;' >index.js
	npm pack --silent >/dev/null 2>&1 || echo "# npm pack failed"
	printf '{"name":"app","version":"1.0.0"}\n' >../app/package.json
	cd "$T"
	learn_loop "$W/npm.conf" "$T/np/app" -- npm install --offline --no-audit --no-fund \
		../tinylib/tinylib-1.0.0.tgz
	if grep -q "^landrun: denied read .*$T/np/tinylib/tinylib-1.0.0.tgz" "$W/err.1"; then
		tap_ok "npm: the first run is denied the tarball (control)"
	else
		tap_not_ok "npm: the first run is denied the tarball (control)"
	fi
	assert "npm: tinylib is installed" test -f "$T/np/app/node_modules/tinylib/index.js"
	converged npm "$W/npm.conf" "$HOME"
	assert "npm: learned the tarball itself" grep -qx "ro = $T/np/tinylib/tinylib-1.0.0.tgz" "$W/npm.conf"
	# a name lookup (npm looks one up even offline) is one line, never learned
	if ! grep -q 'denied socket' "$W/err.1" && ! grep -q '^ro = /etc/resolv.conf' "$W/npm.conf"; then
		tap_ok "npm: its name lookups are summed up, and not learned"
	else
		tap_not_ok "npm: its name lookups: $(grep -e socket -e resolv "$W/err.1" | tr '\n' '|')"
	fi
fi

# ---------------------------------------------------------------------------
# pip: a venv, and a wheel directory beside the project

PYV=$(/usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
if tool python3 /usr/bin/python3 && tool "python$PYV-venv" "/usr/lib/python$PYV/ensurepip/__init__.py"; then
	mkdir -p "$T/py/wheels" "$T/py/proj" && cd "$T/py" || exit 1
	tiny_wheel wheels || echo "# the wheel was not made"
	/usr/bin/python3 -m venv proj/.venv || echo "# the venv was not made"
	cd "$T"
	learn_loop "$W/pip.conf" "$T/py/proj" -- .venv/bin/python -m pip install --no-index \
		--find-links ../wheels tinypkg
	assert "pip: tinypkg is in the venv" \
		"$T/py/proj/.venv/bin/python" -c 'import tinypkg; assert tinypkg.add(1, 2) == 3'
	converged pip "$W/pip.conf" "$HOME"
	assert "pip: learned the wheel directory" grep -qx "ro = $T/py/wheels" "$W/pip.conf"
fi

# ---------------------------------------------------------------------------
# cargo: a crate with no dependencies, and a HOME of its own (no ~/.cargo yet)

if tool cargo /usr/bin/cargo; then
	mkdir -p "$T/rs/tiny/src" "$T/rs/home" && cd "$T/rs/tiny" || exit 1
	printf '[package]\nname = "tiny"\nversion = "0.1.0"\nedition = "2021"\n' >Cargo.toml
	printf 'fn main() { println!("tiny"); }\n' >src/main.rs
	cd "$T"
	learn_loop "$W/cargo.conf" "$T/rs/tiny" --env HOME="$T/rs/home" -- cargo build --offline
	assert "cargo: target/debug/tiny runs" sh -c "[ \"\$('$T/rs/tiny/target/debug/tiny')\" = tiny ]"
	converged cargo "$W/cargo.conf" "$T/rs/home"
	learned cargo "$W/cargo.conf" "mkdir = $T/rs/home/.cargo" "rw = $T/rs/home/.cargo"
fi

# ---------------------------------------------------------------------------
# clangd: a language server, on stdin

if tool clangd /usr/bin/clangd; then
	mkdir -p "$T/lsp" && cd "$T/lsp" || exit 1
	printf 'int add(int a, int b) { return a + b; }\nint main(void) { return add(1, 2); }\n' \
		>main.c
	ROOT=$T/lsp /usr/bin/python3 - >"$W/stdin" <<'EOF'
import json, os, sys
root = os.environ["ROOT"]
uri = "file://" + root + "/main.c"
def msg(o):
    b = json.dumps(o).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(b) + b)
msg({"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"processId": None, "rootUri": "file://" + root, "capabilities": {}}})
msg({"jsonrpc": "2.0", "method": "initialized", "params": {}})
msg({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
    "uri": uri, "languageId": "c", "version": 1, "text": open(root + "/main.c").read()}}})
msg({"jsonrpc": "2.0", "id": 2, "method": "textDocument/documentSymbol",
     "params": {"textDocument": {"uri": uri}}})
msg({"jsonrpc": "2.0", "id": 3, "method": "shutdown"})
msg({"jsonrpc": "2.0", "method": "exit"})
EOF
	cd "$T"
	learn_loop "$W/clangd.conf" "$T/lsp" -- clangd --log=error
	assert "clangd: answered with the file's symbols" grep -q '"name":"add"' "$W/out"
	converged clangd "$W/clangd.conf" "$HOME"
	rm -f "$W/stdin"
fi

tap_done
