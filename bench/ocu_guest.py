#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Guest side of bench/xrxe-bench --workload ocu: ordered load balancing,
one boot.

Each repetition runs, with xrxe (an engine a guest CPU: the module's
defaults):

- balance: 8 bulk QPs writing 64 B to 64 KiB, each on an OCU of its own:
  static (wherever the OCUs' numbers put them), static spread by count (the
  i-th QP on engine i mod the engines) and dynamic; dynamic again with a
  byte of a WQE costing 1/4096 of its fixed part rather than 1/64
  (ocu_byte_shift 12), which weighs a QP by its WQEs more than by its bytes;
- balance at a fixed rate: the same 8 QPs, each posting BALANCE_RATE lists
  a second, static, spread and dynamic: engines that are not saturated, so
  that their busy time is the work the mapping gave them;
- isolation: a ping-pong beside 3 bulk QPs of 4 KiB, every one of their
  OCUs static on engine 0 (the mapping that collides), then dynamic; the
  same again with the ping-pong's QPs keeping their engine polling their
  ring for 100 us, so that its sends go through the engine;
- throughput: 1, 2, 4 and 8 bulk QPs of 4 KiB, static and dynamic;
- scale: 4 bulk QPs at a fixed rate alone, beside 4096 idle QPs, alone
  again; the memory the idle QPs took;

then, with stock rxe in the same boot, the throughput points, the
ping-pong beside 3 bulk QPs and the scale runs; then xrxe again. The
placements compared take turns at going first from one repetition to the
next, so that the host's drift falls on all alike.

One JSON line per run in OUT/ocu.json; a run that fails is recorded with
its error, the sweep goes on, and the exit status is 1.
"""
import argparse
import json
import os
import subprocess
import sys
import time

from guest_devices import cpu_fields, driver

DEBUGFS = '/sys/kernel/debug'
PARAMS = '/sys/module/rdma_xrxe/parameters'

QPS = (1, 2, 4, 8)
SHORT_QPS = (1, 4)
BULK_SIZE = 4096
ISOLATION_BULK = 3
POLL_US = 100           # the ping-pong's engine busy-poll window
SCALE_ACTIVE = 4
SCALE_IDLE = 4096
SHORT_SCALE_IDLE = 1024
SCALE_LISTS_PER_S = 10  # each active QP: 10 lists of 32 a second
RUN_TIMEOUT = 240
ALT_BYTE_SHIFT = 12     # class 0's only: every QP here is in class 0
BALANCE_RATE = 2        # lists of 32 a second a QP: 4 MB/s at 64 KiB


class Runner:
    def __init__(self, tool, out, window):
        self.tool = tool
        self.window = window
        self.out = open(f'{out}/ocu.json', 'w')
        self.failed = 0

    def record(self, r):
        self.out.write(json.dumps(dict(r, **cpu_fields())) + '\n')
        self.out.flush()

    def run(self, rep, *args):
        cmd = [self.tool, '-w', str(self.window)] + [str(a) for a in args]
        t0 = time.monotonic()
        try:
            res = subprocess.run(cmd, capture_output=True, text=True,
                                 timeout=RUN_TIMEOUT)
            err = (f'exit {res.returncode}: {res.stderr.strip()[-2000:]}'
                   if res.returncode else None)
        except subprocess.TimeoutExpired:
            err = f'no result after {RUN_TIMEOUT} s'
        r = None
        if not err:
            try:
                r = json.loads(res.stdout)
            except ValueError:
                err = f'no JSON on stdout: {res.stdout.strip()[-2000:]}'
        if err:
            self.failed += 1
            r = {'mode': 'failed', 'command': ' '.join(cmd), 'error': err}
            print(f'FAILED: {r["command"]}: {err}', flush=True)
        r['rep'] = rep
        r['run_s'] = round(time.monotonic() - t0, 1)
        self.record(r)
        if not err:
            print(f'rep {rep} {args}: {r["run_s"]} s', flush=True)
        return r


def get_param(name):
    with open(f'{PARAMS}/{name}') as f:
        return f.read().strip()


def set_param(name, value):
    with open(f'{PARAMS}/{name}', 'w') as f:
        f.write(f'{value}\n')


def params():
    """The rdma_xrxe parameters a reader of the figures needs."""
    names = ('engines', 'ocus', 'ocu_mode', 'engine_quantum', 'engine_idle_us',
             'ocu_hdr_cost', 'ocu_byte_shift', 'ocu_set', 'rx_inline')
    out = {}
    for n in names:
        try:
            out[n] = get_param(n)
        except OSError:
            pass
    with open(f'{DEBUGFS}/rdma_xrxe/engines') as f:
        out['engine_threads'] = len(f.read().strip().splitlines()) - 1
    return out


def turn(seq, rep):
    """seq rotated by rep: each goes first in its turn."""
    k = rep % len(seq)
    return seq[k:] + seq[:k]


def xrxe_block(r, rep, args):
    order = turn(('static', 'dynamic'), rep)
    collide = turn(('collide', 'dynamic'), rep)
    for p in turn(('static', 'spread', 'dynamic', 'dynamic-shift'), rep):
        if p == 'dynamic-shift':
            old = get_param('ocu_byte_shift')
            set_param('ocu_byte_shift', ALT_BYTE_SHIFT)
            r.run(rep, '-m', 'balance', '-p', 'dynamic')
            set_param('ocu_byte_shift', old)
        else:
            r.run(rep, '-m', 'balance', '-p', p)
    for p in turn(('static', 'spread', 'dynamic'), rep):
        r.run(rep, '-m', 'balance', '-p', p, '-r', BALANCE_RATE)
    for poll in ((0,) if args.short else (0, POLL_US)):
        for p in collide:
            r.run(rep, '-m', 'isolation', '-p', p, '-q', ISOLATION_BULK,
                  '-s', BULK_SIZE, '-P', poll)
    for n in SHORT_QPS if args.short else QPS:
        for p in order:
            r.run(rep, '-m', 'throughput', '-p', p, '-q', n, '-s', BULK_SIZE)
    r.run(rep, '-m', 'scale', '-p', 'dynamic', '-q', SCALE_ACTIVE,
          '-i', SHORT_SCALE_IDLE if args.short else SCALE_IDLE,
          '-r', SCALE_LISTS_PER_S, '-s', BULK_SIZE)


def stock_block(r, rep, args):
    for n in SHORT_QPS if args.short else QPS:
        r.run(rep, '-D', 'rxe', '-m', 'throughput', '-q', n, '-s', BULK_SIZE)
    r.run(rep, '-D', 'rxe', '-m', 'isolation', '-q', ISOLATION_BULK, '-s', BULK_SIZE)
    r.run(rep, '-D', 'rxe', '-m', 'scale', '-q', SCALE_ACTIVE,
          '-i', SHORT_SCALE_IDLE if args.short else SCALE_IDLE,
          '-r', SCALE_LISTS_PER_S, '-s', BULK_SIZE)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--tool', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--window', type=float, default=3)
    ap.add_argument('--reps', type=int, default=3)
    ap.add_argument('--short', action='store_true',
                    help='one repetition, 2 s windows, 1 and 4 QPs, 1024 idle QPs, '
                    'no engine-polled ping-pong')
    args = ap.parse_args()
    if args.short:
        args.reps = 1
        args.window = 2
    if not os.path.isdir(f'{DEBUGFS}/rdma_xrxe'):
        subprocess.run(['mount', '-t', 'debugfs', 'none', DEBUGFS], check=False)
    r = Runner(args.tool, args.out, args.window)
    r.record({'mode': 'meta', 'params': params(), 'reps': args.reps,
              'window_s': args.window, 'short': args.short,
              'kernel': os.uname().release, 'cpus': os.cpu_count()})
    t0 = time.monotonic()
    for rep in range(args.reps):
        xrxe_block(r, rep, args)
        driver('switch_driver rxe')
        stock_block(r, rep, args)
        driver('switch_driver xrxe')
        print(f'repetition {rep} done after {time.monotonic() - t0:.0f} s', flush=True)
    sys.exit(1 if r.failed else 0)


if __name__ == '__main__':
    main()
