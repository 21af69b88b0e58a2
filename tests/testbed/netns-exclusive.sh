#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# usage: netns-exclusive.sh
# xrxe devices under rdma's exclusive namespace mode (rdma system set
# netns exclusive), in one guest whose two virtio NICs share a qemu hub:
# xrxe0 on the first NIC in namespace xrxe-a, xrxe1 on the second in
# xrxe-b (netns_layout; each device added from inside its namespace, and
# so belonging to it). Hostile: each namespace sees only its own device
# (rdma dev, ibv_devices, sysfs), a process in xrxe-b cannot open xrxe0's
# uverbs file (EPERM) nor list or count its QPs (rdma resource, rdma
# statistic, the debugfs stage counters) while xrxe-a holds one, and the
# initial namespace sees neither. Then traffic across the two (an RC
# ping-pong), rdma-core's rdmacm tests inside xrxe-a (the NIC is the
# device's parent, through which the suite finds its address), xrxe-b
# deleted (its device goes with its NIC's move home), a device of the
# initial namespace that xrxe-a does not see, the module unloaded with
# devices in two namespaces, and the shared mode restored. The testbed
# fails the run on any kernel warning in dmesg.

if [ "${1:-}" != --guest ]; then
	. "$(dirname "$0")/lib.sh"
	suite=$OUT/suite
	rdma_core_suite "$suite"
	"$TESTBED" run --module xrxe --link virtio --timeout 600 "${GUEST_ENV[@]}" \
		--env DEVICES_LIB="$DEVICES_LIB" --env PAIR_LIB="$PAIR_LIB" \
		--env SUITE_DIR="$suite" \
		-- "${GUEST_HALF[@]}" | tee "$OUT/log"
	for step in "exclusive mode" "each namespace sees its own device" \
		"xrxe0 cannot be opened from xrxe-b" \
		"xrxe0's QPs and counters hidden from xrxe-b" \
		"verbs ping-pong across" "rdma-core's rdmacm tests in xrxe-a" \
		"namespace deleted" "a device of the initial namespace" \
		"unload" "shared mode again"; do
		grep -q "^netns-exclusive: $step: ok" "$OUT/log" ||
			fail "netns-exclusive: $step did not pass"
	done
	echo "ok: xrxe devices in rdma's exclusive namespace mode"
	exit 0
fi

# ---- In the guest ----
set -uo pipefail
# shellcheck source=../../tools/testbed-guest/guest-devices.sh
. "$DEVICES_LIB"
# shellcheck source=../../tools/testbed-guest/pair.sh
. "$PAIR_LIB"
out=/tmp/netns-exclusive
mkdir -p $out
A=(ip netns exec xrxe-a)
B=(ip netns exec xrxe-b)

die() {
	echo "netns-exclusive: FAIL: $*"
	exit 1
}

ok() {
	echo "netns-exclusive: $1: ok${2:+ ($2)}"
}

# seen [ip netns exec NS]: the RDMA devices a namespace sees, by rdma dev,
# ibv_devices and sysfs, each list sorted on one line.
seen() {
	echo "rdma: $("$@" rdma dev show | awk '{sub(":", "", $2); print $2}' | sort | xargs)"
	echo "verbs: $("$@" ibv_devices | awk 'NR > 2 {print $1}' | sort | xargs)"
	echo "sysfs: $("$@" ls /sys/class/infiniband | sort | xargs)"
}

expect_seen() {
	local want=$1 got
	shift
	got=$(seen "$@")
	[ "$got" = "$(printf 'rdma: %s\nverbs: %s\nsysfs: %s' "$want" "$want" "$want")" ] ||
		die "${*:-the initial namespace} sees: $got (want '$want')"
}

rdma system set netns exclusive || die "rdma system set netns exclusive"
rdma system show | grep -q "netns exclusive" || die "mode: $(rdma system show)"
ok "exclusive mode"

netns_layout xrxe || die "$DEVICES_ERROR"
expect_seen "xrxe0" "${A[@]}"
expect_seen "xrxe1" "${B[@]}"
expect_seen ""
ok "each namespace sees its own device"

# Every uverbs file, opened from xrxe-b: its own device's opens, the
# other's is refused.
opens=$("${B[@]}" python3 -c '
import errno, glob, os
for path in sorted(glob.glob("/dev/infiniband/uverbs*")):
    try:
        os.close(os.open(path, os.O_RDWR))
        print(path, "ok")
    except OSError as e:
        print(path, errno.errorcode[e.errno])
')
echo "$opens"
[ "$(grep -c ' ok$' <<<"$opens")" = 1 ] && [ "$(grep -c ' EPERM$' <<<"$opens")" = 1 ] ||
	die "uverbs files opened from xrxe-b: $opens"
ok "xrxe0 cannot be opened from xrxe-b"

# A QP of xrxe0's, held by a ping-pong server in xrxe-a that waits for
# its client: xrxe-a lists it, xrxe-b and the initial namespace do not;
# only xrxe-a reads xrxe0's counters and stage counters.
"${A[@]}" timeout 120 ibv_rc_pingpong -d xrxe0 -g 0 -n 200 -s 4096 -c \
	>$out/pingpong-server 2>&1 &
server=$!
wait_listen 18515 $server xrxe-a || { cat $out/pingpong-server; die "the ping-pong server did not listen"; }
"${A[@]}" rdma resource show qp link xrxe0 >$out/qp-a 2>&1
"${B[@]}" rdma resource show qp >$out/qp-b 2>&1
rdma resource show qp >$out/qp-init 2>&1
grep -q "link xrxe0/1 .*type RC" $out/qp-a || { cat $out/qp-a; die "xrxe-a does not list xrxe0's RC QP"; }
grep -q xrxe0 $out/qp-b $out/qp-init && { cat $out/qp-b $out/qp-init; die "xrxe0's QP listed outside xrxe-a"; }
"${A[@]}" rdma statistic show link xrxe0/1 | grep -q sent_pkts ||
	die "xrxe-a cannot read xrxe0's counters"
"${B[@]}" rdma statistic show link xrxe0/1 >$out/stat-b 2>&1 &&
	{ cat $out/stat-b; die "xrxe-b read xrxe0's counters"; }
# stages [ip netns exec NS]: the devices of the debugfs stage counters, as
# a namespace reads them (ip netns exec gives each command its own mount
# namespace and sysfs: debugfs is mounted there by mount_debugfs).
stages() {
	"$@" bash -c '. "$1" && mount_debugfs &&
		awk "NR > 1 {print \$1}" "$XRXE_DEBUGFS/stages" | sort -u | xargs' _ "$DEVICES_LIB"
}
[ "$(stages "${A[@]}")" = xrxe0 ] && [ "$(stages "${B[@]}")" = xrxe1 ] &&
	[ "$(stages)" = "" ] ||
	die "stage counters: xrxe-a '$(stages "${A[@]}")', xrxe-b '$(stages "${B[@]}")', initial '$(stages)'"
ok "xrxe0's QPs and counters hidden from xrxe-b"

"${B[@]}" timeout 120 ibv_rc_pingpong -d xrxe1 -g 0 -n 200 -s 4096 -c 192.0.2.1 \
	>$out/pingpong-client 2>&1
crc=$?
wait $server
src=$?
[ $src = 0 ] && [ $crc = 0 ] ||
	{ tail -n 20 $out/pingpong-*; die "ping-pong: server exit $src, client exit $crc"; }
ok "verbs ping-pong across"

# rdma-core's rdmacm tests on xrxe0 inside xrxe-a: its NIC, the device's
# parent, is where the suite finds the address (192.0.2.1).
(cd "$SUITE_DIR" && "${A[@]}" env PYTHONPATH="$SUITE_DIR" python3 tests/run_tests.py -v \
	--dev xrxe0 --port 1 --gid 0 tests.test_rdmacm >$out/rdmacm 2>&1)
rc=$?
ran=$(sed -n 's/^Ran \([0-9]*\) tests\{0,1\} in .*/\1/p' $out/rdmacm)
skipped=$(grep -o 'skipped=[0-9]*' $out/rdmacm | cut -d= -f2)
executed=$((${ran:-0} - ${skipped:-0}))
grep "\.\.\. \(skipped\|FAIL\|ERROR\)" $out/rdmacm
[ $rc = 0 ] && [ $executed -ge 8 ] ||
	{ tail -n 40 $out/rdmacm; die "rdmacm tests: exit $rc, ran ${ran:-none}, skipped ${skipped:-0}"; }
ok "rdma-core's rdmacm tests in xrxe-a" "$executed of $ran executed"

# xrxe-b, with no process left in it, deleted: the core gives xrxe1 back
# to the initial namespace, and its NIC's return there (an unregister of
# the NIC in xrxe-b) takes the device away.
nic1=${NETDEVS[1]}
ip netns del xrxe-b || die "ip netns del xrxe-b"
for _ in $(seq 100); do
	ip link show "$nic1" >/dev/null 2>&1 && [ -z "$(rdma dev show)" ] && break
	sleep 0.1
done
ip link show "$nic1" >/dev/null 2>&1 || die "$nic1 did not come back to the initial namespace"
expect_seen ""
expect_seen "xrxe0" "${A[@]}"
ok "namespace deleted"

# A device added in the initial namespace belongs to it: xrxe-a does not
# see it.
rdma link add xrxe2 type xrxe netdev "$nic1" || die "rdma link add xrxe2"
ip link set "$nic1" up
wait_ready xrxe2 || die "$DEVICES_ERROR"
expect_seen "xrxe2"
expect_seen "xrxe0" "${A[@]}"
ok "a device of the initial namespace"

# The module unloads with devices in two namespaces.
rmmod rdma_xrxe || die "rmmod rdma_xrxe with devices in two namespaces"
"${A[@]}" ls /sys/class/infiniband | grep -q . && die "a device outlived the module in xrxe-a"
compgen -G "/dev/infiniband/uverbs*" >/dev/null && die "uverbs files outlived the module"
ok "unload"

# The mode changes only once no other namespace is left; a deleted
# namespace is released in the background.
ip netns del xrxe-a
for _ in $(seq 100); do
	rdma system set netns shared 2>/dev/null && break
	sleep 0.1
done
rdma system show | grep -q "netns shared" || die "mode after: $(rdma system show)"
ok "shared mode again"
echo "netns-exclusive: done"
