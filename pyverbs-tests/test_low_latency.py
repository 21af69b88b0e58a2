# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Low-latency posting seen through the device's hw counters: lone posts to
an idle engine travel in their doorbell and deliver their payloads (sends
and RDMA writes, inline or from one SGE), lists and large posts use the
ring, and dropped commands fall back to the ring. (Hostile commands and the
interleaving hunter are C programs: tests/dbl/.)"""
import os

from xrxe_base import XrxeTestCase, poll, sge, send_wr, recv_wr, pattern, e

LL_MODE = os.environ.get('XRXE_LL_MODE', 'idle')
NAMES = ('xrxe_doorbells', 'xrxe_ll_posts', 'xrxe_ll_accepted',
         'xrxe_ll_dropped_forced', 'xrxe_ll_rejected')


class LowLatency(XrxeTestCase):
    counter_names = NAMES
    # Low-latency posting is a path of the doorbell-less send queue.
    needs_doorbell_less = True

    def setUp(self):
        super().setUp()
        # An engine that idles at once: every lone post must ring.
        self.set_param('engine_idle_us', 0)
        (self.qp, self.cq), (self.peer, self.pcq) = self.connected_pair(
            max_inline_data=256, max_send_sge=2)
        self.src = self.mr(4096)
        self.dst = self.mr(4096)

    def send(self, i, size, flags=e.IBV_SEND_SIGNALED, sges=1):
        """A lone send of size bytes in sges SGEs, checked at the receiver."""
        data = pattern(size, i)
        self.src.write(data, size)
        self.peer.post_recv(recv_wr([sge(self.dst, size)], wr_id=i))
        half = size // 2 if sges == 2 else size
        parts = [sge(self.src, half)] + ([sge(self.src, size - half, half)] if sges == 2 else [])
        self.qp.post_send(send_wr(parts, wr_id=i, flags=flags))
        # The source is reused at once: an inline payload was copied at post.
        self.src.write(bytes(size), size)
        self.assertEqual(poll(self.cq)[0].wr_id, i)
        self.assertEqual(poll(self.pcq)[0].wr_id, i)
        self.assertEqual(self.dst.read(size, 0), data)

    def write(self, i, size, flags=e.IBV_SEND_SIGNALED):
        data = pattern(size, i)
        self.src.write(data, size)
        wr = send_wr([sge(self.src, size)], opcode=e.IBV_WR_RDMA_WRITE, wr_id=i,
                     flags=flags)
        wr.set_wr_rdma(self.dst.rkey, self.dst.buf + 64 * i)
        self.qp.post_send(wr)
        self.src.write(bytes(size), size)
        self.assertEqual(poll(self.cq)[0].wr_id, i)
        self.assertEqual(self.dst.read(size, 64 * i), data)

    def expect_commands(self, d, n):
        """n lone posts that each needed a system call: a command each,
        unless the mode is never."""
        if LL_MODE == 'never':
            self.assertEqual((d['xrxe_ll_posts'], d['xrxe_doorbells']), (0, n))
        else:
            self.assertEqual((d['xrxe_ll_posts'], d['xrxe_ll_accepted'],
                              d['xrxe_doorbells']), (n, n, 0))
        self.assertEqual(d['xrxe_ll_rejected'], 0)

    def test_inline_sends_and_writes_travel_in_the_doorbell(self):
        before = self.counters()
        for i, size in enumerate((2, 64, 256)):
            self.send(i, size, e.IBV_SEND_SIGNALED | e.IBV_SEND_INLINE)
            self.write(i, size, e.IBV_SEND_SIGNALED | e.IBV_SEND_INLINE)
        self.expect_commands(self.delta(before), 6)

    def test_small_single_sge_posts_travel_in_the_doorbell(self):
        before = self.counters()
        self.send(1, 64)
        self.write(2, 256)
        self.expect_commands(self.delta(before), 2)

    def test_large_and_multi_sge_posts_use_the_ring(self):
        before = self.counters()
        self.send(1, 1024)
        self.send(2, 64, sges=2)
        d = self.delta(before)
        self.assertEqual((d['xrxe_ll_posts'], d['xrxe_doorbells']), (0, 2))

    def test_dropped_commands_fall_back_to_the_ring(self):
        if LL_MODE == 'never':
            self.skipTest('XRXE_LL_MODE=never sends no command to drop')
        self.set_knob('ll_drop_every', 1)
        before = self.counters()
        for i in range(6):
            self.send(i, 32, e.IBV_SEND_SIGNALED | e.IBV_SEND_INLINE)
        d = self.delta(before)
        # Every command dropped, and every payload delivered from the ring.
        self.assertGreaterEqual(d['xrxe_ll_dropped_forced'], 1)
        self.assertEqual(d['xrxe_ll_accepted'], 0)
        self.assertEqual(d['xrxe_ll_dropped_forced'], d['xrxe_ll_posts'])
        self.assertEqual(d['xrxe_ll_posts'] + d['xrxe_doorbells'], 6)
