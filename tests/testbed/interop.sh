#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# usage: interop.sh [classic]
# xrxe against the kernel's stock rdma_rxe across a link between two nodes
# (xrxe-testbed run --nodes 2), in both roles in one boot: xrxe serves and
# rxe connects, then the nodes swap drivers and rxe serves and xrxe
# connects. Over the link run the
# unchanged ibv_rc/uc/ud_pingpong (-c: every payload checked), perftest's
# ib_write_bw, ib_read_bw, ib_send_bw (small and large) and ib_atomic_bw,
# and rping over rdma_cm (-V: every payload checked), then writes both ways
# at once with the xrxe node's QP under a send rate limit (paced_pair.py),
# and adjacent writes both ways that the xrxe node merges into one message
# (coalesced_pair.py).
# xrxe runs with its defaults (doorbell-less send queues, low-latency posting, receive work in
# the softirq); 'classic' runs it with classic send queues
# (XRXE_DOORBELL_LESS=0). A link between two TCG guests loses frames under
# load, which RC recovers by retransmission: iteration counts are small and
# only correctness is judged.

if [ "${1:-}" != --guest ]; then
	. "$(dirname "$0")/lib.sh"
	extra=()
	case ${1:-} in
	'') ;;
	classic) extra=(--env XRXE_DOORBELL_LESS=0) ;;
	*) fail "usage: interop.sh [classic]" ;;
	esac
	# One pair of guests for both roles: node 0 starts with xrxe, node 1
	# with rxe, and they swap drivers between the rounds.
	"$TESTBED" run --nodes 2 --module xrxe --peer-module rxe --timeout 1800 \
		--env PAIR_LIB="$PAIR_LIB" --env DEVICES_LIB="$DEVICES_LIB" --env INTEROP_OUT="$OUT" \
		--env XRXE_PROVIDER="$XRXE_BUILD/providers/xrxe/libxrxe" \
		--env PACED_PAIR="$TOP/tests/testbed/paced_pair.py" \
		--env COALESCED_PAIR="$TOP/tests/testbed/coalesced_pair.py" \
		"${extra[@]}" -- "${GUEST_HALF[@]}"
	exit
fi

# ---- In the guest: node 0 serves, node 1 connects ----
# No set -e: every program runs; the run fails if any did.
# shellcheck source=../../tools/testbed-guest/pair.sh
. "$PAIR_LIB"
# shellcheck source=../../tools/testbed-guest/guest-devices.sh
. "$DEVICES_LIB"
# Either node may have xrxe's device: the provider serves it when it does.
export RDMAV_DRIVERS=$XRXE_PROVIDER
shared=$XRXE_SHARED
peer=$XRXE_PEER_ADDR
[ "$XRXE_NODE" = 0 ] && peer=
fail=0
# calibration_only NAME: whether a side's only failure was perftest's clock
# calibration, after its traffic: the client reports for every test, the
# server too for the send tests (waits up to 10 s for the other node's file
# to say so).
calibration_only() {
	for _ in $(seq 20); do
		grep -q "Can't produce a report" "$round_out/node1/$1-client" \
			"$round_out/node0/$1-server" 2>/dev/null && return 0
		sleep 0.5
	done
	return 1
}
# check NAME 'SERVER ARGS' 'CLIENT ARGS' [PORT|cm]: one program pair, its
# verdict on this node's side.
check() {
	local name=$1 rc=0 side=server
	[ "$XRXE_NODE" = 0 ] || side=client
	node_pair "$out/$name" "$name" "$2" "$3" "${4:-18515}" || rc=1
	# perftest may fail to calibrate its cycle counter against the clock on
	# a loaded host, after the traffic completed ("Can't produce a report";
	# the other side then fails the final exchange): in one guest
	# run_perftest runs such a pair again, here both nodes would have to
	# agree on it. The traffic is what this test judges: such a pair counts,
	# and says so.
	if [ $rc != 0 ] && [ "${name#ib_}" != "$name" ] && calibration_only "$name"; then
		echo "$name ($side on $dev): perftest could not calibrate its clock after the traffic; no figures"
		return
	fi
	if [ $rc != 0 ] && [ "$name" = rping ] &&
		rping_exit_race "$out/rping-$side" "$(sed -n "s/^$side exit //p" "$out/rping-status")" "$side"; then
		echo "rping ($side on $dev): ran to its end, then exited 255 from rping's own exit race (its CM thread read the destroyed event channel)"
		return
	fi
	echo "$name ($side on $dev): exit $rc$(grep -h -m1 'iters in\|bytes in' "$out/$name-$side" 2>/dev/null | sed 's/^/: /')"
	[ $rc = 0 ] || { fail=1; tail -n 30 "$out/$name-$side"; }
}
# round SERVER-DRIVER CLIENT-DRIVER: node 0 with the first, node 1 with
# the second, every program pair, then the two python pairs.
round() {
	local server=$1 client=$2 mine=$1 other
	[ "$XRXE_NODE" = 0 ] || mine=$2
	switch_driver "$mine" || { echo "FAIL: node $XRXE_NODE: $DEVICES_ERROR"; fail=1; return; }
	dev=$(ls /sys/class/infiniband)
	round_out=$INTEROP_OUT/$server-serves
	out=$round_out/node$XRXE_NODE
	mkdir -p "$out"
	# The names each pair leaves in the shared directory are the round's.
	XRXE_SHARED=$shared/$server-serves
	mkdir -p "$XRXE_SHARED"
	echo "==== $server serves $client: node $XRXE_NODE, device $dev ($(cat /sys/class/infiniband/$dev/ports/1/gids/0))"
	for t in rc uc ud; do
		size=4096
		[ $t = ud ] && size=1024
		check "ibv_${t}_pingpong" "ibv_${t}_pingpong -d $dev -g 0 -n 50 -s $size -c" \
			"ibv_${t}_pingpong -d $dev -g 0 -n 50 -s $size -c $peer"
	done
	for p in "ib_write_bw 64" "ib_write_bw 65536" "ib_read_bw 64" "ib_read_bw 65536" \
		"ib_send_bw 64" "ib_send_bw 65536"; do
		set -- $p
		check "$1-$2" "$1 -d $dev -x 0 -s $2 -n 100" "$1 -d $dev -x 0 -s $2 -n 100 $peer"
	done
	check ib_atomic_bw "ib_atomic_bw -d $dev -x 0 -n 100" "ib_atomic_bw -d $dev -x 0 -n 100 $peer"
	check rping "rping -s -a 192.0.2.1 -C 20 -S 4096 -V" \
		"rping -c -a 192.0.2.1 -C 20 -S 4096 -V" cm
	# Both ways at once over one RC QP pair, the xrxe node's QP under a send
	# rate limit: a paced requester's stream must look like any other to rxe.
	paced=$(timeout 300 python3 "$PACED_PAIR" "$XRXE_SHARED/paced" 2>&1)
	rc=$?
	echo "paced_pair: exit $rc: $paced"
	[ $rc = 0 ] || fail=1
	# Adjacent writes both ways, the xrxe node's merged into one message
	# (XRXE_COALESCE): one standard RDMA WRITE to rxe.
	coalesced=$(timeout 300 python3 "$COALESCED_PAIR" "$XRXE_SHARED/coalesced" 2>&1)
	rc=$?
	echo "coalesced_pair: exit $rc: $coalesced"
	[ $rc = 0 ] || fail=1
	# The xrxe node's features did the work: its send queues were doorbell-less
	# (doorbells rung or avoided), unless the run made them classic.
	if [ "${dev#xrxe}" != "$dev" ]; then
		counters=/sys/class/infiniband/$dev/ports/1/hw_counters
		dbl=$(($(cat $counters/xrxe_doorbells) + $(cat $counters/xrxe_doorbells_avoided)))
		echo "$dev: $dbl doorbell-less posts, $(cat $counters/xrxe_rx_inline_requests) requests in the softirq, $(cat $counters/sent_pkts) packets sent"
		if [ "${XRXE_DOORBELL_LESS:-1}" = 0 ]; then
			[ $dbl = 0 ] || { echo "FAIL: $dev used doorbell-less send queues with XRXE_DOORBELL_LESS=0"; fail=1; }
		else
			[ $dbl -gt 0 ] || { echo "FAIL: $dev posted nothing through a doorbell-less send queue"; fail=1; }
		fi
	fi
	# Neither node swaps drivers while the other still runs a program.
	other=$XRXE_SHARED/done-node$((1 - XRXE_NODE))
	: >"$XRXE_SHARED/done-node$XRXE_NODE"
	for _ in $(seq 600); do
		[ -f "$other" ] && break
		sleep 0.5
	done
	[ -f "$other" ] ||
		{ echo "FAIL: node $XRXE_NODE: the other node did not finish $server serving $client"; fail=1; }
}
round xrxe rxe
round rxe xrxe
exit $fail
