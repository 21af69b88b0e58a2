# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""usage: coalesced_pair.py DIR

Write coalescing against a stock peer, on a two-node testbed (xrxe-testbed
run --nodes 2), connected as paced_pair.py connects (files in DIR, its helpers). Each
node posts one list: an RDMA READ of the peer's buffer, then WRITES RDMA
WRITEs of SIZE bytes to consecutive slots of it, the first fenced, then a
SEND saying how many; the receiver checks every byte. On the xrxe node the
process sets XRXE_COALESCE, and the fence holds the first WRITE until the
READ is answered, by which time its engine has taken the whole list: the
WRITEs go as one message (their remote range is contiguous, within the
path MTU), which a stock rdma_rxe must take as any RDMA WRITE. The xrxe
node checks its counters say exactly that (none merged with classic send
queues, XRXE_DOORBELL_LESS=0). Exit 0 when everything arrived intact.
"""
import os
import sys
import time

# The pyverbs suites' base module, in pyverbs-tests/ at the top level.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..', 'pyverbs-tests'))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pyverbs.enums as e  # noqa: E402
from pyverbs.cq import CQ  # noqa: E402
from pyverbs.device import Context  # noqa: E402
from pyverbs.mr import MR  # noqa: E402
from pyverbs.pd import PD  # noqa: E402
from pyverbs.qp import QP, QPCap, QPInitAttr  # noqa: E402

from paced_pair import TIMEOUT, connect, finish, this_node  # noqa: E402
from xrxe_base import (RW_ACCESS, link_counters, pattern, poll,  # noqa: E402
                       recv_wr, send_wr, sge)

SIZE = 64
# With the READ, one engine turn's worth (engine_quantum, 16): 960 bytes,
# one message within the tests' path MTU of 1024.
WRITES = 15
COALESCE = 1024


def main():
    shared, node, peer, dev = this_node(__doc__)
    xrxe = dev.startswith('xrxe')
    merging = xrxe and os.environ.get('XRXE_DOORBELL_LESS', '1') != '0'
    # The provider reads it when the context is opened.
    os.environ['XRXE_COALESCE'] = str(COALESCE)

    ctx = Context(name=dev)
    pd = PD(ctx)
    cq = CQ(ctx, 64)
    cap = QPCap(max_send_wr=WRITES + 4, max_recv_wr=4, max_send_sge=1,
                max_recv_sge=1)
    qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap,
                           sq_sig_all=0))
    src = MR(pd, SIZE * WRITES, RW_ACCESS)
    dst = MR(pd, SIZE * WRITES + 8, RW_ACCESS)
    back = MR(pd, 8, RW_ACCESS)
    msg = MR(pd, 8, RW_ACCESS)
    got = MR(pd, 8, RW_ACCESS)
    data = pattern(SIZE * WRITES, 29 + node)
    src.write(data, len(data), 0)
    dst.write(bytes(SIZE * WRITES + 8), SIZE * WRITES + 8, 0)
    msg.write(WRITES.to_bytes(8, 'little'), 8, 0)

    far = connect(ctx, qp, dst, shared, node, peer)
    qp.post_recv(recv_wr([sge(got)], wr_id=1000))
    if xrxe:
        before = link_counters(dev)

    read = send_wr([sge(back, 8)], opcode=e.IBV_WR_RDMA_READ, wr_id=100, flags=0)
    read.set_wr_rdma(far['rkey'], far['addr'] + SIZE * WRITES)
    wrs = [read]
    for i in range(WRITES):
        flags = e.IBV_SEND_FENCE if i == 0 else 0
        if i == WRITES - 1:
            flags |= e.IBV_SEND_SIGNALED
        wr = send_wr([sge(src, SIZE, i * SIZE)], opcode=e.IBV_WR_RDMA_WRITE,
                     wr_id=i, flags=flags)
        wr.set_wr_rdma(far['rkey'], far['addr'] + i * SIZE)
        wrs.append(wr)
    wrs.append(send_wr([sge(msg)], wr_id=WRITES))
    for wr, nxt in zip(wrs, wrs[1:]):
        wr.next_wr = nxt
    start = time.monotonic()
    qp.post_send(wrs[0])

    # The last WRITE, the SEND, and the peer's SEND, in any order.
    wcs = poll(cq, 3, timeout=TIMEOUT)
    took = time.monotonic() - start
    ids = sorted(wc.wr_id for wc in wcs)
    if ids != [WRITES - 1, WRITES, 1000]:
        sys.exit(f'FAIL: completions {ids}')
    told = int.from_bytes(got.read(8, 0), 'little')
    if told != WRITES:
        sys.exit(f'FAIL: the peer\'s SEND said {told}, expected {WRITES}')
    theirs = pattern(SIZE * WRITES, 29 + peer) + bytes(8)
    mine = dst.read(SIZE * WRITES + 8, 0)
    if mine != theirs:
        bad = next(i for i in range(len(mine)) if mine[i] != theirs[i])
        sys.exit(f'FAIL: the peer\'s writes differ from byte {bad} on')
    line = (f'node {node} ({dev}): {WRITES} x {SIZE} B adjacent writes checked '
            f'both ways in {took:.2f} s')
    if xrxe:
        after = link_counters(dev)
        merged = (after['xrxe_wqes_coalesced'] - before['xrxe_wqes_coalesced'],
                  after['xrxe_msgs_coalesced'] - before['xrxe_msgs_coalesced'])
        want = (WRITES - 1, 1) if merging else (0, 0)
        line += f', {merged[0]} WQEs merged into {merged[1]} messages'
        if merged != want:
            sys.exit(f'FAIL: {line}: expected {want[0]} WQEs in {want[1]} messages')
    print(line)

    finish(shared, node, peer)


if __name__ == '__main__':
    main()
