#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/tests/test-fabric-run.sh: scripts/fabric-run boots nodes of one
# fabric that see their place in it, share the fabric's files and network
# and every GPU, and reports each node's end. Two runs of 2 nodes without
# the IMEX daemon: in the first, node 0 sends node 1 bytes through the
# exchange directory and pings it, and node 1 exits 3; in the second, node 0
# stops node 1 through the control channel. The module is loaded only when
# it takes fabric_node=. Runs on the host; prints TAP.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"

dir=$(mktemp -d "$top/build/fabric-test.XXXXXX")
trap 'rm -rf "$dir"' EXIT

module_args=(--no-module)
if modinfo -F parm "$top/kmod/cumc.ko" 2>/dev/null | grep -q '^fabric_node:'; then
	module_args=()
fi

# In each node, with OUT (this test's directory) and TOP given by --env:
# the nodes get nothing of the caller's environment. wait_for is bounded:
# 60 s.
cat >"$dir/guest.sh" <<'GUEST'
k=$CUMC_NODE
x=$CUMC_FABRIC_XCHG
wait_for() {
	for _ in $(seq 600); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	return 1
}
echo "$CUMC_NODE $CUMC_NODES" >"$OUT/$1-env$k"
echo "$CUMC_FABRIC_DIR" >"$OUT/$1-fabric-dir"
n=0
for d in /sys/bus/pci/devices/*; do
	[ "$(cat "$d/vendor")" = 0x1af4 ] && [ "$(cat "$d/device")" = 0x1110 ] && n=$((n + 1))
done
echo "$n" >"$OUT/$1-ivshmem$k"
case $1-$k in
run-0)
	head -c 65536 /dev/urandom >"$x/data.tmp"
	cp "$x/data.tmp" "$OUT/sent"
	mv "$x/data.tmp" "$x/data"
	if wait_for "$x/up1"; then
		busybox ping -c 3 -W 5 10.77.0.2 >"$OUT/ping" 2>&1
		echo $? >"$OUT/ping-status"
	fi
	: >"$x/done0"
	;;
run-1)
	: >"$x/up1"
	wait_for "$x/data" && cp "$x/data" "$OUT/received"
	wait_for "$x/done0"
	exit 3
	;;
stop-0)
	wait_for "$x/up1"
	"$TOP/scripts/vm-stop-node" 1 >"$OUT/stop" 2>&1
	echo $? >"$OUT/stop-status"
	;;
stop-1)
	: >"$x/up1"
	sleep 120
	: >"$OUT/survived"
	;;
esac
GUEST

echo "TAP version 13"
[ "${#module_args[@]}" = 0 ] && echo "# the module takes fabric_node=: loaded" ||
	echo "# the module does not take fabric_node= yet: --no-module"

# run NAME ARGS...: fabric-run ARGS, its output in NAME.log, its status
# in NAME.status, its time in NAME.secs.
run() {
	local name=$1 start status=0
	shift
	start=$(date +%s)
	(cd "$dir" && timeout -k 10 300 "$top/scripts/fabric-run" \
		--no-imex --procs-per-node 1 "${module_args[@]}" --timeout 240 \
		--env OUT="$dir" --env TOP="$top" "$@" \
		>"$dir/$name.log" 2>&1) || status=$?
	echo "$status" >"$dir/$name.status"
	echo $(($(date +%s) - start)) >"$dir/$name.secs"
}

# nothing_left NAME: the fabric directory of run NAME is gone and no process
# names it.
nothing_left() {
	local fabric
	fabric=$(cat "$dir/$1-fabric-dir" 2>/dev/null) || return 1
	[ -n "$fabric" ] && ! [ -e "$fabric" ] && ! pgrep -f "$fabric" >/dev/null
}

run run -- bash "$dir/guest.sh" run
echo "# first run: $(cat "$dir/run.secs") s"
[ "$(cat "$dir/run-env0" 2>/dev/null)" = "0 2" ] &&
	[ "$(cat "$dir/run-env1" 2>/dev/null)" = "1 2" ]
tap_result $? "each node sees CUMC_NODE and CUMC_NODES" ||
	sed 's/^/# /' "$dir/run.log"
[ -s "$dir/sent" ] && cmp -s "$dir/sent" "$dir/received"
tap_result $? "bytes node 0 writes in the exchange directory, node 1 reads"
[ "$(cat "$dir/ping-status" 2>/dev/null)" = 0 ]
tap_result $? "node 0 pings node 1 (10.77.0.2) on the fabric's network" ||
	sed 's/^/# /' "$dir/ping" 2>/dev/null
[ "$(cat "$dir/run-ivshmem0" 2>/dev/null)" = 8 ] &&
	[ "$(cat "$dir/run-ivshmem1" 2>/dev/null)" = 8 ]
tap_result $? "each node sees the fabric's 8 GPUs as ivshmem devices ($(cat "$dir/run-ivshmem0" "$dir/run-ivshmem1" 2>/dev/null | tr '\n' ' ' | sed 's/ $//'))"
grep -q '^node 0: ' "$dir/run.log" && grep -q '^node 1: ' "$dir/run.log"
tap_result $? "each node's output is printed with its prefix"
[ "$(cat "$dir/run.status")" = 3 ] && grep -qx 'node 0: status 0' "$dir/run.log" &&
	grep -qx 'node 1: status 3' "$dir/run.log"
tap_result $? "a node exiting 3 makes fabric-run exit 3, with the summary (status $(cat "$dir/run.status"))" ||
	tail -n 5 "$dir/run.log" | sed 's/^/# /'
nothing_left run
tap_result $? "nothing left after the run: no fabric directory, no process"

run stop --node-cmd 1 "bash $dir/guest.sh stop" -- bash "$dir/guest.sh" stop
echo "# second run: $(cat "$dir/stop.secs") s"
[ "$(cat "$dir/stop-status" 2>/dev/null)" = 0 ]
tap_result $? "scripts/vm-stop-node 1 on node 0 succeeds" ||
	sed 's/^/# /' "$dir/stop" 2>/dev/null
[ "$(cat "$dir/stop.status")" = 0 ] && grep -qx 'node 1: stopped on request' "$dir/stop.log" &&
	grep -qx 'node 0: status 0' "$dir/stop.log" && ! [ -e "$dir/survived" ]
tap_result $? "node 1 stopped on request: reported so, fabric-run exits 0 (status $(cat "$dir/stop.status"))" ||
	tail -n 5 "$dir/stop.log" | sed 's/^/# /'
nothing_left stop
tap_result $? "nothing left after a node was stopped: no fabric directory, no process"
tap_end
