#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# usage: netns.sh
# xrxe devices in network namespaces, in one guest (netns_layout): xrxe0
# on veth0 in namespace xrxe-a, xrxe1 on veth1 in xrxe-b. Then, across
# the two namespaces: a verbs ping-pong (RC, GID 0, doorbell-less send
# queues), rdma_cm connections over IPv4 and IPv6 (ucmatose, 10
# connections each; rdma_server/rdma_client; rping -V), an RDMA WRITE bandwidth
# pair connected by rdma_cm (ib_write_bw -R), libfabric's MSG endpoint
# (fi_pingpong -p verbs -e msg, data checked); each namespace's UDP port
# 4791 bound by the module, and the initial namespace's too. The module
# unloaded with a device in each namespace (their sockets gone), loaded
# again, the devices added again and used. Then teardown under traffic:
# namespace xrxe-b deleted while a write stream from xrxe-a runs into it
# (the veth pair, and both devices, go with it), and a new pair of
# devices in the initial namespace used afterwards. The testbed fails the
# run on any kernel warning in dmesg.

if [ "${1:-}" != --guest ]; then
	. "$(dirname "$0")/lib.sh"
	"$TESTBED" run --module xrxe --timeout 600 "${GUEST_ENV[@]}" \
		--env DEVICES_LIB="$DEVICES_LIB" --env PAIR_LIB="$PAIR_LIB" \
		-- "${GUEST_HALF[@]}" | tee "$OUT/log"
	for step in "verbs ping-pong" "ucmatose IPv4" "ucmatose IPv6" \
		"rdma_client" "rping" "ib_write_bw -R" "fi_pingpong msg" \
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

# run_in_b_and_a NAME 'SERVER' 'CLIENT' [PORT|cm]: the server in xrxe-b,
# the client in xrxe-a once the server listens (wait_listen: on TCP PORT,
# default 18515, or with cm on an rdma_cm id); their outputs in $f-server
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

# pair NAME 'SERVER' 'CLIENT' [PORT|cm]: run_in_b_and_a, and both must
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
	"ucmatose -s 192.0.2.2 -c 10 -C 20" cm
pair "ucmatose IPv6" "ucmatose -b 2001:db8::2 -c 10 -C 20" \
	"ucmatose -s 2001:db8::2 -c 10 -C 20" cm
pair "rdma_client" "rdma_server -s 192.0.2.2" "rdma_client -s 192.0.2.2" cm
# rping, every payload checked (-V); an end lost to rping's own exit race
# (rping_exit_race in pair.sh) counts as the run it ended.
run_in_b_and_a rping "rping -s -a 192.0.2.2 -C 20 -S 4096 -V" \
	"rping -c -a 192.0.2.2 -C 20 -S 4096 -V" cm
{ [ $src = 0 ] || rping_exit_race "$f-server" $src server; } &&
	{ [ $crc = 0 ] || rping_exit_race "$f-client" $crc client; } ||
	{ tail -n 20 "$f-server" "$f-client"; die "rping: server exit $src, client exit $crc"; }
echo "netns: rping: ok (server exit $src, client exit $crc)"
pair "ib_write_bw -R" "ib_write_bw -d xrxe1 -R -s 65536 -n 200" \
	"ib_write_bw -d xrxe0 -R -s 65536 -n 200 192.0.2.2" cm
grep -h "65536 " "$out/ib_write_bw--R-client" | tail -n 1
pair "fi_pingpong msg" "fi_pingpong -p verbs -e msg -c -I 20 -S 4096 -d xrxe1" \
	"fi_pingpong -p verbs -e msg -c -I 20 -S 4096 -d xrxe0 192.0.2.2" 47592

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

# Namespace xrxe-b deleted while a stream from xrxe-a writes into it:
# veth1 goes with it and veth0 with its peer, and both devices with their
# interfaces, under the client's QPs. The server is killed first: the
# namespace lives as long as a process in it.
"${B[@]}" ib_write_bw -d xrxe1 -x 0 -s 4096 -D 60 >$out/stream-server 2>&1 &
server=$!
wait_listen 18515 $server xrxe-b || { cat $out/stream-server; die "the stream's server did not listen"; }
"${A[@]}" ib_write_bw -d xrxe0 -x 0 -s 4096 -D 60 192.0.2.2 >$out/stream-client 2>&1 &
client=$!
sleep 5
kill -0 $client 2>/dev/null || { cat $out/stream-*; die "the stream did not start"; }
kill -9 $server
wait $server 2>/dev/null
ip netns del xrxe-b || die "ip netns del xrxe-b"
for _ in $(seq 200); do
	[ -e /sys/class/infiniband/xrxe1 ] || [ -e /sys/class/infiniband/xrxe0 ] || break
	sleep 0.1
done
[ -e /sys/class/infiniband/xrxe1 ] && die "xrxe1 is still there after its namespace"
[ -e /sys/class/infiniband/xrxe0 ] && die "xrxe0 is still there after its interface"
kill -9 $client 2>/dev/null
wait $client 2>/dev/null
ip netns del xrxe-a
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
