#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Guest side of bench/xrxe-coalesce-bench: the append workload, one boot.

64 B RDMA WRITEs, every 16th signalled, 256 outstanding a QP, to
consecutive slots of a 1 MiB ring (adjacent) or with a 64-byte gap after
each (gapped, which nothing may merge), on 1 and 4 QPs, in these modes:

  stock            the kernel's rdma_rxe
  xrxe             rdma_xrxe, the provider's defaults (no coalescing)
  xrxe-c1024       the same with XRXE_COALESCE=1024
  xrxe-c4096       XRXE_COALESCE=4096
  xrxe-c4096-q64   XRXE_COALESCE=4096 with the module's engine_quantum at
                   64: the merge sees only the WQEs the engine has taken,
                   16 a turn by default, so 64 B writes reach 4096 bytes
                   only with a quantum of 64

The netdevs' MTU is raised to 9000 first, so that both drivers' ports are
active at 4096 and every run connects at path MTU 4096 (the merge cap is
the smaller of XRXE_COALESCE and the path MTU). Each repetition runs every
mode on every point, a point's stock run and its xrxe runs back to back
(the driver switches between them), which of the two comes first swapped
from one point to the next, so that the host's drift falls on both.

One JSON line per run in OUT/coalesce.json; a run that fails ends the
sweep with its error.
"""
import argparse
import json
import os
import subprocess
import sys

MODES = (
    # name, driver, XRXE_COALESCE, engine_quantum
    ('stock', 'rxe', None, None),
    ('xrxe', 'xrxe', None, 16),
    ('xrxe-c1024', 'xrxe', 1024, 16),
    ('xrxe-c4096', 'xrxe', 4096, 16),
    ('xrxe-c4096-q64', 'xrxe', 4096, 64),
)
STREAMS = (('adjacent', 0), ('gapped', 64))
QPS = (1, 4)
NETDEV_MTU = 9000
PATH_MTU = 4096
DEVICES_LIB = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                           'tools', 'testbed-guest', 'guest-devices.sh')
QUANTUM = '/sys/module/rdma_xrxe/parameters/engine_quantum'


def driver(*steps):
    """Run guest-devices.sh functions, e.g. ('switch_driver rxe',)."""
    script = f'. {DEVICES_LIB} && ' + ' && '.join(steps) + ' || { echo "$DEVICES_ERROR"; exit 1; }'
    res = subprocess.run(['bash', '-c', script], capture_output=True, text=True,
                         timeout=300)
    if res.returncode:
        sys.exit(f'{"; ".join(steps)}: {res.stdout.strip()} {res.stderr.strip()}')


def netdevs(dev_prefix):
    out = []
    for i in (0, 1):
        with open(f'/sys/class/infiniband/{dev_prefix}{i}/ports/1/gid_attrs/ndevs/0') as f:
            out.append(f.read().strip())
    return out


def set_mtu(devs, mtu):
    for d in devs:
        subprocess.run(['ip', 'link', 'set', 'dev', d, 'mtu', str(mtu)], check=True,
                       timeout=30)


class Runner:
    def __init__(self, tool, out, window, warmup):
        self.tool = tool
        self.window = window
        self.warmup = warmup
        self.out = open(f'{out}/coalesce.json', 'w')

    def run(self, rep, mode, drv, coalesce, quantum, stream, gap, qps):
        env = dict(os.environ)
        env.pop('XRXE_COALESCE', None)
        if coalesce is not None:
            env['XRXE_COALESCE'] = str(coalesce)
        if quantum is not None:
            with open(QUANTUM, 'w') as f:
                f.write(f'{quantum}\n')
        cmd = [self.tool, '-D', drv, '-q', str(qps), '-g', str(gap), '-M', str(PATH_MTU),
               '-w', str(self.window), '-W', str(self.warmup)]
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
        if res.returncode:
            sys.exit(f'{mode}: {" ".join(cmd)}: exit {res.returncode}: {res.stderr.strip()}')
        r = json.loads(res.stdout)
        if r['path_mtu'] != PATH_MTU:
            sys.exit(f'{mode}: connected at path MTU {r["path_mtu"]}, not {PATH_MTU}')
        r.update(rep=rep, mode=mode, stream=stream, engine_quantum=quantum,
                 netdev_mtu=NETDEV_MTU)
        self.out.write(json.dumps(r) + '\n')
        self.out.flush()
        sent = sum(d.get('sent_pkts', 0) for d in r['devices'].values())
        print(f'rep {rep} {mode} {stream} {qps} QPs: {r["msgs_per_s"]:.0f} messages/s, '
              f'{sent / r["messages"]:.3f} packets/message', flush=True)
        return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--tool', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--reps', type=int, default=3)
    ap.add_argument('--window', type=float, default=5)
    ap.add_argument('--warmup', type=float, default=1)
    ap.add_argument('--short', action='store_true',
                    help='one repetition, 2 s windows')
    args = ap.parse_args()
    reps, window = (1, 2) if args.short else (args.reps, args.window)
    r = Runner(args.tool, args.out, window, args.warmup)
    driver('switch_driver xrxe')
    set_mtu(netdevs('xrxe'), NETDEV_MTU)
    points = [(stream, gap, qps) for stream, gap in STREAMS for qps in QPS]
    for rep in range(reps):
        for p, (stream, gap, qps) in enumerate(points):
            groups = [[m for m in MODES if m[1] == 'rxe'], [m for m in MODES if m[1] == 'xrxe']]
            # Each point's stock and xrxe runs back to back, the order
            # swapped from one point to the next: one driver switch a point.
            if (rep + p) % 2:
                groups.reverse()
            for group in groups:
                driver(f'switch_driver {group[0][1]}')
                for mode, drv, coalesce, quantum in group:
                    r.run(rep, mode, drv, coalesce, quantum, stream, gap, qps)
    driver('switch_driver xrxe')


if __name__ == '__main__':
    main()
