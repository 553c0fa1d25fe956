#!/bin/bash
# demo.sh - landrun doing its main job on a demo project.
#
# Builds landrun if needed, makes a project with src/, roles/, workspace/, logs/
# and a .env holding a secret, runs commands confined the way an AI harness
# would be, and prints what the command could and could not do.  Each line is
# checked from outside the sandbox.  Exit 0 when everything held.
#
# demo.sh --installed: the same with the landrun on PATH (the Debian package,
# scripts/test-package.sh), nothing built.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --installed ]; then
	LANDRUN=$(command -v landrun) || { echo "landrun demo: no landrun on PATH" >&2; exit 1; }
else
	. scripts/deps.sh
	lr_install_deps
	lr_build . build
	LANDRUN=$PWD/build/landrun
fi

proj=$(mktemp -d /tmp/landrun-demo.XXXXXX)
trap 'rm -rf "$proj"' EXIT
mkdir -p "$proj"/{src,roles,workspace,logs}
printf 'print("hello from src")\n' >"$proj/src/main.py"
printf 'You are a careful coding agent.\n' >"$proj/roles/coder.md"
cat >"$proj/.env" <<'DOTENV'
# secrets: the harness may see the model key, nothing else
OPENAI_API_KEY=sk-demo-model-key
DATABASE_PASSWORD="hunter2: never for the agent"
DOTENV
cd "$proj"

# what a harness gets: system dirs read+exec, the project split in four
sandbox() {
	"$LANDRUN" --rox /usr,/bin,/lib,/lib64 --ro /etc/ld.so.cache \
		--ro src,roles --rw workspace,logs \
		--env-file .env --env-prefix OPENAI_ --env PATH -- "$@"
}

failed=0
row() { # row WHAT EXPECTED ACTUAL
	local verdict=ok
	[ "$2" = "$3" ] || { verdict=UNEXPECTED; failed=1; }
	printf '  %-44s %-20s %-20s %s\n' "$1" "$2" "$3" "$verdict"
}
try() { if sandbox sh -c "$1" >/dev/null 2>&1; then echo allowed; else echo denied; fi; }

echo "landrun demo project: $proj (landrun: $LANDRUN)"
echo "  landrun --rox /usr,/bin,/lib,/lib64 --ro src,roles --rw workspace,logs \\"
echo "          --env-file .env --env-prefix OPENAI_ --env PATH -- COMMAND"
echo
printf '  %-44s %-20s %-20s %s\n' CHECK EXPECTED ACTUAL ""
row "read src/main.py" allowed "$(try 'cat src/main.py')"
row "read roles/coder.md" allowed "$(try 'cat roles/coder.md')"
sandbox sh -c 'echo result >workspace/out.txt' >/dev/null 2>&1 || true
row "write workspace/out.txt (seen from outside)" allowed \
	"$([ -f workspace/out.txt ] && echo allowed || echo denied)"
row "write logs/run.log" allowed "$(try 'echo log >logs/run.log')"
row "read .env" denied "$(try 'cat .env')"
row "read .env via src/../.env" denied "$(try 'cat src/../.env')"
row "read .env via a symlink made in workspace" denied \
	"$(try 'ln -sf ../.env workspace/link && cat workspace/link')"
row "list the project root" denied "$(try 'ls .')"
before=$(cat src/main.py)
sandbox sh -c 'echo "import os" >>src/main.py' >/dev/null 2>&1 || true
row "modify src/main.py (seen from outside)" denied \
	"$([ "$(cat src/main.py)" = "$before" ] && echo denied || echo allowed)"
row "truncate src/main.py" denied "$(try ': >src/main.py')"
row "read /etc/passwd" denied "$(try 'cat /etc/passwd')"
row "run python3 (the control for the next line)" allowed "$(try '/usr/bin/python3 -c "pass"')"
row "open a TCP socket (no network by default)" denied \
	"$(try '/usr/bin/python3 -c "import socket; socket.socket()"')"
env_seen=$(sandbox env | cut -d= -f1 | sort | tr '\n' ' ')
row "environment is exactly OPENAI_API_KEY PATH" "OPENAI_API_KEY PATH" "${env_seen% }"
row "DATABASE_PASSWORD from .env reaches it" no \
	"$(sandbox env | grep -q DATABASE_PASSWORD && echo yes || echo no)"
row "HOME from the caller reaches it" no "$(sandbox env | grep -q '^HOME=' && echo yes || echo no)"
echo
if [ $failed = 0 ]; then
	echo "landrun demo: every check held"
else
	echo "landrun demo: SOME CHECKS DID NOT HOLD"
fi
exit $failed
