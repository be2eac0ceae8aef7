#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Trinity (Debian's package) aimed at /dev/cumc, run as root in the VM: it
# runs unprivileged for CUMC_TRINITY_CALLS system calls (seed
# CUMC_TRINITY_SEED), its only descriptors being those it opens on the
# device. The kernel counts what reached the module with kprobes on its
# file operations. Prints TAP; scripts/vm-run fails the run on any kernel
# report. See Documentation/testing.md.
set -u
calls=${CUMC_TRINITY_CALLS:-30}
# Trinity's watchdog kills a child stuck in a system call, but trinity
# itself can hang: make check's VM once sat in this script until vm-run's
# hour ran out. This bound only ends such a hang; what the test then says
# depends on where trinity's processes are (see stuck_in_kernel), not on
# the time taken. Under TCG a call takes 1 to 3 s; the bound is 20 s a call.
limit=${CUMC_TRINITY_LIMIT:-$((calls * 20))}
seed=${CUMC_TRINITY_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
tracing=/sys/kernel/tracing
group=cumc_trinity
tmp=$(mktemp -d)
# shellcheck source=scripts/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/tap.sh"

cleanup() {
	if [ -d "$tracing/events/$group" ]; then
		echo '!hist:keys=ret' >"$tracing/events/$group/cumc_ioctl_ret/trigger"
		echo 0 >"$tracing/events/$group/enable"
		echo "-:$group/cumc_ioctl" >>"$tracing/kprobe_events"
		echo "-:$group/cumc_ioctl_ret" >>"$tracing/kprobe_events"
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

# stuck_in_kernel: print the state, wait channel and kernel stack of each
# of trinity's processes; true when one sleeps uninterruptibly or in the
# module (a frame of cumc's on its stack), where SIGKILL cannot end it.
stuck_in_kernel() {
	local pid state stuck=1

	for pid in $(pgrep -u nobody); do
		state=$(sed 's/.*) //' "/proc/$pid/stat" | cut -d' ' -f1)
		echo "# $pid $(cat "/proc/$pid/comm"): state $state, in $(cat "/proc/$pid/wchan")"
		sed 's/^/#   /' "/proc/$pid/stack"
		if [ "$state" = D ] || grep -q 'cumk_\|\[cumc\]' "/proc/$pid/stack"; then
			stuck=0
		fi
	done
	return "$stuck"
}

# hits NAME: how many times the kprobe NAME fired.
hits() {
	awk -v name="$1" '$1 == name { print $2 }' "$tracing/kprobe_profile"
}

echo "TAP version 13"
command -v trinity >/dev/null || tap_skip_all "no trinity (scripts/deps installs it)"
[ -d "$tracing/events" ] || mount -t tracefs tracefs "$tracing" 2>/dev/null
[ -w "$tracing/kprobe_events" ] || tap_skip_all "no kprobe events in this kernel"

echo "p:$group/cumc_ioctl cumk_fops_ioctl" >>"$tracing/kprobe_events" &&
echo "r:$group/cumc_ioctl_ret cumk_fops_ioctl ret=\$retval:s32" >>"$tracing/kprobe_events" &&
echo 'hist:keys=ret:sort=hitcount.descending' >"$tracing/events/$group/cumc_ioctl_ret/trigger" &&
echo 1 >"$tracing/events/$group/enable"
tap_result $? "kprobes on the module's ioctl"

# Its only victim is the device: the file provider ('pseudo') walks -V and
# opens what it can. Of the other providers only perf stays on: trinity
# 2023.01's perf ioctl group walks the perf objects' list for every fd,
# and that list exists only once the provider has run (without it, every
# child dies of a NULL pointer in find_ioctl_group; here the provider
# opens nothing). Unprivileged, trinity needs no --dangerous and cannot
# touch the shared host directories.
chmod 0777 "$tmp"
before=$(cat /sys/kernel/debug/cumc/objects)
echo "# trinity: $calls calls, seed $seed"
(cd "$tmp" && exec setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
	trinity -q -l off -s "$seed" -N "$calls" -C 2 \
		--enable-fds=pseudo,perf -V /dev/cumc -c ioctl) \
	>"$tmp/out" 2>&1 &
trinity_pid=$!
deadline=$((SECONDS + limit))
while kill -0 "$trinity_pid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do
	sleep 1
done
sed 's/^/# /' "$tmp/out" | tail -n 20
if ! kill -0 "$trinity_pid" 2>/dev/null; then
	wait "$trinity_pid"
	status=$?
	tap_result "$status" "trinity ran its $calls calls (status $status)"
else
	echo "# trinity still running after $limit s; its processes:"
	if stuck_in_kernel; then
		tap_not_ok "trinity ran its $calls calls: stuck in the kernel (above)"
	else
		pkill -KILL -u nobody
		wait "$trinity_pid" 2>/dev/null
		while pgrep -u nobody >/dev/null; do sleep 0.1; done
		tap_skip "trinity ran its $calls calls" \
			"trinity hung in its own code after $limit s (above), killed"
	fi
fi

ioctls=$(hits cumc_ioctl)
echo "# ioctls that reached cumk_fops_ioctl: ${ioctls:-0}; by result:"
# The hist prints the 32-bit result sign-extended as unsigned.
sed -nE 's/^\{ ret: *([0-9]+) *\} hitcount: *([0-9]+)/\1 \2/p' \
	"$tracing/events/$group/cumc_ioctl_ret/hist" |
while read -r ret count; do
	echo "#   $((ret)) x $count"
done
[ "${ioctls:-0}" -gt 0 ]
tap_result $? "trinity's ioctls reached /dev/cumc"

# Everything trinity's processes made went with them.
after=$(cat /sys/kernel/debug/cumc/objects)
[ "$before" = "$after" ]
tap_result $? "the module's objects are back to their count before"
[ "$before" = "$after" ] || echo "# before: $before; after: $after"

tap_end
