#!/bin/bash
# SPDX-License-Identifier: MIT
#
# libcumc as libcuda.so.1 (build/cuda/libcuda.so.1), as a program built
# the usual way finds it: libcuda_vmm.c built against the CUDA toolkit's
# cuda.h and linked with its -lcuda stub, nothing of cumc's; and
# libcuda_loader.c, which dlopen()s libcuda.so.1 and takes every entry
# point from cuGetProcAddress_v2; libcuda_streams.c, built as is and for
# per-thread default streams. Run by scripts/vm-run, which puts
# build/cuda on the library path: both must run on libcumc. Without that
# path, build/cuda must not be found: libcumc never shadows a driver by
# default. Needs /dev/cumc, so it runs in the VM; skips without a toolkit
# (found as abi_check.sh finds it: $CUDA_HOME, else nvcc on PATH).

# $CC and $CFLAGS are option lists, split into words on purpose.
# shellcheck disable=SC2086

set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
CC=${CC:-cc}
CFLAGS="-std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE"

# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"
toolkit_include=$(cuda_toolkit_include)
[ -n "$toolkit_include" ] ||
	tap_skip_all "no CUDA toolkit (set CUDA_HOME or put nvcc on PATH)"
stubs=
for d in "$toolkit_include/../lib64/stubs" "$toolkit_include/../lib/stubs"; do
	[ -e "$d/libcuda.so" ] && stubs=$(cd "$d" && pwd) && break
done
[ -n "$stubs" ] || tap_skip_all "the toolkit at $toolkit_include/.. has no stubs/libcuda.so"
tap_need_vm_root

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ours=$(readlink -f "$top/build/cuda/libcuda.so.1")

tap_plan 7
# Only the toolkit: the programs must not see include/cumc or build/.
$CC $CFLAGS -I"$toolkit_include" -o "$work/vmm" "$here/libcuda_vmm.c" \
	-L"$stubs" -lcuda 2>"$work/cc.err" &&
	$CC $CFLAGS -I"$toolkit_include" -o "$work/loader" \
		"$here/libcuda_loader.c" -ldl 2>>"$work/cc.err"
tap_result $? "both build against the toolkit alone, one with its -lcuda" ||
	sed 's/^/# /' "$work/cc.err"

readelf -d "$work/vmm" 2>/dev/null | grep -q 'NEEDED.*\[libcuda\.so\.1\]' &&
	! readelf -d "$work/vmm" | grep -q 'libcumc'
tap_result $? "the linked program needs libcuda.so.1, and nothing of cumc's"

found=$(ldd "$work/vmm" | awk '$1 == "libcuda.so.1" && $3 != "not" { print $3 }')
[ -n "$found" ] && [ "$(readlink -f "$found")" = "$ours" ]
tap_result $? "on vm-run's library path, libcuda.so.1 is libcumc ($found)"

"$work/vmm" >"$work/vmm.out" 2>&1
tap_result $? "the program linked with -lcuda runs, unchanged: a VMM round trip" ||
	sed 's/^/# /' "$work/vmm.out"

"$work/loader" >"$work/loader.out" 2>&1
tap_result $? "dlopen(libcuda.so.1) and cuGetProcAddress_v2 find and run entry points" ||
	sed 's/^/# /' "$work/loader.out"

# Streams, built as is and for per-thread default streams (_ptds, _ptsz).
ok=0
for mode in legacy ptds; do
	defs=
	[ $mode = ptds ] && defs=-DCUDA_API_PER_THREAD_DEFAULT_STREAM
	if ! $CC $CFLAGS $defs -I"$toolkit_include" -o "$work/streams_$mode" \
			"$here/libcuda_streams.c" -L"$stubs" -lcuda >"$work/streams.out" 2>&1 ||
			! "$work/streams_$mode" >>"$work/streams.out" 2>&1; then
		ok=1
		break
	fi
done
tap_result $ok "a stream program runs, built as is and with per-thread default streams" ||
	sed 's/^/# /' "$work/streams.out"

found=$(env -u LD_LIBRARY_PATH ldd "$work/vmm" | awk '$1 == "libcuda.so.1" && $3 != "not" { print $3 }')
[ -z "$found" ] || [ "$(readlink -f "$found")" != "$ours" ]
tap_result $? "off that path libcumc is not libcuda.so.1 (found: ${found:-none})"
tap_status
