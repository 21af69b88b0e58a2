#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# xrxe-series on a small fake kernel source: export writes kernel-headers/,
# check fails when the copy is not the series' header (without touching a
# work tree with unexported commits), prepare keeps a current work tree and
# remakes one the series has moved away from.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/tools/lib.sh"
tmp=$scratch

# A source tree of its own, so the real kernel-patch/ and kernel-headers/
# are never written.
top=$tmp/top
mkdir -p "$top/tools/lib" "$top/kernel-patch"
cp "$src/tools/xrxe-series" "$src/tools/xrxe-kernel" "$top/tools/"
cp "$src/tools/lib/common.sh" "$top/tools/lib/"
version=6.12.95-1~bpo12+1
echo "$version" >"$top/kernel-patch/KERNEL_VERSION"
series=$top/tools/xrxe-series
export XRXE_BUILD=$tmp/build XRXE_CACHE=$tmp/cache

# The cached source of a kernel, as 'xrxe-kernel source' leaves it.
kdir=$XRXE_CACHE/kernel/$version
mkdir -p "$kdir/src/drivers/infiniband/sw/rxe" "$kdir/src/include/uapi/rdma" "$kdir/src/scripts"
echo 'int rxe;' >"$kdir/src/drivers/infiniband/sw/rxe/rxe.c"
echo '/* rxe */' >"$kdir/src/include/uapi/rdma/rdma_user_rxe.h"
echo 'exit 0;' >"$kdir/src/scripts/checkpatch.pl"
printf 'VERSION=%s\nRELEASE=6.12.95+deb12-amd64\nABINAME=6.12.95+deb12\nSERIES=6.12\n' \
	"$version" >"$kdir/info"
touch "$kdir/.source-complete"

tree=$XRXE_BUILD/kernel/tree
commit() {
	git -C "$tree" add -A
	git -C "$tree" -c user.name=t -c user.email=t@t.invalid commit -q -m "$1"
}
copy=$top/kernel-headers/rdma/rdma_user_xrxe.h

"$series" prepare 2>/dev/null
echo '#define XRXE_ABI_VERSION 1' >"$tree/include/uapi/rdma/rdma_user_xrxe.h"
commit "Add the header"
"$series" export 2>/dev/null
cmp -s "$copy" "$tree/include/uapi/rdma/rdma_user_xrxe.h" || fail "export did not write the header's copy"
[ "$(cat "$top/kernel-patch/series")" = 0001-Add-the-header.patch ] || fail "export did not write the series"
"$series" check >/dev/null 2>&1 || fail "check fails on a series just exported"

echo '#define XRXE_ABI_VERSION 2' >"$copy"
rc=0
out=$("$series" check 2>&1) || rc=$?
[ $rc = 1 ] || fail "check exits $rc (want 1) when the copy differs"
grep -q "differs from the header the series produces" <<<"$out" || fail "check does not say which header differs"
grep -q "xrxe-series export" <<<"$out" || fail "check does not say how to fix the copy"
rm "$copy"
"$series" check >/dev/null 2>&1 && fail "check passes without the copy"
echo '#define XRXE_ABI_VERSION 1' >"$copy"

# An unexported commit: check compares with the series, the work tree stays.
echo '#define XRXE_ABI_VERSION 3' >"$tree/include/uapi/rdma/rdma_user_xrxe.h"
commit "Unexported"
head=$(git -C "$tree" rev-parse HEAD)
"$series" check >/dev/null 2>&1 || fail "check fails because of an unexported commit"
[ "$(git -C "$tree" rev-parse HEAD)" = "$head" ] || fail "check moved the work tree"
"$series" prepare 2>/dev/null && fail "prepare discarded an unexported commit"

# A work tree holding the series is left as it is.
git -C "$tree" reset -q --hard HEAD~1
head=$(git -C "$tree" rev-parse HEAD)
"$series" prepare 2>/dev/null || fail "prepare fails on a current work tree"
[ "$(git -C "$tree" rev-parse HEAD)" = "$head" ] || fail "prepare recreated a current work tree"

# A work tree left as export wrote it follows a series changed under it.
cp -r "$top/kernel-patch" "$tmp/before"
echo '#define XRXE_ABI_VERSION 4' >"$tree/include/uapi/rdma/rdma_user_xrxe.h"
commit "Change the header"
"$series" export 2>/dev/null
rm -r "$top/kernel-patch"
mv "$tmp/before" "$top/kernel-patch"
"$series" prepare 2>/dev/null || fail "prepare refuses a work tree unchanged since export"
[ "$(git -C "$tree" log --format=%s stock..HEAD)" = "Add the header" ] ||
	fail "prepare did not make the work tree of the series"

# build-each knows a patch by its content: the number export gives it in
# its subject, which a patch added at the end changes for every patch,
# does not change the key of its stamp; a change of its text does.
eval "$(sed -n '/^patch_key_text()/,/^}/p' "$src/tools/xrxe-series")"
printf 'From 0 Mon\nSubject: [PATCH 06/44] RDMA/rxe: x\n\nbody\nSubject: [PATCH 06/44] kept\n' >"$tmp/p44"
sed 's#06/44] RDMA#06/45] RDMA#' "$tmp/p44" >"$tmp/p45"
sed 's/^body/body changed/' "$tmp/p44" >"$tmp/p44b"
[ "$(patch_key_text "$tmp/p44")" = "$(patch_key_text "$tmp/p45")" ] ||
	fail "renumbering a patch's subject changes its build-each key"
[ "$(patch_key_text "$tmp/p44")" != "$(patch_key_text "$tmp/p44b")" ] ||
	fail "a change of a patch's text keeps its build-each key"
patch_key_text "$tmp/p44" | grep -q '^Subject: \[PATCH 06/44\] kept' ||
	fail "a subject-like line in a patch's body was changed"

[ $failures = 0 ] && echo "xrxe-series: all cases pass" || exit 1
