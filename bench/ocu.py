# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Ordered load balancing (docs/load-balancing.md), with xrxe-ocu-bench:
how OCUs spread send work over the engines (an engine a guest CPU, the
module's defaults). Modes: static (wherever the OCUs' numbers put them;
in isolation, all on engine 0), spread (static, the i-th QP on engine i
mod the engines), dynamic, dynamic-shift (dynamic with ocu_byte_shift 12:
a WQE's byte costs 1/4096 of its fixed part rather than 1/64, weighing a
QP by its WQEs more than by its bytes) and stock (rxe). Parts:

  balance     8 QPs writing 64 B to 64 KiB, each on an OCU of its own, in
              every mode but stock: the engines' busy time, max over mean;
              again at 2 lists a second a QP (static, spread, dynamic),
              where an engine's busy time is the work the mapping gave it
  isolation   a ping-pong beside 3 bulk QPs of 4 KiB whose OCUs all sit on
              engine 0 (static), against dynamic: the ping-pong's p50 and
              p99, the bulk QPs' rate; again with the ping-pong's engine
              busy-polling 100 us, so that its sends go through it; stock
  throughput  1, 2, 4 and 8 QPs writing 4 KiB: static, dynamic, stock
  scale       4 QPs at a fixed rate alone, beside 4096 idle QPs, alone
              again: the engines' busy time, the guest's CPU, memory per
              QP (dynamic, stock)

Bulk QPs post lists of 32 writes (longer than engine_quantum, so that
engines take part). Each repetition runs xrxe's runs, a point's modes
back to back, which goes first taking turns, then stock's; --reps: about
5 minutes each. The report compares static with dynamic in balance,
isolation and throughput: --modes and --tests keep those. --short: 2 s
windows, 1 and 4 QPs, 1024 idle QPs, no engine-polled ping-pong (about 3
minutes). Writes ocu.json (a line a run), ocu.md and ocu-*.png; default
directory build/ocu-bench. A failed run is recorded with its error, the
sweep goes on, and the exit status is 1.
"""
import os
import time

from guest import Loaded, Records, driver, get_param, param_path, set_param, turn

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

MODES = ('static', 'spread', 'dynamic', 'dynamic-shift', 'stock')
PARTS = ('balance', 'isolation', 'throughput', 'scale')
NEEDS = ('static', 'dynamic', 'balance', 'isolation', 'throughput')


def plan(a, rep):
    """The runs of a repetition, in order: (mode, arguments of the program)."""
    qps = SHORT_QPS if a.short else QPS
    idle = SHORT_SCALE_IDLE if a.short else SCALE_IDLE
    scale = ('-m', 'scale', '-q', SCALE_ACTIVE, '-i', idle, '-r', SCALE_LISTS_PER_S,
             '-s', BULK_SIZE)
    runs = [(m, ('-m', 'balance', '-p', m.split('-')[0]))
            for m in turn(('static', 'spread', 'dynamic', 'dynamic-shift'), rep)]
    runs += [(m, ('-m', 'balance', '-p', m, '-r', BALANCE_RATE))
             for m in turn(('static', 'spread', 'dynamic'), rep)]
    for poll in (0,) if a.short else (0, POLL_US):
        runs += [(m, ('-m', 'isolation', '-p', 'collide' if m == 'static' else m,
                      '-q', ISOLATION_BULK, '-s', BULK_SIZE, '-P', poll))
                 for m in turn(('static', 'dynamic'), rep)]
    runs += [(m, ('-m', 'throughput', '-p', m, '-q', n, '-s', BULK_SIZE))
             for n in qps for m in turn(('static', 'dynamic'), rep)]
    runs.append(('dynamic', scale[:2] + ('-p', 'dynamic') + scale[2:]))
    runs += [('stock', ('-D', 'rxe', '-m', 'throughput', '-q', n, '-s', BULK_SIZE))
             for n in qps]
    runs.append(('stock', ('-D', 'rxe', '-m', 'isolation', '-q', ISOLATION_BULK,
                           '-s', BULK_SIZE)))
    runs.append(('stock', ('-D', 'rxe') + scale))
    return [(m, args) for m, args in runs
            if m in (a.modes or MODES) and args[args.index('-m') + 1] in (a.tests or PARTS)]


def params():
    """The rdma_xrxe parameters a reader of the figures needs."""
    names = ('engines', 'ocus', 'ocu_mode', 'engine_quantum', 'engine_idle_us',
             'ocu_hdr_cost', 'ocu_byte_shift', 'ocu_set', 'rx_inline')
    out = {n: get_param(n) for n in names if os.path.exists(param_path(n))}
    with open('/sys/kernel/debug/rdma_xrxe/engines') as f:
        out['engine_threads'] = len(f.read().strip().splitlines()) - 1
    return out


def run(a):
    window = 2 if a.short else 3
    driver('switch_driver xrxe', 'mount_debugfs')
    records = Records(a.out, 'ocu.json', fatal=False, timed=True)
    records.write({'mode': 'meta', 'params': params(), 'reps': a.reps, 'window_s': window,
                   'short': a.short, 'kernel': os.uname().release, 'cpus': os.cpu_count()})
    t0 = time.monotonic()
    loaded = Loaded('xrxe')
    for rep in range(a.reps):
        for mode, args in plan(a, rep):
            loaded.use('rxe' if mode == 'stock' else 'xrxe')
            if mode == 'dynamic-shift':
                old = get_param('ocu_byte_shift')
                set_param('ocu_byte_shift', ALT_BYTE_SHIFT)
            r = records.run([a.tool, '-w', window, *args], timeout=RUN_TIMEOUT, rep=rep)
            if mode == 'dynamic-shift':
                set_param('ocu_byte_shift', old)
            if r:
                print(f'rep {rep} {args}: {r["run_s"]} s', flush=True)
        print(f'repetition {rep} done after {time.monotonic() - t0:.0f} s', flush=True)
    driver('switch_driver xrxe')
    return 1 if records.failed else 0
