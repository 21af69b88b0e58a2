#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Turn a benchmark's raw.json into table.md (medians, spreads, ratios
against stock) and PNG plots; optionally into docs/benchmarks.md.

A point counts only if every repetition of it succeeded with all its
figures; a ratio needs such a point on both sides. Exits 1 if any point is
incomplete, after writing what it can.
"""
import argparse
import json
import os
import statistics
import sys

BEGIN, END = '<!-- bench:begin -->', '<!-- bench:end -->'
# The headline figure of each kind and whether more is better.
HEADLINE = {'lat': ('t_typical_us', 'us', False),
            'bw': ('msg_rate_Mpps', 'Mpps', True)}
EXTRA = {'bw': ('bw_avg_MBps', 'MB/s', True)}
CPU_FIELDS = ('cpu_us_per_msg', 'kernel_cpu_us_per_msg')


def key(run):
    return (run['test'], run['size'], run['qps'])


def label(k):
    test, size, qps = k
    return f'{test} {size} B' + (f' x{qps} QPs' if qps > 1 else '')


class Results:
    def __init__(self, raw):
        self.raw = raw
        self.modes = [m['name'] for m in raw['modes']]
        self.points = []
        self.kind = {}
        self.runs = {}
        for r in raw['runs']:
            k = key(r)
            if k not in self.kind:
                self.points.append(k)
                self.kind[k] = r['kind']
            self.runs.setdefault((r['mode'], k), []).append(r)
        self.problems = []
        for mode in self.modes:
            for k in self.points:
                self.check(mode, k)

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
    return f'{x:.4f}'


def cell(res, mode, k, field):
    v = res.values(mode, k, field)
    if not v:
        return 'FAILED'
    return f'{fmt(statistics.median(v))} ({fmt(min(v))}-{fmt(max(v))})'


def ratio(res, mode, k, field):
    base, new = res.median('stock', k, field), res.median(mode, k, field)
    if base is None or new is None or base == 0:
        return 'n/a'
    return f'{new / base:.2f}'


def md_table(out, title, head, rows):
    """Append a markdown section: a title and a table, if it has rows."""
    if not rows:
        return
    out.extend([f'### {title}', '', '| ' + ' | '.join(head) + ' |',
                '|' + '---|' * len(head)])
    out.extend('| ' + ' | '.join(r) + ' |' for r in rows)
    out.append('')


def table(res):
    others = [m for m in res.modes if m != 'stock']
    raw = res.raw
    series = f", series of {raw['series']} patches" if 'series' in raw else ''
    if 'slub_debug' in raw:
        series += ', slub_debug ' + ('on' if raw['slub_debug'] else 'off')
    out = [f"Kernel {raw['kernel']}{series}, {raw['cpus']} guest CPUs, "
           f"{raw['matrix']} matrix, {raw['reps']} repetition(s), "
           f"{raw['started']}. Medians (min-max); ratios are median over "
           'median of stock in the same boot.', '']
    for m in raw['modes']:
        out.append(f"- **{m['name']}**: {m['about']}")
    out.append('')

    def section(title, fields_of):
        head = ['Point', 'Figure'] + res.modes + [f'{m}/stock' for m in others]
        rows = []
        for k in res.points:
            for field, unit, better_high in fields_of(res.kind[k]):
                arrow = 'higher is better' if better_high else 'lower is better'
                rows.append([label(k), f'{field} [{unit}], {arrow}'] +
                            [cell(res, m, k, field) for m in res.modes] +
                            [ratio(res, m, k, field) for m in others])
        md_table(out, title, head, rows)

    section('Headline: latency and message rate',
            lambda kind: [HEADLINE[kind]])
    section('Bandwidth', lambda kind: [EXTRA[kind]] if kind in EXTRA else [])
    section('Guest CPU time per message (latency: per iteration), both ends, '
            'all CPUs, measured phase',
            lambda kind: [('cpu_us_per_msg', 'us', False),
                          ('kernel_cpu_us_per_msg', 'us', False)])
    packets(res, out)
    extra_packets(res, out)
    doorbells(res, out)
    ll_commands(res, out)
    rx_inline(res, out)
    if raw['memcpy']:
        out.append('### memcpy reference (same guest)')
        out.append('')
        sizes = sorted({m['size'] for m in raw['memcpy']})
        for s in sizes:
            v = [m['MBps'] for m in raw['memcpy'] if m['size'] == s]
            out.append(f'- {s} B copies: {fmt(statistics.median(v))} MB/s '
                       f'({fmt(min(v))}-{fmt(max(v))})')
        out.append('')
    if res.problems:
        out.append('### Failed or missing runs (no ratio made from them)')
        out.append('')
        out.extend(f'- {p}' for p in res.problems)
        out.append('')
    return '\n'.join(out)


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
    for k in res.points:
        cells = []
        for m in modes:
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
    for k in res.points:
        cells = []
        for m in modes:
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
    for k in res.points:
        per = [per_message(res, m, k, 'sent_pkts') for m in res.modes]
        cells = ['n/a' if p is None else f'{p:.2f}' for p in per]
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
    for k in res.points:
        cells = []
        for m in res.modes:
            per = [(name, per_message(res, m, k, c)) for c, name in EXTRA_PACKET_EVENTS]
            if any(v is None for _, v in per):
                cells.append('n/a')
                continue
            seen = [f'{name} {1000 * v:.0f}' for name, v in per if 1000 * v >= 0.5]
            cells.append(', '.join(seen) or 'none')
        rows.append([label(k)] + cells)
    if any(c not in ('n/a', 'none') for r in rows for c in r[1:]):
        md_table(out, 'Events that cost extra packets, per 1000 messages (hw counters, '
                 'both devices)', ['Point'] + res.modes, rows)


def rx_inline(res, out):
    """Received requests handled in the receive softirq (rx_inline) per
    message, for the modes where any was."""
    name = 'xrxe_rx_inline_requests'
    modes = modes_with(res, name)
    rows = []
    for k in res.points:
        per = [per_message(res, m, k, name) for m in modes]
        rows.append([label(k)] + ['n/a' if p is None else f'{p:.2f}' for p in per])
    if modes:
        md_table(out, 'Received requests handled in the receive softirq per message '
                 '(rx_inline; hw counters, both devices)', ['Point'] + modes, rows)


def plots(res, outdir):
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    def series(test, qps, field, sizes=None):
        """Per mode: x values and medians with min/max error bars."""
        for mode in res.modes:
            xs, ys, lo, hi = [], [], [], []
            for k in res.points:
                if k[0] != test or (qps is not None and k[2] != qps):
                    continue
                v = res.values(mode, k, field)
                if not v:
                    continue
                med = statistics.median(v)
                xs.append(k[1] if qps is not None else k[2])
                ys.append(med)
                lo.append(med - min(v))
                hi.append(max(v) - med)
            if xs:
                yield mode, xs, ys, [lo, hi]

    files = []

    def grid(name, tests, field, ylabel, xlabel, qps_list, logx, ref=None):
        fig, axes = plt.subplots(1, len(tests), figsize=(5 * len(tests), 4),
                                 squeeze=False)
        drawn = False
        for ax, test in zip(axes[0], tests):
            for qps in qps_list:
                for mode, xs, ys, err in series(test, qps, field):
                    tag = mode + (f' x{qps}' if qps and len(qps_list) > 1 else '')
                    ax.errorbar(xs, ys, yerr=err, marker='o', capsize=3, label=tag)
                    drawn = True
            if ref:
                ax.axhline(ref[1], color='grey', linestyle='--', label=ref[0])
            if logx:
                ax.set_xscale('log', base=2)
            ax.set_title(test)
            ax.set_xlabel(xlabel)
            ax.set_ylabel(ylabel)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize='small')
        fig.tight_layout()
        if drawn:
            path = os.path.join(outdir, name)
            fig.savefig(path, dpi=90)
            files.append(name)
        plt.close(fig)

    lat_tests = [t for t in ('ib_write_lat', 'ib_send_lat', 'ib_read_lat')
                 if any(k[0] == t for k in res.points)]
    bw_tests = [t for t in ('ib_write_bw', 'ib_send_bw')
                if any(k[0] == t for k in res.points)]
    qps_all = sorted({k[2] for k in res.points if res.kind[k] == 'bw'})
    memcpy = [m['MBps'] for m in res.raw['memcpy'] if m['size'] == 65536]
    if lat_tests:
        grid('latency-by-size.png', lat_tests, 't_typical_us',
             'typical latency [us]', 'message size [B]', [1], True)
    if bw_tests:
        # Message rate against QPs, one line per mode and size.
        fig, axes = plt.subplots(1, len(bw_tests), figsize=(5 * len(bw_tests), 4),
                                 squeeze=False)
        drawn = False
        for ax, test in zip(axes[0], bw_tests):
            for size in sorted({k[1] for k in res.points if k[0] == test}):
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
        fig.tight_layout()
        if drawn:
            fig.savefig(os.path.join(outdir, 'msgrate-by-qps.png'), dpi=90)
            files.append('msgrate-by-qps.png')
        plt.close(fig)
        grid('bandwidth-by-size.png', bw_tests, 'bw_avg_MBps', 'bandwidth [MB/s]',
             'message size [B]', qps_all, True,
             ('memcpy 64 KiB', statistics.median(memcpy)) if memcpy else None)
    return files


def write_docs(docs, outdir, text, files):
    path = os.path.join(docs, 'benchmarks.md')
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
    images = '\n'.join(f'![{n[:-4]}](bench/{n})' for n in files)
    head, rest = doc.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    with open(path, 'w') as f:
        f.write(f'{head}{BEGIN}\n{text}\n{images}\n{END}{tail}')


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('dir')
    ap.add_argument('--docs', help='docs directory to write benchmarks.md into')
    a = ap.parse_args()
    with open(os.path.join(a.dir, 'raw.json')) as f:
        res = Results(json.load(f))
    text = table(res)
    with open(os.path.join(a.dir, 'table.md'), 'w') as f:
        f.write(text + '\n')
    files = plots(res, a.dir)
    print(text)
    if res.problems:
        print(f'report: {len(res.problems)} problem(s); incomplete points have '
              'no ratio', file=sys.stderr)
        return 1
    if a.docs:
        write_docs(a.docs, a.dir, text, files)
    return 0


if __name__ == '__main__':
    sys.exit(main())
