#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# usage: low-latency.sh
# Low-latency posting on xrxe0: the modes and the fallback of dropped
# commands (ll-modes), hostile commands (rejected or dropped with the
# doorbell rung, nothing else affected, dmesg clean), then the hunter with
# low-latency and ring posts interleaved from several threads, in modes
# idle and always, with every third command dropped by the test knob and
# without, and the engines' busy-poll window off and on: every WR completes
# once, in order, with its payload.
# Last, four threads posting to one shared QP (shared-qp: ibv_post_send and
# the ibv_wr_* API, random bursts and gaps, the busy-poll window off so that
# posts ring often), in modes idle and always: every WR completes once, in
# its thread's order, each thread's last writes in place.

if [ "${1:-}" != --guest ]; then
	. "$(dirname "$0")/lib.sh"
	secs=${XRXE_HUNT_SECS:-5}
	tool=$XRXE_BUILD/tests/xrxe-dbl-test
	[ -x "$tool" ] || fail "$tool is not built"

	"$TESTBED" run --module xrxe --timeout $((300 + 8 * secs + 2 * 8)) \
		--env TOOLS="$XRXE_BUILD/tests" --env LL_HUNT_SECS="$secs" \
		--env DEVICES_LIB="$DEVICES_LIB" \
		-- "${GUEST_HALF[@]}" | tee "$OUT/log"
	# ll-hostile: 4 malformed commands reach the handler and are rejected
	# there (2 far-off positions are dropped, one short one never arrives).
	grep -q '^hw counter xrxe_ll_rejected: 4$' "$OUT/log" ||
		fail "the device did not count the 4 rejected commands"
	[ "$(grep -c '^hunter: ' "$OUT/log")" = 8 ] || fail "a hunter run did not finish"
	for mode in idle always; do
		grep -Eq "^shared-qp: threads 4, op write, ll $mode, .*: WRs [1-9]" "$OUT/log" ||
			fail "the shared-QP run in mode $mode did not finish"
	done
	grep -Eq '^forced drops \(idle 0, every 3, idle\): [1-9]' "$OUT/log" ||
		fail "the drop knob dropped no command in mode idle"
	grep -Eq '^forced drops \(idle 50, every 3, always\): [1-9]' "$OUT/log" ||
		fail "the drop knob dropped no command in mode always"
	echo "ok: low-latency posting"
	exit 0
fi

# ---- In the guest ----
# The first failing program ends the run with its status.
set -e
tool=$TOOLS/xrxe-dbl-test
params=/sys/module/rdma_xrxe/parameters
# shellcheck source=../../tools/testbed-guest/guest-devices.sh
. "$DEVICES_LIB"
mount_debugfs || { echo "$DEVICES_ERROR"; exit 1; }
count() { rdma statistic show link xrxe0/1 | tr ' ' '\n' | grep -A1 "^$1\$" | tail -1; }
echo 0 >$params/engine_idle_us
"$tool" ll-modes
"$tool" ll-hostile
echo "hw counter xrxe_ll_rejected: $(count xrxe_ll_rejected)"
for idle in 0 50; do
	echo $idle >$params/engine_idle_us
	for drop in 0 3; do
		echo $drop >$XRXE_DEBUGFS/ll_drop_every
		for mode in idle always; do
			before=$(count xrxe_ll_dropped_forced)
			"$tool" hunter -q 6 -t 3 -s "$LL_HUNT_SECS" -g 500 -l $mode
			echo "forced drops (idle $idle, every $drop, $mode): $(($(count xrxe_ll_dropped_forced) - before))"
		done
	done
done
echo 0 >$XRXE_DEBUGFS/ll_drop_every
# Four threads on one QP.
echo 0 >$params/engine_idle_us
for mode in idle always; do
	"$tool" shared-qp -t 4 -s 8 -l $mode
done
