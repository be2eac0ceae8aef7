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
# fails; one object, compiled once, is linked both ways. Then, built
# with plain nvcc (the static runtime), each checking every result:
# runtime_peers.cu (on every GPU the runtime reports, at least two; the VM
# has 8: peer access between every pair, cudaMemcpyPeer round the ring of
# devices, streams and events across all, a captured graph on each, a
# driver entry point and cudaDeviceReset of each), runtime_ipc.cu (device
# memory shared with an exec'd child through cudaIpcGetMemHandle and
# cudaIpcOpenMemHandle, written by both, each waiting for the other's
# kernel through an event shared with cudaIpcGetEventHandle) and
# runtime_multicast.cu (a multicast team of every device set up through
# the driver functions cudaGetDriverEntryPointByVersion hands out,
# all-reduced by a kernel of multimem instructions in inline PTX on each
# device) and runtime_symbols.cu (__constant__ and __device__ tables
# written and read with cudaMemcpyToSymbol and cudaMemcpyFromSymbol around
# a kernel, and through cudaGetSymbolAddress); each ends "...: right".
# The shared-runtime vector add runs a second time on libcudart.so.13 from
# PyPI's nvidia-cuda-runtime wheel (in the environment of
# scripts/python-env, which make check makes on the host; without it that
# run fails).
# Needs /dev/cumc, so it runs in the VM;
# skips without a toolkit or its nvcc.
#
# With --build (make check's host lane, before its VMs), it only builds the
# programs, here, into build/runtime-progs, saying which built: nvcc takes
# more than ten times as long in the VM. The run in the VM takes each from
# there when it is newer than its source and runtime_check.h; otherwise it
# builds it itself.

set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
vector_add=$top/conformance/export_tables/vector_add.cu
built=$top/build/runtime-progs

# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"
need_nvcc
[ "${1:-}" = --build ] || tap_need_vm_root

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

nvcc=("$toolkit/bin/nvcc" -gencode "arch=compute_90,code=compute_90")

# Each program: its source, the runtime it links (nvcc's -cudart) and the
# last line it says when all was right. The vector add's object is
# compiled once and linked both ways.
programs="vector_add_shared vector_add_pypi vector_add_static runtime_peers runtime_ipc
	runtime_multicast runtime_symbols"
declare -A source=(
	[vector_add_shared]=$vector_add [vector_add_pypi]=$vector_add
	[vector_add_static]=$vector_add
	[runtime_peers]=$here/runtime_peers.cu [runtime_ipc]=$here/runtime_ipc.cu
	[runtime_multicast]=$here/runtime_multicast.cu
	[runtime_symbols]=$here/runtime_symbols.cu
)
declare -A cudart=(
	[vector_add_shared]=shared [vector_add_pypi]=shared [vector_add_static]=static
	[runtime_peers]=static [runtime_ipc]=static [runtime_multicast]=static
	[runtime_symbols]=static
)
declare -A last=(
	[vector_add_shared]='vector add: right (no error)'
	[vector_add_pypi]='vector add: right (no error)'
	[vector_add_static]='vector add: right (no error)'
	[runtime_peers]='runtime peers: right' [runtime_ipc]='runtime ipc: right'
	[runtime_multicast]='runtime multicast: right'
	[runtime_symbols]='runtime symbols: right'
)

# build DIR NAME: NAME's program into DIR/NAME, or a not-ok line.
build() {
	local object linked
	object=$1/$(basename "${source[$2]}" .cu).o

	if [ ! -f "$object" ] &&
	   ! "${nvcc[@]}" -c -o "$object" "${source[$2]}" >"$work/build.err" 2>&1; then
		tap_not_ok "$2: nvcc compiles $(basename "${source[$2]}")"
		sed 's/^/# /' "$work/build.err"
		return 1
	fi
	# Linked once per object and runtime, as compiled once per source:
	# vector_add_pypi's program is vector_add_shared's, the same file.
	linked=$object.${cudart[$2]}
	if [ ! -f "$linked" ] &&
	   ! "${nvcc[@]}" -cudart "${cudart[$2]}" -o "$linked" "$object" \
		>"$work/build.err" 2>&1; then
		tap_not_ok "$2: nvcc links it with the ${cudart[$2]} runtime"
		sed 's/^/# /' "$work/build.err"
		return 1
	fi
	ln -f "$linked" "$1/$2"
}

if [ "${1:-}" = --build ]; then
	rm -rf "$built"
	mkdir -p "$built"
	for name in $programs; do
		build "$built" "$name" &&
			tap_ok "$name: nvcc builds it with the ${cudart[$name]} runtime"
	done
	tap_end
	exit
fi

# runtime_dir NAME: libdir, where NAME finds libcudart.so.13 (the shared
# runtime), and whose it is: the toolkit's, or for vector_add_pypi the
# wheel's; or a not-ok line.
runtime_dir() {
	local venv

	libdir=$toolkit/lib64 whose="the toolkit's"
	[ "$1" = vector_add_pypi ] || return 0
	whose="PyPI's nvidia-cuda-runtime"
	if ! venv=$("$top/scripts/python-env" --check 2>&1); then
		tap_not_ok "$1: the environment of scripts/python-env exists"
		echo "# $venv"
		return 1
	fi
	libdir=$(echo "$venv"/lib/python3*/site-packages/nvidia/cu13/lib)
	[ -f "$libdir/libcudart.so.13" ] && return
	tap_not_ok "$1: nvidia-cuda-runtime's libcudart.so.13 in $venv"
	return 1
}

for name in $programs; do
	# The host's build, when it is newer than the sources; else our own.
	program=$built/$name
	if ! [ "$program" -nt "${source[$name]}" ] ||
	   ! [ "$program" -nt "$here/runtime_check.h" ]; then
		build "$work" "$name" || continue
		program=$work/$name
	fi
	runtime_dir "$name" || continue
	# libdir first: the shared runtime is its own, not another on the path
	# (it holds no libcuda.so.1 to come before libcumc's).
	path=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	if [ "${cudart[$name]}" = shared ] &&
	   ! LD_LIBRARY_PATH=$path ldd "$program" | grep -q "libcudart.so.13 => $libdir/"; then
		tap_not_ok "$name: runs on $libdir/libcudart.so.13"
		continue
	fi
	LD_LIBRARY_PATH=$path "$program" >"$work/out" 2>&1
	rc=$?
	[ "$rc" = 0 ] && [ "$(tail -1 "$work/out")" = "${last[$name]}" ]
	runtime="${cudart[$name]} runtime"
	[ "${cudart[$name]}" = static ] || runtime="shared runtime, $whose"
	tap_result $? "$name, $runtime: $(tail -1 "$work/out")" ||
		sed 's/^/# /' "$work/out"
done
tap_end
