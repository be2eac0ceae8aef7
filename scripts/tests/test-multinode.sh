#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/tests/test-multinode.sh: a multi-node NVLink domain, end to end
# (Documentation/multinode.md). One scripts/fabric-run of four nodes of
# four GPUs, each with its IMEX daemon: nodes 0, 1 and 3 in one IMEX
# domain, node 2 alone in another. Every node runs build/tests/test_multinode,
# NVML's fabric info read as NCCL reads it first,
# each playing its part: fabric memory shared across nodes, refusals
# across domains and without a channel, a multicast team of both nodes'
# GPUs reduced element by element, a rogue peer (a user without
# privileges on node 0) neither cutting node 0 off nor getting a call run,
# node 1's daemon killed and started again and both nodes taking each
# other back, team changes and imports answered late
# and messages the daemon cannot take (injected faults), a node's daemon
# stopped while it maps another's memory (its lease runs out), node 0
# stopped while node 1 maps its memory, a daemon stopped. Runs on the
# host; prints TAP, one line per test per node. CUMC_FABRIC_KERNEL and
# CUMC_FABRIC_MODULE, when set, boot every node on that kernel with that
# module; CUMC_FABRIC_TIMEOUT bounds the run (1800 s by default).
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
       a_restarted_daemon_rejoins
       lease_runs_out_with_the_importer_daemon_stopped
       late_join_takes_effect_on_every_node
       bind_timed_out_on_a_replica_is_undone_on_the_origin
       dropped_messages_to_the_daemon_leak_no_hold
       holds_per_node_are_limited
       zeroing_for_export_holds_back_no_other_command
       late_import_answer_releases_its_hold
       node_lost_mid_use_raises_sigbus
       import_with_the_daemon_stopped_is_invalid_handle)
vm=()
[ -z "${CUMC_FABRIC_KERNEL:-}" ] || vm+=(--kernel "$CUMC_FABRIC_KERNEL")
[ -z "${CUMC_FABRIC_MODULE:-}" ] || vm+=(--module "$CUMC_FABRIC_MODULE")
# The nodes' waits for each other scale as Check's limits do (the debug
# kernel's nodes are slower); fabric-run gives the nodes a clean environment.
# So does the lease a node maps another's memory under (the module's
# lease_ms, 10 s): a debug node whose daemon got no CPU for 10 s while
# four nodes booted lost its peer by design, and a test its memory.
[ -z "${CK_TIMEOUT_MULTIPLIER:-}" ] ||
	vm+=(--env "CK_TIMEOUT_MULTIPLIER=$CK_TIMEOUT_MULTIPLIER"
	     "lease_ms=$((10000 * CK_TIMEOUT_MULTIPLIER))")

echo "TAP version 13"
(cd "$top" && scripts/fabric-run --nodes 4 --procs-per-node 1 --domain 0,1,3 --domain 2 \
	--timeout "${CUMC_FABRIC_TIMEOUT:-1800}" ${vm[@]+"${vm[@]}"} -- \
	stdbuf -oL build/tests/test_multinode) >"$out" 2>&1
status=$?
tap_result "$status" "the fabric ran: every node passed or was stopped on request, no kernel warning (status $status)"
[ "$status" = 0 ] || grep -E '^node [0-9]: (status|.*:F:|.*:E:|vm-run)' "$out" | sed 's/^/# /'
grep -q '^node 0: stopped on request' "$out"
tap_result $? "node 0 was stopped on request, mid-use"
for node in 0 1 2 3; do
	for t in "${tests[@]}"; do
		grep -qE "^node $node: .*:P:multinode:$t:" "$out"
		tap_result $? "node $node: $t"
	done
done
tap_end
