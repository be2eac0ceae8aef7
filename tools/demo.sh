#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tools/demo.sh: the demo behind 'make demo' (which builds first). Boots the
# VM once, runs an all-reduce sweep over 8 simulated devices, multicast
# against a unicast ring, then plots bandwidth against message size.
# Writes build/demo/{report.txt,allreduce.json,allreduce.dat,allreduce.gp,
# allreduce.png}; fails when any rank found a wrong element.
set -u
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$repo/build/demo
# 64 KiB to 16 MiB keeps the emulated VM's run within about two minutes.
sweep=${CUMC_DEMO_SWEEP:-64k:16M}

mkdir -p "$out"
cd "$repo" || exit 1
scripts/vm-run -- build/tools/cumc-allreduce -n 8 --sweep "$sweep" --ring \
	-i 5 -w 1 --json "$out/allreduce.json" --data "$out/allreduce.dat" |
	tee "$out/report.txt"
status=${PIPESTATUS[0]}

cat >"$out/allreduce.gp" <<GP
set terminal pngcairo size 900,560 font ",11" noenhanced
set output "$out/allreduce.png"
set title "cumc all-reduce (sum, f32), 8 simulated devices, one process each, in the VM"
set xlabel "message size (bytes)"
set ylabel "bus bandwidth (MB/s, log scale)"
set logscale xy 2
set format x "%.0b%B"
set format y "%g"
set grid
set key top left
plot "$out/allreduce.dat" using 1:3 with linespoints lw 2 pt 7 title "multicast: multimem ld_reduce + st", \\
     "" using 1:5 with linespoints lw 2 pt 5 title "unicast ring: reduce-scatter + all-gather"
GP
if [ -s "$out/allreduce.dat" ] && gnuplot "$out/allreduce.gp"; then
	echo "plot: $out/allreduce.png (data $out/allreduce.dat, script $out/allreduce.gp)"
else
	echo "demo: no plot (no data, or gnuplot failed)" >&2
	[ "$status" = 0 ] && status=1
fi
echo "report: $out/report.txt, figures: $out/allreduce.json"
exit "$status"
