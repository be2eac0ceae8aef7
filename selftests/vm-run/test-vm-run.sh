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
tap_plan 20

# One boot for the first four: the module while the command runs, the
# first line, the current directory, the exit status.
dir=$(mktemp -d)
out=$(cd "$dir" && "$vm_run" -- sh -c 'pwd; echo written >result
echo "modules $(grep -c "^cumc " /proc/modules)"; exit 7' 2>&1)
status=$?
check "cumc is loaded while the command runs" "modules 1" "$(grep '^modules ' <<<"$out")"
# KVM where it can boot the kernel, TCG otherwise (these test machines:
# their /dev/kvm opens but cannot boot it); the first line says which.
first=$(head -n 1 <<<"$out")
accel=$(sed -nE '1s/^vm-run: accelerator (kvm|tcg)( \(.+\))?$/\1/p' <<<"$out")
[ -n "$accel" ]
tap_result $? "the first line names the accelerator ($first)"
# The console may carry kernel messages (a loaded host makes the boot's
# timer checks complain); the command's own first line is what counts.
check "the command runs in the current directory, writable" \
	"$dir written" "$(grep -v -e '^\[ *[0-9.]*\]' -e '^vm-run: ' <<<"$out" | head -n 1) $(cat "$dir/result" 2>/dev/null)"
rm -rf "$dir"
check "the command's exit status is the runner's" 7 "$status"

# The GPUs: ivshmem-plain devices (1af4:1110), first as vm-run makes them,
# without the module (whose driver would keep /dev/mem off the BAR):
# prints the GPUs whose BAR 2 is assigned, then the first 8 bytes of the
# first one's BAR, the identity's magic "cumc-gpu" as a little-endian u64.
# shellcheck disable=SC2016 # expanded in the guest
gpus='n=0 magic=
for d in /sys/bus/pci/devices/*; do
	[ "$(cat "$d/device")" = 0x1110 ] || continue
	bar=$(sed -n "3{s/ .*//;p}" "$d/resource")
	[ "$((bar))" != 0 ] || continue
	n=$((n + 1))
	[ -n "$magic" ] || magic=$(busybox devmem "$bar" 64)
done
echo "gpus $n${magic:+ $magic}"'

# A boot that stalls before the command (here the first, on purpose, for
# 15 s) is stopped and tried once more, which runs the command. The same
# boot: with a launcher of python3 first in PATH (as pyenv's shim), python3
# in the guest is the interpreter it launches; and with --gpus 0, no GPU
# and no control channel.
dir=$(mktemp -d)
interpreter=$(python3 -c 'import sys; print(sys.executable)')
printf '#!/bin/sh\nexec %s "$@"\n' "$interpreter" >"$dir/python3"
chmod +x "$dir/python3"
out=$(PATH=$dir:$PATH "$vm_run" --no-module --gpus 0 --stall-first-boot 15 -- \
	bash -c 'echo second boot; echo "python3 is $(command -v python3)"
'"$gpus"'; echo "control ${CUMC_VM_CONTROL:-none}"' 2>&1)
check "a stalled boot is tried again, saying so, and the command runs" \
	"0 1 second boot" "$? $(grep -c '^vm-run: the guest had not started its command 15 s after QEMU started: booting it again$' <<<"$out") $(grep -x 'second boot' <<<"$out")"
check "behind a launcher of python3, the guest runs the interpreter" \
	"python3 is $interpreter" "$(grep '^python3 is ' <<<"$out")"
check "--gpus 0: no GPU, no control channel" \
	"gpus 0 control none" "$(grep -E '^(gpus|control) ' <<<"$out" | tr '\n' ' ' | sed 's/ $//')"
rm -rf "$dir"

# --user: the command as nobody, not root, with /dev/cumc (mode 0666, as
# the module asks) opened read-write and a libcumc test passing; the
# module was loaded by root before. The shared directories keep their host
# modes: the repository is not the user's to write.
# shellcheck disable=SC2016 # expanded in the guest
as_user='echo "uid $(id -u)"
exec 3<>/dev/cumc && echo "cumc opened"
if build/tests/test_init >/tmp/init.log 2>&1; then echo "libcumc works"
else sed "s/^/init: /" /tmp/init.log | tail -n 20; fi
touch .vm-run-user-test 2>/dev/null || echo "repository read-only"'
out=$(cd "$repo" && "$vm_run" --accel tcg --user -- bash -c "$as_user" 2>&1)
check "--user: uid 65534, /dev/cumc usable, libcumc works, no host writes" \
	"uid 65534 cumc opened libcumc works repository read-only" \
	"$(grep -E '^(uid|cumc|libcumc|repository) ' <<<"$out" | tr '\n' ' ' | sed 's/ $//')" ||
	grep '^init: ' <<<"$out" | sed 's/^/# /'
check "--accel tcg: TCG, named first" "vm-run: accelerator tcg" "$(head -n 1 <<<"$out")"

"$vm_run" -- insmod "$warn_ko" >/dev/null 2>&1
check "a kernel warning fails the run" 120 $?

"$vm_run" -- sh -c 'sleep 60 </dev/cumc & sleep 0.2' >/dev/null 2>&1
check "a module that cannot be unloaded fails the run" 120 $?

"$vm_run" num_devices=129 -- true >/dev/null 2>&1
check "a module that refuses its parameters fails the run" 125 $?

# The GPUs as vm-run makes them, the module not loaded.
out=$("$vm_run" --no-module --gpus 2 -- bash -c "$gpus" 2>&1)
check "--gpus 2: two GPUs, BARs assigned, header in place" \
	"gpus 2 0x7570672D636D7563" "$(grep '^gpus ' <<<"$out")"

# A GPU from a file (--gpu-file, as scripts/fabric-run gives every node)
# beside a --gpus one: the file's first, in 0000:00:10.0, its BAR the
# file's size (128 MiB). The module's driver binds both; an unplug through
# the control channel takes the --gpus one (the driver's remove() runs:
# the GPU is lost); asking again, or for a device that is not a GPU, is an
# error; the file's GPU is unplugged like the others, and the file is
# still there afterwards.
dir=$(mktemp -d)
"$repo/scripts/gpu-image" "$dir/gpu" 40 $((64 << 20))
# shellcheck disable=SC2016 # expanded in the guest
unplug='d=/sys/bus/pci/devices/0000:00:10.0
echo "bound $(ls /sys/bus/pci/drivers/cumc | grep -c :)"
scripts/vm-unplug 0000:00:11.0 && [ ! -e /sys/bus/pci/devices/0000:00:11.0 ] && echo unplugged
scripts/vm-unplug 0000:00:11.0 2>/dev/null || echo again refused
scripts/vm-unplug 0000:00:02.0 2>/dev/null || echo virtio refused
read -r start end _ < <(sed -n 3p $d/resource)
echo "bar $(((end - start + 1) >> 20))"
scripts/vm-unplug 0000:00:10.0 && [ ! -e $d ] && echo "file gpu unplugged"'
out=$(cd "$repo" && "$vm_run" --gpus 1 --gpu-file "$dir/gpu" -- bash -c "$unplug" 2>&1)
check "--gpus 1 --gpu-file: the module's driver binds both" "bound 2" "$(grep '^bound ' <<<"$out")"
check "scripts/vm-unplug removes a GPU, once, and only a GPU" \
	"unplugged again refused virtio refused" \
	"$(grep -E '^(unplugged|again|virtio)' <<<"$out" | tr '\n' ' ' | sed 's/ $//')"
check "--gpu-file: a GPU from the file, first, unplugged; the file kept" \
	"bar 128 file gpu unplugged kept" \
	"$(grep -E '^(bar|file gpu)' <<<"$out" | tr '\n' ' ')$([ -s "$dir/gpu" ] && echo kept)"
rm -rf "$dir"

# The debug kernel's reports fail the run too: a use-after-free (KASAN) and
# a leak (kmemleak, found by vm-guest's scans after the command), each
# planted by a module built for that kernel by make kmod-debug; and a run
# without them, cumc's module loaded, used and unloaded, passes (the same
# checks and scans find nothing). Skipped until all are built (make check
# builds them; CHECK_DEBUG=0 does not).
debug_dir=$("$repo/scripts/debug-kernel" --print 2>/dev/null)
debug_ko=$repo/build/kmod-debug/vm-run
debug_cumc=$repo/build/kmod-debug/kmod/cumc.ko
if [ -n "$debug_dir" ] && [ -e "$debug_ko/cumc_kasan.ko" ] &&
   [ -e "$debug_ko/cumc_leak.ko" ] && [ -e "$debug_cumc" ]; then
	debug_kernel=$(ls "$debug_dir"/vmlinuz-*)
	# 512 MiB: kmemleak's two scans after the command read all of it.
	(cd "$repo" && "$vm_run" --kernel "$debug_kernel" --module "$debug_cumc" \
		--mem 512 --gpus 0 -- build/tests/test_init) >/dev/null 2>&1
	check "without a planted fault the debug kernel's run passes" 0 $?
	# Both planted in one boot (each boot of this kernel costs half a
	# minute): the run fails, and its report shows each of them.
	out=$("$vm_run" --kernel "$debug_kernel" --no-module --mem 512 --gpus 0 -- \
		sh -c "insmod $debug_ko/cumc_kasan.ko && insmod $debug_ko/cumc_leak.ko" 2>&1)
	status=$?
	check "a KASAN report on the debug kernel fails the run" "120 1" \
		"$status $(grep -c -m1 'BUG: KASAN: ' <<<"$out")"
	check "a kmemleak report on the debug kernel fails the run" "120 1" \
		"$status $(grep -c -m1 'unreferenced object' <<<"$out")"
else
	tap_skip "without a planted fault the debug kernel's run passes" \
		"no debug kernel and modules built"
	tap_skip "a KASAN report on the debug kernel fails the run" \
		"no debug kernel and modules built"
	tap_skip "a kmemleak report on the debug kernel fails the run" \
		"no debug kernel and modules built"
fi

# A data race in a module of the project, caught by KCSAN on its kernel:
# the run fails. (Reports within the kernel's own code are listed by
# vm-run and do not fail it.)
kcsan_dir=$("$repo/scripts/debug-kernel" --kcsan --print 2>/dev/null)
kcsan_ko=$repo/build/kmod-kcsan/vm-run/cumc_race.ko
if [ -n "$kcsan_dir" ] && [ -e "$kcsan_ko" ]; then
	"$vm_run" --kernel "$(ls "$kcsan_dir"/vmlinuz-*)" --no-module --gpus 0 -- \
		insmod "$kcsan_ko" >/dev/null 2>&1
	check "a KCSAN report in cumc's code fails the run" 120 $?
else
	tap_skip "a KCSAN report in cumc's code fails the run" \
		"no KCSAN kernel and modules built"
fi

tap_status
