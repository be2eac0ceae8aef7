#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Record the answers of the driver libcuda.so.1 names on this machine
# (NVIDIA's, on a machine with a GPU): build probe.c against the CUDA
# toolkit's cuda.h and that libcuda.so.1, run every probe, write
# answers/<driver version>.txt; and its error names and strings, from
# errors/error_strings.c, in errors/<driver version>.tsv.  Touches no
# multicast entry point and no GPU setting: the probes allocate, map, copy
# and free a few MiB.
#
#   conformance/record.sh [CUDA_INCLUDE_DIR]

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
include=${1:-$(dirname "$(readlink -f "$(command -v nvcc)")")/../include}
[ -e "$include/cuda.h" ] || { echo "record.sh: no cuda.h in $include" >&2; exit 1; }
libcuda=$(ldconfig -p | awk '$1 == "libcuda.so.1" { print $NF; exit }')
[ -n "$libcuda" ] || { echo "record.sh: no libcuda.so.1 on this machine" >&2; exit 1; }
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Entry points this driver lacks stay unresolved: their probes say so.
cc -std=gnu11 -D_GNU_SOURCE -pthread -I"$include" -o "$work/probe" "$here/probe.c" \
	-Wl,--unresolved-symbols=ignore-all -L"$(dirname "$libcuda")" -l:libcuda.so.1

out="$here/answers/$driver.txt"
{
	echo "# NVIDIA's driver $driver, $gpu."
	echo "# Recorded $(date -u +%F) by conformance/record.sh, probe.c built against $(readlink -f "$include")/cuda.h."
	"$work/probe"
} >"$out"
echo "record.sh: $(grep -vc '^#' "$out") answers in $out"

cc -std=gnu11 -Wall -Werror -I"$include" -o "$work/error_strings" \
	"$here/errors/error_strings.c" -L"$(dirname "$libcuda")" -l:libcuda.so.1
out="$here/errors/$driver.tsv"
{
	echo "# NVIDIA's driver $driver, $gpu: cuGetErrorName and cuGetErrorString."
	echo "# Recorded $(date -u +%F) by conformance/record.sh, errors/error_strings.c built against $(readlink -f "$include")/cuda.h."
	"$work/error_strings"
} >"$out"
echo "record.sh: $(grep -vc '^#' "$out") error lines in $out"
