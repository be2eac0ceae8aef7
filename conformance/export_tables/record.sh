#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Record what NVRTC and the CUDA runtime ask of cuGetExportTable on
# NVIDIA's driver (a machine with a GPU and the toolkit): interpose.c,
# built as libcuda.so.1 in a directory put first on the library path,
# forwards to the real driver and logs every table asked for, its words,
# and every call of a slot. Writes <driver>-nvrtc.log, <driver>-
# runtime-static.log and <driver>-runtime-shared.log into OUTDIR (default
# this directory). No multicast entry point is called.
#
#   conformance/export_tables/record.sh [OUTDIR]

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
outdir=${1:-$here}
nvcc=$(readlink -f "$(command -v nvcc)")
toolkit=$(cd "$(dirname "$nvcc")/.." && pwd)
real=$(ldconfig -p | awk '$1 == "libcuda.so.1" { print $NF; exit }')
[ -n "$real" ] || { echo "record.sh: no libcuda.so.1 on this machine" >&2; exit 1; }
real=$(readlink -f "$real")
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/lib"
cc -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -I"$toolkit/include" -fPIC \
	-shared -Wl,-soname,libcuda.so.1 -o "$work/lib/libcuda.so.1" \
	"$here/interpose.c" "$here/thunks.S" -ldl -lpthread
cc -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -I"$toolkit/include" \
	-o "$work/nvrtc_compile" "$top/lib/tests/abi/nvrtc_compile.c" \
	-L"$toolkit/lib64" -lnvrtc
"$nvcc" -o "$work/runtime-static" "$here/vector_add.cu"
"$nvcc" -cudart shared -o "$work/runtime-shared" "$here/vector_add.cu"

for prog in nvrtc_compile runtime-static runtime-shared; do
	log="$outdir/$driver-${prog%_compile}.log"
	echo "# $prog on NVIDIA's driver $driver ($real), by conformance/export_tables/record.sh" >"$log"
	CUMC_REAL_LIBCUDA=$real CUMC_INTERPOSE_LOG=$log \
	LD_LIBRARY_PATH=$work/lib:$toolkit/lib64 "$work/$prog" >>"$log" 2>&1 ||
		echo "# $prog exited $?" >>"$log"
	echo "record.sh: $(grep -c '^slot ' "$log") slot calls, $(grep -c '^table ' "$log") tables in $log"
done
