#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Report of bench/xrxe-bench --workload pace: OUT/pace.json (and
OUT/pace-series.txt) into OUT/pace.md, OUT/pace-accuracy.png and
OUT/pace-series.png; with --docs DIR, the tables into DIR/rate-limit.md
(between its pace:begin and pace:end marks) and the plots into DIR/bench/."""
import argparse
import json
import os
import statistics

from bench_docs import pyplot, update_docs

# The isolation rows: what is measured, the configuration without a third
# QP, beside the paced QP and beside the same traffic paced by the program
# (-c of pace-bench), the field, its digits, and the goal.
ISOLATION_ROWS = (
    ('stream alone: messages/s', 's', 'sp', 'sq', 'stream_msgs_per_s', 1, '>= 0.95'),
    ('ping-pong alone: half round trip (us)', 'l', 'lp', 'lq', 'pp_typical_us', 2,
     '<= 1.10'),
    ('stream beside the ping-pong: messages/s', 'sl', 'slp', 'slq', 'stream_msgs_per_s', 1,
     '>= 0.95'),
    ('ping-pong beside the stream: half round trip (us)', 'sl', 'slp', 'slq',
     'pp_typical_us', 2, '<= 1.10'),
)

# The accuracy goal covers limits up to this share of the unlimited rate.
GOAL_SHARE = 0.8


def unlimited_next_to(r, ref):
    """The unlimited rates a limited run is judged against: the two runs
    either side of it, or the size's first unlimited run."""
    if 'unlimited_before_kbps' in r:
        return r['unlimited_before_kbps'], r['unlimited_after_kbps']
    return ref, ref


def late_share(r):
    """The late wake-ups' bytes as a share of what the limit allows over
    the window, in percent (None for runs without the counters)."""
    if 'late_bytes' not in r:
        return None
    return r['late_bytes'] * 8 / r['window_s'] / 1000 * 100 / r['limit_kbps']


def late_cells(r):
    share = late_share(r)
    if share is None:
        return '- | - | -'
    held = r.get('wait_us', 0) / 1e6 / r['window_s']
    return f"{held:.0%} | {r['late_wakeups']} of {r['wakeups']} | {share:.2f}%"


def accuracy_table(runs):
    lines = ['### Accuracy', '',
             'Bursts: the netdev is sampled every 10 ms; "above the rate" is the most '
             'any slice sent beyond the rate\'s share of its own length, which the limit '
             'keeps within the burst. "No limit": what one unlimited QP sent, in the run '
             'just before and just after the limited one above 10 Mbit/s (the size\'s '
             'first run below); the share is the limit over the lower of the two, and '
             f'the goal covers limits up to {GOAL_SHARE:.0%} of it. "Held": the share '
             'of the window the QP spent paused by its limit, from each pause to its run '
             'after it (xrxe_pace_wait_us); a backlogged QP held for little of it was '
             'sending as fast as the machine let it, below the limit. "Late": the wake-ups '
             'whose QP ran only after its bucket had filled, of all its wake-ups in the '
             'window, and the bytes the rate gave it meanwhile (xrxe_pace_late_wakeups and '
             'xrxe_pace_late_bytes), as a share of the limit: what the QP lost because the '
             'machine did not run it in time, which no limit can make up without exceeding '
             'its burst.', '',
             '| QP | message | limit (kbit/s) | measured (kbit/s) | error | '
             'most above the rate in a slice / burst | no limit, before / after (kbit/s) '
             '| share of no limit | held | late wake-ups | late bytes, share of the limit |',
             '|---|---|---|---|---|---|---|---|---|---|---|']
    ref = {}
    in_goal, beyond, in_goal_with_late = [], [], []
    for r in runs:
        key = (r['type'], r['size'])
        if not r['limit_kbps']:
            ref.setdefault(key, r['measured_kbps'])
            continue
        before, after = unlimited_next_to(r, ref.get(key, 0))
        share = r['limit_kbps'] / min(before, after) if min(before, after) else 0
        within = 0 < share <= GOAL_SHARE + 0.005
        (in_goal if within else beyond).append(abs(r['error_pct']))
        late = late_share(r)
        if within and late is not None:
            in_goal_with_late.append(abs(r['error_pct'] + late))
        lines.append(f"| {r['type'].upper()} | {r['size']} B | {r['limit_kbps']} | "
                     f"{r['measured_kbps']:.0f} | {r['error_pct']:+.2f}% | "
                     f"{r['max_excess_bytes']:.0f} / {r['burst_bytes']} B | "
                     f"{before:.0f} / {after:.0f} | {share:.0%} | {late_cells(r)} |")
    if in_goal:
        lines += ['', f'Limits up to {GOAL_SHARE:.0%} of the unlimited rate next to them: '
                  f'largest error {max(in_goal):.2f}% over {len(in_goal)} runs; '
                  f'{sum(e <= 1 for e in in_goal)} within 1%, '
                  f'{sum(e <= 2 for e in in_goal)} within 2%.']
    if in_goal_with_late:
        lines += [f'The same runs with their late bytes counted as sent: largest error '
                  f'{max(in_goal_with_late):.2f}%; '
                  f'{sum(e <= 1 for e in in_goal_with_late)} of {len(in_goal_with_late)} '
                  'within 1%.']
    if beyond:
        lines += [f'Limits above {GOAL_SHARE:.0%} of it (the unlimited rate fell between '
                  f'the first run and theirs): {len(beyond)}, largest error {max(beyond):.2f}%.']
    return lines


def median_of(runs, driver, config, field):
    vals = [r[field] for r in runs
            if r['driver'] == driver and r['config'] == config and field in r]
    return (statistics.median(vals), min(vals), max(vals), len(vals)) if vals else None


def fmt(m, digits):
    if not m:
        return 'n/a'
    med, lo, hi, _ = m
    return f'{med:.{digits}f} ({lo:.{digits}f}-{hi:.{digits}f})'


def ratio(a, b):
    return f'{a[0] / b[0]:.3f}' if a and b and b[0] else 'n/a'


def paired_ratio(runs, base, other, field):
    """The median of each repetition's own ratio other / base, with its
    range: the runs of one repetition are a minute apart at most, so the
    host's speed, which drifts between repetitions, divides out."""
    def series(config):
        return [r[field] for r in runs
                if r['driver'] == 'xrxe' and r['config'] == config and field in r]
    ratios = [y / x for x, y in zip(series(base), series(other)) if x]
    if not ratios:
        return None
    return statistics.median(ratios), min(ratios), max(ratios), len(ratios)


def own_rate_of(runs, kbps):
    return max((r['program_msgs_per_s'] for r in runs if r['paced_kbps'] == kbps),
               default=0)


def isolation_table(runs):
    if not runs:
        return []
    rates = sorted({r['paced_kbps'] for r in runs if r['paced_kbps']})
    size = runs[0]['size']
    reps = len([r for r in runs if r['driver'] == 'xrxe' and r['config'] == 's'])
    lines = ['### Isolation', '',
             f'One engine (`engines=1`) shared by every doorbell-less QP. The stream '
             f'is RDMA writes of {size} B with no limit, its send queue kept full; the '
             f'ping-pong is 64 B sends (half round trip, median of the window); the '
             f'paced QP writes {size} B at its limit with a full send queue; "by the '
             f'program" is the same messages a second sent with no limit, the program '
             f'posting one at a time and sleeping between. Median of {reps} interleaved '
             f'repetitions (range in brackets). A ratio is against the column "alone": '
             f'the median of the repetitions\' own ratios, each of two runs at most a '
             f'minute apart, so that the host\'s speed, which drifts between '
             f'repetitions, divides out.']
    for kbps in rates:
        at = [r for r in runs if r['paced_kbps'] in (0, kbps)]
        lines += ['', f'Paced QP at {kbps} kbit/s; the program sends '
                  f'{own_rate_of(runs, kbps):.1f} messages a second:', '',
                  '| measured | alone | beside the paced QP | ratio | beside the same '
                  'traffic paced by the program | ratio | goal (paced QP) |',
                  '|---|---|---|---|---|---|---|']
        for label, base, paced, program, field, digits, goal in ISOLATION_ROWS:
            a = median_of(at, 'xrxe', base, field)
            b = median_of(at, 'xrxe', paced, field)
            c = median_of(at, 'xrxe', program, field)
            rb = paired_ratio(at, base, paced, field)
            rc = paired_ratio(at, base, program, field)
            lines.append(f'| {label} | {fmt(a, digits)} | {fmt(b, digits)} | '
                         f'{fmt(rb, 3)} | {fmt(c, digits)} | {fmt(rc, 3)} | {goal} |')
    stock = [row for row in ISOLATION_ROWS if median_of(runs, 'rxe', row[1], row[4])]
    if stock:
        lines += ['', 'The same workloads on stock rxe in the same boot (it has no limits, '
                  'so no paced QP):', '',
                  '| measured | stock rxe | xrxe | xrxe / stock |', '|---|---|---|---|']
        for label, base, _, _, field, digits, _ in stock:
            s = median_of(runs, 'rxe', base, field)
            x = median_of(runs, 'xrxe', base, field)
            lines.append(f'| {label} | {fmt(s, digits)} | {fmt(x, digits)} | {ratio(x, s)} |')
    return lines


def multi_table(runs):
    if not runs:
        return []
    limits = [f['limit_kbps'] for f in runs[0]['flows']]
    lines = ['### Several limits at once', '',
             f"{len(limits)} backlogged RC QPs writing {runs[0]['size']} B, each with its own "
             f"limit, {len(runs)} runs; a QP's rate is its completed messages times the IP "
             f"bytes a message took on the netdev ({runs[0]['ip_bytes_per_msg']:.0f} B).", '',
             '| limit (kbit/s) | measured (kbit/s), median | error, each run |', '|---|---|---|']
    for i, lim in enumerate(limits):
        vals = [r['flows'][i] for r in runs]
        med = statistics.median(v['measured_kbps'] for v in vals)
        errs = ', '.join(f"{v['error_pct']:+.2f}%" for v in vals)
        lines.append(f'| {lim} | {med:.0f} | {errs} |')
    return lines


def cost_table(runs):
    if not runs:
        return []
    idle = [r for r in runs if not r['limit_kbps'] and not r['program_msgs_per_s']]
    idle_s = idle[0]['cpu_busy_s'] / idle[0]['window_s'] if idle else 0
    lines = ['### CPU cost', '',
             'Guest CPU busy over the window (wall clock times CPUs, less the idle time /proc/stat keeps) '
             f"with one RC QP writing {runs[0]['size']} B: backlogged at the limit while the program "
             'sleeps between refills, or with no limit while the program posts the same messages a '
             'second itself, one at a time, sleeping between (on xrxe and on stock rxe). '
             'Per message: the busy time above the idle guest\'s.', '',
             '| driver | paced by | limit (kbit/s) | messages a second | CPU busy, % of the guest '
             '| CPU seconds a second | CPU ms a message above idle |',
             '|---|---|---|---|---|---|---|']
    for r in runs:
        own = r['program_msgs_per_s']
        if r['limit_kbps']:
            by = 'the limit'
        elif own:
            by = 'the program'
        else:
            by = 'idle guest'
        per_s = r['cpu_busy_s'] / r['window_s']
        rate = r['messages'] / r['window_s']
        per_msg = f"{(per_s - idle_s) * 1000 / rate:.2f}" if rate else '-'
        lines.append(f"| {r['driver']} | {by} | {r['limit_kbps'] or '-'} | {rate:.1f} | "
                     f"{r['cpu_busy_pct']:.2f}% | {per_s:.4f} | {per_msg} |")
    return lines


def report(runs, header):
    by = {m: [r for r in runs if r['mode'] == m] for m in ('accuracy', 'mix', 'multi', 'cost')}
    lines = [header, '']
    for part in (accuracy_table(by['accuracy']), isolation_table(by['mix']),
                 multi_table(by['multi']), cost_table(by['cost'])):
        if part:
            lines += part + ['']
    return '\n'.join(lines)


def plot_accuracy(runs, path):
    plt = pyplot()
    runs = [r for r in runs if r['mode'] == 'accuracy']
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for kind, size in sorted({(r['type'], r['size']) for r in runs}):
        pts = [(r['limit_kbps'], r['measured_kbps']) for r in runs
               if (r['type'], r['size']) == (kind, size) and r['limit_kbps']]
        if pts:
            ax.plot(*zip(*pts), 'o', label=f'{kind.upper()} {size} B')
    lo = min(r['limit_kbps'] for r in runs if r['limit_kbps'])
    hi = max(r['limit_kbps'] for r in runs)
    ax.plot([lo, hi], [lo, hi], 'k:', label='measured = limit')
    ax.set_xscale('log')
    ax.set_yscale('log')
    ax.set_xlabel('limit (kbit/s)')
    ax.set_ylabel('measured IP rate over 5 s (kbit/s)')
    ax.legend(fontsize='small')
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def plot_series(series, run, path):
    plt = pyplot()
    t = [x[0] for x in series]
    bps = run['limit_kbps'] * 1000 / 8
    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.plot(t, [x[2] for x in series], lw=0.7, label='IP bytes sent in the slice')
    ax.plot(t, [bps * x[1] / 1e3 for x in series], 'g:', lw=0.7,
            label='the rate\'s share of the slice')
    ax.plot(t, [bps * x[1] / 1e3 + run['burst_bytes'] for x in series], 'r--', lw=0.7,
            label='share + burst (the most allowed)')
    ax.set_xlabel('time in the window (ms)')
    ax.set_ylabel('bytes per slice (about 10 ms)')
    ax.set_title(f"{run['type'].upper()} {run['size']} B at {run['limit_kbps']} kbit/s")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize='small', loc='lower right')
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def read_series(path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return [tuple(float(x) for x in line.split()) for line in f if line.strip()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('out')
    ap.add_argument('--docs')
    ap.add_argument('--header', default='')
    ap.add_argument('--series', default='rc,4096,10000',
                    help='the accuracy run whose time series OUT/pace-series.txt holds')
    args = ap.parse_args()
    with open(f'{args.out}/pace.json') as f:
        runs = [json.loads(line) for line in f if line.strip()]
    md = report(runs, args.header)
    plots = []
    if pyplot() and any(r['mode'] == 'accuracy' and r['limit_kbps'] for r in runs):
        plot_accuracy(runs, f'{args.out}/pace-accuracy.png')
        plots.append(('pace-accuracy.png', 'measured against configured'))
    kind, size, kbps = args.series.split(',')
    series = read_series(f'{args.out}/pace-series.txt')
    srun = [r for r in runs if r['mode'] == 'accuracy' and r['type'] == kind and
            r['size'] == int(size) and r['limit_kbps'] == int(kbps)]
    if series and srun:
        if pyplot():
            plot_series(series, srun[0], f'{args.out}/pace-series.png')
            plots.append(('pace-series.png', 'bytes per 10 ms slice over the window'))
        bps = int(kbps) * 1000 / 8
        peak = max(b for _, _, b in series)
        excess = max(b - bps * dt / 1e3 for _, dt, b in series)
        md += (f"\nTime series of {kind.upper()} {size} B at {kbps} kbit/s: "
               f"{len(series)} slices, the largest {peak:.0f} B, at most {excess:.0f} B "
               f"above the rate's share of its slice (burst {srun[0]['burst_bytes']} B).\n")
    with open(f'{args.out}/pace.md', 'w') as f:
        f.write(md)
    print(md)
    if args.docs:
        update_docs(args.docs, 'rate-limit.md', 'pace', md, plots, args.out)


if __name__ == '__main__':
    main()
