#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The report of bench/xrxe-bench, one for every workload: what the
workload's guest runner left in DIR into tables (markdown), PNG plots and,
with --docs DOCS, the workload's page of DOCS:

  perftest  raw.json into table.md and its plots; DOCS/bench/matrix.md (the
            plots beside it). With --sweep, a sweep's runs at several
            guest CPU counts into sweep.md instead: their ratios side by
            side.
  pace      pace.json (and pace-series.txt) into pace.md, pace-accuracy.png
            and pace-series.png; DOCS/bench/pace.md
  ocu       ocu.json into ocu.md, ocu-balance.png, ocu-isolation.png and
            ocu-throughput.png; DOCS/bench/ocu.md
  coalesce  coalesce.json (the append workload) into coalesce.md and
            coalesce-append.png, tag.json (records then a tag) into tag.md
            and coalesce-tag.png, each where the sweep ran it;
            DOCS/bench/coalesce.md (both)

A page's tables go between its <!-- TAG:begin --> and <!-- TAG:end -->
marks, its plots into DOCS/bench/. Plots need matplotlib: without it the
tables are written all the same, and --docs refuses (the page's tables
would lose their plots). How each workload's figures are made, and when
its report fails (exit 1), its section of bench/report.py says.
"""
import argparse
import functools
import json
import math
import os
import re
import shutil
import statistics
import sys

# ---- What every workload's report shares ----


@functools.cache
def pyplot():
    """matplotlib.pyplot drawing into files; None where matplotlib cannot be
    imported, said once on stderr: the tables and the JSON need no plots."""
    try:
        import matplotlib
    except ImportError as e:
        print(f'{os.path.basename(sys.argv[0])}: no plots: matplotlib cannot be imported '
              f'({e})', file=sys.stderr)
        return None
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    return plt


def save_figure(fig, path, dpi=100):
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    pyplot().close(fig)


def draw(out, png, alt, plot, data):
    """plot(plt, data)'s figure into OUT/png, where matplotlib can be
    imported and there is data: [(png, alt)] if drawn, else []."""
    plt = pyplot()
    if plt is None or not data:
        return []
    save_figure(plot(plt, data), os.path.join(out, png))
    return [(png, alt)]


def read_json(path, lines=True):
    """path's JSON lines (lines) or its one JSON document; None where the
    run did not write it."""
    try:
        with open(path) as f:
            return [json.loads(line) for line in f if line.strip()] if lines else json.load(f)
    except FileNotFoundError:
        return None


def load(out, *names, lines=True):
    """read_json() of each of names in OUT; exits where there is none of
    them: the run measured nothing to report."""
    found = [read_json(os.path.join(out, n), lines) for n in names]
    if all(f is None for f in found):
        sys.exit(f"report: {'neither' if len(names) > 1 else 'no'} {' nor '.join(names)} in {out}")
    return found


def spread(vals):
    """The median of vals, their min, max and count, Nones left out; None
    without any."""
    vals = [v for v in vals if v is not None]
    return (statistics.median(vals), min(vals), max(vals), len(vals)) if vals else None


def median(vals):
    m = spread(vals)
    return m and m[0]


def paired(pairs):
    """spread() of each repetition's own ratio other / base, from its
    (base, other) figures: the runs of one repetition are close in time,
    so the host's speed, which drifts between repetitions, divides out. A
    repetition without both figures makes no ratio."""
    return spread([other / base for base, other in pairs if base and other is not None])


def paired_ratio(by_rep, base_by_rep, field='msgs_per_s'):
    """paired() of field of runs {rep: run} against base's of the same
    repetition; None without a repetition both ran."""
    return paired((base_by_rep[k][field], r[field]) for k, r in by_rep.items()
                  if k in base_by_rep)


def fmt_spread(m, digits=2, unit='', lone_range=False):
    """A spread() as 'median (min-max)', a lone value without its range
    unless lone_range; 'n/a' for None."""
    if not m:
        return 'n/a'
    v, lo, hi, n = m
    if n == 1 and not lone_range:
        return f'{v:.{digits}f}{unit}'
    return f'{v:.{digits}f}{unit} ({lo:.{digits}f}-{hi:.{digits}f})'


def fmt_vals(vals, digits=2, unit=''):
    return fmt_spread(spread(vals), digits, unit)


def fmt_value(v, digits):
    return 'n/a' if v is None else f'{v:.{digits}f}'


def error_bars(spreads):
    """matplotlib's yerr of spread()s: how far below and above the median
    each range reaches."""
    return [[m[0] - m[1] for m in spreads], [m[2] - m[0] for m in spreads]]


def bars(ax, groups, colour=None):
    """A bar a group (name, [(x, y)]) at each of its xs, the groups side by
    side in the slot of an x; colour: {name: colour}."""
    width = 0.8 / max(len(groups), 1)
    for i, (name, pts) in enumerate(groups):
        ax.bar([x + (i - (len(groups) - 1) / 2) * width for x, _ in pts], [y for _, y in pts],
               width, label=name, color=colour and colour[name])


def md_rows(head, rows):
    """A markdown table's lines, the first cell apart (a table of that
    column alone shows an empty one after it, as the reports always have)."""
    def line(cells):
        return f'| {cells[0]} | ' + ' | '.join(cells[1:]) + ' |'
    return [line(head), '|' + '---|' * len(head)] + [line(r) for r in rows]


def md_section(out, title, lines):
    """Append '### title' and lines to out, if there are any lines."""
    if lines:
        out.extend([f'### {title}', ''] + lines + [''])


def md_table(out, title, head, rows):
    md_section(out, title, rows and md_rows(head, rows))


def document(header, parts):
    """The header, then each part (lines) that has any, each followed by a
    blank line."""
    lines = [header, '']
    for part in parts:
        if part:
            lines += part + ['']
    return '\n'.join(lines)


def update_docs(docs, page, tag, block, pngs, out):
    """Put block between the <!-- TAG:begin --> and <!-- TAG:end --> marks
    of DOCS/PAGE and copy the plots pngs (in OUT) into DOCS/bench/; exits
    where the plots cannot be drawn (the page would lose them) or the page
    has no such marks."""
    doc = os.path.join(docs, page)
    if pyplot() is None:
        raise SystemExit(f'{doc} not updated: its plots need matplotlib')
    begin, end = f'<!-- {tag}:begin -->', f'<!-- {tag}:end -->'
    with open(doc) as f:
        text = f.read()
    # A function, so that a backslash in the tables stays as it is.
    text, n = re.subn(re.escape(begin) + '.*' + re.escape(end), lambda _: begin + block + end,
                      text, flags=re.S)
    if not n:
        raise SystemExit(f'{doc} has no {tag}:begin/{tag}:end marks')
    with open(doc, 'w') as f:
        f.write(text)
    os.makedirs(os.path.join(docs, 'bench'), exist_ok=True)
    for png in pngs:
        shutil.copy(os.path.join(out, png), os.path.join(docs, 'bench'))


def publish(args, parts, failed=False):
    """Write each part's table into DIR and print it (with --brief, say
    where it is instead, once all is well); with --docs, put each into its
    page, its plots below it. parts: (table, its text, its page, the page's
    mark tag, [(png, alt text)]). 1 where the run failed (said after
    --docs), else 0."""
    for name, text, page, *_ in parts:
        # The method and the columns are described once, on the page.
        text = text.rstrip('\n') + f'\n\nHow these figures are made: docs/{page}.\n'
        with open(os.path.join(args.dir, name), 'w') as f:
            f.write(text)
        if not args.brief:
            print(text)
    for _, text, page, tag, plots in parts if args.docs else ():
        images = ''.join(f'\n![{alt}]({png})\n' for png, alt in plots)
        update_docs(args.docs, page, tag, f'\n{text}{images}', [p for p, _ in plots], args.dir)
    if failed:
        return 1
    for name, *_ in parts if args.brief else ():
        print(f'The table: {os.path.join(args.dir, name)}')
    return 0


# ---- perftest: the matrix of perftest, ucx_perftest and the MPI ping-pong ----
#
# raw.json's runs into medians with spreads and ratios against stock. A
# point counts only if every repetition of it succeeded with all its
# figures; a ratio needs such a point on both sides. A mode the matrix did
# not measure a point in (raw.json's points say which) shows '-' there.
# Fails if any point is incomplete, after writing what it can.

# The headline figure of each kind and whether more is better.
HEADLINE = {'lat': ('t_typical_us', 'us', False),
            'bw': ('msg_rate_Mpps', 'Mpps', True)}
# perftest's and ucx_perftest's 'MB/sec' are MiB/s.
EXTRA = {'bw': ('bw_avg_MBps', 'MiB/s', True)}
CPU_FIELDS = ('cpu_us_per_msg', 'kernel_cpu_us_per_msg')
# Points are of a family: perftest's programs (runs without 'family'),
# 'ucx' (ucx_perftest) or 'mpi' (the MPI ping-pong). ucx_perftest's runs
# have no CPU time: it prints nothing between starting UCP (seconds of CPU)
# and its timed phase.
NO_CPU = ('ucx',)
# What a point's test is, in the report.
TEST_TITLES = {'ucx_am_lat': 'UCX ucp_am_lat', 'ucx_tag_lat': 'UCX tag_lat',
               'ucx_tag_bw': 'UCX tag_bw', 'mpi_pingpong': 'MPI ping-pong'}
# Events that cost packets beyond a request and its ACK, with the names
# the report gives them.
EXTRA_PACKET_EVENTS = (('send_rnr_err', 'RNR NAKs'), ('duplicate_request', 'duplicates'),
                       ('out_of_seq_request', 'out of sequence'),
                       ('completer_retry_err', 'retries'))
LL_DROP_REASONS = ('order', 'busy', 'full', 'state', 'forced')
# The mode a user gets without setting anything, which the summary
# compares with stock.
DEFAULTS = 'xrxe-ll'
# Bandwidth points up to this size are read as a message rate.
MSG_RATE_MAX = 1024
# perftest's and ucx_perftest's MB/s are MiB/s (2^20 bytes); the
# references' (xrxe-memcpy-bw, xrxe-tcp-bw) MB are 10^6 bytes.
MIB = 1 << 20


def key(run):
    return (run['test'], run['size'], run['qps'])


def label(k):
    test, size, qps = k
    return f'{TEST_TITLES.get(test, test)} {size} B' + (f' x{qps} QPs' if qps > 1 else '')


class Results:
    def __init__(self, raw):
        self.raw = raw
        self.modes = [m['name'] for m in raw['modes']]
        self.runs, self.kind, self.family = {}, {}, {}
        # The modes each point was to be measured in; without the list
        # (older raw.json), every mode.
        self.planned = {key(p): p.get('modes', self.modes) for p in raw.get('points', [])}
        for r in raw['runs']:
            self.runs.setdefault((r['mode'], key(r)), []).append(r)
        # A planned point none of whose runs came back still counts.
        for r in raw['runs'] + raw.get('points', []):
            self.kind.setdefault(key(r), r['kind'])
            self.family.setdefault(key(r), r.get('family', 'perftest'))
        self.points = list(self.kind)
        # The TCP reference's runs that failed (bench/perftest.py,
        # tcp_reference): a fraction of TCP's promised and not made.
        self.problems = [f'TCP reference {why}' for why in raw.get('tcp_failed', [])]
        for mode in self.modes:
            for k in self.points:
                if self.measures(mode, k):
                    self.check(mode, k)

    def measures(self, mode, k):
        """Whether the matrix measured point k in mode."""
        return mode in self.planned.get(k, self.modes)

    def check(self, mode, k):
        runs = self.runs.get((mode, k), [])
        if len(runs) < self.raw['reps']:
            self.problems.append(f'{mode} {label(k)}: {len(runs)} of '
                                 f"{self.raw['reps']} repetitions ran")
        for r in runs:
            if not r['ok']:
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

    def complete_runs(self, mode, k):
        """The runs of a point all of whose repetitions succeeded; [] else."""
        runs = self.runs.get((mode, k), [])
        return runs if len(runs) >= self.raw['reps'] and all(r['ok'] for r in runs) else []

    def values(self, mode, k, field):
        """All repetitions' values of field, or None if the point is not
        complete or a figure is missing."""
        runs = self.complete_runs(mode, k)
        vals = [r[field] if field in CPU_FIELDS else r['figures'].get(field) for r in runs]
        return vals if runs and None not in vals else None


def reference(entries, size, streams=None):
    """The figures of the reference entries (raw.json's memcpy or tcp
    records) that a point of size (and streams) is read against: of the
    same size and streams where there are such, else the same size, else
    the nearest size (the larger of two as near): (size, streams, [MBps of
    each repetition]), or None without any entries."""
    groups = {}
    for e in entries:
        groups.setdefault((e['size'], e.get('streams')), []).append(e['MBps'])
    if not groups:
        return None

    def distance(k):
        s, n = k
        return (abs(math.log2(s / size)), s < size, n != streams, n or 0)
    best = min(groups, key=distance)
    return best + (groups[best],)


def fmt_fraction(x):
    return f'{x:.2f}' if x >= 0.1 else f'{x:.2g}'


def reference_text(name, ref):
    """Which figure of a reference a row reads against, with its median."""
    size, streams, vals = ref
    what = f'{size} B' + (f", {streams} stream{'s' if streams > 1 else ''}" if streams else '')
    return f"{name}'s ({what}: {fmt_figure(statistics.median(vals))} MB/s)"


def fraction_cell(res, mode, k, ref):
    """mode's bandwidth at point k as fractions of a reference's median
    (bytes over bytes: perftest's MiB/s over the reference's 10^6 bytes/s),
    the median and the range over the repetitions."""
    if not res.measures(mode, k):
        return '-'
    vals = res.values(mode, k, 'bw_avg_MBps')
    base = statistics.median(ref[2]) * 1e6
    if not vals or not base:
        return 'n/a'
    fr = sorted(v * MIB / base for v in vals)
    return (f'{fmt_fraction(statistics.median(fr))} '
            f'({fmt_fraction(fr[0])}-{fmt_fraction(fr[-1])})')


def fraction_rows(res, k, modes, rest):
    """The rows under a bandwidth point's figure: each mode's bandwidth as a
    fraction of TCP's (the same size, as many streams as the point has QPs,
    where measured) and of memcpy's (the same size where measured), in the
    same boot; none for a reference the run has no figures of."""
    rows = []
    for name, ref in (('TCP', reference(res.raw.get('tcp', []), k[1], k[2])),
                      ('memcpy', reference(res.raw.get('memcpy', []), k[1]))):
        if ref:
            rows.append([label(k), f'bw_avg_MBps as a fraction of {reference_text(name, ref)}'] +
                        [fraction_cell(res, m, k, ref) for m in modes] + [''] * len(rest))
    return rows


def fmt_figure(x):
    """A perftest figure with the digits its size wants."""
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
    return f'{fmt_figure(statistics.median(v))} ({fmt_figure(min(v))}-{fmt_figure(max(v))})'


def ratio_number(res, mode, k, field):
    """mode/stock of field at point k: with paired runs the median of the
    repetitions' own ratios (each against the stock run just before it),
    else the median over stock's median. None if a side is incomplete."""
    base, new = res.values('stock', k, field), res.values(mode, k, field)
    if base is None or new is None:
        return None
    # paired: each repetition ran every mode of a point back to back (--paired)
    if res.raw.get('order') != 'paired':
        base = statistics.median(base)
        return statistics.median(new) / base if base else None
    stock = {r['rep']: v for r, v in zip(res.complete_runs('stock', k), base)}
    ratios = paired((stock.get(r['rep']), v) for r, v in zip(res.complete_runs(mode, k), new))
    return ratios and ratios[0]


def ratio_value(res, mode, k):
    """The headline figure's ratio_number() where both mode and stock
    measured point k, else None."""
    if not res.measures(mode, k) or not res.measures('stock', k):
        return None
    return ratio_number(res, mode, k, HEADLINE[res.kind[k]][0])


def ratio(res, mode, k, field):
    if not res.measures(mode, k) or not res.measures('stock', k):
        return '-'
    return fmt_value(ratio_number(res, mode, k, field), 2)


def matrix_text(raw):
    text = f"{raw['matrix']} matrix"
    if raw.get('sizes'):
        text = 'full matrix at ' + ', '.join(f'{s} B' for s in raw['sizes'])
    if raw.get('tests'):
        text += ' (' + ', '.join(raw['tests']) + ' only)'
    if raw.get('chosen_modes'):
        text += ', stock and ' + ', '.join(raw['chosen_modes']) + ' only'
    return text


def vcpus(raw):
    return raw.get('vcpus', raw['cpus'])


def oversubscription(raw):
    """The warning for a run on more vCPUs than the host has cores, or
    None."""
    host = raw.get('host_cores')
    if not host or vcpus(raw) <= host:
        return None
    return (f'Warning: {vcpus(raw)} vCPUs on a host of {host} cores: the vCPUs take '
            'turns on the cores, so these timings measure the host, not xrxe.')


def ratio_method(res):
    if res.raw.get('order') == 'paired':
        return ('ratios are the median of the repetitions\' own ratios, each run '
                'against the stock run just before it (paired).')
    return 'ratios are median over median of stock in the same boot.'


def table(res):
    raw = res.raw
    series = f", hooks: {raw['series']}" if 'series' in raw else ''
    if 'slub_debug' in raw:
        series += ', slub_debug ' + ('on' if raw['slub_debug'] else 'off')
    warning = oversubscription(raw)
    host = f" on a host of {raw['host_cores']} cores" if raw.get('host_cores') else ''
    out = ([f'**{warning}**', ''] if warning else []) + [
        f"Kernel {raw['kernel']}{series}, {vcpus(raw)} guest CPUs{host}, "
        f"{matrix_text(raw)}, {raw['reps']} repetition(s), "
        f"{raw['started']}. Medians (min-max); {ratio_method(res)}", '']
    if raw.get('profiled'):
        out += ['Profiled (--profile): perf sampled every guest CPU during each perftest '
                "run, and its figures bear perf's cost (latency most).", '']
    out += [f"- **{m['name']}**: {m['about']}" for m in raw['modes']] + ['']
    perftest = [k for k in res.points if res.family[k] == 'perftest']
    others = [k for k in res.points if res.family[k] != 'perftest']

    def section(title, points, fields_of, below=None):
        """A table per set of modes that measure the points, in order of
        first appearance: the first under title, the others under title
        and their modes; below(k, modes, rest): rows under a point's
        figures."""
        groups = {}
        for k in points:
            groups.setdefault(tuple(m for m in res.modes if res.measures(m, k)), []).append(k)
        for i, (modes, pts) in enumerate(groups.items()):
            rest = [m for m in modes if m != 'stock']
            rows = []
            for k in pts:
                figures = fields_of(res.kind[k])
                rows += [[label(k), f"{field} [{unit}], {'higher' if high else 'lower'} is better"]
                         + [cell(res, m, k, field) for m in modes] +
                         [ratio(res, m, k, field) for m in rest]
                         for field, unit, high in figures]
                if below and figures:
                    rows += below(k, modes, rest)
            name = title if i == 0 or len(groups) == 1 else f"{title}: {', '.join(modes)} only"
            md_table(out, name, ['Point', 'Figure', *modes] + [f'{m}/stock' for m in rest], rows)

    section('Headline: latency and message rate', perftest, lambda kind: [HEADLINE[kind]])
    section("Bandwidth, and as fractions of TCP's and memcpy's (same guest)", perftest,
            lambda kind: [EXTRA[kind]] if kind in EXTRA else [],
            lambda k, modes, rest: fraction_rows(res, k, modes, rest))
    section('UCX and MPI over rc_verbs: latency, message rate and bandwidth', others,
            lambda kind: [HEADLINE[kind]] + ([EXTRA[kind]] if kind in EXTRA else []))
    section('Guest CPU time per message (latency: per iteration), both ends, '
            'all CPUs, measured phase',
            [k for k in res.points if res.family[k] not in NO_CPU],
            lambda kind: [(f, 'us', False) for f in CPU_FIELDS])
    counter_tables(res, out)
    profile_table(res, out)
    sizes = sorted({m['size'] for m in raw['memcpy']})
    copies = [(s, [m['MBps'] for m in raw['memcpy'] if m['size'] == s]) for s in sizes]
    md_section(out, 'memcpy reference (same guest)', [
        f'- {s} B copies: {fmt_figure(statistics.median(v))} MB/s '
        f'({fmt_figure(min(v))}-{fmt_figure(max(v))})' for s, v in copies])
    md_section(out, 'TCP reference (same guest)', tcp_lines(raw))
    md_section(out, 'Not measured here', [f'- {s}' for s in raw.get('skipped') or []])
    md_section(out, 'Failed or missing runs (no ratio made from them)',
               [f'- {p}' for p in res.problems])
    return '\n'.join(out)


def tcp_lines(raw):
    """The TCP reference's figures (bench/tcp-bw.c), with what it ran over;
    none where the run has none (older raw.json) and none failed."""
    tcp, link = raw.get('tcp') or [], raw.get('tcp_link') or {}
    if not tcp and not raw.get('tcp_failed'):
        return []
    over = (f"a veth pair of MTU {link['mtu']} ({link.get('of', 'veth0')}'s)"
            if link.get('mtu') else 'a veth pair')
    lines = [f'xrxe-tcp-bw over {over}, one end in a network namespace of its own, '
             f"{link.get('seconds', 2)} s a run, once a boot; MB/s: 10^6 bytes a second "
             "(the bandwidth table's MiB/s are 2^20 bytes: its fractions are of bytes over "
             'bytes).', '']
    keys = sorted({(t['size'], t['streams']) for t in tcp})
    for size, streams in keys:
        v = [t['MBps'] for t in tcp if (t['size'], t['streams']) == (size, streams)]
        lines.append(f"- {size} B messages, {streams} stream{'s' if streams > 1 else ''}: "
                     f'{fmt_figure(statistics.median(v))} MB/s' +
                     (f' ({fmt_figure(min(v))}-{fmt_figure(max(v))})' if len(v) > 1 else ''))
    lines += [f'- failed: {why}' for why in raw.get('tcp_failed', [])]
    return lines


def per_try(run, counter):
    """A counter of one perftest try: a run's counters span every try of it
    (a try whose clock calibration failed had sent all its traffic)."""
    return run['counters'][counter] / (1 + run.get('retries', 0))


def per_message(res, mode, k, counter):
    """The median over a complete point's repetitions of counter per
    message and perftest try; None if the point is incomplete or a run
    lacks the counter."""
    runs = res.complete_runs(mode, k)
    per = [per_try(r, counter) / r['messages'] for r in runs
           if counter in r.get('counters', {}) and r.get('messages')]
    return statistics.median(per) if runs and len(per) == len(runs) else None


def counter_tables(res, out):
    """The tables of the xrxe and hw counters, a row a point whose runs
    recorded them (UCX's do not)."""
    counted = [k for k in res.points
               if any('counters' in r for (_, kk), rs in res.runs.items() if kk == k for r in rs)]

    def rows(modes, cell):
        return [[label(k)] + [cell(m, k) if res.measures(m, k) else '-' for m in modes]
                for k in counted]

    def modes_with(counter, nonzero=True):
        """The modes that recorded counter in some run (nonzero: not 0)."""
        def has(r):
            c = r.get('counters', {})
            return bool(c.get(counter)) if nonzero else counter in c
        return [m for m in res.modes
                if any(has(r) for (mm, _), rs in res.runs.items() if mm == m for r in rs)]

    def per_message_cell(counter):
        return lambda m, k: fmt_value(per_message(res, m, k, counter), 2)

    def rung(counters):
        """Posts that made a system call: bare doorbells and low-latency
        commands (a command is never counted as a doorbell)."""
        return counters.get('xrxe_doorbells', 0) + counters.get('xrxe_ll_posts', 0)

    def doorbells(m, k):
        """avoided / (rung + avoided), median and spread over the repetitions."""
        runs = res.complete_runs(m, k)
        shares = []
        for r in runs:
            c = r.get('counters', {})
            posts = rung(c) + c.get('xrxe_doorbells_avoided', 0)
            if posts:
                shares.append(100.0 * c['xrxe_doorbells_avoided'] / posts)
        if not shares or len(shares) != len(runs):
            return 'n/a'
        rung_per_try = statistics.median(rung(r['counters']) / (1 + r.get('retries', 0))
                                         for r in runs)
        return (f'{statistics.median(shares):.0f}% ({min(shares):.0f}-{max(shares):.0f}), '
                f'{rung_per_try:.0f} rung')

    def ll_commands(m, k):
        """Commands per message, the share the kernel took from the command
        and the shares it dropped by reason (the rest fell back to the ring)."""
        runs = [r for r in res.complete_runs(m, k)
                if 'xrxe_ll_posts' in r.get('counters', {}) and r.get('messages')]
        if not runs or len(runs) != len(res.complete_runs(m, k)):
            return 'n/a'
        per_msg = statistics.median(per_try(r, 'xrxe_ll_posts') / r['messages'] for r in runs)
        posted = [r for r in runs if r['counters']['xrxe_ll_posts']]
        if not posted:
            return '0 commands'

        def share(name):
            return statistics.median(100.0 * r['counters'].get(name, 0) /
                                     r['counters']['xrxe_ll_posts'] for r in posted)
        dropped = ', '.join(f'{why} {v:.0f}%' for why, v in
                            ((why, share(f'xrxe_ll_dropped_{why}')) for why in LL_DROP_REASONS)
                            if v >= 0.5)
        return (f"{per_msg:.2f}/msg, {share('xrxe_ll_accepted'):.0f}% taken" +
                (f'; dropped: {dropped}' if dropped else ''))

    def extra_packets(m, k):
        """Per 1000 messages, the events that happened."""
        per = [(name, per_message(res, m, k, c)) for c, name in EXTRA_PACKET_EVENTS]
        if any(v is None for _, v in per):
            return 'n/a'
        return ', '.join(f'{name} {1000 * v:.0f}' for name, v in per if 1000 * v >= 0.5) or \
            'none'

    # The sent_pkts hw counter over a perftest run, whose connection setup
    # sends none over RoCE: requests plus ACKs and read responses.
    md_table(out, 'Packets sent per message (hw counters, both devices)', ['Point'] + res.modes,
             [r for r in rows(res.modes, per_message_cell('sent_pkts'))
              if any(c not in ('-', 'n/a') for c in r[1:])])
    extra = rows(res.modes, extra_packets)
    if any(c not in ('n/a', 'none', '-') for r in extra for c in r[1:]):
        md_table(out, 'Events that cost extra packets, per 1000 messages (hw counters, '
                 'both devices)', ['Point'] + res.modes, extra)
    for modes, cell, title in (
            (modes_with('xrxe_doorbells', nonzero=False), doorbells,
             'Doorbells avoided (xrxe hw counters, both devices, per perftest run; rung: bare '
             'doorbells and low-latency commands)'),
            (modes_with('xrxe_ll_posts'), ll_commands,
             'Low-latency commands (xrxe hw counters, both devices, per perftest run): commands '
             'per message, share taken from the command, shares dropped to the ring by reason'),
            (modes_with('xrxe_rx_inline_requests'), per_message_cell('xrxe_rx_inline_requests'),
             'Received requests handled in the receive softirq per message (rx_inline; hw '
             'counters, both devices)'),
            (modes_with('xrxe_posts_deferred'), per_message_cell('xrxe_posts_deferred'),
             "Posts left to an engine or the workqueue per message (a stream's posts; hw "
             'counters, both devices)')):
        if modes:
            md_table(out, title, ['Point'] + modes, rows(modes, cell))


def profile_table(res, out):
    """Where the guest's CPUs went (--profile; bench/cpu_profile.py): a
    row a profiled point and mode, medians over its repetitions."""
    rows, stages = [], []
    for k in res.points:
        for m in res.modes:
            profs = [r['profile'] for r in res.complete_runs(m, k) if 'profile' in r]
            if not profs:
                continue
            stages = list(profs[0]['stages'])
            # The busiest kernel thread of the repetition in the middle.
            top = sorted((p['busiest_kernel_thread'] for p in profs),
                         key=lambda t: t['cpus'])[len(profs) // 2]
            rows.append([label(k), m, fmt_value(median([p['cpus_busy'] for p in profs]), 2)] +
                        [f"{100 * median([p['stages'].get(st, 0) for p in profs]):.0f}"
                         for st in stages] +
                        [lock_cell(profs), f"{top['name'] or 'none'} {top['cpus']:.2f}",
                         fmt_value(median([p['threads'].get('perf', 0) for p in profs]), 2)])
    md_table(out, "Where the guest's CPUs went (perf, measured phase): CPUs busy, each "
             "stage's % of them, the % spinning on contended spinlocks (the largest site), "
             "the busiest kernel thread's CPUs, perf's own CPUs",
             ['Point', 'Mode', 'CPUs busy'] + [f'{st} %' for st in stages] +
             ['Lock wait %', 'Busiest kernel thread', 'perf'], rows)


def lock_cell(profs):
    """The median share of the busy samples spinning on a contended
    spinlock, in %, and the site most of them spun at over the runs."""
    wait = median([p.get('lock_wait', 0) for p in profs])
    sites = {}
    for p in profs:
        for site, share in p.get('lock_sites', {}).items():
            sites[site] = sites.get(site, 0) + share
    top = max(sites.items(), key=lambda kv: kv[1], default=None)
    return f'{100 * wait:.1f}' + (f' ({top[0]})' if top and wait else '')


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
    """The matrix's plots into OUTDIR: the names of those drawn."""
    plt = pyplot()
    if plt is None:
        return []
    colours = plt.get_cmap('tab10')
    files = []

    def figure(name, panels, draw_panel):
        """A panel per item of panels, draw_panel(ax, item) saying whether
        it drew anything; saved as name where any did."""
        n = len(panels)
        cols = 2 if n == 4 else min(n, 3)
        rows = (n + cols - 1) // cols
        fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 4 * rows), squeeze=False)
        flat = [ax for row in axes for ax in row]
        for ax in flat[n:]:
            ax.set_visible(False)
        drawn = False
        for ax, panel in zip(flat, panels):
            drawn = draw_panel(ax, panel) or drawn
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize='small')
        if drawn:
            save_figure(fig, os.path.join(outdir, name), dpi=90)
            files.append(name)
        else:
            plt.close(fig)

    def style(mode, qps, several):
        """One colour per mode, a dashed line for several QPs."""
        return {'color': colours(res.modes.index(mode) % 10), 'marker': 'o',
                'linestyle': '-' if qps == 1 else '--',
                'label': mode + (f' x{qps}' if several else '')}

    def medians(ax, pts, scale=1, **kw):
        """pts: [(x, its repetitions' values or None)] as medians with
        min-max bars; their medians."""
        pts = [(x, spread([y * scale for y in v])) for x, v in pts if v]
        if pts:
            ax.errorbar([x for x, _ in pts], [m[0] for _, m in pts],
                        yerr=error_bars([m for _, m in pts]), capsize=3, **kw)
        return [m[0] for _, m in pts]

    def by_size(ax, panel):
        """A panel (test, field, QP counts, reference lines [(name, value)])
        of field against size, a line per mode and QP count."""
        test, field, qps_list, refs = panel
        every = []
        for qps in qps_list:
            for mode in res.modes:
                every += medians(ax, [(k[1], res.values(mode, k, field)) for k in res.points
                                      if k[0] == test and k[2] == qps],
                                 **style(mode, qps, len(qps_list) > 1))
        for (name, value), line in zip(refs, ('--', ':')):
            ax.axhline(value, color='grey', linestyle=line, label=name)
        ax.set_xscale('log', base=2)
        ys = [y for y in every if y > 0]
        if ys and max(ys) > 20 * min(ys):
            ax.set_yscale('log')
        ax.set(title=TEST_TITLES.get(test, test), xlabel='message size [B]',
               ylabel='bandwidth [MiB/s]' if field == 'bw_avg_MBps' else 'typical latency [us]')
        return bool(every)

    def msgrate_by_qps(ax, test):
        """Message rate against QPs, a line per mode and size, for the sizes
        where message rate is the figure that matters."""
        drawn = False
        for size in sorted({k[1] for k in res.points if k[0] == test and k[1] <= 4096}):
            for mode in res.modes:
                drawn = medians(ax, [(k[2], res.values(mode, k, 'msg_rate_Mpps'))
                                     for k in res.points if k[0] == test and k[1] == size],
                                1000, marker='o', label=f'{mode} {size} B') or drawn
        ax.set(title=test, xlabel='QPs', xticks=qps_all, ylabel='message rate [Kmsg/s]')
        return drawn

    def ratio_by_size(ax, test):
        """The headline figure's ratio against stock by size."""
        kind = res.kind[next(k for k in res.points if k[0] == test)]
        qps_list = sorted({k[2] for k in res.points if k[0] == test})
        drawn = False
        for mode in [m for m in res.modes if m != 'stock']:
            for qps in qps_list:
                pts = [(k[1], ratio_value(res, mode, k)) for k in res.points
                       if k[0] == test and k[2] == qps]
                pts = [(x, y) for x, y in pts if y]
                if pts:
                    ax.plot(*zip(*pts), **style(mode, qps, len(qps_list) > 1))
                    drawn = True
        ax.axhline(1, color='grey', linestyle=':')
        ax.set_xscale('log', base=2)
        ax.set_ylim(bottom=0)
        ax.set(title=f"{TEST_TITLES.get(test, test)} "
                     f"({'higher' if HEADLINE[kind][2] else 'lower'} is better)",
               xlabel='message size [B]', ylabel=f'{HEADLINE[kind][0]}: mode / stock')
        return drawn

    def present(*tests):
        return [t for t in tests if any(k[0] == t for k in res.points)]

    lat_tests = present('ib_write_lat', 'ib_send_lat', 'ib_read_lat')
    bw_tests = present('ib_write_bw', 'ib_send_bw', 'ib_read_bw')
    others = present('ucx_am_lat', 'ucx_tag_lat', 'ucx_tag_bw', 'mpi_pingpong')
    tests = lat_tests + bw_tests + others
    qps_all = sorted({k[2] for k in res.points if res.kind[k] == 'bw'})
    # The references at 64 KiB (TCP: 1 stream), in the plots' MiB/s.
    refs = [(f'{name} 64 KiB', statistics.median(v) * 1e6 / MIB)
            for name, v in (('memcpy', [m['MBps'] for m in res.raw['memcpy']
                                        if m['size'] == 65536]),
                            ('TCP', [t['MBps'] for t in res.raw.get('tcp', [])
                                     if (t['size'], t['streams']) == (65536, 1)]))
            if v]
    if lat_tests:
        figure('latency-by-size.png', [(t, 't_typical_us', [1], []) for t in lat_tests],
               by_size)
    if bw_tests:
        figure('msgrate-by-qps.png', bw_tests, msgrate_by_qps)
        figure('bandwidth-by-size.png', [(t, 'bw_avg_MBps', qps_all, refs) for t in bw_tests],
               by_size)
    if others:
        figure('ucx-mpi-by-size.png', [(t, 'bw_avg_MBps' if t.endswith('_bw') else
                                        't_typical_us', [1], []) for t in others], by_size)
    if tests and 'stock' in res.modes:
        figure('ratio-by-size.png', tests, ratio_by_size)
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
    out += [f'- No results: {d}' for d in missing] + ([''] if missing else [])
    points, modes = [], []
    for _, res in runs:
        points += [k for k in res.points if k not in points]
        modes += [m for m in res.modes if m != 'stock' and m not in modes]
    rows = []
    for k in points:
        for mode in modes:
            cells = [ratio(res, mode, k, HEADLINE[res.kind[k]][0]) if k in res.kind else '-'
                     for _, res in runs]
            if any(c != '-' for c in cells):
                rows.append([label(k), f'{mode}/stock'] + cells)
    md_table(out, 'Ratios by guest CPUs', ['Point', 'Ratio'] +
             [f'{vcpus(res.raw)} vCPUs ({d})' for d, res in runs], rows)
    return '\n'.join(out)


def perftest(args):
    """raw.json into table.md, the plots and the summary: with --brief, the
    summary alone (where the table is, without one); 1 if a point is
    incomplete, before --docs. With --sweep, the runs of its directories
    into sweep.md instead (1 if none has results)."""
    if args.sweep:
        runs = [(os.path.basename(os.path.normpath(d)),
                 read_json(os.path.join(d, 'raw.json'), lines=False)) for d in args.sweep]
        if all(raw is None for _, raw in runs):
            print(f'report: no raw.json in {", ".join(args.sweep)}: no sweep.md',
                  file=sys.stderr)
            return 1
        text = sweep_table([(d, Results(raw)) for d, raw in runs if raw is not None],
                           [d for d, raw in runs if raw is None])
        with open(os.path.join(args.dir, 'sweep.md'), 'w') as f:
            f.write(text + '\n')
        print(text)
        return 0
    [raw] = load(args.dir, 'raw.json', lines=False)
    res = Results(raw)
    text = table(res)
    path = os.path.join(args.dir, 'table.md')
    with open(path, 'w') as f:
        f.write(text + '\n')
    files = plots(res, args.dir)
    short = summary(res, path)
    if not args.brief:
        print(text)
    if short:
        print(('' if args.brief else '\n') + short)
    elif args.brief:
        print(f'The table: {path}')
    if res.problems:
        print(f'report: {len(res.problems)} problem(s); incomplete points have '
              'no ratio', file=sys.stderr)
        return 1
    if args.docs:
        images = '\n'.join(f'![{n[:-4]}]({n})' for n in files)
        update_docs(args.docs, 'bench/matrix.md', 'bench', f'\n{text}\n{images}\n', files,
                    args.dir)
    return 0


# ---- pace: send rate limits ----
#
# pace.json's runs, one a line: accuracy (one run a point), isolation (mix:
# interleaved repetitions, medians with their range and paired ratios),
# several limits at once (multi), and CPU cost; pace-series.txt: the 10 ms
# time series of one accuracy run (SERIES).

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
# The accuracy run whose time series pace-series.txt holds (SERIES of
# bench/pace.py): type, size, limit.
SERIES = ('rc', 4096, 10000)


def accuracy_table(runs):
    lines = ['### Accuracy', '']
    ref, rows = {}, []
    in_goal, beyond, in_goal_with_late = [], [], []
    for r in runs:
        point = (r['type'], r['size'])
        if not r['limit_kbps']:
            ref.setdefault(point, r['measured_kbps'])
            continue
        # Judged against the unlimited runs either side of it, or the size's first.
        before = r.get('unlimited_before_kbps', ref.get(point, 0))
        after = r.get('unlimited_after_kbps', ref.get(point, 0))
        share = r['limit_kbps'] / min(before, after) if min(before, after) else 0
        within = 0 < share <= GOAL_SHARE + 0.005
        (in_goal if within else beyond).append(abs(r['error_pct']))
        late_cells = ['-'] * 3
        if 'late_bytes' in r:
            # The late wake-ups' bytes over what the limit allows in the window.
            late = r['late_bytes'] * 8 / r['window_s'] / 1000 * 100 / r['limit_kbps']
            held = r.get('wait_us', 0) / 1e6 / r['window_s']
            late_cells = [f'{held:.0%}', f"{r['late_wakeups']} of {r['wakeups']}",
                          f'{late:.2f}%']
            if within:
                in_goal_with_late.append(abs(r['error_pct'] + late))
        rows.append([r['type'].upper(), f"{r['size']} B", str(r['limit_kbps']),
                     f"{r['measured_kbps']:.0f}", f"{r['error_pct']:+.2f}%",
                     f"{r['max_excess_bytes']:.0f} / {r['burst_bytes']} B",
                     f'{before:.0f} / {after:.0f}', f'{share:.0%}'] + late_cells)
    lines += md_rows(['QP', 'message', 'limit (kbit/s)', 'measured (kbit/s)', 'error',
                      'most above the rate in a slice / burst',
                      'no limit, before / after (kbit/s)', 'share of no limit', 'held',
                      'late wake-ups', 'late bytes, share of the limit'], rows)
    if in_goal:
        lines += ['', f'Limits up to {GOAL_SHARE:.0%} of the unlimited rate next to them: '
                  f'largest error {max(in_goal):.2f}% over {len(in_goal)} runs; '
                  f'{sum(e <= 1 for e in in_goal)} within 1%, '
                  f'{sum(e <= 2 for e in in_goal)} within 2%.']
    if in_goal_with_late:
        lines += ['The same runs with their late bytes counted as sent: largest error '
                  f'{max(in_goal_with_late):.2f}%; {sum(e <= 1 for e in in_goal_with_late)} of '
                  f'{len(in_goal_with_late)} within 1%.']
    if beyond:
        lines += [f'Limits above {GOAL_SHARE:.0%} of it (the unlimited rate fell between the '
                  f'first run and theirs): {len(beyond)}, largest error {max(beyond):.2f}%.']
    return lines


def pace_isolation_table(runs):
    if not runs:
        return []

    def figures(runs, driver, config, field):
        """field of each run of driver in config (-c of pace-bench)."""
        return [r[field] for r in runs
                if r['driver'] == driver and r['config'] == config and field in r]

    def fmt(m, digits):
        return fmt_spread(m, digits, lone_range=True)

    size = runs[0]['size']
    reps = len([r for r in runs if r['driver'] == 'xrxe' and r['config'] == 's'])
    lines = ['### Isolation', '',
             f'{size} B writes beside a 64 B ping-pong on one engine; medians of {reps} '
             'interleaved repetitions (range), each ratio paired against "alone".']
    for kbps in sorted({r['paced_kbps'] for r in runs if r['paced_kbps']}):
        at = [r for r in runs if r['paced_kbps'] in (0, kbps)]
        rows = []
        for name, base, paced, program, field, digits, goal in ISOLATION_ROWS:
            alone = figures(at, 'xrxe', base, field)
            cells = [name, fmt(spread(alone), digits)]
            for other in (paced, program):
                beside = figures(at, 'xrxe', other, field)
                cells += [fmt(spread(beside), digits), fmt(paired(zip(alone, beside)), 3)]
            rows.append(cells + [goal])
        own = max((r['program_msgs_per_s'] for r in runs if r['paced_kbps'] == kbps),
                  default=0)
        lines += ['', f'Paced QP at {kbps} kbit/s; the program sends {own:.1f} messages a '
                  'second:', '']
        lines += md_rows(['measured', 'alone', 'beside the paced QP', 'ratio',
                          'beside the same traffic paced by the program', 'ratio',
                          'goal (paced QP)'], rows)
    rows = []
    for name, base, _, _, field, digits, _ in ISOLATION_ROWS:
        s = spread(figures(runs, 'rxe', base, field))
        x = spread(figures(runs, 'xrxe', base, field))
        if s:
            rows.append([name, fmt(s, digits), fmt(x, digits),
                         f'{x[0] / s[0]:.3f}' if x and s[0] else 'n/a'])
    if rows:
        lines += ['', 'The same workloads on stock rxe in the same boot (it has no limits, '
                  'so no paced QP):', '']
        lines += md_rows(['measured', 'stock rxe', 'xrxe', 'xrxe / stock'], rows)
    return lines


def multi_table(runs):
    if not runs:
        return []
    limits = [f['limit_kbps'] for f in runs[0]['flows']]
    rows = [[str(lim), f"{statistics.median(r['flows'][i]['measured_kbps'] for r in runs):.0f}",
             ', '.join(f"{r['flows'][i]['error_pct']:+.2f}%" for r in runs)]
            for i, lim in enumerate(limits)]
    return ['### Several limits at once', '',
            f"{len(limits)} backlogged RC QPs writing {runs[0]['size']} B, {len(runs)} runs; a "
            f"message took {runs[0]['ip_bytes_per_msg']:.0f} IP bytes.",
            ''] + md_rows(['limit (kbit/s)', 'measured (kbit/s), median', 'error, each run'],
                          rows)


def cost_table(runs):
    if not runs:
        return []
    idle = [r for r in runs if not r['limit_kbps'] and not r['program_msgs_per_s']]
    idle_s = idle[0]['cpu_busy_s'] / idle[0]['window_s'] if idle else 0
    rows = []
    for r in runs:
        by = ('the limit' if r['limit_kbps'] else
              'the program' if r['program_msgs_per_s'] else 'idle guest')
        per_s = r['cpu_busy_s'] / r['window_s']
        rate = r['messages'] / r['window_s']
        per_msg = f"{(per_s - idle_s) * 1000 / rate:.2f}" if rate else '-'
        rows.append([r['driver'], by, str(r['limit_kbps'] or '-'), f'{rate:.1f}',
                     f"{r['cpu_busy_pct']:.2f}%", f'{per_s:.4f}', per_msg])
    return ['### CPU cost', '',
            f"One RC QP writing {runs[0]['size']} B.", ''] + md_rows(
                ['driver', 'paced by', 'limit (kbit/s)', 'messages a second',
                 'CPU busy, % of the guest', 'CPU seconds a second',
                 'CPU ms a message above idle'], rows)


def plot_accuracy(plt, runs):
    """Measured against configured, of the runs with a limit."""
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for kind, size in sorted({(r['type'], r['size']) for r in runs}):
        pts = [(r['limit_kbps'], r['measured_kbps']) for r in runs
               if (r['type'], r['size']) == (kind, size)]
        ax.plot(*zip(*pts), 'o', label=f'{kind.upper()} {size} B')
    lo = min(r['limit_kbps'] for r in runs)
    hi = max(r['limit_kbps'] for r in runs)
    ax.plot([lo, hi], [lo, hi], 'k:', label='measured = limit')
    ax.set(xscale='log', yscale='log', xlabel='limit (kbit/s)',
           ylabel='measured IP rate over 5 s (kbit/s)')
    ax.legend(fontsize='small')
    return fig


def plot_series(plt, series_run):
    series, run = series_run
    t = [x[0] for x in series]
    bps = run['limit_kbps'] * 1000 / 8
    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.plot(t, [x[2] for x in series], lw=0.7, label='IP bytes sent in the slice')
    ax.plot(t, [bps * x[1] / 1e3 for x in series], 'g:', lw=0.7,
            label='the rate\'s share of the slice')
    ax.plot(t, [bps * x[1] / 1e3 + run['burst_bytes'] for x in series], 'r--', lw=0.7,
            label='share + burst (the most allowed)')
    ax.set(xlabel='time in the window (ms)', ylabel='bytes per slice (about 10 ms)',
           title=f"{run['type'].upper()} {run['size']} B at {run['limit_kbps']} kbit/s",
           ylim=(0, None))
    ax.legend(fontsize='small', loc='lower right')
    return fig


def pace(args):
    """pace.json (and pace-series.txt) into pace.md and its plots."""
    [runs] = load(args.dir, 'pace.json')
    by = {m: [r for r in runs if r['mode'] == m] for m in ('accuracy', 'mix', 'multi', 'cost')}
    md = document(args.header, (accuracy_table(by['accuracy']), pace_isolation_table(by['mix']),
                                multi_table(by['multi']), cost_table(by['cost'])))
    plots = draw(args.dir, 'pace-accuracy.png', 'measured against configured', plot_accuracy,
                 [r for r in by['accuracy'] if r['limit_kbps']])
    kind, size, kbps = SERIES
    series, path = None, os.path.join(args.dir, 'pace-series.txt')
    if os.path.exists(path):
        with open(path) as f:
            series = [tuple(float(x) for x in line.split()) for line in f if line.strip()]
    srun = [r for r in by['accuracy']
            if r['type'] == kind and r['size'] == size and r['limit_kbps'] == kbps]
    if series and srun:
        plots += draw(args.dir, 'pace-series.png', 'bytes per 10 ms slice over the window',
                      plot_series, (series, srun[0]))
        bps = kbps * 1000 / 8
        peak = max(b for _, _, b in series)
        excess = max(b - bps * dt / 1e3 for _, dt, b in series)
        md += (f"\nTime series of {kind.upper()} {size} B at {kbps} kbit/s: "
               f"{len(series)} slices, the largest {peak:.0f} B, at most {excess:.0f} B "
               f"above the rate's share of its slice (burst {srun[0]['burst_bytes']} B).\n")
    return publish(args, [('pace.md', md, 'bench/pace.md', 'pace', plots)])


# ---- ocu: load balancing of OCUs over the engines ----
#
# ocu.json's runs, one a line after a meta line (the module's parameters).
# Figures are medians over the repetitions with their range; a ratio is the
# median of each repetition's own ratio (paired_ratio). Fails when a run
# failed or a table has nothing to show.

# The goals.
BALANCE_GOAL = 1.15     # max over mean engine busy time, dynamic
ISOLATION_GOAL = 0.5    # ping-pong p99, dynamic over static
BULK_GOAL = 0.98        # bulk QPs' total rate, dynamic over static
PAUSE_S = 2             # SETTLE_SECS of bench/ocu-bench.c


def select(runs, **kw):
    return [r for r in runs if all(r.get(k) == v for k, v in kw.items())]


def by_rep(runs):
    return {r['rep']: r for r in runs}


def busy(r):
    """The engines' busy seconds in the window, one per engine."""
    return [ns / 1e9 for ns in r['engines']['busy_ns']]


def max_over_mean(vals):
    mean = sum(vals) / len(vals)
    return max(vals) / mean if mean else None


def param(params, name, default):
    """A module parameter's first value (a list gives one a class)."""
    return int(params.get(name, default).split(',')[0])


def engine_share(r):
    """The engine threads' share of the QPs' turns, and of the guest's
    busy CPU time, in percent."""
    turns = r['engine_turns'] / r['qp_turns'] * 100 if r.get('qp_turns') else None
    cpu = r['engine_busy_s'] / r['cpu_busy_s'] * 100 if r.get('cpu_busy_s') else None
    return turns, cpu


def qps_per_engine(runs):
    """How many bulk QPs ended the window on each engine, e.g. '5/3', a
    run after the other."""
    def one(r):
        counts = [0] * len(r['engines']['busy_ns'])
        for q in r['qps']:
            if 0 <= q['engine'] < len(counts):
                counts[q['engine']] += 1
        return '/'.join(map(str, counts))
    return ', '.join(map(one, runs))


def balance_table(runs, params, paced=False):
    """The balance runs as fast as they go, or (paced) at a fixed rate; and
    the plot's [(name, runs)] of each placement."""
    runs = select([r for r in runs if bool(r.get('list_rate')) == paced], mode='balance')
    lines = ['### Balance' + (', at a fixed rate' if paced else ''), '']
    st, sp = select(runs, placement='static'), select(runs, placement='spread')
    shift = param(params, 'ocu_byte_shift', '6')
    dy = [r for r in select(runs, placement='dynamic') if r.get('byte_shift', shift) == shift]
    alt = [r for r in select(runs, placement='dynamic') if r.get('byte_shift', shift) != shift]
    if not st or not dy:
        return lines + ['No balance runs.'], None
    alt_shift = alt and alt[0]['byte_shift']
    # Each placement's names: in the table, in the line of each repetition, in the plot.
    groups = [g for g in (('static', 'static', 'static', st),
                          ('static, spread', 'spread', 'static, spread', sp),
                          ('dynamic', 'dynamic', 'dynamic', dy),
                          (f'dynamic, ocu_byte_shift {alt_shift}', f'dynamic at shift {alt_shift}',
                           f'dynamic, byte shift {alt_shift}', alt)) if g[3]]
    sizes = ', '.join(f"{q['size']}" for q in st[0]['qps'])
    rate = f' at {st[0]["list_rate"]:g} lists of 32 a second each' if paced else ''
    lines += [f'{len(st[0]["qps"])} bulk QPs writing {sizes} B{rate}, each on an OCU of its '
              f'own, on {len(busy(st[0]))} engines' +
              (f'; the last row at ocu_byte_shift {alt_shift} (class 0) instead of {shift}'
               if alt else '') + '; medians (range).', '']

    def charged(r):
        """Each WQE's fixed cost plus its bytes >> shift, of the WQEs and
        bytes the engines' turns took."""
        hdr = param(params, 'ocu_hdr_cost', '64')
        e = r['engines']
        return [w * hdr + (b >> r.get('byte_shift', shift)) for w, b in zip(e['wqes'], e['bytes'])]

    rows = []
    for name, _, _, rs in groups:
        per_engine = [sorted(busy(r), reverse=True) for r in rs]
        rows.append([name, fmt_vals([max_over_mean(busy(r)) for r in rs]),
                     ' / '.join(fmt_vals([b[i] for b in per_engine], 3)
                                for i in range(len(per_engine[0]))),
                     fmt_vals([max_over_mean(charged(r)) for r in rs]), qps_per_engine(rs),
                     fmt_vals([r['bulk_msgs_per_s'] for r in rs], 0),
                     fmt_vals([engine_share(r)[0] for r in rs], 0, '%'),
                     fmt_vals([engine_share(r)[1] for r in rs], 0, '%')])
    lines += md_rows(['placement', 'busy, max / mean', 'busy by engine (s)',
                      'charged, max / mean', 'QPs per engine', 'messages/s, all QPs',
                      "engine threads' share of turns", 'of guest CPU'], rows)
    lines += ['', f"Each repetition, max / mean of busy time, {' / '.join(g[1] for g in groups)}: "
              + '; '.join(' / '.join(f'{max_over_mean(busy(x)):.2f}' for x in group)
                          for group in zip(*(g[3] for g in groups))) + '.']
    dyn = median([max_over_mean(busy(r)) for r in dy])
    if dyn:
        lines += ['', f'Goal, dynamic at most {BALANCE_GOAL}: median {dyn:.2f}, '
                  f'{"met" if dyn <= BALANCE_GOAL else "not met"} '
                  f'({sum(max_over_mean(busy(r)) <= BALANCE_GOAL for r in dy)} of '
                  f'{len(dy)} repetitions within it); static: '
                  f'{median([max_over_mean(busy(r)) for r in st]):.2f}' +
                  (f', spread: {median([max_over_mean(busy(r)) for r in sp]):.2f}' if sp else '')
                  + (f'; dynamic at ocu_byte_shift {alt_shift}: '
                     f'{median([max_over_mean(busy(r)) for r in alt]):.2f}.' if alt else '.')]
    return lines, [(g[2], g[3]) for g in groups]


def pp_via(r):
    """How the ping-pong's sends reached the kernel, from its QPs' counters."""
    if 'pp' not in r:
        return '-'
    total = {f: sum(p[f] for p in r['pp']) for f in ('turns', 'll_taken', 'doorbells', 'wqes')}
    return (f"{total['wqes']} WQEs, {total['ll_taken']} in their own low-latency command, "
            f"{total['doorbells']} with a doorbell, {total['turns']} turns")


def ocu_isolation_table(runs, poll):
    xs = select(runs, mode='isolation', driver='xrxe', pp_poll_us=poll)
    co, dy = select(xs, placement='collide'), select(xs, placement='dynamic')
    if not co or not dy:
        return [], None
    stock = select(runs, mode='isolation', driver='rxe') if not poll else []
    size = co[0]['qps'][0]['size'] if co[0].get('qps') else 0
    if not poll:
        lines = ['### Isolation', '',
                 f"A 64 B ping-pong beside {co[0]['nqps']} bulk QPs writing {size} B; ratios "
                 'dynamic over static.', '']
    else:
        lines = [f'### Isolation, ping-pong served by its engine ({poll} us busy-poll window)',
                 '', 'The same, the ping-pong\'s sends taken by its engine.', '']
    p99 = paired_ratio(by_rep(dy), by_rep(co), 'pp_p99_us')
    bulk = paired_ratio(by_rep(dy), by_rep(co), 'bulk_msgs_per_s')
    rows = []
    for name, rs, rp, rb in (('static, colliding', co, None, None),
                             ('dynamic', dy, p99, bulk), ('stock rxe', stock, None, None)):
        if not rs:
            continue
        eng = ('-' if 'engines' not in rs[0] else ' / '.join(
            fmt_vals([busy(r)[i] for r in rs], 3) for i in range(len(busy(rs[0])))))
        rows.append([name, fmt_vals([r['pp_p50_us'] for r in rs], 0),
                     fmt_vals([r['pp_p99_us'] for r in rs], 0), fmt_spread(rp) if rp else '-',
                     fmt_vals([r['pp_iters'] for r in rs], 0),
                     fmt_vals([r['bulk_msgs_per_s'] for r in rs], 0),
                     fmt_spread(rb, 3) if rb else '-', eng, pp_via(rs[0])])
    lines += md_rows(['placement', 'ping-pong p50 (us)', 'p99 (us)', 'p99 / static',
                      'round trips', 'bulk messages/s', 'bulk / static',
                      'engine busy (s), by engine',
                      "the ping-pong's sends (first repetition)"], rows)
    if p99 and bulk:
        lines += ['', f'Goals: ping-pong p99 dynamic at most {ISOLATION_GOAL}x static: '
                  f'{p99[0]:.2f}x, {"met" if p99[0] <= ISOLATION_GOAL else "not met"}; '
                  f'bulk rate dynamic at least {BULK_GOAL}x static: {bulk[0]:.3f}x, '
                  f'{"met" if bulk[0] >= BULK_GOAL else "not met"}.']
    return lines, [('static,\ncolliding', co), ('dynamic', dy)] + (
        [('stock rxe', stock)] if stock else [])


def throughput_table(runs):
    tp = select(runs, mode='throughput')
    if not tp:
        return [], None
    lines = ['### Throughput', '',
             f"Bulk QPs writing {tp[0]['qps'][0]['size']} B, each on an OCU of its own; "
             'messages a second of all QPs together, ratios paired.', '']
    data, rows = {}, []
    for n in sorted({r['nqps'] for r in tp}):
        st, dy = select(tp, nqps=n, placement='static'), select(tp, nqps=n, placement='dynamic')
        data[n] = (st, dy, select(tp, nqps=n, driver='rxe'))
        rows.append([str(n)] + [fmt_vals([r['bulk_msgs_per_s'] for r in rs], 0)
                                for rs in data[n]] +
                    [fmt_spread(paired_ratio(by_rep(data[n][a]), by_rep(data[n][b]),
                                             'bulk_msgs_per_s'))
                     for a, b in ((1, 0), (1, 2), (0, 2))] +
                    [f'{fmt_vals([engine_share(r)[0] for r in st], 0, "%")} / '
                     f'{fmt_vals([engine_share(r)[0] for r in dy], 0, "%")}', qps_per_engine(st)])
    lines += md_rows(['QPs', 'static', 'dynamic', 'stock rxe', 'dynamic / static',
                      'dynamic / stock', 'static / stock', "engine threads' share of turns",
                      'static: QPs per engine'], rows)
    return lines, data


def scale_table(runs):
    sc = select(runs, mode='scale')
    if not sc:
        return []
    x, s = select(sc, driver='xrxe'), select(sc, driver='rxe')
    ref = (x or s)[0]
    idle = ref['idle_qps']
    lines = ['### Scale', '',
             f'{ref["nqps"]} bulk QPs writing {ref["alone"]["qps"][0]["size"]} B at a '
             f"fixed rate ({ref['alone']['list_rate']:.0f} lists of 32 a second each) alone, "
             f'then beside {idle} idle RC QPs in RTS, then alone again, each window after '
             f'a {PAUSE_S} s pause.', '']
    figures = (('messages/s', lambda p: p['bulk_msgs_per_s'] * p['window_s'], 0),
               ('engine busy, s/s', lambda p: p.get('engine_busy_s'), 3),
               # Records from before they named their vCPUs had 2.
               (f"guest CPU busy, s/s (of {ref.get('vcpus', 2)})", lambda p: p['cpu_busy_s'],
                3))
    rows = []
    for drv, rs in (('xrxe', x), ('stock rxe', s)):
        for name, f, digits in figures:
            if not rs or rs[0]['alone'].get('engine_busy_s') is None and 'engine' in name:
                continue
            per_s = {ph: [f(r[ph]) / r[ph]['window_s'] for r in rs]
                     for ph in ('alone', 'beside_idle', 'alone_after')}
            rows.append([drv, name] + [fmt_vals(v, digits) for v in per_s.values()] +
                        [fmt_vals([b / ((a + c) / 2) for a, b, c in zip(*per_s.values())], 3)])
        if rs and 'paused_cpu' in rs[0]:
            rows.append([drv, f'guest CPU in the {PAUSE_S} s pause before, s/s'] +
                        [fmt_vals([r['paused_cpu'][k] for r in rs], 3) for k in range(3)] +
                        ['-'])
    lines += md_rows(['driver', 'figure', 'alone', 'beside idle QPs', 'alone again',
                      'beside / alone'], rows)
    lines += ['', 'Per idle QP: memory (KiB, /proc/meminfo) and time:', '']

    def kib(rs, field, digits, sign=1):
        return fmt_vals([sign * (r['mem_kib'][field][1] - r['mem_kib'][field][0]) /
                         r['idle_qps'] for r in rs], digits)
    rows = [[drv, kib(rs, 'avail', 1, -1), kib(rs, 'slab', 1), kib(rs, 'vmalloc', 1),
             kib(rs, 'pagetables', 2),
             f'{fmt_vals([r["create_s"] * 1e3 / r["idle_qps"] for r in rs], 2)}, '
             f'{fmt_vals([r["destroy_s"] * 1e3 / r["idle_qps"] for r in rs], 2)}']
            for drv, rs in (('xrxe', x), ('stock rxe', s)) if rs]
    return lines + md_rows(['driver', 'MemAvailable', 'Slab', 'VmallocUsed', 'PageTables',
                            'ms to create, to destroy'], rows)



def plot_balance(plt, groups):
    st = groups[0][1]
    fig, ax = plt.subplots(figsize=(6, 3.8))
    bars(ax, [(name, [(r['rep'], max_over_mean(busy(r))) for r in rs]) for name, rs in groups])
    reps = range(len(st))
    ax.axhline(BALANCE_GOAL, color='k', ls=':', lw=1, label=f'goal {BALANCE_GOAL}')
    ax.set(xticks=list(reps), xticklabels=[f'rep {i + 1}' for i in reps],
           ylabel='engine busy time, max / mean', ylim=(0.9, 2.5),
           title=f'{len(st[0]["qps"])} QPs, 64 B to 64 KiB, on {len(busy(st[0]))} engines')
    ax.legend(fontsize='small', ncol=3, loc='upper center')
    return fig


def plot_isolation(plt, groups):
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.8))
    xs = list(range(len(groups)))
    for ax, field, name, off in ((axes[0], 'pp_p50_us', 'p50', -0.2),
                                 (axes[0], 'pp_p99_us', 'p99', 0.2),
                                 (axes[1], 'bulk_msgs_per_s', None, 0)):
        vals = [spread([r[field] for r in rs]) for _, rs in groups]
        ax.bar([x + off for x in xs], [v[0] for v in vals], 0.8 - 2 * abs(off), label=name,
               yerr=error_bars(vals), capsize=3)
        ax.set_xticks(xs, [g for g, _ in groups])
    axes[0].set_yscale('log')
    axes[0].set_ylabel('ping-pong half round trip (us)')
    axes[0].legend(fontsize='small')
    axes[1].set_ylabel('bulk QPs, messages/s')
    fig.suptitle('a ping-pong beside 3 bulk QPs (median, min-max)')
    return fig


def plot_throughput(plt, data):
    fig, ax = plt.subplots(figsize=(6, 3.8))
    counts = sorted(data)
    for i, name in enumerate(('static', 'dynamic', 'stock rxe')):
        pts = [(n, spread([r['bulk_msgs_per_s'] for r in data[n][i]])) for n in counts]
        pts = [(n, m) for n, m in pts if m]
        if pts:
            # Apart a little, so that the ranges do not hide each other.
            ax.errorbar([n * 1.06 ** (i - 1) for n, _ in pts], [m[0] for _, m in pts],
                        yerr=error_bars([m for _, m in pts]), marker='o', capsize=3, label=name)
    ax.set_xscale('log', base=2)
    ax.set(xticks=counts, xticklabels=[str(n) for n in counts], xlabel='QPs',
           ylabel='messages/s, all QPs (4 KiB writes)', ylim=(0, None))
    ax.legend(fontsize='small')
    return fig


def ocu(args):
    """ocu.json into ocu.md and its plots; 1 if a run failed or a table
    has nothing to show, after --docs."""
    [runs] = load(args.dir, 'ocu.json')
    meta = (select(runs, mode='meta') or [{}])[0]
    params, header = meta.get('params', {}), args.header
    if meta:
        header += (f' {meta["reps"]} repetition(s), {meta["window_s"]:g} s windows after 0.5 s of '
                   f'warm-up; {params.get("engine_threads")} engines, {params.get("ocus")} OCUs, '
                   f'engine_quantum {params.get("engine_quantum")}, engine_idle_us '
                   f'{params.get("engine_idle_us")}.')
    bal, bal_runs = balance_table(runs, params)
    iso, iso_runs = ocu_isolation_table(runs, 0)
    tput, tput_data = throughput_table(runs)
    failed = select(runs, mode='failed')
    md = document(header.strip(), (
        bal, balance_table(runs, params, paced=True)[0], iso, ocu_isolation_table(runs, 100)[0],
        tput, scale_table(runs), failed and ['### Failed runs', ''] + [
            f'- rep {r["rep"]}: `{r["command"]}`: {r["error"]}' for r in failed]))
    plots = (draw(args.dir, 'ocu-balance.png',
                  'engine busy time, max over mean, by repetition', plot_balance, bal_runs) +
             draw(args.dir, 'ocu-isolation.png', 'ping-pong beside 3 bulk QPs',
                  plot_isolation, iso_runs) +
             draw(args.dir, 'ocu-throughput.png', 'message rate by QPs', plot_throughput,
                  tput_data))
    return publish(args, [('ocu.md', md, 'bench/ocu.md', 'ocu', plots)],
                   failed=bool(failed) or not (bal_runs and iso_runs and tput_data))


# ---- coalesce: coalescing, and records then a tag ----
#
# The append workload (coalesce.json): a mode's rate is compared with stock
# rxe's, and with xrxe's without coalescing, at the same point (stream and
# number of QPs) of the same repetition (paired_ratio). Packets per message
# are every packet both devices sent over the window, ACKs included, over
# the messages completed in it; the requester's are its own device's alone.
#
# Records then a tag (tag.json): a mode's records a second against the
# others' at the same record size, paired the same way; packets per record
# from both devices' counters; the time the tag waited for its flush
# domain, per round, from the tag QP's own counters; the engines the QPs
# ran on.
#
# A run the tables cannot use fails the report before anything is written.

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


class ReportError(Exception):
    pass


def check_devices(r, what):
    if len(r['devices']) != 2 or any('sent_pkts' not in d for d in r['devices'].values()):
        raise ReportError(f'{what}: sent_pkts of both devices missing')


def check_run(r):
    """An append run the report can use, else ReportError saying why not."""
    for field in ('mode', 'stream', 'qps', 'rep', 'messages', 'msgs_per_s', 'devices'):
        if field not in r:
            raise ReportError(f'a run without {field}: {r}')
    what = f"{r['mode']} {r['stream']} {r['qps']} QPs rep {r['rep']}"
    if r['messages'] <= 0 or r['msgs_per_s'] <= 0:
        raise ReportError(f'{what}: no messages')
    check_devices(r, what)


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
    check_devices(r, what)
    if r['mode'] in ('domain', 'domain1') and not tag_qp(r).get('domain_flushes'):
        raise ReportError(f'{what}: a domain mode whose tag QP counted no domain flush')


def pkts_per(r, unit='messages', requester=False):
    """Packets both devices (or the requester's alone: the driver's device
    0, where the writes left from) sent, per one of r's unit."""
    devices = r['devices']
    sent = devices[min(devices)]['sent_pkts'] if requester else \
        sum(d['sent_pkts'] for d in devices.values())
    return sent / r[unit]


def qp_sums(r, *fields):
    """The sums of fields over the QPs' counters; None without counters."""
    qps = r.get('qp_counters')
    return qps and [sum(q[f] for q in qps) for f in fields]


def wqes_per_merged_msg(r):
    """WQEs a coalesced message carried on average (None: none merged or
    no counters)."""
    msgs, wqes = qp_sums(r, 'msgs_coalesced', 'wqes_coalesced') or (0, 0)
    return (msgs + wqes) / msgs if msgs else None


def coalesced_share(r):
    """The share of the WQEs taken that went in an earlier one's message."""
    fetched, merged = qp_sums(r, 'wqes_fetched', 'wqes_coalesced') or (0, 0)
    return merged / fetched if fetched else None


def tag_qp(r):
    return (r.get('qp_counters') or [{}])[0]


def tag_wait_us(r):
    """The tag's wait for its domain per flagged tag, in us (None: no flush)."""
    n = tag_qp(r).get('domain_flushes')
    return tag_qp(r)['domain_wait_us'] / n if n else None


def engines_of(r):
    """The engine each QP was last served by, e.g. '0,1,0,1' (None on stock)."""
    qps = r.get('qp_counters')
    return qps and ','.join('?' if q['engine'] < 0 else str(q['engine']) for q in qps) or None


def rep_index(runs, check, point, name):
    """{point(run): {mode: {rep: run}}} of the runs, each passed by check;
    a run twice is an error, name(run) saying which."""
    out = {}
    for r in runs:
        check(r)
        at = out.setdefault(point(r), {}).setdefault(r['mode'], {})
        if r['rep'] in at:
            raise ReportError(f"{name(r)}: repetition {r['rep']} twice")
        at[r['rep']] = r
    return out


def append_index(runs):
    """{(stream, qps): {mode: {rep: run}}}."""
    return rep_index(runs, check_run, lambda r: (r['stream'], r['qps']),
                     lambda r: f"{r['mode']} {r['stream']} {r['qps']} QPs")


def tag_index(runs):
    """{size: {mode: {rep: run}}}."""
    return rep_index(runs, check_tag_run, lambda r: r['size'],
                     lambda r: f"tag {r['mode']} {r['size']} B")


def median_of(by_rep, f):
    return median(map(f, by_rep.values()))


def modes_of(idx, order=MODE_ORDER):
    """The modes of idx, those of order first, in its order."""
    seen = {m for point in idx.values() for m in point}
    return [m for m in order if m in seen] + sorted(seen - set(order))


def points_of(idx):
    def order(p):
        s, q = p
        return (STREAM_ORDER.index(s) if s in STREAM_ORDER else len(STREAM_ORDER), s, q)
    return sorted(idx, key=order)


def point_name(p):
    stream, qps = p
    return f"{stream}, {qps} QP{'s' if qps > 1 else ''}"


def size_name(size):
    return f'{size >> 10} KiB' if size >= 1024 and size % 1024 == 0 else f'{size} B'


def mode_table(idx, points, name, head, modes, cell):
    """A row a point, name(point) first, and a column a mode: cell(mode,
    its runs there by repetition, the point's modes) where it ran there,
    '-' elsewhere. head: the columns' titles."""
    return md_rows(head, [[name(p)] + [cell(m, idx[p][m], idx[p]) if idx[p].get(m) else '-'
                                       for m in modes] for p in points])


def rate_table(idx, modes):
    def cell(m, at, point):
        rate = f"{median_of(at, lambda r: r['msgs_per_s']):.0f}"
        stock = point.get(STOCK)
        return rate if m == STOCK else \
            f'{rate}, **{fmt_spread(stock and paired_ratio(at, stock))}**'
    return mode_table(idx, points_of(idx), point_name, ['point'] + modes, modes, cell)


def packets_cell(at, unit='messages'):
    """Medians of the packets per unit both devices sent / the requester."""
    return ' / '.join(fmt_value(median_of(at, lambda r: pkts_per(r, unit, requester)), 3)
                      for requester in (False, True))


def merge_table(idx, modes):
    def cell(m, at, point):
        plain = point.get(PLAIN)
        share = median_of(at, coalesced_share)
        return (f'{fmt_spread(plain and paired_ratio(at, plain))}, '
                f'{fmt_value(median_of(at, wqes_per_merged_msg), 1)}, '
                f"{'n/a' if share is None else f'{share:.0%}'}")
    xmodes = [m for m in modes if m not in (STOCK, PLAIN)]
    return mode_table(idx, points_of(idx), point_name, ['point'] + [
        f'{m}: vs xrxe, WQEs a merged message, share merged' for m in xmodes], xmodes, cell)


def goal_lines(idx, modes):
    """Per adjacent point, the best coalescing mode's ratio to stock and its
    packets per message against the goal; gapped points against xrxe."""
    out = []
    for p in points_of(idx):
        stock, plain = idx[p].get(STOCK), idx[p].get(PLAIN)
        xmodes = [m for m in modes if m not in (STOCK, PLAIN) and m in idx[p]]
        if xmodes and p[0] == 'adjacent' and stock:
            judged = []
            for m in xmodes:
                ratio = paired_ratio(idx[p][m], stock)
                pkts = median_of(idx[p][m], pkts_per)
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
        elif xmodes and p[0] != 'adjacent' and plain:
            ratios = [(m, paired_ratio(idx[p][m], plain)) for m in xmodes]
            ratios = [(m, x) for m, x in ratios if x]
            if ratios:
                worst = min(ratios, key=lambda mx: mx[1][0])
                out.append(f'- {point_name(p)}: against xrxe without coalescing, '
                           + ', '.join(f'{m} {fmt_spread(x)}' for m, x in ratios)
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
                if share is not None and p[0] != 'adjacent' and share > 0:
                    out.append(f'{m} {point_name(p)} rep {rep}: merged {share:.1%} of '
                               'the WQEs of a stream with gaps')
                if share is not None and p[0] == 'adjacent' and m != PLAIN and share == 0:
                    out.append(f'{m} {point_name(p)} rep {rep}: coalescing on, nothing merged')
    return out


def path_mtu(r):
    mtu = f" (netdev MTU {r['netdev_mtu']})" if r.get('netdev_mtu') else ''
    return f"path MTU {r['path_mtu']}{mtu}"


def windows(r, reps):
    return (f"{r['window_s']:.0f} s windows, {reps} repetition{'s' if reps > 1 else ''}; "
            'medians. Modes:')


def report_text(header, intro, modes, about, sections, ends):
    """A workload's page: header, intro, the modes, then each section
    (title, what it shows, its table), then each end (title, its lines)
    that has lines."""
    lines = [header, '', intro, ''] + [f'- `{m}`: {about.get(m, m)}' for m in modes]
    for title, text, table in sections:
        lines += ['', f'### {title}', '', text, ''] + table
    for title, end in ends:
        lines += ['', title, ''] + end if end else []
    return '\n'.join(lines) + '\n'


def append_report(runs, header):
    idx = append_index(runs)
    if not idx:
        raise ReportError('no runs')
    modes = modes_of(idx)
    reps = len({r['rep'] for r in runs})
    r0 = runs[0]
    ring = r0['ring_bytes']
    ring = f'{ring >> 20} MiB' if ring % (1 << 20) == 0 else f'{ring >> 10} KiB'
    return report_text(header, (
        f"{r0['size']} B RDMA WRITEs, every {r0['signal_every']}th signalled, {r0['depth']} "
        f"outstanding a QP, into a {ring} ring a QP, {path_mtu(r0)}; gapped: a "
        f"{max(r['gap'] for r in runs)}-byte gap after each write. {windows(r0, reps)}"),
        modes, ABOUT, (
        ('Message rate', 'Messages a second; in bold the paired ratio to stock rxe.',
         rate_table(idx, modes)),
        ('Packets per message', 'Both devices\' / the requester\'s.',
         mode_table(idx, points_of(idx), point_name, ['point'] + modes, modes,
                    lambda m, at, point: packets_cell(at))),
        ('Against xrxe without coalescing', 'Paired ratio to `xrxe`, WQEs a merged message, '
         'share of the WQEs merged.', merge_table(idx, modes))),
        (('### Against the goal', goal_lines(idx, modes)),
         ('Counters out of place:', [f'- {b}' for b in anomalies(idx)])))


def tag_rate_table(idx, modes):
    def cell(m, at, point):
        return (f"{median_of(at, lambda r: r['records_per_s']):.0f} "
                f"({median_of(at, lambda r: r['rounds_per_s']):.0f})")
    return mode_table(idx, sorted(idx, reverse=True), size_name, ['records'] + modes, modes,
                      cell)


def tag_ratio_table(idx):
    pairs = [(m, b) for m, b in TAG_RATIOS if any(m in idx[s] and b in idx[s] for s in idx)]
    return md_rows(['records'] + [f'{m} / {b}' for m, b in pairs], [
        [size_name(size)] + [fmt_spread(m in idx[size] and b in idx[size] and paired_ratio(
            idx[size][m], idx[size][b], 'records_per_s')) for m, b in pairs]
        for size in sorted(idx, reverse=True)])


def tag_detail_table(idx, modes):
    rows = []
    for size in sorted(idx, reverse=True):
        for m in modes:
            at = idx[size].get(m)
            if at:
                engines = sorted({e for e in map(engines_of, at.values()) if e})
                rows.append([size_name(size), m, packets_cell(at, 'records'),
                             fmt_value(median_of(at, tag_wait_us), 0),
                             '; '.join(engines) or 'n/a',
                             str(sum(r['tag_checks'] for r in at.values()))])
    return md_rows(['records', 'mode', 'packets a record (both / requester)',
                    'tag wait a round (us)', 'engines of the QPs', 'tag moves checked'], rows)


def tag_verdicts(idx):
    """Per size: did 4 QPs with the domain flush beat one QP, and the
    program's own wait for the completions?"""
    out = []
    for size in sorted(idx, reverse=True):
        at = idx[size]
        parts = []
        for base, name in (('one', 'one QP'), ('wait', 'waiting for the completions')):
            x = 'domain' in at and base in at and \
                paired_ratio(at['domain'], at[base], 'records_per_s')
            if x:
                verdict = 'faster than' if x[1] > 1 else 'slower than' if x[2] < 1 else \
                    'not clearly apart from'
                parts.append(f'{verdict} {name} ({fmt_spread(x)})')
        if parts:
            out.append(f'- {size_name(size)} records: 4 QPs with the domain flush are '
                       + ' and '.join(parts) + '.')
    return out


def tag_report(runs, header):
    idx = tag_index(runs)
    if not idx:
        raise ReportError('no records-then-tag runs')
    modes = modes_of(idx, TAG_MODE_ORDER)
    reps = len({r['rep'] for r in runs})
    r0 = runs[0]
    return report_text(header, (
        f"Rounds of {r0['records_per_round']} records "
        f"({' and '.join(size_name(s) for s in sorted(idx, reverse=True))} each), then an "
        f"8-byte tag; at most {r0['outstanding_rounds']} rounds outstanding; {path_mtu(r0)}, "
        f"no coalescing. {windows(r0, reps)}"), modes, TAG_ABOUT, (
        ('Records a second', 'Records a second (rounds a second in brackets).',
         tag_rate_table(idx, modes)),
        ('Ratios', 'Records a second, paired ratios.', tag_ratio_table(idx)),
        ('Packets, the wait, the engines', 'Packets: both devices\' / the requester\'s.',
         tag_detail_table(idx, modes))),
        (('### Verdict', tag_verdicts(idx)),))


def bar_panels(plt, modes, xlabels, panels):
    """Two panels (their [(mode, its figure at each of xlabels)], y label)
    of bars(), a colour a mode of modes in both; the figure and its axes."""
    colour = {m: f'C{i}' for i, m in enumerate(modes)}
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, (series, ylabel) in zip(axes, panels):
        bars(ax, [(m, list(enumerate(ys))) for m, ys in series], colour)
        ax.set_xticks(range(len(xlabels)))
        ax.set_xticklabels(xlabels, fontsize='small')
        ax.set_ylabel(ylabel)
    return fig, axes


def append_plot(plt, runs):
    idx = append_index(runs)
    modes, points = modes_of(idx), points_of(idx)
    fig, (ax1, ax2) = bar_panels(plt, modes, [point_name(p) for p in points], (
        ([(m, [(paired_ratio(idx[p][m], idx[p][STOCK]) or (0,))[0]
               if m in idx[p] and STOCK in idx[p] else 0 for p in points])
          for m in modes if m != STOCK], 'messages/s, ratio to stock rxe'),
        ([(m, [(median_of(idx[p][m], pkts_per) or 0) if m in idx[p] else 0 for p in points])
          for m in modes], 'packets per message (both devices)')))
    ax1.axhline(1, color='k', lw=0.7)
    ax1.axhline(GOAL_RATIO, color='r', ls=':', lw=0.8, label=f'goal {GOAL_RATIO:g}x')
    ax2.axhline(GOAL_PKTS, color='r', ls=':', lw=0.8, label=f'goal {GOAL_PKTS:g}')
    ax2.set(yscale='log', ylim=(None, 40))  # room for the legend above the bars
    ax1.legend(fontsize='x-small')
    ax2.legend(fontsize='x-small', ncol=3)
    return fig


def tag_plot(plt, runs):
    idx = tag_index(runs)
    modes, sizes = modes_of(idx, TAG_MODE_ORDER), sorted(idx, reverse=True)
    waits = [(m, [(median_of(idx[s][m], tag_wait_us) or 0) if m in idx[s] else 0
                  for s in sizes]) for m in modes]
    fig, axes = bar_panels(plt, modes, [f'{size_name(s)} records' for s in sizes], (
        ([(m, [median_of(idx[s][m], lambda r: r['records_per_s']) if m in idx[s] else 0
               for s in sizes]) for m in modes], 'records/s'),
        # The modes whose tag waited for its domain.
        ([(m, w) for m, w in waits if any(m in idx[s] and median_of(idx[s][m], tag_wait_us)
                                          is not None for s in sizes)],
         "the tag's wait for its domain, us a round")))
    for ax in axes:
        ax.legend(fontsize='x-small')
    return fig


def coalesce(args):
    """coalesce.json and tag.json, each where the sweep ran it, into their
    tables and plots; exits before writing anything on a run the tables
    cannot use."""
    runs, tag_runs = load(args.dir, 'coalesce.json', 'tag.json')
    try:
        md = runs is not None and append_report(runs, args.header)
        tag_md = tag_runs is not None and tag_report(tag_runs, args.header)
    except ReportError as e:
        sys.exit(f'report: {e}')
    parts = []
    if md:
        parts.append(('coalesce.md', md, 'bench/coalesce.md', 'coalesce', draw(
            args.dir, 'coalesce-append.png', 'append workload: rate against stock, packets '
            'per message', append_plot, runs)))
    if tag_md:
        parts.append(('tag.md', tag_md, 'bench/coalesce.md', 'tag', draw(
            args.dir, 'coalesce-tag.png', "records then a tag: records a second, the tag's "
            'wait for its flush domain', tag_plot, tag_runs)))
    return publish(args, parts)


# ---- The workloads ----

# An entry each, as bench/xrxe-bench --workload names it: the function that
# turns what its guest runner wrote into DIR into its tables, plots and
# docs page, and returns the report's exit status.
WORKLOADS = {'perftest': perftest, 'pace': pace, 'ocu': ocu, 'coalesce': coalesce}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('dir')
    ap.add_argument('--workload', choices=WORKLOADS, default='perftest',
                    help='what DIR holds the results of (default perftest)')
    ap.add_argument('--header', default='',
                    help="the tables' first paragraph (perftest makes its own of raw.json)")
    ap.add_argument('--docs', help="docs directory: write the tables and plots into the "
                    "workload's page")
    ap.add_argument('--brief', action='store_true',
                    help='print only the short summary (perftest) or where the tables are '
                    '(the files are written either way)')
    ap.add_argument('--sweep', nargs='+', metavar='RUN_DIR',
                    help="perftest: write DIR/sweep.md from these runs' raw.json (one a "
                    'guest CPU count) instead')
    args = ap.parse_args()
    if args.sweep and args.workload != 'perftest':
        ap.error('--sweep sums up perftest runs')
    if args.sweep and args.docs:
        ap.error('--docs records one run, not a sweep')
    return WORKLOADS[args.workload](args)


if __name__ == '__main__':
    sys.exit(main())
