#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/tests/test-imex-channel-names.sh: with nvidia_imex_channels=0
# (where NVIDIA's driver owns its names) the module offers its IMEX
# channels under cumc's name alone: nothing of NVIDIA's in /proc/devices or
# /dev, cumc's nodes all there, and libcumc attaches a channel through
# them (a fabric allocation is permitted). The default, both names, is
# selftests/cumc_sharing.c's. Runs on the host, booting one VM; prints TAP.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"

# shellcheck disable=SC2016 # expanded in the guest
guest='grep -c nvidia-caps-imex-channels /proc/devices
ls /dev/nvidia-caps-imex-channels 2>/dev/null | wc -l
ls /dev/cumc-imex-channels | wc -l
build/tests/test_share 2>&1 | tail -n 1'
out=$(cd "$top" && scripts/vm-run --gpus 0 nvidia_imex_channels=0 imex_channels=2 \
	-- sh -c "$guest" 2>&1)
status=$?
lines=$(grep -v -e '^\[ *[0-9.]*\]' -e '^vm-run: ' <<<"$out")

echo "TAP version 13"
tap_plan 4
tap_check "the VM ran and the module unloaded cleanly" [ "$status" = 0 ]
tap_check "nothing of NVIDIA's name in /proc/devices or /dev" \
	[ "$(sed -n 1,2p <<<"$lines" | tr '\n' ' ')" = "0 0 " ]
tap_check "both channels under cumc's name" [ "$(sed -n 3p <<<"$lines")" = 2 ]
tap_check "libcumc's sharing tests pass on them ($(sed -n 4p <<<"$lines"))" \
	grep -q 'Failures: 0, Errors: 0' <<<"$(sed -n 4p <<<"$lines")"
