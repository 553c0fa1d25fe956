#!/bin/bash
# fuzz.sh [SECONDS] [TARGET...] - build the libFuzzer targets of tests/fuzz/
# (clang, AddressSanitizer, UBSan; in build-fuzz/) and run each for SECONDS
# (default 60), one after the other.  TARGETs: broker cli config dotenv egress elf expand learn secrets
# (default: all).  A target starts from its seeds in tests/fuzz/corpus/ and the
# corpus it grew in earlier runs (build-fuzz/corpus/).  Exit 1 if any target
# found a crash, a leak, a timeout or an out-of-memory: the input that did it
# is kept in build-fuzz/fuzz-artifacts/TARGET/ and printed in base64.
# Reproduce with: build-fuzz/tests/fuzz/fuzz_TARGET FILE
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh

secs=60
if [[ ${1:-} =~ ^[0-9]+$ ]]; then
	secs=$1
	shift
fi
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(broker cli config dotenv egress elf expand learn secrets termfilter)

lr_install_deps "${LR_FUZZ_PACKAGES[@]}"
CC=clang lr_build . build-fuzz -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false \
	-Dtests=disabled

root=$PWD
# The targets build file trees (.env files among them) for every input: in
# memory rather than on the disk (ten times faster), in a directory of ours
# that goes at the end, with whatever a crashed target left behind.  While it
# runs, a landrun granted /dev/shm (the e2e smoke test) finds those .env files
# and keeps the command out of them, so run the two one after the other.
scratch=$(mktemp -d "$([ -w /dev/shm ] && echo /dev/shm || echo /tmp)/landrun-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
export TMPDIR=$scratch
status=0
for t in "${targets[@]}"; do
	bin=$root/build-fuzz/tests/fuzz/fuzz_$t
	seeds=$root/tests/fuzz/corpus/$t
	corpus=$root/build-fuzz/corpus/$t
	art=$root/build-fuzz/fuzz-artifacts/$t
	log=$root/build-fuzz/fuzz-$t.log
	if [ ! -x "$bin" ] || [ ! -d "$seeds" ]; then
		echo "fuzz: no target '$t' (cli config dotenv egress elf expand learn secrets)" >&2
		status=1
		continue
	fi
	mkdir -p "$corpus" "$art"
	# the targets chdir into a private directory: every path here is absolute.
	# -timeout stays well above the targets' own 4 s check (fuzz.c).
	rc=0
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
		-artifact_prefix="$art/" -print_final_stats=1 "$corpus" "$seeds" \
		</dev/null >"$log" 2>&1 || rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	found=$(grep -o "Test unit written to [^ ]*" "$log" | tail -1 | sed 's/.* to //' || true)
	if [ $rc = 0 ] && [ -z "$found" ]; then
		echo "fuzz: $t: ${secs} s, ${runs:-?} runs, nothing found (corpus: $(ls "$corpus" | wc -l) inputs)"
		continue
	fi
	status=1
	echo "fuzz: $t: FAILED after ${runs:-?} runs (exit $rc); the fuzzer's report:"
	grep -a -E -A30 '^==[0-9]+==|invariant failed|ERROR: libFuzzer' "$log" | head -60 || tail -40 "$log"
	if [ -n "$found" ] && [ -f "$found" ]; then
		echo "fuzz: $t: reproducer saved as $found; reproduce with: $bin $found"
		if [ "$(stat -c %s "$found")" -le 16384 ]; then
			echo "fuzz: $t: the reproducer in base64 (base64 -d > input):"
			base64 "$found"
		fi
	else
		echo "fuzz: $t: no reproducer written; the whole log is $log"
	fi
done
exit $status
