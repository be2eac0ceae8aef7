#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Record the PTX corpus's answers on the GPU and driver this machine has
# (NVIDIA's, libcuda.so.1): build corpus.c with run_cuda.c against the
# CUDA toolkit's cuda.h and that libcuda.so.1, run every case of
# cases.txt, write answers/<GPU>-<driver version>.txt.  The kernels touch
# only their own buffers: no multicast, no multimem instruction, no GPU
# setting.
#
#   conformance/ptx/record.sh [CUDA_INCLUDE_DIR]
#
# A machine without a compiler can run a runner built elsewhere:
# RUNNER=path/to/corpus_cuda CORPUS=dir/with/cases.txt record.sh.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
corpus=${CORPUS:-$here}
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

runner=${RUNNER:-}
if [ -z "$runner" ]; then
	include=${1:-$(dirname "$(readlink -f "$(command -v nvcc)")")/../include}
	[ -e "$include/cuda.h" ] || { echo "record.sh: no cuda.h in $include" >&2; exit 1; }
	libcuda=$(ldconfig -p | awk '$1 == "libcuda.so.1" { print $NF; exit }')
	[ -n "$libcuda" ] || { echo "record.sh: no libcuda.so.1 on this machine" >&2; exit 1; }
	cc -std=gnu11 -O2 -D_GNU_SOURCE -I"$include" -o "$work/corpus" \
		"$here/corpus.c" "$here/run_cuda.c" \
		-L"$(dirname "$libcuda")" -l:libcuda.so.1 -lm
	runner=$work/corpus
fi

# GPU names have spaces: the file's name has dashes ("NVIDIA-H200").
mkdir -p "$corpus/answers"
out="$corpus/answers/$(echo "$gpu" | tr -c 'A-Za-z0-9.\n' '-')-$driver.txt"
{
	echo "# NVIDIA's driver $driver, $gpu."
	echo "# Recorded $(date -u +%F) by conformance/ptx/record.sh (cases.txt $(sha256sum "$corpus/cases.txt" | cut -c1-16))."
	"$runner" -C "$corpus"
} >"$out"
echo "record.sh: $(grep -vc '^#' "$out") cases in $out, $(grep -c ' ERROR ' "$out" || true) of them errors"
