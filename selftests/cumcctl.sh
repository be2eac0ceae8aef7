#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cumcctl and cumc-fm against the loaded module (run as root in the VM):
# every command, its exit codes, JSON output, the node's fabric identity,
# the monitor, and the external fabric manager answering, failing and
# stopping on SIGTERM. Prints TAP.
set -u
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ctl=$repo/build/tools/cumcctl
fm=$repo/build/tools/cumc-fm
node_lost=$repo/build/selftests/helpers/cumc_node_lost
tmp=$(mktemp -d)
# shellcheck source=scripts/tap.sh
. "$repo/scripts/tap.sh"

# check NAME EXPECTED_STATUS CMD...: the command's exit status must match.
check() {
	local name=$1 want=$2 got
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	[ "$got" = "$want" ] || echo "# $name: status $got, wanted $want: $(cat "$tmp/err")"
	tap_result $((got != want)) "$name"
}

valid_json() {
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$1"
}

# json_true FILE EXPR: the JSON in FILE, as j, makes the Python EXPR true.
json_true() {
	python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); sys.exit(not eval(sys.argv[2]))' "$1" "$2"
}

# One team's life: created, ready, memory bound and unbound, freed.
make_team() {
	"$repo/build/selftests/helpers/cumc_team"
}

# Wait up to 5 s for "cumc-fm: ready" in $1.
wait_ready() {
	for _ in $(seq 50); do
		grep -q 'cumc-fm: ready' "$1" && return 0
		sleep 0.1
	done
	return 1
}

# System-memory devices, then the PCI devices the driver bound.
num_devices=$(cat /sys/module/cumc/parameters/num_devices)
num_devices=$((num_devices + $(ls /sys/bus/pci/drivers/cumc 2>/dev/null | grep -c :)))

echo "TAP version 13"
check "help" 0 "$ctl" --help
check "no command is a usage error" 1 "$ctl"
check "unknown command is a usage error" 1 "$ctl" frobnicate
for cmd in dev obj stats fault fm fabric monitor; do
	check "$cmd --help" 0 "$ctl" $cmd --help
done

check "dev" 0 "$ctl" dev
tap_result $(($(wc -l <"$tmp/out") != num_devices + 1)) "dev lists every device"
# No device of this VM is a GPU of a multi-node fabric.
head -n 1 "$tmp/out" | grep -q ' STATE FABRIC$'; tap_result $? "dev has the FABRIC column last"
[ "$(grep -c ' \(ok\|lost\) *not-supported$' "$tmp/out")" = "$num_devices" ]
tap_result $? "dev: every device's fabric state is not-supported"
check "dev -j" 0 "$ctl" -j dev
valid_json "$tmp/out"; tap_result $? "dev -j is JSON"
json_true "$tmp/out" 'len(j) > 0 and all(d["fabric_state"] == "not-supported" and not {"node", "cluster_uuid", "clique_id"} & d.keys() for d in j)'
tap_result $? "dev -j: fabric_state not-supported, no node, cluster_uuid or clique_id"
check "stats -j" 0 "$ctl" -j stats
valid_json "$tmp/out"; tap_result $? "stats -j is JSON"
grep -q '"device": "fabric"' "$tmp/out"; tap_result $? "stats has the fabric-wide row"
check "obj -j" 0 "$ctl" -j obj
valid_json "$tmp/out"; tap_result $? "obj -j is JSON"

# This VM is a node of no multi-node fabric: node 0, not-supported, no
# cluster, no IMEX daemon.
check "fabric" 0 "$ctl" fabric
sed 's/^/# /' "$tmp/out"
head -n 1 "$tmp/out" | grep -qE '^NODE +STATE +CLUSTER +CLIQUE +IMEX$' &&
	[ "$(wc -l <"$tmp/out")" = 2 ] &&
	sed -n 2p "$tmp/out" | grep -qE '^0 +not-supported +- +- +no$'
tap_result $? "fabric: node 0, not-supported, no cluster or clique, no IMEX daemon"
check "fabric -j" 0 "$ctl" -j fabric
valid_json "$tmp/out"; tap_result $? "fabric -j is JSON"
json_true "$tmp/out" 'j == {"node": 0, "state": "not-supported", "cluster_uuid": None, "clique_id": None, "imex_attached": False}'
tap_result $? "fabric -j: node, state, cluster_uuid, clique_id, imex_attached"
check "fabric with an argument is a usage error" 1 "$ctl" fabric 0

check "fault set" 0 "$ctl" fault set mem-exhausted every 3 --device 1
check "fault show" 0 "$ctl" fault show
grep -q 'mem-exhausted *1 *every *3' "$tmp/out"; tap_result $? "fault show lists it"
check "fault clear" 0 "$ctl" fault clear mem-exhausted --device 1
check "fault bad type" 1 "$ctl" fault set no-such-fault once
check "fault bad device refused by the kernel" 2 "$ctl" fault set mem-exhausted once --device 4096
check "fault percent over 100 refused" 2 "$ctl" fault set bind-nospc percent 101

if command -v setpriv >/dev/null; then
	check "unprivileged fault set refused" 2 \
		setpriv --reuid 65534 --regid 65534 --clear-groups "$ctl" fault set mem-exhausted once
	grep -q 'not permitted' "$tmp/err"; tap_result $? "refusal prints strerror"
	check "unprivileged dev allowed" 0 \
		setpriv --reuid 65534 --regid 65534 --clear-groups "$ctl" dev
	check "unprivileged fabric allowed" 0 \
		setpriv --reuid 65534 --regid 65534 --clear-groups "$ctl" fabric
else
	for _ in 1 2 3 4; do tap_skip unprivileged "no setpriv"; done
fi

check "fm mode" 0 "$ctl" fm mode kernel --timeout 4000
grep -q 'mode kernel timeout_ms 4000' "$tmp/out"; tap_result $? "fm mode reports the setting"
check "fm respond to nothing refused" 2 "$ctl" fm respond 2147483000 ok
check "fm respond bad result" 1 "$ctl" fm respond 1 maybe

# The monitor sees a team's life: create, ready, bind, unbind, delete.
"$ctl" -j monitor --count 5 --timeout 20000 >"$tmp/mon" &
mon=$!
sleep 0.5
make_team; tap_result $? "a team forms with the in-kernel manager"
wait $mon; tap_result $? "monitor exits after --count events"
sed 's/^/# /' "$tmp/mon"
[ "$(grep -c '"event"' "$tmp/mon")" = 5 ] &&
	sed -n 1p "$tmp/mon" | grep -q mc-create &&
	sed -n 5p "$tmp/mon" | grep -q mc-delete
tap_result $? "monitor printed the five events in order"

# The external manager answers the team's setup.
"$fm" --external --count 1 >"$tmp/fm" 2>&1 &
fmpid=$!
wait_ready "$tmp/fm"; tap_result $? "cumc-fm subscribes"
make_team; tap_result $? "a team forms with cumc-fm answering"
wait $fmpid; tap_result $? "cumc-fm exits after --count answers"
grep -q 'answered ok: accepted' "$tmp/fm"; tap_result $? "cumc-fm's answer was accepted"

# A failing manager: the team fails, so does the bind.
"$fm" --fail --count 1 >"$tmp/fm" 2>&1 &
fmpid=$!
wait_ready "$tmp/fm"
make_team; tap_result $((! $?)) "a team fails with cumc-fm --fail"
wait $fmpid

# SIGTERM stops the daemon cleanly.
"$fm" >"$tmp/fm" 2>&1 &
fmpid=$!
wait_ready "$tmp/fm"
kill -TERM $fmpid
wait $fmpid; tap_result $? "cumc-fm stops on SIGTERM"

# A node of the IMEX domain lost, as its daemon reports it (a node of no
# fabric has nothing of it to lose): the monitor prints node-lost with the
# node, in both forms.
"$ctl" monitor --count 1 --timeout 20000 >"$tmp/mon" &
mon=$!
sleep 1
check "IMEX_NODE_LOST of node 5" 0 "$node_lost" 5
wait $mon; tap_result $? "monitor exits after the node-lost event"
sed 's/^/# /' "$tmp/mon"
grep -qE '^node-lost +id=0 node=5$' "$tmp/mon"; tap_result $? "monitor prints node-lost node=5"
"$ctl" -j monitor --count 1 --timeout 20000 >"$tmp/mon" &
mon=$!
sleep 1
check "IMEX_NODE_LOST of node 6" 0 "$node_lost" 6
wait $mon; tap_result $? "monitor -j exits after the node-lost event"
sed 's/^/# /' "$tmp/mon"
json_true "$tmp/mon" 'j["event"] == "node-lost" and j["node"] == 6'
tap_result $? "monitor -j prints node-lost with \"node\": 6"

"$ctl" fm mode kernel --timeout 5000 >/dev/null
rm -rf "$tmp"
tap_end
