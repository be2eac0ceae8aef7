#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/tests/test-deb-build.sh [DEBDIR]: host lane of make check. Builds
# the Debian packages with scripts/build-deb (dpkg-buildpackage -us -uc -b,
# then lintian) into DEBDIR (default build/deb) and checks that every binary
# package came out and that lintian found no error and no warning. Installing
# them is scripts/tests/test-deb.sh, in the VM ('make deb-check'). Prints TAP.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
debdir=$(realpath -m "${1:-$top/build/deb}")
# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"

version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$top/scripts/build-deb" "$debdir" >"$log" 2>&1
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
if [ -f "$changes" ] && [ $status = 0 ]; then
	tap_ok "lintian: no error, no warning"
else
	sed -n '/^=== lintian/,$p' "$log" | sed 's/^/# /'
	tap_not_ok "lintian: no error, no warning"
fi

tap_end
