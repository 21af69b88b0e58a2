# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Send rate limits (docs/rate-limit.md), with xrxe-pace-bench; modes xrxe
and stock (stock rxe runs only in isolation and cost), parts:

  accuracy    RC writes of 64 B, 4 KiB and 64 KiB and UD sends of 64 B and
              1 KiB, one QP with no limit and limits of 1, 10 and 100
              Mbit/s and 80% of the unlimited rate (a rate above 80% of it
              is skipped), over a 5 s window after 1 s of warm-up, from the
              IP bytes its netdev transmitted; each limit above 10 Mbit/s
              runs between two unlimited runs of its own, its record keeps
              both; RC 4 KiB at 10 Mbit/s also writes its 10 ms time series
  isolation   one engine (engines=1), so that every doorbell-less QP shares
              it: an unpaced stream and a ping-pong, alone and together,
              each beside a backlogged QP paced at 1 and 10 Mbit/s, and
              beside the same messages sent with no limit, the program
              pacing them (the rates cost measures: measured, unrecorded,
              when cost does not run); stock rxe's stream and ping-pong
  multi       four backlogged QPs at 1, 2, 5 and 10 Mbit/s
  cost        guest CPU with one QP backlogged at 1 and 10 Mbit/s, and
              idle; the same messages a second paced by the program with
              no limit, on xrxe and on stock rxe

--reps repeats isolation and multi; --short: RC 4 KiB accuracy at 1 and
10 Mbit/s, the rest once (about 3 minutes). Writes pace.json (a line a
run), pace.md (the tables), pace-accuracy.png and pace-series.png; default
directory build/pace-bench. A failed run ends the sweep with its error.
"""
from guest import Records, driver

POINTS = (('rc', 64), ('rc', 4096), ('rc', 65536), ('ud', 64), ('ud', 1024))
SHORT = (('rc', 4096),)
RATES = (1000, 10000, 100000)
LOW_KBPS = 10000        # above it, a limit runs between two unlimited runs
SERIES = ('rc', 4096, 10000)
WINDOW = 5
ISOLATION_SIZE = 4096
ISOLATION_KBPS = (1000, 10000)
MIX = ('s', 'sp', 'sq', 'l', 'lp', 'lq', 'sl', 'slp', 'slq')
STOCK_MIX = ('s', 'l', 'sl')
MULTI = (1000, 2000, 5000, 10000)
MULTI_SIZE = 1024
COST = (0,) + ISOLATION_KBPS

MODES = ('xrxe', 'stock')
PARTS = ('accuracy', 'isolation', 'multi', 'cost')
PART_MODES = {'accuracy': ('xrxe',), 'isolation': MODES, 'multi': ('xrxe',), 'cost': MODES}


def selected(a):
    """{part: its modes} of the parts and modes a run takes."""
    sel = {p: [m for m in PART_MODES[p] if m in (a.modes or MODES)] for p in a.tests or PARTS}
    return {p: m for p, m in sel.items() if m}


def count(a, ap):
    return sum(map(len, selected(a).values()))


class Pace:
    def __init__(self, a):
        self.a = a
        self.records = Records(a.out, 'pace.json')

    def run(self, *args, record=True):
        return self.records.run([self.a.tool, '-w', WINDOW, *args], record=record)

    def accuracy(self):
        short = self.a.short
        for kind, size in SHORT if short else POINTS:
            ref = self.run('-m', 'accuracy', '-t', kind, '-s', size, '-r', 0)
            top = int(ref['measured_kbps'] * 0.8)
            rates = [k for k in (RATES[:2] if short else RATES) if k <= top]
            if not short:
                rates.append(None)
            for kbps in rates:
                self.limit(kind, size, kbps)

    def limit(self, kind, size, kbps):
        """A limit's run (kbps None: 80% of the unlimited rate before it)."""
        extra = ['-T', f'{self.a.out}/pace-series.txt'] if (kind, size, kbps) == SERIES else []
        before = None
        if kbps is None or kbps > LOW_KBPS:
            before = self.run('-m', 'accuracy', '-t', kind, '-s', size, '-r', 0)
            if kbps is None:
                kbps = int(before['measured_kbps'] * 0.8)
        x = self.run('-m', 'accuracy', '-t', kind, '-s', size, '-r', kbps, *extra,
                     record=before is None)
        if before:
            after = self.run('-m', 'accuracy', '-t', kind, '-s', size, '-r', 0)
            x['unlimited_before_kbps'] = before['measured_kbps']
            x['unlimited_after_kbps'] = after['measured_kbps']
            self.records.write(x)
        print(f'{kind} {size} B at {kbps} kbit/s: {x["measured_kbps"]:.0f} '
              f'({x["error_pct"]:+.2f}%), at most {x["max_excess_bytes"]:.0f} B '
              f'above the rate in a slice (burst {x["burst_bytes"]} B)'
              + (f'; no limit {before["measured_kbps"]:.0f} before, '
                 f'{after["measured_kbps"]:.0f} after' if before else ''), flush=True)

    def isolation(self, modes, own_rate):
        """own_rate: the messages a second each limit let through in cost(),
        which the q configurations send paced by the program."""
        if 'xrxe' in modes:
            driver('remove_driver xrxe', 'load_driver xrxe engines=1', 'add_devices xrxe')
            for rep in range(self.a.reps):
                for config in MIX:
                    third = 'p' in config or 'q' in config
                    for kbps in ISOLATION_KBPS if third else (0,):
                        extra = ['-r', kbps, '-a', own_rate[kbps]] if third else []
                        x = self.run('-m', 'mix', '-c', config, '-s', ISOLATION_SIZE, *extra)
                        print(f'rep {rep} xrxe {config} {kbps}: {x}', flush=True)
        if 'stock' in modes:
            driver('switch_driver rxe')
            for rep in range(self.a.reps):
                for config in STOCK_MIX:
                    x = self.run('-D', 'rxe', '-m', 'mix', '-c', config, '-s', ISOLATION_SIZE)
                    print(f'rep {rep} rxe {config}: {x}', flush=True)
            driver('switch_driver xrxe')

    def multi(self):
        for rep in range(self.a.reps):
            x = self.run('-m', 'multi', '-s', MULTI_SIZE, '-r', ','.join(map(str, MULTI)))
            print(f'rep {rep} multi: {x}', flush=True)

    def cost(self, modes):
        """The limit's CPU (xrxe), then the same messages a second paced by
        the program itself with no limit, in modes: what the traffic costs
        anyway. Returns those messages a second, by limit."""
        own = {}
        for kbps in COST:
            if kbps or 'xrxe' in modes:
                x = self.run('-m', 'cost', '-s', ISOLATION_SIZE, '-r', kbps,
                             record='xrxe' in modes)
                print(f'cost at {kbps} kbit/s: {x}', flush=True)
            if kbps:
                own[kbps] = round(x['messages'] / x['window_s'], 1)
        for drv in [d for m, d in (('xrxe', 'xrxe'), ('stock', 'rxe')) if m in modes]:
            driver(f'switch_driver {drv}')
            for rate in own.values():
                x = self.run('-D', drv, '-m', 'cost', '-s', ISOLATION_SIZE, '-r', 0, '-a', rate)
                print(f'cost of {rate} messages/s paced by the program on {drv}: {x}',
                      flush=True)
        driver('switch_driver xrxe')
        return own


def run(a):
    p = Pace(a)
    sel = selected(a)
    if 'accuracy' in sel:
        p.accuracy()
    if 'multi' in sel:
        p.multi()
    own = None
    if 'cost' in sel or 'xrxe' in sel.get('isolation', ()):
        own = p.cost(sel.get('cost', ()))
    if 'isolation' in sel:
        p.isolation(sel['isolation'], own)
    return 0
