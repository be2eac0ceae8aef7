#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Documentation/api.md names every entry point libcumc exports
# (lib/entry_points.table): one TAP line for the whole list, naming what is
# missing. A per-thread default stream variant (_ptds, _ptsz) counts as
# documented when the name it varies is, as api.md describes the variants
# once for all.

set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
doc=$top/Documentation/api.md

# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"

exported=$("$top/scripts/entry-table" names "$top/lib/entry_points.table")
missing=
for symbol in $exported; do
	base=${symbol%_ptds}
	base=${base%_ptsz}
	grep -qw -- "$base" "$doc" || missing+=" $symbol"
done
tap_plan 1
[ -n "$exported" ] && [ -z "$missing" ]
tap_result $? "api.md names all $(echo "$exported" | wc -w) exported entry points" ||
	echo "# not in Documentation/api.md:$missing"
tap_status
