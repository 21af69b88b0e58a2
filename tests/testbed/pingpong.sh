#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# usage: pingpong.sh MODULE
# rdma-core's unchanged example programs between MODULE0 and MODULE1:
# ibv_rc_pingpong, ibv_uc_pingpong, ibv_ud_pingpong and ibv_srq_pingpong
# (which checks every payload it receives with -c).

if [ "${1:-}" != --guest ]; then
	. "$(dirname "$0")/lib.sh"
	module=${1:?usage: pingpong.sh rxe|xrxe}

	"$TESTBED" run --module "$module" --env PAIR_LIB="$PAIR_LIB" \
		--env PINGPONG_MODULE="$module" --env PINGPONG_OUT="$OUT" \
		-- "${GUEST_HALF[@]}"
	exit
fi

# ---- In the guest ----
# No set -e: every program runs; the run fails if any did.
# shellcheck source=../../tools/testbed-guest/pair.sh
. "$PAIR_LIB"
module=$PINGPONG_MODULE
out=$PINGPONG_OUT
fail=0
for t in rc uc ud srq; do
	size=4096
	[ $t = ud ] && size=1024
	rc=0
	run_pair "$out/$t" \
		"ibv_${t}_pingpong -d ${module}0 -g 0 -n 500 -s $size -c" \
		"ibv_${t}_pingpong -d ${module}1 -g 0 -n 500 -s $size -c localhost" ||
		rc=1
	echo "ibv_${t}_pingpong: exit $rc: $(grep iters "$out/$t-client")"
	[ $rc = 0 ] || { fail=1; tail -n 40 "$out/$t-server" "$out/$t-client"; }
done
exit $fail
