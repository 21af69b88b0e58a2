#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Report of bench/xrxe-bench --workload ocu: OUT/ocu.json into OUT/ocu.md
and OUT/ocu-balance.png, OUT/ocu-isolation.png and OUT/ocu-throughput.png;
with --docs DIR, the tables into DIR/load-balancing.md (between its
ocu:begin and ocu:end marks) and the plots into DIR/bench/.

Figures are medians over the repetitions with their range; a ratio is the
median of each repetition's own ratio (its two runs are a minute apart at
most, so the host's drift, which is large between repetitions, divides
out). Exits 1 when a run failed or a table has nothing to show."""
import argparse
import json
import statistics

from bench_docs import pyplot, update_docs

# The goals.
BALANCE_GOAL = 1.15     # max over mean engine busy time, dynamic
ISOLATION_GOAL = 0.5    # ping-pong p99, dynamic over static
BULK_GOAL = 0.98        # bulk QPs' total rate, dynamic over static
PAUSE_S = 2             # SETTLE_SECS of bench/ocu-bench.c
PLOTS = (('ocu-balance.png', 'engine busy time, max over mean, by repetition'),
         ('ocu-isolation.png', 'ping-pong beside 3 bulk QPs'),
         ('ocu-throughput.png', 'message rate by QPs'))


def med(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return None
    return statistics.median(vals), min(vals), max(vals), len(vals)


def fmt(m, digits=2, unit=''):
    if not m:
        return 'n/a'
    v, lo, hi, n = m
    if n == 1:
        return f'{v:.{digits}f}{unit}'
    return f'{v:.{digits}f}{unit} ({lo:.{digits}f}-{hi:.{digits}f})'


def select(runs, **kw):
    return [r for r in runs if all(r.get(k) == v for k, v in kw.items())]


def paired(base, other, field):
    """Each repetition's other/base of field, as med() gives it."""
    b = {r['rep']: field(r) for r in base}
    ratios = [field(r) / b[r['rep']] for r in other
              if r['rep'] in b and b[r['rep']] and field(r) is not None]
    return med(ratios)


def busy(r):
    """The engines' busy seconds in the window, one per engine."""
    return [ns / 1e9 for ns in r['engines']['busy_ns']]


def max_over_mean(vals):
    mean = sum(vals) / len(vals)
    return max(vals) / mean if mean else None


def cost(r, params):
    """The load the engines were charged: each WQE's fixed cost plus its
    bytes >> shift, from the WQEs and bytes their turns took."""
    hdr = int(params.get('ocu_hdr_cost', '64').split(',')[0])
    shift = r.get('byte_shift', int(params.get('ocu_byte_shift', '6').split(',')[0]))
    e = r['engines']
    return [w * hdr + (b >> shift) for w, b in zip(e['wqes'], e['bytes'])]


def engine_share(r):
    """The engine threads' share of the QPs' turns, and of the guest's
    busy CPU time, in percent."""
    turns = r['engine_turns'] / r['qp_turns'] * 100 if r.get('qp_turns') else None
    cpu = r['engine_busy_s'] / r['cpu_busy_s'] * 100 if r.get('cpu_busy_s') else None
    return turns, cpu


def qps_per_engine(r):
    """How many bulk QPs ended the window on each engine, e.g. '5/3'."""
    n = len(r['engines']['busy_ns'])
    counts = [0] * n
    for q in r['qps']:
        if 0 <= q['engine'] < n:
            counts[q['engine']] += 1
    return '/'.join(map(str, counts))


def balance_table(runs, params, paced=False):
    """The balance runs as fast as they go, or (paced) at a fixed rate."""
    runs = [r for r in runs if bool(r.get('list_rate')) == paced]
    lines = ['### Balance' + (', at a fixed rate' if paced else ''), '']
    st = select(runs, mode='balance', placement='static')
    sp = select(runs, mode='balance', placement='spread')
    shift = int(params.get('ocu_byte_shift', '6').split(',')[0])
    dy = [r for r in select(runs, mode='balance', placement='dynamic')
          if r.get('byte_shift', shift) == shift]
    alt = [r for r in select(runs, mode='balance', placement='dynamic')
           if r.get('byte_shift', shift) != shift]
    if not st or not dy:
        return lines + ['No balance runs.'], None
    sizes = ', '.join(f"{q['size']}" for q in st[0]['qps'])
    rate = (f' at {st[0]["list_rate"]:g} lists of 32 a second each (engines not '
            'saturated, so that their busy time is the work they were given)'
            if paced else ' as fast as they go')
    lines += [f'{len(st[0]["qps"])} bulk QPs writing {sizes} B{rate}, each on an OCU of its '
              'own: static (wherever the OCU\'s number puts it: the ordering domains '
              'tried give OCUs at random), static spread by count (the i-th QP on '
              f'engine i mod {len(busy(st[0]))}, static mapping at its best without '
              'knowing the sizes), dynamic' +
              (f'; and dynamic with ocu_byte_shift raised from {shift} to '
               f'{alt[0]["byte_shift"]} for class 0, so that a WQE\'s bytes weigh '
               'less against its fixed cost' if alt else '') +
              '. One row a placement, medians over the repetitions (range). '
              '"Busy": each engine thread\'s time in its turns over the window '
              '(`busy_ns`), highest engine first. "Charged": the same for the load '
              'the cost formula (with the run\'s ocu_byte_shift) gave the WQEs their '
              'turns took (`wqes` and `bytes`). '
              '"QPs per engine": where each QP was last queued, by repetition. '
              '"Engine threads\' share": of all the QPs\' turns (the rest ran in the '
              'posting thread\'s own system call), and of the guest\'s busy CPU time.',
              '',
              '| placement | busy, max / mean | busy by engine (s) | charged, max / mean '
              '| QPs per engine | messages/s, all QPs | engine threads\' share of turns '
              '| of guest CPU |',
              '|---|---|---|---|---|---|---|---|']
    out = {}
    alt_name = f'dynamic, ocu_byte_shift {alt[0]["byte_shift"]}' if alt else ''
    for name, rs in (('static', st), ('static, spread', sp), ('dynamic', dy),
                     (alt_name, alt)):
        if not rs:
            continue
        mm = med([max_over_mean(busy(r)) for r in rs])
        out[name] = mm
        per_engine = [sorted(busy(r), reverse=True) for r in rs]
        by_engine = ' / '.join(fmt(med([b[i] for b in per_engine]), 3)
                               for i in range(len(per_engine[0])))
        lines.append(
            f'| {name} | {fmt(mm)} | {by_engine} | '
            f'{fmt(med([max_over_mean(cost(r, params)) for r in rs]))} | '
            f'{", ".join(qps_per_engine(r) for r in rs)} | '
            f'{fmt(med([r["bulk_msgs_per_s"] for r in rs]), 0)} | '
            f'{fmt(med([engine_share(r)[0] for r in rs]), 0, "%")} | '
            f'{fmt(med([engine_share(r)[1] for r in rs]), 0, "%")} |')
    groups = [g for g in (st, sp, dy, alt) if g]
    names = ' / '.join(n for n, g in (('static', st), ('spread', sp), ('dynamic', dy),
                                      (f'dynamic at shift {alt[0]["byte_shift"]}' if alt
                                       else '', alt)) if g)
    lines += ['', f'Each repetition, max / mean of busy time, {names}: ' +
              '; '.join(' / '.join(f'{max_over_mean(busy(x)):.2f}' for x in group)
                        for group in zip(*groups)) + '.']
    if out['dynamic']:
        v = out['dynamic'][0]
        lines += ['', f'Goal, dynamic at most {BALANCE_GOAL}: median {v:.2f}, '
                  f'{"met" if v <= BALANCE_GOAL else "not met"} '
                  f'({sum(max_over_mean(busy(r)) <= BALANCE_GOAL for r in dy)} of '
                  f'{len(dy)} repetitions within it); static: '
                  f'{out["static"][0]:.2f}' +
                  (f', spread: {out["static, spread"][0]:.2f}' if sp else '') +
                  (f'; dynamic at ocu_byte_shift {alt[0]["byte_shift"]}: '
                   f'{out[alt_name][0]:.2f}.' if alt else '.')]
    return lines, (st, sp, dy, alt)


def pp_via(r):
    """How the ping-pong's sends reached the kernel, from its QPs' counters."""
    if 'pp' not in r:
        return '-'
    turns = sum(p['turns'] for p in r['pp'])
    ll = sum(p['ll_taken'] for p in r['pp'])
    bell = sum(p['doorbells'] for p in r['pp'])
    wqes = sum(p['wqes'] for p in r['pp'])
    return (f'{wqes} WQEs, {ll} in their own low-latency command, {bell} '
            f'with a doorbell, {turns} turns')


def isolation_table(runs, poll):
    title = ('### Isolation' if not poll else
             f'### Isolation, ping-pong served by its engine ({poll} us busy-poll window)')
    xs = select(runs, mode='isolation', driver='xrxe', pp_poll_us=poll)
    co = select(xs, placement='collide')
    dy = select(xs, placement='dynamic')
    if not co or not dy:
        return [], None
    stock = select(runs, mode='isolation', driver='rxe') if not poll else []
    nbulk = co[0]['nqps']
    size = co[0]['qps'][0]['size'] if co[0].get('qps') else 0
    lines = [title, '']
    if not poll:
        lines += [f'A ping-pong of 64 B inline sends (half round trips over the window, '
                  f'busy polling) beside {nbulk} bulk QPs writing {size} B. '
                  '"Static, colliding": every one of their OCUs, the ping-pong\'s at both '
                  'ends included, static and on engine 0 (ordering domains tried until '
                  'static mapping put each on engine 0). "Dynamic": the same with OCUs '
                  'of their own in the dynamic slice. A ratio is dynamic over static.', '']
    else:
        lines += ['The same with both of the ping-pong\'s QPs keeping their engine '
                  f'polling their empty ring for {poll} us '
                  '(`xrxedv_qp_set_engine_idle()`), so that a send posted while the '
                  'engine watches is taken by the engine thread, where it waits behind '
                  'the bulk QPs\' turns on that engine.', '']
    lines += ['| placement | ping-pong p50 (us) | p99 (us) | p99 / static | round trips '
              '| bulk messages/s | bulk / static | engine busy (s), by engine | '
              'the ping-pong\'s sends (first repetition) |',
              '|---|---|---|---|---|---|---|---|---|']
    p99 = paired(co, dy, lambda r: r['pp_p99_us'])
    bulk = paired(co, dy, lambda r: r['bulk_msgs_per_s'])
    for name, rs, rp, rb in (('static, colliding', co, None, None),
                             ('dynamic', dy, p99, bulk), ('stock rxe', stock, None, None)):
        if not rs:
            continue
        eng = ('-' if 'engines' not in rs[0] else ' / '.join(
            fmt(med([busy(r)[i] for r in rs]), 3) for i in range(len(busy(rs[0])))))
        lines.append(f'| {name} | {fmt(med([r["pp_p50_us"] for r in rs]), 0)} | '
                     f'{fmt(med([r["pp_p99_us"] for r in rs]), 0)} | '
                     f'{fmt(rp) if rp else "-"} | '
                     f'{fmt(med([r["pp_iters"] for r in rs]), 0)} | '
                     f'{fmt(med([r["bulk_msgs_per_s"] for r in rs]), 0)} | '
                     f'{fmt(rb, 3) if rb else "-"} | {eng} | {pp_via(rs[0])} |')
    if p99 and bulk:
        lines += ['', f'Goals: ping-pong p99 dynamic at most {ISOLATION_GOAL}x static: '
                  f'{p99[0]:.2f}x, {"met" if p99[0] <= ISOLATION_GOAL else "not met"}; '
                  f'bulk rate dynamic at least {BULK_GOAL}x static: {bulk[0]:.3f}x, '
                  f'{"met" if bulk[0] >= BULK_GOAL else "not met"}.']
    return lines, (co, dy, stock)


def throughput_table(runs):
    tp = select(runs, mode='throughput')
    if not tp:
        return [], None
    counts = sorted({r['nqps'] for r in tp})
    size = tp[0]['qps'][0]['size']
    lines = ['### Throughput', '',
             f'Bulk QPs writing {size} B, each on an OCU of its own (xrxe), messages a '
             'second of all QPs together; stock rxe: the kernel\'s rdma_rxe, whose send '
             'work runs on its unbound workqueue. Ratios: each repetition\'s own. '
             '"Engine threads\' share": of the QPs\' turns, static / dynamic. '
             '"Static: QPs per engine": where static mapping put them, by repetition.', '',
             '| QPs | static | dynamic | stock rxe | dynamic / static | dynamic / stock '
             '| static / stock | engine threads\' share of turns | static: QPs per engine |',
             '|---|---|---|---|---|---|---|---|---|']
    data = {}
    for n in counts:
        st = select(tp, nqps=n, placement='static')
        dy = select(tp, nqps=n, placement='dynamic')
        sk = select(tp, nqps=n, driver='rxe')
        rate = lambda r: r['bulk_msgs_per_s']  # noqa: E731
        data[n] = (st, dy, sk)
        lines.append(
            f'| {n} | {fmt(med([rate(r) for r in st]), 0)} | '
            f'{fmt(med([rate(r) for r in dy]), 0)} | {fmt(med([rate(r) for r in sk]), 0)} | '
            f'{fmt(paired(st, dy, rate))} | {fmt(paired(sk, dy, rate))} | '
            f'{fmt(paired(sk, st, rate))} | '
            f'{fmt(med([engine_share(r)[0] for r in st]), 0, "%")} / '
            f'{fmt(med([engine_share(r)[0] for r in dy]), 0, "%")} | '
            f'{", ".join(qps_per_engine(r) for r in st)} |')
    return lines, data


def scale_table(runs):
    sc = select(runs, mode='scale')
    if not sc:
        return []
    x = select(sc, driver='xrxe')
    s = select(sc, driver='rxe')
    ref = (x or s)[0]
    idle = ref['idle_qps']
    rate = ref['alone']['list_rate']
    lines = ['### Scale', '',
             f'{ref["nqps"]} bulk QPs writing {ref["alone"]["qps"][0]["size"]} B at a '
             f'fixed rate ({rate:.0f} lists of 32 a second each) alone, then beside '
             f'{idle} more RC QPs on the same device, connected (RTS) and idle, then alone '
             'again once those are destroyed, each window after a pause of '
             f'{PAUSE_S} s with no traffic. The figures are per second of the window; '
             '"beside / alone" is each repetition\'s figure beside the idle QPs over the '
             'mean of its two alone windows.', '',
             '| driver | figure | alone | beside idle QPs | alone again | beside / alone |',
             '|---|---|---|---|---|---|']

    def per_s(phase, f):
        return lambda r: f(r[phase]) / r[phase]['window_s']

    figures = (('messages/s', lambda p: p['bulk_msgs_per_s'] * p['window_s'], 0),
               ('engine busy, s/s', lambda p: p.get('engine_busy_s'), 3),
               # Records from before they named their vCPUs had 2.
               (f"guest CPU busy, s/s (of {ref.get('vcpus', 2)})", lambda p: p['cpu_busy_s'],
                3))
    for drv, rs in (('xrxe', x), ('stock rxe', s)):
        for label, f, digits in figures:
            if not rs or rs[0]['alone'].get('engine_busy_s') is None and 'engine' in label:
                continue
            cols = [med([per_s(ph, f)(r) for r in rs])
                    for ph in ('alone', 'beside_idle', 'alone_after')]
            ratio = med([per_s('beside_idle', f)(r) /
                         ((per_s('alone', f)(r) + per_s('alone_after', f)(r)) / 2)
                         for r in rs])
            lines.append(f'| {drv} | {label} | {fmt(cols[0], digits)} | '
                         f'{fmt(cols[1], digits)} | {fmt(cols[2], digits)} | '
                         f'{fmt(ratio, 3)} |')
        if rs and 'paused_cpu' in rs[0]:
            cols = [med([r['paused_cpu'][k] for r in rs]) for k in range(3)]
            lines.append(f'| {drv} | guest CPU in the {PAUSE_S} s pause before, s/s | '
                         f'{fmt(cols[0], 3)} | {fmt(cols[1], 3)} | {fmt(cols[2], 3)} | - |')
    lines += ['', f'Memory the {idle} idle QPs took, per QP, from /proc/meminfo before and '
              'after creating them (KiB), and the time to create one (each with 128 send '
              'WRs, 1 receive WR, 1 SGE, no inline data, taken to RTS):', '',
              '| driver | MemAvailable | Slab | VmallocUsed | PageTables | ms to create, '
              'to destroy |', '|---|---|---|---|---|---|']
    for drv, rs in (('xrxe', x), ('stock rxe', s)):
        if not rs:
            continue

        def d(field, sign=1):
            return med([sign * (r['mem_kib'][field][1] - r['mem_kib'][field][0]) /
                        r['idle_qps'] for r in rs])
        lines.append(f'| {drv} | {fmt(d("avail", -1), 1)} | {fmt(d("slab"), 1)} | '
                     f'{fmt(d("vmalloc"), 1)} | {fmt(d("pagetables"), 2)} | '
                     f'{fmt(med([r["create_s"] * 1e3 / r["idle_qps"] for r in rs]), 2)}, '
                     f'{fmt(med([r["destroy_s"] * 1e3 / r["idle_qps"] for r in rs]), 2)} |')
    return lines


def failed_lines(runs):
    bad = select(runs, mode='failed')
    if not bad:
        return []
    return ['### Failed runs', ''] + [f'- rep {r["rep"]}: `{r["command"]}`: {r["error"]}'
                                      for r in bad]


def plot_balance(st, sp, dy, alt, path):
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.8))
    reps = range(len(st))
    groups = [(g, rs) for g, rs in (('static', st), ('static, spread', sp),
                                    ('dynamic', dy),
                                    (f'dynamic, byte shift {alt[0]["byte_shift"]}'
                                     if alt else '', alt))
              if rs]
    w = 0.8 / len(groups)
    for k, (label, rs) in enumerate(groups):
        ax.bar([r['rep'] + (k - (len(groups) - 1) / 2) * w for r in rs],
               [max_over_mean(busy(r)) for r in rs], w, label=label)
    ax.axhline(BALANCE_GOAL, color='k', ls=':', lw=1, label=f'goal {BALANCE_GOAL}')
    ax.set_xticks(list(reps), [f'rep {i + 1}' for i in reps])
    ax.set_ylabel('engine busy time, max / mean')
    ax.set_ylim(0.9, 2.5)
    ax.set_title(f'{len(st[0]["qps"])} QPs, 64 B to 64 KiB, on {len(busy(st[0]))} engines')
    ax.legend(fontsize='small', ncol=3, loc='upper center')
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def plot_isolation(co, dy, stock, path):
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.8))
    groups = [('static,\ncolliding', co), ('dynamic', dy)] + (
        [('stock rxe', stock)] if stock else [])
    for ax, field, label in ((axes[0], 'pp_p50_us', 'p50'), (axes[0], 'pp_p99_us', 'p99')):
        xs = range(len(groups))
        off = -0.2 if label == 'p50' else 0.2
        vals = [med([r[field] for r in rs]) for _, rs in groups]
        ax.bar([x + off for x in xs], [v[0] for v in vals], 0.4, label=label,
               yerr=[[v[0] - v[1] for v in vals], [v[2] - v[0] for v in vals]],
               capsize=3)
        ax.set_xticks(list(xs), [g for g, _ in groups])
    axes[0].set_yscale('log')
    axes[0].set_ylabel('ping-pong half round trip (us)')
    axes[0].legend(fontsize='small')
    xs = range(len(groups))
    vals = [med([r['bulk_msgs_per_s'] for r in rs]) for _, rs in groups]
    axes[1].bar(list(xs), [v[0] for v in vals],
                yerr=[[v[0] - v[1] for v in vals], [v[2] - v[0] for v in vals]], capsize=3)
    axes[1].set_xticks(list(xs), [g for g, _ in groups])
    axes[1].set_ylabel('bulk QPs, messages/s')
    fig.suptitle('a ping-pong beside 3 bulk QPs (median, min-max)')
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def plot_throughput(data, path):
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.8))
    counts = sorted(data)
    for i, label in enumerate(('static', 'dynamic', 'stock rxe')):
        pts = [(n, med([r['bulk_msgs_per_s'] for r in data[n][i]])) for n in counts]
        pts = [(n, m) for n, m in pts if m]
        if not pts:
            continue
        # Apart a little, so that the ranges do not hide each other.
        ax.errorbar([n * 1.06 ** (i - 1) for n, _ in pts], [m[0] for _, m in pts],
                    yerr=[[m[0] - m[1] for _, m in pts], [m[2] - m[0] for _, m in pts]],
                    marker='o', capsize=3, label=label)
    ax.set_xscale('log', base=2)
    ax.set_xticks(counts, [str(n) for n in counts])
    ax.set_xlabel('QPs')
    ax.set_ylabel('messages/s, all QPs (4 KiB writes)')
    ax.set_ylim(bottom=0)
    ax.legend(fontsize='small')
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('out')
    ap.add_argument('--docs')
    ap.add_argument('--header', default='')
    args = ap.parse_args()
    with open(f'{args.out}/ocu.json') as f:
        runs = [json.loads(line) for line in f if line.strip()]
    meta = (select(runs, mode='meta') or [{}])[0]
    params = meta.get('params', {})
    header = args.header
    if meta:
        header += (f' {meta["reps"]} repetition(s), {meta["window_s"]:g} s windows after '
                   f'0.5 s of warm-up; {params.get("engine_threads")} engines, '
                   f'{params.get("ocus")} OCUs, engine_quantum '
                   f'{params.get("engine_quantum")}, engine_idle_us '
                   f'{params.get("engine_idle_us")}. Bulk QPs post lists of 32 RDMA '
                   'WRITEs, the last one signalled, keep up to 4 lists outstanding, '
                   'and sleep on completion events (one thread for all of them).')
    bal, bal_runs = balance_table(runs, params)
    bal_paced, _ = balance_table(runs, params, paced=True)
    iso, iso_runs = isolation_table(runs, 0)
    iso_poll, _ = isolation_table(runs, 100)
    tput, tput_data = throughput_table(runs)
    lines = [header.strip(), '']
    for part in (bal, bal_paced, iso, iso_poll, tput, scale_table(runs), failed_lines(runs)):
        if part:
            lines += part + ['']
    md = '\n'.join(lines)
    plots = []
    if pyplot() and bal_runs:
        plot_balance(*bal_runs, f'{args.out}/{PLOTS[0][0]}')
        plots.append(PLOTS[0])
    if pyplot() and iso_runs:
        plot_isolation(*iso_runs, f'{args.out}/{PLOTS[1][0]}')
        plots.append(PLOTS[1])
    if pyplot() and tput_data:
        plot_throughput(tput_data, f'{args.out}/{PLOTS[2][0]}')
        plots.append(PLOTS[2])
    with open(f'{args.out}/ocu.md', 'w') as f:
        f.write(md)
    print(md)
    if args.docs:
        update_docs(args.docs, 'load-balancing.md', 'ocu', md, plots, args.out)
    if select(runs, mode='failed') or not (bal_runs and iso_runs and tput_data):
        raise SystemExit(1)


if __name__ == '__main__':
    main()
