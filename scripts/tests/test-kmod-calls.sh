#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/tests/test-kmod-calls.sh [DIR]: no circle of calls between the
# module's files (Documentation/uapi.md, "The module's shape"). A file
# calls another when it names a function the other defines without
# static; the test fails when any file can reach itself that way, and
# names the files of each circle. Runs on the host; prints TAP.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-$top/kmod}
# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"

# "FILE FUNCTION" for every function a file defines for the others: a
# definition starts at column 0, is not static and is no declaration.
defs=$(awk '
	/^[a-z]/ && !/^static/ && !/;[[:space:]]*$/ &&
	match($0, /[a-z_][a-z0-9_]*\(/) {
		name = substr($0, RSTART, RLENGTH - 1)
		n = split(FILENAME, p, "/")
		print p[n], name
	}' "$dir"/*.c)

# "CALLER CALLEE" for every file that names another's function.
edges=$(awk -v defs="$defs" '
	BEGIN {
		n = split(defs, lines, "\n")
		for (i = 1; i <= n; i++) {
			split(lines[i], f, " ")
			owner[f[2]] = f[1]
		}
	}
	{
		n = split(FILENAME, p, "/")
		file = p[n]
		line = $0
		while (match(line, /[a-z_][a-z0-9_]*/)) {
			name = substr(line, RSTART, RLENGTH)
			line = substr(line, RSTART + RLENGTH)
			if ((name in owner) && owner[name] != file)
				print file, owner[name]
		}
	}' "$dir"/*.c | sort -u)

# The files that reach themselves, each with the files of its circle.
circles=$(awk '
	{ reach[$1, $2] = 1; files[$1] = 1; files[$2] = 1 }
	END {
		for (k in files)
			for (i in files)
				if ((i, k) in reach)
					for (j in files)
						if ((k, j) in reach)
							reach[i, j] = 1
		for (i in files) {
			if (!((i, i) in reach))
				continue
			circle = i ":"
			for (j in files)
				if (j != i && (i, j) in reach && (j, i) in reach)
					circle = circle " " j
			print circle
		}
	}' <<<"$edges" | sort)

[ -n "$defs" ] && [ -n "$edges" ]
tap_result $? "found the module's functions and calls in ${dir#"$top"/}"
if [ -n "$circles" ]; then
	echo "# files in a circle of calls, and the others in it:"
	while read -r circle; do
		echo "#   $circle"
	done <<<"$circles"
fi
[ -z "$circles" ]
tap_result $? "no circle of calls between ${dir#"$top"/}'s files"
tap_end
