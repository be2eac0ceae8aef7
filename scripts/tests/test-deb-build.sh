#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/tests/test-deb-build.sh [DEBDIR]: host lane of make check. Builds
# the Debian packages with scripts/build-deb (dpkg-buildpackage -us -uc -b,
# then lintian) into DEBDIR (default build/deb) and checks that every binary
# package came out, with the UAPI headers and the modules-load.d example, that
# the build ran the host unit tests (debian/rules' override_dh_auto_test) and
# that lintian found no error and no warning. Installing
# them is scripts/tests/test-deb.sh, in the VM ('make deb-check'). Prints TAP.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
debdir=$(realpath -m "${1:-$top/build/deb}")
# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"

version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# A minute or two, quiet: a TAP comment every 30 s meanwhile.
# shellcheck disable=SC2016 # expanded by sh
"$top/scripts/progress" "# test-deb-build: building" -- \
	sh -c '"$@" >"$0" 2>&1' "$log" "$top/scripts/build-deb" "$debdir" 2>&1
status=$?

# build-deb clears DEBDIR first: a .changes there is this build's.
changes=$debdir/cumc_${version}_$(dpkg --print-architecture).changes
if [ -f "$changes" ]; then
	tap_ok "dpkg-buildpackage -us -uc -b builds cumc $version"
else
	sed 's/^/# /' "$log"
	tap_not_ok "dpkg-buildpackage -us -uc -b builds cumc $version"
fi
for p in libcumc1 libcumc-dev cumc-tools cumc-dkms; do
	if ls "$debdir/${p}_${version}_"*.deb >/dev/null 2>&1; then
		tap_ok "$p $version"
	else
		tap_not_ok "$p $version"
	fi
done
# contains PACKAGE PATH: the package's .deb holds PATH.
contains() {
	dpkg-deb -c "$debdir/${1}_${version}_"*.deb 2>/dev/null |
		awk '{ print $NF }' | grep -qx ".$2"
}
contains libcumc-dev /usr/include/cumc/linux/cumc.h &&
	contains libcumc-dev /usr/include/cumc/linux/cumc_netlink.h
tap_result $? "libcumc-dev ships the UAPI headers in /usr/include/cumc/linux/"
contains cumc-dkms /etc/modules-load.d/cumc.conf
tap_result $? "cumc-dkms ships /etc/modules-load.d/cumc.conf"
grep -q 'make.*check-host' "$log" && grep -q '^[0-9]* passed, 0 failed' "$log"
tap_result $? "the package's build ran the host unit tests (make check-host), all passed" ||
	sed -n '/check-host/,/passed,/p' "$log" | sed 's/^/# /'
if [ -f "$changes" ] && [ $status = 0 ]; then
	tap_ok "lintian: no error, no warning"
else
	sed -n '/^=== lintian/,$p' "$log" | sed 's/^/# /'
	tap_not_ok "lintian: no error, no warning"
fi

tap_end
