#!/bin/bash
# SPDX-License-Identifier: MIT
#
# scripts/tests/test-entry-table.sh [LIBRARY]: the table of entry points
# (lib/entry_points.table) is the one list of them (Documentation/api.md,
# "The table of entry points"). What is not made from it at build time must
# agree with it: debian/libcumc1.symbols, and the library built from it
# (LIBRARY, build/libcumc.so.1 by default), which exports its names at
# their nodes and no other. scripts/entry-table refuses a table that would
# make them disagree. The static archive beside the library defines no
# global name without the project's prefixes. Runs on the host; prints TAP.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
table=$top/lib/entry_points.table
lib=${1:-$top/build/libcumc.so.1}
# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

diff=$("$top/scripts/entry-table" symbols "$table" |
	diff -u --label "entry-table symbols" --label debian/libcumc1.symbols \
		- "$top/debian/libcumc1.symbols")
tap_result $? "debian/libcumc1.symbols is the table's" ||
	tap_diag "the difference:" "$diff"

# "name@node" of each exported name, and each node as the symbol of its own
# name, as nm prints a version definition.
"$top/scripts/entry-table" symbols "$table" | awk 'NR > 2 { print $1 }' |
	sort >"$work/table"
if [ -e "$lib" ]; then
	nm -D --defined-only --with-symbol-versions "$lib" |
		awk '{ if (!sub(/@@/, "@", $3)) $3 = $3 "@" $3; print $3 }' |
		sort >"$work/library"
	diff=$(diff -u --label table --label "${lib#"$top"/}" \
		"$work/table" "$work/library")
	tap_result $? "${lib#"$top"/} exports the table's names at their nodes" ||
		tap_diag "the difference:" "$diff"
else
	tap_skip "the library exports the table's names" "no $lib (make lib)"
fi

# The static archive beside it: a program linking it defines names of its
# own, so the archive's global names are the API's and its parts' prefixed
# ones (the PTX translator once left reg(), cint() and L global there).
archive=${lib%.so.1}.a
if [ -e "$archive" ]; then
	stray=$(nm -g --defined-only "$archive" 2>/dev/null |
		awk 'NF == 3 && $2 ~ /[BCDRTVW]/ { print $3 }' |
		grep -Ev '^(cu|libcumc_|ptx_|nvml|_)' | sort -u)
	[ -z "$stray" ]
	tap_result $? "${archive#"$top"/} defines no global name without a prefix" ||
		tap_diag "without a prefix:" "$stray"
else
	tap_skip "the archive's global names are prefixed" "no $archive (make lib)"
fi

# refused TEXT WHY: scripts/entry-table fails on a table of a release and
# TEXT, saying WHY.
refused() {
	printf 'release LIBCUMC_1 1.0.0\n%s\n' "$1" >"$work/bad.table"
	! "$top/scripts/entry-table" map "$work/bad.table" >/dev/null \
		2>"$work/err" && grep -q "$2" "$work/err"
}
tap_check "a row of a release not declared is refused" \
	refused 'cuInit LIBCUMC_2 cuInit (unsigned int Flags)' 'no release LIBCUMC_2'
tap_check "a name given twice is refused" \
	refused "$(printf 'cuInit LIBCUMC_1 - (int a)\ncuInit LIBCUMC_1 - (int a)')" \
	'in the table twice'
tap_check "an entry handed out twice by cuGetProcAddress is refused" \
	refused "$(printf 'cuA LIBCUMC_1 - cuA@2000 (int a)\ncuB LIBCUMC_1 - cuA@2000 (int a)')" \
	'handed out twice'
tap_check "a parameter that cannot be forwarded is refused" \
	refused 'cuA LIBCUMC_1 - (void (*fn)(void))' 'cannot forward'
tap_end
