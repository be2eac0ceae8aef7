#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/tests/test-deb.sh [DEBDIR]: the packages scripts/build-deb made
# (default build/deb), installed with dpkg -i inside the VM and used, then
# removed and purged. Prints TAP.
#
# The VM's root is the host's, read-only over 9p: the test mounts an overlay
# on it (tmpfs upper, host root lower) and runs dpkg in a chroot there, so
# that dpkg, its maintainer scripts and dkms write only to the tmpfs and the
# host's package database is never touched. cumc-dkms's postinst builds the
# module with dkms for the running kernel (whose headers the host has), as
# on a real host; the test then loads it with modprobe, builds a program
# with pkg-config against libcumc-dev, runs it and cumcctl from cumc-tools,
# and checks that dpkg -r and dpkg --purge leave none of the packages'
# files behind.
#
# scripts/vm-run loaded kmod/cumc.ko and unloads 'cumc' after the test: the
# test loads the build tree's module again before it exits.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
debdir=$(realpath "${1:-$top/build/deb}")
packages=(libcumc1 libcumc-dev cumc-tools cumc-dkms)
# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"

tap_need_vm_root
version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
kver=$(uname -r)
ov=$(mktemp -d /tmp/cumc-deb.XXXXXX)
root=$ov/root
log=$ov/log
params=()
for p in /sys/module/cumc/parameters/*; do
	[ -r "$p" ] && params+=("$(basename "$p")=$(<"$p")")
done
cleanup() {
	grep -q '^cumc ' /proc/modules && rmmod cumc
	insmod "$top/kmod/cumc.ko" "${params[@]}"
	mountpoint -q "$root" && umount -R "$root"
	rm -rf "$ov"
}
trap cleanup EXIT

# Run in the overlay's root, with a clean environment; its output goes to
# the log, which a failing step prints.
in_root() {
	chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive "$@" >"$log" 2>&1
}
show_log() {
	sed 's/^/# /' "$log"
}

debs=()
for p in "${packages[@]}"; do
	deb=$(ls "$debdir/${p}_${version}_"*.deb 2>/dev/null | head -n 1)
	[ -n "$deb" ] && debs+=("/tmp/${deb##*/}")
done
if [ ${#debs[@]} = ${#packages[@]} ]; then
	tap_ok "the packages of $version are in $debdir"
else
	tap_not_ok "the packages of $version are in $debdir (run make deb)"
	tap_end
	exit 1
fi

# The host's root is the lower layer; the VM's own mounts (/proc, /dev, the
# writable shares) are not part of it and are bound in where needed.
mkdir -p "$ov/upper" "$ov/work" "$root"
if modprobe overlay && mount -t overlay overlay \
		-o "lowerdir=/,upperdir=$ov/upper,workdir=$ov/work" "$root" &&
		mount --rbind /proc "$root/proc" && mount --rbind /sys "$root/sys" &&
		mount --rbind /dev "$root/dev" &&
		mount -t tmpfs tmpfs "$root/tmp" && mount -t tmpfs tmpfs "$root/run"; then
	tap_ok "a writable root: overlay of a tmpfs on the host's root"
else
	tap_not_ok "a writable root: overlay of a tmpfs on the host's root"
	tap_end
	exit 1
fi
cp "${debs[@]/#\/tmp/$debdir}" "$root/tmp/"

# Two steps, to see what dkms's build of the module costs under TCG.
start=$SECONDS
if in_root dpkg -i "${debs[@]:0:3}"; then
	tap_ok "dpkg -i ${packages[*]:0:3}"
	echo "# $((SECONDS - start)) s"
else
	show_log
	tap_not_ok "dpkg -i ${packages[*]:0:3}"
fi
start=$SECONDS
if in_root dpkg -i "${debs[3]}"; then
	tap_ok "dpkg -i ${packages[3]} (dkms builds the module)"
	echo "# $((SECONDS - start)) s"
else
	show_log
	tap_not_ok "dpkg -i ${packages[3]} (dkms builds the module)"
fi
cp "$log" "$ov/install.log"
for p in "${packages[@]}"; do
	tap_check "dpkg: $p $version is installed" \
		test "$(chroot "$root" dpkg-query -W -f='${Status} ${Version}' "$p" 2>/dev/null)" \
		= "install ok installed $version"
done

ko=/lib/modules/$kver/updates/dkms/cumc.ko
if chroot "$root" dkms status -m cumc -v "$version" -k "$kver" 2>/dev/null |
		grep -q ': installed$' && [ -f "$root$ko" ]; then
	tap_ok "cumc-dkms's postinst built and installed the module with dkms for $kver"
else
	sed 's/^/# /' "$ov/install.log"
	find "$root/var/lib/dkms" -name make.log -exec sed 's/^/# /' {} +
	tap_not_ok "cumc-dkms's postinst built and installed the module with dkms for $kver"
fi
tap_check "modinfo: the installed cumc.ko is for $kver" \
	test "$(chroot "$root" modinfo -F vermagic cumc 2>/dev/null | cut -d' ' -f1) $(chroot "$root" modinfo -F filename cumc 2>/dev/null)" \
	= "$kver $ko"
tap_check "the udev rule is in /lib/udev/rules.d" \
	cmp -s "$top/packaging/udev/60-cumc.rules" "$root/lib/udev/rules.d/60-cumc.rules"
tap_check "modprobe.d: /etc/modprobe.d/cumc.conf, a conffile of cumc-dkms" \
	bash -c "cmp -s '$top/packaging/modprobe.d/cumc.conf' '$root/etc/modprobe.d/cumc.conf' &&
		chroot '$root' dpkg-query -W -f='\${Conffiles}' cumc-dkms | grep -q '^ /etc/modprobe.d/cumc.conf '"
tap_check "the man pages: libcumc.3, cumcctl.8, cumc-fm.8, cumc-imex.8" \
	test -f "$root/usr/share/man/man3/libcumc.3.gz" \
	-a -f "$root/usr/share/man/man8/cumcctl.8.gz" \
	-a -f "$root/usr/share/man/man8/cumc-fm.8.gz" \
	-a -f "$root/usr/share/man/man8/cumc-imex.8.gz"

rmmod cumc
if in_root modprobe cumc num_devices=2; then
	tap_ok "modprobe cumc num_devices=2 loads the package's module"
else
	show_log
	tap_not_ok "modprobe cumc num_devices=2 loads the package's module"
fi
tap_check "modprobe resolves cumc to the module dkms installed" \
	test "$(chroot "$root" modprobe --show-depends cumc 2>/dev/null | awk '{ print $1, $2 }')" = "insmod $ko"

cat >"$root/tmp/prog.c" <<'PROG'
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
	printf("%d devices, granularity %zu\n", count, gran);
	return 0;
}
PROG
if in_root sh -c 'cc -std=c11 -Wall -Werror -o /tmp/prog /tmp/prog.c $(pkg-config --cflags --libs libcumc)'; then
	tap_ok "a program builds with pkg-config against the installed libcumc-dev"
else
	show_log
	tap_not_ok "a program builds with pkg-config against the installed libcumc-dev"
fi
lib=$(chroot "$root" ldd /tmp/prog 2>/dev/null | awk '$1 == "libcumc.so.1" { print $3 }')
lib=$(chroot "$root" readlink -f "${lib:-/nonexistent}")
tap_check "it links to libcumc1's /usr/lib/$arch/libcumc.so.$version (ldd: $lib)" \
	test "$lib" = "/usr/lib/$arch/libcumc.so.$version"
if in_root /tmp/prog && grep -qx '2 devices, granularity [0-9]*' "$log"; then
	tap_ok "it runs against the package's module: $(<"$log")"
else
	show_log
	tap_not_ok "it runs against the package's module"
fi
if in_root cumcctl dev && [ "$(grep -cE '^[0-9]+ ' "$log")" = 2 ]; then
	tap_ok "cumcctl dev lists the 2 devices"
else
	show_log
	tap_not_ok "cumcctl dev lists the 2 devices"
fi
tap_check "cumc-fm --help" in_root cumc-fm --help
tap_check "cumc-imex --help" in_root cumc-imex --help
grep -q '^cumc ' /proc/modules && rmmod cumc

# Remove, then purge: the conffile stays until the purge.
chroot "$root" dpkg-query -L "${packages[@]}" 2>/dev/null | sort -u >"$ov/files"
if in_root dpkg -r "${packages[@]}"; then
	tap_ok "dpkg -r ${packages[*]}"
else
	show_log
	tap_not_ok "dpkg -r ${packages[*]}"
fi
tap_check "after dpkg -r, the module is gone and cumc.conf stays" \
	test ! -e "$root$ko" -a ! -e "$root/usr/src/cumc-$version" \
	-a ! -e "$root/var/lib/dkms/cumc" -a -f "$root/etc/modprobe.d/cumc.conf"
if in_root dpkg --purge "${packages[@]}"; then
	tap_ok "dpkg --purge ${packages[*]}"
else
	show_log
	tap_not_ok "dpkg --purge ${packages[*]}"
fi
for p in "${packages[@]}"; do
	tap_check "dpkg: $p is not installed" \
		bash -c "! chroot '$root' dpkg-query -W -f='\${Status}' '$p' 2>/dev/null | grep -q installed"
done
# Every file of the packages is gone; directories stay when others use them.
left=$(while read -r f; do
	[ -e "$root$f" ] && [ ! -d "$root$f" ] && echo "$f"
done <"$ov/files")
tap_check "no file of the packages is left ($(wc -l <"$ov/files") listed)" test -z "$left"
[ -z "$left" ] || echo "$left" | sed 's/^/# left: /'
# Nor anything new but dpkg's and dkms's records: whatever the overlay's
# upper layer holds that the host's root has not (whiteouts are removals).
new=$(cd "$ov/upper" && find . -mindepth 1 ! -type c -printf '/%P\n' |
	while read -r f; do [ -e "$f" ] || echo "$f"; done |
	grep -vE '^/var/(lib/dpkg|log|cache/ldconfig|cache/man|lib/dkms)(/|$)')
tap_check "nothing new is left in the root but dpkg's and dkms's records" test -z "$new"
[ -z "$new" ] || echo "$new" | sed 's/^/# left: /'

tap_end
