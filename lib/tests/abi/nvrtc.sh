#!/bin/bash
# SPDX-License-Identifier: MIT
#
# NVRTC on libcumc: the toolkit's libnvrtc, with build/cuda on the library
# path as scripts/vm-run sets it, compiles a kernel to PTX
# (nvrtc_compile.c). NVRTC initializes the libcuda.so.1 it finds and asks
# it for cuGetExportTable; libcumc lacking that name made every compile
# crash. Needs /dev/cumc (cuInit must succeed for NVRTC to go that far),
# so it runs in the VM; skips without a toolkit or its NVRTC.

# $CC and $CFLAGS are option lists, split into words on purpose.
# shellcheck disable=SC2086

set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
CC=${CC:-cc}
CFLAGS="-std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE"

# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"
need_cuda_toolkit_stubs
tap_need_vm_root
nvrtc_dir=$(cd "$toolkit_include/.." && pwd)/lib64
[ -e "$nvrtc_dir/libnvrtc.so" ] || tap_skip_all "no libnvrtc.so in $nvrtc_dir"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

tap_plan 3
$CC $CFLAGS -I"$toolkit_include" -o "$work/nvrtc_compile" \
	"$here/nvrtc_compile.c" -L"$nvrtc_dir" -lnvrtc 2>"$work/cc.err"
tap_result $? "nvrtc_compile.c builds against the toolkit's nvrtc.h and libnvrtc" ||
	sed 's/^/# /' "$work/cc.err"

LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$nvrtc_dir \
	"$work/nvrtc_compile" >"$work/out" 2>&1
tap_result $? "NVRTC compiles a kernel to PTX on libcumc as libcuda.so.1" ||
	sed 's/^/# /' "$work/out"
grep -q "with the entry twice" "$work/out"
tap_result $? "the PTX has the kernel's entry ($(head -n 1 "$work/out"))"
