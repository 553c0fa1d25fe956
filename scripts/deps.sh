#!/bin/bash
# deps.sh - install what landrun needs to build and test (Debian 12 or newer, as root),
# and set up the build directory.  Sourced by demo.sh and test.sh; safe to run twice.
set -euo pipefail

LR_PACKAGES=(gcc libc6-dev meson ninja-build pkgconf libseccomp-dev
	     libcriterion-dev libinih-dev util-linux
	     libssl-dev			# the egress helper's TLS (--secret-header)
	     scdoc			# the man pages
	     bash-completion zsh fish	# the completions' test runs them
	     python3-venv	# python3 -m venv (ensurepip), which has no command of its own
	     cargo clangd)	# learn.sh's tools: Debian's own (a rustup cargo elsewhere is not used)
# The everyday tools of the smoke tests (smoke.sh, everyday.sh), privs.sh's
# setfacl, the terminal of tty.sh and everyday.sh, egress.sh's curl, ip and
# openssl: COMMAND:PACKAGE,
# installed only when the command is missing (a machine may have Node from
# elsewhere, npm included).
LR_TOOLS=(git:git python3:python3 node:nodejs npm:npm make:make less:less vim:vim setfacl:acl
	  tmux:tmux curl:curl ip:iproute2 openssl:openssl)
# Only for scripts/fuzz.sh: clang, with libFuzzer and the sanitizer runtimes.
LR_FUZZ_PACKAGES=(clang libclang-rt-14-dev)

# lr_install_deps [EXTRA_PACKAGE...]: what every script needs, and the extras
lr_install_deps() {
	local missing=()
	for p in "${LR_PACKAGES[@]}" "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	for t in "${LR_TOOLS[@]}"; do
		command -v "${t%%:*}" >/dev/null || missing+=("${t#*:}")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" != 0 ]; then
		echo "landrun: missing packages: ${missing[*]} (run as root, or apt-get install them)" >&2
		return 1
	fi
	echo "landrun: installing ${missing[*]}" >&2
	DEBIAN_FRONTEND=noninteractive apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# lr_build SRCDIR BUILDDIR [meson options...]
lr_build() {
	local src=$1 build=$2
	shift 2
	local log
	log=$(mktemp)
	if { [ -f "$build/build.ninja" ] || meson setup "$build" "$src" "$@"; } >"$log" 2>&1 &&
		meson compile -C "$build" >>"$log" 2>&1; then
		rm -f "$log"
		return 0
	fi
	tail -40 "$log" >&2
	rm -f "$log"
	echo "landrun: building in $build failed" >&2
	return 1
}
