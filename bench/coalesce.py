# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Coalescing and flush domains (docs/coalescing.md, docs/flush-domains.md),
with xrxe-coalesce-bench, path MTU 4096 (the netdevs' MTU raised to 9000
first, so that both drivers' ports are active at 4096). Parts:

  append  64 B RDMA WRITEs, every 16th signalled, 256 outstanding a QP, to
          consecutive slots of a 1 MiB ring (adjacent) or each after a
          64-byte gap (gapped, nothing may merge), on 1 and 4 QPs, in the
          modes stock (rdma_rxe), xrxe (the provider's defaults, no
          coalescing), xrxe-c1024 and xrxe-c4096 (XRXE_COALESCE=1024 and
          4096) and xrxe-c4096-q64 (4096 with engine_quantum 64: the merge
          sees only the WQEs the engine has taken, 16 a turn by default);
          every payload checked once a run has drained
  tag     rounds of 16 records of 1 KiB (and of 64 B), then an 8-byte tag
          (the round's number) after them, at most 2 rounds outstanding,
          no coalescing, in the modes stock (one QP does everything, on
          rdma_rxe), one (the same on xrxe: RC's in-order placement orders
          the tag), domain (4 QPs of a flush domain, each on a dynamic OCU
          of its own ordering domain, the tag on QP 0 flagged
          XRXEDV_SEND_DOMAIN_FLUSH, posted at once), wait (the same 4 QPs,
          no domain: the tag waits for its round's completions) and
          domain1 (one QP in a domain, the tag flagged); every tag checked
          against its records

Each repetition runs a point's stock run and its xrxe runs back to back
(a driver switch between them), which comes first swapped from one point
to the next; --reps: about 3.5 minutes each for append, 1.5 for tag.
--short: 2 s windows, 1 KiB records only (about 5 minutes; 30 s for
--tests tag). Writes coalesce.json and tag.json (a line a run),
coalesce.md, tag.md, coalesce-append.png and coalesce-tag.png; default
directory build/coalesce-bench. A failed run ends the sweep with its error.
"""
import os
import subprocess
import sys

from guest import Loaded, Records, driver, set_param, turn

APPEND_MODES = (
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
WARMUP = 1

MODES = tuple(m[0] for m in APPEND_MODES) + tuple(m[0] for m in TAG_MODES[1:])
PARTS = ('append', 'tag')


def plan(a, rep):
    """The runs of a repetition, in order: (part, mode, point), a point's
    stock and xrxe runs back to back, which comes first swapped from one
    point to the next: one driver switch a point."""
    points = {'append': [(s, g, q) for s, g in STREAMS for q in QPS],
              'tag': TAG_SIZES[:1] if a.short else TAG_SIZES}
    runs = []
    for part in a.tests or PARTS:
        modes = APPEND_MODES if part == 'append' else TAG_MODES
        for p, point in enumerate(points[part]):
            runs += [(part, m, point) for drv in turn(('rxe', 'xrxe'), rep + p) for m in modes
                     if m[1] == drv and m[0] in (a.modes or MODES)]
    return runs


def set_mtu(mtu):
    for i in (0, 1):
        with open(f'/sys/class/infiniband/xrxe{i}/ports/1/gid_attrs/ndevs/0') as f:
            dev = f.read().strip()
        subprocess.run(['ip', 'link', 'set', 'dev', dev, 'mtu', str(mtu)], check=True,
                       timeout=30)


def run(a):
    window = 2 if a.short else 5
    out = {'append': Records(a.out, 'coalesce.json'), 'tag': Records(a.out, 'tag.json')}
    driver('switch_driver xrxe')
    set_mtu(NETDEV_MTU)
    loaded = Loaded('xrxe')
    for rep in range(a.reps):
        for part, mode, point in plan(a, rep):
            loaded.use(mode[1])
            env = {k: v for k, v in os.environ.items() if k != 'XRXE_COALESCE'}
            cmd = [a.tool, '-D', mode[1]]
            if part == 'append':
                name, drv, coalesce, quantum = mode
                stream, gap, qps = point
                if coalesce is not None:
                    env['XRXE_COALESCE'] = str(coalesce)
                if quantum is not None:
                    set_param('engine_quantum', quantum)
                cmd += ['-q', qps, '-g', gap]
                fields = dict(stream=stream, engine_quantum=quantum)
            else:
                cmd += ['-t', mode[2], '-q', mode[3], '-s', point, '-r', TAG_RECORDS]
                fields = {}
            cmd += ['-M', PATH_MTU, '-w', window, '-W', WARMUP]
            r = out[part].run(cmd, env=env, record=False, rep=rep, mode=mode[0], **fields,
                              netdev_mtu=NETDEV_MTU)
            if r['path_mtu'] != PATH_MTU:
                sys.exit(f'{mode[0]}: connected at path MTU {r["path_mtu"]}, not {PATH_MTU}')
            out[part].write(r)
            print(summary(part, r), flush=True)
    driver('switch_driver xrxe')
    return 0


def summary(part, r):
    sent = sum(d.get('sent_pkts', 0) for d in r['devices'].values())
    if part == 'append':
        return (f"rep {r['rep']} {r['mode']} {r['stream']} {r['qps']} QPs: "
                f"{r['msgs_per_s']:.0f} messages/s, {sent / r['messages']:.3f} packets/message")
    wait = ''
    q0 = (r.get('qp_counters') or [{}])[0]
    if q0.get('domain_flushes'):
        wait = f', the tag waited {q0["domain_wait_us"] / q0["domain_flushes"]:.0f} us'
    return (f"rep {r['rep']} tag {r['mode']} {r['size']} B: {r['records_per_s']:.0f} "
            f"records/s, {sent / r['records']:.3f} packets/record{wait}")
