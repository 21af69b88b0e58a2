#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Kernel version helpers of tools/lib/common.sh.
set -euo pipefail
. "$(dirname "$0")/../../tools/lib/common.sh"
failures=0

eq() {
	if [ "$2" != "$3" ]; then
		echo "FAIL: $1: got '$2', want '$3'"
		failures=$((failures + 1))
	fi
}

eq upstream "$(kernel_upstream_version 6.12.95-1~bpo12+1)" 6.12.95
eq upstream-security "$(kernel_upstream_version 6.12.117-1~deb12u1)" 6.12.117
eq series "$(kernel_series 6.12.95)" 6.12
eq abiname "$(kernel_abiname 6.12.95)" 6.12.95+deb12
eq pinned-parses "$(kernel_upstream_version "$(pinned_kernel_version)" >/dev/null && echo yes)" yes
for bad in 6.12 6.12.95 "6.12.95-1 ; rm" latest ""; do
	if kernel_upstream_version "$bad" >/dev/null 2>&1; then
		echo "FAIL: '$bad' accepted as a kernel package version"
		failures=$((failures + 1))
	fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'VERSION=6.12.95-1~bpo12+1\nRELEASE=6.12.95+deb12-amd64\nABINAME=6.12.95+deb12\nSERIES=6.12\nEVIL=x\n' >"$tmp/info"
load_kernel_info "$tmp"
eq info-release "$KINFO_RELEASE" 6.12.95+deb12-amd64
eq info-version "$KINFO_VERSION" 6.12.95-1~bpo12+1
eq info-ignores-unknown "${KINFO_EVIL:-unset}" unset

[ $failures = 0 ] && echo "kernel version helpers: all cases pass" || exit 1
