#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Guest side of bench/xrxe-bench --workload coalesce: the append workload
and the records-then-tag workload of flush domains, one boot.

The append workload:
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

The records-then-tag workload (coalesce-bench -t): rounds of 16 records
of 1 KiB, and of 64 B, written with RDMA WRITE, then an 8-byte tag (the
round's number) after them, at most 2 rounds outstanding (round k + 1 is
posted once round k - 1's tag completed), path MTU 4096, no coalescing,
in these modes:

  stock            one QP does everything, on the kernel's rdma_rxe
  one              the same on xrxe: the records, then the tag on the same
                   QP (RC's in-order placement orders the tag)
  domain           4 QPs in one flush domain, each on a dynamic OCU of its
                   own ordering domain, 4 records each; the tag on QP 0
                   with XRXEDV_SEND_DOMAIN_FLUSH, posted at once
  wait             the same 4 QPs and OCUs, no domain: the tag is posted
                   once every record of its round has completed
  domain1          one QP in a flush domain, the tag flagged: the flag's
                   own cost against one

Each repetition runs every size's stock run and its xrxe runs back to
back, the order swapped from one size to the next; a short sweep runs
the 1 KiB records only. Every run checks, each
time the tag moves, that its round's records are all in place, and at the
end that the last rounds landed whole.

One JSON line per run in OUT/coalesce.json (append) and OUT/tag.json
(records then tag); a run that fails ends the sweep with its error.
"""
import argparse
import json
import os
import subprocess
import sys

from guest_devices import cpu_fields, driver

MODES = (
    # name, driver, XRXE_COALESCE, engine_quantum
    ('stock', 'rxe', None, None),
    ('xrxe', 'xrxe', None, 16),
    ('xrxe-c1024', 'xrxe', 1024, 16),
    ('xrxe-c4096', 'xrxe', 4096, 16),
    ('xrxe-c4096-q64', 'xrxe', 4096, 64),
)
TAG_MODES = (
    # name, driver, coalesce-bench -t, QPs
    ('stock', 'rxe', 'one', 1),
    ('one', 'xrxe', 'one', 1),
    ('domain', 'xrxe', 'domain', 4),
    ('wait', 'xrxe', 'wait', 4),
    ('domain1', 'xrxe', 'domain1', 1),
)
TAG_SIZES = (1024, 64)
TAG_RECORDS = 16
STREAMS = (('adjacent', 0), ('gapped', 64))
QPS = (1, 4)
NETDEV_MTU = 9000
PATH_MTU = 4096
QUANTUM = '/sys/module/rdma_xrxe/parameters/engine_quantum'


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
        self.outdir = out
        self.out = None
        self.tag_out = None

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
        r = self.measure(mode, cmd, env)
        r.update(rep=rep, mode=mode, stream=stream, engine_quantum=quantum,
                 netdev_mtu=NETDEV_MTU, **cpu_fields())
        if not self.out:
            self.out = open(f'{self.outdir}/coalesce.json', 'w')
        self.out.write(json.dumps(r) + '\n')
        self.out.flush()
        sent = sum(d.get('sent_pkts', 0) for d in r['devices'].values())
        print(f'rep {rep} {mode} {stream} {qps} QPs: {r["msgs_per_s"]:.0f} messages/s, '
              f'{sent / r["messages"]:.3f} packets/message', flush=True)
        return r

    def measure(self, mode, cmd, env):
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
        if res.returncode:
            sys.exit(f'{mode}: {" ".join(cmd)}: exit {res.returncode}: {res.stderr.strip()}')
        r = json.loads(res.stdout)
        if r['path_mtu'] != PATH_MTU:
            sys.exit(f'{mode}: connected at path MTU {r["path_mtu"]}, not {PATH_MTU}')
        return r

    def run_tag(self, rep, mode, drv, tag_mode, qps, size):
        env = dict(os.environ)
        env.pop('XRXE_COALESCE', None)
        cmd = [self.tool, '-t', tag_mode, '-D', drv, '-q', str(qps), '-s', str(size),
               '-r', str(TAG_RECORDS), '-M', str(PATH_MTU), '-w', str(self.window),
               '-W', str(self.warmup)]
        r = self.measure(mode, cmd, env)
        r.update(rep=rep, mode=mode, netdev_mtu=NETDEV_MTU, **cpu_fields())
        if not self.tag_out:
            self.tag_out = open(f'{self.outdir}/tag.json', 'w')
        self.tag_out.write(json.dumps(r) + '\n')
        self.tag_out.flush()
        sent = sum(d.get('sent_pkts', 0) for d in r['devices'].values())
        wait = ''
        q0 = (r.get('qp_counters') or [{}])[0]
        if q0.get('domain_flushes'):
            wait = f', the tag waited {q0["domain_wait_us"] / q0["domain_flushes"]:.0f} us'
        print(f'rep {rep} tag {mode} {size} B: {r["records_per_s"]:.0f} records/s, '
              f'{sent / r["records"]:.3f} packets/record{wait}', flush=True)
        return r


def append_rep(r, rep):
    points = [(stream, gap, qps) for stream, gap in STREAMS for qps in QPS]
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


def tag_rep(r, rep, sizes):
    for p, size in enumerate(sizes):
        groups = [[m for m in TAG_MODES if m[1] == 'rxe'],
                  [m for m in TAG_MODES if m[1] == 'xrxe']]
        if (rep + p) % 2:
            groups.reverse()
        for group in groups:
            driver(f'switch_driver {group[0][1]}')
            for mode, drv, tag_mode, qps in group:
                r.run_tag(rep, mode, drv, tag_mode, qps, size)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--tool', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--reps', type=int, default=3)
    ap.add_argument('--window', type=float, default=5)
    ap.add_argument('--warmup', type=float, default=1)
    ap.add_argument('--short', action='store_true',
                    help='one repetition, 2 s windows')
    ap.add_argument('--workloads', default='append,tag',
                    help='append, tag or both, comma-separated')
    args = ap.parse_args()
    reps, window = (1, 2) if args.short else (args.reps, args.window)
    r = Runner(args.tool, args.out, window, args.warmup)
    driver('switch_driver xrxe')
    set_mtu(netdevs('xrxe'), NETDEV_MTU)
    workloads = args.workloads.split(',')
    if not workloads or set(workloads) - {'append', 'tag'}:
        sys.exit(f'--workloads: append, tag or both, not {args.workloads}')
    for rep in range(reps):
        if 'append' in workloads:
            append_rep(r, rep)
        if 'tag' in workloads:
            # A short sweep keeps to the 1 KiB records.
            tag_rep(r, rep, TAG_SIZES[:1] if args.short else TAG_SIZES)
    driver('switch_driver xrxe')


if __name__ == '__main__':
    main()
