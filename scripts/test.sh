#!/bin/bash
# test.sh - the whole test suite: unit tests, end-to-end tests as root and as an
# unprivileged user, and the unit tests again under AddressSanitizer and UBSan.
# Installs what it needs (as root), builds into build/ and build-asan/.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
lr_install_deps

status=0
lr_build . build
meson test -C build --print-errorlogs || status=1

lr_build . build-asan -Db_sanitize=address,undefined -Db_lundef=false
meson test -C build-asan --suite unit --print-errorlogs || status=1

if [ $status = 0 ]; then echo "landrun: all tests passed"; else echo "landrun: TESTS FAILED"; fi
exit $status
