#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# usage: doorbell-less.sh [hunter]
# Doorbell-less send queues on xrxe0: per-QP controls, a stale generation,
# a status page that cannot be made writable, hostile slots (rejected and
# counted; other QPs unaffected; dmesg clean), creates that fail half way, unknown driver
# data, slots after a rejected one, an overfull queue, posts before RTS,
# the busy-poll privilege, one engine shared fairly by two contexts, the
# userspace fuzzer (3 processes, XRXE_FUZZ_SECS, default 10), then the
# lost-wake-up hunter with the engines' busy-poll window off and on, and the
# ordering hunter: the same with every OCU moved to another engine each time
# it drains (the ocu_remap_test knob), in static and dynamic mode, with the
# default OCU table (its QPs in three ordering domains) and with one OCU per
# slice (every QP of a mode sharing it), after each of which the engines'
# load, busy OCUs and recent work must be back to nothing;
# xrxedv_qp_set_ocu() placements;
# where each stage ran: the xrxe_stage_* counters of freshly created
# devices at 0, then after a ping-pong each stage counted on both devices,
# same-CPU runs within the runs, and debugfs rdma_xrxe/stages adding up to
# each device's counters.
# With "hunter", only the hunter, for XRXE_HUNT_SECS (default 8) per window.
# With "fuzz", only the fuzzer, for XRXE_FUZZ_ACTIONS hostile actions in all
# (default 1000000) and XRXE_FUZZ_SEED.

if [ "${1:-}" != --guest ]; then
	. "$(dirname "$0")/lib.sh"
	only=${1:-}
	case $only in
	'' | hunter | fuzz) ;;
	*) fail "unknown mode '$only' (hunter or fuzz, or none for every test)" ;;
	esac
	secs=${XRXE_HUNT_SECS:-8}
	fuzz_secs=${XRXE_FUZZ_SECS:-10}
	seed=${XRXE_FUZZ_SEED:-$(date +%s)}
	actions=${XRXE_FUZZ_ACTIONS:-1000000}
	tool=$XRXE_BUILD/tests/xrxe-dbl-test
	[ -x "$tool" ] || fail "$tool is not built"

	timeout=$((300 + 8 * secs + fuzz_secs))
	# TCG runs about 3000 actions a second
	[ "$only" != fuzz ] || timeout=$((300 + actions / 1000))
	"$TESTBED" run --module xrxe --timeout $timeout \
		--env DEVICES_LIB="$DEVICES_LIB" --env PAIR_LIB="$PAIR_LIB" \
		--env TOOLS="$XRXE_BUILD/tests" --env DBL_OUT="$OUT" \
		--env DBL_ONLY="$only" --env DBL_HUNT_SECS="$secs" \
		--env DBL_FUZZ_SECS="$fuzz_secs" --env DBL_FUZZ_SEED="$seed" \
		--env DBL_FUZZ_ACTIONS="$actions" --env DBL_TIMEOUT="$timeout" \
		-- "${GUEST_HALF[@]}" | tee "$OUT/log"
	if [ -z "$only" ]; then
		grep -q '^hw counter xrxe_wqes_rejected: 6$' "$OUT/log" ||
			fail "the device did not count the 6 rejected slots"
		[ "$(grep -c '^stages: xrxe[01] after a ping-pong: .* ok$' "$OUT/log")" = 2 ] ||
			fail "the stage counters did not check out on both devices"
	fi
	if [ "$only" != hunter ]; then
		grep -q '^fuzz: .* every bystander kept passing traffic$' "$OUT/log" ||
			fail "the userspace fuzzer did not finish (seed $seed)"
	fi
	[ "$only" = fuzz ] || [ "$(grep -c '^hunter: ' "$OUT/log")" = 7 ] ||
		fail "a hunter run did not finish"
	[ "$only" = fuzz ] || [ "$(grep -c '^ocu hunter: .* remaps forced [1-9]' "$OUT/log")" = 4 ] ||
		fail "an ordering hunter run did not finish or moved no OCU"
	[ "$only" = fuzz ] || [ "$(grep -c '^hunter: 16 QPs.*OCU remaps [1-9]' "$OUT/log")" = 4 ] ||
		fail "the QPs of an ordering hunter run saw no remap of their OCUs"
	echo "ok: doorbell-less send queues"
	exit 0
fi

# ---- In the guest ----
# The first failing program ends the run with its status.
set -e
tool=$TOOLS/xrxe-dbl-test
seed=$DBL_FUZZ_SEED
param=/sys/module/rdma_xrxe/parameters/engine_idle_us
counter() {
	rdma statistic show link xrxe0/1 | tr ' ' '\n' | grep -A1 "^$1\$" | tail -1
}
# shellcheck source=../../tools/testbed-guest/guest-devices.sh
. "$DEVICES_LIB"
dbg=$XRXE_DEBUGFS
# stages_hw DEV: its stage counters, as "post req comp resp" runs then
# same-CPU runs, the columns of debugfs rdma_xrxe/stages.
stages_hw() {
	local kind st hw=/sys/class/infiniband/$1/ports/1/hw_counters
	for kind in runs same_cpu; do
		for st in post req comp resp; do
			printf '%s ' "$(cat "$hw/xrxe_stage_${st}_$kind")"
		done
	done
	echo
}
# stages_debugfs DEV: the same, summed over DEV's lines in debugfs.
stages_debugfs() {
	awk -v d="$1" '$1 == d { for (i = 3; i <= 10; i++) s[i] += $i }
		END { for (i = 3; i <= 10; i++) printf "%d ", s[i]; print "" }' $dbg/stages
}
# check_stages: fresh devices count nothing; after a ping-pong of 200
# messages between them, every stage ran on both (each device posts,
# sends, completes and responds), no stage counted more same-CPU runs
# than runs, and the per-CPU lines add up to the hw counters, with a line
# per online CPU.
check_stages() {
	local dev hw n
	mount_debugfs
	for dev in xrxe0 xrxe1; do
		hw=$(stages_hw $dev)
		if [ "$hw" != "0 0 0 0 0 0 0 0 " ] || [ "$(stages_debugfs $dev)" != "$hw" ]; then
			echo "stages: $dev not at 0 when created: $hw"
			cat $dbg/stages
			return 1
		fi
	done
	# shellcheck source=../../tools/testbed-guest/pair.sh
	. "$PAIR_LIB"
	run_pair "$DBL_OUT/stages" "ibv_rc_pingpong -d xrxe0 -g 0 -n 200 -s 64" \
		"ibv_rc_pingpong -d xrxe1 -g 0 -n 200 -s 64 localhost" || {
		tail -n 20 "$DBL_OUT/stages-server" "$DBL_OUT/stages-client"
		return 1
	}
	for dev in xrxe0 xrxe1; do
		hw=$(stages_hw $dev)
		n=$(awk -v d=$dev '$1 == d' $dbg/stages | wc -l)
		# shellcheck disable=SC2086 # the counters, one word each
		set -- $hw
		if [ "$1" -gt 0 ] && [ "$2" -gt 0 ] && [ "$3" -gt 0 ] && [ "$4" -gt 0 ] &&
			[ "$5" -le "$1" ] && [ "$6" -le "$2" ] && [ "$7" -le "$3" ] &&
			[ "$8" -le "$4" ] && [ "$(stages_debugfs $dev)" = "$hw" ] &&
			[ "$n" = "$(nproc)" ]; then
			echo "stages: $dev after a ping-pong: runs (post req comp resp) $1 $2 $3 $4," \
				"same CPU $5 $6 $7 $8: ok"
		else
			echo "stages: $dev after a ping-pong: hw counters $hw," \
				"debugfs $(stages_debugfs $dev), $n lines for $(nproc) CPUs"
			cat $dbg/stages
			return 1
		fi
	done
	cat $dbg/stages
}
if [ "$DBL_ONLY" = fuzz ]; then
	"$tool" fuzz -p 3 -n $((DBL_FUZZ_ACTIONS / 3)) -s "$DBL_TIMEOUT" -S "$seed"
	exit
fi
if [ -z "$DBL_ONLY" ]; then
	"$tool" controls
	"$tool" ocu-placement
	for mode in static dynamic comp_vector; do
		XRXE_OCU_MODE=$mode "$tool" ocu-env
	done
	"$tool" stale
	"$tool" status-readonly
	"$tool" hostile
	echo "hw counter xrxe_wqes_rejected: $(counter xrxe_wqes_rejected)"
	# Paths libibverbs never takes: each once failed or hung the kernel.
	for t in create-fault trailing reject-flush full-park before-rts ll-atomic-write \
		idle-cap classic-reg-mr coalesce-controls; do
		"$tool" "$t"
	done
	# One engine shared by a context with one QP and one with eight.
	remove_driver xrxe && load_driver xrxe engines=1 && add_devices xrxe ||
		{ echo "$DEVICES_ERROR"; exit 1; }
	"$tool" fairness
	remove_driver xrxe && load_driver xrxe && add_devices xrxe ||
		{ echo "$DEVICES_ERROR"; exit 1; }
	check_stages
	"$tool" fuzz -p 3 -s "$DBL_FUZZ_SECS" -S "$seed"
fi
for idle in 0 50 1000; do
	echo $idle >$param
	"$tool" hunter -q 8 -t 4 -s "$DBL_HUNT_SECS" -g 3000
done
echo 0 >$param
mount_debugfs
for ocus in 256 16; do
	for mode in 0 1; do
		remove_driver xrxe &&
			load_driver xrxe ocus=$ocus ocu_mode=$mode \
				ocu_load_half_life_ms=60000 &&
			echo 1 >$dbg/ocu_remap_test &&
			add_devices xrxe || { echo "$DEVICES_ERROR"; exit 1; }
		# With 256 OCUs, QPs of three ordering domains on every thread.
		# Bursts past engine_quantum (16) end on the engine threads.
		domains=0
		[ "$ocus" = 16 ] || domains=3
		"$tool" hunter -q 16 -t 4 -s $(((DBL_HUNT_SECS + 1) / 2)) -g 500 -d $domains -b 40
		# Its QPs are gone: every WQE charged was given back.
		if awk 'NR > 1 && ($2 != 0 || $3 != 0)' $dbg/engines | grep -q . ||
			[ "$(wc -l <$dbg/ocus)" != 1 ]; then
			echo "load or busy OCUs left after the hunter:"
			cat $dbg/engines $dbg/ocus
			exit 1
		fi
		# And the recent work of their OCUs left the engines with them:
		# what stays is the rounding of the sums' decay, under 5% of the
		# cost of the WQEs each engine's turns took (a half-life of 60 s
		# decayed almost nothing meanwhile).
		awk 'NR > 1 && $8 * 100 > ($4 * 64 + $5 / 64) * 5 { bad = 1 }
			END { exit bad }' $dbg/engines || {
			echo "recent work left on an engine whose OCUs have no QP:"
			cat $dbg/engines
			exit 1
		}
		# Lists longer than a quantum went on on the engine threads.
		awk 'NR > 1 { t += $6 } END { exit !(t > 0) }' $dbg/engines || {
			echo "the engine threads took no turn in the ordering hunter"
			cat $dbg/engines
			exit 1
		}
		echo "ocu hunter: mode $mode, ocus $ocus: maps $(counter xrxe_ocu_maps)," \
			"remaps $(counter xrxe_ocu_remaps), remaps forced $(counter xrxe_ocu_remaps_forced)"
		cat $dbg/engines
	done
done
