#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cumcctl and cumc-fm against the loaded module (run as root in the VM):
# every command, its exit codes, JSON output, the node's fabric identity,
# the monitor, and the external fabric manager answering, failing and
# stopping on SIGTERM; the object-verb grammar (dev show [ID], ...) beside
# the older forms it keeps, options anywhere, -p, -V, monitor -t, and every
# JSON document validated against tools/cumcctl.schema.json (with
# selftests/json_schema.py, Python's standard library alone). Prints TAP.
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

schema=$repo/tools/cumcctl.schema.json

# Python starts slowly in the VM (seconds under TCG): the documents are
# kept and validated in one run at the end, a TAP line each.
schema_names=()
schema_specs=()

# valid_schema NAME DEF FILE [--lines]: FILE is to be a #/$defs/DEF.
valid_schema() {
	local keep=$tmp/schema-${#schema_specs[@]}
	cp "$3" "$keep"
	schema_names+=("$1")
	schema_specs+=("$2:$keep${4:+:lines}")
}

# schema_check NAME DEF CMD...: the command succeeds, its output is a DEF.
schema_check() {
	local name=$1 def=$2
	shift 2
	check "$name" 0 "$@"
	valid_schema "$name: valid $def JSON (schema)" "$def" "$tmp/out"
}

# schema_results: validate every document kept, a TAP line each.
schema_results() {
	local i=0 verdict rest
	python3 "$repo/selftests/json_schema.py" "$schema" --each "${schema_specs[@]}" >"$tmp/each"
	while read -r verdict rest; do
		[ "$verdict" = ok ]
		tap_result $? "${schema_names[i]}" || echo "# $rest"
		i=$((i + 1))
	done <"$tmp/each"
	[ "$i" = "${#schema_specs[@]}" ]
	tap_result $? "the validator answered for each of the $i documents"
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

# Wait (60 s at most: a guard against a hang) for the monitor whose
# stderr is $1 to be subscribed.
wait_listening() {
	for _ in $(seq 600); do
		grep -q 'cumcctl: monitor: listening' "$1" && return 0
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
grep -qx 'Object "frobnicate" is unknown, try "cumcctl help".' "$tmp/err" &&
	[ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ]
tap_result $? "unknown object: one line that names it and the hint, no usage"
check "unknown option is a usage error" 1 "$ctl" -x dev
grep -qx 'Option "-x" is unknown, try "cumcctl help".' "$tmp/err"
tap_result $? "unknown option: one line that names it and the hint"
check "unknown command of an object is a usage error" 1 "$ctl" dev frobnicate
grep -qx 'cumcctl: unknown command "frobnicate" for "dev"' "$tmp/err" &&
	[ "$(wc -l <"$tmp/err")" = 2 ] && grep -q 'cumcctl dev help' "$tmp/err"
tap_result $? "unknown command: one line that names it, one line of hint"
check "unknown command of fault" 1 "$ctl" fault frobnicate
grep -q 'unknown command "frobnicate" for "fault"' "$tmp/err"
tap_result $? "unknown command of fault names it"
check "help" 0 "$ctl" help
grep -q '^usage: cumcctl' "$tmp/out"; tap_result $? "help prints the usage on stdout"
for cmd in dev obj stats fault fm fabric monitor; do
	check "$cmd --help" 0 "$ctl" $cmd --help
	check "$cmd help" 0 "$ctl" $cmd help
done

# -V, --version, anywhere on the line.
for args in "-V" "--version" "dev -V" "-j --version"; do
	# shellcheck disable=SC2086
	check "cumcctl $args" 0 "$ctl" $args
	grep -qxE 'cumcctl [0-9]+\.[0-9]+\.[0-9]+' "$tmp/out"
	tap_result $? "cumcctl $args prints cumcctl VERSION"
done
for tool in cumc-fm cumc-imex cumc-allreduce; do
	check "$tool --version" 0 "$repo/build/tools/$tool" --version
	grep -qE "^$tool [0-9]+\.[0-9]+\.[0-9]+( |$)" "$tmp/out"
	tap_result $? "$tool --version prints $tool VERSION"
done

check "dev" 0 "$ctl" dev
tap_result $(($(wc -l <"$tmp/out") != num_devices + 1)) "dev lists every device"
# No device of this VM is a GPU of a multi-node fabric.
head -n 1 "$tmp/out" | grep -q ' STATE FABRIC$'; tap_result $? "dev has the FABRIC column last"
[ "$(grep -c ' \(ok\|lost\) *not-supported$' "$tmp/out")" = "$num_devices" ]
tap_result $? "dev: every device's fabric state is not-supported"
check "dev -j" 0 "$ctl" -j dev
tap_json "dev -j is JSON" "$tmp/out" True
tap_json "dev -j: fabric_state not-supported, no node, cluster_uuid or clique_id" "$tmp/out" 'len(j) > 0 and all(d["fabric_state"] == "not-supported" and not {"node", "cluster_uuid", "clique_id"} & d.keys() for d in j)'
check "stats -j" 0 "$ctl" -j stats
tap_json "stats -j is JSON" "$tmp/out" True
tap_json "stats has the fabric-wide row" "$tmp/out" 'any(r["scope"] == "fabric" for r in j)'
check "obj -j" 0 "$ctl" -j obj
tap_json "obj -j is JSON" "$tmp/out" True

# The object-verb grammar says what the older forms say.
for obj in dev obj stats fault fabric fm; do
	"$ctl" $obj >"$tmp/old" 2>&1
	check "$obj show" 0 "$ctl" $obj show
	cmp -s "$tmp/old" "$tmp/out"; tap_result $? "$obj show prints what $obj does"
done
check "dev list" 0 "$ctl" dev list
# Options anywhere: after the object, after the command, bundled.
"$ctl" -j dev >"$tmp/old"
for args in "dev -j" "dev show -j" "dev --json show" "-json dev"; do
	# shellcheck disable=SC2086
	check "$args" 0 "$ctl" $args
	cmp -s "$tmp/old" "$tmp/out"; tap_result $? "$args is -j dev"
done
check "dev show 0" 0 "$ctl" dev show 0
[ "$(wc -l <"$tmp/out")" = 2 ] && sed -n 2p "$tmp/out" | grep -q '^0 '
tap_result $? "dev show 0: the header and device 0 alone"
schema_check "dev show 1 -j" dev "$ctl" dev show 1 -j
tap_json "dev show 1 -j: device 1 alone" "$tmp/out" 'len(j) == 1 and j[0]["device"] == 1'
check "dev show of no such device refused" 2 "$ctl" dev show 4096
grep -q 'device 4096: No such device' "$tmp/err"; tap_result $? "dev show 4096 says no such device"
check "dev show with a word for an ID is a usage error" 1 "$ctl" dev show zero
# -p: the same JSON, indented over several lines.
check "-p dev" 0 "$ctl" -p dev
[ "$(wc -l <"$tmp/out")" -gt "$num_devices" ] && cp "$tmp/out" "$tmp/pretty" &&
	python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' "$tmp/pretty" "$tmp/old"
tap_result $? "-p dev: the JSON of -j dev, pretty-printed"
check "stats show -jp" 0 "$ctl" stats show -jp
tap_json "stats show -jp is JSON" "$tmp/out" True

# Every JSON output against the schema: one type per key.
schema_check "-j dev" dev "$ctl" -j dev
schema_check "-j obj (none)" obj "$ctl" -j obj
schema_check "-j stats" stats "$ctl" -j stats
tap_json "stats -j: one fabric row without device, a device row each" "$tmp/out" 'sum(r["scope"] == "fabric" and "device" not in r for r in j) == 1 and sum(r["scope"] == "device" for r in j) == '"$num_devices"
schema_check "-j fabric" fabric "$ctl" -j fabric
schema_check "-j fm" fm "$ctl" -j fm show
"$ctl" fault set mem-exhausted every 3 --device 1 >/dev/null &&
	"$ctl" fault set import-eperm once >/dev/null
schema_check "-j fault show (device and fabric-wide)" fault "$ctl" -j fault show
tap_json "fault show -j: the device fault with its device, the fabric-wide one without" "$tmp/out" 'any(r["scope"] == "device" and r["device"] == 1 and r["type"] == "mem-exhausted" and r["mode"] == "every" and r["value"] == 3 for r in j) and any(r["scope"] == "fabric" and "device" not in r and r["type"] == "import-eperm" and r["mode"] == "once" for r in j)'
"$ctl" fault clear mem-exhausted --device 1 >/dev/null
"$ctl" fault clear import-eperm >/dev/null
# A schema that cannot fail proves nothing: the old stats row is refused.
echo '[{"device": "fabric", "objects": 0, "bound_bytes": 0, "binds": 0, "maps": 0, "waits": 0, "faults": 0}]' >"$tmp/bad"
python3 "$repo/selftests/json_schema.py" "$schema" stats "$tmp/bad" 2>/dev/null
tap_result $(($? != 1)) "the schema refuses a device that is a string"

# A live team, held open by a batch reading a pipe: obj -j with members
# and bindings against the schema.
mkfifo "$tmp/fifo"
"$ctl" batch <"$tmp/fifo" >"$tmp/batch" 2>&1 &
batch=$!
exec 3>"$tmp/fifo"
cat >&3 <<'SCRIPT'
mc = mc-create 2 2M fd
mc-add $mc 0
mc-add $mc 1
m0 = create 0 2M fd
m1 = create 1 2M fd
bind $mc 0 0 $m0 0 2M
bind $mc 1 0 $m1 0 2M
SCRIPT
for _ in $(seq 50); do
	[ "$(grep -c '^ok' "$tmp/batch")" = 7 ] && break
	sleep 0.1
done
schema_check "-j obj (a team bound)" obj "$ctl" -j obj show
tap_json "obj -j: the team, ready, both members bound" "$tmp/out" 'any(o["state"] == "ready" and o["team_size"] == 2 and sorted(m["device"] for m in o["members"]) == [0, 1] and all(len(m["binds"]) == 1 and m["binds"][0]["length"] == 2 << 20 for m in o["members"]) for o in j)'
cat >&3 <<'SCRIPT'
unbind $mc 0 0 2M
unbind $mc 1 0 2M
release $m0
release $m1
release $mc
SCRIPT
exec 3>&-
wait $batch; tap_result $? "the batch holding the team ends clean"

# This VM is a node of no multi-node fabric: node 0, not-supported, no
# cluster, no IMEX daemon.
check "fabric" 0 "$ctl" fabric
sed 's/^/# /' "$tmp/out"
head -n 1 "$tmp/out" | grep -qE '^NODE +STATE +CLUSTER +CLIQUE +IMEX +TEAMS/LIMIT$' &&
	[ "$(wc -l <"$tmp/out")" = 2 ] &&
	sed -n 2p "$tmp/out" | grep -qE '^0 +not-supported +- +- +no +0/1024$'
tap_result $? "fabric: node 0, not-supported, no cluster or clique, no IMEX daemon, no team of 1024"
check "fabric -j" 0 "$ctl" -j fabric
tap_json "fabric -j is JSON" "$tmp/out" True
tap_json "fabric -j: node, state, cluster_uuid, clique_id, imex_attached, mc_limit, mc_teams" "$tmp/out" 'j == {"node": 0, "state": "not-supported", "cluster_uuid": None, "clique_id": None, "imex_attached": False, "mc_limit": 1024, "mc_teams": 0}'
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
	check "unprivileged scenario refused" 2 \
		setpriv --reuid 65534 --regid 65534 --clear-groups "$ctl" scenario nccl-2077
else
	for _ in 1 2 3 4 5; do tap_skip unprivileged "no setpriv"; done
fi

# The new faults: fabric-stall's delay shown; fault clear all.
check "fault set fabric-stall --delay" 0 "$ctl" fault set fabric-stall once --delay 3000
check "fault set add-device on a device" 0 "$ctl" fault set add-device every 1 --device 1
check "fault set unbind-invalid" 0 "$ctl" fault set unbind-invalid percent 50
schema_check "-j fault show (the new faults)" fault "$ctl" -j fault show
tap_json "fault show -j: fabric-stall with its delay, add-device on device 1, unbind-invalid" "$tmp/out" 'any(r["type"] == "fabric-stall" and r["delay_ms"] == 3000 for r in j) and any(r["type"] == "add-device" and r["device"] == 1 for r in j) and any(r["type"] == "unbind-invalid" and r["mode"] == "percent" for r in j)'
check "fault show (text)" 0 "$ctl" fault show
grep -q '^fabric-stall .*delay 3000ms$' "$tmp/out"; tap_result $? "fault show prints the stall's delay"
check "fault set --delay 0 is a usage error" 1 "$ctl" fault set fabric-stall once --delay 0
check "fault clear all" 0 "$ctl" fault clear all
check "-j fault show (none)" 0 "$ctl" -j fault show
tap_json "fault clear all leaves no fault armed" "$tmp/out" 'j == []'

# dev set: a sick fabric's conditions, shown by dev; reset drops them.
check "dev set 1 (all three)" 0 "$ctl" dev set 1 state in-progress multicast off health-mask 0xa9
check "dev show 1 (conditions)" 0 "$ctl" dev show 1
sed -n 2p "$tmp/out" | grep -q ' ok *in-progress,held,multicast-off,health=0xa9$'
tap_result $? "dev show 1: in-progress,held,multicast-off,health=0xa9" || sed 's/^/# /' "$tmp/out"
schema_check "dev show 1 -j (conditions)" dev "$ctl" -j dev show 1
tap_json "dev -j: fabric_state_held, multicast false, health_mask" "$tmp/out" 'j[0]["fabric_state"] == "in-progress" and j[0]["fabric_state_held"] and not j[0]["multicast"] and j[0]["health_mask"] == 0xa9'
check "dev set 1 state completed" 0 "$ctl" dev set 1 state completed
check "-j dev show 1" 0 "$ctl" -j dev show 1
tap_json "dev set state completed lets the state go" "$tmp/out" 'j[0]["fabric_state"] == "not-supported" and not j[0]["fabric_state_held"]'
check "dev set state not-supported refused by the kernel" 2 "$ctl" dev set 1 state not-supported
check "dev set with a bad state is a usage error" 1 "$ctl" dev set 1 state broken
check "dev set without a condition is a usage error" 1 "$ctl" dev set 1
check "dev set of no such device refused" 2 "$ctl" dev set 4096 multicast off
check "dev set reset (every device)" 0 "$ctl" dev set reset
check "-j dev (reset)" 0 "$ctl" -j dev
tap_json "dev set reset: no condition left on any device" "$tmp/out" 'all(not d["fabric_state_held"] and d["multicast"] and "health_mask" not in d for d in j)'

# fabric set mc-limit: shown by fabric; out of its range refused.
check "fabric set mc-limit 5" 0 "$ctl" fabric set mc-limit 5
check "-j fabric (limit 5)" 0 "$ctl" -j fabric
tap_json "fabric -j: mc_limit 5" "$tmp/out" 'j["mc_limit"] == 5'
check "fabric set mc-limit 0 refused by the kernel" 2 "$ctl" fabric set mc-limit 0
check "fabric set without a limit is a usage error" 1 "$ctl" fabric set mc-limit
check "fabric set mc-limit 1024" 0 "$ctl" fabric set mc-limit 1024

# The scenario catalogue: list, one applied, clear.
check "scenario list" 0 "$ctl" scenario list
[ "$(wc -l <"$tmp/out")" -ge 11 ] && grep -q '^nccl-2077 ' "$tmp/out"
tap_result $? "scenario list: a header and every scenario"
schema_check "-j scenario list" scenario "$ctl" -j scenario list
tap_json "scenario list -j: each with its reports, symptom, fallback" "$tmp/out" 'len(j) >= 10 and all(r["reports"] and r["symptom"] and r["fallback"] for r in j)'
check "scenario nccl-2077" 0 "$ctl" scenario nccl-2077
grep -q '^  cumcctl fabric set mc-limit 1$' "$tmp/out" && grep -q '^symptom: ' "$tmp/out" &&
	grep -q '^fallback: ' "$tmp/out"
tap_result $? "scenario nccl-2077 prints its commands, symptom, fallback"
check "-j fabric (nccl-2077)" 0 "$ctl" -j fabric
tap_json "scenario nccl-2077 sets the limit to 1" "$tmp/out" 'j["mc_limit"] == 1'
check "scenario torchcomms-3130" 0 "$ctl" scenario torchcomms-3130
check "-j fabric (torchcomms-3130)" 0 "$ctl" -j fabric
tap_json "a scenario clears the one before" "$tmp/out" 'j["mc_limit"] == 1024'
check "-j fault show (torchcomms-3130)" 0 "$ctl" -j fault show
tap_json "scenario torchcomms-3130 arms a 7 s fabric-stall" "$tmp/out" 'len(j) == 1 and j[0]["type"] == "fabric-stall" and j[0]["delay_ms"] == 7000'
check "scenario gpu-operator-2781" 0 "$ctl" scenario gpu-operator-2781
check "dev (gpu-operator-2781)" 0 "$ctl" dev
[ "$(grep -c ' in-progress,held$' "$tmp/out")" = "$num_devices" ]
tap_result $? "scenario gpu-operator-2781 holds every device in progress"
check "scenario clear" 0 "$ctl" scenario clear
check "-j fault show (cleared)" 0 "$ctl" -j fault show
tap_json "scenario clear: no fault" "$tmp/out" 'j == []'
check "dev (cleared)" 0 "$ctl" dev
[ "$(grep -c ' ok *not-supported$' "$tmp/out")" = "$num_devices" ]
tap_result $? "scenario clear: every device as it was"
check "unknown scenario" 1 "$ctl" scenario no-such-report
grep -q 'no scenario "no-such-report"' "$tmp/err"; tap_result $? "unknown scenario named"

check "fm mode" 0 "$ctl" fm mode kernel --timeout 4000
grep -q 'mode kernel timeout_ms 4000' "$tmp/out"; tap_result $? "fm mode reports the setting"
check "fm respond to nothing refused" 2 "$ctl" fm respond 2147483000 ok
check "fm respond bad result" 1 "$ctl" fm respond 1 maybe

# The monitor sees a team's life: create, ready, bind, unbind, delete.
"$ctl" -j monitor --count 5 --timeout 120000 >"$tmp/mon" 2>"$tmp/mon.err" &
mon=$!
wait_listening "$tmp/mon.err"
make_team; tap_result $? "a team forms with the in-kernel manager"
wait $mon; tap_result $? "monitor exits after --count events"
sed 's/^/# /' "$tmp/mon"
valid_schema "monitor -j: every event valid (schema)" event "$tmp/mon" --lines
[ "$(grep -c '"event"' "$tmp/mon")" = 5 ] &&
	sed -n 1p "$tmp/mon" | grep -q mc-create &&
	sed -n 5p "$tmp/mon" | grep -q mc-delete
tap_result $? "monitor printed the five events in order"

# monitor -t: the time of each event, in the text and in JSON; -t and -j
# after the command.
"$ctl" monitor -t -j --count 5 --timeout 120000 >"$tmp/mon" 2>"$tmp/mon.err" &
mon=$!
wait_listening "$tmp/mon.err"
make_team; tap_result $? "a team forms (monitor -t -j)"
wait $mon; tap_result $? "monitor -t -j exits after --count events"
valid_schema "monitor -t -j: every event valid (schema)" event "$tmp/mon" --lines
[ "$(grep -c '"timestamp": *"20[0-9-]*T[0-9:.]*Z"' "$tmp/mon")" = 5 ]
tap_result $? "monitor -t -j: a timestamp on each event"
"$ctl" monitor --count 5 --timeout 120000 -t >"$tmp/mon" 2>"$tmp/mon.err" &
mon=$!
wait_listening "$tmp/mon.err"
make_team; tap_result $? "a team forms (monitor -t)"
wait $mon; tap_result $? "monitor -t exits after --count events"
sed 's/^/# /' "$tmp/mon"
[ "$(grep -cE '^\[20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z\] [a-z-]+ +id=' "$tmp/mon")" = 5 ] &&
	sed -n 4p "$tmp/mon" | grep -qE '\] unbind .* device=[01] mc_offset=0x0 length=0x[0-9a-f]+$'
tap_result $? "monitor -t: [time] before each event line"
check "monitor with an unknown word" 1 "$ctl" monitor frobnicate
grep -q 'unknown command "frobnicate" for "monitor"' "$tmp/err"
tap_result $? "monitor: the unknown word named"

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
"$ctl" monitor --count 1 --timeout 120000 >"$tmp/mon" 2>"$tmp/mon.err" &
mon=$!
wait_listening "$tmp/mon.err"
check "IMEX_NODE_LOST of node 5" 0 "$node_lost" 5
wait $mon; tap_result $? "monitor exits after the node-lost event"
sed 's/^/# /' "$tmp/mon"
grep -qE '^node-lost +id=0 node=5$' "$tmp/mon"; tap_result $? "monitor prints node-lost node=5"
"$ctl" -j monitor --count 1 --timeout 120000 >"$tmp/mon" 2>"$tmp/mon.err" &
mon=$!
wait_listening "$tmp/mon.err"
check "IMEX_NODE_LOST of node 6" 0 "$node_lost" 6
wait $mon; tap_result $? "monitor -j exits after the node-lost event"
sed 's/^/# /' "$tmp/mon"
tap_json "monitor -j prints node-lost with \"node\": 6" "$tmp/mon" 'j["event"] == "node-lost" and j["node"] == 6'
valid_schema "monitor -j node-lost valid (schema)" event "$tmp/mon" --lines

"$ctl" fm mode kernel --timeout 5000 >/dev/null
tap_json_results
schema_results
rm -rf "$tmp"
tap_end
