#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Report of bench/xrxe-coalesce-bench: OUT/coalesce.json into
OUT/coalesce.md and OUT/coalesce-append.png; with --docs DIR, the tables
into DIR/coalescing.md (between its coalesce:begin and coalesce:end marks)
and the plot into DIR/bench/.

A mode's rate is compared with stock rxe's, and with xrxe's without
coalescing, at the same point (stream and number of QPs) of the same
repetition: the median of those per-repetition ratios, since the runs of
a repetition are seconds apart and the host's speed drifts more between
repetitions than within one. Packets per message are every packet both
devices sent over the window, ACKs included, over the messages completed
in it; the requester's are its own device's alone."""
import argparse
import json
import statistics
import sys

from bench_docs import update_docs

STOCK = 'stock'
PLAIN = 'xrxe'
MODE_ORDER = ('stock', 'xrxe', 'xrxe-c1024', 'xrxe-c4096', 'xrxe-c4096-q64')
ABOUT = {
    'stock': 'stock rdma_rxe',
    'xrxe': 'xrxe, the defaults: no coalescing',
    'xrxe-c1024': 'xrxe, `XRXE_COALESCE=1024`',
    'xrxe-c4096': 'xrxe, `XRXE_COALESCE=4096`',
    'xrxe-c4096-q64': 'xrxe, `XRXE_COALESCE=4096`, module parameter `engine_quantum=64`',
}
STREAM_ORDER = ('adjacent', 'gapped')
# The goal for the adjacent stream.
GOAL_RATIO = 4.0
GOAL_PKTS = 0.1


class ReportError(Exception):
    pass


def check_run(r):
    """A run the report can use, else ReportError saying why not."""
    for field in ('mode', 'stream', 'qps', 'rep', 'messages', 'msgs_per_s', 'devices'):
        if field not in r:
            raise ReportError(f'a run without {field}: {r}')
    if r['messages'] <= 0 or r['msgs_per_s'] <= 0:
        raise ReportError(f"{r['mode']} {r['stream']} {r['qps']} QPs rep {r['rep']}: "
                          'no messages')
    if len(r['devices']) != 2 or any('sent_pkts' not in d for d in r['devices'].values()):
        raise ReportError(f"{r['mode']} {r['stream']} {r['qps']} QPs rep {r['rep']}: "
                          'sent_pkts of both devices missing')


def requester_dev(r):
    """The name of the device the writes left from (the driver's 0)."""
    return min(r['devices'])


def pkts_per_msg(r):
    return sum(d['sent_pkts'] for d in r['devices'].values()) / r['messages']


def req_pkts_per_msg(r):
    return r['devices'][requester_dev(r)]['sent_pkts'] / r['messages']


def wqes_per_merged_msg(r):
    """WQEs a coalesced message carried on average (None: none merged or
    no counters)."""
    qps = r.get('qp_counters')
    if not qps:
        return None
    msgs = sum(q['msgs_coalesced'] for q in qps)
    wqes = sum(q['wqes_coalesced'] for q in qps)
    return (msgs + wqes) / msgs if msgs else None


def coalesced_share(r):
    """The share of the WQEs taken that went in an earlier one's message."""
    qps = r.get('qp_counters')
    if not qps:
        return None
    fetched = sum(q['wqes_fetched'] for q in qps)
    return sum(q['wqes_coalesced'] for q in qps) / fetched if fetched else None


def index(runs):
    """{(stream, qps): {mode: {rep: run}}}; a run twice is an error."""
    out = {}
    for r in runs:
        check_run(r)
        at = out.setdefault((r['stream'], r['qps']), {}).setdefault(r['mode'], {})
        if r['rep'] in at:
            raise ReportError(f"{r['mode']} {r['stream']} {r['qps']} QPs: "
                              f"repetition {r['rep']} twice")
        at[r['rep']] = r
    return out


def paired_ratio(by_rep, base_by_rep, field='msgs_per_s'):
    """Median (and range and count) of each repetition's own ratio of a
    mode's field to the base mode's; None without a repetition both ran."""
    ratios = [by_rep[k][field] / base_by_rep[k][field]
              for k in sorted(by_rep) if k in base_by_rep and base_by_rep[k][field]]
    if not ratios:
        return None
    return statistics.median(ratios), min(ratios), max(ratios), len(ratios)


def median_of(by_rep, f):
    vals = [f(r) for r in by_rep.values()]
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def modes_of(idx):
    seen = {m for point in idx.values() for m in point}
    return [m for m in MODE_ORDER if m in seen] + sorted(seen - set(MODE_ORDER))


def points_of(idx):
    def key(p):
        s, q = p
        return (STREAM_ORDER.index(s) if s in STREAM_ORDER else len(STREAM_ORDER), s, q)
    return sorted(idx, key=key)


def fmt_ratio(x):
    if not x:
        return 'n/a'
    med, lo, hi, n = x
    return f'{med:.2f}' if n == 1 else f'{med:.2f} ({lo:.2f}-{hi:.2f})'


def fmt(v, digits):
    return 'n/a' if v is None else f'{v:.{digits}f}'


def point_name(p):
    stream, qps = p
    return f"{stream}, {qps} QP{'s' if qps > 1 else ''}"


def rate_table(idx, modes):
    lines = ['| point | ' + ' | '.join(modes) + ' |', '|---' * (len(modes) + 1) + '|']
    for p in points_of(idx):
        cells = []
        stock = idx[p].get(STOCK)
        for m in modes:
            at = idx[p].get(m)
            if not at:
                cells.append('-')
                continue
            rate = median_of(at, lambda r: r['msgs_per_s'])
            if m == STOCK:
                cells.append(f'{rate:.0f}')
            else:
                cells.append(f'{rate:.0f}, **{fmt_ratio(stock and paired_ratio(at, stock))}**')
        lines.append(f'| {point_name(p)} | ' + ' | '.join(cells) + ' |')
    return lines


def packet_table(idx, modes):
    lines = ['| point | ' + ' | '.join(modes) + ' |', '|---' * (len(modes) + 1) + '|']
    for p in points_of(idx):
        cells = []
        for m in modes:
            at = idx[p].get(m)
            if not at:
                cells.append('-')
                continue
            cells.append(f'{fmt(median_of(at, pkts_per_msg), 3)} / '
                         f'{fmt(median_of(at, req_pkts_per_msg), 3)}')
        lines.append(f'| {point_name(p)} | ' + ' | '.join(cells) + ' |')
    return lines


def merge_table(idx, modes):
    xmodes = [m for m in modes if m not in (STOCK, PLAIN)]
    lines = ['| point | ' + ' | '.join(
                 f'{m}: vs xrxe, WQEs a merged message, share merged' for m in xmodes) + ' |',
             '|---' * (len(xmodes) + 1) + '|']
    for p in points_of(idx):
        plain = idx[p].get(PLAIN)
        cells = []
        for m in xmodes:
            at = idx[p].get(m)
            if not at:
                cells.append('-')
                continue
            share = median_of(at, coalesced_share)
            cells.append(f'{fmt_ratio(plain and paired_ratio(at, plain))}, '
                         f'{fmt(median_of(at, wqes_per_merged_msg), 1)}, '
                         f"{'n/a' if share is None else f'{share:.0%}'}")
        lines.append(f'| {point_name(p)} | ' + ' | '.join(cells) + ' |')
    return lines


def goal_lines(idx, modes):
    """Per adjacent point, the best coalescing mode's ratio to stock and its
    packets per message against the goal; gapped points against xrxe."""
    out = []
    for p in points_of(idx):
        stream, _ = p
        stock, plain = idx[p].get(STOCK), idx[p].get(PLAIN)
        xmodes = [m for m in modes if m not in (STOCK, PLAIN) and m in idx[p]]
        if not xmodes:
            continue
        if stream == 'adjacent' and stock:
            judged = []
            for m in xmodes:
                ratio = paired_ratio(idx[p][m], stock)
                pkts = median_of(idx[p][m], pkts_per_msg)
                if ratio and pkts is not None:
                    judged.append((ratio[0] >= GOAL_RATIO and pkts <= GOAL_PKTS,
                                   ratio[0], pkts, m))
            if not judged:
                continue
            # The fastest of the modes that reach it, else the fastest.
            met, ratio, pkts, best = max(judged)
            out.append(f"- {point_name(p)}: {'reached' if met else 'not reached'} "
                       f'(>= {GOAL_RATIO:g}x stock at <= {GOAL_PKTS:g} packets a '
                       f"message){' by' if met else '; fastest:'} {best}, {ratio:.2f}x "
                       f'at {pkts:.3f}'
                       + ''.join(f'; also {m}, {r:.2f}x at {k:.3f}'
                                 for ok, r, k, m in sorted(judged, reverse=True)
                                 if ok and m != best) + '.')
        elif stream != 'adjacent' and plain:
            ratios = [(m, paired_ratio(idx[p][m], plain)) for m in xmodes]
            ratios = [(m, x) for m, x in ratios if x]
            if ratios:
                worst = min(ratios, key=lambda mx: mx[1][0])
                out.append(f'- {point_name(p)}: against xrxe without coalescing, '
                           + ', '.join(f'{m} {fmt_ratio(x)}' for m, x in ratios)
                           + f' (lowest {worst[1][0]:.2f}).')
    return out


def anomalies(idx):
    """What the counters say went wrong: a gapped run that merged, a
    coalescing run of the adjacent stream that merged nothing."""
    out = []
    for p in points_of(idx):
        for m, at in idx[p].items():
            for rep, r in sorted(at.items()):
                share = coalesced_share(r)
                if share is None:
                    continue
                if p[0] != 'adjacent' and share > 0:
                    out.append(f'{m} {point_name(p)} rep {rep}: merged {share:.1%} of '
                               'the WQEs of a stream with gaps')
                if p[0] == 'adjacent' and m != PLAIN and share == 0:
                    out.append(f'{m} {point_name(p)} rep {rep}: coalescing on, '
                               'nothing merged')
    return out


def ring_size(n):
    return f'{n >> 20} MiB' if n % (1 << 20) == 0 else f'{n >> 10} KiB'


def netdev_mtu(r):
    return f" (netdev MTU {r['netdev_mtu']})" if r.get('netdev_mtu') else ''


def report(runs, header):
    idx = index(runs)
    if not idx:
        raise ReportError('no runs')
    modes = modes_of(idx)
    reps = len({r['rep'] for r in runs})
    r0 = runs[0]
    lines = [header, '',
             f"{r0['size']} B RDMA WRITEs, every {r0['signal_every']}th signalled, "
             f"{r0['depth']} outstanding a QP, each its own `ibv_post_send()`, to "
             f"consecutive slots of a {ring_size(r0['ring_bytes'])} ring a QP, path MTU "
             f"{r0['path_mtu']}{netdev_mtu(r0)}; gapped: a {max(r['gap'] for r in runs)}-byte gap after "
             f"each write, so that none may merge. {r0['window_s']:.0f} s windows, "
             f"{reps} repetition{'s' if reps > 1 else ''}; medians. Modes:", '']
    lines += [f'- `{m}`: {ABOUT.get(m, m)}' for m in modes]
    lines += ['', '### Message rate', '',
              'Messages a second (each write is a message to the application), and in '
              'bold the ratio to stock rxe at the same point: the median of each '
              "repetition's own ratio (range in brackets).", '']
    lines += rate_table(idx, modes)
    lines += ['', '### Packets per message', '',
              'Every packet both devices sent (requests and ACKs) / the requester\'s '
              'own, per message completed in the window.', '']
    lines += packet_table(idx, modes)
    lines += ['', '### Against xrxe without coalescing', '',
              'The rate\'s ratio to the mode `xrxe` at the same point (median of the '
              'repetitions\' own ratios), the WQEs a merged message carried, and the '
              'share of the WQEs the kernel took that went in an earlier one\'s message '
              '(the QPs\' counters).', '']
    lines += merge_table(idx, modes)
    goals = goal_lines(idx, modes)
    if goals:
        lines += ['', '### Against the goal', ''] + goals
    bad = anomalies(idx)
    if bad:
        lines += ['', 'Counters out of place:', ''] + [f'- {b}' for b in bad]
    return '\n'.join(lines) + '\n'


def plot(runs, path):
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    idx = index(runs)
    every = modes_of(idx)
    # One colour a mode in both panels.
    colour = {m: f'C{i}' for i, m in enumerate(every)}
    points = points_of(idx)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    for ax, modes in ((ax1, [m for m in every if m != STOCK]), (ax2, every)):
        width = 0.8 / max(len(modes), 1)
        for i, m in enumerate(modes):
            xs = [j - 0.4 + (i + 0.5) * width for j in range(len(points))]
            if ax is ax1:
                ys = [(paired_ratio(idx[p][m], idx[p][STOCK]) or (0,))[0]
                      if m in idx[p] and STOCK in idx[p] else 0 for p in points]
            else:
                ys = [(median_of(idx[p][m], pkts_per_msg) or 0) if m in idx[p] else 0
                      for p in points]
            ax.bar(xs, ys, width, label=m, color=colour[m])
        ax.set_xticks(range(len(points)))
        ax.set_xticklabels([point_name(p) for p in points], fontsize='small')
    ax1.axhline(1, color='k', lw=0.7)
    ax1.axhline(GOAL_RATIO, color='r', ls=':', lw=0.8, label=f'goal {GOAL_RATIO:g}x')
    ax1.set_ylabel('messages/s, ratio to stock rxe')
    ax2.axhline(GOAL_PKTS, color='r', ls=':', lw=0.8, label=f'goal {GOAL_PKTS:g}')
    ax2.set_yscale('log')
    ax2.set_ylim(top=40)	# room for the legend above the bars
    ax2.set_ylabel('packets per message (both devices)')
    ax1.legend(fontsize='x-small')
    ax2.legend(fontsize='x-small', ncol=3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('out')
    ap.add_argument('--docs')
    ap.add_argument('--header', default='')
    args = ap.parse_args()
    with open(f'{args.out}/coalesce.json') as f:
        runs = [json.loads(line) for line in f if line.strip()]
    try:
        md = report(runs, args.header)
    except ReportError as e:
        sys.exit(f'coalesce_report: {e}')
    plot(runs, f'{args.out}/coalesce-append.png')
    with open(f'{args.out}/coalesce.md', 'w') as f:
        f.write(md)
    print(md)
    if args.docs:
        update_docs(args.docs, 'coalescing.md', 'coalesce', md,
                    [('coalesce-append.png', 'append workload: rate against stock, '
                      'packets per message')], args.out)


if __name__ == '__main__':
    main()
