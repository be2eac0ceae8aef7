#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The host code of the CUDA samples' VMM examples on libcumc:
# sample_vector_add_mmap.c (vectorAddMMAP) and sample_mem_map_ipc.c
# (memMapIPCDrv), built as their users build them, against the toolkit's
# cuda.h and its -lcuda stub with nothing of cumc's, kernel launches
# replaced by CPU loops, run on libcumc as libcuda.so.1 (scripts/vm-run's
# library path). Each passes its own checks or fails. Needs /dev/cumc, so
# it runs in the VM; skips without a toolkit.

# $CC and $CFLAGS are option lists, split into words on purpose.
# shellcheck disable=SC2086

set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
CC=${CC:-cc}
CFLAGS="-std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE"

# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"
need_cuda_toolkit_stubs
tap_need_vm_root

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for sample in vector_add_mmap mem_map_ipc; do
	if ! $CC $CFLAGS -I"$toolkit_include" -o "$work/$sample" \
			"$here/sample_$sample.c" -L"$stubs" -lcuda 2>"$work/cc.err"; then
		tap_not_ok "$sample builds against the toolkit alone, with its -lcuda"
		sed 's/^/# /' "$work/cc.err"
		continue
	fi
	"$work/$sample" >"$work/out" 2>&1
	tap_result $? "$sample: $(tail -1 "$work/out")" || sed 's/^/# /' "$work/out"
done
tap_end
