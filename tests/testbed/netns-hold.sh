#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# usage: netns-hold.sh
# A namespace deleted while a process that left it holds its device's
# verbs context open, under rdma's exclusive namespace mode (rdma system
# set netns exclusive), in one guest. Namespace xrxe-h gets one end of a
# veth pair (hv0; hv1 stays in the initial namespace) and a device on it,
# xrxeh0, added from inside (so belonging to xrxe-h). xrxe-netns-hold,
# started in xrxe-h, opens xrxeh0, makes a PD, an MR, a CQ and an RC QP
# (their queues mapped into it), checks a WRITE to itself, then moves to a
# namespace of its own (unshare(CLONE_NEWNET)) and keeps the context.
# Nothing else is left in xrxe-h; it is deleted. Within 20 s its teardown
# must be over: hv1 gone with its peer, xrxeh0 gone (moved home by the
# core and removed with its netdev) and its uverbs file with it, its name
# free for a new device; and a later namespace with a veth pair, added and
# deleted, must be torn down in that time too (a teardown stuck behind the
# first holds every later one). Only then is the holder told to go on: its
# verbs calls on the context must fail cleanly (xrxe-netns-hold's exit 0),
# and it exits. Last, the shared mode comes back. Every wait is bounded; a
# teardown found stuck is reported (the D-state tasks and their stacks),
# then the holder is released so that the guest can recover and power off.
# The testbed fails the run on any kernel warning or hung task in dmesg.

if [ "${1:-}" != --guest ]; then
	. "$(dirname "$0")/lib.sh"
	[ -x "$XRXE_BUILD/tests/xrxe-netns-hold" ] ||
		fail "$XRXE_BUILD/tests/xrxe-netns-hold is not built"
	rc=0
	"$TESTBED" run --module xrxe --timeout 300 "${GUEST_ENV[@]}" \
		--env DEVICES_LIB="$DEVICES_LIB" \
		--env HOLD="$XRXE_BUILD/tests/xrxe-netns-hold" \
		-- "${GUEST_HALF[@]}" | tee "$OUT/log" || rc=$?
	missing=
	for step in "exclusive mode" "a device in its own namespace" \
		"the holder left the namespace" "namespace deleted" \
		"a later namespace torn down" "the holder's calls failed cleanly" \
		"the holder exited" "shared mode again"; do
		grep -q "^netns-hold: $step: ok" "$OUT/log" || missing+=" '$step'"
	done
	[ -z "$missing" ] || fail "netns-hold: did not pass:$missing (testbed exit $rc)"
	[ "$rc" = 0 ] || fail "netns-hold: the testbed exited $rc"
	echo "ok: a namespace deleted while a process outside it holds its device open"
	exit 0
fi

# ---- In the guest ----
set -uo pipefail
# shellcheck source=../../tools/testbed-guest/guest-devices.sh
. "$DEVICES_LIB"
out=/tmp/netns-hold
mkdir -p $out
NS=xrxe-h
LATER=xrxe-t
DEV=xrxeh0
H=(ip netns exec "$NS")
# How long a namespace's teardown may take.
BOUND=20
failed=

ok() {
	echo "netns-hold: $1: ok${2:+ ($2)}"
}

# bad REASON: a step failed; the test goes on to release the holder.
bad() {
	echo "netns-hold: FAIL: $*"
	failed=1
}

# die REASON: a failure before the holder holds anything.
die() {
	echo "netns-hold: FAIL: $*"
	exit 1
}

# The tasks in D state, with their kernel stacks, and the end of dmesg.
stuck_report() {
	local pid
	echo "== tasks in D state"
	for pid in $(ps -eo pid=,stat= | awk '$2 ~ /^D/ {print $1}'); do
		echo "-- $pid $(cat "/proc/$pid/comm" 2>/dev/null) wchan $(cat "/proc/$pid/wchan" 2>/dev/null)"
		head -n 25 "/proc/$pid/stack" 2>/dev/null
	done
	echo "== dmesg (last 30 lines)"
	dmesg | tail -n 30
}

# gone_within SECS COMMAND...: until COMMAND fails (the thing it finds is
# gone), at most SECS; 0 if it went.
gone_within() {
	local secs=$1 i
	shift
	for ((i = 0; i < secs * 10; i++)); do
		"$@" >/dev/null 2>&1 || return 0
		sleep 0.1
	done
	! "$@" >/dev/null 2>&1
}

# holder_alive: whether the holder is still alive.
holder_alive() {
	kill -0 "$hold" 2>/dev/null
}

# xrxeh0 seen by the initial namespace's rdma tool.
dev_listed() {
	rdma dev show | grep -q " $DEV: "
}

rdma system set netns exclusive || die "rdma system set netns exclusive"
rdma system show | grep -q "netns exclusive" || die "mode: $(rdma system show)"
ok "exclusive mode"

# xrxe-h with hv0, whose peer hv1 stays here; xrxeh0 on hv0, added in
# xrxe-h.
ip netns add $NS || die "ip netns add $NS"
ip link add hv1 type veth peer name hv0 netns $NS || die "veth pair into $NS"
"${H[@]}" sysctl -qw net.ipv6.conf.hv0.accept_dad=0
ip -n $NS link set lo up
ip -n $NS link set hv0 up || die "hv0 up in $NS"
ip link set hv1 up || die "hv1 up"
"${H[@]}" rdma link add $DEV type xrxe netdev hv0 || die "rdma link add $DEV in $NS"
wait_ready "$DEV@$NS" || die "$DEVICES_ERROR"
"${H[@]}" rdma dev show | grep -q " $DEV: " || die "$NS does not see $DEV"
dev_listed && die "the initial namespace sees $DEV"
uverbs=$("${H[@]}" bash -c 'for d in /sys/class/infiniband_verbs/uverbs*; do
	[ "$(cat "$d/ibdev")" = "$1" ] && echo "/dev/infiniband/${d##*/}"; done' _ $DEV)
[ -n "$uverbs" ] && [ -e "$uverbs" ] || die "no uverbs file of $DEV"
ok "a device in its own namespace" "$DEV on hv0 in $NS, $uverbs"

# The holder: opens xrxeh0 in xrxe-h, then leaves it, the context open.
# ip netns exec execs it: $! is the holder itself.
rm -f $out/ready $out/go
"${H[@]}" "$HOLD" $DEV $out/ready $out/go 120 >$out/hold.log 2>&1 &
hold=$!
for _ in $(seq 300); do
	[ -f $out/ready ] || ! holder_alive && break
	sleep 0.1
done
if [ ! -f $out/ready ]; then
	cat $out/hold.log
	kill -9 $hold 2>/dev/null
	die "the holder did not get ready"
fi
ns_ino=$(stat -L -c %i /run/netns/$NS)
hold_ino=$(stat -L -c %i /proc/$hold/ns/net)
pids=$(ip netns pids $NS | xargs)
cat $out/hold.log
if [ "$ns_ino" = "$hold_ino" ] || [ -n "$pids" ]; then
	touch $out/go
	die "something is left in $NS: holder's netns $hold_ino, $NS's $ns_ino, pids '$pids'"
fi
ok "the holder left the namespace" "pid $hold in netns $hold_ino, $NS was $ns_ino"

# xrxe-h deleted; then a later namespace with a veth pair (tv0 here, tv1
# there), added and deleted. Both teardowns within BOUND seconds of the
# first deletion.
start=$(date +%s.%N)
ip netns del $NS || bad "ip netns del $NS"
timeout $BOUND ip netns add $LATER || bad "ip netns add $LATER: exit $?"
timeout $BOUND ip link add tv0 type veth peer name tv1 netns $LATER ||
	bad "veth pair into $LATER: exit $?"
timeout $BOUND ip netns del $LATER || bad "ip netns del $LATER: exit $?"
hv1_gone='' dev_gone='' tv0_gone=''
for ((i = 0; i < BOUND * 10; i++)); do
	[ -n "$hv1_gone" ] || ip link show hv1 >/dev/null 2>&1 ||
		hv1_gone=$(date +%s.%N)
	if [ -z "$dev_gone" ] && [ -n "$hv1_gone" ] && ! dev_listed && [ ! -e "$uverbs" ]; then
		dev_gone=$(date +%s.%N)
	fi
	[ -n "$tv0_gone" ] || ip link show tv0 >/dev/null 2>&1 ||
		tv0_gone=$(date +%s.%N)
	[ -n "$hv1_gone" ] && [ -n "$dev_gone" ] && [ -n "$tv0_gone" ] && break
	sleep 0.1
done
since() {
	awk -v a="$start" -v b="$1" 'BEGIN {printf "%.1f s", b - a}'
}
stuck=
if [ -z "$hv1_gone" ] || [ -z "$dev_gone" ]; then
	stuck=1
	bad "$NS's teardown not over $BOUND s after ip netns del:" \
		"hv1 $([ -n "$hv1_gone" ] && echo gone || echo 'still here')," \
		"$DEV $([ -n "$dev_gone" ] && echo gone || echo 'not gone')"
	ip -br link show
else
	# The device is unregistered once its name is free again.
	ip link add hc0 type veth peer name hc1 || bad "veth pair hc0"
	ip link set hc0 up
	added=
	for _ in $(seq 50); do
		rdma link add $DEV type xrxe netdev hc0 2>/dev/null && added=1 && break
		sleep 0.1
	done
	rdma link delete $DEV 2>/dev/null
	ip link del hc0 2>/dev/null
	if [ -n "$added" ]; then
		ok "namespace deleted" "hv1 gone after $(since "$hv1_gone"), $DEV after $(since "$dev_gone"), its name free"
	else
		bad "$DEV's name is still taken after its namespace's teardown"
	fi
fi
if [ -z "$tv0_gone" ]; then
	stuck=1
	bad "$LATER's veth (tv0) still here $BOUND s after ip netns del $NS"
else
	ok "a later namespace torn down" "tv0 gone after $(since "$tv0_gone")"
fi
[ -z "$stuck" ] || stuck_report

# The holder goes on: its calls on the context, then its exit.
touch $out/go
for _ in $(seq 300); do
	holder_alive || break
	sleep 0.1
done
if holder_alive; then
	bad "the holder did not exit 30 s after the go"
	stuck_report
	kill -9 $hold 2>/dev/null
	sleep 1
	hrc=killed
else
	wait $hold
	hrc=$?
	ok "the holder exited" "exit $hrc"
fi
echo "== xrxe-netns-hold"
cat $out/hold.log
if [ "$hrc" = 0 ]; then
	ok "the holder's calls failed cleanly"
else
	bad "xrxe-netns-hold: exit $hrc"
fi

# A teardown that was stuck has what it waited for now: the guest must
# recover (and power off).
if [ -n "$stuck" ]; then
	gone_within 60 ip link show hv1 && gone_within 10 ip link show tv0 &&
		echo "netns-hold: the stuck teardown finished once the holder exited" ||
		{ echo "netns-hold: the teardown is still stuck after the holder's exit"; stuck_report; }
fi

# The mode changes back once no other namespace is left (the holder's
# own goes in the background after its exit).
for _ in $(seq 300); do
	rdma system set netns shared 2>/dev/null && break
	sleep 0.1
done
if rdma system show | grep -q "netns shared"; then
	ok "shared mode again"
else
	bad "mode after: $(rdma system show)"
fi
[ -z "$failed" ] || exit 1
echo "netns-hold: done"
