#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make install / make uninstall into a staging root, run inside the VM
# (part of the --vm list of make check): every file lands, the symlinks
# resolve, modprobe loads the installed module from the staging root, a
# program built with pkg-config against the installed library runs, and
# uninstall leaves no file behind. Prints TAP.
#
# scripts/vm-run loaded kmod/cumc.ko before this test and unloads 'cumc'
# after it: the test unloads it, loads the installed copy, and at the end
# loads the build tree's module again with the parameters it had.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
prefix=/usr/local
# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"

tap_need_vm_root

stage=$(mktemp -d /tmp/cumc-stage.XXXXXX)
work=$(mktemp -d /tmp/cumc-install-test.XXXXXX)
kver=$(uname -r)
version=$(sed -n 's/^VERSION := //p' "$top/Makefile")
# The parameters the module was loaded with, to load it again as it was.
params=()
for p in /sys/module/cumc/parameters/*; do
	[ -r "$p" ] && params+=("$(basename "$p")=$(<"$p")")
done

restore_module() {
	grep -q '^cumc ' /proc/modules && rmmod cumc
	insmod "$top/kmod/cumc.ko" "${params[@]}"
}
trap 'restore_module; rm -rf "$stage" "$work"' EXIT

# 1. Install.
if make -s install DESTDIR="$stage" PREFIX="$prefix" >"$work/install.log" 2>&1; then
	tap_ok "make install DESTDIR PREFIX=$prefix"
else
	cat "$work/install.log"
	tap_not_ok "make install DESTDIR PREFIX=$prefix"
fi

# 2. Every file, the symlinks and the pkg-config prefix.
files=(
	"$prefix/lib/libcumc.so.$version" "$prefix/lib/libcumc.a"
	"$prefix/include/cumc/cuda.h" "$prefix/include/cumc/cumc.h"
	"$prefix/include/cumc/linux/cumc.h" "$prefix/include/cumc/linux/cumc_netlink.h"
	"$prefix/lib/pkgconfig/libcumc.pc"
	"$prefix/share/man/man3/libcumc.3" "$prefix/share/man/man3/cumcMultimemSt.3"
	"$prefix/share/man/man3/cumcMultimemLdReduce.3"
	"$prefix/share/man/man3/cumcMultimemRed.3"
	/etc/udev/rules.d/60-cumc.rules /etc/modprobe.d/cumc.conf
	/etc/modules-load.d/cumc.conf
	"/lib/modules/$kver/updates/cumc.ko"
)
for t in cumcctl cumc-fm cumc-imex; do
	[ -x "build/tools/$t" ] && files+=("$prefix/bin/$t")
	[ -x "build/tools/$t" ] && [ -f "man/$t.8" ] && files+=("$prefix/share/man/man8/$t.8")
done
missing=()
for f in "${files[@]}"; do
	[ -f "$stage$f" ] || missing+=("$f")
done
tap_check "all ${#files[@]} files installed${missing:+ (missing: ${missing[*]})}" \
	test ${#missing[@]} = 0
tap_check "libcumc.so -> libcumc.so.1 -> libcumc.so.$version" \
	test "$(readlink "$stage$prefix/lib/libcumc.so")" = libcumc.so.1 -a \
	"$(readlink "$stage$prefix/lib/libcumc.so.1")" = libcumc.so.$version -a \
	"$(readlink -e "$stage$prefix/lib/libcumc.so")" = "$stage$prefix/lib/libcumc.so.$version"
tap_check "the installed library's SONAME is libcumc.so.1" \
	bash -c "objdump -p '$stage$prefix/lib/libcumc.so.$version' | grep -qE 'SONAME +libcumc\.so\.1$'"
tap_check "modules-load.d/cumc.conf is the example, its cumc line commented" \
	bash -c "cmp -s packaging/modules-load.d/cumc.conf '$stage/etc/modules-load.d/cumc.conf' &&
		grep -qx '#cumc' '$stage/etc/modules-load.d/cumc.conf'"
tap_check "libcumc.pc: prefix=$prefix" grep -qx "prefix=$prefix" "$stage$prefix/lib/pkgconfig/libcumc.pc"
tap_check "man pages render without warnings" \
	bash -c "cd '$stage$prefix/share/man' && ! groff -s -man -ww -z man3/*.3 man8/*.8 2>&1 | grep ."

# 3. The installed module, through modprobe from the staging root.
rmmod cumc
# Only cumc.ko is in the stage: no modules.order or modules.builtin to read.
depmod -b "$stage" "$kver" 2>/dev/null
tap_check "modprobe -d finds the installed module" \
	bash -c "modprobe -d '$stage' --show-depends cumc | grep -q '$stage/lib/modules/$kver/updates/cumc.ko'"
tap_check "modprobe -d STAGE cumc num_devices=3" modprobe -d "$stage" cumc num_devices=3
tap_check "/dev/cumc is there" test -c /dev/cumc

# 4. A program built with pkg-config against the installed library.
cat >"$work/prog.c" <<'PROG'
#include <stdio.h>
#include <stdlib.h>
#include <cuda.h>
#include <cumc.h>
#include <linux/cumc.h>
#include <linux/cumc_netlink.h>

#define TRY(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { \
	printf("# %s: %d\n", #call, (int)r_); return 1; } } while (0)

int main(int argc, char **argv)
{
	CUmemAllocationProp prop = { 0 };
	CUmemGenericAllocationHandle h;
	size_t gran;
	int count;

	TRY(cuInit(0));
	TRY(cuDeviceGetCount(&count));
	printf("# %d devices, cumc UAPI %d, netlink family %s\n", count,
	       CUMC_API_VERSION, CUMC_GENL_NAME);
	if (argc != 2 || count != atoi(argv[1]))
		return 1;
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = 0;
	TRY(cuMemGetAllocationGranularity(&gran, &prop,
					  CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	TRY(cuMemCreate(&h, gran, &prop, 0));
	TRY(cuMemRelease(h));
	return 0;
}
PROG
# The .pc file names the final prefix; the sysroot points it at the stage.
pc() {
	PKG_CONFIG_PATH="$stage$prefix/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$stage" \
		pkg-config "$@" libcumc
}
tap_check "pkg-config --modversion libcumc is $version" test "$(pc --modversion)" = "$version"
# shellcheck disable=SC2046 # the flags are words
if cc -std=c11 -Wall -Werror -o "$work/prog" "$work/prog.c" $(pc --cflags --libs); then
	tap_ok "a program including cuda.h, cumc.h, linux/cumc.h, linux/cumc_netlink.h builds with pkg-config --cflags --libs libcumc"
else
	tap_not_ok "a program including cuda.h, cumc.h, linux/cumc.h, linux/cumc_netlink.h builds with pkg-config --cflags --libs libcumc"
fi
tap_check "it links the installed library" \
	bash -c "LD_LIBRARY_PATH='$stage$prefix/lib' ldd '$work/prog' | grep -q '$stage$prefix/lib/libcumc.so.1 '"
tap_check "libcumc is also lib/cumc/libcuda.so.1, off the library path" \
	test "$(readlink -f "$stage$prefix/lib/cumc/libcuda.so.1")" = \
	"$(readlink -f "$stage$prefix/lib/libcumc.so.1")"
tap_check "cumc's NVML is lib/cumc/libnvidia-ml.so.1, off the library path" \
	test -f "$stage$prefix/lib/cumc/libnvidia-ml.so.1" -a \
	! -e "$stage$prefix/lib/libnvidia-ml.so.1"
# The 3 asked for, after the PCI GPUs the driver bound.
devices=$((3 + $(ls /sys/bus/pci/drivers/cumc 2>/dev/null | grep -c :)))
tap_check "it runs: cuInit, cuDeviceGetCount ($devices), cuMemCreate, cuMemRelease" \
	env LD_LIBRARY_PATH="$stage$prefix/lib" "$work/prog" "$devices"
tap_check "rmmod cumc" rmmod cumc

# 5. Uninstall; depmod's own files were the test's doing.
if make -s uninstall DESTDIR="$stage" PREFIX="$prefix" >"$work/uninstall.log" 2>&1; then
	tap_ok "make uninstall DESTDIR PREFIX=$prefix"
else
	cat "$work/uninstall.log"
	tap_not_ok "make uninstall DESTDIR PREFIX=$prefix"
fi
rm -f "$stage/lib/modules/$kver"/modules.*
left=$(find "$stage" ! -type d)
tap_check "nothing left behind${left:+: ${left//$'\n'/ }}" test -z "$left"
left=$(find "$stage" -mindepth 1 -type d -name 'cumc*')
tap_check "no cumc directory left behind" test -z "$left"

tap_end
