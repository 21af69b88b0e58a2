#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# usage: flush-domain-hunt.sh
# The records-then-tag workload through a flush domain, over and over, to
# catch a flush or a member that stops for good: `xrxe-coalesce-bench -t
# domain -q 4 -s 1024 -r 16 -M 4096` with 4 engines and MTU 9000 (the
# figures of a run are not judged, only that every round completes, every
# tag after its records, and that the flush watchdog never had to start
# a flush: xrxe_domain_flush_rescues stays 0). XRXE_FDOM_HUNT_RUNS runs
# (default 4) with the protocol's test delays off, then as many with them
# on (debugfs rdma_xrxe/fdom_delay_us, XRXE_FDOM_HUNT_DELAY_US, default
# 30), each with a window of XRXE_FDOM_HUNT_WINDOW seconds (default 10),
# in a guest of XRXE_FDOM_HUNT_CPUS vCPUs (default 4): on two host CPUs
# the vCPU threads are preempted, which opens the windows real parallelism
# opens on a many-core host. A stuck run prints every QP's status page.

if [ "${1:-}" != --guest ]; then
	. "$(dirname "$0")/lib.sh"
	runs=${XRXE_FDOM_HUNT_RUNS:-4}
	window=${XRXE_FDOM_HUNT_WINDOW:-10}
	cpus=${XRXE_FDOM_HUNT_CPUS:-4}
	tool=$XRXE_BUILD/bench/xrxe-coalesce-bench
	[ -x "$tool" ] || fail "$tool is not built"
	# A run is the warm-up, the window and at most 30 s of drain.
	"$TESTBED" run --module xrxe --cpus "$cpus" --memory 4096 \
		--timeout $((300 + 2 * runs * (window + 40))) "${GUEST_ENV[@]}" \
		--env DEVICES_LIB="$DEVICES_LIB" --env TOOL="$tool" --env RUNS="$runs" \
		--env WINDOW="$window" --env DELAY_US="${XRXE_FDOM_HUNT_DELAY_US:-30}" \
		-- "${GUEST_HALF[@]}" | tee "$OUT/log"
	grep -q '^fdom-hunt: PASS' "$OUT/log" || fail "the flush-domain hunt did not pass"
	echo "ok: flush-domain hunt, $runs runs without and $runs with the test delays, $cpus vCPUs"
	exit 0
fi

# ---- In the guest ----
set -uo pipefail
# shellcheck source=../../tools/testbed-guest/guest-devices.sh
. "$DEVICES_LIB"
knob=$XRXE_DEBUGFS/fdom_delay_us
rescues=xrxe_domain_flush_rescues

die() {
	echo "fdom-hunt: FAIL: $*"
	exit 1
}

remove_driver xrxe && load_driver xrxe engines=4 && add_devices xrxe ||
	die "setup: $DEVICES_ERROR"
for dev in "${NETDEVS[@]}"; do
	ip link set dev "$dev" mtu 9000 || die "MTU 9000 on $dev"
done
# The ports must be active at 4096 again after the MTU change.
sleep 2
mount_debugfs || die "$DEVICES_ERROR"
[ -w "$knob" ] || die "$knob is missing"

failed=0
for delay in 0 "$DELAY_US"; do
	echo "$delay" >"$knob" || die "writing $knob"
	for run in $(seq "$RUNS"); do
		if out=$("$TOOL" -t domain -D xrxe -q 4 -s 1024 -r 16 -M 4096 \
			-w "$WINDOW" -W 1 2>&1); then
			echo "delay $delay us, run $run: ok," \
				"$(grep -o '"records_per_s": [0-9.]*' <<<"$out")"
		else
			failed=$((failed + 1))
			echo "delay $delay us, run $run: FAILED"
			echo "$out" | tail -n 8
		fi
	done
done
echo 0 >"$knob"
n=$(cat /sys/class/infiniband/xrxe[01]/ports/1/hw_counters/$rescues |
	awk '{s += $1} END {print s + 0}')
[ "$n" = 0 ] || die "the flush watchdog started $n flushes that missed their wake-up"
[ "$failed" = 0 ] || die "$failed of $((2 * RUNS)) runs failed"
echo "fdom-hunt: PASS ($((2 * RUNS)) runs, no flush rescued)"
