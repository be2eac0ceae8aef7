#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/tests/test-kvm-probe.sh: scripts/kvm-probe answers "no usable
# KVM" in one clean line of its own however QEMU fails under KVM (killed by
# SIGABRT, as on hosts whose /dev/kvm exists but cannot run KVM; an exit
# with an error; a hang), says nothing else, and says yes to a QEMU that
# prints the banner. QEMU is a stand-in on the PATH and the device a file
# (CUMC_KVM_DEVICE), so it runs on any host; then scripts/vm-run boots
# with the stand-in, which hands everything but KVM to the real QEMU, and
# its first line must still be one line naming TCG and the reason. Runs on
# the host; prints TAP.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
real_qemu=$(command -v qemu-system-x86_64)
mkdir "$dir/bin"
# The stand-in: under -accel kvm it behaves as $dir/mode says, else it is
# the real QEMU.
cat >"$dir/bin/qemu-system-x86_64" <<EOF
#!/bin/bash
case " \$* " in
*" -accel kvm "*) ;;
*) exec "$real_qemu" "\$@" ;;
esac
echo "qemu-system-x86_64: stand-in's own complaint" >&2
case \$(cat "$dir/mode") in
abort) kill -ABRT \$\$ ;;
fail) exit 1 ;;
hang) trap '' TERM; exec sleep 60 ;;
banner)
	while [ \$# -gt 0 ] && [ "\$1" != -serial ]; do shift; done
	echo "Linux version 6.1 (stand-in)" >"\${2#file:}"
	exec sleep 60 ;;
esac
EOF
chmod +x "$dir/bin/qemu-system-x86_64"
: >"$dir/kvm"
: >"$dir/kernel"

# check_probe NAME MODE STATUS OUTPUT: from an empty cache, with the
# stand-in in MODE, the probe exits with STATUS, prints OUTPUT (newlines as
# '|') and nothing on its standard error.
check_probe() {
	local status out err
	echo "$2" >"$dir/mode"
	rm -rf "$dir/cache"
	PATH=$dir/bin:$PATH CUMC_CACHE=$dir/cache CUMC_KVM_DEVICE=$dir/kvm \
		"$top/scripts/kvm-probe" "$dir/kernel" >"$dir/out" 2>"$dir/err"
	status=$?
	out=$(tr '\n' '|' <"$dir/out")
	err=$(cat "$dir/err")
	if [ "$status" = "$3" ] && [ "$out" = "$4" ] && [ -z "$err" ]; then
		tap_ok "$1"
	else
		tap_not_ok "$1 # expected $3 '$4', got $status '$out', error '$err'"
	fi
}

echo "TAP version 13"
tap_plan 6

check_probe "a QEMU killed by SIGABRT: no usable KVM, one line of the probe's" abort 1 \
	"QEMU was killed by SIGABRT starting a test boot under KVM|"
check_probe "a QEMU that exits with an error: no usable KVM, one line" fail 1 \
	"QEMU exited with status 1 starting a test boot under KVM|"
check_probe "a QEMU that hangs, deaf to SIGTERM: no usable KVM, one line" hang 1 \
	"a test boot under KVM printed no kernel banner in 10 s|"
check_probe "a QEMU that prints the banner: KVM works, nothing said" banner 0 ""

rm -f "$dir/kvm"
check_probe "no device: no usable KVM, one line" abort 1 "no $dir/kvm|"

# vm-run, QEMU aborting under KVM and the answer not yet kept (a new
# machine's empty cache): the first line is whole, and the boot goes on.
: >"$dir/kvm"
echo abort >"$dir/mode"
rm -rf "$dir/cache"
out=$(PATH=$dir/bin:$PATH CUMC_CACHE=$dir/cache CUMC_KVM_DEVICE=$dir/kvm \
	"$top/scripts/vm-run" --no-module --gpus 0 -- echo booted 2>&1)
first=$(head -n 1 <<<"$out")
expected="vm-run: accelerator tcg (no usable /dev/kvm: QEMU was killed by SIGABRT starting a test boot under KVM)"
if [ "$first" = "$expected" ] && [ "$(sed -n 2p <<<"$out" | grep -c Aborted)" = 0 ] &&
   grep -qx booted <<<"$out"; then
	tap_ok "vm-run: QEMU aborting under KVM gives a one-line TCG answer, and the boot runs"
else
	tap_not_ok "vm-run: QEMU aborting under KVM gives a one-line TCG answer, and the boot runs"
	sed 's/^/# /' <<<"$out" | head -n 5
fi

tap_status
