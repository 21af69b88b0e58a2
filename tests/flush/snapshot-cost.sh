#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# usage (on the host):
#   tools/xrxe-testbed run --module xrxe --no-slub-debug --memory 10240 \
#       --timeout 2400 -- bash tests/flush/snapshot-cost.sh [CONFIG...]
#
# In the testbed guest: how long one domain flush's snapshot keeps
# interrupts off (xrxe_fdom_must_wait() takes the domain's lock with
# spin_lock_irqsave() and, in fdom_snapshot(), counts every other member's
# posted slots with xrxe_sq_pending(), a bisection of its ring), with the
# members' rings empty and full.
# A measurement, not a test: it fails only when the measurement itself
# cannot be made.
#
# CONFIG is MEMBERS:SLOTS:FILL[:HOLD] (xrxe-domain-flush-test snapshot-cost
# --members --slots --fill --hold; SLOTS may be "max"; MEMBERS may be
# "fit": as many as 70% of the guest's available memory holds, at 512
# bytes of ring and kernel queue a slot, at most 16). The default list is
# below (DEFAULT_CONFIGS). Environment:
#   XRXE_SC_SAMPLES  flushes per config and phase (default 5)
#   XRXE_SC_DEV      device (default xrxe0)
#   XRXE_SC_BIN      the program (default build/tests/xrxe-domain-flush-test)
#   XRXE_SC_OUT      where the raw traces and outputs go (default
#                    build/snapshot-cost/RUN, on the host through the share)
#
# For each config the program posts SAMPLES flushes with ftrace's
# function_graph tracer recording (filter: the function holding the lock,
# xrxe_sq_pending, fdom_drained; graph function: fdom_snapshot if it is
# traceable, else xrxe_fdom_must_wait, into which it is inlined), then
# SAMPLES untraced, then SAMPLES under irqsoff where the kernel has that
# tracer (Debian's 6.12 has not). The table gives, per config: the
# function's duration (median and max), the sum of the scans inside it
# (the part that grows with the rings), the userspace ibv_post_send() time
# untraced and traced, and irqsoff's tracing_max_latency.
set -euo pipefail

DEFAULT_CONFIGS="16:256:empty 16:256:full 16:4096:empty 16:4096:full
16:32768:empty 16:32768:full 16:131072:empty 16:131072:full 16:262144:full
16:32768:full:sqd fit:max:empty fit:max:full"

top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${XRXE_SC_BIN:-$top/build/tests/xrxe-domain-flush-test}
dev=${XRXE_SC_DEV:-xrxe0}
samples=${XRXE_SC_SAMPLES:-5}
out=${XRXE_SC_OUT:-$top/build/snapshot-cost/$(date +%Y%m%d-%H%M%S)}
T=/sys/kernel/tracing
py=/usr/bin/python3
[ -x "$py" ] || py=python3

[ -x "$bin" ] || { echo "snapshot-cost: $bin is not built (cmake --build build --target xrxe-domain-flush-test)" >&2; exit 1; }
mkdir -p "$out"
[ -e $T/available_tracers ] || mount -t tracefs nodev $T
[ -e $T/available_tracers ] || { echo "snapshot-cost: no tracefs at $T" >&2; exit 1; }

# The module the testbed loaded (its run's config), else the one built for
# the default kernel.
ko=$( (. "${XRXE_TESTBED_RUN:-/nonexistent}/config" 2>/dev/null && echo "${XRXE_KO:-}") || true)
if [ -z "$ko" ]; then
	. "$top/tools/lib/common.sh"
	ko=$(module_dir "$(pinned_kernel_version)")/rdma_xrxe.ko
fi
{
	echo "kernel $(uname -r), $(nproc) CPUs, MemTotal $(awk '/MemTotal/ {print $2}' /proc/meminfo) kB"
	echo "$ko: sha256 $(sha256sum "$ko" | cut -c1-16), built $(date -r "$ko" '+%F %T')"
	echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
	echo "available_tracers: $(cat $T/available_tracers)"
	echo "slub_debug: $(grep -o 'slub_debug[^ ]*' /proc/cmdline || echo off)"
	cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)
	echo "clocksource: $cs ($( [ "$cs" = kvm-clock ] && echo KVM || echo 'not kvm-clock: TCG, emulated'))"
} | tee "$out/env"

grep -qw function_graph $T/available_tracers ||
	{ echo "snapshot-cost: the kernel has no function_graph tracer" >&2; exit 1; }

# The function whose duration is reported: fdom_snapshot itself where the
# module has it out of line, else the non-static function it is inlined in.
traceable() { grep -q "^$1 \[rdma_xrxe\]" $T/available_filter_functions; }
if traceable fdom_snapshot; then
	topfn=fdom_snapshot
elif traceable xrxe_fdom_must_wait; then
	topfn=xrxe_fdom_must_wait
else
	echo "snapshot-cost: neither fdom_snapshot nor xrxe_fdom_must_wait is traceable" >&2
	exit 1
fi
filter=$topfn
for f in xrxe_fdom_must_wait xrxe_sq_pending fdom_drained; do
	[ $f = $topfn ] || ! traceable $f || filter="$filter $f"
done
echo "traced: $topfn (graph function); filter: $filter" | tee -a "$out/env"

trace_setup() {
	echo 0 >$T/tracing_on
	echo nop >$T/current_tracer
	echo >$T/trace
	echo 4096 >$T/buffer_size_kb
	echo "$filter" >$T/set_ftrace_filter
	echo "$topfn" >$T/set_graph_function
	echo function_graph >$T/current_tracer
	echo 1 >$T/options/funcgraph-tail
	echo 0 >$T/options/funcgraph-irqs
	echo 0 >$T/options/funcgraph-proc
	echo >$T/trace
}

trace_reset() {
	echo 0 >$T/tracing_on
	echo nop >$T/current_tracer
	echo >$T/set_ftrace_filter
	echo >$T/set_graph_function
	echo 1 >$T/tracing_on
}
trap trace_reset EXIT

# Parse one function_graph trace: per traced sample (trace_marker lines),
# the top function's duration, the number, sum and max of the
# xrxe_sq_pending calls inside it. Prints one summary line of key=value.
parse_trace() {
	"$py" - "$1" "$topfn" <<'EOF'
import re, sys, statistics
path, top = sys.argv[1], sys.argv[2]
stacks, calls, sample = {}, [], None
num = re.compile(r'([0-9]+(?:\.[0-9]+)?) us')
for line in open(path, errors='replace'):
    if line.startswith('#') or '|' not in line:
        continue
    left, right = line.split('|', 1)
    m = re.match(r'\s*(\d+)\)', left)
    if not m:
        continue
    cpu = m.group(1)
    d = num.search(left)
    dur = float(d.group(1)) if d else None
    text = right.strip()
    st = stacks.setdefault(cpu, [])
    if text.startswith('/*'):
        mm = re.search(r'snapshot-cost traced sample (\d+)', text)
        if mm:
            sample = int(mm.group(1))
        continue
    if text.endswith('() {'):
        st.append({'fn': text.split()[0].split('(')[0], 'pend': [], 'sample': sample})
    elif text.endswith('();'):
        fn = text.split()[0].split('(')[0]
        if st and fn == 'xrxe_sq_pending' and dur is not None:
            st[-1]['pend'].append(dur)
        elif not st and fn == top and dur is not None:
            calls.append({'fn': fn, 'dur': dur, 'pend': [], 'sample': sample})
    elif text.startswith('}'):
        if not st:
            continue
        fr = st.pop()
        if fr['fn'] == 'xrxe_sq_pending' and st and dur is not None:
            st[-1]['pend'].append(dur)
        if fr['fn'] == top and not st and dur is not None:
            fr['dur'] = dur
            calls.append(fr)
        elif st:
            st[-1]['pend'].extend(fr['pend'])
def fmt(v):
    return 'na' if v is None else ('%.1f' % v)
def med(v):
    return statistics.median(v) if v else None
durs = [c['dur'] for c in calls]
sums = [sum(c['pend']) for c in calls]
one = [max(c['pend']) for c in calls if c['pend']]
npend = sorted(set(len(c['pend']) for c in calls))
for c in calls:
    print('  trace: sample %s: %s %.1f us, %d xrxe_sq_pending calls, %.1f us in them (max %.1f)'
          % (c['sample'], c['fn'], c['dur'], len(c['pend']), sum(c['pend']),
             max(c['pend']) if c['pend'] else 0), file=sys.stderr)
print('calls=%d fn_us_med=%s fn_us_max=%s scan_us_med=%s scan_us_max=%s scans=%s scan1_us_max=%s'
      % (len(calls), fmt(med(durs)), fmt(max(durs) if durs else None), fmt(med(sums)),
         fmt(max(sums) if sums else None), ','.join(map(str, npend)) or 'na',
         fmt(max(one) if one else None)))
EOF
}

# MEMBERS "fit": what 70% of the available memory holds at SLOTS.
fit_members() {
	local slots=$1 avail per n
	avail=$(sed -n 's/^MemAvailable: *\([0-9]*\) kB/\1/p' /proc/meminfo)
	per=$((slots / 2 + 1024))	# kB
	n=$((avail * 7 / 10 / per + 1))
	[ $n -le 16 ] || n=16
	echo $n
}

max_slots() {
	"$bin" "$dev" snapshot-cost --members 2 --slots 4 --samples 1 2>/dev/null |
		sed -n 's/.*, \([0-9]*\) slots$/\1/p' | head -1
}

configs=${*:-$DEFAULT_CONFIGS}
rows=()
for cfg in $configs; do
	IFS=: read -r members slots fill hold <<<"$cfg"
	hold=${hold:-pace}
	if [ "$members" = fit ]; then
		s=$slots
		[ "$s" != max ] || s=$(max_slots)
		members=$(fit_members "$s")
		if [ "$members" -lt 2 ]; then
			echo "== $cfg: not even one member of $s slots fits in the guest's memory; skipped"
			continue
		fi
	fi
	name="m$members-s$slots-$fill-$hold"
	echo "== $cfg: $members QPs ($((members - 1)) members), $slots slots, $fill, hold $hold"
	trace_setup
	rc=0
	"$bin" "$dev" snapshot-cost --members "$members" --slots "$slots" --fill "$fill" \
		--hold "$hold" --samples "$samples" --tracefs $T --trace-save "$out/$name.trace" \
		>"$out/$name.out" 2>&1 || rc=$?
	cat "$out/$name.out"
	echo 0 >$T/tracing_on
	echo nop >$T/current_tracer
	if [ $rc -ne 0 ]; then
		echo "== $cfg: the program failed (exit $rc)"
		rows+=("$members $slots $fill $hold FAILED")
		continue
	fi
	tr=$(parse_trace "$out/$name.trace" 2>"$out/$name.calls")
	cat "$out/$name.calls"
	res=$(grep '^RESULT ' "$out/$name.out" | tail -1)
	rows+=("$res $tr")
done

echo
echo "snapshot-cost: $topfn under spin_lock_irqsave; times in us, median/max of $samples samples; accelerator: see clocksource above"
printf '%-4s %-8s %-6s %-5s %-9s %-17s %-17s %-10s %-17s %-17s %-8s %s\n' \
	qps slots fill hold pending "fn (ftrace)" "scans in it" "scan1 max" \
	"post untraced" "post traced" irqsoff held
for r in "${rows[@]}"; do
	case $r in *FAILED) echo "$r"; continue ;; esac
	declare -A v=()
	for kv in $r; do
		case $kv in *=*) v[${kv%%=*}]=${kv#*=} ;; esac
	done
	printf '%-4s %-8s %-6s %-5s %-9s %-17s %-17s %-10s %-17s %-17s %-8s %s\n' \
		"${v[members]}" "${v[slots]}" "${v[fill]}" "${v[hold]}" \
		"${v[pending_max]}" \
		"${v[fn_us_med]}/${v[fn_us_max]}" "${v[scan_us_med]}/${v[scan_us_max]}" \
		"${v[scan1_us_max]}" "${v[post_us_med]}/${v[post_us_max]}" \
		"${v[traced_post_us_med]}/${v[traced_post_us_max]}" "${v[irqsoff_us_max]}" \
		"${v[held]}/${v[samples]} calls=${v[calls]} scans=${v[scans]}"
	unset v
done | tee "$out/table"
echo "raw outputs and traces: $out"
