#!/bin/bash
# SPDX-License-Identifier: MIT
#
# NCCL on libcumc (Documentation/runtime.md, "NCCL"): nccl_allreduce.cu,
# built with plain nvcc, makes a communicator for every GPU
# (ncclCommInitAll) and all-reduces a buffer over them, checking every sum.
#
# - Against PyPI's nvidia-nccl-cu12 2.21.5 (scripts/python-env): its
#   device code is relocatable PTX for compute_90, which cumc links and
#   runs. Two rounds in one process, NCCL's own choice of algorithm and
#   NVLS (NCCL_ALGO=NVLS, with NCCL_NVLS_ENABLE=1), each must be right,
#   and NCCL's log must show its NVLS path: multicast buffers set up and
#   the all-reduce tuned to algorithm 4 (NVLS). Two channels, so that
#   the interpreter's share stays small under TCG.
# - Against the toolkit's NCCL 2.28: machine code and compute_120 PTX
#   only, which cumc cannot run. That stop, and only it, is a SKIP naming
#   it; a crash, a wrong sum or any other error fails.
#
# --build (make check's host lane, nccl_build.sh): builds the programs into
# build/nccl, where nvcc is ten times faster than under TCG. Without it
# (in the VM, as root: NCCL's bootstrap needs lo up, the guest's only
# interface) runs them. Skips without a toolkit and its nvcc.

set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)

# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"
mode=${1:-}
need_nvcc
[ "$mode" = --build ] || tap_need_vm_root

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
built=$top/build/nccl

# nccl_dirs NAME: include and lib, NAME's NCCL; false when there is none.
nccl_dirs() {
	local venv dir

	if [ "$1" = pypi ]; then
		venv=$("$top/scripts/python-env" --check 2>/dev/null) || return 1
		dir=$(echo "$venv"/lib/python3*/site-packages/nvidia/nccl)
		include=$dir/include lib=$dir/lib
	else
		include=$toolkit_include lib=
		for dir in "$toolkit/lib64" "$toolkit/lib"; do
			[ -e "$dir/libnccl.so.2" ] && lib=$dir && break
		done
	fi
	[ -f "$include/nccl.h" ] && [ -n "$lib" ] && [ -e "$lib/libnccl.so.2" ]
}

declare -A whose=([pypi]="PyPI's nvidia-nccl-cu12" [toolkit]="the toolkit's NCCL")

if [ "$mode" = --build ]; then
	rm -rf "$built"
	mkdir -p "$built"
	for name in pypi toolkit; do
		if ! nccl_dirs $name; then
			tap_skip "nccl_allreduce against ${whose[$name]}" "no NCCL there"
			continue
		fi
		if "$toolkit/bin/nvcc" -gencode "arch=compute_90,code=compute_90" \
			-o "$built/allreduce_$name" "$here/nccl_allreduce.cu" \
			-I"$include" -L"$lib" -l:libnccl.so.2 \
			-Xlinker -rpath="$lib" >"$work/build.err" 2>&1; then
			tap_ok "nccl_allreduce: nvcc builds it against ${whose[$name]}"
		else
			tap_not_ok "nccl_allreduce: nvcc builds it against ${whose[$name]}"
			sed 's/^/# /' "$work/build.err"
		fi
	done
	tap_end
	exit
fi

ip link set lo up
export NCCL_SOCKET_IFNAME=lo

# PyPI's NCCL: both rounds right, and the NVLS round on NVLS.
name="NCCL 2.21.5 (PyPI) on every GPU"
if [ ! -x "$built/allreduce_pypi" ]; then
	tap_skip "$name" "not built (no nvidia-nccl-cu12 in scripts/python-env)"
else
	CUMC_LOG=1 NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NVLS,TUNING \
	NCCL_NVLS_ENABLE=1 NCCL_MAX_NCHANNELS=2 NCCL_NVLS_NCHANNELS=2 \
		"$built/allreduce_pypi" - NVLS >"$work/out" 2>"$work/log"
	rc=$?
	last=$(grep '^nccl allreduce: ' "$work/out" | tail -1)
	if [ "$rc" = 0 ] && [ "$last" = "nccl allreduce: right" ]; then
		tap_ok "$name: $last"
	else
		tap_not_ok "$name: exit $rc, $last"
		grep -v 'NCCL INFO' "$work/out" | sed 's/^/# /'
		grep -v 'JIT: kernel' "$work/log" | tail -20 | sed 's/^/# log: /'
	fi
	tap_check "$name: NCCL's choice of algorithm right" \
		grep -qx "nccl allreduce (NCCL's choice): right" "$work/out"
	tap_check "$name: NVLS right" \
		grep -qx "nccl allreduce (NVLS): right" "$work/out"
	tap_check "$name: NCCL maps its NVLS multicast buffers" \
		grep -q 'NCCL INFO NVLS Mapped MC buffer' "$work/out"
	tap_check "$name: NCCL tunes the NVLS round to NVLS (algorithm 4)" \
		grep -q 'NCCL INFO [0-9]* Bytes -> Algo 4 ' "$work/out"
	tap_check "$name: libcumc runs its relocatable PTX" \
		grep -q "relocatable objects' PTX linked instead" "$work/log"
fi

# The toolkit's NCCL: the stop, as a SKIP naming it.
name="NCCL 2.28 (the toolkit's) on every GPU"
if [ ! -x "$built/allreduce_toolkit" ]; then
	tap_skip "$name" "not built (no NCCL in the toolkit at $toolkit)"
else
	CUMC_LOG=1 "$built/allreduce_toolkit" >"$work/out" 2>"$work/log"
	rc=$?
	last=$(grep '^nccl allreduce: ' "$work/out" | tail -1)
	if [ "$rc" = 2 ] &&
	   [[ "$last" == "nccl allreduce: stopped at ncclCommInitAll("*"no kernel image is available"* ]] &&
	   grep -q "no PTX for compute_90 or lower" "$work/log"; then
		tap_skip "$name" "its device code is compute_120 PTX and machine code: $last"
	elif [ "$rc" = 0 ] && [ "$last" = "nccl allreduce: right" ]; then
		tap_ok "$name: $last"
	else
		tap_not_ok "$name: exit $rc, $last"
		sed 's/^/# /' "$work/out"
		tail -20 "$work/log" | sed 's/^/# log: /'
	fi
fi
tap_end
