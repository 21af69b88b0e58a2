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
	# One engine per vCPU, 128 OCUs an engine (256 at least) by default;
	# an explicit count is kept, and capped at 32.
	cpus=$(sed -n 's/^engines: default .* cpus \([0-9]*\)$/\1/p' "$OUT/log")
	[ -n "$cpus" ] || fail "no engine counts in the log"
	want_ocus=$((128 * cpus > 256 ? 128 * cpus : 256))
	grep -qx "engines: default $cpus ocus $want_ocus cpus $cpus" "$OUT/log" ||
		fail "the default is not one engine per vCPU with $want_ocus OCUs"
	grep -qx 'engines: engines=3 3 ocus 384 cpus [0-9]*' "$OUT/log" ||
		fail "engines=3 did not give 3 engines and 384 OCUs"
	grep -qx 'engines: engines=40 32 ocus 4096 cpus [0-9]*' "$OUT/log" ||
		fail "engines=40 was not capped at 32 engines (4096 OCUs)"
	grep -qx 'engines: engines=2 ocus=100 2 ocus 100 cpus [0-9]*' "$OUT/log" ||
		fail "an explicit ocus=100 was not kept"
	echo "ok: rdma_xrxe loads, creates xrxe0/xrxe1 and unloads cleanly; switch_driver swaps drivers in one boot; one engine per vCPU ($cpus)"
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
# The engines and the OCU table the module starts with, by default and
# when the parameters name them.
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
engines() {
	echo "engines: ${*:-default}" \
		"$(($(wc -l </sys/kernel/debug/rdma_xrxe/engines) - 1))" \
		"ocus $(cat /sys/module/rdma_xrxe/parameters/ocus) cpus $(nproc)"
}
engines
for params in engines=3 engines=40 "engines=2 ocus=100"; do
	remove_driver xrxe || { echo "$DEVICES_ERROR"; exit 1; }
	# shellcheck disable=SC2086 # one word a parameter
	load_driver xrxe $params || { echo "$DEVICES_ERROR"; exit 1; }
	engines $params
done
