#!/bin/bash
# analyze.sh - build landrun with GCC's static analyzer (-fanalyzer, in
# build-analyze/) and fail if it warns about anything in src/, include/ or tools/.
# The analyzer's findings are fixed, or the code restructured where it was
# wrong: nothing in the sources silences it.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
lr_install_deps

log=build-analyze/analyzer.log
rm -rf build-analyze
CC=gcc meson setup build-analyze -Dc_args=-fanalyzer -Dtests=disabled >/dev/null
mkdir -p build-analyze
# every source file of landrun itself, the seccomp filter generator included
if ! meson compile -C build-analyze landrun:executable lr-seccomp-gen:executable >"$log" 2>&1; then
	tail -40 "$log"
	echo "analyze: the build failed" >&2
	exit 1
fi
if grep -E '^\.\./(src|include|tools)/[^:]+:[0-9]+:[0-9]+: warning: .*\[-Wanalyzer-' "$log" >/dev/null; then
	grep -E -A30 '^\.\./(src|include|tools)/[^:]+:[0-9]+:[0-9]+: warning: .*\[-Wanalyzer-' "$log" | head -200
	echo "analyze: GCC's analyzer warns about the code above (whole log: $log)"
	exit 1
fi
n=$(grep -c 'Compiling C object' "$log" || true)
echo "analyze: -fanalyzer: no warnings in src/ ($n files compiled)"
