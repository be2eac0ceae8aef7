#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The benchmarks' --json files, written through json-c (bench/bench_json.h),
# parse as JSON (Python's json, judging all in one run: tap_json), and
# still hold one record a line where bench/plot.sh's awk reads them. Runs
# the benchmarks short, in the VM
# (they need the module); figures are not checked, only the files.
# bench_fabric needs a 2-node fabric (make bench): its file is written by
# the same bench_json_write() and JSON() as bench_scaling's.
set -u
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bench=$repo/build/bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=scripts/tap.sh
. "$repo/scripts/tap.sh"

run() {
	local name=$1
	shift
	"$@" >"$tmp/out" 2>&1 || { tail -n 5 "$tmp/out" | sed 's/^/# /'; false; }
	tap_result $? "$name runs"
}

# py NAME FILE EXPR: the JSON in FILE, as j, makes the Python EXPR true.
echo "TAP version 13"
[ -x "$bench/bench_control" ] || tap_skip_all "no build/bench (make bench-progs)"

run "bench_control --reps 2" "$bench/bench_control" --reps 2 --json "$tmp/control.json"
tap_json "bench_control: it parses as JSON" "$tmp/control.json" True
tap_json "bench_control: rounds, null_syscall, a result per op and size" "$tmp/control.json" \
	'j["rounds"] == 2 and j["null_syscall"]["call"] == "getppid" and len(j["results"]) % 3 == 0 and all(type(r["median_ns"]) is float and type(r["bytes"]) is int for r in j["results"])'
# bench/plot.sh's reading: a record a line, "key": value.
grep -q '"op": "[^"]*", "size": "2MiB"' "$tmp/control.json"
tap_json "bench_control: a record a line, as plot.sh reads them" "$tmp/control.json" \
	"$? == 0 and sum('\"x_null_syscall\": ' in line for line in text.splitlines()) == len(j['results'])"

run "bench_stream --reps 50" "$bench/bench_stream" --reps 50 --json "$tmp/stream.json"
tap_json "bench_stream: it parses as JSON" "$tmp/stream.json" True
tap_json "bench_stream: rounds, null_syscall, a result per op" "$tmp/stream.json" \
	'j["rounds"] == 50 and j["null_syscall"]["call"] == "getppid" and j["results"] and all(type(r["op"]) is str and type(r["median_ns"]) is float for r in j["results"])'

run "bench_launch --reps 20" "$bench/bench_launch" --reps 20 --json "$tmp/launch.json"
tap_json "bench_launch: it parses as JSON" "$tmp/launch.json" True
tap_json "bench_launch: rounds, the device, null_syscall, the three launches" "$tmp/launch.json" \
	'j["rounds"] == 20 and type(j["device"]) is str and j["null_syscall"]["call"] == "getppid" and len(j["results"]) == 3 and all(type(r["x_null_syscall"]) is float for r in j["results"])'

run "bench_va" "$bench/bench_va" "$tmp/va.json"
tap_json "bench_va: it parses as JSON" "$tmp/va.json" True
tap_json "bench_va: operations with their sizes" "$tmp/va.json" \
	'j["repetitions"] > 0 and all(type(o["name"]) is str and o["2MiB"]["bytes"] == 2 << 20 for o in j["operations"])'
tap_json "bench_va: map, set access and unmap alone, each size" "$tmp/va.json" \
	'[o["name"] for o in j["mapping_alone"]] == ["cuMemMap", "cuMemSetAccess", "cuMemUnmap"] and all(o["8GiB"]["bytes"] == 8 << 30 and o["8GiB"]["median_ns"] > 0 for o in j["mapping_alone"])'

run "bench_scaling teams" "$bench/bench_scaling" --json "$tmp/scaling.json" teams
tap_json "bench_scaling: it parses as JSON" "$tmp/scaling.json" True
tap_json "bench_scaling: devices, null_syscall_ns, the teams part" "$tmp/scaling.json" \
	'type(j["devices"]) is int and j["results"] and all(r["part"] == "teams" for r in j["results"])'
[ "$(grep -c '"part": "teams", "team": [0-9]*, "add_device_ns": ' "$tmp/scaling.json")" -gt 0 ]
tap_result $? "bench_scaling: a record a line, as plot.sh reads them"

run "bench_multimem --device-only --quick" env GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=4294967295 \
	"$bench/bench_multimem" --device-only --quick --max-bytes 2097152 \
	--json "$tmp/multimem.json"
tap_json "bench_multimem: it parses as JSON" "$tmp/multimem.json" True
tap_json "bench_multimem: an array of results" "$tmp/multimem.json" \
	'j and all(type(r["members"]) is int and "gbps" in r for r in j)'
grep -q '"members": [0-9]*, "bytes": ' "$tmp/multimem.json"
tap_result $? "bench_multimem: a record a line, as plot.sh reads them"

"$bench/bench_backend" --json "$tmp/backend.json" >"$tmp/out" 2>&1
case $? in
0)
	tap_ok "bench_backend runs"
	tap_json "bench_backend: it parses as JSON" "$tmp/backend.json" True
	;;
2)
	tap_skip "bench_backend runs" "needs a PCI device and a system-memory one"
	tap_skip "bench_backend: it parses as JSON" "not run"
	;;
*)
	tail -n 5 "$tmp/out" | sed 's/^/# /'
	tap_not_ok "bench_backend runs"
	tap_not_ok "bench_backend: it parses as JSON"
	;;
esac
tap_json_results
tap_end
