#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/tests/test-deb.sh [--dkms] DEBDIR: the packages scripts/build-deb
# made, as far as they can be checked without 'dpkg -i' (the VM's root
# filesystem is the host's, read-only). 'make deb-check' runs it twice:
#
# --dkms, on the host: unpacks cumc-dkms and builds the module from its
#   /usr/src tree with dkms, in DEBDIR/dkms (a temporary DKMS tree; a build
#   in the emulated VM takes minutes);
# then in the VM: unpacks every .deb into a staging root under /tmp, checks
#   the files and the maintainer scripts, loads the module dkms built,
#   builds a program against libcumc-dev with pkg-config and runs it against
#   libcumc1. Prints TAP.
#
# scripts/vm-run loaded kmod/cumc.ko and unloads 'cumc' after the test: the
# test loads the build tree's module again before it exits.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
mode=vm
[ "${1:-}" = --dkms ] && { mode=dkms; shift; }
debdir=$(realpath "${1:-$top/build/deb}")
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); failed=1; echo "not ok $n $1"; }
check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}

if [ $mode = dkms ]; then
	version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
	kver=$("$top/scripts/vm-kernel")
	rm -rf "$debdir/dkms"
	mkdir -p "$debdir/dkms/tree"
	# No module signing: dkms would otherwise create a key in /var/lib/dkms.
	export sign_file=/nonexistent
	dkms_args=(-m cumc -v "$version" --sourcetree "$debdir/dkms/root/usr/src"
		   --dkmstree "$debdir/dkms/tree")
	if dpkg-deb -x "$debdir/cumc-dkms_${version}_all.deb" "$debdir/dkms/root" &&
			dkms add "${dkms_args[@]}" >"$debdir/dkms/log" 2>&1 &&
			dkms build "${dkms_args[@]}" -k "$kver" >>"$debdir/dkms/log" 2>&1; then
		ok "dkms add, dkms build -k $kver from cumc-dkms's /usr/src"
	else
		cat "$debdir/dkms/log"
		find "$debdir/dkms/tree" -name make.log -exec cat {} +
		not_ok "dkms add, dkms build -k $kver from cumc-dkms's /usr/src"
	fi
	echo "1..$n"
	exit $failed
fi

if [ "$(id -u)" != 0 ] || [ ! -e /dev/cumc ]; then
	echo "1..0 # SKIP needs root and the module loaded (run it with scripts/vm-run)"
	exit 0
fi
version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
kver=$(uname -r)
stage=$(mktemp -d /tmp/cumc-deb.XXXXXX)
params=()
for p in /sys/module/cumc/parameters/*; do
	[ -r "$p" ] && params+=("$(basename "$p")=$(<"$p")")
done
restore_module() {
	grep -q '^cumc ' /proc/modules && rmmod cumc
	insmod "$top/kmod/cumc.ko" "${params[@]}"
}
trap 'restore_module; rm -rf "$stage"' EXIT

for p in libcumc1 libcumc-dev cumc-tools cumc-dkms; do
	deb=$(ls "$debdir/${p}_${version}"_*.deb 2>/dev/null | head -n 1)
	if [ -n "$deb" ] && dpkg-deb -x "$deb" "$stage/root" &&
			dpkg-deb -e "$deb" "$stage/control-$p"; then
		ok "unpack $p"
	else
		not_ok "unpack $p (no ${p}_${version}_*.deb in $debdir)"
	fi
done
root=$stage/root
lib=$root/usr/lib/$arch

check "libcumc1: libcumc.so.1 -> libcumc.so.1.0.0" \
	test "$(readlink -e "$lib/libcumc.so.1")" = "$lib/libcumc.so.1.0.0"
check "libcumc-dev: libcumc.so resolves, libcumc.a, headers, pc, man3" \
	test -e "$lib/libcumc.so" -a -f "$lib/libcumc.a" \
	-a -f "$root/usr/include/cumc/cuda.h" -a -f "$root/usr/include/cumc/cumc.h" \
	-a -f "$lib/pkgconfig/libcumc.pc" -a -f "$root/usr/share/man/man3/libcumc.3.gz" \
	-a -e "$root/usr/share/man/man3/cumcMultimemRed.3.gz"
check "libcumc.pc: libdir=/usr/lib/$arch" \
	grep -qx "libdir=/usr/lib/$arch" "$lib/pkgconfig/libcumc.pc"
check "cumc-tools: cumcctl and cumc-fm" \
	test -x "$root/usr/bin/cumcctl" -a -x "$root/usr/bin/cumc-fm"
src=$root/usr/src/cumc-$version
check "cumc-dkms: dkms.conf, kmod/, uapi/ in /usr/src/cumc-$version" \
	test -f "$src/dkms.conf" -a -f "$src/kmod/Kbuild" -a -f "$src/uapi/linux/cumc.h"
check "cumc-dkms: udev rule and modprobe.d example (a conffile)" \
	bash -c "test -f '$root/lib/udev/rules.d/60-cumc.rules' -a -f '$root/etc/modprobe.d/cumc.conf' && grep -qx /etc/modprobe.d/cumc.conf '$stage/control-cumc-dkms/conffiles'"
check "cumc-dkms: postinst runs dkms for cumc $version" \
	bash -c "grep -qx DKMS_NAME=cumc '$stage/control-cumc-dkms/postinst' && grep -qx DKMS_VERSION=$version '$stage/control-cumc-dkms/postinst'"

# The module dkms built from the package's source (--dkms, on the host).
ko=$(find "$debdir/dkms/tree" -name cumc.ko 2>/dev/null | head -n 1)
check "the module dkms built from cumc-dkms is for $kver" \
	test -n "$ko" -a "$(modinfo -F vermagic "${ko:-/nonexistent}" 2>/dev/null | cut -d' ' -f1)" = "$kver"
rmmod cumc
check "insmod the DKMS-built module num_devices=2" insmod "${ko:-/nonexistent}" num_devices=2

cat >"$stage/prog.c" <<'PROG'
#include <stdio.h>
#include <cuda.h>

int main(void)
{
	CUmemAllocationProp prop = { 0 };
	CUmemGenericAllocationHandle h;
	size_t gran;
	int count;

	if (cuInit(0) || cuDeviceGetCount(&count) || count != 2)
		return 1;
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	if (cuMemGetAllocationGranularity(&gran, &prop,
					  CU_MEM_ALLOC_GRANULARITY_MINIMUM) ||
	    cuMemCreate(&h, gran, &prop, 0) || cuMemRelease(h))
		return 1;
	printf("# %d devices, granularity %zu\n", count, gran);
	return 0;
}
PROG
pc() {
	PKG_CONFIG_LIBDIR="$lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$root" \
		pkg-config "$@" libcumc
}
# shellcheck disable=SC2046 # the flags are words
check "a program builds with pkg-config against libcumc-dev" \
	cc -std=c11 -Wall -Werror -o "$stage/prog" "$stage/prog.c" $(pc --cflags --libs)
check "it runs against libcumc1 and the DKMS-built module" \
	env LD_LIBRARY_PATH="$lib" "$stage/prog"
check "cumcctl from cumc-tools runs" \
	bash -c "'$root/usr/bin/cumcctl' --help >/dev/null 2>&1 || '$root/usr/bin/cumcctl' help >/dev/null 2>&1"

echo "1..$n"
exit $failed
