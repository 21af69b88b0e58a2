#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# usage (on the host, one guest boot for all of it):
#   tools/xrxe-testbed run --module xrxe --timeout 900 -- bash tests/dbl/shared-qp-bench.sh
#
# Posting throughput of several threads on ONE QP: 'xrxe-dbl-test shared-qp
# -m' (bursts of one, no gaps) for each low-latency mode and thread count,
# a few runs each, in rounds that run every configuration once (a drift in
# the host's load spreads over all of them rather than biasing one); then
# one stress run (random bursts and gaps). Prints every run's line and a
# table of the median WRs/s and the spread (min, max, (max - min) /
# median). Exit status 1 when a run failed.
#
# Environment: SQ_MODES (default "idle never"), SQ_THREADS ("1 2 4"),
# SQ_REPS (3), SQ_SECS (5), SQ_OP (write), SQ_STRESS_THREADS (4),
# SQ_STRESS_SECS (20; 0 for none); SQ_BUILDS: the build trees to compare,
# each run by its tests/xrxe-dbl-test with its providers/xrxe as the
# provider, interleaved within each round (default: XRXE_BUILD, else
# build/ of this checkout). Pass them with xrxe-testbed's --env.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
read -r -a builds <<<"${SQ_BUILDS:-${XRXE_BUILD:-$top/build}}"
modes=${SQ_MODES:-idle never}
threads_list=${SQ_THREADS:-1 2 4}
reps=${SQ_REPS:-3}
secs=${SQ_SECS:-5}
op=${SQ_OP:-write}
stress_threads=${SQ_STRESS_THREADS:-4}
stress_secs=${SQ_STRESS_SECS:-20}
params=/sys/module/rdma_xrxe/parameters
failed=0
table=()
declare -A rates

# shared_qp BUILD ARG...: the build's test with the build's provider.
shared_qp() {
	local b=$1
	shift
	RDMAV_DRIVERS=$b/providers/xrxe/libxrxe "$b/tests/xrxe-dbl-test" shared-qp "$@"
}

# The WRs/s of a shared-qp line on stdin.
rate() { sed -n 's/.*WRs\/s \([0-9]*\);.*/\1/p'; }

echo "shared-qp-bench: $(uname -r), $(nproc) CPUs," \
	"engine_idle_us $(cat $params/engine_idle_us 2>/dev/null || echo '?')"
for b in "${builds[@]}"; do
	[ -x "$b/tests/xrxe-dbl-test" ] ||
		{ echo "shared-qp-bench: $b/tests/xrxe-dbl-test is not built" >&2; exit 1; }
	echo "shared-qp-bench: build $b: provider md5" \
		"$(md5sum <"$(readlink -f "$b/providers/xrxe/libxrxe-rdmav34.so")" | cut -d' ' -f1)"
done

for ((r = 1; r <= reps; r++)); do
	for b in "${builds[@]}"; do
		for mode in $modes; do
			for t in $threads_list; do
				if line=$(shared_qp "$b" -m -t "$t" -s "$secs" -l "$mode" -o "$op"); then
					echo "$line (${b##*/})"
					rates[$b/$mode/$t]+="$(rate <<<"$line") "
				else
					echo "shared-qp-bench: FAIL: $b: -m -t $t -l $mode round $r" >&2
					failed=1
				fi
			done
		done
	done
done
for b in "${builds[@]}"; do
	for mode in $modes; do
		for t in $threads_list; do
			[ -n "${rates[$b/$mode/$t]:-}" ] || continue
			# shellcheck disable=SC2086 # one rate a word
			table+=("$(printf '%s\n' ${rates[$b/$mode/$t]} | sort -n |
				awk -v b="${b##*/}" -v mode="$mode" -v t="$t" '
				{ v[NR] = $1 }
				END {
					med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
					printf "%-12s %-6s %7d %12d %10d %10d %8.1f%%   ", b, mode, t,
					       med, v[1], v[NR], med ? 100 * (v[NR] - v[1]) / med : 0
					for (i = 1; i <= NR; i++) printf "%s%d", (i > 1 ? " " : ""), v[i]
					printf "\n"
				}')")
		done
	done
done

echo
echo "shared-qp-bench: op $op, measure mode, $secs s a run, $reps rounds"
printf '%-12s %-6s %7s %12s %10s %10s %9s   %s\n' build ll threads "median WRs/s" min max \
	spread "runs (sorted)"
printf '%s\n' "${table[@]}"

if [ "$stress_secs" -gt 0 ]; then
	for b in "${builds[@]}"; do
		echo
		if line=$(shared_qp "$b" -t "$stress_threads" -s "$stress_secs" -o "$op"); then
			echo "$line (${b##*/})"
			echo "shared-qp-bench: stress ok (${b##*/})"
		else
			echo "shared-qp-bench: FAIL: $b: stress run" >&2
			failed=1
		fi
	done
fi
exit $failed
