#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Conformance with NVIDIA's driver: build probe.c against the CUDA
# toolkit's own cuda.h, linked with its -lcuda stub, run it on libcumc
# (as libcuda.so.1, on the library path scripts/vm-run sets) and compare
# every answer with the one recorded on the real driver
# (answers/<version>.txt, by record.sh).  Where cumc answers otherwise on
# purpose, differences.txt gives cumc's answer and why; that answer is
# then the one checked.  One TAP line per recorded answer.  Needs
# /dev/cumc, so it runs in the VM; skips without a toolkit.

# $CC and $CFLAGS are option lists, split into words on purpose.
# shellcheck disable=SC2086

set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
CC=${CC:-cc}
CFLAGS="-std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -pthread"

# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"
need_cuda_toolkit_stubs
tap_need_vm_root

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The answers to hold libcumc to: the recorded ones, cumc's own where
# differences.txt names a probe.
strip() { sed -e 's/[[:space:]]*#.*//' -e '/^$/d' "$@"; }
recorded=$(ls "$here"/answers/*.txt | sort -V | tail -1)
strip "$recorded" >"$work/recorded"
strip "$here/differences.txt" >"$work/differences"
awk -F ' = ' 'NR == FNR { ours[$1] = $0; next }
	{ print ($1 in ours) ? ours[$1] : $0 }' \
	"$work/differences" "$work/recorded" >"$work/expected"

if ! $CC $CFLAGS -I"$toolkit_include" -o "$work/probe" "$here/probe.c" \
		-L"$stubs" -lcuda 2>"$work/cc.err"; then
	tap_not_ok "probe.c builds against the toolkit's cuda.h and -lcuda"
	sed 's/^/# /' "$work/cc.err"
	tap_end
	exit 1
fi
"$work/probe" >"$work/actual" 2>"$work/probe.err"
tap_result $? "the probes ran on libcumc as libcuda.so.1" ||
	sed 's/^/# /' "$work/probe.err"

# Every probe has a recorded answer: a new one needs record.sh first.
"$work/probe" --list | sort >"$work/names"
missing=$(cut -d' ' -f1 "$work/recorded" | sort | comm -23 "$work/names" -)
[ -z "$missing" ]
tap_result $? "every probe has an answer recorded in $(basename "$recorded")" ||
	echo "$missing" | sed 's/^/# no answer recorded: /'

# The answers by name, the first of each: read once, without a process per
# answer (hundreds of them cost minutes under TCG).
declare -A answer
while IFS= read -r line; do
	name=${line%% = *}
	[ "$name" = "$line" ] || [ -n "${answer[$name]+set}" ] ||
		answer[$name]=${line#* = }
done <"$work/actual"

matched=0 differ=0
while IFS= read -r line; do
	name=${line%% = *}
	want=${line#* = }
	got=${answer[$name]-}
	if [ "$got" = "$want" ]; then
		tap_ok "$name = $want"
		matched=$((matched + 1))
	else
		tap_not_ok "$name: libcumc answers '$got', expected '$want'"
		differ=$((differ + 1))
	fi
done <"$work/expected"
echo "# $matched answers as expected ($(strip "$here/differences.txt" | wc -l) of them documented differences), $differ not"
tap_end
