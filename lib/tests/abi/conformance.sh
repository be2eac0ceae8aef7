#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Build conformance.c against the CUDA toolkit's own cuda.h, link it to
# build/libcumc.so and run it; it prints TAP.  Needs /dev/cumc, so it runs
# in the VM.  Skips when there is no toolkit (found as abi_check.sh finds
# it: $CUDA_HOME, else nvcc on PATH).

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
if [ -z "$toolkit_include" ]; then
	echo "ok 1 conformance against the toolkit's cuda.h # SKIP no CUDA toolkit (set CUDA_HOME or put nvcc on PATH)"
	exit 0
fi
if [ ! -e "$top/build/libcumc.so" ]; then
	echo "not ok 1 conformance: $top/build/libcumc.so missing (run make)"
	exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Only the toolkit's headers: the program must not see include/cumc.
if ! $CC $CFLAGS -I"$toolkit_include" -o "$work/conformance" \
		"$here/conformance.c" -L"$top/build" -Wl,-rpath,"$top/build" \
		-lcumc -ldl; then
	echo "not ok 1 conformance: does not build against $toolkit_include/cuda.h"
	exit 1
fi
"$work/conformance"
