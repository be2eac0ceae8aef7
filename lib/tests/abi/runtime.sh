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
# device); each ends "...: right". Needs /dev/cumc, so it runs in the VM;
# skips without a toolkit or its nvcc.

set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
program=$top/conformance/export_tables/vector_add.cu

# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"
need_nvcc
tap_need_vm_root

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

nvcc=("$toolkit/bin/nvcc" -gencode "arch=compute_90,code=compute_90")

# compile NAME SOURCE: SOURCE into $work/NAME.o, or a not-ok line.
compile() {
	"${nvcc[@]}" -c -o "$work/$1.o" "$2" >"$work/build.err" 2>&1 && return
	tap_not_ok "$1.cu: nvcc compiles it"
	sed 's/^/# /' "$work/build.err"
	return 1
}

# run NAME MODE LAST: link $work/NAME.o with the MODE runtime, run it,
# and pass when it exits 0 with LAST as its last line.
run() {
	local name="$1.cu, $2 runtime" rc

	if ! "${nvcc[@]}" -cudart "$2" -o "$work/prog" "$work/$1.o" \
		>"$work/build.err" 2>&1; then
		tap_not_ok "$name: nvcc links it"
		sed 's/^/# /' "$work/build.err"
		return
	fi
	LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$toolkit/lib64 \
		"$work/prog" >"$work/out" 2>&1
	rc=$?
	[ "$rc" = 0 ] && [ "$(tail -1 "$work/out")" = "$3" ]
	tap_result $? "$name: $(tail -1 "$work/out")" || sed 's/^/# /' "$work/out"
}

# The vector add's object once, linked with each runtime.
if compile vector_add "$program"; then
	run vector_add shared 'vector add: right (no error)'
	run vector_add static 'vector add: right (no error)'
fi
compile runtime_peers "$here/runtime_peers.cu" &&
	run runtime_peers static 'runtime peers: right'
compile runtime_ipc "$here/runtime_ipc.cu" &&
	run runtime_ipc static 'runtime ipc: right'
compile runtime_multicast "$here/runtime_multicast.cu" &&
	run runtime_multicast static 'runtime multicast: right'
tap_end
