#!/bin/bash
# common.sh - shared by bench-startup.sh and bench-runtime.sh: install what the
# benchmarks need, build landrun for them, run hyperfine, print tables.
# Sourced, not run.  A benchmark is not a test: only a harness error (a missing
# tool, a failed build, hyperfine itself failing) makes the scripts exit non-zero;
# a contender that cannot run here is left out with a note.
set -euo pipefail

BENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BENCH_DIR=$BENCH_ROOT/scripts/bench
BENCH_BUILD=${LANDRUN_BENCH_BUILD:-$BENCH_ROOT/build-bench}
BENCH_CACHE=${LANDRUN_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/landrun-bench}
BENCH_OUT=${LANDRUN_BENCH_OUT:-$BENCH_CACHE/results}
BENCH_NOTES=()

# shellcheck source=../deps.sh
source "$BENCH_ROOT/scripts/deps.sh"

bench_note() { BENCH_NOTES+=("$*"); echo "bench: $*" >&2; }
bench_fail() { echo "bench: harness error: $*" >&2; exit 2; }

# Debian packages: landrun's build deps, the timer and the peers; ripgrep and
# socat are what sandbox-runtime needs on Linux.
BENCH_PACKAGES=(hyperfine bubblewrap firejail python3 git make gcc ripgrep socat)

# bench_install [PACKAGE...]: the packages above and the extra ones a script needs.
bench_install() {
	local missing=()

	lr_install_deps || bench_fail "cannot install landrun's build dependencies"
	for p in "${BENCH_PACKAGES[@]}" "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		[ "$(id -u)" = 0 ] || bench_fail "missing packages: ${missing[*]} (run as root)"
		echo "bench: installing ${missing[*]}" >&2
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -qq
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
			"${missing[@]}" >/dev/null || bench_fail "apt-get install ${missing[*]} failed"
	fi
	command -v hyperfine >/dev/null || bench_fail "hyperfine is not installed"
}

# The npm peers, optional: into the cache dir, never globally.
bench_install_npm() {
	local pkgs=(@openai/codex @anthropic-ai/sandbox-runtime)

	[ "${LANDRUN_BENCH_NO_NPM:-}" ] && { bench_note "npm peers skipped (LANDRUN_BENCH_NO_NPM)"; return 0; }
	if ! command -v npm >/dev/null; then
		bench_note "npm not found: Codex's sandbox and sandbox-runtime skipped"
		return 0
	fi
	mkdir -p "$BENCH_CACHE"
	if [ ! -x "$BENCH_CACHE/node_modules/.bin/codex" ] || [ ! -x "$BENCH_CACHE/node_modules/.bin/srt" ]; then
		echo "bench: npm install ${pkgs[*]} into $BENCH_CACHE" >&2
		(cd "$BENCH_CACHE" && npm install --prefix . --no-audit --no-fund --loglevel=error \
			"${pkgs[@]}" >&2) || bench_note "npm install failed: the npm peers are skipped"
	fi
}

# landrun, optimised, in its own build directory (the tests are not built);
# and its egress helper, which landrun --allow-domain finds beside it: without
# it a fresh build directory cannot run bench-egress.sh's proxy at all.
bench_build() {
	if [ ! -f "$BENCH_BUILD/build.ninja" ]; then
		meson setup "$BENCH_BUILD" "$BENCH_ROOT" --buildtype=release >/dev/null ||
			bench_fail "meson setup $BENCH_BUILD failed"
	fi
	ninja -C "$BENCH_BUILD" landrun landrun-egress liblandrun.a \
		tools/seccomp-gen/liblandrun-seccomp-builder.a >/dev/null || bench_fail "building landrun failed"
	LANDRUN=$BENCH_BUILD/landrun
}

# The kernel's Landlock sample, samples/landlock/sandboxer.c, as the Landlock
# floor: taken from Debian's linux-source (bench_install linux-source; its
# tarball is unpacked for this one file) and built as landrun is, -O2 and
# static, into the cache.  Sets SANDBOXER, or leaves it empty with a note.
bench_sandboxer() {
	local tarball tmp

	SANDBOXER=$BENCH_CACHE/sandboxer
	[ -x "$SANDBOXER" ] && return 0
	SANDBOXER=
	mkdir -p "$BENCH_CACHE"
	tarball=$(find /usr/src -maxdepth 1 -name 'linux-source-*.tar.xz' | sort -V | tail -n 1)
	if [ -z "$tarball" ]; then
		bench_note "no /usr/src/linux-source-*.tar.xz: the kernel's Landlock sample is left out"
		return 0
	fi
	tmp=$(mktemp -d)
	echo "bench: unpacking samples/landlock/sandboxer.c from $tarball" >&2
	if tar -xJf "$tarball" -C "$tmp" --wildcards '*/samples/landlock/sandboxer.c' &&
		gcc -O2 -static -o "$BENCH_CACHE/sandboxer.new" "$tmp"/*/samples/landlock/sandboxer.c; then
		mv "$BENCH_CACHE/sandboxer.new" "$BENCH_CACHE/sandboxer"
		SANDBOXER=$BENCH_CACHE/sandboxer
	else
		bench_note "the kernel's Landlock sample from $tarball did not build: left out"
	fi
	rm -rf "$tmp"
}

# A C helper from scripts/bench, compiled into the output directory.
bench_cc() {
	local src=$1 out=$2
	shift 2
	gcc -O2 -std=gnu11 -Wall -o "$out" "$BENCH_DIR/$src" "$@" || bench_fail "cannot compile $src"
}

# Contenders: parallel arrays of names and command lines (hyperfine -N style:
# no shell, split on spaces; so no argument may contain a space).
C_NAMES=()
C_CMDS=()

# bench_add NAME COMMAND: kept only if it runs and exits 0 here.
bench_add() {
	local name=$1 cmd=$2 out

	# shellcheck disable=SC2086
	if ! out=$(cd /tmp && timeout 120 $cmd 2>&1 </dev/null); then
		bench_note "$name left out: '$cmd' failed here: $(echo "$out" | tail -n 2 | tr '\n' ' ')"
		return 0
	fi
	C_NAMES+=("$name")
	C_CMDS+=("$cmd")
}

# bench_run TITLE JSON FLOOR_NAME [hyperfine options...]: every contender in one
# hyperfine session, then the table of medians and ratios against FLOOR_NAME.
bench_run() {
	local title=$1 json=$2 floor=$3 args=()
	shift 3

	if [[ ! " ${C_NAMES[*]-} " == *" $floor "* ]] && ! printf '%s\n' "${C_NAMES[@]-}" | grep -qxF "$floor"; then
		bench_note "$title: skipped, its reference '$floor' cannot run here"
		C_NAMES=()
		C_CMDS=()
		return 0
	fi
	for i in "${!C_NAMES[@]}"; do
		args+=(-n "${C_NAMES[$i]}" "${C_CMDS[$i]}")
	done
	mkdir -p "$(dirname "$json")"
	(cd /tmp && hyperfine -N --style basic --export-json "$json" "$@" "${args[@]}") >"$json.log" 2>&1 ||
		{ tail -n 20 "$json.log" >&2; bench_fail "hyperfine failed (log: $json.log)"; }
	python3 "$BENCH_DIR/table.py" "$json" "$floor" "$title" || bench_fail "cannot read $json"
	C_NAMES=()
	C_CMDS=()
}

bench_machine() {
	echo "machine: $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1)," \
		"Linux $(uname -r), $(. /etc/os-release && echo "$PRETTY_NAME"), uid $(id -u)"
	bench_load
}

# The load average, to read a session's figures by (other work on shared cores).
bench_load() {
	echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
}

bench_print_notes() {
	[ ${#BENCH_NOTES[@]} -eq 0 ] && return 0
	echo
	echo "notes:"
	printf '  - %s\n' "${BENCH_NOTES[@]}"
}
