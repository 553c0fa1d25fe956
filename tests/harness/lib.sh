# SPDX-License-Identifier: MIT
# lib.sh - shared by the harness tests: TAP output, installing the real
# harnesses from the npm registry into a cache directory.  Sourced.
#
# The harnesses are installed once into $LANDRUN_HARNESS_CACHE (default
# ~/.cache/landrun-harness/<name>), at the versions pinned below; set
# LANDRUN_OPENCODE_VERSION=latest (and so on) to try another.  The npm
# registry is asked only when the pinned version is not installed yet.

LR_OPENCODE_VERSION=${LANDRUN_OPENCODE_VERSION:-1.18.33}
LR_CODEX_VERSION=${LANDRUN_CODEX_VERSION:-0.171.0}
LR_CLAUDE_VERSION=${LANDRUN_CLAUDE_VERSION:-2.1.197}
LR_CACHE=${LANDRUN_HARNESS_CACHE:-${HOME:-/root}/.cache/landrun-harness}

# ---------------------------------------------------------------- TAP

N=0 FAILED=0

ok() { # DESC
	N=$((N + 1))
	echo "ok $N - $1"
}

not_ok() { # DESC [DETAIL...]
	N=$((N + 1)) FAILED=$((FAILED + 1))
	echo "not ok $N - $1"
	shift
	local line
	for line in "$@"; do
		printf '%s\n' "$line" | head -c 2000 | sed 's/^/#   /'
	done
}

skip() { # DESC REASON
	N=$((N + 1))
	echo "ok $N - $1 # SKIP $2"
}

check() { # DESC COMMAND... : ok when COMMAND succeeds
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}

tap_end() {
	echo "1..$N"
	echo "# $((N - FAILED)) passed, $FAILED failed"
	[ "$FAILED" = 0 ]
}

# Skip the whole file: the plan with a reason, exit 0.
skip_all() { # REASON
	echo "1..0 # SKIP $1"
	exit 0
}

# ---------------------------------------------------------------- installing

# Install what the tests need from Debian (as root; otherwise it must be there).
lr_need_apt() { # COMMAND PACKAGE
	command -v "$1" >/dev/null 2>&1 && return 0
	[ "$(id -u)" = 0 ] || return 1
	echo "# installing $2 from Debian" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$2" \
		>/dev/null 2>&1 && return 0
	DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$2" >/dev/null
}

lr_registry_reachable() {
	timeout 60 npm view --silent opencode-ai version >/dev/null 2>&1
}

# lr_npm_install PACKAGE VERSION: installs into $LR_CACHE/<name> unless that
# version is there.  Prints the directory.  Returns 2 when the registry cannot
# be reached (the caller skips), 1 on any other failure.
lr_npm_install() {
	local pkg=$1 ver=$2 dir have
	dir=$LR_CACHE/$(printf '%s' "$pkg" | tr -d @ | tr / -)
	have=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' \
		"$dir/node_modules/$pkg/package.json" 2>/dev/null | head -n 1)
	if [ -n "$have" ] && { [ "$have" = "$ver" ] || [ "$ver" = latest ]; }; then
		echo "$dir"
		return 0
	fi
	if ! command -v npm >/dev/null 2>&1 && ! lr_need_apt npm npm; then
		echo "# npm is not installed and cannot be (not root)" >&2
		return 1
	fi
	lr_registry_reachable || return 2
	mkdir -p "$dir" || return 1
	echo "# installing $pkg@$ver from the npm registry into $dir" >&2
	# In DIR itself: a directory named like the package in the current
	# directory would be taken for a local package.
	(cd "$dir" && npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
		"$pkg@$ver" >&2) || return 1
	echo "$dir"
}

# The native OpenCode executable in an opencode-ai install: the platform
# package's binary (the npm package's postinstall only links it into
# opencode-ai/bin; its scripts may not have run).
lr_opencode_bin() { # DIR
	local dir=$1 arch base cands c
	case $(uname -m) in
	x86_64) arch=x64 ;;
	aarch64) arch=arm64 ;;
	*) return 1 ;;
	esac
	base=$dir/node_modules/opencode-linux-$arch
	cands="$base/bin/opencode $base-baseline/bin/opencode"
	if [ "$arch" = x64 ] && ! grep -qw avx2 /proc/cpuinfo 2>/dev/null; then
		cands="$base-baseline/bin/opencode $base/bin/opencode"
	fi
	for c in $cands "$dir/node_modules/opencode-ai/bin/opencode.exe"; do
		if [ -x "$c" ] && "$c" --version >/dev/null 2>&1; then
			echo "$c"
			return 0
		fi
	done
	return 1
}

# OpenCode's configuration in HOME/.config/opencode (which must exist), then
# that directory made read-only: the fake model on 127.0.0.1:PORT as the only
# provider and model, no autoupdate, no sharing.  Each MEMBER ('"key": value')
# is added to the top-level object.
lr_opencode_config() { # HOME PORT [MEMBER...]
	local cfg=$1/.config/opencode port=$2 m more=
	shift 2
	for m in "$@"; do
		more+=",
  $m"
	done
	cat >"$cfg/opencode.json" <<EOF
{
  "provider": {
    "fake": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Fake",
      "options": { "baseURL": "http://127.0.0.1:$port/v1", "apiKey": "fake-key" },
      "models": { "fake-model": { "name": "Fake model", "tool_call": true } }
    }
  },
  "model": "fake/fake-model",
  "small_model": "fake/fake-model",
  "autoupdate": false,
  "share": "disabled"$more
}
EOF
	chmod -R a-w "$cfg"
}

# Wait until FILE exists and is not empty (at most SECONDS).
lr_wait_file() { # FILE SECONDS
	local i
	for i in $(seq 1 $((${2} * 10))); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	return 1
}
