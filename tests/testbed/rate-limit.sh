#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# usage: rate-limit.sh
# Send rate limits that pyverbs cannot reach, in one boot on xrxe0:
# ibv_modify_qp_rate_limit()'s errnos in every state of every QP type,
# XRXE_PACE_CYCLES (default 8) teardown cycles of QPs paused mid-message
# (destroy, modify to ERR, modify to RESET, kill -9, in turn), a hostile
# process changing the limits of 32 paced QPs for XRXE_PACE_HOSTILE_SECS
# (default 10) while an unpaced ping-pong must keep going, then the
# module unloaded with nothing left. The testbed fails the run on any
# kernel warning in dmesg. XRXE_DOORBELL_LESS=0 makes every send queue
# classic.

if [ "${1:-}" != --guest ]; then
	. "$(dirname "$0")/lib.sh"
	cycles=${XRXE_PACE_CYCLES:-8}
	secs=${XRXE_PACE_HOSTILE_SECS:-10}
	[ -x "$XRXE_BUILD/tests/xrxe-pace-test" ] ||
		fail "$XRXE_BUILD/tests/xrxe-pace-test is not built"
	"$TESTBED" run --module xrxe --timeout $((300 + 30 * cycles + 2 * secs)) \
		"${GUEST_ENV[@]}" --env DEVICES_LIB="$DEVICES_LIB" \
		--env TOOLS="$XRXE_BUILD/tests" --env PACE_CYCLES="$cycles" \
		--env PACE_SECS="$secs" -- "${GUEST_HALF[@]}" | tee "$OUT/log"
	grep -q "^rate-limit: PASS" "$OUT/log" || fail "rate limit checks failed"
	echo "ok: rate limits: verbs, $cycles teardown cycles, $secs s hostile"
	exit 0
fi

# ---- In the guest ----
set -euo pipefail
# shellcheck source=../../tools/testbed-guest/guest-devices.sh
. "$DEVICES_LIB"
"$TOOLS/xrxe-pace-test" verbs
"$TOOLS/xrxe-pace-test" teardown "$PACE_CYCLES"
"$TOOLS/xrxe-pace-test" hostile "$PACE_SECS"
# Every paused QP went with its process: the module unloads.
remove_driver xrxe || { echo "rate-limit: FAIL: rdma_xrxe did not unload"; exit 1; }
echo "rate-limit: PASS"
