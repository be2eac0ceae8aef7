#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/tests/test-pci-probe.sh: the PCI driver refuses devices it cannot
# use, each with one clear kernel log line, and nothing else is disturbed
# (Documentation/devices.md). One VM with 2 good GPUs and, beside them, an
# ivshmem device without cumc's identity, one whose BAR is smaller than
# the memory it declares, one whose memory is misaligned in its BAR, one
# with less memory than a granule, two with the same identity, and two GPUs
# of a multi-node fabric: one of another node (reachable, not a device of
# this one) and one of another cluster (refused). Runs on the host; prints
# TAP.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"

dir=$(mktemp -d "$top/build/pci-probe.XXXXXX")
trap 'rm -rf "$dir"' EXIT

truncate -s $((4 << 20)) "$dir/no-identity"
"$top/scripts/gpu-image" "$dir/too-small" 90 $((1 << 30)) $((2 << 20)) $((4 << 20))
"$top/scripts/gpu-image" "$dir/misaligned" 91 $((8 << 20)) $(((2 << 20) + 100)) $((16 << 20))
"$top/scripts/gpu-image" "$dir/sub-granule" 93 $((1 << 20))
"$top/scripts/gpu-image" "$dir/twin-a" 92 $((64 << 20))
cp --sparse=always "$dir/twin-a" "$dir/twin-b"
"$top/scripts/gpu-image" --node 1 --clique 1 \
	--cluster 11111111-2222-4333-8444-555555555555 "$dir/other-node" 94 $((64 << 20))
"$top/scripts/gpu-image" --node 0 --clique 1 \
	--cluster 99999999-2222-4333-8444-555555555555 "$dir/other-cluster" 95 $((64 << 20))

# In the VM: the driver's log lines, the devices, a bind of a device that
# is bound already, then the device selftest over what was accepted.
cat >"$dir/guest.sh" <<'GUEST'
dmesg | grep -E 'cumc [0-9a-f]{4}:' >log
ls /sys/bus/pci/drivers/cumc | grep -c : >bound
"$TOP/build/tools/cumcctl" dev | tail -n +2 | wc -l >devices
first=$(ls /sys/bus/pci/drivers/cumc | grep : | head -n 1)
if echo "$first" 2>/dev/null >/sys/bus/pci/drivers/cumc/bind; then
	echo yes >rebind
else
	echo no >rebind
fi
"$TOP/build/tools/cumcctl" dev | tail -n +2 | wc -l >devices-after
"$TOP/build/selftests/cumc_device" >selftest 2>&1
echo $? >selftest-status
GUEST

echo "TAP version 13"
(cd "$dir" && TOP=$top "$top/scripts/vm-run" --gpus 2 \
	--pci-dev "$dir/no-identity" --pci-dev "$dir/too-small" \
	--pci-dev "$dir/misaligned" --pci-dev "$dir/sub-granule" \
	--pci-dev "$dir/twin-a" --pci-dev "$dir/twin-b" \
	--pci-dev "$dir/other-node" --pci-dev "$dir/other-cluster" \
	-- bash guest.sh >"$dir/vm.log" 2>&1)
tap_result $? "the VM ran, with no kernel warning and a clean unload"
[ -s "$dir/log" ] || sed 's/^/# /' "$dir/vm.log"

refused() {
	[ "$(grep -c "$1" "$dir/log" 2>/dev/null)" = 1 ]
	tap_result $? "$2: one log line saying so"
}
refused 'no cumc identity in BAR 2: not a cumc GPU, left alone' \
	"an ivshmem device without the identity is left alone"
refused 'a BAR smaller than the device memory it declares: ignored' \
	"a BAR too small for its memory is refused"
refused 'device memory not aligned to a page in the BAR: ignored' \
	"memory misaligned in its BAR is refused"
refused 'less device memory than one granule: ignored' \
	"less memory than one granule is refused"
refused 'is present already: this one ignored' \
	"a second device with the same identity is refused"
refused 'of node 1: reachable through the fabric' \
	"another node's GPU is reachable, not a device of this node"
refused 'cumc GPU of cluster 99999999-2222-4333-8444-555555555555 clique 1, not this node.s: ignored' \
	"a GPU of another cluster than the node's first is refused"

# The other node's GPU is bound (its memory is reachable) but no device.
[ "$(cat "$dir/devices" 2>/dev/null)" = 3 ] && [ "$(cat "$dir/bound" 2>/dev/null)" = 4 ]
tap_result $? "the 2 GPUs and the first twin are devices, nothing else ($(cat "$dir/devices" 2>/dev/null) devices)"
[ "$(cat "$dir/rebind" 2>/dev/null)" = no ] &&
	[ "$(cat "$dir/devices-after" 2>/dev/null)" = 3 ]
tap_result $? "binding a bound device again is refused and changes nothing"
[ "$(cat "$dir/selftest-status" 2>/dev/null)" = 0 ]
tap_result $? "the devices accepted work (cumc_device selftest)"
[ -s "$dir/selftest" ] && grep -E '^(not ok|# FAIL)' "$dir/selftest" | sed 's/^/# /'
tap_end
