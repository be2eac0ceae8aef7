#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/tests/test-kmod-calls.sh [DIR]: no circle of calls between the
# module's files (Documentation/uapi.md, "The module's shape"). A file
# calls another when it names a function the other defines without
# static (scripts/file-calls); the test fails when any file can reach
# itself that way, and names the files of each circle. Runs on the host;
# prints TAP.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-$top/kmod}
# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"

circles=$("$top/scripts/file-calls" "$dir")
tap_result $? "found the module's functions and calls in ${dir#"$top"/}"
tap_diag "files in a circle of calls, and the others in it:" "$circles"
[ -z "$circles" ]
tap_result $? "no circle of calls between ${dir#"$top"/}'s files"
tap_end
