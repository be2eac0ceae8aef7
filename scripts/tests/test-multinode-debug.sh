#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/tests/test-multinode-debug.sh: scripts/tests/test-multinode.sh
# with every node on the debug kernel (KASAN, lockdep, kmemleak,
# atomic-sleep checks) and its module: the leases, per-node queues and
# undone binds of the multi-node fabric under the checks that find a
# use-after-free, a lock taken out of order or a sleep in atomic context.
# A report in any node's log fails the run (scripts/vm-run's check, through
# scripts/fabric-run). Part of make check's debug lane, after the lane's
# builds (make check-debug); run alone, it needs them done.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"

dir=$("$top/scripts/debug-kernel" --print) || dir=
module=$top/build/kmod-debug/kmod/cumc.ko
if [ -z "$dir" ] || [ ! -f "$module" ]; then
	echo "TAP version 13"
	tap_not_ok "the debug kernel and its module are built (make check-debug builds them)"
	tap_end
	exit 1
fi
# Every wait 4 times as long as on Debian's kernel: the debug kernel's nodes
# take 2-4 times longer. The run's bound leaves make check time to report
# a hung node within CI's 90 minutes, with every node's failures.
CUMC_FABRIC_KERNEL=$(ls "$dir"/vmlinuz-*) CUMC_FABRIC_MODULE=$module \
	CK_TIMEOUT_MULTIPLIER=4 CUMC_FABRIC_TIMEOUT=2400 \
	exec "$top/scripts/tests/test-multinode.sh"
