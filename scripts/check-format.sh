#!/bin/bash
# check-format.sh - report the C files that clang-format (.clang-format, the
# kernel's style) would change; exit 1 if any.  Advisory: not run in CI, since
# clang-format versions disagree on details.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "check-format: clang-format is not installed" >&2; exit 2; }
bad=0
for f in src/*.c src/*/*.c include/landrun/*/*.h tools/*/*.c; do
	if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
		echo "check-format: $f"
		bad=1
	fi
done
exit $bad
