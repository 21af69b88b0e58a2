#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# usage: doorbell-less.sh [hunter]
# Doorbell-less send queues on xrxe0: per-QP controls, a stale generation,
# a status page that cannot be made writable, hostile slots (rejected and counted; other
# QPs unaffected; dmesg clean), creates that fail half way, unknown driver
# data, slots after a rejected one, an overfull queue, posts before RTS,
# then the lost-wake-up hunter with the engines' busy-poll window off and on.
# With "hunter", only the hunter, for XRXE_HUNT_SECS (default 8) per window.
. "$(dirname "$0")/lib.sh"
only=${1:-}
secs=${XRXE_HUNT_SECS:-8}
tool=$XRXE_BUILD/tests/xrxe-dbl-test
[ -x "$tool" ] || fail "$tool is not built"

"$TESTBED" run --module xrxe --timeout $((300 + 4 * secs)) -- bash -c "
	set -e
	param=/sys/module/rdma_xrxe/parameters/engine_idle_us
	if [ -z '$only' ]; then
		'$tool' controls
		'$tool' stale
		'$tool' status-readonly
		'$tool' hostile
		rdma statistic show link xrxe0/1 | tr ' ' '\n' | grep -A1 '^xrxe_wqes_rejected$' |
			tail -1 | sed 's/^/hw counter xrxe_wqes_rejected: /'
		# Paths libibverbs never takes: each once failed or hung the kernel.
		for t in create-fault trailing reject-flush full-park before-rts ll-atomic-write; do
			'$tool' \$t
		done
	fi
	for idle in 0 50 1000; do
		echo \$idle >\$param
		'$tool' hunter -q 8 -t 4 -s $secs -g 3000
	done
" | tee "$OUT/log"
if [ -z "$only" ]; then
	grep -q '^hw counter xrxe_wqes_rejected: 6$' "$OUT/log" ||
		fail "the device did not count the 6 rejected slots"
fi
[ "$(grep -c '^hunter: ' "$OUT/log")" = 3 ] || fail "a hunter run did not finish"
echo "ok: doorbell-less send queues"
