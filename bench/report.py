#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Turn a benchmark's raw.json into table.md (medians, spreads, ratios
against stock) and PNG plots; optionally into docs/bench/matrix.md. With
--sweep, a sweep's runs at several guest CPU counts into sweep.md instead:
their ratios side by side.

A point counts only if every repetition of it succeeded with all its
figures; a ratio needs such a point on both sides. A mode the matrix did not
measure a point in (raw.json's points say which) shows '-' there. Exits 1 if
any point is incomplete, after writing what it can.
"""
import argparse
import json
import os
import statistics
import sys

from bench_docs import need_plots, pyplot

BEGIN, END = '<!-- bench:begin -->', '<!-- bench:end -->'
# The headline figure of each kind and whether more is better.
HEADLINE = {'lat': ('t_typical_us', 'us', False),
            'bw': ('msg_rate_Mpps', 'Mpps', True)}
EXTRA = {'bw': ('bw_avg_MBps', 'MB/s', True)}
CPU_FIELDS = ('cpu_us_per_msg', 'kernel_cpu_us_per_msg')
# Points are of a family: perftest's programs (runs without 'family'),
# 'ucx' (ucx_perftest) or 'mpi' (the MPI ping-pong). ucx_perftest's runs
# have no CPU time: it prints nothing between starting UCP (seconds of CPU)
# and its timed phase.
NO_CPU = ('ucx',)
# What a point's test is, in the report.
TEST_TITLES = {'ucx_am_lat': 'UCX ucp_am_lat', 'ucx_tag_lat': 'UCX tag_lat',
               'ucx_tag_bw': 'UCX tag_bw', 'mpi_pingpong': 'MPI ping-pong'}


def key(run):
    return (run['test'], run['size'], run['qps'])


def label(k):
    test, size, qps = k
    return f'{TEST_TITLES.get(test, test)} {size} B' + (f' x{qps} QPs' if qps > 1 else '')


def family_of(run):
    return run.get('family', 'perftest')


class Results:
    def __init__(self, raw):
        self.raw = raw
        self.modes = [m['name'] for m in raw['modes']]
        self.points = []
        self.kind = {}
        self.family = {}
        self.runs = {}
        # The modes each point was to be measured in; without the list
        # (older raw.json), every mode.
        self.planned = {key(p): p.get('modes', self.modes) for p in raw.get('points', [])}
        for r in raw['runs']:
            k = key(r)
            if k not in self.kind:
                self.points.append(k)
                self.kind[k] = r['kind']
                self.family[k] = family_of(r)
            self.runs.setdefault((r['mode'], k), []).append(r)
        # A planned point none of whose runs came back still counts.
        for p in raw.get('points', []):
            k = key(p)
            if k not in self.kind:
                self.points.append(k)
                self.kind[k] = p['kind']
                self.family[k] = family_of(p)
        self.problems = []
        for mode in self.modes:
            for k in self.points:
                if self.measures(mode, k):
                    self.check(mode, k)

    def measures(self, mode, k):
        """Whether the matrix measured point k in mode."""
        return mode in self.planned.get(k, self.modes)

    def modes_of(self, points):
        """The modes that measure any of points, in the modes' order."""
        return [m for m in self.modes if any(self.measures(m, k) for k in points)]

    def check(self, mode, k):
        runs = self.runs.get((mode, k), [])
        bad = [r for r in runs if not r['ok']]
        if len(runs) < self.raw['reps']:
            self.problems.append(f'{mode} {label(k)}: {len(runs)} of '
                                 f"{self.raw['reps']} repetitions ran")
        for r in bad:
            self.problems.append(f"{mode} {label(k)} rep {r['rep']}: {r['error']}")
        kind = self.kind[k]
        wanted = [HEADLINE[kind][0]] + ([EXTRA[kind][0]] if kind in EXTRA else [])
        for r in runs:
            if not r['ok']:
                continue
            missing = [f for f in wanted if f not in r.get('figures', {})]
            if self.family[k] not in NO_CPU:
                missing += [f for f in CPU_FIELDS if f not in r]
            if missing:
                self.problems.append(f"{mode} {label(k)} rep {r['rep']}: "
                                     f"missing {', '.join(missing)}")

    def complete(self, mode, k):
        runs = self.runs.get((mode, k), [])
        return (len(runs) >= self.raw['reps'] and all(r['ok'] for r in runs))

    def complete_runs(self, mode, k):
        """The runs of a complete point; [] for an incomplete one."""
        return self.runs[(mode, k)] if self.complete(mode, k) else []

    def values(self, mode, k, field):
        """All repetitions' values of field, or None if the point is not
        complete or a figure is missing."""
        if not self.complete(mode, k):
            return None
        vals = []
        for r in self.runs[(mode, k)]:
            v = r[field] if field in CPU_FIELDS else r['figures'].get(field)
            if v is None:
                return None
            vals.append(v)
        return vals

    def median(self, mode, k, field):
        v = self.values(mode, k, field)
        return statistics.median(v) if v else None


def fmt(x):
    if x is None:
        return 'n/a'
    if x >= 100:
        return f'{x:.0f}'
    if x >= 1:
        return f'{x:.2f}'
    if 0 < x < 0.0001:
        # Message rates of large messages, in Mpps.
        return f'{x:.3g}'
    return f'{x:.4f}'


def cell(res, mode, k, field):
    if not res.measures(mode, k):
        return '-'
    v = res.values(mode, k, field)
    if not v:
        return 'FAILED'
    return f'{fmt(statistics.median(v))} ({fmt(min(v))}-{fmt(max(v))})'


def paired(res):
    """Whether each repetition ran every mode of a point back to back
    (bench/xrxe-bench --paired)."""
    return res.raw.get('order') == 'paired'


def ratio_number(res, mode, k, field):
    """mode/stock of field at point k: with paired runs the median of the
    repetitions' own ratios (each against the stock run just before it),
    else the median over stock's median. None if a side is incomplete."""
    base, new = res.values('stock', k, field), res.values(mode, k, field)
    if base is None or new is None:
        return None
    if not paired(res):
        base = statistics.median(base)
        return statistics.median(new) / base if base else None
    stock = {r['rep']: v for r, v in zip(res.complete_runs('stock', k), base)}
    ratios = [v / stock[r['rep']] for r, v in zip(res.complete_runs(mode, k), new)
              if stock.get(r['rep'])]
    return statistics.median(ratios) if ratios else None


def ratio(res, mode, k, field):
    if not res.measures(mode, k) or not res.measures('stock', k):
        return '-'
    r = ratio_number(res, mode, k, field)
    return 'n/a' if r is None else f'{r:.2f}'


def md_table(out, title, head, rows):
    """Append a markdown section: a title and a table, if it has rows."""
    if not rows:
        return
    out.extend([f'### {title}', '', '| ' + ' | '.join(head) + ' |',
                '|' + '---|' * len(head)])
    out.extend('| ' + ' | '.join(r) + ' |' for r in rows)
    out.append('')


def matrix_text(raw):
    text = f"{raw['matrix']} matrix"
    if raw.get('sizes'):
        text = 'full matrix at ' + ', '.join(f'{s} B' for s in raw['sizes'])
    if raw.get('tests'):
        text += ' (' + ', '.join(raw['tests']) + ' only)'
    if raw.get('chosen_modes'):
        text += ', stock and ' + ', '.join(raw['chosen_modes']) + ' only'
    return text


def by_modes(res, points):
    """Points grouped by the modes that measure them, in order of first
    appearance: [(modes, points)]."""
    groups = []
    for k in points:
        modes = res.modes_of([k])
        for g in groups:
            if g[0] == modes:
                g[1].append(k)
                break
        else:
            groups.append((modes, [k]))
    return groups


def vcpus(raw):
    return raw.get('vcpus', raw['cpus'])


def cpus_text(raw):
    """The guest's vCPUs, and the host's cores where the run recorded them."""
    host = raw.get('host_cores')
    return f'{vcpus(raw)} guest CPUs' + (f' on a host of {host} cores' if host else '')


def oversubscription(raw):
    """The warning for a run on more vCPUs than the host has cores, or
    None."""
    host = raw.get('host_cores')
    if not host or vcpus(raw) <= host:
        return None
    return (f'Warning: {vcpus(raw)} vCPUs on a host of {host} cores: the vCPUs take '
            'turns on the cores, so these timings measure the host, not xrxe.')


def ratio_method(res):
    return ('ratios are the median of the repetitions\' own ratios, each run '
            'against the stock run just before it (paired).' if paired(res) else
            'ratios are median over median of stock in the same boot.')


def table(res):
    raw = res.raw
    series = f", series of {raw['series']} patches" if 'series' in raw else ''
    if 'slub_debug' in raw:
        series += ', slub_debug ' + ('on' if raw['slub_debug'] else 'off')
    warning = oversubscription(raw)
    out = ([f'**{warning}**', ''] if warning else []) + [
        f"Kernel {raw['kernel']}{series}, {cpus_text(raw)}, "
        f"{matrix_text(raw)}, {raw['reps']} repetition(s), "
        f"{raw['started']}. Medians (min-max); {ratio_method(res)}", '']
    for m in raw['modes']:
        out.append(f"- **{m['name']}**: {m['about']}")
    out.append('')
    perftest = [k for k in res.points if res.family[k] == 'perftest']
    others = [k for k in res.points if res.family[k] != 'perftest']

    def section(title, points, fields_of):
        """A table per set of modes that measure the points: the first
        under title, the others under title and their modes."""
        groups = by_modes(res, points)
        for i, (modes, pts) in enumerate(groups):
            rest = [m for m in modes if m != 'stock']
            head = ['Point', 'Figure'] + modes + [f'{m}/stock' for m in rest]
            rows = []
            for k in pts:
                for field, unit, better_high in fields_of(k):
                    arrow = 'higher is better' if better_high else 'lower is better'
                    rows.append([label(k), f'{field} [{unit}], {arrow}'] +
                                [cell(res, m, k, field) for m in modes] +
                                [ratio(res, m, k, field) for m in rest])
            name = title if i == 0 or len(groups) == 1 else \
                f"{title}: {', '.join(modes)} only"
            md_table(out, name, head, rows)

    section('Headline: latency and message rate', perftest,
            lambda k: [HEADLINE[res.kind[k]]])
    section('Bandwidth', perftest,
            lambda k: [EXTRA[res.kind[k]]] if res.kind[k] in EXTRA else [])
    section('UCX and MPI over rc_verbs: latency, message rate and bandwidth', others,
            lambda k: [HEADLINE[res.kind[k]]] + ([EXTRA[res.kind[k]]]
                                                if res.kind[k] in EXTRA else []))
    section('Guest CPU time per message (latency: per iteration), both ends, '
            'all CPUs, measured phase',
            [k for k in res.points if res.family[k] not in NO_CPU],
            lambda k: [('cpu_us_per_msg', 'us', False),
                       ('kernel_cpu_us_per_msg', 'us', False)])
    packets(res, out)
    extra_packets(res, out)
    doorbells(res, out)
    ll_commands(res, out)
    placement_tables(res, out)
    if raw['memcpy']:
        out.append('### memcpy reference (same guest)')
        out.append('')
        sizes = sorted({m['size'] for m in raw['memcpy']})
        for s in sizes:
            v = [m['MBps'] for m in raw['memcpy'] if m['size'] == s]
            out.append(f'- {s} B copies: {fmt(statistics.median(v))} MB/s '
                       f'({fmt(min(v))}-{fmt(max(v))})')
        out.append('')
    if raw.get('skipped'):
        out.append('### Not measured here')
        out.append('')
        out.extend(f'- {s}' for s in raw['skipped'])
        out.append('')
    if res.problems:
        out.append('### Failed or missing runs (no ratio made from them)')
        out.append('')
        out.extend(f'- {p}' for p in res.problems)
        out.append('')
    return '\n'.join(out)


def counted(res):
    """The points whose runs record hw counters (UCX's do not)."""
    return [k for k in res.points
            if any('counters' in r for (_, kk), rs in res.runs.items() if kk == k for r in rs)]


def per_try(run, counter):
    """A counter of one perftest try: a run's counters span every try of it
    (a try whose clock calibration failed had sent all its traffic)."""
    return run['counters'][counter] / (1 + run.get('retries', 0))


def modes_with(res, counter, counted=True):
    """The modes that recorded counter in some run, and, if counted, with
    a non-zero value."""
    def has(r):
        c = r.get('counters', {})
        return bool(c.get(counter)) if counted else counter in c
    return [m for m in res.modes
            if any(has(r) for (mm, _), rs in res.runs.items() if mm == m for r in rs)]


def rung_of(counters):
    """Posts that made a system call: bare doorbells and low-latency
    commands (a command is never counted as a doorbell)."""
    return counters.get('xrxe_doorbells', 0) + counters.get('xrxe_ll_posts', 0)


def doorbells(res, out):
    """The share of posts that made no system call, from the xrxe hw
    counters of each complete point: avoided / (rung + avoided), where rung
    counts bare doorbells and low-latency commands, median and spread over
    the repetitions."""
    modes = modes_with(res, 'xrxe_doorbells', counted=False)
    rows = []
    for k in counted(res):
        cells = []
        for m in modes:
            if not res.measures(m, k):
                cells.append('-')
                continue
            runs = res.complete_runs(m, k)
            shares = []
            for r in runs:
                c = r.get('counters', {})
                posts = rung_of(c) + c.get('xrxe_doorbells_avoided', 0)
                if posts:
                    shares.append(100.0 * c['xrxe_doorbells_avoided'] / posts)
            if len(shares) == len(runs) and shares:
                rung = statistics.median(rung_of(r['counters']) / (1 + r.get('retries', 0))
                                         for r in runs)
                cells.append(f'{statistics.median(shares):.0f}% '
                             f'({min(shares):.0f}-{max(shares):.0f}), '
                             f'{rung:.0f} rung')
            else:
                cells.append('n/a')
        rows.append([label(k)] + cells)
    if modes:
        md_table(out, 'Doorbells avoided (xrxe hw counters, both devices, per perftest run; '
                 'rung: bare doorbells and low-latency commands)',
                 ['Point'] + modes, rows)


LL_DROP_REASONS = ('order', 'busy', 'full', 'state', 'forced')


def ll_commands(res, out):
    """Low-latency commands of each complete point, from the xrxe hw
    counters: commands per message, the share the kernel took from the
    command, and the shares it dropped, by reason (medians over the
    repetitions; the rest fell back to the ring)."""
    modes = modes_with(res, 'xrxe_ll_posts')
    rows = []
    for k in counted(res):
        cells = []
        for m in modes:
            if not res.measures(m, k):
                cells.append('-')
                continue
            runs = [r for r in res.complete_runs(m, k)
                    if 'xrxe_ll_posts' in r.get('counters', {}) and r.get('messages')]
            if not runs or len(runs) != len(res.complete_runs(m, k)):
                cells.append('n/a')
                continue
            per_msg = statistics.median(per_try(r, 'xrxe_ll_posts') / r['messages']
                                        for r in runs)
            posted = [r for r in runs if r['counters']['xrxe_ll_posts']]
            if not posted:
                cells.append('0 commands')
                continue

            def share(name):
                return statistics.median(100.0 * r['counters'].get(name, 0) /
                                         r['counters']['xrxe_ll_posts'] for r in posted)
            drops = [(why, share(f'xrxe_ll_dropped_{why}')) for why in LL_DROP_REASONS]
            text = f"{per_msg:.2f}/msg, {share('xrxe_ll_accepted'):.0f}% taken"
            dropped = ', '.join(f'{why} {v:.0f}%' for why, v in drops if v >= 0.5)
            cells.append(text + (f'; dropped: {dropped}' if dropped else ''))
        rows.append([label(k)] + cells)
    if modes:
        md_table(out, 'Low-latency commands (xrxe hw counters, both devices, per '
                 'perftest run): commands per message, share taken from the '
                 'command, shares dropped to the ring by reason',
                 ['Point'] + modes, rows)


def per_message(res, mode, k, counter):
    """The median over a complete point's repetitions of counter per
    message and perftest try; None if the point is incomplete or a run
    lacks the counter."""
    runs = res.complete_runs(mode, k)
    per = [per_try(r, counter) / r['messages'] for r in runs
           if counter in r.get('counters', {}) and r.get('messages')]
    return statistics.median(per) if runs and len(per) == len(runs) else None


def packets(res, out):
    """Packets sent per message by both devices (the sent_pkts hw counter
    over a perftest run, whose connection setup sends none over RoCE):
    requests plus ACKs and read responses."""
    rows = []
    for k in counted(res):
        per = [per_message(res, m, k, 'sent_pkts') for m in res.modes]
        cells = ['-' if not res.measures(m, k) else 'n/a' if p is None else f'{p:.2f}'
                 for m, p in zip(res.modes, per)]
        if any(p is not None for p in per):
            rows.append([label(k)] + cells)
    md_table(out, 'Packets sent per message (hw counters, both devices)',
             ['Point'] + res.modes, rows)


# Events that cost packets beyond a request and its ACK, with the names
# the report gives them.
EXTRA_PACKET_EVENTS = (('send_rnr_err', 'RNR NAKs'), ('duplicate_request', 'duplicates'),
                       ('out_of_seq_request', 'out of sequence'),
                       ('completer_retry_err', 'retries'))


def extra_packets(res, out):
    """Per 1000 messages, the events that cost extra packets: RNR NAKs sent
    by a responder without a receive WQE, duplicate and out-of-sequence
    requests (retransmissions), and the completer's retries; medians over
    the repetitions, events that did not happen left out."""
    rows = []
    for k in counted(res):
        cells = []
        for m in res.modes:
            if not res.measures(m, k):
                cells.append('-')
                continue
            per = [(name, per_message(res, m, k, c)) for c, name in EXTRA_PACKET_EVENTS]
            if any(v is None for _, v in per):
                cells.append('n/a')
                continue
            seen = [f'{name} {1000 * v:.0f}' for name, v in per if 1000 * v >= 0.5]
            cells.append(', '.join(seen) or 'none')
        rows.append([label(k)] + cells)
    if any(c not in ('n/a', 'none', '-') for r in rows for c in r[1:]):
        md_table(out, 'Events that cost extra packets, per 1000 messages (hw counters, '
                 'both devices)', ['Point'] + res.modes, rows)


def per_message_table(res, out, name, title):
    """hw counter name per message, for the modes where it moved."""
    modes = modes_with(res, name)
    rows = []
    for k in counted(res):
        per = [per_message(res, m, k, name) for m in modes]
        rows.append([label(k)] + ['-' if not res.measures(m, k) else 'n/a' if p is None
                                  else f'{p:.2f}' for m, p in zip(modes, per)])
    if modes:
        md_table(out, title, ['Point'] + modes, rows)


def placement_tables(res, out):
    """Received requests handled in the receive softirq (rx_inline), and
    posts whose send work a stream's rule left to an engine or the
    workqueue, per message."""
    per_message_table(res, out, 'xrxe_rx_inline_requests',
                      'Received requests handled in the receive softirq per message '
                      '(rx_inline; hw counters, both devices)')
    per_message_table(res, out, 'xrxe_posts_deferred',
                      "Posts left to an engine or the workqueue per message (a stream's "
                      'posts; hw counters, both devices)')


def ratio_value(res, mode, k):
    """The headline figure's ratio mode/stock at point k (ratio_number),
    or None."""
    if not res.measures(mode, k) or not res.measures('stock', k):
        return None
    return ratio_number(res, mode, k, HEADLINE[res.kind[k]][0])


# The mode a user gets without setting anything, which the summary
# compares with stock.
DEFAULTS = 'xrxe-ll'
# Bandwidth points up to this size are read as a message rate.
MSG_RATE_MAX = 1024


def summary(res, table_path):
    """A few plain sentences under the table: xrxe with its defaults
    against stock rxe, one line each for latency, message rate and
    bandwidth, and where the full table is."""
    if DEFAULTS not in res.modes or 'stock' not in res.modes:
        return ''
    groups = (('Latency', "of stock's time", 'faster', 'slower',
               lambda k: res.kind[k] == 'lat'),
              ('Message rate', "of stock's messages per second", 'higher', 'lower',
               lambda k: res.kind[k] == 'bw' and k[1] <= MSG_RATE_MAX),
              ('Bandwidth', "of stock's bytes per second", 'higher', 'lower',
               lambda k: res.kind[k] == 'bw' and k[1] > MSG_RATE_MAX))
    lines = [f'In short: xrxe with its defaults ({DEFAULTS}) against stock rxe, '
             f"from the same boot, median of {res.raw['reps']} repetition(s):"]
    for title, of, good, bad, member in groups:
        pts = [(k, ratio_value(res, DEFAULTS, k)) for k in res.points if member(k)]
        pts = [(k, r) for k, r in pts if r is not None]
        if not pts:
            continue
        better = [k for k, r in pts if (r < 1) == (res.kind[k] == 'lat') and r != 1]
        verdict = (f'{good} at every point' if len(better) == len(pts) else
                   f'{bad} at every point' if not better else
                   f'{good} at {len(better)} of {len(pts)} points')
        if len(pts) <= 3:
            figures = ', '.join(f'{r:.2f}x ({label(k)})' for k, r in pts)
        else:
            rs = sorted(r for _, r in pts)
            worst = max(pts, key=lambda p: p[1] if res.kind[p[0]] == 'lat' else -p[1])
            figures = (f'{rs[0]:.2f}x to {rs[-1]:.2f}x, median {statistics.median(rs):.2f}x '
                       f'over {len(pts)} points (weakest: {label(worst[0])} {worst[1]:.2f}x)')
        lines.append(f'- {title}: {figures} {of}: {verdict}.')
    lines.append(f'The full table: {table_path}; every size, with plots: '
                 'docs/bench/matrix.md; what each mode is: docs/benchmarks.md.')
    return '\n'.join(lines)


def plots(res, outdir):
    plt = pyplot()
    if plt is None:
        return []

    def series(test, qps, field):
        """Per mode: sizes and medians with min/max error bars."""
        for mode in res.modes:
            xs, ys, lo, hi = [], [], [], []
            for k in res.points:
                if k[0] != test or k[2] != qps:
                    continue
                v = res.values(mode, k, field)
                if not v:
                    continue
                med = statistics.median(v)
                xs.append(k[1])
                ys.append(med)
                lo.append(med - min(v))
                hi.append(max(v) - med)
            if xs:
                yield mode, xs, ys, [lo, hi]

    files = []
    colours = plt.get_cmap('tab10')

    def style(mode, qps=1):
        """One colour per mode, a dashed line for several QPs."""
        return {'color': colours(res.modes.index(mode) % 10),
                'linestyle': '-' if qps == 1 else '--'}

    def save(fig, name, drawn):
        fig.tight_layout()
        if drawn:
            fig.savefig(os.path.join(outdir, name), dpi=90)
            files.append(name)
        plt.close(fig)

    def axes_for(n):
        cols = 2 if n == 4 else min(n, 3)
        rows = (n + cols - 1) // cols
        fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 4 * rows), squeeze=False)
        flat = [ax for row in axes for ax in row]
        for ax in flat[n:]:
            ax.set_visible(False)
        return fig, flat

    def spread_wide(ys):
        ys = [y for y in ys if y > 0]
        return ys and max(ys) > 20 * min(ys)

    def grid(name, tests, ylabel, qps_list, ref=None):
        """Headline-or-named figure against size, a panel per test."""
        fig, axes = axes_for(len(tests))
        drawn = False
        for ax, (test, field) in zip(axes, tests):
            every = []
            for qps in qps_list:
                for mode, xs, ys, err in series(test, qps, field):
                    tag = mode + (f' x{qps}' if len(qps_list) > 1 else '')
                    ax.errorbar(xs, ys, yerr=err, marker='o', capsize=3, label=tag,
                                **style(mode, qps))
                    every += ys
                    drawn = True
            if ref:
                ax.axhline(ref[1], color='grey', linestyle='--', label=ref[0])
            ax.set_xscale('log', base=2)
            if spread_wide(every):
                ax.set_yscale('log')
            ax.set_title(TEST_TITLES.get(test, test))
            ax.set_xlabel('message size [B]')
            ax.set_ylabel(ylabel if isinstance(ylabel, str) else ylabel(test))
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize='small')
        save(fig, name, drawn)

    def present(tests):
        return [t for t in tests if any(k[0] == t for k in res.points)]

    lat_tests = present(('ib_write_lat', 'ib_send_lat', 'ib_read_lat'))
    bw_tests = present(('ib_write_bw', 'ib_send_bw'))
    qps_all = sorted({k[2] for k in res.points if res.kind[k] == 'bw'})
    memcpy = [m['MBps'] for m in res.raw['memcpy'] if m['size'] == 65536]
    if lat_tests:
        grid('latency-by-size.png', [(t, 't_typical_us') for t in lat_tests],
             'typical latency [us]', [1])
    if bw_tests:
        # Message rate against QPs, one line per mode and size, for the
        # sizes where message rate is the figure that matters.
        fig, axes = plt.subplots(1, len(bw_tests), figsize=(5 * len(bw_tests), 4),
                                 squeeze=False)
        drawn = False
        for ax, test in zip(axes[0], bw_tests):
            for size in sorted({k[1] for k in res.points if k[0] == test and k[1] <= 4096}):
                for mode in res.modes:
                    pts = [(k[2], res.values(mode, k, 'msg_rate_Mpps'))
                           for k in res.points if k[0] == test and k[1] == size]
                    pts = [(q, v) for q, v in pts if v]
                    if not pts:
                        continue
                    xs = [q for q, _ in pts]
                    ys = [statistics.median(v) * 1000 for _, v in pts]
                    err = [[(statistics.median(v) - min(v)) * 1000 for _, v in pts],
                           [(max(v) - statistics.median(v)) * 1000 for _, v in pts]]
                    ax.errorbar(xs, ys, yerr=err, marker='o', capsize=3,
                                label=f'{mode} {size} B')
                    drawn = True
            ax.set_title(test)
            ax.set_xlabel('QPs')
            ax.set_xticks(qps_all)
            ax.set_ylabel('message rate [Kmsg/s]')
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize='small')
        save(fig, 'msgrate-by-qps.png', drawn)
        grid('bandwidth-by-size.png', [(t, 'bw_avg_MBps') for t in bw_tests],
             'bandwidth [MB/s]', qps_all,
             ('memcpy 64 KiB', statistics.median(memcpy)) if memcpy else None)
    others = present(('ucx_am_lat', 'ucx_tag_lat', 'ucx_tag_bw', 'mpi_pingpong'))
    if others:
        grid('ucx-mpi-by-size.png', [(t, 'bw_avg_MBps' if t.endswith('_bw') else
                                      't_typical_us') for t in others],
             lambda t: 'bandwidth [MB/s]' if t.endswith('_bw') else 'typical latency [us]',
             [1])
    # Every test's headline ratio against stock by size.
    tests = lat_tests + bw_tests + others
    if tests and 'stock' in res.modes:
        fig, axes = axes_for(len(tests))
        drawn = False
        for ax, test in zip(axes, tests):
            kind = res.kind[next(k for k in res.points if k[0] == test)]
            qps_list = sorted({k[2] for k in res.points if k[0] == test})
            for mode in res.modes:
                if mode == 'stock':
                    continue
                for qps in qps_list:
                    pts = [(k[1], ratio_value(res, mode, k)) for k in res.points
                           if k[0] == test and k[2] == qps]
                    pts = [(x, y) for x, y in pts if y]
                    if not pts:
                        continue
                    ax.plot([x for x, _ in pts], [y for _, y in pts], marker='o',
                            label=mode + (f' x{qps}' if len(qps_list) > 1 else ''),
                            **style(mode, qps))
                    drawn = True
            ax.axhline(1, color='grey', linestyle=':')
            ax.set_xscale('log', base=2)
            ax.set_ylim(bottom=0)
            better = 'higher' if HEADLINE[kind][2] else 'lower'
            ax.set_title(f'{TEST_TITLES.get(test, test)} ({better} is better)')
            ax.set_xlabel('message size [B]')
            ax.set_ylabel(f'{HEADLINE[kind][0]}: mode / stock')
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize='small')
        save(fig, 'ratio-by-size.png', drawn)
    return files


def sweep_table(runs, missing=()):
    """sweep.md: each point's headline ratio mode/stock at each guest CPU
    count side by side. runs: [(directory name, Results)], one a count, in
    the sweep's order; missing: the directories that hold no results."""
    first = runs[0][1]
    hosts = sorted({res.raw.get('host_cores') for _, res in runs} - {None})
    out = [f'**{w}**' for w in map(oversubscription, (res.raw for _, res in runs)) if w]
    out += [''] if out else []
    out += [f"The ratio mode/stock of each point's headline figure (latency: "
            f"{HEADLINE['lat'][0]}, below 1 is better; message rate: {HEADLINE['bw'][0]}, "
            f"above 1 is better) at each guest CPU count, a boot a count"
            f"{', on a host of ' + ' or '.join(map(str, hosts)) + ' cores' if hosts else ''}: "
            f"{matrix_text(first.raw)}, {first.raw['reps']} repetition(s); "
            f"{ratio_method(first)} Each count's figures: its directory's table.md; "
            "'n/a': a side incomplete there, '-': not measured there.", '']
    out += [f'- No results: {d}' for d in missing]
    out += [''] if missing else []
    points, modes = [], []
    for _, res in runs:
        points += [k for k in res.points if k not in points]
        modes += [m for m in res.modes if m != 'stock' and m not in modes]

    def cell(res, mode, k):
        if k not in res.kind:
            return '-'
        return ratio(res, mode, k, HEADLINE[res.kind[k]][0])

    rows = []
    for k in points:
        for mode in modes:
            cells = [cell(res, mode, k) for _, res in runs]
            if any(c != '-' for c in cells):
                rows.append([label(k), f'{mode}/stock'] + cells)
    md_table(out, 'Ratios by guest CPUs', ['Point', 'Ratio'] +
             [f'{vcpus(res.raw)} vCPUs ({d})' for d, res in runs], rows)
    return '\n'.join(out)


def sweep(outdir, dirs):
    """Write OUTDIR/sweep.md from the runs in dirs; 1 if none has results."""
    runs, missing = [], []
    for d in dirs:
        path = os.path.join(d, 'raw.json')
        if not os.path.exists(path):
            missing.append(os.path.basename(os.path.normpath(d)))
            continue
        with open(path) as f:
            runs.append((os.path.basename(os.path.normpath(d)), Results(json.load(f))))
    if not runs:
        print(f'report: no raw.json in {", ".join(dirs)}: no sweep.md', file=sys.stderr)
        return 1
    text = sweep_table(runs, missing)
    with open(os.path.join(outdir, 'sweep.md'), 'w') as f:
        f.write(text + '\n')
    print(text)
    return 0


def write_docs(docs, outdir, text, files):
    """Put text and the plots between the bench:begin and bench:end marks
    of DOCS/bench/matrix.md, the plots beside it."""
    path = os.path.join(docs, 'bench', 'matrix.md')
    need_plots(path)
    with open(path) as f:
        doc = f.read()
    if BEGIN not in doc or END not in doc:
        raise SystemExit(f'report: {path} lacks the {BEGIN} ... {END} markers')
    imgdir = os.path.join(docs, 'bench')
    os.makedirs(imgdir, exist_ok=True)
    for name in files:
        with open(os.path.join(outdir, name), 'rb') as src, \
                open(os.path.join(imgdir, name), 'wb') as dst:
            dst.write(src.read())
    images = '\n'.join(f'![{n[:-4]}]({n})' for n in files)
    head, rest = doc.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    with open(path, 'w') as f:
        f.write(f'{head}{BEGIN}\n{text}\n{images}\n{END}{tail}')


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('dir')
    ap.add_argument('--docs', help='docs directory: write the tables and plots into '
                    'its bench/matrix.md')
    ap.add_argument('--brief', action='store_true',
                    help='print only the short summary and where the table is '
                    '(table.md is written either way)')
    ap.add_argument('--sweep', nargs='+', metavar='RUN_DIR',
                    help="write DIR/sweep.md from these runs' raw.json (one a guest CPU "
                    'count) instead')
    a = ap.parse_args()
    if a.sweep:
        if a.docs:
            ap.error('--docs records one run, not a sweep')
        return sweep(a.dir, a.sweep)
    with open(os.path.join(a.dir, 'raw.json')) as f:
        res = Results(json.load(f))
    text = table(res)
    with open(os.path.join(a.dir, 'table.md'), 'w') as f:
        f.write(text + '\n')
    files = plots(res, a.dir)
    short = summary(res, os.path.join(a.dir, 'table.md'))
    if not a.brief:
        print(text)
    if short:
        print(('' if a.brief else '\n') + short)
    elif a.brief:
        print(f"The table: {os.path.join(a.dir, 'table.md')}")
    if res.problems:
        print(f'report: {len(res.problems)} problem(s); incomplete points have '
              'no ratio', file=sys.stderr)
        return 1
    if a.docs:
        write_docs(a.docs, a.dir, text, files)
    return 0


if __name__ == '__main__':
    sys.exit(main())
