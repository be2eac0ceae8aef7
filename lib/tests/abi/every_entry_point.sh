#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Every function the CUDA toolkit's cuda.h declares is exported by
# libcumc, resolved by cuGetProcAddress and answers invalid arguments
# without crashing or hanging (every_entry_point.c; one TAP line a
# function). The list is made from the installed toolkit's cuda.h at run
# time: the declarations outside its __CUDA_API_VERSION_INTERNAL block of
# old ABIs, each with the symbol cuda.h's macros link it to. Needs
# /dev/cumc, so it runs in the VM; skips without a toolkit.

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

awk '/^#if defined\(__CUDA_API_VERSION_INTERNAL\)$/ { exit } { print }' \
	"$toolkit_include/cuda.h" |
	grep -oE 'CUresult CUDAAPI cu[A-Za-z0-9_]+' | awk '{ print $3 }' |
	sort -u >"$work/names"
[ -s "$work/names" ] || tap_skip_all "no functions found in $toolkit_include/cuda.h"
# The symbol of each: the name as cuda.h's macros expand it.
{
	echo "#include <cuda.h>"
	sed 's/.*/@@ "&" &/' "$work/names"
} >"$work/names.c"
if ! $CC -E -I"$toolkit_include" "$work/names.c" 2>"$work/cpp.err" |
		sed -n 's/^@@ "\([^"]*\)" \([A-Za-z0-9_]*\)$/\1 \2/p' >"$work/list"; then
	echo "Bail out! cannot read $toolkit_include/cuda.h"
	sed 's/^/# /' "$work/cpp.err"
	exit 1
fi
if ! $CC $CFLAGS -I"$toolkit_include" -o "$work/every_entry_point" \
		"$here/every_entry_point.c" -ldl 2>"$work/cc.err"; then
	echo "Bail out! every_entry_point.c does not build"
	sed 's/^/# /' "$work/cc.err"
	exit 1
fi
echo "# $(wc -l <"$work/list") functions of $toolkit_include/cuda.h"
"$work/every_entry_point" <"$work/list"
