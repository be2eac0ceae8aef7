#!/bin/bash
# SPDX-License-Identifier: MIT
#
# NCCL on libcumc (Documentation/runtime.md, "NCCL"): nccl_allreduce.cu,
# built with plain nvcc against the toolkit's libnccl, makes a communicator
# for every GPU (ncclCommInitAll) and all-reduces a buffer over them,
# checking every sum. It passes when the program says "nccl allreduce:
# right". NCCL's device code is machine code for real GPUs and PTX for
# compute_120 only, which cumc cannot run: while that is so, the program
# stops with NCCL's error for a kernel image the device cannot load, and
# libcumc's CUMC_LOG says it found no PTX it can run; that stop alone is a
# SKIP naming it. Any other end fails: a crash, a wrong sum, another
# error. Needs /dev/cumc, so it runs in the VM; skips without a toolkit,
# its nvcc, or NCCL.

set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)

# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"
need_nvcc
tap_need_vm_root
nccl_lib=
for dir in "$toolkit/lib64" "$toolkit/lib"; do
	if [ -e "$dir/libnccl.so" ]; then
		nccl_lib=$dir
		break
	fi
done
if [ -z "$nccl_lib" ] || [ ! -f "$toolkit_include/nccl.h" ]; then
	tap_skip_all "no NCCL (nccl.h and libnccl.so) in the toolkit at $toolkit"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

name="nccl_allreduce.cu on every GPU"
if ! "$toolkit/bin/nvcc" -gencode "arch=compute_90,code=compute_90" \
	-o "$work/prog" "$here/nccl_allreduce.cu" -L"$nccl_lib" -lnccl \
	-Xlinker -rpath="$nccl_lib" >"$work/build.err" 2>&1; then
	tap_not_ok "$name: nvcc builds it"
	sed 's/^/# /' "$work/build.err"
	tap_end
	exit
fi

CUMC_LOG=1 "$work/prog" >"$work/out" 2>"$work/log"
rc=$?
# The program's own last line: NCCL_DEBUG, when set, prints after it.
last=$(grep '^nccl allreduce: ' "$work/out" | tail -1)
# NCCL's loss of its kernels: the runtime's "no kernel image" error from
# NCCL's first call, after libcumc found no PTX for compute_90 or lower.
if [ "$rc" = 2 ] &&
   [[ "$last" == "nccl allreduce: stopped at ncclCommInitAll("*"no kernel image is available"* ]] &&
   grep -q "no PTX for compute_90 or lower" "$work/log"; then
	tap_skip "$name" "NCCL's kernels cannot load: $last"
elif [ "$rc" = 0 ] && [ "$last" = "nccl allreduce: right" ]; then
	tap_ok "$name: $last"
else
	tap_not_ok "$name: exit $rc, $last"
	sed 's/^/# /' "$work/out"
	tail -20 "$work/log" | sed 's/^/# log: /'
fi
tap_end
