#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The module's unit tests (selftests/kmod/, built by 'make kmod'): each is a
# module that runs its cases when loaded, prints them as TAP to the kernel
# log and refuses to load when one fails; the Debian kernel has no KUnit.
# Here each is loaded, its cases shown, and unloaded. Run as root in the
# VM. Prints TAP.
set -u
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/tap.sh
. "$repo/scripts/tap.sh"

echo "TAP version 13"
tap_need_vm_root

for ko in "$repo"/selftests/kmod/*_test.ko; do
	if [ ! -e "$ko" ]; then
		tap_not_ok "unit test modules built (make kmod)"
		break
	fi
	name=$(basename "$ko" .ko)
	seen=$(dmesg | wc -l)
	out=$(insmod "$ko" 2>&1)
	status=$?
	cases=$(dmesg | tail -n +"$((seen + 1))" | sed -n "s/^.*$name: //p")
	tap_diag "$name:" "$cases"
	# The cases ran and none failed: a module that loads but ran none
	# says nothing.
	grep -q '^ok 1 ' <<<"$cases" && ! grep -q '^not ok' <<<"$cases"
	tap_result $((status || $?)) "$name: every case passes" ||
		tap_diag "insmod:" "$out"
	[ "$status" = 0 ] && rmmod "$name"
done
tap_end
