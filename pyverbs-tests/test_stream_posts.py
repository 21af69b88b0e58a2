# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Where a post's send work runs: in the poster's own context for a lone
post (nothing of its QP in flight) and for the posts of an answer (the
first ANSWER_POSTS after the QP received a request: its peer waits for
what follows, every fragment of it); on the QP's engine, or the workqueue
with classic send queues, for the posts of a stream, which find earlier
WQEs of their QP still in flight and answer nothing. hw counter
xrxe_posts_deferred counts the posts left to an engine or the workqueue.
The rule is the same with and without doorbell-less send queues
(the classic pyverbs run covers the other). Every message is checked, in
order.

A send to a peer with no receive posted stays in flight (the peer answers
RNR NAKs until a receive comes), which makes "in flight" certain. The peer's
RNR NAKs ask for its longest wait: a retry rewinds the requester to the
unacknowledged WQE, and for the moment until it sends again a classic send
queue looks idle to a post; no retry may fall inside a test's posts."""

import time

from xrxe_base import (XrxeTestCase, poll, sge, send_wr, recv_wr, pattern,
                       link_counters, e, POLL_TIMEOUT)

NAMES = ('xrxe_posts_deferred',)
ROUNDS = 10
SIZE = 64
# The kernel's XRXE_ANSWER_POSTS: after a request is heard, that many posts
# that find earlier WQEs in flight still run in the poster's context.
ANSWER_POSTS = 16
# b's first send, its answer's posts and one more, then a's write to b.
SLOTS = ANSWER_POSTS + 3
REQUEST_SLOT = SLOTS - 1
# IBTA's min_rnr_timer code for 491.52 ms, the wait the QPs' RNR NAKs ask.
LONGEST_RNR_WAIT = 31


class StreamPosts(XrxeTestCase):
    counter_names = NAMES

    def setUp(self):
        super().setUp()
        # An engine that polls its ring would take b's posts without a
        # doorbell: none of them would be seen.
        self.set_param('engine_idle_us', 0)
        self.setup_connected_pair(SIZE * SLOTS, max_send_wr=SLOTS,
                                  max_recv_wr=SLOTS,
                                  min_rnr_timer=LONGEST_RNR_WAIT)

    def b_sends(self, slot, seed):
        """b posts a send of SIZE bytes from slot of its MR; returns them."""
        data = pattern(SIZE, seed)
        self.bmr.write(data, SIZE, slot * SIZE)
        self.b.post_send(send_wr([sge(self.bmr, SIZE, slot * SIZE)],
                                 wr_id=slot))
        return data

    def a_receives(self, sent):
        """a posts a receive for each message b sent, then checks that
        they all arrive, in order, and complete at b in order."""
        for i in range(len(sent)):
            self.a.post_recv(recv_wr([sge(self.amr, SIZE, i * SIZE)], wr_id=i))
        self.assertEqual([wc.wr_id for wc in poll(self.acq, len(sent))],
                         list(range(len(sent))))
        self.assertEqual([wc.wr_id for wc in poll(self.bcq, len(sent))],
                         list(range(len(sent))))
        for i, data in enumerate(sent):
            self.assertEqual(self.amr.read(SIZE, i * SIZE), data)

    def a_writes_to_b(self):
        """A request b receives (an RDMA write: no receive needed), seen
        acknowledged by a."""
        data = pattern(SIZE, 9)
        self.amr.write(data, SIZE, REQUEST_SLOT * SIZE)
        wr = send_wr([sge(self.amr, SIZE, REQUEST_SLOT * SIZE)],
                     opcode=e.IBV_WR_RDMA_WRITE, wr_id=99)
        wr.set_wr_rdma(self.bmr.rkey, self.bmr.buf + REQUEST_SLOT * SIZE)
        self.a.post_send(wr)
        self.assertEqual(poll(self.acq)[0].wr_id, 99)
        self.assertEqual(self.bmr.read(SIZE, REQUEST_SLOT * SIZE), data)

    def b_sends_in_flight(self):
        """b sends a message a has no receive for: in flight until a posts
        one. Returns its data once a's first RNR NAK came back."""
        rnr = link_counters(self.dev_name)['rcvd_rnr_err']
        data = self.b_sends(0, 1)
        deadline = time.monotonic() + POLL_TIMEOUT
        while link_counters(self.dev_name)['rcvd_rnr_err'] == rnr:
            self.assertLess(time.monotonic(), deadline, 'no RNR NAK came')
        return data

    def test_lone_posts_run_in_the_posters_context(self):
        before = self.counters()
        for i in range(ROUNDS):
            # The previous send completed: nothing of b's is in flight.
            self.a_receives([self.b_sends(0, i)])
        self.assertEqual(self.delta(before)['xrxe_posts_deferred'], 0)

    def second_send_deferred(self):
        """b sends twice, the first held in flight; whether the second post
        was deferred (0 or 1), once both arrived."""
        sent = [self.b_sends_in_flight()]
        before = self.counters()
        sent.append(self.b_sends(1, 2))
        deferred = self.delta(before)['xrxe_posts_deferred']
        self.a_receives(sent)
        return deferred

    def test_a_streams_post_is_deferred(self):
        # b has heard nothing; its first send is in flight.
        self.assertEqual(self.second_send_deferred(), 1)

    def test_an_answers_posts_run_in_the_posters_context(self):
        # b hears a request while idle: what it posts next answers it.
        self.a_writes_to_b()
        self.assertEqual(self.second_send_deferred(), 0)

    def test_an_answer_keeps_a_bounded_number_of_posts(self):
        # A request heard while b's send is in flight (a ping-pong whose
        # last ACK is still on its way) makes b's next posts an answer's,
        # ANSWER_POSTS of them: a stream that hears a peer now and then (a
        # flow-control message, say) stays a stream.
        sent = [self.b_sends_in_flight()]
        self.a_writes_to_b()
        before = self.counters()
        for i in range(ANSWER_POSTS):
            sent.append(self.b_sends(1 + i, 2 + i))
        self.assertEqual(self.delta(before)['xrxe_posts_deferred'], 0)
        before = self.counters()
        sent.append(self.b_sends(1 + ANSWER_POSTS, 2 + ANSWER_POSTS))
        self.assertEqual(self.delta(before)['xrxe_posts_deferred'], 1)
        self.a_receives(sent)
