# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Received requests handled in the receive softirq (module parameter
rx_inline), seen through the hw counter xrxe_rx_inline_requests, one count
a packet: a ping-pong's requests are, every packet of a message; so is an
RDMA read whose response fits the softirq's pass (RX_INLINE_BUDGET
packets), turn or not; a one-way stream's requests and longer reads stay
on the workqueue, and rx_inline=0 turns it off. Every message is checked
whichever path it took."""

from xrxe_base import XrxeTestCase, poll, sge, send_wr, recv_wr, pattern, e

NAMES = ('xrxe_rx_inline_requests',)
ROUNDS = 20
# The pair's path MTU (xrxe_base): a message of MTU * PACKETS bytes is
# PACKETS packets.
MTU = 1024
PACKETS = 4
# The kernel's XRXE_RX_INLINE_BUDGET: a read of that many response packets
# is handled in the softirq, one more goes to the workqueue.
RX_INLINE_BUDGET = 8


class RxInline(XrxeTestCase):
    counter_names = NAMES

    def setUp(self):
        super().setUp()
        self.set_param('rx_inline', 1)
        self.setup_connected_pair(MTU * (RX_INLINE_BUDGET + 1))

    def send(self, qp, cq, src, peer_qp, peer_cq, dst, i, size=32):
        """One send of size bytes from qp to peer_qp, checked at both ends."""
        data = pattern(size, i)
        src.write(data, size)
        peer_qp.post_recv(recv_wr([sge(dst, size)], wr_id=i))
        qp.post_send(send_wr([sge(src, size)], wr_id=i))
        self.assertEqual(poll(cq)[0].wr_id, i)
        self.assertEqual(poll(peer_cq)[0].wr_id, i)
        self.assertEqual(dst.read(size, 0), data)

    def ping_pong(self, size=32):
        for i in range(ROUNDS):
            self.send(self.a, self.acq, self.amr, self.b, self.bcq, self.bmr, 2 * i, size)
            self.send(self.b, self.bcq, self.bmr, self.a, self.acq, self.amr, 2 * i + 1, size)

    def read(self, size):
        """An RDMA read of size bytes by a from b, checked."""
        data = pattern(size, 3)
        self.bmr.write(data, size)
        wr = send_wr([sge(self.amr, size)], opcode=e.IBV_WR_RDMA_READ, wr_id=2)
        wr.set_wr_rdma(self.bmr.rkey, self.bmr.buf)
        self.a.post_send(wr)
        self.assertEqual(poll(self.acq)[0].wr_id, 2)
        self.assertEqual(self.amr.read(size, 0), data)

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

    def test_every_packet_of_a_ping_pongs_message_runs_in_the_softirq(self):
        before = self.counters()
        self.ping_pong(MTU * PACKETS)
        d = self.delta(before)
        # One message's worth of packets at most is each side's first, not
        # a turn; a turn ending at its first packet would count at most
        # one a message.
        self.assertGreater(d['xrxe_rx_inline_requests'], 2 * ROUNDS - 1)
        self.assertLessEqual(d['xrxe_rx_inline_requests'], (2 * ROUNDS - 1) * PACKETS)

    def test_a_one_packet_read_runs_in_the_softirq(self):
        # b never sends: the read is no turn, but its requester waits.
        before = self.counters()
        self.read(MTU)
        self.assertEqual(self.delta(before)['xrxe_rx_inline_requests'], 1)

    def test_a_read_that_fits_the_budget_runs_in_the_softirq(self):
        # Its last byte makes it RX_INLINE_BUDGET packets, not one more.
        before = self.counters()
        self.read(MTU * RX_INLINE_BUDGET)
        self.assertEqual(self.delta(before)['xrxe_rx_inline_requests'], 1)

    def test_a_longer_read_stays_on_the_workqueue(self):
        # b sends, so the next request b receives is a turn, but a read
        # whose response is one packet more than the budget.
        self.send(self.b, self.bcq, self.bmr, self.a, self.acq, self.amr, 1)
        before = self.counters()
        self.read(MTU * RX_INLINE_BUDGET + 1)
        self.assertEqual(self.delta(before)['xrxe_rx_inline_requests'], 0)

    def test_rx_inline_0_keeps_all_receive_work_on_the_workqueue(self):
        self.set_param('rx_inline', 0)
        before = self.counters()
        self.ping_pong()
        self.assertEqual(self.delta(before)['xrxe_rx_inline_requests'], 0)
