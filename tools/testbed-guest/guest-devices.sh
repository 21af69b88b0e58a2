# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Sourced inside the testbed guest: the rdma stack, the network interfaces
# and the rdma devices on them. guest-run sets up through these functions;
# a command can source this file too and switch the driver within one boot:
#
#   . tools/testbed-guest/guest-devices.sh && switch_driver xrxe
#
# The functions return non-zero with the reason in DEVICES_ERROR.

# The run's configuration (module root, kernel release, link kind, module
# path) when sourced by a command rather than by guest-run.
if [ -z "${MODROOT:-}" ] && [ -n "${XRXE_TESTBED_RUN:-}" ]; then
	. "$XRXE_TESTBED_RUN/config"
fi

DEVICES_ERROR=

devices_fail() {
	DEVICES_ERROR=$*
	return 1
}

mp() {
	modprobe -d "$MODROOT" -S "$KERNEL_RELEASE" "$@" || devices_fail "modprobe $*"
}

load_rdma_stack() {
	# rxe's crc32: crc32_generic before 7.x, and crc32_pclmul, the
	# crypto API's fastest on x86, which a Debian machine's modprobe
	# loads for it there (the guest's kernel cannot: its modules are not
	# at the default path); 7.x has the library, accelerated, built in.
	local m
	for m in crc32_generic crc32_pclmul; do
		if modprobe -n -d "$MODROOT" -S "$KERNEL_RELEASE" $m 2>/dev/null; then
			mp $m || return 1
		fi
	done
	mp -a udp_tunnel ip6_udp_tunnel ib_core ib_uverbs ib_umad ib_cm \
		iw_cm rdma_cm rdma_ucm veth
}

# The indexes of this guest's devices: 0 and 1 in one guest, the node's
# own with two nodes (node 0 has device 0, node 1 device 1).
dev_indexes() {
	if [ "${NODES:-1}" = 2 ]; then
		echo "$NODE"
	else
		echo 0 1
	fi
}

# netdev_with_mac MAC: the name of the interface with that MAC.
netdev_with_mac() {
	ip -o link | awk -v m="$1" '$0 ~ m {sub(":", "", $2); print $2}'
}

# NETDEVS: the interfaces the devices sit on, by device index.
find_netdevs() {
	local mac
	NETDEVS=()
	if [ "$LINK" = dgram ]; then
		mp virtio_net || return 1
		# This node's one NIC, by the MAC the host gave it.
		mac=52:54:00:78:72:6$NODE
		NETDEVS[$NODE]=$(netdev_with_mac $mac)
		[ -n "${NETDEVS[$NODE]}" ] || devices_fail "the virtio NIC $mac not found"
	elif [ "$LINK" = virtio ]; then
		mp virtio_net || return 1
		# The NICs in PCI order, by the MACs the host gave them.
		for mac in 52:54:00:78:72:60 52:54:00:78:72:61; do
			NETDEVS+=("$(netdev_with_mac $mac)")
		done
		[ -n "${NETDEVS[0]}" ] && [ -n "${NETDEVS[1]}" ] ||
			devices_fail "virtio NICs not found"
	else
		if ! ip link show veth0 >/dev/null 2>&1; then
			ip link add veth0 type veth peer name veth1 || devices_fail "veth pair" || return 1
		fi
		NETDEVS=(veth0 veth1)
	fi
}

setup_netdevs() {
	local i dev
	for i in $(dev_indexes); do
		dev=${NETDEVS[$i]}
		# No duplicate address detection: the link-local GID must be usable
		# at once, and the two ends live in one namespace.
		sysctl -qw net.ipv6.conf.$dev.accept_dad=0
		if [ -n "$ADDRS" ]; then
			ip addr add "192.0.2.$((i + 1))/24" dev $dev
			ip addr add "2001:db8::$((i + 1))/64" dev $dev nodad
		fi
		ip link set $dev up
	done
}

# load_driver rxe|xrxe [PARAM=VALUE...]: the kernel's rdma_rxe, or the
# built rdma_xrxe, with these module parameters.
load_driver() {
	local driver=$1
	shift
	case $driver in
	rxe) mp rdma_rxe "$@" ;;
	xrxe) insmod "$XRXE_KO" "$@" || devices_fail "insmod $XRXE_KO $*" ;;
	*) devices_fail "unknown driver '$driver' (rxe or xrxe)" ;;
	esac
}

# XRXE_DEBUGFS: rdma_xrxe's debugfs directory: its engines, OCUs and stage
# counters, and the test knobs fdom_delay_us, ll_drop_every, pace_delay_us
# and ocu_remap_test. mount_debugfs mounts debugfs where it is not.
XRXE_DEBUGFS=/sys/kernel/debug/rdma_xrxe
mount_debugfs() {
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug ||
		devices_fail "mounting debugfs"
}

# port_ready DEV[@NETNS]: active with the link-local GID at index 0, as
# NETNS sees it (the initial namespace without one).
port_ready() {
	local dev=${1%@*} in=()
	[ "$dev" = "$1" ] || in=(ip netns exec "${1#*@}")
	local port=/sys/class/infiniband/$dev/ports/1
	case $("${in[@]}" cat "$port/state" "$port/gids/0" 2>/dev/null | tr '\n' ' ') in
	"4: ACTIVE fe80:"*) return 0 ;;
	esac
	return 1
}

# wait_ready DEV[@NETNS]...: until every DEV is port_ready (at most 10 s).
wait_ready() {
	local dev
	for dev in "$@"; do
		for _ in $(seq 100); do
			port_ready "$dev" && break
			sleep 0.1
		done
		port_ready "$dev" ||
			devices_fail "$dev is not active with a link-local GID at index 0" ||
			return 1
	done
}

# add_devices rxe|xrxe: MODULE0 and MODULE1 on the two interfaces (this
# node's one with two nodes), ready.
add_devices() {
	local i devs=()
	[ -n "${NETDEVS[*]:-}" ] || find_netdevs || return 1
	for i in $(dev_indexes); do
		rdma link add "$1$i" type "$1" netdev "${NETDEVS[$i]}" ||
			devices_fail "rdma link add $1$i" || return 1
		devs+=("$1$i")
	done
	wait_ready "${devs[@]}"
}

# The network namespaces of netns_layout, by device index.
NETNS=(xrxe-a xrxe-b)

# netns_layout rxe|xrxe: the namespace layout of one guest. Device i
# leaves the initial namespace for NETNS[i] with its interface (veth0 in
# xrxe-a, veth1 in xrxe-b; with the virtio link, the two NICs), which gets
# 192.0.2.(i+1)/24 and 2001:db8::(i+1)/64 there; the link joins the two
# namespaces. The devices are added from inside the namespaces. Run a
# program in one with `ip netns exec xrxe-a PROGRAM`. The driver must be
# loaded; devices of its on the interfaces are deleted first.
netns_layout() {
	local i dev ns
	[ -n "${NETDEVS[*]:-}" ] || find_netdevs || return 1
	for i in 0 1; do
		rdma link delete "$1$i" 2>/dev/null
	done
	for i in 0 1; do
		ns=${NETNS[$i]} dev=${NETDEVS[$i]}
		ip netns add "$ns" || devices_fail "ip netns add $ns" || return 1
		ip link set "$dev" netns "$ns" ||
			devices_fail "moving $dev to $ns" || return 1
		ip -n "$ns" link set lo up
		ip netns exec "$ns" sysctl -qw "net.ipv6.conf.$dev.accept_dad=0"
		ip -n "$ns" addr add "192.0.2.$((i + 1))/24" dev "$dev"
		ip -n "$ns" addr add "2001:db8::$((i + 1))/64" dev "$dev" nodad
		ip -n "$ns" link set "$dev" up ||
			devices_fail "$dev up in $ns" || return 1
	done
	netns_add_devices "$1"
}

# netns_add_devices rxe|xrxe: device i on NETDEVS[i] in NETNS[i], where
# netns_layout moved the interfaces, ready.
netns_add_devices() {
	local i
	for i in 0 1; do
		ip netns exec "${NETNS[$i]}" rdma link add "$1$i" type "$1" \
			netdev "${NETDEVS[$i]}" ||
			devices_fail "rdma link add $1$i in ${NETNS[$i]}" || return 1
	done
	wait_ready "${1}0@${NETNS[0]}" "${1}1@${NETNS[1]}"
}

# all_ready rxe|xrxe: this guest's devices of the driver are all ready.
all_ready() {
	local i
	for i in $(dev_indexes); do
		port_ready "$1$i" || return 1
	done
}

# driver_loaded rxe|xrxe: whether its module is loaded.
driver_loaded() {
	lsmod | grep -q "^rdma_$1 "
}

# remove_driver rxe|xrxe: delete its devices and unload it.
remove_driver() {
	local i module=rdma_$1
	for i in $(dev_indexes); do
		rdma link delete "$1$i" 2>/dev/null
	done
	rmmod "$module" || devices_fail "rmmod $module"
}

# switch_driver rxe|xrxe: the other driver goes if loaded; this one comes
# with its two devices, unless they are already up.
switch_driver() {
	local other=rxe
	[ "$1" = rxe ] && other=xrxe
	if driver_loaded $other; then
		remove_driver $other || return 1
	fi
	if driver_loaded "$1"; then
		all_ready "$1" && return 0
	else
		load_driver "$1" || return 1
	fi
	add_devices "$1"
}

# What an idle device holds, as resource_counts prints it: the MAD layer's
# PD and CQ and the GSI QP.
IDLE_RESOURCE_COUNTS='pd 1 cq 1 qp 1 cm_id 0 mr 0 ctx 0 srq 0'

# resource_counts: every device's counts, "DEV: pd N cq N ...", a line
# each, sorted. 7.x also counts completion counters, none on an idle
# device: left out, so that both kernels print the same.
resource_counts() {
	rdma resource show |
		sed 's/^[0-9]*: //; s/ comp_cntr 0$//; s/ comp_cntr 0 / /; s/ *$//' | sort
}

# user_qps: the QPs there are but ib_core's GSI QPs.
user_qps() {
	rdma resource show qp | grep -v ' type GSI .*comm \[ib_core\]' || true
}

# devices_idle rxe|xrxe: its two devices hold only what an idle one holds.
devices_idle() {
	[ -z "$(user_qps)" ] && [ "$(resource_counts)" = "${1}0: $IDLE_RESOURCE_COUNTS
${1}1: $IDLE_RESOURCE_COUNTS" ]
}
