# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""One ACK per burst (the hook "Ask for an ACK only when no more send work
follows"): an RC message asks for an ACK only when no more send work
follows it. Bursts must still complete, each WQE
once and in order, whatever follows them: nothing, a fenced WQE, reads, or
a move to SQD."""
import pyverbs.enums as e
from pyverbs.qp import QPAttr

from xrxe_base import XrxeTestCase, poll, sge, send_wr, pattern

BURST = 16
SIZE = 64


class AckPerBurst(XrxeTestCase):
    counter_names = ('sent_pkts',)

    def setUp(self):
        super().setUp()
        # Only the WRs flagged IBV_SEND_SIGNALED complete with a CQE.
        (self.qp, self.cq), (self.peer, _) = self.connected_pair(
            max_send_wr=2 * BURST, sq_sig_all=0)
        self.local = self.mr(SIZE * BURST)
        self.remote = self.mr(SIZE * BURST)
        self.back = self.mr(SIZE * BURST)

    def write(self, i, flags=e.IBV_SEND_SIGNALED):
        self.local.write(pattern(SIZE, i), SIZE, SIZE * i)
        wr = send_wr([sge(self.local, SIZE, SIZE * i)],
                     opcode=e.IBV_WR_RDMA_WRITE, wr_id=i, flags=flags)
        wr.set_wr_rdma(self.remote.rkey, self.remote.buf + SIZE * i)
        return wr

    def read(self, i, wr_id=None):
        """Read back what write(i) wrote."""
        wr = send_wr([sge(self.back, SIZE, SIZE * i)],
                     opcode=e.IBV_WR_RDMA_READ,
                     wr_id=i if wr_id is None else wr_id)
        wr.set_wr_rdma(self.remote.rkey, self.remote.buf + SIZE * i)
        return wr

    def post_list(self, wrs):
        for wr, nxt in zip(wrs, wrs[1:]):
            wr.next_wr = nxt
        self.qp.post_send(wrs[0])

    def check_completions(self, wrs):
        wcs = poll(self.cq, len(wrs))
        self.assertEqual([wc.wr_id for wc in wcs], [wr.wr_id for wr in wrs])

    def test_a_burst_of_writes_costs_one_ack(self):
        before = self.counters()
        wrs = [self.write(i) for i in range(BURST)]
        self.post_list(wrs)
        self.check_completions(wrs)
        for i in range(BURST):
            self.assertEqual(self.remote.read(SIZE, SIZE * i), pattern(SIZE, i))
        # Both ends are on this device: BURST requests, then the ACKs. With
        # an ACK per message there would be BURST of them.
        sent = self.delta(before)['sent_pkts']
        self.assertGreaterEqual(sent, BURST + 1)
        self.assertLessEqual(sent, BURST + 2, f'{sent - BURST} ACKs for '
                             f'a burst of {BURST} writes')

    def test_unsignaled_writes_complete_with_the_last(self):
        wrs = [self.write(i, flags=0) for i in range(BURST - 1)]
        wrs.append(self.write(BURST - 1))
        self.post_list(wrs)
        self.assertEqual([wc.wr_id for wc in poll(self.cq)], [BURST - 1])
        for i in range(BURST):
            self.assertEqual(self.remote.read(SIZE, SIZE * i), pattern(SIZE, i))

    def test_writes_then_a_fenced_read(self):
        wrs = [self.write(i) for i in range(4)]
        # The fence makes the read wait for the writes: it sees the last.
        fenced = self.read(3, wr_id=4)
        fenced.send_flags = e.IBV_SEND_SIGNALED | e.IBV_SEND_FENCE
        wrs += [fenced, self.write(5)]
        self.post_list(wrs)
        self.check_completions(wrs)
        self.assertEqual(self.back.read(SIZE, SIZE * 3), pattern(SIZE, 3))

    def test_writes_and_reads_interleaved(self):
        wrs = []
        for i in range(0, BURST, 2):
            wrs += [self.write(i), self.read(i)]
        self.post_list(wrs)
        self.check_completions(wrs)
        for i in range(0, BURST, 2):
            self.assertEqual(self.back.read(SIZE, SIZE * i), pattern(SIZE, i))

    def test_a_burst_then_sqd_drains_and_resumes(self):
        wrs = [self.write(i) for i in range(BURST)]
        self.post_list(wrs)
        sqd = QPAttr(qp_state=e.IBV_QPS_SQD)
        sqd.en_sqd_async_notify = 1
        self.qp.modify(sqd, e.IBV_QP_STATE | e.IBV_QP_EN_SQD_ASYNC_NOTIFY)
        self.check_completions(wrs)
        # Back to RTS only once drained: the requester says so with an
        # event, which may come after the last completion.
        while True:
            event = self.ctx.get_async_event()
            event.ack()
            if event.event_type == e.IBV_EVENT_SQ_DRAINED:
                break
        self.qp.modify(QPAttr(cur_qp_state=e.IBV_QPS_SQD,
                              qp_state=e.IBV_QPS_RTS), e.IBV_QP_STATE)
        last = [self.write(0)]
        self.post_list(last)
        self.check_completions(last)
