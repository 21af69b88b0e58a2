#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# rdma_xrxe loads beside the stock stack, creates xrxe0/xrxe1 of link type
# xrxe, which libxrxe binds and rdma-core's rxe provider does not, and
# unloads cleanly (the
# testbed fails the run if dmesg shows a problem).
. "$(dirname "$0")/lib.sh"

"$TESTBED" run --module xrxe -- bash -c '
	set -e
	echo "== rdma link"; rdma link
	echo "== node_desc"; cat /sys/class/infiniband/xrxe0/node_desc
	echo "== xrxe provider devices"; ibv_devices
	echo "== rxe provider devices"; RDMAV_DRIVERS=rxe ibv_devices
	echo "== unload"
	rdma link delete xrxe0
	rdma link delete xrxe1
	rmmod rdma_xrxe
	if lsmod | grep -q "^rdma_xrxe "; then echo "still loaded"; exit 1; fi
	ls /sys/class/infiniband | wc -l | sed "s/^/devices left: /"
' | tee "$OUT/log"
grep -q '^link xrxe0/1 state ACTIVE .*netdev veth0' "$OUT/log" || fail "xrxe0 not active on veth0"
grep -q '^link xrxe1/1 state ACTIVE .*netdev veth1' "$OUT/log" || fail "xrxe1 not active on veth1"
grep -qx 'xrxe' "$OUT/log" || fail "node_desc is not xrxe"
sed -n '/== xrxe provider devices/,/== rxe provider devices/p' "$OUT/log" |
	grep -cE '^ +xrxe[01] ' | grep -qx 2 || fail "libxrxe does not list xrxe0 and xrxe1"
sed -n '/== rxe provider devices/,/== unload/p' "$OUT/log" | grep -q xrxe &&
	fail "rdma-core's rxe provider claimed an xrxe device"
grep -qx 'devices left: 0' "$OUT/log" || fail "devices left after unload"
echo "ok: rdma_xrxe loads, creates xrxe0/xrxe1 and unloads cleanly"
