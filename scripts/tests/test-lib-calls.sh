#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/tests/test-lib-calls.sh [DIR]: libcumc's calls go one way
# (Documentation/api.md, "The library's shape"). No circle of calls
# between lib/'s files, read as scripts/file-calls reads them, leaving out
# the exported entry points of lib/entry_points.table, which comments name
# everywhere; and no call of an exported entry point in the library's
# code, comments and strings aside, so that those names cannot tie files
# together behind the first check's back. Runs on the host; prints TAP.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-$top/lib}
# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"

exported=$(mktemp)
trap 'rm -f "$exported"' EXIT
"$top/scripts/entry-table" names "$dir/entry_points.table" >"$exported"

circles=$("$top/scripts/file-calls" --except "$exported" "$dir")
tap_result $? "found the library's functions and calls in ${dir#"$top"/}"
tap_diag "files in a circle of calls, and the others in it:" "$circles"
[ -z "$circles" ]
tap_result $? "no circle of calls between ${dir#"$top"/}'s files"

# "FILE:LINE: NAME" for each exported name followed by "(" in the code:
# the compiler drops the comments (keeping the line numbers in its line
# markers), string literals go here, and a line declaring or defining an
# entry point ("CUresult CUDAAPI name(") names it without calling it.
calls=$(for f in "$dir"/*.[ch]; do
	cc -std=gnu11 -w -fpreprocessed -E "$f" | awk -v file="${f#"$top"/}" '
	FILENAME != "-" { exported[$1] = 1; next }
	/^# [0-9]+ "/ { line = $2 - 1; next }
	{
		line++
		text = $0
		gsub(/"([^"\\]|\\.)*"/, "\"\"", text)
		sub(/^CUresult CUDAAPI [A-Za-z_][A-Za-z0-9_]*\(/, "", text)
		while (match(text, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
			name = substr(text, RSTART, RLENGTH - 1)
			text = substr(text, RSTART + RLENGTH)
			sub(/[ \t]+$/, "", name)
			if (name in exported)
				print file ":" line ": " name
		}
	}' "$exported" -
done)
tap_diag "exported entry points called inside the library:" "$calls"
[ -z "$calls" ]
tap_result $? "no call of an exported entry point inside ${dir#"$top"/}"
tap_end
