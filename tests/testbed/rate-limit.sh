#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# usage: rate-limit.sh
# Send rate limits that pyverbs cannot reach, in one boot on xrxe0:
# ibv_modify_qp_rate_limit()'s errnos in every state of every QP type,
# XRXE_PACE_CYCLES (default 8) teardown cycles of QPs paused mid-message
# (destroy, modify to ERR, modify to RESET, kill -9, in turn),
# XRXE_PACE_LIFT_ROUNDS (default 100) rounds of 4 QPs whose limit is lifted
# or raised at a random moment of their pause (every write must then
# complete; a lost resume strands them for a minute), a hostile
# process changing the limits of 32 paced QPs for XRXE_PACE_HOSTILE_SECS
# (default 10) while an unpaced ping-pong must keep going and available
# memory must hold, the device deleted under paused QPs (the delete waits
# for their process, which is then killed) and added again, then the
# module unloaded with nothing left; before that, perftest's own rate
# limit types as docs/rate-limit.md says they behave (PP and HW refused by
# perftest on a RoCE device, SW paced by perftest and complete). The
# testbed fails the run on any kernel warning in dmesg.
# XRXE_DOORBELL_LESS=0 makes every send queue classic.

if [ "${1:-}" != --guest ]; then
	. "$(dirname "$0")/lib.sh"
	cycles=${XRXE_PACE_CYCLES:-8}
	secs=${XRXE_PACE_HOSTILE_SECS:-10}
	lifts=${XRXE_PACE_LIFT_ROUNDS:-100}
	[ -x "$XRXE_BUILD/tests/xrxe-pace-test" ] ||
		fail "$XRXE_BUILD/tests/xrxe-pace-test is not built"
	"$TESTBED" run --module xrxe --timeout $((300 + 30 * cycles + 2 * secs + lifts)) \
		"${GUEST_ENV[@]}" --env DEVICES_LIB="$DEVICES_LIB" \
		--env PAIR_LIB="$PAIR_LIB" \
		--env TOOLS="$XRXE_BUILD/tests" --env PACE_CYCLES="$cycles" \
		--env PACE_SECS="$secs" --env PACE_LIFTS="$lifts" \
		-- "${GUEST_HALF[@]}" | tee "$OUT/log"
	grep -q "^rate-limit: PASS" "$OUT/log" || fail "rate limit checks failed"
	echo "ok: rate limits: verbs, $cycles teardown cycles, $lifts lifts, $secs s hostile"
	exit 0
fi

# ---- In the guest ----
set -euo pipefail
# shellcheck source=../../tools/testbed-guest/guest-devices.sh
. "$DEVICES_LIB"
"$TOOLS/xrxe-pace-test" verbs
"$TOOLS/xrxe-pace-test" teardown "$PACE_CYCLES"
"$TOOLS/xrxe-pace-test" lift "$PACE_LIFTS"
"$TOOLS/xrxe-pace-test" hostile "$PACE_SECS"

fail() { echo "rate-limit: FAIL: $*"; exit 1; }

# perftest 4.5 paces RC, UC and UD QPs only in the program (SW): PP is for
# raw Ethernet QPs alone and HW is the InfiniBand static rate.
# shellcheck source=../../tools/testbed-guest/pair.sh
. "$PAIR_LIB"
bw="ib_write_bw -x 0 -n 200 -s 4096 --rate_limit=10 --rate_units=M"
out=/tmp/perftest-pace
if timeout 60 $bw -d xrxe0 --rate_limit_type=PP >$out-pp 2>&1; then
	fail "perftest --rate_limit_type=PP ran: docs/rate-limit.md says it refuses"
fi
grep -q "Packet Pacing is only supported for Raw Ethernet" $out-pp ||
	fail "perftest --rate_limit_type=PP: $(tail -n 3 $out-pp)"
if run_pair $out-hw "$bw -d xrxe0 --rate_limit_type=HW" \
	"$bw -d xrxe1 --rate_limit_type=HW 127.0.0.1"; then
	fail "perftest --rate_limit_type=HW ran: docs/rate-limit.md says it refuses"
fi
grep -q "failed to accept HW rate limit" $out-hw-server $out-hw-client ||
	fail "perftest --rate_limit_type=HW: $(tail -n 3 $out-hw-server $out-hw-client)"
run_perftest $out-sw "$bw -d xrxe0 --rate_limit_type=SW" \
	"$bw -d xrxe1 --rate_limit_type=SW 127.0.0.1" ||
	fail "perftest --rate_limit_type=SW: $(cat $out-sw-status; tail -n 5 $out-sw-client)"
grep -Eq '^ *4096 +200 ' $out-sw-client ||
	fail "perftest --rate_limit_type=SW printed no result: $(tail -n 5 $out-sw-client)"
echo "perftest: PP and HW refused by perftest, SW paced and complete: $(grep -E '^ *4096 +200 ' $out-sw-client)"

# Device removal under paused QPs: the device disassociates its user, so
# the delete ends while the user lives (within 30 s); the paused QPs'
# timers must not outlive their destruction.
"$TOOLS/xrxe-pace-test" hold > /tmp/hold.log 2>&1 &
hold=$!
for ((i = 0; i < 300; i++)); do
	grep -q '^held' /tmp/hold.log && break
	kill -0 $hold 2>/dev/null || fail "hold exited: $(cat /tmp/hold.log)"
	sleep 0.1
done
grep -q '^held' /tmp/hold.log || fail "no paced QP paused in 30 s"
netdev=$(rdma link show xrxe0/1 | sed -n 's/.* netdev \([^ ]*\).*/\1/p')
[ -n "$netdev" ] || fail "no netdev for xrxe0"
rdma link delete xrxe0 &
del=$!
for ((i = 0; i < 300; i++)); do
	kill -0 $del 2>/dev/null || break
	sleep 0.1
done
kill -0 $del 2>/dev/null && fail "rdma link delete xrxe0 still waits for its user after 30 s"
wait $del || fail "rdma link delete xrxe0 failed"
kill -0 $hold 2>/dev/null || fail "the paced QPs' user died with the delete: $(cat /tmp/hold.log)"
kill -9 $hold
wait $hold || true
rdma link add xrxe0 type xrxe netdev "$netdev" || fail "rdma link add xrxe0"
echo "device removal: xrxe0 deleted under 8 paused QPs, its user disassociated and alive, added again"
# Every paused QP went with its process: the module unloads.
remove_driver xrxe || { echo "rate-limit: FAIL: rdma_xrxe did not unload"; exit 1; }
echo "rate-limit: PASS"
