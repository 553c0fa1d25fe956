#!/bin/bash
# SPDX-License-Identifier: MIT
#
# installs.sh [LANDRUN] [--as-nobody] - each harness where its installers put
# it for a user who is not root, started as the Quick start says
# (`landrun -- codex`, from a repository, nothing granted by hand):
#
#   codex     npm install -g with a user prefix: ~/.npm-global and ~/.local
#             (bin/codex -> ../lib/node_modules/@openai/codex/bin/codex.js, a
#             node script that starts the native binary from the package's
#             own node_modules/@openai/codex-linux-x64)
#   opencode  its install script (~/.opencode/bin/opencode), and bun's global
#             install (~/.bun/bin/opencode -> ~/.bun/install/global/
#             node_modules/opencode-ai/bin/opencode.exe)
#   claude    its native installer (~/.local/bin/claude -> ~/.local/share/
#             claude/versions/VERSION)
#
# The trees are laid out as those installers lay them out (npm -g nests a
# package's dependencies in its own node_modules), from the packages that
# lib.sh installs from the npm registry, by the user who runs the test
# (uid 65534 with --as-nobody), in a HOME of its own.  Each runs
# --version, and --explain shows that the package's tree is granted for
# reading and execution, and not the prefix that holds it.  TAP output.

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
lr_args "$@"

OC_DIR=$(lr_npm_install opencode-ai "$LR_OPENCODE_VERSION")
OC_RC=$?
CX_DIR=$(lr_npm_install @openai/codex "$LR_CODEX_VERSION")
CX_RC=$?
CL_DIR=$(lr_npm_install @anthropic-ai/claude-code "$LR_CLAUDE_VERSION")
CL_RC=$?
lr_become_nobody

lr_workdir harness-installs
H=$W/home P=$W/home/src/webapp
mkdir -p "$H" "$P/src" || exit 1
git -C "$P" init -q || exit 1
lr_profiles "$H" || exit 1

# A copy (hard links when it can) of a cached package tree, made by us.
copy() { # FROM TO
	mkdir -p "$(dirname "$2")" &&
		{ cp -al "$1" "$2" 2>/dev/null || { rm -rf "$2" && cp -r "$1" "$2"; }; }
}

# landrun [OPTION] -- NAME ARGS... from the repository's src/, with PATH=BINDIR first
lr_in() { # BINDIR [OPTION] -- NAME ARGS...
	local bindir=$1
	shift
	(cd "$P/src" && env -i PATH="$bindir:/usr/bin:/bin" HOME="$H" TERM=dumb LANG=C.UTF-8 \
		timeout 120 "$LANDRUN" "$@")
}

# version DESC BINDIR NAME WANT: --version runs and prints WANT
version() {
	local out
	out=$(lr_in "$2" -- "$3" --version 2>&1)
	if [ $? = 0 ] && echo "$out" | grep -qF -- "$4"; then ok "$1: $3 --version"; else
		not_ok "$1: $3 --version" "$out"
	fi
}

# granted DESC BINDIR NAME TREE PREFIX: --explain grants TREE (read and
# execute, from --add-exec), not PREFIX
granted() {
	local out
	out=$(lr_in "$2" --explain -- "$3" 2>&1)
	if echo "$out" | grep -qF -- "--add-exec $4 -> $4: execute,read_file" &&
		! echo "$out" | grep -qE -- "^  --[a-z-]+ +$5 "; then
		ok "$1: the package's tree is granted, not $5"
	else
		not_ok "$1: the package's tree is granted, not $5" "$(echo "$out" | grep -E '^  --')"
	fi
}

# ---------------------------------------------------------------- Codex

if [ "$CX_RC" = 0 ]; then
	for prefix in "$H/.npm-global" "$H/.local"; do
		pkg=$prefix/lib/node_modules/@openai/codex
		copy "$CX_DIR/node_modules/@openai/codex" "$pkg" &&
			for d in "$CX_DIR"/node_modules/@openai/codex-linux-*; do
				copy "$d" "$pkg/node_modules/@openai/${d##*/}"
			done &&
			mkdir -p "$prefix/bin" && ln -s ../lib/node_modules/@openai/codex/bin/codex.js \
			"$prefix/bin/codex" || { not_ok "codex: installed in $prefix"; continue; }
		version "codex in ${prefix#"$H"/}" "$prefix/bin" codex codex-cli
		# the control: base grants no installation (no add-exec), and codex cannot start
		if lr_in "$prefix/bin" --profile base -- codex --version >/dev/null 2>&1; then
			not_ok "codex in ${prefix#"$H"/}: does not start under base (no add-exec)"
		else
			ok "codex in ${prefix#"$H"/}: does not start under base (no add-exec)"
		fi
		granted "codex in ${prefix#"$H"/}" "$prefix/bin" codex "$pkg" "$prefix"
	done
else
	skip "codex in a user prefix" "@openai/codex could not be installed"
fi

# ---------------------------------------------------------------- OpenCode

OC=
[ "$OC_RC" = 0 ] && OC=$(lr_opencode_bin "$OC_DIR")
if [ -n "$OC" ]; then
	ver=$("$OC" --version 2>/dev/null)
	mkdir -p "$H/.opencode/bin" && cp "$OC" "$H/.opencode/bin/opencode" ||
		not_ok "opencode: installed in ~/.opencode/bin"
	version "opencode in ~/.opencode/bin" "$H/.opencode/bin" opencode "$ver"
	pkg=$H/.bun/install/global/node_modules/opencode-ai
	copy "$OC_DIR/node_modules/opencode-ai" "$pkg" && mkdir -p "$pkg/bin" &&
		{ [ -x "$pkg/bin/opencode.exe" ] || cp "$OC" "$pkg/bin/opencode.exe"; } &&
		mkdir -p "$H/.bun/bin" && ln -s "$pkg/bin/opencode.exe" "$H/.bun/bin/opencode" ||
		not_ok "opencode: installed by bun"
	version "opencode in ~/.bun/bin" "$H/.bun/bin" opencode "$ver"
	granted "opencode in ~/.bun/bin" "$H/.bun/bin" opencode "$pkg" "$H/.bun"
	# The README's and landrun(1)'s "every part said outright" lines (with
	# --version): the command line names the system, so no profile and no
	# project are added, and OpenCode starts with what they name.
	O=$W/outright
	mkdir -p "$O/src" "$O/roles" "$O/workspace" "$O/logs" && echo 'OPENAI_API_KEY=k' >"$O/.env"
	outright() { # DESC LANDRUN-ARGS...
		local desc=$1 out
		shift
		out=$(cd "$O" && env -i PATH="$H/.opencode/bin:/usr/bin:/bin" HOME="$H" TERM=dumb \
			timeout 120 "$LANDRUN" "$@" -- opencode --version 2>&1)
		if [ $? = 0 ] && echo "$out" | grep -qF -- "$ver"; then ok "$desc"; else
			not_ok "$desc" "$out"
		fi
	}
	outright "the README's outright line runs OpenCode" \
		--rox /usr,/bin,/lib,/lib64 --add-exec --ro /dev/urandom,/proc/self/maps \
		--private-tmp --private-home --ro src,roles --rw workspace,logs \
		--env-file .env --env-prefix OPENAI_ --env PATH
	outright "landrun(1)'s outright line runs OpenCode" \
		--rox /usr,/bin,/lib,/lib64 --add-exec --ro /dev/urandom,/proc/self/maps \
		--private-tmp --private-home --ro src --rw workspace \
		--env-file .env --env OPENAI_API_KEY --env PATH \
		--allow-domain api.openai.com
else
	skip "opencode in ~/.opencode/bin and ~/.bun/bin" "opencode-ai could not be installed"
fi

# ---------------------------------------------------------------- Claude Code

CL=$(ls "$CL_DIR"/node_modules/@anthropic-ai/claude-code-linux-*/claude 2>/dev/null | head -n 1)
if [ "$CL_RC" = 0 ] && [ -n "$CL" ]; then
	v=$LR_CLAUDE_VERSION
	mkdir -p "$H/.local/share/claude/versions" "$H/.local/bin" &&
		cp "$CL" "$H/.local/share/claude/versions/$v" &&
		ln -sf "$H/.local/share/claude/versions/$v" "$H/.local/bin/claude" ||
		not_ok "claude: installed in ~/.local/bin"
	version "claude in ~/.local/bin" "$H/.local/bin" claude "$v"
else
	skip "claude in ~/.local/bin" "@anthropic-ai/claude-code could not be installed"
fi

tap_end
