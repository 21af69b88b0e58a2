#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# usage: ecosystem.sh
# The libraries users run on xrxe, with their results checked:
# - UCX: ucx_info lists xrxe0 and xrxe1 with the rc_verbs and ud_verbs
#   transports, and ucx_perftest's tag_lat, tag_bw and am_lat complete
#   between xrxe0 and xrxe1 over rc_verbs (wired up over ud_verbs) and over
#   ud_verbs alone;
# - Open MPI over UCX: two ranks on xrxe0 and xrxe1 run xrxe-mpi-check
#   (point to point, broadcast, allreduce, alltoall from 8 B to 1 MiB, every
#   payload checked), and the devices' counters show the traffic;
# - libfabric: fi_info lists xrxe0 under the verbs provider, and
#   fi_pingpong's MSG endpoint (over rdma_cm, which needs two nodes: one
#   guest's two addresses route through loopback) completes with its data
#   checks on, across two xrxe nodes.

if [ "${1:-}" != --guest ]; then
	. "$(dirname "$0")/lib.sh"
	rc=0
	"$TESTBED" run --module xrxe --timeout 900 --env PAIR_LIB="$PAIR_LIB" \
		--env ECO_OUT="$OUT" --env ECO_MPI_CHECK="$XRXE_BUILD/tests/xrxe-mpi-check" \
		--env ECO_PART=one -- "${GUEST_HALF[@]}" || rc=1
	"$TESTBED" run --nodes 2 --module xrxe --timeout 600 --env PAIR_LIB="$PAIR_LIB" \
		--env ECO_OUT="$OUT" --env ECO_PART=two -- "${GUEST_HALF[@]}" || rc=1
	exit $rc
fi

# ---- In the guest ----
# No set -e: every program runs; the run fails if any did.
# shellcheck source=../../tools/testbed-guest/pair.sh
. "$PAIR_LIB"
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}
# The GID UCX would choose is an IPv4 one, which routes through loopback.
export UCX_IB_GID_INDEX=0

sent() {
	cat /sys/class/infiniband/"$1"/ports/1/hw_counters/sent_pkts
}

if [ "$ECO_PART" = one ]; then
	out=$ECO_OUT/one
	mkdir -p "$out"
	ucx_info -d >"$out/ucx_info" 2>&1
	for dev in xrxe0 xrxe1; do
		for tl in rc_verbs ud_verbs; do
			awk -v d="$dev:1" -v t="$tl" '/Transport:/ {tl = $3} /Device:/ && $3 == d && tl == t {f = 1} END {exit !f}' \
				"$out/ucx_info" || bad "ucx_info -d lists no $tl on $dev:1"
		done
	done
	echo "ucx_info: xrxe0:1 and xrxe1:1 with rc_verbs and ud_verbs"

	# ucx_perftest exits 0 even when a test could not start: each test's
	# Final line is the verdict. UD over this testbed moves about 0.5 MB/s
	# (UCX's own reliability over 4 KiB datagrams): small bandwidth runs.
	printf '%s\n' 'tag_lat_4096 -t tag_lat -s 4096 -n 200 -w 10' \
		'tag_bw_4096 -t tag_bw -s 4096 -n 100 -w 5' \
		'am_lat_8 -t ucp_am_lat -s 8 -n 200 -w 10' >"$out/batch"
	# rc_verbs cannot connect its endpoints alone: UCX wires them up over
	# an auxiliary transport, here ud_verbs.
	for tls in rc_verbs,ud_verbs ud_verbs; do
		if run_pair "$out/ucx-$tls" \
			"env UCX_TLS=$tls UCX_NET_DEVICES=xrxe1:1 ucx_perftest -b $out/batch" \
			"env UCX_TLS=$tls UCX_NET_DEVICES=xrxe0:1 ucx_perftest -b $out/batch 127.0.0.1" 13337 &&
			[ "$(grep -c '^Final:' "$out/ucx-$tls-client")" = 3 ]; then
			echo "ucx_perftest over $tls: tag_lat 4 KiB, tag_bw 4 KiB, am_lat 8 B completed"
		else
			bad "ucx_perftest over $tls"
			tail -n 30 "$out/ucx-$tls-server" "$out/ucx-$tls-client"
		fi
	done

	before0=$(sent xrxe0) before1=$(sent xrxe1)
	# Shared memory and TCP are excluded: only UCX over the xrxe devices.
	if timeout 600 mpirun --allow-run-as-root -np 2 --mca pml ucx --mca btl '^vader,tcp,openib' \
		-x UCX_TLS=rc_verbs,ud_verbs,self -x UCX_IB_GID_INDEX -x RDMAV_DRIVERS \
		bash -c 'export UCX_NET_DEVICES=xrxe$OMPI_COMM_WORLD_RANK:1; exec "$0" "$@"' \
		"$ECO_MPI_CHECK" 5 >"$out/mpi" 2>&1; then
		cat "$out/mpi"
		[ "$(grep -c ': ok (' "$out/mpi")" = 16 ] || bad "xrxe-mpi-check printed fewer than 16 checked operations"
	else
		bad "mpirun of xrxe-mpi-check"
		tail -n 40 "$out/mpi"
	fi
	d0=$(($(sent xrxe0) - before0)) d1=$(($(sent xrxe1) - before1))
	echo "MPI traffic: xrxe0 sent $d0 packets, xrxe1 $d1"
	[ $d0 -gt 1000 ] && [ $d1 -gt 1000 ] || bad "MPI's traffic did not go through both xrxe devices"
else
	out=$ECO_OUT/two/node$XRXE_NODE
	mkdir -p "$out"
	dev=$(ls /sys/class/infiniband)
	fi_info -p verbs >"$out/fi_info" 2>&1
	grep -q "domain: *$dev\$" "$out/fi_info" || { bad "fi_info -p verbs lists no $dev"; cat "$out/fi_info"; }
	peer=$XRXE_PEER_ADDR
	[ "$XRXE_NODE" = 0 ] && peer=
	side=server
	[ "$XRXE_NODE" = 0 ] || side=client
	for size in 64 65536; do
		if node_pair "$out/fi_pingpong-$size" "fi_pingpong-$size" \
			"fi_pingpong -p verbs -e msg -c -I 20 -S $size" \
			"fi_pingpong -p verbs -e msg -c -I 20 -S $size $peer" 47592; then
			echo "fi_pingpong verbs msg $size B ($side on $dev): ok: $(grep -m1 -E '^ *[0-9]+(k|m)? ' "$out/fi_pingpong-$size-$side" || true)"
		else
			bad "fi_pingpong verbs msg $size B ($side on $dev)"
			tail -n 20 "$out/fi_pingpong-$size-$side"
		fi
	done
fi
exit $fail
