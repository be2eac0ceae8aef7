#!/bin/bash
# SPDX-License-Identifier: MIT
#
# cumc-allreduce must pass a clean run and fail a run with one wrong
# element: a checker that cannot fail proves nothing. --kernel, the
# all-reduce as device code (tools/allreduce_kernel.cu), runs on 8 processes
# over a message whose last word is not in a whole vector, and must be right
# in every element too. Runs inside the VM.
set -u
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tool=$repo/build/tools/cumc-allreduce
out=$(mktemp)
json=$(mktemp)
trap 'rm -f "$out" "$json"' EXIT
# shellcheck source=scripts/tap.sh
. "$repo/scripts/tap.sh"

# check NAME CONDITION...: the TAP line, with the output on failure.
check() {
	tap_check "$@" || sed 's/^/# /' "$out"
}

tap_plan 7
"$tool" -n 4 -b 256k -i 1 -t both --ring --json "$json" >"$out" 2>&1
status=$?
check "a clean all-reduce exits 0 with 0 mismatches" \
	test "$status" = 0 -a "$(grep -c ' 0 mismatches$' "$out")" = 4

# --json, written through json-c: JSON, a row per run, a row a line (the
# way bench/allreduce-nodes.sh and tools/demo.sh read it).
sed 's/^/# /' "$json"
check "--json: python3 -m json.tool parses it" python3 -m json.tool "$json"
check "--json: 4 rows (2 algorithms, 2 types), every field of its type" \
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
ints = ("devices", "nodes", "bytes", "elements_checked", "mismatches")
floats = ("time_us", "algbw_GBps", "busbw_GBps")
sys.exit(not (len(j) == 4 and {(r["algorithm"], r["type"]) for r in j} == {(a, t) for a in ("multicast", "ring") for t in ("f32", "bf16")} and all(r["devices"] == 4 and r["bytes"] == 262144 and r["mismatches"] == 0 and all(type(r[k]) is int for k in ints) and all(type(r[k]) is float for k in floats) for r in j)))' "$json"
check "--json: a row a line, \"key\": value" \
	test "$(grep -c '^  { "algorithm": "[a-z]*", "devices": 4, .*"busbw_GBps": [0-9.]*, ' "$json")" = 4

"$tool" -n 4 -b 256k -i 1 --corrupt 2 >"$out" 2>&1
status=$?
check "one wrong element makes it exit non-zero and report the mismatch" \
	test "$status" != 0 -a "$(grep -c '1 mismatches$' "$out")" = 1 \
	-a "$(grep -c 'first mismatch: rank 2 element' "$out")" = 1

# Small: the kernel is interpreted (about 15 s in all under TCG).
"$tool" -n 8 -b 65540 -i 1 -w 0 -t both --kernel >"$out" 2>&1
status=$?
check "--kernel on 8 ranks exits 0, every algorithm and type with 0 mismatches" \
	test "$status" = 0 -a "$(grep -c ' 0 mismatches$' "$out")" = 4
check "--kernel: the kernel's rows, f32 and bf16, each of 8 x 16385 words" \
	test "$(grep -cE '^ +65540  (f32 |bf16)  kernel .* (131080|262160) elements checked, 0 mismatches$' "$out")" = 2
tap_status
