#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/plot.sh [DIR]: the main figures of a 'make bench' run as one PNG,
# DIR/bench.png (DIR: build/bench). The JSON files hold one result per
# line, which is all the parsing here relies on.
set -euo pipefail

dir=${1:-build/bench}
control=$dir/bench_control.json
native=$dir/bench_multimem-native.json
scaling=$dir/bench_scaling.json

# A field of a one-line JSON record: field NAME.
field='function field(name,  m) {
	if (match($0, "\"" name "\": \"?[^,\"}]*"))
		m = substr($0, RSTART, RLENGTH)
	else
		return ""
	sub(/^"[^"]*": "?/, "", m)
	return m
}'

# Entry point, then its median as a multiple of a null call per size.
awk "$field"'
/"op":/ {
	op = field("op"); v[op, field("size")] = field("x_null_syscall")
	if (!(op in seen)) { seen[op] = 1; order[n++] = op }
}
END { for (i = 0; i < n; i++)
	print "\"" order[i] "\"", v[order[i], "2MiB"], v[order[i], "512MiB"], v[order[i], "8GiB"] }
' "$control" >"$dir/plot-control.dat"

# Native data path, 8 members: bytes, then GB/s of st, memcpy, ld_reduce f32,
# read-sum.
awk "$field"'
/"members": 8,/ {
	b = field("bytes"); bytes[b] = 1
	if (field("op") == "st") { st[b] = field("gbps"); cp[b] = field("baseline_gbps") }
	if (field("op") == "ld_reduce f32") { ld[b] = field("gbps"); rs[b] = field("baseline_gbps") }
}
END { for (b in bytes) print b, st[b], cp[b], ld[b], rs[b] }
' "$native" | sort -n >"$dir/plot-datapath.dat"

# Team size, then us per call of AddDevice, BindMem, cuMemMap, cuMemUnmap.
awk "$field"'
/"part": "teams"/ {
	print field("team"), field("add_device_ns") / 1e3, field("bind_ns") / 1e3,
		field("map_ns") / 1e3, field("unmap_ns") / 1e3
}' "$scaling" >"$dir/plot-teams.dat"

gnuplot <<EOP
set terminal pngcairo size 1400,1500 font ",10"
set output "$dir/bench.png"
set multiplot layout 3,1 title "cumc benchmarks (one run of 'make bench'; VM parts under TCG)"

set title "Control path: median latency as a multiple of a null system call (VM)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set logscale y
set ylabel "x null syscall (log)"
set yrange [1:*]
set xtics rotate by -30 left
set grid ytics
set key top right
plot "$dir/plot-control.dat" using 2:xtic(1) title "2 MiB", \
	'' using 3 title "512 MiB", '' using 4 title "8 GiB", \
	20 with lines dashtype 2 lc rgb "red" title "target: 20"

unset logscale y
unset style
set style data linespoints
set xtics norotate
set title "Data path (native, 8 members): throughput vs message size"
set logscale x 2
set xlabel "bytes per member"
set ylabel "GB/s (all members' bytes)"
set yrange [0:*]
set xtics ("4 KiB" 4096, "64 KiB" 65536, "1 MiB" 1048576, "16 MiB" 16777216, "256 MiB" 268435456, "1 GiB" 1073741824)
set xrange [2048:2147483648]
plot "$dir/plot-datapath.dat" using 1:2 title "multimem.st", \
	'' using 1:3 title "memcpy per member", \
	'' using 1:4 title "multimem.ld\\\\_reduce f32 add", \
	'' using 1:5 title "read-sum (into a destination)"

set title "Team size (VM): cost per call against the number of members"
unset logscale x
set xtics autofreq
set autoscale x
set key top left
set xlabel "team size (devices)"
set ylabel "us per call"
plot "$dir/plot-teams.dat" using 1:2 title "cuMulticastAddDevice (each)", \
	'' using 1:3 title "cuMulticastBindMem (each)", \
	'' using 1:4 title "cuMemMap of the object", \
	'' using 1:5 title "cuMemUnmap of the object"
unset multiplot
EOP
echo "plot: $dir/bench.png"
