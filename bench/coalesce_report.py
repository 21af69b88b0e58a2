#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Report of bench/xrxe-bench --workload coalesce: OUT/coalesce.json (the
append workload) into OUT/coalesce.md and OUT/coalesce-append.png, and
OUT/tag.json (records then a tag) into OUT/tag.md and OUT/coalesce-tag.png,
each where the sweep ran it; with --docs DIR, the append workload's
tables into DIR/coalescing.md (between its coalesce:begin and
coalesce:end marks), those of records then a tag into
DIR/flush-domains.md (between its tag:begin and tag:end marks), and the
plots into DIR/bench/.

A mode's rate is compared with stock rxe's, and with xrxe's without
coalescing, at the same point (stream and number of QPs) of the same
repetition: the median of those per-repetition ratios, since the runs of
a repetition are seconds apart and the host's speed drifts more between
repetitions than within one. Packets per message are every packet both
devices sent over the window, ACKs included, over the messages completed
in it; the requester's are its own device's alone.

Records then a tag: a mode's records a second against the others' at the
same record size, paired the same way; packets per record from both
devices' counters; the time the tag waited for its flush domain, per
round, from the tag QP's own counters; the engines the QPs ran on."""
import argparse
import json
import statistics
import sys

from bench_docs import pyplot, update_docs

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
    plt = pyplot()
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



# ---- Records then a tag (flush domains) ----

TAG_MODE_ORDER = ('stock', 'one', 'domain', 'wait', 'domain1')
TAG_ABOUT = {
    'stock': 'stock rdma_rxe, one QP: the records, then the tag',
    'one': 'xrxe, one QP: the records, then the tag (RC places them in order)',
    'domain': 'xrxe, 4 QPs in a flush domain, each on an OCU of its own; the tag on '
              'QP 0 with `XRXEDV_SEND_DOMAIN_FLUSH`, posted right after the records',
    'wait': 'xrxe, the same 4 QPs without a domain: the tag posted once every record '
            'of its round has completed',
    'domain1': 'xrxe, one QP in a flush domain, its tag flagged: the flag\'s own cost',
}
# Ratios the issue asks for: (mode, base).
TAG_RATIOS = (('domain', 'one'), ('wait', 'one'), ('domain', 'wait'),
              ('domain1', 'one'), ('one', 'stock'))


def check_tag_run(r):
    for field in ('mode', 'size', 'qps', 'rep', 'rounds', 'records', 'records_per_s',
                  'rounds_per_s', 'devices', 'tag_checks'):
        if field not in r:
            raise ReportError(f'a records-then-tag run without {field}: {r}')
    what = f"tag {r['mode']} {r['size']} B rep {r['rep']}"
    if r['rounds'] <= 0 or r['records_per_s'] <= 0:
        raise ReportError(f'{what}: no rounds')
    if r['tag_checks'] <= 0:
        raise ReportError(f'{what}: the tag was never checked')
    if len(r['devices']) != 2 or any('sent_pkts' not in d for d in r['devices'].values()):
        raise ReportError(f'{what}: sent_pkts of both devices missing')
    if r['mode'] in ('domain', 'domain1'):
        q0 = (r.get('qp_counters') or [{}])[0]
        if not q0.get('domain_flushes'):
            raise ReportError(f'{what}: a domain mode whose tag QP counted no domain flush')


def tag_index(runs):
    """{size: {mode: {rep: run}}}; a run twice is an error."""
    out = {}
    for r in runs:
        check_tag_run(r)
        at = out.setdefault(r['size'], {}).setdefault(r['mode'], {})
        if r['rep'] in at:
            raise ReportError(f"tag {r['mode']} {r['size']} B: repetition {r['rep']} twice")
        at[r['rep']] = r
    return out


def tag_modes_of(idx):
    seen = {m for point in idx.values() for m in point}
    return [m for m in TAG_MODE_ORDER if m in seen] + sorted(seen - set(TAG_MODE_ORDER))


def pkts_per_record(r):
    return sum(d['sent_pkts'] for d in r['devices'].values()) / r['records']


def req_pkts_per_record(r):
    return r['devices'][requester_dev(r)]['sent_pkts'] / r['records']


def tag_wait_us(r):
    """The tag's wait for its domain per flagged tag, in us (None: no flush)."""
    q0 = (r.get('qp_counters') or [{}])[0]
    n = q0.get('domain_flushes')
    return q0['domain_wait_us'] / n if n else None


def engines_of(r):
    """The engine each QP was last served by, e.g. '0,1,0,1' (None on stock)."""
    qps = r.get('qp_counters')
    if not qps:
        return None
    return ','.join('?' if q['engine'] < 0 else str(q['engine']) for q in qps)


def size_name(size):
    return f'{size >> 10} KiB' if size >= 1024 and size % 1024 == 0 else f'{size} B'


def tag_rate_table(idx, modes):
    lines = ['| records | ' + ' | '.join(modes) + ' |', '|---' * (len(modes) + 1) + '|']
    for size in sorted(idx, reverse=True):
        cells = []
        for m in modes:
            at = idx[size].get(m)
            if not at:
                cells.append('-')
                continue
            cells.append(f"{median_of(at, lambda r: r['records_per_s']):.0f} "
                         f"({median_of(at, lambda r: r['rounds_per_s']):.0f})")
        lines.append(f'| {size_name(size)} | ' + ' | '.join(cells) + ' |')
    return lines


def tag_ratio_table(idx):
    pairs = [(m, b) for m, b in TAG_RATIOS
             if any(m in idx[s] and b in idx[s] for s in idx)]
    lines = ['| records | ' + ' | '.join(f'{m} / {b}' for m, b in pairs) + ' |',
             '|---' * (len(pairs) + 1) + '|']
    for size in sorted(idx, reverse=True):
        cells = []
        for m, b in pairs:
            at, base = idx[size].get(m), idx[size].get(b)
            cells.append(fmt_ratio(at and base and paired_ratio(at, base, 'records_per_s')))
        lines.append(f'| {size_name(size)} | ' + ' | '.join(cells) + ' |')
    return lines


def tag_detail_table(idx, modes):
    lines = ['| records | mode | packets a record (both / requester) | '
             'tag wait a round (us) | engines of the QPs | tag moves checked |',
             '|---|---|---|---|---|---|']
    for size in sorted(idx, reverse=True):
        for m in modes:
            at = idx[size].get(m)
            if not at:
                continue
            engines = sorted({e for e in (engines_of(r) for r in at.values()) if e})
            lines.append(f'| {size_name(size)} | {m} | {fmt(median_of(at, pkts_per_record), 3)}'
                         f' / {fmt(median_of(at, req_pkts_per_record), 3)} | '
                         f'{fmt(median_of(at, tag_wait_us), 0)} | '
                         f"{'; '.join(engines) or 'n/a'} | "
                         f"{sum(r['tag_checks'] for r in at.values())} |")
    return lines


def tag_verdicts(idx):
    """Per size: did 4 QPs with the domain flush beat one QP, and the
    program's own wait for the completions?"""
    out = []
    for size in sorted(idx, reverse=True):
        at = idx[size]
        if 'domain' not in at:
            continue
        parts = []
        for base, name in (('one', 'one QP'), ('wait', 'waiting for the completions')):
            x = base in at and paired_ratio(at['domain'], at[base], 'records_per_s')
            if not x:
                continue
            med, lo, hi, n = x
            verdict = 'faster than' if lo > 1 else 'slower than' if hi < 1 else \
                'not clearly apart from'
            parts.append(f'{verdict} {name} ({fmt_ratio(x)})')
        if parts:
            out.append(f'- {size_name(size)} records: 4 QPs with the domain flush are '
                       + ' and '.join(parts) + '.')
    return out


def tag_report(runs, header):
    idx = tag_index(runs)
    if not idx:
        raise ReportError('no records-then-tag runs')
    modes = tag_modes_of(idx)
    reps = len({r['rep'] for r in runs})
    r0 = runs[0]
    lines = [header, '',
             f"Rounds of {r0['records_per_round']} records "
             f"({' and '.join(size_name(s) for s in sorted(idx, reverse=True))} each) "
             'written with RDMA WRITE into a region on the other device, then an 8-byte '
             "tag (the round's number) after them; at most "
             f"{r0['outstanding_rounds']} rounds outstanding (round k + 1 posted once "
             "round k - 1's tag completed); the last record of each QP in a round and "
             f"the tag signalled; path MTU {r0['path_mtu']}{netdev_mtu(r0)}, no "
             f"coalescing. {r0['window_s']:.0f} s windows, {reps} "
             f"repetition{'s' if reps > 1 else ''}; medians. Each time the tag moved "
             "the writer found its round's records in place, and every run's last "
             'rounds landed whole (else it fails). Modes:', '']
    lines += [f'- `{m}`: {TAG_ABOUT.get(m, m)}' for m in modes]
    lines += ['', '### Records a second', '',
              'Records a second (rounds a second in brackets).', '']
    lines += tag_rate_table(idx, modes)
    lines += ['', '### Ratios', '',
              "Records a second of one mode over another's at the same record size: the "
              "median of each repetition's own ratio (range in brackets).", '']
    lines += tag_ratio_table(idx)
    lines += ['', '### Packets, the wait, the engines', '',
              'Packets: every packet both devices sent (requests and ACKs) / the '
              "requester's own, per record completed in the window. The tag's wait: its "
              "QP's `domain_wait_us` over its `domain_flushes` (the median of the "
              "repetitions). Engines: each QP's `engine` at the window's end, one list a "
              'repetition where they differ.', '']
    lines += tag_detail_table(idx, modes)
    verdicts = tag_verdicts(idx)
    if verdicts:
        lines += ['', '### Verdict', ''] + verdicts
    return '\n'.join(lines) + '\n'


def tag_plot(runs, path):
    plt = pyplot()
    idx = tag_index(runs)
    modes = tag_modes_of(idx)
    colour = {m: f'C{i}' for i, m in enumerate(modes)}
    sizes = sorted(idx, reverse=True)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    width = 0.8 / max(len(modes), 1)
    for i, m in enumerate(modes):
        xs = [j - 0.4 + (i + 0.5) * width for j in range(len(sizes))]
        ys = [median_of(idx[s][m], lambda r: r['records_per_s']) if m in idx[s] else 0
              for s in sizes]
        ax1.bar(xs, ys, width, label=m, color=colour[m])
    flagged = [m for m in modes if any(median_of(idx[s][m], tag_wait_us) is not None
                                       for s in sizes if m in idx[s])]
    width2 = 0.8 / max(len(flagged), 1)
    for i, m in enumerate(flagged):
        xs = [j - 0.4 + (i + 0.5) * width2 for j in range(len(sizes))]
        ys = [(median_of(idx[s][m], tag_wait_us) or 0) if m in idx[s] else 0 for s in sizes]
        ax2.bar(xs, ys, width2, label=m, color=colour[m])
    for ax in (ax1, ax2):
        ax.set_xticks(range(len(sizes)))
        ax.set_xticklabels([f'{size_name(s)} records' for s in sizes], fontsize='small')
        ax.legend(fontsize='x-small')
    ax1.set_ylabel('records/s')
    ax2.set_ylabel("the tag's wait for its domain, us a round")
    fig.tight_layout()
    fig.savefig(path, dpi=100)

def load(path):
    """The JSON lines of path, or None where the sweep did not write it."""
    try:
        with open(path) as f:
            return [json.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('out')
    ap.add_argument('--docs')
    ap.add_argument('--header', default='')
    args = ap.parse_args()
    runs, tag_runs = load(f'{args.out}/coalesce.json'), load(f'{args.out}/tag.json')
    if runs is None and tag_runs is None:
        sys.exit(f'coalesce_report: neither coalesce.json nor tag.json in {args.out}')
    try:
        md = runs is not None and report(runs, args.header)
        tag_md = tag_runs is not None and tag_report(tag_runs, args.header)
    except ReportError as e:
        sys.exit(f'coalesce_report: {e}')
    if md:
        if pyplot():
            plot(runs, f'{args.out}/coalesce-append.png')
        with open(f'{args.out}/coalesce.md', 'w') as f:
            f.write(md)
        print(md)
    if tag_md:
        if pyplot():
            tag_plot(tag_runs, f'{args.out}/coalesce-tag.png')
        with open(f'{args.out}/tag.md', 'w') as f:
            f.write(tag_md)
        print(tag_md)
    if args.docs and md:
        update_docs(args.docs, 'coalescing.md', 'coalesce', md,
                    [('coalesce-append.png', 'append workload: rate against stock, '
                      'packets per message')], args.out)
    if args.docs and tag_md:
        update_docs(args.docs, 'flush-domains.md', 'tag', tag_md,
                    [('coalesce-tag.png', 'records then a tag: records a second, '
                      "the tag's wait for its flush domain")], args.out)


if __name__ == '__main__':
    main()
