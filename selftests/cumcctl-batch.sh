#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A whole multicast lifecycle walked step by step through `cumcctl batch`,
# each answer checked (runs in the VM; prints TAP).
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
ctl=$repo/build/tools/cumcctl
# shellcheck source=scripts/tap.sh
. "$repo/scripts/tap.sh"

objects() { cat /sys/kernel/debug/cumc/objects; }

echo "TAP version 13"
tap_plan 5
before=$(objects)

out=$("$ctl" batch <<'SCRIPT'
# A team of two devices in one client.
mc = mc-create 2 2M fd
mc-add $mc 0
!EEXIST mc-add $mc 0
forming = state $mc
mc-add $mc 1
ready = state $mc
m0 = create 0 2M fd
m1 = create 1 2M fd
!EINVAL bind $mc 0 0 $m1 0 2M
bind $mc 0 0 $m0 0 2M
bind $mc 1 0 $m1 0 2M
!EEXIST bind $mc 1 0 $m1 0 2M
# Map the memory of device 0 and the object; share the object.
va = reserve 4M
map $va 2M $m0
access $va 2M 0 rw
poke $va 0x2a
v = peek $va
map2 = reserve 2M
map $map2 2M $mc
fd = export $mc
h = import $fd
# Tear down in an order of our choosing.
unmap $map2 2M
free $map2 2M
!ENXIO unbind $mc 0 0 1M
unbind $mc 0 0 2M
unbind $mc 1 0 2M
unmap $va 2M
free $va 4M
release $m0
release $m1
release $h
release $mc
!ENOENT release $mc
SCRIPT
)
status=$?
echo "$out" | sed 's/^/# /'

tap_result "$status" "the script does what it expects, line by line"
grep -q '^ok 5: forming = 0x0$' <<<"$out" && grep -q '^ok 7: ready = 0x1$' <<<"$out"
tap_result $? "the team forms, then is ready"
grep -q '^ok 19: v = 0x2a$' <<<"$out"
tap_result $? "a store through the mapping reads back"
bad=$(printf 'bind $nosuch 0 0 0 0 2M\n' | "$ctl" batch 2>/dev/null >/dev/null; echo $?)
tap_check "a line that does not parse exits 1" test "$bad" = 1
tap_check "nothing is left behind" test "$(objects)" = "$before"
tap_status
