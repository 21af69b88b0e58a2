#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# xrxe-series on a small fake kernel source: export writes the hooks and
# the stock headers' copies, and refuses a hook that touches xrxe's own
# files; check fails when a copy is not the stock header (without touching a
# work tree with unexported commits); upstream puts xrxe's files before the
# hook that builds them, and check finds that series gives the module's
# sources; prepare keeps a current work tree and remakes one the series has
# moved away from.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/tools/lib.sh"
tmp=$scratch

# A source tree of its own, so the real kernel-patch/ and kernel-headers/
# are never written.
top=$tmp/top
mkdir -p "$top/tools/lib" "$top/kernel-patch/xrxe" "$top/kernel-headers/rdma"
cp "$src/tools/xrxe-series" "$src/tools/xrxe-kernel" "$top/tools/"
cp "$src/tools/lib/common.sh" "$top/tools/lib/"
touch "$top/kernel-patch/Kbuild" "$top/kernel-patch/dkms.conf"
version=6.12.95-1~bpo12+1
echo "$version" >"$top/kernel-patch/KERNEL_VERSION"
echo '/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The file of the test.
 */
int xrxe_a;' >"$top/kernel-patch/xrxe/xrxe_a.c"
echo '#define XRXE_ABI_VERSION 1' >"$top/kernel-headers/rdma/rdma_user_xrxe.h"
series=$top/tools/xrxe-series
export XRXE_BUILD=$tmp/build XRXE_CACHE=$tmp/cache

# The cached source of a kernel, as 'xrxe-kernel source' leaves it.
kdir=$XRXE_CACHE/kernel/$version
rxe=drivers/infiniband/sw/rxe
mkdir -p "$kdir/src/$rxe" "$kdir/src/include/uapi/rdma" "$kdir/src/scripts"
echo 'int rxe;' >"$kdir/src/$rxe/rxe.c"
echo 'rdma_rxe-y := rxe.o' >"$kdir/src/$rxe/Makefile"
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
copy=$top/kernel-headers/rdma/rdma_user_rxe.h
hooks=$top/kernel-patch/hooks

"$series" prepare 2>/dev/null
echo '/* rxe, hooked */' >"$tree/include/uapi/rdma/rdma_user_rxe.h"
echo 'rdma_rxe-y := rxe.o xrxe_a.o' >"$tree/$rxe/Makefile"
commit "Build the file"
cp "$tree/include/uapi/rdma/rdma_user_rxe.h" "$copy"
"$series" export 2>/dev/null
cmp -s "$copy" "$tree/include/uapi/rdma/rdma_user_rxe.h" || fail "export did not write the header's copy"
[ "$(cat "$hooks/series")" = 0001-Build-the-file.patch ] || fail "export did not write the series"
grep -q '^Subject: \[PATCH\] Build the file' "$hooks/0001-Build-the-file.patch" ||
	fail "export numbered the hook's subject"
"$series" check >/dev/null 2>&1 || fail "check fails on a series just exported"

# The upstream series: xrxe's header and file, then the hook.
"$series" upstream "$tmp/up" || fail "upstream fails"
[ "$(cat "$tmp/up/series")" = "0001-RDMA-rxe-Add-xrxe-s-rdma_user_xrxe.h.patch
0002-RDMA-rxe-Add-xrxe-s-xrxe_a.c.patch
0003-Build-the-file.patch" ] || fail "upstream wrote $(cat "$tmp/up/series")"
grep -q '^The file of the test\.$' "$tmp/up/0002-RDMA-rxe-Add-xrxe-s-xrxe_a.c.patch" ||
	fail "upstream did not describe a file by its opening comment"

echo '/* not the hook */' >"$copy"
rc=0
out=$("$series" check 2>&1) || rc=$?
[ $rc = 1 ] || fail "check exits $rc (want 1) when the copy differs"
grep -q "differs from the header the hooks produce" <<<"$out" || fail "check does not say which header differs"
grep -q "xrxe-series export" <<<"$out" || fail "check does not say how to fix the copy"
cp "$tree/include/uapi/rdma/rdma_user_rxe.h" "$copy"
rm "$top/kernel-headers/rdma/rdma_user_xrxe.h"
"$series" check >/dev/null 2>&1 && fail "check passes without xrxe's uapi header"
echo '#define XRXE_ABI_VERSION 1' >"$top/kernel-headers/rdma/rdma_user_xrxe.h"

# A hook that touches xrxe's own file is refused by export.
echo 'int xrxe_a = 1;' >"$tree/$rxe/xrxe_a.c"
commit "Touch xrxe's file"
rc=0
out=$("$series" export 2>&1) || rc=$?
[ $rc != 0 ] || fail "export wrote a hook that touches xrxe's own file"
grep -q "kernel-patch/xrxe/" <<<"$out" || fail "export does not say where xrxe's files live"
git -C "$tree" reset -q --hard HEAD~1

# An unexported commit: check compares with the series, the work tree stays.
echo 'int rxe = 3;' >"$tree/$rxe/rxe.c"
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
cp -r "$hooks" "$tmp/before"
echo 'int rxe = 4;' >"$tree/$rxe/rxe.c"
commit "Change rxe"
"$series" export 2>/dev/null
rm -r "$hooks"
mv "$tmp/before" "$hooks"
"$series" prepare 2>/dev/null || fail "prepare refuses a work tree unchanged since export"
[ "$(git -C "$tree" log --format=%s stock..HEAD)" = "Build the file" ] ||
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
