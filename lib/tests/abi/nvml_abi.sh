#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Check cumc's NVML against NVIDIA's nvml.h (nvidia-nvml-dev, pinned in
# scripts/python-requirements.txt; scripts/nvml-header installs it when
# missing):
#   1. nvml_abi_list.h names every constant and enumerator of
#      include/cumc/nvml.h;
#   2. their values, and the sizes, alignments, offsets and signs of its
#      types, hold as _Static_asserts compiled against NVIDIA's header, and
#      the unversioned names link to the same symbols through both;
#   3. its prototypes compile next to NVIDIA's (C and C++);
#   4. nvml/unsupported.h is what nvml/gen-unsupported.py makes of the
#      pinned header: the list has not drifted;
#   5. build/cuda/libnvidia-ml.so.1 exports every function NVIDIA's
#      header declares.
# Prints one TAP result; exit status 0 pass, 1 fail.

# $CC and $CFLAGS are option lists, split into words on purpose.
# shellcheck disable=SC2086

set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
ours="$top/include/cumc/nvml.h"
list="$here/nvml_abi_list.h"
lib="$top/build/cuda/libnvidia-ml.so.1"
CC=${CC:-cc}
CXX=${CXX:-c++}
CFLAGS="-std=c11 -Wall -Wextra -Werror -pedantic"
# NVIDIA's header has enumerators past int's range: not -pedantic there.
NV_CFLAGS="-std=c11 -Wall -Wextra -Werror"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0

fail() {
	echo "nvml_abi: FAIL: $*"
	failed=1
}

if ! theirs=$("$top/scripts/nvml-header"); then
	echo "not ok 1 nvml.h matches NVIDIA's ABI # no nvidia-nvml-dev header"
	exit 1
fi
inc=$(dirname "$theirs")

# 1. Coverage.
{
	grep -E '^[[:space:]]+NVML_[A-Z0-9_]+[[:space:]]*(=|,|$)' "$ours" |
		sed -E 's/^[[:space:]]+([A-Za-z0-9_]+).*/\1/'
	sed -nE 's/^#define (NVML_[A-Z0-9_]+)[[:space:]]+\(?-?[0-9].*/\1/p' "$ours"
	sed -nE 's/^#define (nvml[A-Za-z0-9_]+_v[0-9]+) NVML_STRUCT_VERSION.*/\1/p' "$ours"
} | sort -u >"$work/values"
[ -s "$work/values" ] || fail "no constants found in $ours"
while read -r name; do
	grep -qx "ABI_VALUE($name)" "$list" ||
		fail "$name is missing from nvml_abi_list.h"
done <"$work/values"

# 2. The facts, compile-time checked against NVIDIA's header.
if $CC $CFLAGS -I"$top/include/cumc" "$here/nvml_abi_facts.c" \
		-o "$work/facts_cumc" 2>"$work/build.log" &&
		$CC $NV_CFLAGS -I"$inc" "$here/nvml_abi_facts.c" \
		-o "$work/facts_nvidia" 2>>"$work/build.log"; then
	"$work/facts_cumc" >"$work/asserts.c"
	if ! $CC $NV_CFLAGS -I"$inc" -fsyntax-only "$work/asserts.c"; then
		fail "a value or layout of $ours differs from $theirs"
	fi
	"$work/facts_cumc" --names >"$work/names_cumc"
	"$work/facts_nvidia" --names >"$work/names_nvidia"
	diff -u --label "NVIDIA $theirs" --label "cumc $ours" \
		"$work/names_nvidia" "$work/names_cumc" ||
		fail "an unversioned name links to another symbol"
else
	cat "$work/build.log"
	fail "nvml_abi_facts.c does not build"
fi

# 3. Our prototypes next to NVIDIA's, old names included.
{
	echo "#include <nvml.h>"
	sed -n '/BEGIN PROTOTYPES/,/END PROTOTYPES/p' "$ours"
} >"$work/protos.c"
$CC $NV_CFLAGS -DNVML_NO_UNVERSIONED_FUNC_DEFS -I"$inc" -fsyntax-only \
	"$work/protos.c" || fail "a prototype of $ours conflicts with NVIDIA's (C)"
$CXX -x c++ -Wall -Wextra -Werror -DNVML_NO_UNVERSIONED_FUNC_DEFS -I"$inc" \
	-fsyntax-only "$work/protos.c" ||
	fail "a prototype of $ours conflicts with NVIDIA's (C++)"

# 4. The generated list of NOT_SUPPORTED functions.
if python3 "$top/nvml/gen-unsupported.py" "$theirs" "$ours" >"$work/unsupported.h"; then
	diff -u --label "generated from $theirs" --label nvml/unsupported.h \
		"$work/unsupported.h" "$top/nvml/unsupported.h" ||
		fail "nvml/unsupported.h has drifted: regenerate it (nvml/gen-unsupported.py)"
else
	fail "nvml/gen-unsupported.py failed"
fi

# 5. Every declared function is there to be found.
if [ -f "$lib" ]; then
	nm -D --defined-only "$lib" | awk '$2 == "T" { print $3 }' | sort -u >"$work/exported"
	{
		sed -n 's/^CUMC_NVML_UNSUPPORTED(\(.*\))$/\1/p' "$work/unsupported.h"
		sed -n '/BEGIN PROTOTYPES/,/END PROTOTYPES/p' "$ours" |
			grep -oE '\bnvml[A-Za-z0-9_]+\(' | tr -d '('
	} | sort -u >"$work/declared"
	missing=$(comm -23 "$work/declared" "$work/exported")
	[ -z "$missing" ] || fail "not exported by $lib:" $missing
else
	fail "no $lib (run make first)"
fi

if [ $failed -ne 0 ]; then
	echo "not ok 1 nvml.h matches NVIDIA's ABI"
	exit 1
fi
echo "ok 1 nvml.h matches NVIDIA's ABI ($theirs): $(grep -c '^_Static' "$work/asserts.c") facts," \
	"$(wc -l <"$work/declared") functions exported," \
	"$(grep -c "^CUMC_NVML_UNSUPPORTED" "$work/unsupported.h") of them NOT_SUPPORTED, as generated"
exit 0
