#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The VM runner's own test: what it must report, proved by booting it.
# Runs on the host (each case boots a VM); prints TAP.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
vm_run=$repo/scripts/vm-run
warn_ko=$repo/selftests/vm-run/cumc_warn.ko
# shellcheck source=scripts/tap.sh
. "$repo/scripts/tap.sh"

# check NAME EXPECTED GOT
check() {
	if [ "$2" = "$3" ]; then
		tap_ok "$1"
	else
		tap_not_ok "$1 # expected $2, got $3"
	fi
}

echo "TAP version 13"
tap_plan 6

out=$("$vm_run" -- cat /proc/modules 2>&1)
check "cumc is loaded while the command runs" 1 "$(grep -c '^cumc ' <<<"$out")"

dir=$(mktemp -d)
out=$(cd "$dir" && "$vm_run" -- sh -c 'pwd; echo written >result' 2>&1)
# The console may carry kernel messages (a loaded host makes the boot's
# timer checks complain); the command's own first line is what counts.
check "the command runs in the current directory, writable" \
	"$dir written" "$(grep -v '^\[ *[0-9.]*\]' <<<"$out" | head -n 1) $(cat "$dir/result" 2>/dev/null)"
rm -rf "$dir"

"$vm_run" -- sh -c 'exit 7' >/dev/null 2>&1
check "the command's exit status is the runner's" 7 $?

"$vm_run" -- insmod "$warn_ko" >/dev/null 2>&1
check "a kernel warning fails the run" 120 $?

"$vm_run" -- sh -c 'sleep 60 </dev/cumc & sleep 0.2' >/dev/null 2>&1
check "a module that cannot be unloaded fails the run" 120 $?

"$vm_run" num_devices=0 -- true >/dev/null 2>&1
check "a module that refuses its parameters fails the run" 125 $?

tap_status
