#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tools/tests/test-allreduce-nodes.sh: cumc-allreduce across the nodes of
# a fabric, as 'make demo NODES=2' runs it: one scripts/fabric-run of 2
# nodes of 4 GPUs, a team of all 8 sharing every object as a fabric handle.
# A clean run (f32 and bf16; multicast from the CPU, the device-code
# kernel of --kernel and the ring) must pass every
# element; a second, with one element wrong on a rank of node 1, must fail
# and say where. Runs on the host; prints TAP.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"

out=$(mktemp "$top/build/allreduce-nodes.XXXXXX")
trap 'rm -f "$out"' EXIT

# Each run listens on its own port: the first run's may linger.
tool="build/tools/cumc-allreduce --nodes 2 -n 8 --root 10.77.0.1"
(cd "$top" && scripts/fabric-run --nodes 2 --procs-per-node 1 --timeout 600 -- sh -c "
	$tool:29501 -b 256k -i 1 -t both --ring --kernel; echo \"clean status \$?\"
	$tool:29502 -b 256k -i 1 --corrupt 5; echo \"corrupt status \$?\"") \
	>"$out" 2>&1
status=$?

# node_says K PATTERN: node K printed a line matching PATTERN (ERE).
node_says() {
	grep -qE "^node $1: $2" "$out"
}

# The clean run's 6 result lines come before its status line.
clean_lines() {
	sed -n '/clean status/q;p' "$out" | grep -cE '^node 0: .* 0 mismatches$'
}

tap_plan 7
tap_result "$status" "the fabric ran, no kernel warning (status $status)" ||
	sed 's/^/# /' "$out"
node_says 0 'topology: 8 devices on 2 nodes \(4 each\)' &&
	node_says 0 '  multicast object: team of 8, .* shared as a fabric handle' &&
	node_says 0 '   node 1:'
tap_result $? "the report shows the team of 8 on 2 nodes, shared as a fabric handle"
node_says 0 'clean status 0' && node_says 1 'clean status 0'
tap_result $? "a clean all-reduce across nodes exits 0 on both nodes"
[ "$(clean_lines)" = 6 ]
tap_result $? "every element of f32 and bf16, multicast, kernel and ring, is right"
node_says 0 'corrupt status [^0]'
tap_result $? "one wrong element on node 1 fails the run on node 0"
node_says 0 '.* 1 mismatches$' &&
	node_says 0 ' +first mismatch: rank 5 element'
tap_result $? "the report says which rank and element"
node_says 1 'corrupt status [^0]'
tap_result $? "node 1's ranks end non-zero too"
# What the nodes printed, to tell why when anything above failed.
[ "$tap_failed" = 0 ] || sed 's/^/# /' "$out"
tap_status
