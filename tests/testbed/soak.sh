#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# usage: soak.sh
# Soak: XRXE_SOAK_SECS (default 60) of mixed RC traffic between xrxe0 and
# xrxe1 from three xrxe-soak processes at once, 32 QP pairs in all: 16 on
# doorbell-less send queues with the low-latency mode and the engine's
# busy-poll window varied per QP, 8 in low-latency mode always, 8 classic.
# Sends (inline or not), writes with immediate, writes read back, reads and
# fetch-and-adds, as lists and single posts, with checked payloads; the
# module's engine_idle_us changes every 10 s. Every program must report
# zero corruption and every completion once, in order; afterwards no QP is
# left, and slab and vmalloc use are where they were before (as in
# teardown.sh). XRXE_SOAK_OPS limits the operations (xrxe-soak -o, default
# all); XRXE_DOORBELL_LESS=0 makes every send queue classic.

if [ "${1:-}" != --guest ]; then
	. "$(dirname "$0")/lib.sh"
	secs=${XRXE_SOAK_SECS:-60}
	[ -x "$XRXE_BUILD/tests/xrxe-soak" ] || fail "$XRXE_BUILD/tests/xrxe-soak is not built"
	"$TESTBED" run --module xrxe --timeout $((300 + 2 * secs)) "${GUEST_ENV[@]}" \
		--env SOAK_OUT="$OUT" --env SOAK_SECS="$secs" --env TOOLS="$XRXE_BUILD/tests" \
		--env SOAK_OPS="${XRXE_SOAK_OPS:-siwra}" --env DEVICES_LIB="$DEVICES_LIB" \
		-- "${GUEST_HALF[@]}" | tee "$OUT/log"
	grep -q '^soak: PASS' "$OUT/log" || fail "the soak did not pass"
	echo "ok: soak of $secs s"
	exit 0
fi

# ---- In the guest ----
set -euo pipefail
out=$SOAK_OUT
secs=$SOAK_SECS
params=/sys/module/rdma_xrxe/parameters
# shellcheck source=../../tools/testbed-guest/guest-devices.sh
. "$DEVICES_LIB"

die() {
	echo "soak: FAIL: $*"
	tail -n 5 "$out"/soak-*.log 2>/dev/null || true
	rdma statistic show 2>&1 || true
	exit 1
}

# The hw counters of both devices, summed, as "name value" lines.
counters() {
	rdma statistic show | tr ' ' '\n' | awk 'p {s[p] += $1; p = ""; next}
		/^[a-z_]+$/ {p = $1} END {for (k in s) print k, s[k]}' | sort
}

counter_delta() {
	awk -v k="$1" 'NR == FNR {if ($1 == k) b = $2; next} $1 == k {print $2 - b}' \
		"$out/counters-before" "$out/counters-after"
}

# Starting a program costs 0.5-1 s in the guest (exec over the 9p root
# under TCG): the monitoring loop uses builtins, and bsleep waits on a FIFO
# nobody writes.
mkfifo "/run/soak-sleep.$$"
exec 9<>"/run/soak-sleep.$$"
rm "/run/soak-sleep.$$"

bsleep() {
	read -r -t "$1" -u 9 _ || true
}

meminfo() {
	local k v _
	while read -r k v _; do
		[ "$k" != "$1:" ] || { echo "$v"; return; }
	done </proc/meminfo
}

# As teardown.sh: SUnreclaim and VmallocUsed, then every cache's active
# objects (exact under slub_debug), after RCU and dropped dentries/inodes.
snapshot() {
	sleep 2
	echo 2 >/proc/sys/vm/drop_caches
	sleep 1
	echo "SUnreclaim $(meminfo SUnreclaim)" >"$1"
	echo "VmallocUsed $(meminfo VmallocUsed)" >>"$1"
	awk 'NR > 2 {print "slab", $1, $2, $4}' /proc/slabinfo >>"$1"
}

value_of() {
	awk -v k="$2" '$1 == k {print $2}' "$1"
}

# The tolerance and its reasons are teardown.sh's check_memory: 1 MiB of
# unreclaimable slab, 2 MiB of vmalloc, 32 objects in any cache but the
# dentry, inode and vmap_area ones.
check_memory() {
	local before=$1 after=$2 d_slab d_vm grown
	d_slab=$(($(value_of "$after" SUnreclaim) - $(value_of "$before" SUnreclaim)))
	d_vm=$(($(value_of "$after" VmallocUsed) - $(value_of "$before" VmallocUsed)))
	echo "soak: memory before and after: SUnreclaim $(value_of "$before" SUnreclaim) -> $(value_of "$after" SUnreclaim) kB ($d_slab), VmallocUsed $(value_of "$before" VmallocUsed) -> $(value_of "$after" VmallocUsed) kB ($d_vm)"
	awk '$1 == "slab" {print $2, $3, $4}' "$before" >"$out/slab-before"
	awk '$1 == "slab" {print $2, $3, $4}' "$after" >"$out/slab-after"
	awk 'NR == FNR {b[$1] = $2; next} {d = $2 - b[$1]; print $1, b[$1] + 0, $2, d, d * $3}' \
		"$out/slab-before" "$out/slab-after" | sort -k5,5nr >"$out/slab-delta"
	echo "soak: slab caches that grew most (name, active objects before, after, delta, bytes):"
	awk '$4 > 0' "$out/slab-delta" | head -n 5 | sed 's/^/  /'
	grown=$(awk '$4 > 32 && $1 !~ /(dentry|inode)/ && $1 != "vmap_area"' "$out/slab-delta")
	[ -z "$grown" ] || die "slab caches grew by more than 32 objects: $grown"
	[ "$d_slab" -le 1024 ] || die "SUnreclaim grew by $d_slab kB (tolerance 1024 kB)"
	[ "$d_vm" -le 2048 ] || die "VmallocUsed grew by $d_vm kB (tolerance 2048 kB)"
}

verify_clean() {
	devices_idle xrxe ||
		die "resources left after the soak: $(resource_counts) $(user_qps)"
}

# A short run first: the first traffic of a boot sets up pools and slabs
# that stay (kworkers, per-CPU caches), which is not a leak.
"$TOOLS/xrxe-soak" -q 4 -t 2 -s 5 -i 0 -o "$SOAK_OPS" >"$out/warm-up.log" 2>&1 || {
	cat "$out/warm-up.log"
	die "the warm-up soak failed"
}
snapshot "$out/mem-before"
counters >"$out/counters-before"

# Three processes: per-QP modes mixed; low-latency always; classic.
pids=()
start=$SECONDS
XRXE_LL_MODE=idle "$TOOLS/xrxe-soak" -q 16 -t 2 -s "$secs" -i 20 -x -o "$SOAK_OPS" \
	-S 1 >"$out/soak-mixed.log" 2>&1 &
pids+=($!)
XRXE_LL_MODE=always "$TOOLS/xrxe-soak" -q 8 -t 1 -s "$secs" -i 20 -o "$SOAK_OPS" \
	-S 2 >"$out/soak-always.log" 2>&1 &
pids+=($!)
XRXE_DOORBELL_LESS=0 "$TOOLS/xrxe-soak" -q 8 -t 1 -s "$secs" -i 20 -o "$SOAK_OPS" \
	-S 3 >"$out/soak-classic.log" 2>&1 &
pids+=($!)

# While they run: change the engines' busy-poll window, and sample memory
# (in-flight packets and queues come and go; a steady climb would show).
idles=(0 50 1000)
n=0
next=0
while :; do
	alive=0
	for p in "${pids[@]}"; do
		kill -0 "$p" 2>/dev/null && alive=1
	done
	[ $alive = 1 ] || break
	if [ $((SECONDS - start)) -ge $next ]; then
		echo "${idles[n % 3]}" >"$params/engine_idle_us"
		echo "$((SECONDS - start)) s: engine_idle_us ${idles[n % 3]}, SUnreclaim $(meminfo SUnreclaim) kB, VmallocUsed $(meminfo VmallocUsed) kB" |
			tee -a "$out/memory-trend"
		n=$((n + 1))
		next=$((next + 10))
	fi
	bsleep 1
done
echo 0 >"$params/engine_idle_us"
# Flat while it ran: from the sample at 10 s (setup done) to the last, a
# climb of 8 MiB would be queues or packets piling up (the samples moved by
# about 1 MiB in runs that passed).
awk '$1 >= 10 {v = $(NF - 4); if (first == "") first = v; last = v}
	END {if (first != "" && last - first > 8192) {print "climb", first, last; exit 1}}' \
	"$out/memory-trend" || die "SUnreclaim climbed by more than 8 MiB during the traffic"

rc=0
for p in "${pids[@]}"; do
	wait "$p" || rc=1
done
for f in "$out"/soak-*.log; do
	echo "== $(basename "$f" .log)"
	cat "$f"
done
[ $rc = 0 ] || die "a soak process failed"
counters >"$out/counters-after"
verify_clean
snapshot "$out/mem-after"
check_memory "$out/mem-before" "$out/mem-after"

# Totals over the three processes.
awk '/PASS/ {
	for (i = 1; i <= NF; i++) {
		if ($(i + 1) == "send-queue") sq += $i
		if ($(i + 1) == "receive") rq += $i
		if ($(i + 1) == "bytes") b += $i
	}
	}
	END {printf "soak: %.0f send-queue and %.0f receive completions checked, %.0f bytes checked\n", sq, rq, b}' \
	"$out"/soak-*.log
for k in xrxe_doorbells xrxe_doorbells_avoided xrxe_ll_posts xrxe_ll_accepted \
	xrxe_busy_poll_hits xrxe_wqes_rejected xrxe_ll_rejected duplicate_request \
	completer_retry_err retry_exceeded_err rcvd_rnr_err; do
	printf '%s %s\n' "$k" "$(counter_delta $k)"
done | tr '\n' ' ' | sed 's/^/soak: device counters (both devices): /; s/ $/\n/'
[ "$(counter_delta xrxe_wqes_rejected)" = 0 ] || die "slots rejected"
[ "$(counter_delta xrxe_ll_rejected)" = 0 ] || die "low-latency commands rejected"
if [ "${XRXE_DOORBELL_LESS:-1}" != 0 ]; then
	[ "$(counter_delta xrxe_doorbells_avoided)" -gt 0 ] || die "no doorbell was avoided"
	[ "$(counter_delta xrxe_ll_accepted)" -gt 0 ] || die "no low-latency command was taken"
fi
echo "soak: PASS: $secs s, 32 pairs (64 QPs), $((SECONDS - start)) s with setup and drain"
