#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# usage: perftest.sh MODULE
# perftest's unchanged programs between MODULE1 (client) and MODULE0
# (server): send/write/read latency and bandwidth, atomics, 4 QPs, UD sends
# and inline data. Each must complete and print its result line.

if [ "${1:-}" != --guest ]; then
	. "$(dirname "$0")/lib.sh"
	module=${1:?usage: perftest.sh rxe|xrxe}

	cat >"$OUT/matrix" <<'MATRIX'
ib_send_lat -s 2
ib_send_lat -s 64 -I 64
ib_write_lat -s 2
ib_write_lat -s 256 -I 256
ib_read_lat -s 64
ib_send_bw -s 64
ib_send_bw -s 4096 -q 4
ib_send_bw -c UD -s 1024
ib_write_bw -s 64 -q 4
ib_write_bw -s 65536
ib_read_bw -s 4096
ib_atomic_bw -A FETCH_AND_ADD
ib_atomic_bw -A CMP_AND_SWAP -q 4
MATRIX

	"$TESTBED" run --module "$module" --env PAIR_LIB="$PAIR_LIB" \
		--env PERFTEST_MODULE="$module" --env PERFTEST_OUT="$OUT" \
		-- "${GUEST_HALF[@]}"
	exit
fi

# ---- In the guest ----
# No set -e: every program of the matrix runs; the run fails if any did.
# shellcheck source=../../tools/testbed-guest/pair.sh
. "$PAIR_LIB"
module=$PERFTEST_MODULE
fail=0
n=0
while read -r prog args; do
	n=$((n + 1))
	o=$PERFTEST_OUT/$n
	rc=0
	run_perftest "$o" "$prog -d ${module}0 -x 0 -n 200 $args" \
		"$prog -d ${module}1 -x 0 -n 200 $args 127.0.0.1" || rc=1
	line=$(grep -E '^ *[0-9]+ +[0-9]+ ' "$o-client" | tail -1)
	[ -n "$line" ] || rc=1
	echo "$prog $args: exit $rc: $line"
	[ ! -f "$o-retries" ] || cat "$o-retries"
	[ $rc = 0 ] || { fail=1; cat "$o-status"; tail -n 40 "$o-server" "$o-client"; }
done <"$PERFTEST_OUT/matrix"
exit $fail
