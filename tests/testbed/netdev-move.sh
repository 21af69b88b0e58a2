#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# usage: netdev-move.sh
# The netdev under an xrxe device moved to another network namespace after
# "rdma link add", in one guest, in rdma's shared namespace mode (the
# testbed's). A device's routes follow its netdev's namespace but its
# receive sockets are those of the namespace it was added in: were the
# device to stay, its traffic would vanish. It must not stay: moving a
# netdev unregisters it from the old namespace first (NETDEV_UNREGISTER,
# then NETDEV_REGISTER in the new one), and rxe removes its device on
# NETDEV_UNREGISTER, as the core does with a NIC whose netdev leaves.
#
# 1. Idle: a veth pair mv0/mv1 of its own, xrxem0 on mv0; mv0 moved to
#    namespace xrxe-m. Within 20 s xrxem0 must be gone (rdma link, sysfs,
#    its uverbs file) and mv0 must be in xrxe-m. Then mv1 follows it, a
#    device is added on each end from inside xrxe-m (the name xrxem0 free
#    again, xrxe-m's port 4791 bound) and a verbs ping-pong runs between
#    them, xrxem0's packet counters moving.
# 2. Under users: on the testbed's xrxe0 (veth0) and xrxe1 (veth1), two
#    ibv_rc_pingpong pairs without end (one waiting on completion events,
#    one polling) and xrxe-netns-hold holding a context with a PD, an MR, a
#    CQ and a mapped RC QP. veth0 moved to namespace xrxe-n: the move must
#    return within 20 s and xrxe0 be gone within 20 s of it; the programs
#    on it must end (none by a signal of its own: a crash is no clean
#    failure) or be killable (kill -9, at most 10 s), and the event waiter
#    get an error; the holder's verbs then fail cleanly (EIO; its exit 0).
#    No task in D state. A new xrxe0 on veth0 in xrxe-n pings
#    xrxe1 left behind; xrxe-n deleted, the module unloads.
# Every wait is bounded; the testbed fails the run on any kernel warning
# or hung task in dmesg.

if [ "${1:-}" != --guest ]; then
	. "$(dirname "$0")/lib.sh"
	[ -x "$XRXE_BUILD/tests/xrxe-netns-hold" ] ||
		fail "$XRXE_BUILD/tests/xrxe-netns-hold is not built"
	rc=0
	"$TESTBED" run --module xrxe --timeout 400 "${GUEST_ENV[@]}" \
		--env DEVICES_LIB="$DEVICES_LIB" --env PAIR_LIB="$PAIR_LIB" \
		--env HOLD="$XRXE_BUILD/tests/xrxe-netns-hold" \
		-- "${GUEST_HALF[@]}" | tee "$OUT/log" || rc=$?
	missing=
	for step in "shared mode" "a device on mv0" "mv0 moved" \
		"xrxem0 removed" "devices added in xrxe-m" \
		"verbs ping-pong in xrxe-m" "users on xrxe0" \
		"veth0 moved under users" "xrxe0 removed under users" \
		"the event waiter got an error" "the users ended" \
		"the holder's calls failed cleanly" "no task stuck" \
		"a new xrxe0 in xrxe-n pings xrxe1" "module unloads"; do
		grep -q "^netdev-move: $step: ok" "$OUT/log" || missing+=" '$step'"
	done
	[ -z "$missing" ] || fail "netdev-move: did not pass:$missing (testbed exit $rc)"
	[ "$rc" = 0 ] || fail "netdev-move: the testbed exited $rc"
	echo "ok: an xrxe device goes when its netdev moves to another namespace"
	exit 0
fi

# ---- In the guest ----
set -uo pipefail
# shellcheck source=../../tools/testbed-guest/guest-devices.sh
. "$DEVICES_LIB"
# shellcheck source=../../tools/testbed-guest/pair.sh
. "$PAIR_LIB"
out=/tmp/netdev-move
mkdir -p $out
M=(ip netns exec xrxe-m)
N=(ip netns exec xrxe-n)
# How long a device may outlive its netdev's move (observed: 1-9 s under
# TCG on a loaded 2-core host), and the users their device.
BOUND=20
failed=

ok() {
	echo "netdev-move: $1: ok${2:+ ($2)}"
}

# bad REASON: a step failed; the test goes on, to clean up.
bad() {
	echo "netdev-move: FAIL: $*"
	failed=1
}

die() {
	echo "netdev-move: FAIL: $*"
	exit 1
}

now() {
	date +%s.%N
}

# since T0 [T1]: seconds from T0 to T1 (now).
since() {
	awk -v a="$1" -v b="${2:-$(now)}" 'BEGIN {printf "%.2f s", b - a}'
}

# The tasks in D state, with their kernel stacks.
d_tasks() {
	local pid
	for pid in $(ps -eo pid=,stat= | awk '$2 ~ /^D/ {print $1}'); do
		echo "-- $pid $(cat "/proc/$pid/comm" 2>/dev/null) wchan $(cat "/proc/$pid/wchan" 2>/dev/null)"
		head -n 25 "/proc/$pid/stack" 2>/dev/null
	done
}

report() {
	echo "== rdma link"
	rdma link show
	echo "== /sys/class/infiniband"
	ls /sys/class/infiniband
	echo "== tasks in D state"
	d_tasks
	echo "== dmesg (last 30 lines)"
	dmesg | tail -n 30
}

# dev_present DEV: DEV is still registered: in sysfs, or listed by rdma.
dev_present() {
	[ -e "/sys/class/infiniband/$1" ] || rdma link show | grep -q "link $1/"
}

# uverbs_of DEV: DEV's uverbs character device.
uverbs_of() {
	local d
	for d in /sys/class/infiniband_verbs/uverbs*; do
		[ "$(cat "$d/ibdev" 2>/dev/null)" = "$1" ] && echo "/dev/infiniband/${d##*/}"
	done
}

# gone_within SECS DEV UVERBS: until DEV and its uverbs file are gone, at
# most SECS; prints the time it took from T0 ($t0).
gone_within() {
	local i
	for ((i = 0; i < $1 * 20; i++)); do
		if ! dev_present "$2" && [ ! -e "$3" ]; then
			since "$t0"
			return 0
		fi
		sleep 0.05
	done
	return 1
}

sent_pkts() {
	cat "/sys/class/infiniband/$1/ports/1/hw_counters/sent_pkts" 2>/dev/null || echo 0
}

# Traffic through a device that stayed after its netdev moved (the failure
# this test is about): does a ping-pong from it to xrxem1 on mv1 (still
# here) get through? Diagnostic only.
black_hole_probe() {
	local s src=0 crc=0 before
	rdma link add xrxem1 type xrxe netdev mv1 || return
	wait_ready xrxem1 || echo "xrxem1: $DEVICES_ERROR"
	before=$(sent_pkts xrxem0)
	timeout 20 ibv_rc_pingpong -d xrxem1 -g 0 -n 10 -p 18530 >$out/probe-server 2>&1 &
	s=$!
	wait_listen 18530 $s || true
	timeout 15 ibv_rc_pingpong -d xrxem0 -g 0 -n 10 -p 18530 localhost >$out/probe-client 2>&1 || crc=$?
	wait $s || src=$?
	echo "== a ping-pong from the stayed xrxem0 (mv0 in xrxe-m) to xrxem1 (mv1 here):" \
		"server exit $src, client exit $crc, xrxem0 sent $(($(sent_pkts xrxem0) - before)) packets"
	tail -n 5 $out/probe-server $out/probe-client
	rdma link delete xrxem1
}

rdma system show | grep -q "netns shared" || die "mode: $(rdma system show)"
ok "shared mode" "$(rdma system show)"

# ---- 1. An idle device whose netdev moves ----
ip link add mv0 type veth peer name mv1 || die "veth pair mv0/mv1"
for dev in mv0 mv1; do
	sysctl -qw net.ipv6.conf.$dev.accept_dad=0
	ip link set $dev up
done
rdma link add xrxem0 type xrxe netdev mv0 || die "rdma link add xrxem0 netdev mv0"
wait_ready xrxem0 || die "$DEVICES_ERROR"
uv=$(uverbs_of xrxem0)
[ -n "$uv" ] && [ -e "$uv" ] || die "no uverbs file of xrxem0"
ok "a device on mv0" "$(rdma link show xrxem0/1), $uv"

ip netns add xrxe-m || die "ip netns add xrxe-m"
t0=$(now)
timeout 20 ip link set mv0 netns xrxe-m || die "ip link set mv0 netns xrxe-m: exit $?"
moved=$(since "$t0")
ip link show mv0 >/dev/null 2>&1 && die "mv0 is still in the initial namespace"
ip -n xrxe-m link show mv0 >/dev/null 2>&1 || die "mv0 is not in xrxe-m"
ok "mv0 moved" "ip link set returned after $moved"

if took=$(gone_within $BOUND xrxem0 "$uv"); then
	ok "xrxem0 removed" "gone $took after the move began"
else
	bad "xrxem0 still here $BOUND s after its netdev mv0 moved to xrxe-m"
	report
	echo "== xrxem0 as the rdma tool sees it"
	rdma link show xrxem0/1
	rdma dev show xrxem0
	black_hole_probe
	die "the device stayed after its netdev left"
fi

# mv1 follows; a device on each end, added inside xrxe-m.
ip link set mv1 netns xrxe-m || die "ip link set mv1 netns xrxe-m"
ip -n xrxe-m link set lo up
for dev in mv0 mv1; do
	"${M[@]}" sysctl -qw net.ipv6.conf.$dev.accept_dad=0
	ip -n xrxe-m link set $dev up || die "$dev up in xrxe-m"
done
"${M[@]}" rdma link add xrxem0 type xrxe netdev mv0 ||
	die "rdma link add xrxem0 netdev mv0 in xrxe-m (is the name free?)"
"${M[@]}" rdma link add xrxem1 type xrxe netdev mv1 ||
	die "rdma link add xrxem1 netdev mv1 in xrxe-m"
wait_ready xrxem0@xrxe-m xrxem1@xrxe-m || die "$DEVICES_ERROR"
socks=$("${M[@]}" ss -uanH 'sport = :4791' | wc -l)
[ "$socks" = 2 ] || die "xrxe-m has $socks sockets on port 4791, not 2"
ok "devices added in xrxe-m" "$("${M[@]}" rdma link show xrxem0/1); $socks sockets on port 4791 there"

before=$(sent_pkts xrxem0)
"${M[@]}" timeout 60 ibv_rc_pingpong -d xrxem1 -g 0 -n 200 -s 4096 -c >$out/m-server 2>&1 &
server=$!
wait_listen 18515 $server xrxe-m || true
crc=0 src=0
"${M[@]}" timeout 60 ibv_rc_pingpong -d xrxem0 -g 0 -n 200 -s 4096 -c localhost \
	>$out/m-client 2>&1 || crc=$?
wait $server || src=$?
sent=$(($(sent_pkts xrxem0) - before))
if [ $src = 0 ] && [ $crc = 0 ] && [ $sent -ge 200 ]; then
	ok "verbs ping-pong in xrxe-m" "$(grep -h 'iters in' $out/m-client | head -n 1); xrxem0 sent $sent packets"
else
	tail -n 10 $out/m-server $out/m-client
	die "verbs ping-pong in xrxe-m: server exit $src, client exit $crc, xrxem0 sent $sent"
fi
"${M[@]}" rdma link delete xrxem0
"${M[@]}" rdma link delete xrxem1
ip netns del xrxe-m || bad "ip netns del xrxe-m"

# ---- 2. The same under users ----
# xrxe0 (veth0) and xrxe1 (veth1), the testbed's: ping-pongs without end
# from xrxe0 to xrxe1, one pair waiting on completion events (-e), one
# polling; and the holder of a context on xrxe0.
dev_present xrxe0 && dev_present xrxe1 || die "the testbed's xrxe0 and xrxe1 are not here"
uv=$(uverbs_of xrxe0)
[ -n "$uv" ] || die "no uverbs file of xrxe0"
users=() peers=()
for kind in events polling; do
	case $kind in events) port=18520 e=-e ;; polling) port=18521 e= ;; esac
	stdbuf -oL ibv_rc_pingpong -d xrxe1 -g 0 $e -n 100000000 -p $port \
		>$out/$kind-server 2>&1 &
	peers+=($!)
	wait_listen $port $! || { cat $out/$kind-server; die "the $kind server did not listen"; }
	stdbuf -oL ibv_rc_pingpong -d xrxe0 -g 0 $e -n 100000000 -p $port localhost \
		>$out/$kind-client 2>&1 &
	users+=($!)
done
rm -f $out/ready $out/go
"$HOLD" xrxe0 $out/ready $out/go 200 >$out/hold.log 2>&1 &
hold=$!
for _ in $(seq 300); do
	[ -f $out/ready ] || ! kill -0 $hold 2>/dev/null && break
	sleep 0.1
done
[ -f $out/ready ] || { cat $out/hold.log; die "the holder did not get ready"; }
before=$(sent_pkts xrxe0)
sleep 3
sent=$(($(sent_pkts xrxe0) - before))
for pid in "${users[@]}" "${peers[@]}"; do
	kill -0 $pid 2>/dev/null ||
		{ tail -n 5 $out/*-server $out/*-client; die "a ping-pong ended before the move"; }
done
[ $sent -gt 100 ] || die "xrxe0 sent only $sent packets in 3 s before the move"
ok "users on xrxe0" "two ping-pongs to xrxe1 (xrxe0 sent $sent packets in 3 s), the holder on $uv"

ip netns add xrxe-n || die "ip netns add xrxe-n"
t0=$(now)
mrc=0
timeout 20 ip link set veth0 netns xrxe-n || mrc=$?
moved=$(since "$t0")
if [ $mrc = 0 ] && ip -n xrxe-n link show veth0 >/dev/null 2>&1 &&
	! ip link show veth0 >/dev/null 2>&1; then
	ok "veth0 moved under users" "ip link set returned after $moved"
else
	bad "ip link set veth0 netns xrxe-n: exit $mrc after $moved"
	report
fi

removed=
if took=$(gone_within $BOUND xrxe0 "$uv"); then
	removed=1
	ok "xrxe0 removed under users" "gone $took after the move began"
else
	bad "xrxe0 still here $BOUND s after its netdev veth0 moved to xrxe-n, under users"
	report
fi

# The programs on xrxe0 and their peers on xrxe1: those that end by
# themselves until no program on xrxe0 is left (at most BOUND s), then the
# rest killed. A peer may wait for ever on a QP whose other end is gone.
declare -A by_self
for ((i = 0; i < BOUND * 10; i++)); do
	alive=
	for pid in "${users[@]}" "${peers[@]}"; do
		if [ -z "${by_self[$pid]:-}" ]; then
			if kill -0 $pid 2>/dev/null; then
				[[ " ${users[*]} " == *" $pid "* ]] && alive=1
			else
				by_self[$pid]=$(since "$t0")
			fi
		fi
	done
	[ -n "$alive" ] || break
	sleep 0.1
done
killed=()
for pid in "${users[@]}" "${peers[@]}"; do
	kill -0 $pid 2>/dev/null && kill -9 $pid && killed+=($pid)
done
for _ in $(seq 100); do
	alive=
	for pid in "${killed[@]}"; do
		kill -0 $pid 2>/dev/null && alive=1
	done
	[ -n "$alive" ] || break
	sleep 0.1
done
names=([${users[0]}]="events client (xrxe0)" [${users[1]}]="polling client (xrxe0)"
	[${peers[0]}]="events server (xrxe1)" [${peers[1]}]="polling server (xrxe1)")
unkillable=
for pid in "${users[@]}" "${peers[@]}"; do
	if kill -0 $pid 2>/dev/null; then
		unkillable+=" $pid"
		echo "${names[$pid]}: still alive 10 s after kill -9: $(ps -o stat=,wchan= -p $pid)"
	fi
done
statuses= crashed=
for pid in "${users[@]}" "${peers[@]}"; do
	wait $pid 2>/dev/null
	st=$?
	if [ -n "${by_self[$pid]:-}" ]; then
		statuses+="; ${names[$pid]} ended by itself after ${by_self[$pid]}, exit $st"
		[ $st -gt 128 ] && crashed+="; ${names[$pid]} died of signal $((st - 128))"
	else
		statuses+="; ${names[$pid]} killed"
	fi
done
statuses=${statuses#; }
echo "== the users' output (last lines)"
tail -n 4 $out/events-client $out/polling-client $out/events-server $out/polling-server
if [ -n "${by_self[${users[0]}]:-}" ] &&
	grep -q "Failed to get cq_event\|Failed status\|Couldn't" $out/events-client; then
	ok "the event waiter got an error" "$(grep -m 1 "Failed\|Couldn't" $out/events-client)"
else
	bad "the event waiter on xrxe0 got no error of its own within $BOUND s ($statuses)"
fi
if [ -n "$unkillable" ]; then
	bad "users not killable:$unkillable ($statuses)"
	report
elif [ -n "$crashed" ]; then
	bad "users crashed after their device went: ${crashed#; } ($statuses)"
	dmesg | grep -E "segfault at|traps:" | tail -n 10
else
	ok "the users ended" "$statuses"
fi

# The holder goes on: every verbs call on its disassociated context must
# fail (EIO) or do nothing, none hang (its exit 0).
touch $out/go
for _ in $(seq 300); do
	kill -0 $hold 2>/dev/null || break
	sleep 0.1
done
if kill -0 $hold 2>/dev/null; then
	bad "the holder did not exit 30 s after the go"
	report
	kill -9 $hold
	hrc=killed
else
	wait $hold
	hrc=$?
fi
echo "== xrxe-netns-hold"
cat $out/hold.log
if [ "$hrc" = 0 ]; then
	ok "the holder's calls failed cleanly" "$(grep -h '^ibv_query_qp' $out/hold.log)"
else
	bad "xrxe-netns-hold: exit $hrc"
	dmesg | grep -E "segfault at|traps:" | tail -n 10
fi

stuck=$(d_tasks)
if [ -z "$stuck" ]; then
	ok "no task stuck"
else
	bad "tasks in D state after the users ended"
	echo "$stuck"
fi

# veth0 in xrxe-n gets a new xrxe0 (the name free again), which pings
# xrxe1 on veth1, left in the initial namespace; their control connection
# over addresses of their own.
if [ -n "$removed" ]; then
	ip -n xrxe-n link set lo up
	"${N[@]}" sysctl -qw net.ipv6.conf.veth0.accept_dad=0
	ip -n xrxe-n addr add 192.0.2.1/24 dev veth0
	ip -n xrxe-n link set veth0 up
	ip addr add 192.0.2.2/24 dev veth1 2>/dev/null
	if "${N[@]}" rdma link add xrxe0 type xrxe netdev veth0 &&
		wait_ready xrxe0@xrxe-n xrxe1; then
		timeout 60 ibv_rc_pingpong -d xrxe1 -g 0 -n 200 -s 4096 -c >$out/n-server 2>&1 &
		server=$!
		wait_listen 18515 $server || true
		crc=0 src=0
		"${N[@]}" timeout 60 ibv_rc_pingpong -d xrxe0 -g 0 -n 200 -s 4096 -c 192.0.2.2 \
			>$out/n-client 2>&1 || crc=$?
		wait $server || src=$?
		if [ $src = 0 ] && [ $crc = 0 ]; then
			ok "a new xrxe0 in xrxe-n pings xrxe1" "$(grep -h 'iters in' $out/n-client | head -n 1)"
		else
			tail -n 10 $out/n-server $out/n-client
			bad "ping-pong from the new xrxe0 in xrxe-n to xrxe1: server exit $src, client exit $crc"
		fi
	else
		bad "a new xrxe0 on veth0 in xrxe-n: ${DEVICES_ERROR:-rdma link add failed}"
	fi
fi

# xrxe-n's deletion takes the veth pair, and xrxe0 and xrxe1 with it;
# then nothing holds the module.
ip netns del xrxe-n || bad "ip netns del xrxe-n"
for _ in $(seq 200); do
	rmmod rdma_xrxe 2>/dev/null && break
	sleep 0.1
done
if [ -e /sys/module/rdma_xrxe ]; then
	bad "rdma_xrxe still held 20 s after the last namespace went: $(rmmod rdma_xrxe 2>&1)"
	report
else
	ok "module unloads"
fi
[ -z "$failed" ] || exit 1
echo "netdev-move: done"
