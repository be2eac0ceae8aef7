#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Check that include/cumc/cuda.h is ABI-identical to the CUDA toolkit's
# cuda.h for everything it declares:
#   1. abi_list.h names every enumerator of our header, and the table of
#      entry points (lib/entry_points.table) every entry point;
#   2. abi_dump prints the same values, sizes, offsets and linked symbol
#      names whichever of the two headers it is built against;
#   3. our prototypes compile next to the toolkit's (C and C++);
#   4. every cuGetProcAddress entry of the table hands out a function with
#      the parameters the toolkit's cudaTypedefs.h gives that symbol and
#      version (cudaGLTypedefs.h, cudaEGLTypedefs.h, cudaVDPAUTypedefs.h
#      and cudaProfilerTypedefs.h for the names outside cuda.h);
#   5. the types lib/interop.h declares for those have the toolkit's
#      layout.
#
# The toolkit is found through $CUDA_HOME, else through nvcc on PATH.
# Prints one TAP result; exit status 0 pass or skipped (no toolkit), 1 fail.

# $CC and $CFLAGS are option lists, split into words on purpose.
# shellcheck disable=SC2086

set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
ours="$top/include/cumc/cuda.h"
list="$here/abi_list.h"
CC=${CC:-cc}
CXX=${CXX:-c++}
CFLAGS="-std=c11 -Wall -Wextra -Werror -pedantic"

# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"
toolkit_include=$(cuda_toolkit_include)
if [ -z "$toolkit_include" ]; then
	echo "ok 1 cuda.h matches the CUDA toolkit's ABI # SKIP no CUDA toolkit (set CUDA_HOME or put nvcc on PATH)"
	exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0

fail() {
	echo "abi_check: FAIL: $*"
	failed=1
}

# The table's X-macro lists, as the build makes them.
entries="$work/entry_points.h"
"$top/scripts/entry-table" header "$top/lib/entry_points.table" >"$entries" ||
	fail "scripts/entry-table cannot read lib/entry_points.table"

# 1. Coverage: enumerators are the indented capitalised names followed by
# '=', ',' or the end of the line; entry points follow CUDAAPI.
grep -E '^[[:space:]]+[A-Z][A-Za-z0-9_]*[[:space:]]*(=|,|$)' "$ours" |
	sed -E 's/^[[:space:]]+([A-Za-z0-9_]+).*/\1/' | sort -u >"$work/enumerators"
sed -n '/BEGIN PROTOTYPES/,/END PROTOTYPES/p' "$ours" >"$work/cumc_prototypes.h"
grep -oE 'CUDAAPI[[:space:]]+[A-Za-z0-9_]+' "$work/cumc_prototypes.h" |
	awk '{ print $2 }' | sort -u >"$work/functions"
if [ ! -s "$work/enumerators" ] || [ ! -s "$work/functions" ]; then
	fail "could not extract enumerators or prototypes from $ours"
fi
while read -r name; do
	grep -qE "^ABI_(VALUE|RESULT|DEVATTR)\($name\)" "$list" ||
		fail "enumerator $name is missing from abi_list.h"
done <"$work/enumerators"
while read -r name; do
	grep -qE "^CUMC_HEADER\([A-Za-z0-9_]+, $name\)" "$entries" ||
		fail "entry point $name is missing from lib/entry_points.table"
done <"$work/functions"

# 2. Same facts through both headers.
for side in toolkit cumc; do
	if [ $side = toolkit ]; then inc=$toolkit_include; else inc="$top/include/cumc"; fi
	if ! $CC $CFLAGS -I"$inc" -I"$work" "$here/abi_dump.c" -o "$work/abi_dump_$side" \
			2>"$work/build_$side.log"; then
		cat "$work/build_$side.log"
		fail "abi_dump does not build against the $side cuda.h ($inc)"
		continue
	fi
	"$work/abi_dump_$side" >"$work/$side.txt"
done
if [ -s "$work/toolkit.txt" ] && [ -s "$work/cumc.txt" ]; then
	if ! diff -u --label "toolkit $toolkit_include/cuda.h" \
			--label "cumc $ours" "$work/toolkit.txt" "$work/cumc.txt"; then
		fail "ABI differs (lines: - toolkit, + cumc)"
	fi
fi

# 2b. The same in per-thread default stream builds: the _ptds/_ptsz names.
for side in toolkit cumc; do
	if [ $side = toolkit ]; then inc=$toolkit_include; else inc="$top/include/cumc"; fi
	if ! $CC $CFLAGS -DCUDA_API_PER_THREAD_DEFAULT_STREAM -I"$inc" -I"$work" \
			"$here/abi_dump.c" -o "$work/abi_dump_ptds_$side" \
			2>"$work/build_ptds_$side.log"; then
		cat "$work/build_ptds_$side.log"
		fail "abi_dump does not build per-thread against the $side cuda.h"
		continue
	fi
	"$work/abi_dump_ptds_$side" | grep '^func ' >"$work/ptds_$side.txt"
done
if [ -s "$work/ptds_toolkit.txt" ] && [ -s "$work/ptds_cumc.txt" ]; then
	if ! diff -u --label "toolkit, per-thread" --label "cumc, per-thread" \
			"$work/ptds_toolkit.txt" "$work/ptds_cumc.txt"; then
		fail "per-thread default stream names differ (lines: - toolkit, + cumc)"
	fi
fi

# 3. Our prototypes against the toolkit's types and declarations.
if ! $CC $CFLAGS -I"$toolkit_include" -I"$work" -fsyntax-only \
		"$here/abi_protos.c"; then
	fail "a prototype of $ours conflicts with the toolkit's (C)"
fi
if command -v "$CXX" >/dev/null 2>&1; then
	if ! $CXX -x c++ -Wall -Wextra -Werror -I"$toolkit_include" -I"$work" \
			-fsyntax-only "$here/abi_protos.c"; then
		fail "a prototype of $ours conflicts with the toolkit's (C++)"
	fi
else
	echo "abi_check: note: no C++ compiler ($CXX), C++ prototype check skipped"
fi

# 4. Each cuGetProcAddress entry hands out a function whose type is the
# toolkit's PFN_<symbol>_v<version>: the exported function of the row, with
# the parameters the table gives it.  Entries without a public typedef (the
# pre-4.0 versions kept under __CUDA_API_VERSION_INTERNAL, versions newer
# than the toolkit) cannot be checked; any other missing typedef means a
# wrong symbol or version. The profiler's and the graphics interop
# functions' are in headers of their own, as their prototypes are
# (lib/interop.h). The toolkit's VDPAU header needs VDPAU's: where the
# machine has none, the four facts it is needed for stand in for it.
typedefs="$toolkit_include/cudaTypedefs.h"
other_typedefs="cudaProfilerTypedefs.h cudaGLTypedefs.h cudaEGLTypedefs.h cudaVDPAUTypedefs.h"
toolkit_version=$(sed -nE 's/^#define CUDA_VERSION ([0-9]+).*/\1/p' \
	"$toolkit_include/cuda.h")
if ! echo '#include <vdpau/vdpau.h>' | $CC -E -x c - >/dev/null 2>&1; then
	mkdir -p "$work/vdpau"
	cat >"$work/vdpau/vdpau.h" <<-'EOF'
	#include <stdint.h>
	typedef uint32_t VdpDevice;
	typedef uint32_t VdpVideoSurface;
	typedef uint32_t VdpOutputSurface;
	typedef int VdpGetProcAddress(VdpDevice device, uint32_t function_id,
				      void **function_pointer);
	EOF
fi
for header in cudaTypedefs.h $other_typedefs; do
	awk '/__CUDA_API_VERSION_INTERNAL/ { exit } { print }' \
		"$toolkit_include/$header"
done | grep -oE 'PFN_[A-Za-z0-9_]+_v[0-9]+\b' | sort -u >"$work/public_pfns"
(cd "$toolkit_include" && cat cudaTypedefs.h $other_typedefs) |
	grep -oE 'PFN_[A-Za-z0-9_]+_v[0-9]+\b' | sort -u >"$work/all_pfns"
sed -nE 's/^CUMC_PROC\("([^"]+)", ([0-9]+), ([A-Za-z0-9_]+)\)$/\1 \2 \3/p' \
	"$entries" >"$work/procs"
[ -s "$work/procs" ] || fail "no CUMC_PROC entries in the table's entry_points.h"
# The per-thread default stream entries: PFN_<symbol>_v<version>_ptds/_ptsz.
sed -nE 's/^CUMC_PROC_PTDS\("([^"]+)", ([0-9]+), ([A-Za-z0-9_]+)\)$/\1 \2 \3/p' \
	"$entries" >"$work/procs_ptds"
(cd "$toolkit_include" && cat cudaTypedefs.h $other_typedefs) |
	grep -oE 'PFN_[A-Za-z0-9_]+_v[0-9]+_pt(ds|sz)\b' | sort -u \
	>"$work/ptds_pfns"
unchecked=
{
	for header in cudaTypedefs.h $other_typedefs; do
		echo "#include <$header>"
	done
	echo "#include <cumc.h>"
	# By their symbols: a name of the table may be a macro of cuda.h's.
	echo "#define CUMC_ENTRY(symbol, params, args) \\"
	echo "	CUresult CUDAAPI libcumc_entry_##symbol params __asm__(#symbol);"
	echo "#define CUMC_ENTRY_DRIVER(symbol, params, args, impl_params, impl_args) \\"
	echo "	CUresult CUDAAPI libcumc_entry_##symbol params __asm__(#symbol);"
	echo "#define CUMC_ENTRY_INIT(symbol, params, args) \\"
	echo "	CUresult CUDAAPI libcumc_entry_##symbol params __asm__(#symbol);"
	echo "#include \"entry_points.h\""
	while read -r symbol version function; do
		pfn="PFN_${symbol}_v$version"
		if grep -qx "$pfn" "$work/public_pfns"; then
			echo "$pfn check_${symbol}_v$version = libcumc_entry_$function;"
		elif grep -qx "$pfn" "$work/all_pfns" ||
				[ "$version" -gt "$toolkit_version" ]; then
			unchecked="$unchecked $symbol@$version"
		else
			fail "entry_points.table: $symbol $version has no $pfn in $typedefs" >&2
		fi
	done <"$work/procs"
	while read -r symbol version function; do
		pfn=$(grep -xE "PFN_${symbol}_v${version}_pt(ds|sz)" "$work/ptds_pfns")
		if [ -n "$pfn" ]; then
			echo "$pfn check_${symbol}_v${version}_ptds = libcumc_entry_$function;"
		else
			fail "entry_points.table: $symbol $version has no PFN_${symbol}_v${version}_ptds/_ptsz" >&2
		fi
	done <"$work/procs_ptds"
	[ -z "$unchecked" ] ||
		echo "abi_check: note: unchecked proc entries:$unchecked" >&2
} >"$work/procs_check.c" 2>"$work/procs_notes"
cat "$work/procs_notes"
if ! $CC $CFLAGS -I"$toolkit_include" -I"$top/include/cumc" -I"$work" \
		-fsyntax-only "$work/procs_check.c"; then
	fail "a function of the table does not match its PFN typedef"
fi

# 5. What lib/interop.h declares, against the toolkit's headers.
for side in toolkit cumc; do
	if [ $side = toolkit ]; then
		flags="-I$toolkit_include"
	else
		flags="-DCUMC_INTEROP -I$top/include/cumc -I$top/lib"
	fi
	if ! $CC $CFLAGS $flags "$here/interop_layout.c" \
			-o "$work/interop_layout_$side" 2>"$work/interop_$side.log"; then
		cat "$work/interop_$side.log"
		fail "interop_layout does not build against the $side headers"
		continue
	fi
	"$work/interop_layout_$side" >"$work/interop_$side.txt"
done
if [ -s "$work/interop_toolkit.txt" ] && [ -s "$work/interop_cumc.txt" ]; then
	if ! diff -u --label "toolkit cudaGL.h, cudaEGL.h, cudaProfiler.h" \
			--label "cumc lib/interop.h" "$work/interop_toolkit.txt" \
			"$work/interop_cumc.txt"; then
		fail "lib/interop.h's layout differs (lines: - toolkit, + cumc)"
	fi
fi

if [ $failed -ne 0 ]; then
	echo "not ok 1 cuda.h matches the CUDA toolkit's ABI"
	exit 1
fi
echo "ok 1 cuda.h matches the CUDA toolkit's ABI: $(wc -l <"$work/cumc.txt") facts," \
	"$(wc -l <"$work/functions") prototypes and" \
	"$(wc -l <"$work/procs") + $(wc -l <"$work/procs_ptds") proc entries and" \
	"$(wc -l <"$work/interop_cumc.txt") interop facts match $toolkit_include"
exit 0
