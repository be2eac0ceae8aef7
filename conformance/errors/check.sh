#!/bin/bash
# SPDX-License-Identifier: MIT
#
# cuGetErrorName and cuGetErrorString as NVIDIA's driver answers them:
# build error_strings.c against the toolkit's cuda.h and its -lcuda stub,
# run it on libcumc as libcuda.so.1 (build/cuda), and compare each line
# with the one recorded on the real driver (the newest <driver>.tsv here,
# by conformance/record.sh). One difference is on purpose: a NULL output
# pointer crashes NVIDIA's driver and is refused by libcumc with
# CUDA_ERROR_INVALID_VALUE (1). The calls need no device: this runs on the
# host. One TAP line per recorded line.

# $CC and $CFLAGS are option lists, split into words on purpose.
# shellcheck disable=SC2086

set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
CC=${CC:-cc}
CFLAGS="-std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE"

# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"
need_cuda_toolkit_stubs

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

recorded=$(ls "$here"/*.tsv | sort -V | tail -1)
grep -v '^#' "$recorded" |
	sed 's/^null\tsignal 11\tsignal 11$/null\t1\t1/' >"$work/expected"

echo "TAP version 13"
if ! $CC $CFLAGS -I"$toolkit_include" -o "$work/error_strings" \
		"$here/error_strings.c" -L"$stubs" -lcuda 2>"$work/cc.err"; then
	tap_not_ok "error_strings.c builds against the toolkit's cuda.h and -lcuda"
	sed 's/^/# /' "$work/cc.err"
	tap_end
	exit 1
fi
LD_LIBRARY_PATH=$top/build/cuda "$work/error_strings" >"$work/actual"
tap_result $? "error_strings ran on libcumc as libcuda.so.1"

while IFS= read -r want; do
	key=${want%%$'\t'*}
	got=$(awk -F '\t' -v key="$key" '$1 == key { print; exit }' "$work/actual")
	if [ "$got" = "$want" ]; then
		tap_ok "$(tr '\t' ' ' <<<"$want")"
	else
		tap_not_ok "value $key: libcumc answers '$got', NVIDIA's driver '$want'"
	fi
done <"$work/expected"
extra=$(cut -f1 "$work/actual" | grep -vxF -f <(cut -f1 "$work/expected"))
[ -z "$extra" ]
tap_result $? "libcumc knows no value NVIDIA's driver does not" ||
	echo "$extra" | sed 's/^/# also known to libcumc: /'
tap_end
