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

# The Debian package version the kernel series is pinned to.
pinned_kernel_version() {
	tr -d ' \n' <"$XRXE_TOP/kernel-patch/KERNEL_VERSION"
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

# Debian's ABI name for a bookworm build of the 6.12 series: "6.12.95+deb12"
kernel_abiname() {
	echo "$1+deb12"
}

# Directory of one unpacked kernel in the cache.
kernel_dir() {
	echo "$XRXE_CACHE/kernel/$1"
}

# Kernel headers to build modules against, inside an unpacked kernel DIR.
kernel_headers_dir() {
	echo "$1/root/usr/src/linux-headers-$2"
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
