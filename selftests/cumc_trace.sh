#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cumc's tracepoints (kmod/cumc_trace.h, Documentation/tracing.md) through
# tracefs: enabled, a team's life and an injected fault performed, the
# events read back with their fields. Run as root in the VM (the Debian
# kernel and the debug kernel both have event tracing); skips on a kernel
# without it.
# Also checks the module's version (MODULE_VERSION) against the Makefile's.
# Prints TAP.
set -u
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
team=$repo/build/selftests/helpers/cumc_team
ctl=$repo/build/tools/cumcctl
# shellcheck source=scripts/tap.sh
. "$repo/scripts/tap.sh"

echo "TAP version 13"
tap_need_vm_root

version=$(sed -n 's/^VERSION := //p' "$repo/Makefile")
got=$(cat /sys/module/cumc/version 2>/dev/null)
[ -n "$version" ] && [ "$got" = "$version" ]
tap_result $? "MODULE_VERSION is the Makefile's ($version)" ||
	echo "# /sys/module/cumc/version: '$got'"

tracing=/sys/kernel/tracing
if [ ! -e "$tracing/trace" ]; then
	mount -t tracefs nodev "$tracing" 2>/dev/null
fi
if [ ! -d "$tracing/events/cumc" ]; then
	tap_skip "tracepoints" "no $tracing/events/cumc: this kernel has no event tracing (CONFIG_EVENT_TRACING)"
	tap_end
	exit
fi

for e in cumc_ioctl cumc_team_state cumc_bind cumc_unbind cumc_fault; do
	[ -f "$tracing/events/cumc/$e/format" ]
	tap_result $? "event $e exists" || continue
done
grep -q 'field:int ret;' "$tracing/events/cumc/cumc_ioctl/format" &&
	grep -q 'field:u32 handle;' "$tracing/events/cumc/cumc_ioctl/format" &&
	grep -q 'field:s32 device;' "$tracing/events/cumc/cumc_fault/format"
tap_result $? "the formats name their fields"

# trace_run CMD...: CMD with every cumc event on; the trace in $trace.
trace=$(mktemp)
trap 'rm -f "$trace"; echo 0 >"$tracing/events/cumc/enable"' EXIT
trace_run() {
	echo 0 >"$tracing/tracing_on"
	: >"$tracing/trace"
	echo 1 >"$tracing/events/cumc/enable"
	echo 1 >"$tracing/tracing_on"
	"$@" >/dev/null 2>&1
	local status=$?
	echo 0 >"$tracing/events/cumc/enable"
	grep -v '^#' "$tracing/trace" >"$trace"
	return $status
}

# has NAME REGEX: a line of the trace matches.
has() {
	grep -qE "$2" "$trace"
	tap_result $? "$1" || { echo "# no line matches: $2"; sed 's/^/#   /' "$trace" | head -n 20; }
}

trace_run "$team"
tap_result $? "a team's life runs"
has "MC_CREATE traced with its handle" 'cumc_ioctl: cmd=MC_CREATE ret=0 handle=[1-9]'
has "MC_ADD_DEVICE traced" 'cumc_ioctl: cmd=MC_ADD_DEVICE ret=0 handle=0'
has "the team becomes ready" 'cumc_team_state: mc=[0-9]+ forming -> ready'
has "the bind traced" 'cumc_bind: mc=[0-9]+ device=0 mc_offset=0x0 length=0x[0-9a-f]+'
has "the unbind traced" 'cumc_unbind: mc=[0-9]+ device=0 mc_offset=0x0 length=0x[0-9a-f]+'
has "RELEASE traced" 'cumc_ioctl: cmd=RELEASE ret=0'
# The events of one process come in the order of its calls; an ioctl's
# own event comes at its return, after those of what it did.
grep -oE 'cumc_(ioctl: cmd=[A-Z_]+|team_state|bind|unbind)' "$trace" | tr '\n' ' ' |
	grep -qE 'MC_CREATE.*MC_ADD_DEVICE.*cumc_team_state.*MC_ADD_DEVICE.*cumc_bind.*MC_BIND_MEM.*cumc_unbind.*MC_UNBIND'
tap_result $? "in the order of the calls" || sed 's/^/#   /' "$trace" | head -n 20

# An injected fault: an allocation fails with ENOSPC.
"$ctl" fault set mem-exhausted once >/dev/null 2>&1
tap_result $? "cumcctl arms mem-exhausted once"
trace_run "$team"
[ $? = 28 ]
tap_result $? "the team's allocation fails with ENOSPC"
has "the fault traced" 'cumc_fault: type=mem-exhausted device=-1 hits=1'
has "the failing ioctl traced with its errno" 'cumc_ioctl: cmd=MEM_CREATE ret=-28 handle=0'
"$ctl" fault clear mem-exhausted >/dev/null 2>&1

tap_end
