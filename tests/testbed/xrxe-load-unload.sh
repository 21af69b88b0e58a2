#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# rdma_xrxe loads beside the stock stack, creates xrxe0/xrxe1 of link type
# xrxe, which libxrxe binds and rdma-core's rxe provider does not, and
# unloads cleanly (the testbed fails the run if dmesg shows a problem).
# Within the same boot, the guest's switch_driver then brings up rdma_rxe
# with rxe0/rxe1 and goes back to rdma_xrxe, as the benchmark harness does.

if [ "${1:-}" != --guest ]; then
	. "$(dirname "$0")/lib.sh"
	"$TESTBED" run --module xrxe --env DEVICES_LIB="$DEVICES_LIB" \
		-- "${GUEST_HALF[@]}" | tee "$OUT/log"
	grep -q '^link xrxe0/1 state ACTIVE .*netdev veth0' "$OUT/log" || fail "xrxe0 not active on veth0"
	grep -q '^link xrxe1/1 state ACTIVE .*netdev veth1' "$OUT/log" || fail "xrxe1 not active on veth1"
	grep -qx 'xrxe' "$OUT/log" || fail "node_desc is not xrxe"
	sed -n '/== xrxe provider devices/,/== rxe provider devices/p' "$OUT/log" |
		grep -cE '^ +xrxe[01] ' | grep -qx 2 || fail "libxrxe does not list xrxe0 and xrxe1"
	sed -n '/== rxe provider devices/,/== unload/p' "$OUT/log" | grep -q xrxe &&
		fail "rdma-core's rxe provider claimed an xrxe device"
	grep -qx 'devices left: 0' "$OUT/log" || fail "devices left after unload"
	sed -n '/== switch to rxe/,/== switch to xrxe/p' "$OUT/log" | grep -cxE 'rxe[01]' |
		grep -qx 2 || fail "switch_driver rxe did not bring up rxe0 and rxe1"
	sed -n '/== switch to xrxe/,$p' "$OUT/log" | grep -cxE 'xrxe[01]' |
		grep -qx 2 || fail "switch_driver xrxe did not bring up xrxe0 and xrxe1"
	grep -q 'rdma_rxe still loaded' "$OUT/log" && fail "switch_driver xrxe left rdma_rxe loaded"
	grep -qE 'state:\s+PORT_ACTIVE' "$OUT/log" || fail "xrxe1 not usable after switching back"
	echo "ok: rdma_xrxe loads, creates xrxe0/xrxe1 and unloads cleanly; switch_driver swaps drivers in one boot"
	exit 0
fi

# ---- In the guest ----
# The first failing command ends the run with its status.
set -e
# shellcheck source=../../tools/testbed-guest/guest-devices.sh
. "$DEVICES_LIB"
echo "== rdma link"; rdma link
echo "== node_desc"; cat /sys/class/infiniband/xrxe0/node_desc
echo "== xrxe provider devices"; ibv_devices
echo "== rxe provider devices"; RDMAV_DRIVERS=rxe ibv_devices
echo "== unload"
remove_driver xrxe || { echo "$DEVICES_ERROR"; exit 1; }
if lsmod | grep -q "^rdma_xrxe "; then echo "still loaded"; exit 1; fi
ls /sys/class/infiniband | wc -l | sed "s/^/devices left: /"
echo "== switch to rxe"
switch_driver rxe || { echo "$DEVICES_ERROR"; exit 1; }
ls -1 /sys/class/infiniband
echo "== switch to xrxe"
switch_driver xrxe || { echo "$DEVICES_ERROR"; exit 1; }
ls -1 /sys/class/infiniband
lsmod | grep -q "^rdma_rxe " && echo "rdma_rxe still loaded"
ibv_devinfo -d xrxe1 | grep -E "^\s+state:"
