#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/allreduce-nodes.sh ONE ACROSS: the all-reduce of 'make bench' on
# one node beside the same across nodes, from cumc-allreduce's JSON files
# (ONE: 8 GPUs of one VM; ACROSS: 2 node VMs of 4 GPUs): bus bandwidth of
# each algorithm at each size, and the ratio across/one. The files hold
# one result per line, which is all the parsing here relies on.
set -euo pipefail

[ $# = 2 ] || { echo "usage: bench/allreduce-nodes.sh ONE.json ACROSS.json" >&2; exit 2; }

awk '
function field(name,  m) {
	if (!match($0, "\"" name "\": \"?[^,\"}]*"))
		return ""
	m = substr($0, RSTART, RLENGTH)
	sub(/^"[^"]*": "?/, "", m)
	return m
}
/"algorithm":/ {
	key = field("bytes") " " field("algorithm")
	if (FILENAME == ARGV[1]) {
		one[key] = field("busbw_GBps")
		order[n++] = key
	} else {
		across[key] = field("busbw_GBps")
	}
}
END {
	printf "all-reduce (sum, f32), 8 GPUs: one node (one VM, 2 CPUs) beside "
	printf "2 nodes x 4 GPUs (2 VMs, 1 CPU each)\n\n"
	printf "%10s  %-9s  %15s  %15s  %10s\n", "bytes", "algorithm",
	       "one node MB/s", "2 nodes MB/s", "2 nodes/1"
	for (i = 0; i < n; i++) {
		k = order[i]
		split(k, p, " ")
		ratio = "-"
		if ((k in across) && one[k] > 0)
			ratio = sprintf("%.2f", across[k] / one[k])
		printf "%10s  %-9s  %15.2f  %15.2f  %10s\n", p[1], p[2],
		       one[k] * 1e3, across[k] * 1e3, ratio
	}
}' "$1" "$2"
