#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The assembled module source builds with dkms (in a private dkms tree, so
# the machine's dkms state is not touched).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
export XRXE_BUILD=${XRXE_BUILD:-$top/build}
. "$top/tools/lib/common.sh"
work=$XRXE_BUILD/dkms-test
rm -rf "$work"
mkdir -p "$work/source" "$work/tree"
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/kernel-patch/dkms.conf")
"$top/tools/xrxe-series" assemble "$work/source/xrxe-$version"
headers=$("$top/tools/xrxe-kernel" headers)
release=$(basename "$headers" | sed 's/^linux-headers-//')
run_dkms() {
	dkms --dkmstree "$work/tree" --sourcetree "$work/source" "$@" >>"$work/log" 2>&1 ||
		{ cat "$work/log"; echo "FAIL: dkms $*"; exit 1; }
}
run_dkms add "xrxe/$version"
run_dkms build "xrxe/$version" -k "$release" --kernelsourcedir "$headers"
ko=$(find "$work/tree/xrxe/$version/$release" -name 'rdma_xrxe.ko*' | head -1)
[ -n "$ko" ] || { echo "FAIL: dkms built no rdma_xrxe.ko"; exit 1; }
modinfo -F vermagic "$ko" | grep -q "^$release " || { echo "FAIL: wrong vermagic"; exit 1; }
echo "ok: dkms built $(basename "$ko") for $release"
rm -rf "$work"
