#!/bin/bash
# test-package.sh - the Debian package, as a user gets it (root, Debian 12 or
# newer): builds it from a clean copy of the tree with `dpkg-buildpackage -us
# -uc -b` (which runs the unit and documentation tests), runs lintian on it,
# installs it with `apt-get install ./landrun_*.deb`, checks what it installed,
# runs the demo with the installed landrun (demo.sh --installed) and a
# project under the installed profiles, then removes the package.
# Exit 1 if any of it fails or lintian reports an error or a warning.
# KEEP=1 keeps the package (and the build directory: its path is printed).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh

die() { echo "test-package: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "run as root (it installs the package)"
lr_install_deps dpkg-dev debhelper lintian build-essential
# the Build-Depends of debian/control, the tests' included
build_dep() { DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -qq ./ >/dev/null; }
build_dep || { apt-get update -qq && build_dep; } || die "apt-get build-dep ./ failed"

work=$(mktemp -d /tmp/landrun-package.XXXXXX)
installed=0
cleanup() {
	if [ "${KEEP:-0}" = 1 ]; then
		echo "test-package: kept $work"
		return
	fi
	[ $installed = 0 ] || DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq landrun >/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

# a clean copy: the files git knows and new ones it does not ignore (no
# build directories), as they are in the working tree
mkdir "$work/landrun"
if git rev-parse --git-dir >/dev/null 2>&1; then
	git ls-files -z --cached --others --exclude-standard |
		xargs -0 -I{} sh -c '[ ! -e "$1" ] || cp -a --parents "$1" "$2"' _ {} "$work/landrun"
else
	tar -c --exclude='./build*' --exclude=./.git . | tar -x -C "$work/landrun"
fi

echo "test-package: dpkg-buildpackage -us -uc -b (log: $work/build.log)"
if ! (cd "$work/landrun" && dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1; then
	tail -60 "$work/build.log"
	die "dpkg-buildpackage failed"
fi
grep -E '^ *[0-9]+/[0-9]+ .*(OK|FAIL|ERROR|SKIP)' "$work/build.log" | sed 's/^/  built and tested: /' || true
deb=$(ls "$work"/landrun_*.deb)
changes=$(ls "$work"/landrun_*.changes)

status=0
# lintian: every tag but the informational ones fails this script; the
# pedantic and experimental ones are printed for the record
lintian --info --pedantic --display-experimental "$changes" >"$work/lintian.log" 2>&1 || true
echo "test-package: lintian $(lintian --version | cut -d' ' -f2): $(grep -c '^[EW]:' "$work/lintian.log" || true) errors and warnings, $(grep -c '^[IPX]:' "$work/lintian.log" || true) notes"
grep -E '^[EWIPX]:' "$work/lintian.log" | sort -u | sed 's/^/  /' || true
if grep -q '^[EW]:' "$work/lintian.log"; then
	status=1
fi

DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >"$work/install.log" 2>&1 ||
	{ cat "$work/install.log"; die "apt-get install $deb failed"; }
installed=1
check() { # check WHAT COMMAND...
	local what=$1
	shift
	if "$@" >/dev/null 2>&1; then
		echo "  installed: $what: ok"
	else
		echo "  installed: $what: FAILED"
		status=1
	fi
}
files=$(dpkg -L landrun)
has() { grep -qx "$1" <<<"$files"; }
check "/usr/bin/landrun, the one on PATH" test "$(command -v landrun)" = /usr/bin/landrun
check "landrun --version says $(dpkg-query -W -f='${Version}' landrun)" \
	sh -c 'landrun --version | grep -qx "landrun $(dpkg-query -W -f="\${Version}" landrun)"'
check "the egress helper /usr/libexec/landrun/landrun-egress" \
	test -x /usr/libexec/landrun/landrun-egress
check "landrun --allow-domain finds and starts the installed helper" \
	sh -c 'landrun --log-level debug --profile base --allow-domain example.invalid -- true 2>&1 |
		grep -q "the helper is /usr/libexec/landrun/landrun-egress"'
for p in base claude-code codex opencode; do
	check "profile $p in /usr/share/landrun/profiles" has "/usr/share/landrun/profiles/$p.conf"
done
check "man page landrun(1)" has /usr/share/man/man1/landrun.1.gz
check "man page landrun.conf(5)" has /usr/share/man/man5/landrun.conf.5.gz
check "landrun(1) documents --profile" sh -c 'zcat /usr/share/man/man1/landrun.1.gz | grep -q "fB--profile"'
check "bash completion" has /usr/share/bash-completion/completions/landrun
check "zsh completion" has /usr/share/zsh/vendor-completions/_landrun
check "fish completion" has /usr/share/fish/vendor_completions.d/landrun.fish
# the reference, docs/*.md (dh_compress gzips those over 4 kB), named by the
# man page
has_doc() { has "/usr/share/doc/landrun/$1" || has "/usr/share/doc/landrun/$1.gz"; }
for d in docs/*.md; do
	check "the reference: ${d#docs/} in /usr/share/doc/landrun" has_doc "${d#docs/}"
done
check "landrun(1) names /usr/share/doc/landrun/" \
	sh -c 'zcat /usr/share/man/man1/landrun.1.gz | grep -q "/usr/share/doc/landrun/"'
check "the profiles found in /usr/share/landrun/profiles" \
	sh -c 'landrun --profile base --explain 2>&1 | grep -q /usr/share/landrun/profiles/base.conf'

# the demo, with the installed landrun
bash scripts/demo.sh --installed || status=1

# a project under the installed profiles, with no flags: as a harness runs
proj=$work/project
mkdir -p "$proj/src"
echo 'print("hi")' >"$proj/src/main.py"
echo 'SECRET=hunter2' >"$proj/.env"
git -C "$proj" init -q
in_project() { (cd "$proj" && landrun --log-level error -- "$@"); }
check "landrun -- cat src/main.py in a project (base and the project)" in_project cat src/main.py
check "landrun -- cat .env is denied" sh -c "! (cd '$proj' && landrun --log-level error -- cat .env)"
check "landrun -- touch src/new writes the project" \
	sh -c "(cd '$proj' && landrun --log-level error -- touch src/new) && test -e '$proj/src/new'"
check "landrun -- touch .git/hooks/pre-commit is denied" \
	sh -c "! (cd '$proj' && landrun --log-level error -- touch .git/hooks/pre-commit)"

[ $status = 0 ] && echo "test-package: passed" || echo "test-package: FAILED"
exit $status
