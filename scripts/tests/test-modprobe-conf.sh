#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/tests/test-modprobe-conf.sh: packaging/modprobe.d/cumc.conf, the
# example installed for administrators, against the loaded module: every
# parameter the module has is there, with an example line, and marked
# writable exactly when /sys/module/cumc/parameters lets root write it;
# nothing else is. Runs in the VM (scripts/vm-run); prints TAP.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
conf=$top/packaging/modprobe.d/cumc.conf
params=/sys/module/cumc/parameters
# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"

[ -d "$params" ] || tap_skip_all "needs the module loaded (run it with scripts/vm-run)"

# One stat and one read of the file for all parameters: a process per
# parameter costs seconds under TCG.
text=$(cat "$conf")
while read -r mode_bits path; do
	name=${path##*/}
	if [ $((0$mode_bits & 0200)) != 0 ]; then
		mode=writable
	else
		mode=read-only
	fi
	[[ $'\n'$text == *$'\n'"# $name ($mode): "* ]]
	tap_result $? "$name is documented as $mode"
	[[ $'\n'$text == *$'\n'"#options cumc $name="* ]]
	tap_result $? "$name has an example line"
done < <(stat -c '%a %n' "$params"/*)

documented=$(sed -n 's/^# \([a-z_]*\) (\(read-only\|writable\)): .*/\1/p' "$conf")
unknown=
for name in $documented; do
	[ -e "$params/$name" ] || unknown="$unknown $name"
done
[ -n "$documented" ] && [ -z "$unknown" ]
tap_result $? "the file documents no parameter the module lacks${unknown:+:$unknown}"
tap_end
