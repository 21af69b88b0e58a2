#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# usage: netns.sh
# xrxe devices in network namespaces, in one guest (netns_layout): xrxe0
# on veth0 in namespace xrxe-a, xrxe1 on veth1 in xrxe-b. Then, across
# the two namespaces: a verbs ping-pong (RC, GID 0, doorbell-less send
# queues), rdma_cm connections over IPv4 and IPv6 (ucmatose, 10
# connections each; rdma_server/rdma_client; rping -V), an RDMA WRITE bandwidth
# pair connected by rdma_cm (ib_write_bw -R), libfabric's MSG endpoint
# (fi_pingpong -p verbs -e msg, data checked), UCX connecting over
# rdma_cm (io_demo, data checked, rdmacm the only sockaddr transport),
# and Open MPI over UCX with a rank in each namespace (xrxe-mpi-check);
# each namespace's UDP port 4791 bound by the module, and the initial
# namespace's too. The module unloaded with a device in each namespace
# (their sockets gone), loaded again, the devices added again and used. Then teardown under traffic:
# namespace xrxe-b deleted while, from xrxe0 to xrxe1, a write stream, a
# QP paced by a rate limit, coalescing QPs and the flush domains'
# records-then-tag workload are busy (the veth pair, and both devices, go
# with it; every program ends), then the module unloads (nothing held),
# loads again, and a new pair of devices in the initial namespace works.
# The testbed fails the run on any kernel warning in dmesg.

if [ "${1:-}" != --guest ]; then
	. "$(dirname "$0")/lib.sh"
	"$TESTBED" run --module xrxe --timeout 600 "${GUEST_ENV[@]}" \
		--env DEVICES_LIB="$DEVICES_LIB" --env PAIR_LIB="$PAIR_LIB" \
		--env BENCH="$XRXE_BUILD/bench" \
		--env MPI_CHECK="$XRXE_BUILD/tests/xrxe-mpi-check" \
		-- "${GUEST_HALF[@]}" | tee "$OUT/log"
	for step in "verbs ping-pong" "ucmatose IPv4" "ucmatose IPv6" \
		"rdma_client" "rping" "ib_write_bw -R" "fi_pingpong msg" \
		"UCX over rdma_cm" "Open MPI across the namespaces" \
		"port 4791 in both namespaces" \
		"unload" "verbs ping-pong again" "namespace deleted under traffic" \
		"new devices after the deletion"; do
		grep -q "^netns: $step: ok" "$OUT/log" || fail "netns: $step did not pass"
	done
	echo "ok: xrxe devices in two network namespaces of one guest"
	exit 0
fi

# ---- In the guest ----
set -uo pipefail
# shellcheck source=../../tools/testbed-guest/guest-devices.sh
. "$DEVICES_LIB"
# shellcheck source=../../tools/testbed-guest/pair.sh
. "$PAIR_LIB"
out=/tmp/netns
mkdir -p $out
A=(ip netns exec xrxe-a)
B=(ip netns exec xrxe-b)
B_NS=xrxe-b

die() {
	echo "netns: FAIL: $*"
	exit 1
}

# run_in_b_and_a NAME 'SERVER' 'CLIENT' [PORT|cm:PORT]: the server in xrxe-b,
# the client in xrxe-a once the server listens (wait_listen: on TCP PORT,
# default 18515, or with cm:PORT on an rdma_cm id); their outputs in $f-server
# and $f-client, their exit statuses in src and crc.
run_in_b_and_a() {
	local server
	f=$out/${1// /-} src=0 crc=0
	"${B[@]}" timeout 120 $2 >"$f-server" 2>&1 &
	server=$!
	# A server that never listened fails the pair through its status.
	wait_listen "${4:-18515}" $server "$B_NS" || true
	"${A[@]}" timeout 120 $3 >"$f-client" 2>&1 || crc=$?
	wait $server || src=$?
}

# pair NAME 'SERVER' 'CLIENT' [PORT|cm:PORT]: run_in_b_and_a, and both must
# exit 0.
pair() {
	run_in_b_and_a "$@"
	if [ $src != 0 ] || [ $crc != 0 ]; then
		tail -n 20 "$f-server" "$f-client"
		die "$1: server exit $src, client exit $crc"
	fi
	echo "netns: $1: ok"
}

netns_layout xrxe || die "$DEVICES_ERROR"
for i in 0 1; do
	echo "xrxe$i: $(rdma link show xrxe$i/1)"
done

pair "verbs ping-pong" "ibv_rc_pingpong -d xrxe1 -g 0 -n 200 -s 4096 -c" \
	"ibv_rc_pingpong -d xrxe0 -g 0 -n 200 -s 4096 -c 192.0.2.2"
pair "ucmatose IPv4" "ucmatose -b 192.0.2.2 -c 10 -C 20" \
	"ucmatose -s 192.0.2.2 -c 10 -C 20" cm:7471
pair "ucmatose IPv6" "ucmatose -b 2001:db8::2 -c 10 -C 20" \
	"ucmatose -s 2001:db8::2 -c 10 -C 20" cm:7471
pair "rdma_client" "rdma_server -s 192.0.2.2" "rdma_client -s 192.0.2.2" cm:7471
# rping, every payload checked (-V); an end lost to rping's own exit race
# (rping_exit_race in pair.sh) counts as the run it ended.
run_in_b_and_a rping "rping -s -a 192.0.2.2 -C 20 -S 4096 -V" \
	"rping -c -a 192.0.2.2 -C 20 -S 4096 -V" cm:7174
{ [ $src = 0 ] || rping_exit_race "$f-server" $src server; } &&
	{ [ $crc = 0 ] || rping_exit_race "$f-client" $crc client; } ||
	{ tail -n 20 "$f-server" "$f-client"; die "rping: server exit $src, client exit $crc"; }
echo "netns: rping: ok (server exit $src, client exit $crc)"
pair "ib_write_bw -R" "ib_write_bw -d xrxe1 -R -s 65536 -n 200" \
	"ib_write_bw -d xrxe0 -R -s 65536 -n 200 192.0.2.2" cm:18515
grep -h "65536 " "$out/ib_write_bw--R-client" | tail -n 1
pair "fi_pingpong msg" "fi_pingpong -p verbs -e msg -c -I 20 -S 4096 -d xrxe1" \
	"fi_pingpong -p verbs -e msg -c -I 20 -S 4096 -d xrxe0 192.0.2.2" 47592

# UCX's client and server connect through a listener on an address
# (sockaddr), over rdma_cm alone; then rc_verbs carries the IO, every
# transaction checked (-q).
export UCX_TLS=rc_verbs,ud_verbs,self UCX_SOCKADDR_TLS_PRIORITY=rdmacm
"${B[@]}" timeout 120 io_demo -p 20000 >$out/io_demo-server 2>&1 &
server=$!
wait_listen cm:20000 $server xrxe-b || true
"${A[@]}" timeout 120 io_demo -p 20000 -i 50 -q -d 64:4096 192.0.2.2 \
	>$out/io_demo-client 2>&1
crc=$?
kill $server 2>/dev/null
wait $server 2>/dev/null
[ $crc = 0 ] && grep -q "Client exit with status 'OK'" $out/io_demo-client ||
	{ tail -n 20 $out/io_demo-server $out/io_demo-client; die "UCX over rdma_cm: client exit $crc"; }
echo "netns: UCX over rdma_cm: ok"
unset UCX_SOCKADDR_TLS_PRIORITY

# Open MPI over UCX, a rank in each namespace: mpirun runs in xrxe-a and
# starts rank 1 as on another node, through a launch agent that enters
# xrxe-b (its daemon reaches mpirun over the veth pair; a daemon's ranks
# reach it over their own namespace's loopback). Shared memory and TCP
# are excluded. No GID index is given: UCX picks the RoCE v2 IPv4 GID,
# and its UD transport reads a datagram's network header type from the
# completion's SL, as RoCE NICs report it (the hook "Report a UD
# receive's network header type in its SL").
cat >$out/netns-agent <<'AGENT'
#!/bin/sh
# ORTE's launch agent: HOST COMMAND..., HOST an address of a namespace.
host=$1
shift
case $host in 192.0.2.2) ns=xrxe-b ;; *) ns=xrxe-a ;; esac
exec ip netns exec $ns sh -c "$*"
AGENT
chmod +x $out/netns-agent
before0=$(cat /sys/class/infiniband/xrxe0/ports/1/hw_counters/sent_pkts)
"${A[@]}" timeout 300 mpirun --allow-run-as-root -np 2 --host 192.0.2.1,192.0.2.2 \
	--mca plm_rsh_agent $out/netns-agent --mca oob_tcp_if_include 192.0.2.0/24 \
	--mca pml ucx --mca btl '^vader,tcp,openib' \
	-x UCX_TLS -x RDMAV_DRIVERS \
	bash -c 'export UCX_NET_DEVICES=xrxe$OMPI_COMM_WORLD_RANK:1; exec "$0" "$@"' \
	"$MPI_CHECK" 3 >$out/mpi 2>&1
rc=$?
sent=$(($(cat /sys/class/infiniband/xrxe0/ports/1/hw_counters/sent_pkts) - before0))
[ $rc = 0 ] && [ "$(grep -c ': ok (' $out/mpi)" = 16 ] && [ $sent -gt 1000 ] ||
	{ tail -n 40 $out/mpi; die "Open MPI across the namespaces: exit $rc, xrxe0 sent $sent"; }
echo "netns: Open MPI across the namespaces: ok (xrxe0 sent $sent packets)"
unset UCX_TLS

# The module's UDP tunnel sockets: one in each namespace with a device,
# and the initial namespace's, made at load.
for ns in xrxe-a xrxe-b ""; do
	if [ -n "$ns" ]; then
		socks=$(ip netns exec "$ns" ss -uanH 'sport = :4791' | wc -l)
	else
		socks=$(ss -uanH 'sport = :4791' | wc -l)
	fi
	[ "$socks" = 2 ] || die "${ns:-the initial namespace} has $socks sockets on port 4791, not 2"
done
echo "netns: port 4791 in both namespaces: ok"

# The module unloads with a device in each namespace, and loads again:
# the namespaces' sockets go with it, and come back with their devices.
rmmod rdma_xrxe || die "rmmod rdma_xrxe with devices in two namespaces"
[ -e /sys/class/infiniband/xrxe0 ] && die "xrxe0 outlived the module"
[ "$(ip netns exec xrxe-b ss -uanH 'sport = :4791' | wc -l)" = 0 ] ||
	die "a socket on port 4791 outlived the module"
load_driver xrxe && netns_add_devices xrxe || die "again: $DEVICES_ERROR"
echo "netns: unload: ok"
pair "verbs ping-pong again" "ibv_rc_pingpong -d xrxe1 -g 0 -n 100 -c" \
	"ibv_rc_pingpong -d xrxe0 -g 0 -n 100 -c 192.0.2.2"

# Namespace xrxe-b deleted while xrxe0 sends to xrxe1 in every way xrxe
# has, all run in xrxe-a (devices are seen from every namespace): a
# perftest write stream, a QP paced by a rate limit, coalescing QPs
# appending records, and the flush domains' records then tag. veth1 goes with the namespace and veth0 with its peer, and both
# devices with their interfaces, under all their QPs. The stream's server
# is killed first: the namespace lives as long as a process in it.
"${B[@]}" ib_write_bw -d xrxe1 -x 0 -s 4096 -D 60 >$out/stream-server 2>&1 &
server=$!
wait_listen 18515 $server xrxe-b || { cat $out/stream-server; die "the stream's server did not listen"; }
"${A[@]}" ib_write_bw -d xrxe0 -x 0 -s 4096 -D 60 192.0.2.2 >$out/stream-client 2>&1 &
busy=($!)
"${A[@]}" "$BENCH/xrxe-pace-bench" -m accuracy -t rc -s 4096 -r 20000 -w 60 >$out/paced 2>&1 &
busy+=($!)
"${A[@]}" "$BENCH/xrxe-coalesce-bench" -q 2 -s 64 -c 1024 -w 60 >$out/coalesced 2>&1 &
busy+=($!)
"${A[@]}" "$BENCH/xrxe-coalesce-bench" -t domain -q 4 -w 60 >$out/domain 2>&1 &
busy+=($!)
sleep 8
for pid in "${busy[@]}"; do
	kill -0 $pid 2>/dev/null || { tail -n 5 $out/stream-* $out/paced $out/coalesced $out/domain; die "a busy program ended before the deletion"; }
done
before=$(rdma statistic show link xrxe0/1 | grep -o 'sent_pkts [0-9]*')
sleep 2
[ "$(rdma statistic show link xrxe0/1 | grep -o 'sent_pkts [0-9]*')" != "$before" ] ||
	die "xrxe0 sent nothing in 2 s before the deletion"
kill -9 $server
wait $server 2>/dev/null
ip netns del xrxe-b || die "ip netns del xrxe-b"
for _ in $(seq 200); do
	[ -e /sys/class/infiniband/xrxe1 ] || [ -e /sys/class/infiniband/xrxe0 ] || break
	sleep 0.1
done
[ -e /sys/class/infiniband/xrxe1 ] && die "xrxe1 is still there after its namespace"
[ -e /sys/class/infiniband/xrxe0 ] && die "xrxe0 is still there after its interface"
# Their programs lost their devices: each ends, by itself or killed.
kill -9 "${busy[@]}" 2>/dev/null
for pid in "${busy[@]}"; do
	wait $pid 2>/dev/null
done
ip netns del xrxe-a
# Nothing holds the module once the killed programs' files are closed:
# it unloads (within 10 s), and loads again for what follows.
for _ in $(seq 100); do
	rmmod rdma_xrxe 2>/dev/null && break
	sleep 0.1
done
[ -e /sys/module/rdma_xrxe ] && die "rdma_xrxe still held 10 s after the deletion under traffic: $(rmmod rdma_xrxe 2>&1)"
load_driver xrxe || die "load again: $DEVICES_ERROR"
echo "netns: namespace deleted under traffic: ok"

# The module still serves new devices: a fresh pair in the initial
# namespace.
ip link add veth2 type veth peer name veth3 || die "veth2"
for dev in veth2 veth3; do
	sysctl -qw net.ipv6.conf.$dev.accept_dad=0
	ip link set $dev up
done
rdma link add xrxe2 type xrxe netdev veth2 && rdma link add xrxe3 type xrxe netdev veth3 ||
	die "new devices after the namespaces"
wait_ready xrxe2 xrxe3 || die "$DEVICES_ERROR"
A=() B=() B_NS=
pair "new devices after the deletion" "ibv_rc_pingpong -d xrxe3 -g 0 -n 100" \
	"ibv_rc_pingpong -d xrxe2 -g 0 -n 100 localhost"
rdma link delete xrxe2
rdma link delete xrxe3
rmmod rdma_xrxe || die "rmmod rdma_xrxe at the end"
echo "netns: done"
