#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# usage: teardown.sh
# Teardown under traffic, in one boot: for XRXE_TEARDOWN_CYCLES cycles
# (default 4), start traffic between xrxe0 and xrxe1 (a perftest
# send/write/read bandwidth pair over loopback, the xrxe-dbl-test hunter,
# and often xrxe-soak), then at a random moment in the traffic:
#   kill     kill -9 the programs (engines idle or polling briefly);
#   served   the same while the engines busy-poll every QP (100 ms window),
#            so QPs are destroyed by process exit while an engine serves them;
#   link     rdma link delete xrxe1 while its users run: it disassociates
#            them and must end within 30 s while they live (their verbs
#            then fail with EIO, and they may exit by themselves), kill -9
#            them, then add xrxe1 again;
#   rmmod    rmmod rdma_xrxe while in use, its users killed at the same
#            time: the module's exit disassociates them as a link delete
#            does and must end within 30 s; load it and add the devices
#            again;
#   unload   kill -9, delete both links, rmmod, load, add the devices.
# After each cycle no QP but the two GSI QPs is left and every device's
# resource counts are back to the idle ones. After the last, the slab and
# vmalloc use must be where they were after the first cycle (see
# check_memory for the tolerance). The testbed fails the run on any kernel
# warning in dmesg. XRXE_TEARDOWN_SEED repeats a run's random choices,
# XRXE_TEARDOWN_KINDS="rmmod link ..." runs only those kinds in turn,
# XRXE_DOORBELL_LESS=0 makes every send queue classic.

if [ "${1:-}" != --guest ]; then
	. "$(dirname "$0")/lib.sh"
	cycles=${XRXE_TEARDOWN_CYCLES:-4}
	seed=${XRXE_TEARDOWN_SEED:-$(( $(date +%s) % 32768 ))}
	for t in xrxe-dbl-test xrxe-soak; do
		[ -x "$XRXE_BUILD/tests/$t" ] || fail "$XRXE_BUILD/tests/$t is not built"
	done
	# 20-50 s a cycle in TCG on a busy 2-core host; boot and setup on top.
	"$TESTBED" run --module xrxe --timeout $((120 + 120 * cycles)) "${GUEST_ENV[@]}" \
		--env DEVICES_LIB="$DEVICES_LIB" --env PAIR_LIB="$PAIR_LIB" \
		--env TEARDOWN_OUT="$OUT" --env TEARDOWN_CYCLES="$cycles" \
		--env TEARDOWN_SEED="$seed" --env TOOLS="$XRXE_BUILD/tests" \
		--env TEARDOWN_KINDS="${XRXE_TEARDOWN_KINDS:-}" \
		-- "${GUEST_HALF[@]}" | tee "$OUT/log"
	grep -q "^teardown: PASS: $cycles cycles" "$OUT/log" || fail "teardown cycles did not all pass"
	echo "ok: teardown under traffic, $cycles cycles"
	exit 0
fi

# ---- In the guest ----
set -euo pipefail
# shellcheck source=../../tools/testbed-guest/guest-devices.sh
. "$DEVICES_LIB"
# shellcheck source=../../tools/testbed-guest/pair.sh
. "$PAIR_LIB"
out=$TEARDOWN_OUT
cycles=$TEARDOWN_CYCLES
RANDOM=$TEARDOWN_SEED
params=/sys/module/rdma_xrxe/parameters
PIDS=()
NAMES=()
cdir=

die() {
	echo "teardown: FAIL: cycle ${cycle:-0}: $*"
	echo "== the cycle:${desc:-}"
	rdma statistic show 2>&1 || true
	if [ -n "$cdir" ]; then
		echo "== logs of the cycle ($cdir)"
		tail -n 20 "$cdir"/*.log 2>/dev/null || true
	fi
	echo "== rdma resource"; rdma resource show 2>&1 || true
	rdma resource show qp 2>&1 || true
	ps -eo pid,stat,wchan:32,cmd | grep -v ' \[' || true
	exit 1
}

# pick VAR CHOICE...: VAR becomes one of the choices. Not in a $(...):
# a subshell reseeds RANDOM and the run could not be repeated by its seed.
pick() {
	local var=$1
	shift
	local a=("$@")
	printf -v "$var" '%s' "${a[RANDOM % ${#a[@]}]}"
}

# Starting a program costs 0.5-1 s in the guest (exec over the 9p root
# under TCG), so the loops that wait here use builtins only: bsleep waits
# on a FIFO nobody writes.
mkfifo "/run/teardown-sleep.$$"
exec 9<>"/run/teardown-sleep.$$"
rm "/run/teardown-sleep.$$"

bsleep() {
	read -r -t "$1" -u 9 _ || true
}

msleep() {
	bsleep "$(printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)))"
}

now_ms() {
	local t=${EPOCHREALTIME/./}
	echo $((t / 1000))
}

module_loaded() {
	local name _
	while read -r name _; do
		[ "$name" != rdma_xrxe ] || return 0
	done </proc/modules
	return 1
}

# listening PORT: something listens on TCP PORT (IPv4 or IPv6).
listening() {
	local hex _ addr st f
	printf -v hex '%04X' "$1"
	for f in /proc/net/tcp /proc/net/tcp6; do
		while read -r _ addr _ st _; do
			[[ $addr != *":$hex" || $st != 0A ]] || return 0
		done <"$f"
	done
	return 1
}

# file_has FILE TEXT: TEXT occurs in a line of FILE.
file_has() {
	local line
	while IFS= read -r line; do
		[[ $line != *"$2"* ]] || return 0
	done <"$1"
	return 1
}

# spawn NAME LOG COMMAND...: start a traffic program in the background; bash
# execs it, so the PID is the program's own (stdbuf and env exec too).
spawn() {
	local name=$1 log=$2
	shift 2
	"$@" </dev/null >"$log" 2>&1 &
	PIDS+=($!)
	NAMES+=("$name")
}

# PENV: the environment of one program: classic send queue (DBL 0, or the
# whole run's XRXE_DOORBELL_LESS=0) or not, and its low-latency mode.
prog_env() {
	PENV=(XRXE_LL_MODE="$2")
	if [ "${XRXE_DOORBELL_LESS:-1}" = 0 ] || [ "$1" = 0 ]; then
		PENV+=(XRXE_DOORBELL_LESS=0)
	fi
}

# A perftest bandwidth pair: server on xrxe0, client on xrxe1; both run
# until killed.
start_perftest() {
	local port=$((20000 + cycle % 2000)) prog q size dbl ll k
	pick prog ib_send_bw ib_write_bw ib_read_bw
	pick q 1 2
	pick size 64 1024 4096 65536
	pick dbl 1 1 1 0
	pick ll idle always never
	prog_env "$dbl" "$ll"
	desc+=" $prog -q $q -s $size (${PENV[*]})"
	spawn perftest-server "$cdir/perftest-server.log" env "${PENV[@]}" stdbuf -oL \
		"$prog" -d xrxe0 -x 0 -p $port -q "$q" -s "$size" -D 600
	k=0
	until listening $port; do
		k=$((k + 1))
		[ $k -lt 600 ] || die "$prog server never listened on port $port"
		bsleep 0.1
	done
	spawn perftest-client "$cdir/perftest-client.log" env "${PENV[@]}" stdbuf -oL \
		"$prog" -d xrxe1 -x 0 -p $port -q "$q" -s "$size" -D 600 127.0.0.1
	PERFTEST_CLIENT=$cdir/perftest-client.log
}

start_hunter() {
	local dev=$1 q t g dbl ll args=()
	pick q 4 8
	pick t 2 4
	pick g 0 50 1000
	g=${2:-$g}
	pick dbl 1 1 1 0
	[ "${XRXE_DOORBELL_LESS:-1}" = 0 ] && dbl=0
	if [ "$dbl" = 1 ]; then
		pick ll idle always never
		args=(-l "$ll")
	fi
	desc+=" hunter on $dev -q $q -t $t -g $g ${args[*]:-classic}"
	prog_env "$dbl" idle
	spawn hunter "$cdir/hunter.log" env XRXE_DEV="$dev" "${PENV[@]}" \
		"$TOOLS/xrxe-dbl-test" hunter -q "$q" -t "$t" -s 3600 -g "$g" "${args[@]}"
	HUNTER_QPS=$((2 * q))
}

# xrxe-soak over both devices. Its operations are either sends, writes and
# reads or writes, reads and atomics: an atomic right after a send or write
# can complete without its result when requests are retransmitted (an rxe
# completer bug the soak test reports), which would end the traffic early.
start_soak() {
	local q dbl ll ops
	pick q 4 8
	pick dbl 1 1 0
	pick ll idle always never
	pick ops siwr wra
	prog_env "$dbl" "$ll"
	desc+=" soak -q $q -o $ops (${PENV[*]})"
	spawn soak "$cdir/soak.log" env "${PENV[@]}" \
		"$TOOLS/xrxe-soak" -q "$q" -t 2 -s 3600 -i 0 -x -o "$ops" -S "$RANDOM"
	SOAK_QPS=$((2 * q))
}

# The QPs of PID in RTS (no process substitution: the guest has no /dev/fd).
rts_qps() {
	rdma resource show qp pid "$1" 2>/dev/null | {
		local line n=0
		while IFS= read -r line; do
			[[ $line != *"state RTS"* ]] || n=$((n + 1))
		done
		echo $n
	}
}

# Until every program is in its traffic: perftest printed its header, the
# hunter and the soak have all their QPs in RTS. Polled gently: the checks
# take CPU from the programs they wait for.
wait_started() {
	local t0=$SECONDS k pid left ok
	local -A ready=()
	while :; do
		left=0
		for k in "${!PIDS[@]}"; do
			[ -z "${ready[$k]:-}" ] || continue
			pid=${PIDS[$k]}
			kill -0 "$pid" 2>/dev/null ||
				die "${NAMES[$k]} exited before its traffic started"
			ok=1
			case ${NAMES[$k]} in
			perftest-client) file_has "$PERFTEST_CLIENT" '#bytes' || ok=0 ;;
			hunter) [ "$(rts_qps "$pid")" -ge "$HUNTER_QPS" ] || ok=0 ;;
			soak) [ "$(rts_qps "$pid")" -ge "$SOAK_QPS" ] || ok=0 ;;
			esac
			if [ $ok = 1 ]; then
				ready[$k]=1
			else
				left=1
			fi
		done
		[ $left = 1 ] || break
		[ $((SECONDS - t0)) -lt 120 ] || die "traffic did not start within 120 s"
		bsleep 0.5
	done
	desc+="; all in traffic after $((SECONDS - t0)) s"
}

# Every program must still be running: one that failed by itself would mean
# the traffic broke before the teardown.
check_alive() {
	local k
	for k in "${!PIDS[@]}"; do
		kill -0 "${PIDS[$k]}" 2>/dev/null ||
			die "${NAMES[$k]} exited before the kill ($1)"
	done
}

# kill -9 every program in a random order with random short gaps, so a peer
# sometimes outlives the other end for a while. KILLED: the names in order.
kill_all() {
	local order=("${!PIDS[@]}") i j tmp
	for ((i = ${#order[@]} - 1; i > 0; i--)); do
		j=$((RANDOM % (i + 1)))
		tmp=${order[i]}; order[i]=${order[j]}; order[j]=$tmp
	done
	KILLED=()
	for i in "${order[@]}"; do
		kill -9 "${PIDS[$i]}" 2>/dev/null || true
		KILLED+=("${NAMES[$i]}")
		msleep $((RANDOM % 200))
	done
}

# Reap the programs; each must have died of the kill (status 137), except
# a perftest whose peer was killed first: it sees the TCP connection close
# and may exit by itself ("Couldn't read remote address"). With "gone", any
# may have exited by itself: its device went away under it.
reap_all() {
	local k j rc peer first gone=${1:-}
	for k in "${!PIDS[@]}"; do
		rc=0
		wait "${PIDS[$k]}" 2>/dev/null || rc=$?
		[ $rc = 137 ] && continue
		if [ -n "$gone" ]; then
			desc+="; ${NAMES[$k]} exited $rc after its device went"
			continue
		fi
		case ${NAMES[$k]} in
		perftest-server) peer=perftest-client ;;
		perftest-client) peer=perftest-server ;;
		*) peer= ;;
		esac
		first=
		for j in "${KILLED[@]}"; do
			[ "$j" = "${NAMES[$k]}" ] && break
			[ "$j" = "$peer" ] && first=1
		done
		[ -n "$first" ] || die "${NAMES[$k]} exited $rc, not by the kill"
		desc+="; ${NAMES[$k]} exited $rc after its peer's kill"
	done
	PIDS=()
	NAMES=()
}

# The device of veth I again, ready as guest-devices.sh's add_devices
# leaves it (which adds both).
readd_link() {
	local i=$1 k
	rdma link add "xrxe$i" type xrxe netdev "veth$i" || die "rdma link add xrxe$i"
	for ((k = 0; k < 100; k++)); do
		port_ready "xrxe$i" && return 0
		bsleep 0.1
	done
	die "xrxe$i is not active with a link-local GID after it was added again"
}

reload_driver() {
	load_driver xrxe || die "$DEVICES_ERROR"
	add_devices xrxe || die "$DEVICES_ERROR"
}

# await_removal WHAT PID LOG: WHAT, started as PID with its output in LOG,
# removes devices whose users still live: it must end within 30 s, and
# succeed.
await_removal() {
	local what=$1 pid=$2 log=$3 t0=$SECONDS rc=0
	while kill -0 "$pid" 2>/dev/null; do
		[ $((SECONDS - t0)) -lt 30 ] || die "$what still waits 30 s after it started"
		bsleep 0.1
	done
	wait "$pid" || rc=$?
	[ $rc = 0 ] || die "$what exited $rc: $(cat "$log")"
}

# Only the GSI QPs left, and both devices back to the idle counts. The
# kernel finishes a killed process's teardown before the parent reaps it,
# so this should hold at once; a few seconds are allowed for deferred work
# and the time it took is printed.
verify_clean() {
	local t0 looks=0
	t0=$SECONDS
	while :; do
		looks=$((looks + 1))
		if devices_idle xrxe; then
			if [ $looks = 1 ]; then
				desc+="; clean at once"
			else
				desc+="; clean after $((SECONDS - t0)) s (left at first: $first)"
			fi
			return 0
		fi
		[ $looks != 1 ] || first=$(resource_counts | tr '\n' ' ')
		[ $((SECONDS - t0)) -lt 10 ] || break
		bsleep 0.2
	done
	user_qps
	resource_counts
	die "resources left after the teardown"
}

# SUnreclaim and VmallocUsed in kB, and each slab cache's active objects and
# object size (slub_debug makes the counts exact: no per-CPU slabs).
snapshot() {
	# Let RCU callbacks and deferred frees run; drop the dentries and
	# inodes the programs' runs left (the guest's root is 9p).
	sleep 2
	echo 2 >/proc/sys/vm/drop_caches
	sleep 1
	grep -E '^(SUnreclaim|VmallocUsed):' /proc/meminfo | awk '{print $1, $2}' >"$1"
	awk 'NR > 2 {print "slab", $1, $2, $4}' /proc/slabinfo >>"$1"
}

meminfo_of() {
	awk -v k="$2:" '$1 == k {print $2}' "$1"
}

# Compare the end with the baseline. The tolerance: what the guest's own
# churn moves between two idle snapshots (kworkers come and go with their
# stacks and tasks, sysfs objects of re-added devices, slab pages held
# by partly used slabs) stays well within 1 MiB of unreclaimable slab and
# 2 MiB of vmalloc (4 cycles moved them by under 100 kB, single cycles by
# up to 350 kB); a leak of one QP per cycle (its rxe_qp, queues and their
# vmalloc'ed rings: several pages) is more than that after 100 cycles.
# Leaks of objects show sooner in the per-cache counts: each cycle creates
# and destroys 20-60 QPs with their CQs, MRs and PDs, so a leak of one
# object per QP (or per cycle, in runs of 100 cycles or more) grows a cache
# past the limit of 32 objects of noise plus one per two cycles. The
# dentry and inode caches are left out: reclaimable, and moved by the
# files the programs' runs open on the 9p root; so is vmap_area, whose
# freed areas wait for a lazy purge (vmalloc use itself is checked).
check_memory() {
	local before=$1 after=$2 d_slab d_vm
	d_slab=$(($(meminfo_of "$after" SUnreclaim) - $(meminfo_of "$before" SUnreclaim)))
	d_vm=$(($(meminfo_of "$after" VmallocUsed) - $(meminfo_of "$before" VmallocUsed)))
	echo "teardown: memory: SUnreclaim $(meminfo_of "$before" SUnreclaim) -> $(meminfo_of "$after" SUnreclaim) kB ($d_slab), VmallocUsed $(meminfo_of "$before" VmallocUsed) -> $(meminfo_of "$after" VmallocUsed) kB ($d_vm)"
	awk '$1 == "slab"' "$before" >"$out/slab-before"
	awk '$1 == "slab"' "$after" >"$out/slab-after"
	# Caches by growth in bytes: name, objects before, after, delta, bytes.
	awk 'NR == FNR {b[$2] = $3; next} {d = $3 - b[$2]; print $2, b[$2] + 0, $3, d, d * $4}' \
		"$out/slab-before" "$out/slab-after" | sort -k5,5nr >"$out/slab-delta"
	echo "teardown: slab caches that grew most (name, active objects before, after, delta, bytes):"
	awk '$4 > 0' "$out/slab-delta" | head -n 8 | sed 's/^/  /'
	local limit=$((32 + cycles / 2)) grown
	grown=$(awk -v l=$limit '$4 > l && $1 !~ /(dentry|inode)/ && $1 != "vmap_area"' \
		"$out/slab-delta")
	[ -z "$grown" ] || die "slab caches grew by more than $limit objects: $grown"
	[ "$d_slab" -le 1024 ] || die "SUnreclaim grew by $d_slab kB (tolerance 1024 kB)"
	[ "$d_vm" -le 2048 ] || die "VmallocUsed grew by $d_vm kB (tolerance 2048 kB)"
}

set_engine_idle() {
	echo "$1" >"$params/engine_idle_us"
}

# One cycle: traffic, then the teardown of this cycle's kind.
run_cycle() {
	local kind=$1 t0 t_started t_torn delay del_pid k t rc idle dev first
	t0=$(now_ms)
	cdir=$out/cycle-$cycle
	mkdir -p "$cdir"
	case $kind in
	served) idle=100000 ;;
	*) pick idle 0 50 1000 ;;
	esac
	set_engine_idle $idle
	desc=" engine_idle_us $idle;"
	pick dev xrxe0 xrxe1
	# perftest is the slowest to start: the others set up meanwhile.
	case $kind in
	served) start_hunter "$dev" 0 ;;
	link) start_hunter xrxe1 ;;
	*) start_hunter "$dev" ;;
	esac
	if [ "$kind" != kill ] || [ $((RANDOM % 2)) = 0 ]; then
		start_soak
	fi
	start_perftest
	echo "  cycle $cycle $kind:$desc"
	wait_started
	t_started=$(now_ms)
	delay=$((RANDOM % 3000))
	msleep $delay
	check_alive "after ${delay} ms of traffic"
	echo "  cycle $cycle: traffic for ${delay} ms, tearing down"
	case $kind in
	kill | served)
		kill_all 2>/dev/null
		reap_all 2>/dev/null
		;;
	link)
		rdma link delete xrxe1 >"$cdir/link-delete.log" 2>&1 &
		del_pid=$!
		# The device disassociates its users: the delete ends while
		# they live, and does not wait for them to exit.
		t=$SECONDS
		await_removal "rdma link delete xrxe1" $del_pid "$cdir/link-delete.log"
		! rdma link show xrxe1/1 >/dev/null 2>&1 || die "xrxe1 still there after its delete"
		desc+="; delete done in $((SECONDS - t)) s without waiting for its users"
		kill_all 2>/dev/null
		reap_all gone 2>/dev/null
		t=$SECONDS
		readd_link 1
		desc+="; added again in $((SECONDS - t)) s"
		;;
	rmmod)
		# The module's exit removes both devices, disassociating their
		# users as a link delete does (they hold no reference on the
		# module): it must end within 30 s while they live, racing
		# their exits, which start with it.
		rmmod rdma_xrxe >"$cdir/rmmod.log" 2>&1 &
		del_pid=$!
		KILLED=("${NAMES[@]}")
		kill_all 2>/dev/null
		t=$SECONDS
		await_removal "rmmod rdma_xrxe" $del_pid "$cdir/rmmod.log"
		! module_loaded || die "rdma_xrxe still loaded after its rmmod"
		desc+="; unloaded in $((SECONDS - t)) s while its users exited"
		reap_all gone 2>/dev/null
		t=$SECONDS
		reload_driver
		desc+="; loaded and devices up in $((SECONDS - t)) s"
		;;
	unload)
		kill_all 2>/dev/null
		reap_all 2>/dev/null
		t=$SECONDS
		remove_driver xrxe || die "$DEVICES_ERROR"
		desc+="; links deleted and unloaded in $((SECONDS - t)) s"
		t=$SECONDS
		reload_driver
		desc+="; loaded and devices up in $((SECONDS - t)) s"
		;;
	esac
	t_torn=$(now_ms)
	verify_clean
	t=$(now_ms)
	printf 'cycle %d/%d %s: killed after %d ms:%s; %d s (start %d, teardown %d)\n' \
		"$cycle" "$cycles" "$kind" "$delay" "$desc" $(((t - t0) / 1000)) \
		$(((t_started - t0) / 1000)) $(((t_torn - t_started) / 1000))
	awk '/^(SUnreclaim|VmallocUsed):/ {printf "%s %s ", $1, $2} END {print ""}' /proc/meminfo |
		sed "s/^/cycle $cycle: /" >>"$out/memory-trend"
	# Keep only the logs of a failing cycle.
	rm -rf "$cdir"
	cdir=
}

# The kinds in turn: a run of 4 sees all but unload (the testbed's own way
# out, remove_driver, after the kill), one of 5 or more sees each.
# XRXE_TEARDOWN_KINDS (a list like "rmmod link") replaces the rotation.
read -ra kinds <<<"${TEARDOWN_KINDS:-served link rmmod kill unload served kill link served kill}"
start=$(date +%s)
echo "teardown: $cycles cycles, seed $TEARDOWN_SEED${XRXE_DOORBELL_LESS:+, XRXE_DOORBELL_LESS=$XRXE_DOORBELL_LESS}"
for ((cycle = 1; cycle <= cycles; cycle++)); do
	run_cycle "${kinds[(cycle - 1) % ${#kinds[@]}]}"
	# The baseline follows the first cycle: caches and pools the first
	# traffic sets up (kworkers, per-CPU and slab pages) are not a leak.
	[ $cycle != 1 ] || snapshot "$out/mem-baseline"
done
cycle=$cycles
set_engine_idle 0
snapshot "$out/mem-end"
check_memory "$out/mem-baseline" "$out/mem-end"
echo "teardown: PASS: $cycles cycles in $(($(date +%s) - start)) s"
