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
eq abiname "$(kernel_abiname 6.12.95-1~bpo12+1)" 6.12.95+deb12
eq abiname-security "$(kernel_abiname 6.12.117-1~deb12u1)" 6.12.117+deb12
eq abiname-7 "$(kernel_abiname 7.3.4-1~bpo13+1)" 7.3.4+deb13
eq abiname-suite "$(kernel_abiname 6.12.117-1 13)" 6.12.117+deb13
eq abiname-unknown "$(kernel_abiname 6.12.117-1 || echo none)" none
eq debian-release "$(kernel_debian_release 7.3.4-1~bpo13+1)" 13
eq debian-release-none "$(kernel_debian_release 6.12.117-1 || echo none)" none
eq suite-release "$(suite_debian_release trixie-backports) $(suite_debian_release bookworm-security)" "13 12"
eq suite-release-unknown "$(suite_debian_release sid || echo none)" none
for release in 6.12 7.3 7.3.4 10.0; do
	kernel_release_prefix "$release" || {
		echo "FAIL: release '$release' not taken"
		failures=$((failures + 1))
	}
done
for bad in 7 7.3.4.1 7.3.4-1~bpo13+1 7.x latest ""; do
	if kernel_release_prefix "$bad"; then
		echo "FAIL: '$bad' taken as a release"
		failures=$((failures + 1))
	fi
done
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

# The image of a kernel package (under /boot) and of 7.x's split ones.
mkdir -p "$tmp/a/root/boot" "$tmp/b/root/usr/lib/modules/7.3.4+deb13-amd64"
: >"$tmp/a/root/boot/vmlinuz-6.12.95+deb12-amd64"
: >"$tmp/b/root/usr/lib/modules/7.3.4+deb13-amd64/vmlinuz.unsigned"
eq image-boot "$(kernel_image "$tmp/a" 6.12.95+deb12-amd64)" "$tmp/a/root/boot/vmlinuz-6.12.95+deb12-amd64"
eq image-split "$(kernel_image "$tmp/b" 7.3.4+deb13-amd64)" \
	"$tmp/b/root/usr/lib/modules/7.3.4+deb13-amd64/vmlinuz.unsigned"
eq image-none "$(kernel_image "$tmp/a" 7.3.4+deb13-amd64 || echo none)" none

[ $failures = 0 ] && echo "kernel version helpers: all cases pass" || exit 1
