# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Completion timestamps: the device's clock is the kernel's.

hca_core_clock says 1 GHz, ibv_query_rt_values_ex() reads CLOCK_MONOTONIC,
and a CQ created with IBV_WC_EX_WITH_COMPLETION_TIMESTAMP(_WALLCLOCK) gives
each completion the CLOCK_MONOTONIC and CLOCK_REALTIME times at which the
kernel posted it: both lie between a clock read before the post and one
after the poll."""
import time

import pyverbs.enums as e
from pyverbs.cq import CQ, CQEX, CqInitAttrEx, PollCqAttr

from xrxe_base import (XrxeTestCase, POLL_TIMEOUT, poll, run_test_tool, sge,
                       send_wr, recv_wr)

BOTH = (e.IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
        e.IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)


def clocks():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC), time.time_ns()


def poll_stamped(cq, count, wc_flags=BOTH):
    """count completions of cq as (wr_id, status, ts, wallclock); a stamp
    the CQ was not created for reads as None."""
    got = []
    deadline = time.monotonic() + POLL_TIMEOUT
    while len(got) < count:
        if time.monotonic() > deadline:
            raise AssertionError(f'{len(got)} of {count} completions '
                                 f'after {POLL_TIMEOUT} s')
        if cq.start_poll(PollCqAttr()) != 0:
            time.sleep(0.001)
            continue
        while True:
            ts = (cq.read_timestamp()
                  if wc_flags & e.IBV_WC_EX_WITH_COMPLETION_TIMESTAMP else None)
            wall = (cq.read_completion_wallclock_ns()
                    if wc_flags & e.IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK
                    else None)
            got.append((cq.wr_id, cq.status, ts, wall))
            if len(got) == count or cq.poll_next() != 0:
                break
        cq.end_poll()
    return got


class CompletionTimestamps(XrxeTestCase):
    def stamped_cq(self, wc_flags=BOTH):
        return CQEX(self.ctx, CqInitAttrEx(cqe=64, wc_flags=wc_flags))

    def test_device_clock_is_nanoseconds(self):
        attr = self.ctx.query_device_ex()
        self.assertEqual(attr.hca_core_clock, 1000000)  # kHz
        self.assertEqual(attr.completion_timestamp_mask, 2**64 - 1)

    def test_rt_values_read_the_monotonic_clock(self):
        before = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        sec, nsec = self.ctx.query_rt_values_ex()
        after = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        self.assertEqual(sec, 0)
        self.assertLessEqual(before, nsec)
        self.assertLessEqual(nsec, after)

    def test_send_and_receive_completions_are_stamped_in_order(self):
        scq, rcq = self.stamped_cq(), self.stamped_cq()
        a, _ = self.create_qp(cq=scq)
        b, _ = self.create_qp(cq=rcq)
        self.connect(a, b)
        buf = self.mr(64)
        n = 8
        for i in range(n):
            b.post_recv(recv_wr([sge(buf, 64)], wr_id=100 + i))
        mono0, wall0 = clocks()
        for i in range(n):
            a.post_send(send_wr([sge(buf, 8)], wr_id=i))
        sent, received = poll_stamped(scq, n), poll_stamped(rcq, n)
        mono1, wall1 = clocks()
        for wcs, first in ((sent, 0), (received, 100)):
            self.assertEqual([w[0] for w in wcs], list(range(first, first + n)))
            self.assertTrue(all(w[1] == e.IBV_WC_SUCCESS for w in wcs), wcs)
            stamps = [w[2] for w in wcs]
            walls = [w[3] for w in wcs]
            self.assertTrue(all(mono0 <= t <= mono1 for t in stamps),
                            (mono0, stamps, mono1))
            self.assertTrue(all(wall0 <= t <= wall1 for t in walls),
                            (wall0, walls, wall1))
            # One CQ's entries are stamped as they are posted, in order.
            self.assertEqual(stamps, sorted(stamps))

    def test_one_kind_of_stamp_alone(self):
        for wc_flags in (e.IBV_WC_EX_WITH_COMPLETION_TIMESTAMP,
                         e.IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK):
            with self.subTest(wc_flags=hex(wc_flags)):
                scq = self.stamped_cq(wc_flags)
                a, _ = self.create_qp(cq=scq)
                b, _ = self.create_qp()
                self.connect(a, b)
                buf = self.mr(64)
                b.post_recv(recv_wr([sge(buf, 64)]))
                mono0, wall0 = clocks()
                a.post_send(send_wr([sge(buf, 8)], wr_id=7))
                (wr_id, status, ts, wall), = poll_stamped(scq, 1, wc_flags)
                mono1, wall1 = clocks()
                self.assertEqual((wr_id, status), (7, e.IBV_WC_SUCCESS))
                if ts is not None:
                    self.assertTrue(mono0 <= ts <= mono1)
                if wall is not None:
                    self.assertTrue(wall0 <= wall <= wall1)

    def test_resized_cq_keeps_its_stamps(self):
        """ibv_resize_cq() of an extended CQ takes a C program."""
        r = run_test_tool(self, 'xrxe-cq-timestamp-test', self.dev_name)
        self.assertIn('stamped CQ resize: all checks passed', r.stdout)

    def test_plain_cq_beside_a_stamped_one(self):
        """A QP whose send CQ stamps and whose receive CQ does not."""
        scq, rcq = self.stamped_cq(), CQ(self.ctx, 16)
        a, _ = self.create_qp(cq=scq)
        b, bcq = self.create_qp(cq=rcq)
        self.connect(a, b)
        buf = self.mr(64)
        b.post_recv(recv_wr([sge(buf, 64)], wr_id=3))
        a.post_send(send_wr([sge(buf, 8)], wr_id=4))
        self.assertEqual(poll_stamped(scq, 1)[0][:2], (4, e.IBV_WC_SUCCESS))
        self.assertEqual(poll(rcq)[0].wr_id, 3)
