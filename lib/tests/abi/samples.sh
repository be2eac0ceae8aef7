#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Programs in the shape of the CUDA samples' driver-API programs with
# kernels, built as their users build them: the host code against the
# toolkit's cuda.h and its -lcuda stub with nothing of cumc's, each kernel
# by the toolkit's nvcc for compute_90 (PTX, which cumc runs):
# sample_vector_add_drv.c (vectorAddDrv: cuModuleLoad of a fatbin, on every
# device), sample_vector_add_mmap.c (vectorAddMMAP: the fatbin built into
# the program with bin2c, cuModuleLoadData, over buffers striped across the
# devices) and sample_mem_map_ipc.c (memMapIPCDrv: one process per device,
# each loading the PTX with cuModuleLoad and filling its peers' shared
# memory with the kernel). Each runs on libcumc as libcuda.so.1
# (scripts/vm-run's library path) and passes its own element-by-element
# checks or fails. Needs /dev/cumc, so it runs in the VM; skips without a
# toolkit or its nvcc.

# $CC and $CFLAGS are option lists, split into words on purpose.
# shellcheck disable=SC2086

set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
CC=${CC:-cc}
CFLAGS="-std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE"
samples="vector_add_drv vector_add_mmap mem_map_ipc"

# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"
mode=${1:-}
need_cuda_toolkit_stubs
[ "$mode" = --build ] || tap_need_vm_root
bin=$(cd "$toolkit_include/../bin" && pwd)
if [ ! -x "$bin/nvcc" ] || [ ! -x "$bin/bin2c" ]; then
	for sample in $samples; do
		tap_skip "$sample" "no nvcc and bin2c in $bin"
	done
	tap_end
	exit
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
built=$top/build/samples

# build NAME CMD...: run the build step CMD, or a not-ok line with its
# output; with --build, an ok line too.
build() {
	local name=$1

	shift
	if ! "$@" >"$work/build.err" 2>&1; then
		tap_not_ok "$name"
		sed 's/^/# /' "$work/build.err"
		return 1
	fi
	[ "$mode" != --build ] || tap_ok "$name"
}

# build_all DIR: every kernel and program into DIR. The kernels: a fatbin
# of compute_90 PTX (nvcc compresses it, as by default), the same as a C
# array, and PTX text.
build_all() {
	local nvcc_90="$bin/nvcc -gencode arch=compute_90,code=compute_90" sample

	build "nvcc builds sample_vector_add.cu into a fatbin" \
		$nvcc_90 -fatbin -o "$1/vector_add.fatbin" "$here/sample_vector_add.cu" &&
	build "bin2c makes it a C array" \
		sh -c "'$bin/bin2c' -c --name vector_add_fatbin --type longlong \
			'$1/vector_add.fatbin' >'$1/vector_add_fatbin.c'" &&
	build "nvcc builds sample_mem_map_ipc.cu into PTX" \
		$nvcc_90 -ptx -o "$1/mem_map_ipc.ptx" "$here/sample_mem_map_ipc.cu" ||
		return 1
	local -A sources=([vector_add_mmap]="$1/vector_add_fatbin.c")
	for sample in $samples; do
		build "$sample builds against the toolkit alone, with its -lcuda" \
			$CC $CFLAGS -I"$toolkit_include" -o "$1/$sample" \
			"$here/sample_$sample.c" ${sources[$sample]-} -L"$stubs" -lcuda ||
			rm -f "$1/$sample"
	done
}

# make check's host lane (samples_build.sh) builds them into build/samples
# before its VMs boot: nvcc takes ten times as long under TCG. The run in
# the VM takes them from there when they are newer than every source, and
# otherwise builds them itself.
if [ "$mode" = --build ]; then
	rm -rf "$built"
	mkdir -p "$built"
	build_all "$built" && touch "$built/done"
	tap_end
	exit
fi
out=$built
if [ ! -e "$built/done" ] ||
   [ -n "$(find "$here" -maxdepth 1 -name 'sample_*' -newer "$built/done")" ]; then
	out=$work
	build_all "$out" || { tap_end; exit; }
fi

declare -A kernels=(
	[vector_add_drv]="$out/vector_add.fatbin"
	[vector_add_mmap]=""
	[mem_map_ipc]="$out/mem_map_ipc.ptx"
)
for sample in $samples; do
	[ -x "$out/$sample" ] || continue
	"$out/$sample" ${kernels[$sample]} >"$work/out" 2>&1
	tap_result $? "$sample: $(tail -1 "$work/out")" || sed 's/^/# /' "$work/out"
done
tap_end
