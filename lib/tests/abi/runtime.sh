#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The CUDA runtime on libcumc (Documentation/runtime.md): the vector add
# of conformance/export_tables/vector_add.cu (cudaMalloc, cudaMemcpy and
# a <<<>>> launch of a kernel the runtime registers from the program's fat
# binary), built by the toolkit's nvcc for compute_90 (PTX, which cumc
# runs), once with the shared runtime (-cudart shared, the toolkit's
# libcudart.so.13) and once with the static one (nvcc's default), run
# unchanged on libcumc as libcuda.so.1 (scripts/vm-run's library path).
# Each checks its 1024 sums and says "vector add: right (no error)", or
# fails. Needs /dev/cumc, so it runs in the VM; skips without a toolkit
# or its nvcc.

set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
program=$top/conformance/export_tables/vector_add.cu

# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"
need_cuda_toolkit_stubs
tap_need_vm_root
toolkit=$(cd "$toolkit_include/.." && pwd)
if [ ! -x "$toolkit/bin/nvcc" ]; then
	tap_skip_all "no nvcc in $toolkit/bin"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for mode in shared static; do
	name="vector_add.cu, $mode runtime"
	if ! "$toolkit/bin/nvcc" -gencode arch=compute_90,code=compute_90 \
		-cudart "$mode" -o "$work/$mode" "$program" >"$work/build.err" 2>&1; then
		tap_not_ok "$name: nvcc builds it"
		sed 's/^/# /' "$work/build.err"
		continue
	fi
	LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$toolkit/lib64 \
		"$work/$mode" >"$work/out" 2>&1
	rc=$?
	[ "$rc" = 0 ] && grep -qx 'vector add: right (no error)' "$work/out"
	tap_result $? "$name: $(tail -1 "$work/out")" || sed 's/^/# /' "$work/out"
done
tap_end
