#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# 'cmake --install' of a build tree (staged with DESTDIR) puts the provider
# where libibverbs loads it, its .driver file where libibverbs reads it, the
# man pages, the xrxedv header, the library and its pkg-config file; a
# program built with pkg-config's flags links and runs against the staged
# library.
set -euo pipefail
build=${1:?usage: test-install.sh BUILD_DIR}
. "$(dirname "$0")/lib.sh"
stage=$scratch

DESTDIR=$stage cmake --install "$build" >"$stage.log" 2>&1 ||
	{ cat "$stage.log"; rm -f "$stage.log"; echo "FAIL: cmake --install"; exit 1; }
rm -f "$stage.log"
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")
arch=$(gcc -print-multiarch)
root=$stage$prefix
libdir=$root/lib/$arch

[ -f "$libdir/libxrxe.so.1" ] || fail "no libxrxe.so.1 in $prefix/lib/$arch"
[ "$(objdump -p "$libdir/libxrxe.so.1" | awk '$1 == "SONAME" { print $2 }')" = libxrxe.so.1 ] ||
	fail "libxrxe.so.1's SONAME is not libxrxe.so.1"
plugin=$libdir/libibverbs/libxrxe-rdmav34.so
[ "$(readlink "$plugin")" = ../libxrxe.so.1 ] && [ -f "$plugin" ] ||
	fail "the provider link $plugin does not lead to ../libxrxe.so.1"
driver=$(cat "$stage/etc/libibverbs.d/xrxe.driver" 2>/dev/null || true)
if [ "$prefix" = /usr ]; then
	want="driver xrxe"
else
	want="driver $prefix/lib/$arch/libibverbs/libxrxe"
fi
[ "$driver" = "$want" ] || fail "/etc/libibverbs.d/xrxe.driver says '$driver', not '$want'"
for h in infiniband/xrxedv.h rdma/rdma_user_xrxe.h; do
	[ -f "$root/include/$h" ] || fail "no $h"
done

# A man page per xrxedv call the library exports, and xrxe(7).
calls=$(objdump -T "$libdir/libxrxe.so.1" | awk '$NF ~ /^xrxedv_/ { print $NF }' | sort)
[ -n "$calls" ] || fail "libxrxe.so.1 exports no xrxedv call"
for page in xrxe.7 $(for c in $calls; do echo "$c.3"; done); do
	f=$root/share/man/man${page##*.}/$page
	[ -f "$f" ] || { fail "no man page $page"; continue; }
	grep -q '^\.TH' "$f" || fail "man page $page is not roff (no .TH)"
done

# A program links the direct verbs through pkg-config and runs.
cat >"$stage/dv.c" <<'PROG'
#include <infiniband/xrxedv.h>
#include <rdma/rdma_user_xrxe.h>
#include <stdio.h>

int main(void)
{
	/* Each call's address, resolved by the dynamic linker. */
	void *calls[] = { (void *)xrxedv_qp_set_doorbell_mode, (void *)xrxedv_query_sq,
			  (void *)xrxedv_qp_set_ocu };

	_Static_assert(sizeof(struct xrxe_qp_status) > 0, "the ABI header declares the status");
	printf("linked %zu calls\n", sizeof(calls) / sizeof(calls[0]));
	return 0;
}
PROG
flags=$(PKG_CONFIG_PATH=$libdir/pkgconfig PKG_CONFIG_SYSROOT_DIR=$stage \
	pkg-config --cflags --libs libxrxe) || fail "pkg-config knows no libxrxe"
# shellcheck disable=SC2086
if gcc -o "$stage/dv" "$stage/dv.c" $flags; then
	out=$(LD_LIBRARY_PATH=$libdir "$stage/dv") || fail "the linked program failed: $out"
	[ "$out" = "linked 3 calls" ] || fail "the linked program printed '$out'"
	ldd_out=$(LD_LIBRARY_PATH=$libdir ldd "$stage/dv")
	grep -q "libxrxe.so.1 => $libdir/libxrxe.so.1" <<<"$ldd_out" ||
		fail "the program does not load the staged libxrxe.so.1: $ldd_out"
else
	fail "a program does not build with pkg-config's flags: $flags"
fi

[ $failures = 0 ] || exit 1
echo "ok: install layout, $(wc -w <<<"$calls") xrxedv man pages and a pkg-config build"
