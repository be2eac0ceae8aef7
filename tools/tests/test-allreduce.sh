#!/bin/bash
# SPDX-License-Identifier: MIT
#
# cumc-allreduce must pass a clean run and fail a run with one wrong
# element: a checker that cannot fail proves nothing. Runs inside the VM.
set -u
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tool=$repo/build/tools/cumc-allreduce
out=$(mktemp)
trap 'rm -f "$out"' EXIT
failed=0

# ok NUM NAME CONDITION...: print the TAP line, with the output on failure.
tap() {
	local num=$1 name=$2

	shift 2
	if "$@"; then
		echo "ok $num $name"
	else
		echo "not ok $num $name"
		sed 's/^/# /' "$out"
		failed=1
	fi
}

echo "1..2"
"$tool" -n 4 -b 256k -i 1 -t both --ring >"$out" 2>&1
status=$?
tap 1 "a clean all-reduce exits 0 with 0 mismatches" \
	test "$status" = 0 -a "$(grep -c ' 0 mismatches$' "$out")" = 4

"$tool" -n 4 -b 256k -i 1 --corrupt 2 >"$out" 2>&1
status=$?
tap 2 "one wrong element makes it exit non-zero and report the mismatch" \
	test "$status" != 0 -a "$(grep -c '1 mismatches$' "$out")" = 1 \
	-a "$(grep -c 'first mismatch: rank 2 element' "$out")" = 1
exit $failed
