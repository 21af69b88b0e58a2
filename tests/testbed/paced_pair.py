# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""usage: paced_pair.py DIR

One RC QP on each node of a two-node testbed (xrxe-testbed run --nodes 2),
connected through files in DIR, a directory both nodes see. Each node writes
WRITES RDMA WRITEs of SIZE bytes of its own pattern into the other's buffer,
then a SEND saying how many; the receiver checks every byte. An xrxe node
paces its QP with a send rate limit (ibv_modify_qp IBV_QP_RATE_LIMIT) well
below what the link carries, so its requester pauses many times: what it
sends while paced must look like any RC stream to a stock rdma_rxe peer.
The xrxe node also checks that its limit did pause it (xrxe_pace_pauses).
Exit 0 when everything arrived intact; 1 with the reason otherwise.
"""
import json
import os
import sys
import time

# The pyverbs suites' base module, in pyverbs-tests/ at the top level.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..', 'pyverbs-tests'))

import pyverbs.enums as e  # noqa: E402
from pyverbs.addr import AHAttr, GlobalRoute  # noqa: E402
from pyverbs.cq import CQ  # noqa: E402
from pyverbs.device import Context  # noqa: E402
from pyverbs.mr import MR  # noqa: E402
from pyverbs.pd import PD  # noqa: E402
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr  # noqa: E402

from xrxe_base import (PORT, RW_ACCESS, connect_attr, link_counters,  # noqa: E402
                       pattern, poll, recv_wr, send_wr, sge)

SIZE = 16384
WRITES = 16
# kbit/s: 256 KiB at this rate take about half a second, many times the
# 16 KiB burst, so the requester pauses on the limit again and again.
RATE_KBPS = 4000
# The link between two TCG guests drops frames under load: RC recovers by
# retransmission, which may take seconds.
TIMEOUT = 120.0


def wait_file(path, what):
    deadline = time.monotonic() + TIMEOUT
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            sys.exit(f'FAIL: {what} did not appear within {TIMEOUT:.0f} s ({path})')
        time.sleep(0.1)
    with open(path) as f:
        return f.read()


def publish(path, text):
    tmp = path + '.tmp'
    with open(tmp, 'w') as f:
        f.write(text)
    os.rename(tmp, path)


def this_node(usage):
    """The shared directory (argv[1]), this node's and the peer's numbers,
    and this node's one rdma device."""
    if len(sys.argv) != 2:
        sys.exit(usage.strip().splitlines()[0])
    shared = sys.argv[1]
    os.makedirs(shared, exist_ok=True)
    node = int(os.environ['XRXE_NODE'])
    devs = os.listdir('/sys/class/infiniband')
    if len(devs) != 1:
        sys.exit(f'FAIL: expected one rdma device on node {node}, found {devs}')
    return shared, node, 1 - node, devs[0]


def connect(ctx, qp, dst, shared, node, peer):
    """Tell the peer our QP and buffer dst, take its, and bring qp to RTS
    towards it: the peer's {'qpn', 'gid', 'rkey', 'addr'}."""
    gid = ctx.query_gid(port_num=PORT, index=0)
    publish(os.path.join(shared, f'node{node}.json'), json.dumps({
        'qpn': qp.qp_num, 'gid': str(gid), 'rkey': dst.rkey, 'addr': dst.buf}))
    far = json.loads(wait_file(os.path.join(shared, f'node{peer}.json'),
                               f'node {peer}\'s QP'))
    remote = ctx.query_gid(port_num=PORT, index=0)
    remote.gid = far['gid']
    qp.to_rts(connect_attr(far['qpn'], AHAttr(
        port_num=PORT, is_global=1, gr=GlobalRoute(dgid=remote, sgid_index=0))))
    return far


def finish(shared, node, peer):
    """Keep the QP until the peer has its ACKs too."""
    publish(os.path.join(shared, f'node{node}.done'), 'done')
    wait_file(os.path.join(shared, f'node{peer}.done'), f'node {peer}\'s end')


def main():
    shared, node, peer, dev = this_node(__doc__)
    paced = dev.startswith('xrxe')

    ctx = Context(name=dev)
    pd = PD(ctx)
    cq = CQ(ctx, 64)
    cap = QPCap(max_send_wr=WRITES + 2, max_recv_wr=4, max_send_sge=1,
                max_recv_sge=1)
    qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap,
                           sq_sig_all=1))
    src = MR(pd, SIZE * WRITES, RW_ACCESS)
    dst = MR(pd, SIZE * WRITES, RW_ACCESS)
    msg = MR(pd, 8, RW_ACCESS)
    got = MR(pd, 8, RW_ACCESS)
    data = pattern(SIZE * WRITES, 17 + node)
    src.write(data, len(data), 0)
    msg.write(WRITES.to_bytes(8, 'little'), 8, 0)

    far = connect(ctx, qp, dst, shared, node, peer)
    # Posted once ready; the peer's SEND comes after its writes, and an RNR
    # NAK would make it wait for this one anyway.
    qp.post_recv(recv_wr([sge(got)], wr_id=1000))
    if paced:
        limit = QPAttr()
        limit.rate_limit = RATE_KBPS
        qp.modify(limit, e.IBV_QP_RATE_LIMIT)
        before = link_counters(dev)['xrxe_pace_pauses']

    start = time.monotonic()
    for i in range(WRITES):
        wr = send_wr([sge(src, SIZE, i * SIZE)], opcode=e.IBV_WR_RDMA_WRITE,
                     wr_id=i)
        wr.set_wr_rdma(far['rkey'], far['addr'] + i * SIZE)
        qp.post_send(wr)
    qp.post_send(send_wr([sge(msg)], wr_id=WRITES))

    # Our WRITES + 1 sends and the peer's one SEND, in any order.
    wcs = poll(cq, WRITES + 2, timeout=TIMEOUT)
    took = time.monotonic() - start
    ids = sorted(wc.wr_id for wc in wcs)
    if ids != list(range(WRITES + 1)) + [1000]:
        sys.exit(f'FAIL: completions {ids}')
    told = int.from_bytes(got.read(8, 0), 'little')
    if told != WRITES:
        sys.exit(f'FAIL: the peer\'s SEND said {told}, expected {WRITES}')
    theirs = pattern(SIZE * WRITES, 17 + peer)
    mine = dst.read(SIZE * WRITES, 0)
    if mine != theirs:
        bad = next(i for i in range(len(mine)) if mine[i] != theirs[i])
        sys.exit(f'FAIL: the peer\'s writes differ from byte {bad} on')
    line = (f'node {node} ({dev}): {WRITES} x {SIZE} B written and checked '
            f'both ways in {took:.2f} s')
    if paced:
        pauses = link_counters(dev)['xrxe_pace_pauses'] - before
        line += f', paced at {RATE_KBPS} kbit/s: {pauses} pauses'
        if pauses <= 0:
            sys.exit(f'FAIL: {line}: the rate limit never paused the QP')
    print(line)

    finish(shared, node, peer)


if __name__ == '__main__':
    main()
