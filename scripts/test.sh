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

# one closing line over both runs, counting every registered test
python3 - build/meson-logs/testlog.json build-asan/meson-logs/testlog.json <<'PY'
import json, sys
passed = failed = skipped = 0
for path in sys.argv[1:]:
    for line in open(path):
        result = json.loads(line)["result"]
        if result == "OK":
            passed += 1
        elif result == "SKIP":
            skipped += 1
        else:
            failed += 1
print(f"landrun: {passed} passed, {failed} failed, {skipped} skipped")
PY
exit $status
