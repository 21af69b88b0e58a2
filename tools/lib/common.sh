# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Shared helpers for the xrxe tools. Sourced, never run.

XRXE_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# Downloaded kernels, unpacked trees and initramfs images live here, outside
# the source tree, and are reused by every later run.
XRXE_CACHE=${XRXE_CACHE:-/var/cache/xrxe}
# Series work tree and module build output: inside the build directory.
XRXE_BUILD=${XRXE_BUILD:-$XRXE_TOP/build}
XRXE_ARCH=amd64

die() {
	echo "${0##*/}: error: $*" >&2
	exit 2
}

note() {
	echo "${0##*/}: $*" >&2
}

# The Debian registry the kernels and build roots come from, and its keys.
DEBIAN_MIRROR=http://deb.debian.org/debian
DEBIAN_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

# kernel-patch/NAME's version, without blanks.
kernel_patch_version() {
	tr -d ' \n' <"$XRXE_TOP/kernel-patch/$1"
}

# The Debian package version of the kernel the testbed boots by default.
pinned_kernel_version() {
	kernel_patch_version KERNEL_VERSION
}

# The Debian package version of the kernel whose rxe is the hooks' base.
base_kernel_version() {
	kernel_patch_version BASE_VERSION
}

# "6.12.95-1~bpo12+1" -> "6.12.95"
kernel_upstream_version() {
	local v=$1
	[[ $v =~ ^([0-9]+\.[0-9]+\.[0-9]+)-[0-9A-Za-z.+~]+$ ]] ||
		return 1
	echo "${BASH_REMATCH[1]}"
}

# "6.12.95" -> "6.12" (the linux-source-X.Y package name suffix)
kernel_series() {
	echo "${1%.*}"
}

# A release to resolve to its newest packaged version: "7.3" or "7.3.4".
kernel_release_prefix() {
	[[ $1 =~ ^[0-9]+\.[0-9]+(\.[0-9]+)?$ ]]
}

# The Debian release a kernel package version was built for, from its
# suffix: "7.3.4-1~bpo13+1" and "6.12.117-1~deb12u1" -> 13 and 12. A
# version without one ("6.12.117-1") says it only through its suite.
kernel_debian_release() {
	[[ $1 =~ ~(bpo|deb)([0-9]+) ]] || return 1
	echo "${BASH_REMATCH[2]}"
}

# Debian release number of a suite: "trixie-backports" -> 13.
suite_debian_release() {
	case $1 in
	bookworm*) echo 12 ;;
	trixie*) echo 13 ;;
	*) return 1 ;;
	esac
}

# Debian's ABI name of a kernel package version, e.g. "7.3.4+deb13" for
# 7.3.4-1~bpo13+1; RELEASE is the Debian release when the version does not
# name one.
kernel_abiname() {
	local upstream release
	upstream=$(kernel_upstream_version "$1") || return 1
	release=$(kernel_debian_release "$1") || release=${2:-}
	[ -n "$release" ] || return 1
	echo "$upstream+deb$release"
}

# Directory of one unpacked kernel in the cache.
kernel_dir() {
	echo "$XRXE_CACHE/kernel/$1"
}

# Kernel headers to build modules against, inside an unpacked kernel DIR.
kernel_headers_dir() {
	echo "$1/root/usr/src/linux-headers-$2"
}

# The kernel image inside an unpacked kernel DIR of RELEASE: under /boot,
# or for the split packages of 7.x under /usr/lib/modules/RELEASE.
kernel_image() {
	local f
	for f in "$1/root/boot/vmlinuz-$2" "$1/root/usr/lib/modules/$2/vmlinuz" \
		"$1/root/usr/lib/modules/$2/vmlinuz.unsigned"; do
		[ -f "$f" ] && { echo "$f"; return; }
	done
	return 1
}

# Where rdma_xrxe.ko built for the kernel package VERSION lies: the
# default kernel's in build/kernel/module/, another's beside it.
module_dir() {
	if [ "$1" = "$(pinned_kernel_version)" ]; then
		echo "$XRXE_BUILD/kernel/module"
	else
		echo "$XRXE_BUILD/kernel/module-$1"
	fi
}

# Read KEY=VALUE lines of a kernel's info file into KINFO_* variables.
load_kernel_info() {
	local dir=$1 key val
	[ -f "$dir/info" ] || return 1
	while IFS='=' read -r key val; do
		case $key in
		VERSION | RELEASE | ABINAME | SERIES) printf -v "KINFO_$key" '%s' "$val" ;;
		esac
	done <"$dir/info"
}
