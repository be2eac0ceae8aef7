#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tools/demo.sh: the demo behind 'make demo' (which builds first). Boots the
# VM once, runs an all-reduce sweep over 8 simulated devices, multicast
# from the CPU (cumcMultimem* calls) and as device code (a PTX kernel of
# multimem instructions, up to CUMC_DEMO_KERNEL_MAX: the interpreter is
# slow) against a unicast ring, then plots bandwidth against message size.
# Writes build/demo/{report.txt,allreduce.json,allreduce.dat,allreduce.gp,
# allreduce.png}; fails when any rank found a wrong element.
#
# With NODES=N (make demo NODES=2), the same across N node VMs of one
# fabric (scripts/fabric-run), 4 GPUs each, one process per GPU, every
# object shared as a fabric handle; the files are named report-Nnodes.txt,
# allreduce-Nnodes.*.
set -u
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$repo/build/demo
# 64 KiB to 16 MiB keeps the emulated VM's run within about two minutes.
sweep=${CUMC_DEMO_SWEEP:-64k:16M}
# The kernel to 1 MiB adds about 20 s (Documentation/performance.md).
kernel_max=${CUMC_DEMO_KERNEL_MAX:-1M}
nodes=${NODES:-1}
gpus_per_node=4

if ! [[ "$nodes" =~ ^[0-9]+$ ]] || [ "$nodes" -lt 1 ] || [ "$nodes" -gt 18 ]; then
	echo "demo: NODES must be 1 to 18, not '$nodes'" >&2
	exit 2
fi
mkdir -p "$out"
cd "$repo" || exit 1
if [ "$nodes" = 1 ]; then
	name=allreduce report=$out/report.txt
	what="8 simulated devices, one process each, in the VM"
	where=
	scripts/vm-run -- build/tools/cumc-allreduce -n 8 --sweep "$sweep" --ring \
		--kernel --kernel-max "$kernel_max" -i 5 -w 1 --json "$out/$name.json" --data "$out/$name.dat" |
		tee "$report"
	status=${PIPESTATUS[0]}
else
	name=allreduce-${nodes}nodes report=$out/report-${nodes}nodes.txt
	what="$nodes nodes x $gpus_per_node simulated GPUs, one process each, one VM per node"
	ranks=
	for ((k = 0; k < nodes; k++)); do
		ranks+="${ranks:+, }node $k: ranks $((k * gpus_per_node))-$((k * gpus_per_node + gpus_per_node - 1))"
	done
	where="set label 1 \"$ranks; objects shared as fabric handles\" at graph 0.02, graph 0.04"
	# Rank 0 is on node 0, 10.77.0.1 on the fabric's network; its output
	# is the report, the other nodes' lines keep their "node K: " prefix.
	scripts/fabric-run --nodes "$nodes" --gpus-per-node "$gpus_per_node" \
		--procs-per-node 1 -- \
		build/tools/cumc-allreduce --nodes "$nodes" \
		-n $((nodes * gpus_per_node)) --root 10.77.0.1 \
		--sweep "$sweep" --ring --kernel --kernel-max "$kernel_max" \
		-i 5 -w 1 --json "$out/$name.json" \
		--data "$out/$name.dat" | sed -u 's/^node 0: //' | tee "$report"
	status=${PIPESTATUS[0]}
fi

cat >"$out/$name.gp" <<GP
set terminal pngcairo size 900,560 font ",11" noenhanced
set output "$out/$name.png"
set title "cumc all-reduce (sum, f32), $what"
set xlabel "message size (bytes)"
set ylabel "bus bandwidth (MB/s, log scale)"
set logscale xy 2
set format x "%.0b%B"
set format y "%g"
set grid
set key top left
set datafile missing "NaN"
$where
plot "$out/$name.dat" using 1:3 with linespoints lw 2 pt 7 title "multicast from the CPU: cumcMultimemLdReduce + St", \\
     "" using 1:7 with linespoints lw 2 pt 9 title "multicast kernel (PTX, interpreted): multimem.ld_reduce + st, signal-pad barriers", \\
     "" using 1:5 with linespoints lw 2 pt 5 title "unicast ring: reduce-scatter + all-gather"
GP
if [ -s "$out/$name.dat" ] && gnuplot "$out/$name.gp"; then
	echo "plot: $out/$name.png (data $out/$name.dat, script $out/$name.gp)"
else
	echo "demo: no plot (no data, or gnuplot failed)" >&2
	[ "$status" = 0 ] && status=1
fi
echo "report: $report, figures: $out/$name.json"
exit "$status"
