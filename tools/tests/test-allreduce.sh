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
# shellcheck source=scripts/tap.sh
. "$repo/scripts/tap.sh"

# check NAME CONDITION...: the TAP line, with the output on failure.
check() {
	tap_check "$@" || sed 's/^/# /' "$out"
}

tap_plan 2
"$tool" -n 4 -b 256k -i 1 -t both --ring >"$out" 2>&1
status=$?
check "a clean all-reduce exits 0 with 0 mismatches" \
	test "$status" = 0 -a "$(grep -c ' 0 mismatches$' "$out")" = 4

"$tool" -n 4 -b 256k -i 1 --corrupt 2 >"$out" 2>&1
status=$?
check "one wrong element makes it exit non-zero and report the mismatch" \
	test "$status" != 0 -a "$(grep -c '1 mismatches$' "$out")" = 1 \
	-a "$(grep -c 'first mismatch: rank 2 element' "$out")" = 1
tap_status
