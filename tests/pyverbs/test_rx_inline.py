# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Received requests handled in the receive softirq (module parameter
rx_inline), seen through the hw counter xrxe_rx_inline_requests: a
ping-pong's requests are, a one-way stream's requests and every RDMA read
request stay on the workqueue, and rx_inline=0 turns it off. Every message
is checked whichever path it took."""

from xrxe_base import XrxeTestCase, poll, sge, send_wr, recv_wr, pattern, e

NAMES = ('xrxe_rx_inline_requests',)
ROUNDS = 20


class RxInline(XrxeTestCase):
    counter_names = NAMES

    def setUp(self):
        super().setUp()
        self.set_param('rx_inline', 1)
        (self.a, self.acq), (self.b, self.bcq) = self.connected_pair()
        self.amr = self.mr(4096)
        self.bmr = self.mr(4096)

    def send(self, qp, cq, src, peer_qp, peer_cq, dst, i):
        """One 32-byte send from qp to peer_qp, checked at both ends."""
        data = pattern(32, i)
        src.write(data, 32)
        peer_qp.post_recv(recv_wr([sge(dst, 32)], wr_id=i))
        qp.post_send(send_wr([sge(src, 32)], wr_id=i))
        self.assertEqual(poll(cq)[0].wr_id, i)
        self.assertEqual(poll(peer_cq)[0].wr_id, i)
        self.assertEqual(dst.read(32, 0), data)

    def ping_pong(self):
        for i in range(ROUNDS):
            self.send(self.a, self.acq, self.amr, self.b, self.bcq, self.bmr, 2 * i)
            self.send(self.b, self.bcq, self.bmr, self.a, self.acq, self.amr, 2 * i + 1)

    def test_a_ping_pongs_turns_run_in_the_softirq(self):
        before = self.counters()
        self.ping_pong()
        d = self.delta(before)
        # Every request but each side's first follows a request its QP
        # sent; a turn that finds the previous one still being cleaned up
        # may take the workqueue, hence no exact count.
        self.assertGreaterEqual(d['xrxe_rx_inline_requests'], ROUNDS)
        self.assertLessEqual(d['xrxe_rx_inline_requests'], 2 * ROUNDS - 1)

    def test_a_one_way_streams_requests_stay_on_the_workqueue(self):
        before = self.counters()
        for i in range(2 * ROUNDS):
            self.send(self.a, self.acq, self.amr, self.b, self.bcq, self.bmr, i)
        d = self.delta(before)
        # b never sends: none of its requests is a turn.
        self.assertEqual(d['xrxe_rx_inline_requests'], 0)

    def test_read_requests_stay_on_the_workqueue(self):
        # b sends, so the next request b receives is a turn, but a read.
        self.send(self.b, self.bcq, self.bmr, self.a, self.acq, self.amr, 1)
        data = pattern(512, 3)
        self.bmr.write(data, 512)
        before = self.counters()
        wr = send_wr([sge(self.amr, 512)], opcode=e.IBV_WR_RDMA_READ, wr_id=2)
        wr.set_wr_rdma(self.bmr.rkey, self.bmr.buf)
        self.a.post_send(wr)
        self.assertEqual(poll(self.acq)[0].wr_id, 2)
        self.assertEqual(self.amr.read(512, 0), data)
        self.assertEqual(self.delta(before)['xrxe_rx_inline_requests'], 0)

    def test_rx_inline_0_keeps_all_receive_work_on_the_workqueue(self):
        self.set_param('rx_inline', 0)
        before = self.counters()
        self.ping_pong()
        self.assertEqual(self.delta(before)['xrxe_rx_inline_requests'], 0)
