#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/tests/test-multinode.sh: a multi-node NVLink domain, end to end
# (Documentation/multinode.md). One scripts/fabric-run of three nodes of
# four GPUs, each with its IMEX daemon: nodes 0 and 1 in one IMEX domain,
# node 2 alone in another. Every node runs build/tests/test_multinode,
# NVML's fabric info read as NCCL reads it first,
# each playing its part: fabric memory shared across nodes, refusals
# across domains and without a channel, a multicast team of both nodes'
# GPUs reduced element by element, a rogue peer (a user without
# privileges on node 0) neither cutting node 0 off nor getting a call run,
# node 1's daemon killed and started again and both nodes taking each
# other back, node 0 stopped while node 1 maps its memory, a daemon
# stopped. Runs on the host; prints TAP, one line per
# test per node.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"

out=$(mktemp "$top/build/multinode.XXXXXX")
trap 'rm -f "$out"' EXIT
tests=(each_node_owns_its_gpus nvml_fabric_info_is_the_fabric_s
       memory_written_on_one_node_is_read_on_another
       import_from_another_imex_domain_is_invalid_handle
       import_without_an_imex_channel_is_not_permitted
       multicast_team_spans_nodes rogue_peer_neither_cuts_off_nor_calls
       a_restarted_daemon_rejoins node_lost_mid_use_raises_sigbus
       import_with_the_daemon_stopped_is_invalid_handle)

echo "TAP version 13"
(cd "$top" && scripts/fabric-run --nodes 3 --domain 0,1 --domain 2 \
	--timeout 1200 -- stdbuf -oL build/tests/test_multinode) >"$out" 2>&1
status=$?
tap_result "$status" "the fabric ran: every node passed or was stopped on request, no kernel warning (status $status)"
[ "$status" = 0 ] || grep -E '^node [0-9]: (status|.*:F:|.*:E:|vm-run)' "$out" | sed 's/^/# /'
grep -q '^node 0: stopped on request' "$out"
tap_result $? "node 0 was stopped on request, mid-use"
for node in 0 1 2; do
	for t in "${tests[@]}"; do
		grep -qE "^node $node: .*:P:multinode:$t:" "$out"
		tap_result $? "node $node: $t"
	done
done
tap_end
