#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Guest side of bench/xrxe-bench --workload pace: the rate limit sweeps,
one boot.

- accuracy: for each message size, what the testbed sustains with no limit,
  then 1, 10 and 100 Mbit/s and 80% of the unlimited rate (rates above 80%
  of it are skipped: the link could not carry them); RC 4 KiB at 10 Mbit/s
  also writes its 10 ms time series. The unlimited rate drifts within a
  boot, so each limit above 10 Mbit/s runs between two unlimited runs of
  its own, and its line records both (80% is taken of the one before).
- isolation, with one engine (module parameter engines=1) so that every
  doorbell-less QP shares it: an unpaced stream and a ping-pong, alone and
  together, each without a third QP, beside a backlogged QP paced at 1 and
  at 10 Mbit/s, and beside the same messages a second sent with no limit,
  the program pacing them itself (what the traffic costs whoever paces it);
  interleaved repetitions; stock rxe's stream and ping-pong in the same
  boot for reference.
- multi: four backlogged QPs at four limits.
- cost: guest CPU while one QP is backlogged at 1 and 10 Mbit/s, and idle;
  then the same messages a second paced by the program with no limit, on
  xrxe and on stock rxe.

One JSON line per run in OUT/pace.json; a run that fails ends the sweeps
with its error.
"""
import argparse
import json
import subprocess
import sys

from guest_devices import cpu_fields, driver

POINTS = (('rc', 64), ('rc', 4096), ('rc', 65536), ('ud', 64), ('ud', 1024))
SHORT = (('rc', 4096),)
RATES = (1000, 10000, 100000)
LOW_KBPS = 10000        # above it, a limit runs between two unlimited runs
SERIES = ('rc', 4096, 10000)
ISOLATION_SIZE = 4096
ISOLATION_KBPS = (1000, 10000)
MIX = ('s', 'sp', 'sq', 'l', 'lp', 'lq', 'sl', 'slp', 'slq')
STOCK_MIX = ('s', 'l', 'sl')
MULTI = (1000, 2000, 5000, 10000)
MULTI_SIZE = 1024
COST = (0,) + ISOLATION_KBPS


class Runner:
    def __init__(self, tool, out, window):
        self.tool = tool
        self.window = window
        self.out = open(f'{out}/pace.json', 'w')

    def run(self, *args, record=True):
        cmd = [self.tool, '-w', str(self.window)] + [str(a) for a in args]
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if res.returncode:
            sys.exit(f'{" ".join(cmd)}: exit {res.returncode}: {res.stderr.strip()}')
        r = json.loads(res.stdout)
        if record:
            self.record(r)
        return r

    def record(self, r):
        self.out.write(json.dumps(dict(r, **cpu_fields())) + '\n')
        self.out.flush()


def accuracy(r, out, short):
    for kind, size in SHORT if short else POINTS:
        ref = r.run('-m', 'accuracy', '-t', kind, '-s', size, '-r', 0)
        top = int(ref['measured_kbps'] * 0.8)
        rates = [k for k in (RATES[:2] if short else RATES) if k <= top]
        if not short:
            rates.append(None)
        for kbps in rates:
            extra = []
            if (kind, size, kbps) == SERIES:
                extra = ['-T', f'{out}/pace-series.txt']
            before = None
            if kbps is None or kbps > LOW_KBPS:
                before = r.run('-m', 'accuracy', '-t', kind, '-s', size, '-r', 0)
                if kbps is None:
                    kbps = int(before['measured_kbps'] * 0.8)
            x = r.run('-m', 'accuracy', '-t', kind, '-s', size, '-r', kbps, *extra,
                      record=before is None)
            if before:
                after = r.run('-m', 'accuracy', '-t', kind, '-s', size, '-r', 0)
                x['unlimited_before_kbps'] = before['measured_kbps']
                x['unlimited_after_kbps'] = after['measured_kbps']
                r.record(x)
            print(f'{kind} {size} B at {kbps} kbit/s: {x["measured_kbps"]:.0f} '
                  f'({x["error_pct"]:+.2f}%), at most {x["max_excess_bytes"]:.0f} B '
                  f'above the rate in a slice (burst {x["burst_bytes"]} B)'
                  + (f'; no limit {before["measured_kbps"]:.0f} before, '
                     f'{after["measured_kbps"]:.0f} after' if before else ''), flush=True)


def isolation(r, reps, own_rate):
    """own_rate: the messages a second each limit let through in cost(),
    which the q configurations send paced by the program."""
    driver('remove_driver xrxe', 'load_driver xrxe engines=1', 'add_devices xrxe')
    for rep in range(reps):
        for config in MIX:
            third = 'p' in config or 'q' in config
            for kbps in ISOLATION_KBPS if third else (0,):
                extra = ['-r', kbps, '-a', own_rate[kbps]] if third else []
                x = r.run('-m', 'mix', '-c', config, '-s', ISOLATION_SIZE, *extra)
                print(f'rep {rep} xrxe {config} {kbps}: {x}', flush=True)
    driver('switch_driver rxe')
    for rep in range(reps):
        for config in STOCK_MIX:
            x = r.run('-D', 'rxe', '-m', 'mix', '-c', config, '-s', ISOLATION_SIZE)
            print(f'rep {rep} rxe {config}: {x}', flush=True)
    driver('switch_driver xrxe')


def multi(r, reps):
    for rep in range(reps):
        x = r.run('-m', 'multi', '-s', MULTI_SIZE, '-r', ','.join(map(str, MULTI)))
        print(f'rep {rep} multi: {x}', flush=True)


def cost(r):
    """The limit's CPU, then the same messages a second paced by the program
    itself with no limit, on xrxe and on stock rxe: what the traffic costs
    anyway."""
    own = {}
    for kbps in COST:
        x = r.run('-m', 'cost', '-s', ISOLATION_SIZE, '-r', kbps)
        print(f'cost at {kbps} kbit/s: {x}', flush=True)
        if kbps:
            own[kbps] = round(x['messages'] / x['window_s'], 1)
    for drv in ('xrxe', 'rxe'):
        if drv == 'rxe':
            driver('switch_driver rxe')
        for rate in own.values():
            x = r.run('-D', drv, '-m', 'cost', '-s', ISOLATION_SIZE, '-r', 0,
                      '-a', rate)
            print(f'cost of {rate} messages/s paced by the program on {drv}: {x}',
                  flush=True)
    driver('switch_driver xrxe')
    return own


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--tool', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--window', type=float, default=5)
    ap.add_argument('--reps', type=int, default=3)
    ap.add_argument('--short', action='store_true',
                    help='RC 4 KiB accuracy at 1 and 10 Mbit/s, one repetition of the rest')
    args = ap.parse_args()
    r = Runner(args.tool, args.out, args.window)
    accuracy(r, args.out, args.short)
    reps = 1 if args.short else args.reps
    multi(r, reps)
    own = cost(r)
    isolation(r, reps, own)


if __name__ == '__main__':
    main()
