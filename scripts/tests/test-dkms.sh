#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms add and dkms build of the module's source tree (make install-dkms)
# against the Debian kernel headers scripts/vm-run boots, in a temporary
# DKMS tree (--dkmstree, --sourcetree): the system's /var/lib/dkms,
# /usr/src and /lib/modules are not touched. Runs on the host; prints TAP.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"

kver=$(scripts/vm-kernel 2>/dev/null)
if ! command -v dkms >/dev/null || [ -z "$kver" ] || [ ! -e "/lib/modules/$kver/build/Makefile" ]; then
	tap_skip_all "needs dkms and kernel headers (scripts/deps)"
fi
version=$(sed -n 's/^VERSION := *//p' Makefile)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dkms_args=(-m cumc -v "$version" --sourcetree "$tmp/src" --dkmstree "$tmp/tree")
mkdir -p "$tmp/tree"
# No module signing: dkms would otherwise create a key in /var/lib/dkms.
export sign_file=/nonexistent

tap_check "dkms.conf's PACKAGE_VERSION is the Makefile's VERSION ($version)" \
	grep -qx "PACKAGE_VERSION=\"$version\"" dkms.conf
tap_check "make install-dkms" \
	make -s install-dkms DESTDIR= DKMS_SRCDIR="$tmp/src/cumc-$version"
tap_check "the source tree has kmod/, uapi/ and dkms.conf" \
	test -f "$tmp/src/cumc-$version/kmod/Kbuild" -a \
	-f "$tmp/src/cumc-$version/uapi/linux/cumc.h" -a \
	-f "$tmp/src/cumc-$version/dkms.conf"
if dkms add "${dkms_args[@]}" >"$tmp/add.log" 2>&1; then
	tap_ok "dkms add"
else
	cat "$tmp/add.log"
	tap_not_ok "dkms add"
fi
if dkms build "${dkms_args[@]}" -k "$kver" >"$tmp/build.log" 2>&1; then
	tap_ok "dkms build -k $kver"
else
	cat "$tmp/build.log"
	find "$tmp/tree" -name make.log -exec cat {} +
	tap_not_ok "dkms build -k $kver"
fi
ko=$(find "$tmp/tree/cumc/$version/$kver" -name cumc.ko 2>/dev/null | head -n 1)
tap_check "the built cumc.ko is for $kver" \
	test -n "$ko" -a "$(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1)" = "$kver"
# -Werror is make's (CUMC_WERROR=y), not DKMS's: a user's newer compiler
# with new warnings must still build the module.
# werror CMDFILE: the compiler's command line in Kbuild's CMDFILE has a
# plain -Werror (the kernel's own -Werror=NAME do not count).
werror() {
	grep -qE -- '-Werror( |$)' "$1"
}
# DKMS removes its build directory: one object again, in the source tree,
# the way dkms.conf's MAKE (kmod/Makefile) calls Kbuild: no CUMC_WERROR.
cmd=$tmp/src/cumc-$version/kmod/.cumc_main.o.cmd
make -C "/lib/modules/$kver/build" M="$tmp/src/cumc-$version/kmod" \
	cumc_main.o >"$tmp/one.log" 2>&1
[ -e "$cmd" ] && grep -q -- -Wall "$cmd" && ! werror "$cmd"
tap_result $? "the DKMS build compiles without -Werror" || tail -n 5 "$tmp/one.log"
if [ -e kmod/.cumc_main.o.cmd ]; then
	tap_check "make's build of kmod/ compiles with -Werror" \
		werror kmod/.cumc_main.o.cmd
else
	tap_skip "make's build of kmod/ compiles with -Werror" "kmod/ not built (make kmod)"
fi
tap_check "dkms status: built" \
	bash -c "dkms status --dkmstree '$tmp/tree' --sourcetree '$tmp/src' cumc | grep -q ': built'"
tap_end
