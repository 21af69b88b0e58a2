#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# usage: installed.sh
# The Debian packages, installed, are what serves xrxe: they are built
# from this tree (tests/tools/test-debian-packages.sh, which also checks
# their contents), then installed with dpkg -i in a guest whose root is an
# overlay (xrxe-testbed --overlay-root: the host's root is not changed),
# with no RDMAV_DRIVERS. Before the install libibverbs must not serve the
# xrxe devices; after it ibv_devices lists them, ibv_rc_pingpong and
# ibv_ud_pingpong pass with every payload checked, and a program built
# with pkg-config's flags for libxrxe (libxrxe-dev) finds a doorbell-less
# send queue through xrxedv_query_sq().

if [ "${1:-}" != --guest ]; then
	. "$(dirname "$0")/lib.sh"
	debs=$OUT/debs
	rm -rf "$debs"
	"$TOP/tests/tools/test-debian-packages.sh" "$debs" ||
		fail "the Debian packages did not build"
	"$TESTBED" run --module xrxe --overlay-root "${GUEST_ENV[@]}" \
		--env PAIR_LIB="$PAIR_LIB" --env INSTALLED_DEBS="$debs" \
		-- "${GUEST_HALF[@]}" | tee "$OUT/log"
	grep -q "^installed: PASS" "$OUT/log" || fail "the installed packages did not serve xrxe"
	exit 0
fi

# ---- In the guest ----
set -uo pipefail
fail() { echo "installed: FAIL: $*"; exit 1; }
# What an installed system has: no pointer into a build tree.
unset RDMAV_DRIVERS XRXE_PROVIDER

ibv_devices 2>&1 | grep -qw xrxe0 &&
	fail "xrxe0 is served before the packages are installed (a provider outside them?)"
arch=$(dpkg --print-architecture)
# man-db's trigger would rebuild the whole manual's index under emulation
# (minutes): without this file it skips that, as its own configuration allows.
rm -f /var/lib/man-db/auto-update
start=$SECONDS
dpkg -i "$INSTALLED_DEBS"/libxrxe1_*_"$arch".deb "$INSTALLED_DEBS"/libxrxe-dev_*_"$arch".deb >/tmp/dpkg.log 2>&1 ||
	fail "dpkg -i: $(tail -n 5 /tmp/dpkg.log)"
echo "installed in $((SECONDS - start)) s: $(dpkg-query -W -f '${Package} ${Version}, ' libxrxe1 libxrxe-dev)"
ibv_devices | grep -qw xrxe0 || fail "ibv_devices does not list xrxe0: $(ibv_devices 2>&1)"
ibv_devinfo -d xrxe0 | grep -q "transport:.*InfiniBand" ||
	fail "ibv_devinfo -d xrxe0: $(ibv_devinfo -d xrxe0 2>&1 | head -n 5)"

# shellcheck source=../../tools/testbed-guest/pair.sh
. "$PAIR_LIB"
for t in rc ud; do
	size=4096
	[ $t = ud ] && size=1024
	run_pair /tmp/pp-$t "ibv_${t}_pingpong -d xrxe0 -g 0 -n 50 -s $size -c" \
		"ibv_${t}_pingpong -d xrxe1 -g 0 -n 50 -s $size -c localhost" ||
		fail "ibv_${t}_pingpong: $(cat /tmp/pp-$t-status; tail -n 3 /tmp/pp-$t-client)"
	echo "ibv_${t}_pingpong: $(grep -m1 'iters in' /tmp/pp-$t-client)"
done

cat >/tmp/dv.c <<'PROG'
#include <infiniband/xrxedv.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct xrxedv_sq_info info;
	struct ibv_context *ctx = NULL;
	struct ibv_qp *qp;
	struct ibv_pd *pd;
	int i, ret;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), "xrxe0"))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		return printf("cannot open xrxe0\n"), 1;
	pd = ibv_alloc_pd(ctx);
	attr.send_cq = attr.recv_cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	qp = pd && attr.send_cq ? ibv_create_qp(pd, &attr) : NULL;
	if (!qp)
		return printf("cannot create a QP\n"), 1;
	ret = xrxedv_query_sq(qp, &info, sizeof(info));
	if (ret)
		return printf("xrxedv_query_sq: %s\n", strerror(ret)), 1;
	printf("doorbell-less send queue of %u slots\n", 1u << info.log2_slots);
	return 0;
}
PROG
# shellcheck disable=SC2046
gcc -o /tmp/dv /tmp/dv.c $(pkg-config --cflags --libs libxrxe) >/tmp/gcc.log 2>&1 ||
	fail "a program does not build with pkg-config's flags for libxrxe: $(tail -n 5 /tmp/gcc.log)"
echo "built with pkg-config's flags in $((SECONDS - start)) s since the install"
out=$(/tmp/dv) || fail "the xrxedv program: $out"
echo "xrxedv program: $out"
lib=$(ldd /tmp/dv | awk '$1 == "libxrxe.so.1" {print $3}')
owner=$(dpkg -S "$(realpath "${lib:-/nonexistent}")" 2>/dev/null | cut -d: -f1)
[ "$owner" = libxrxe1 ] ||
	fail "the program loads '$lib', not libxrxe1's: $(ldd /tmp/dv)"
echo "installed: PASS"
