# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Doorbell-less send queues seen through the device's hw counters: the
doorbells a busy-polling engine saves, the ones an idle engine asks for,
the process-wide fallback to the classic doorbell, and the engine threads'
nice value. (Per-QP controls,
hostile slots and the lost-wake-up hunter are C programs: tests/dbl/.)"""
import errno
import glob
import os
import time

from pyverbs.device import Context
from pyverbs.pd import PD

from xrxe_base import (XrxeTestCase, poll, sge, send_wr, recv_wr, pattern,
                       MODULE_PARAMS, write_file)

NAMES = ('xrxe_doorbells', 'xrxe_doorbells_avoided', 'xrxe_engine_wakeups',
         'xrxe_busy_poll_hits', 'xrxe_wqes_rejected', 'xrxe_ll_posts')
LL_MODE = os.environ.get('XRXE_LL_MODE', 'idle')


class DoorbellLess(XrxeTestCase):
    counter_names = NAMES
    needs_doorbell_less = True

    def sends(self, pair, n, gap=0.0, pd=None):
        (a, acq), (b, bcq) = pair
        buf, dst = self.mr(64, pd=pd), self.mr(64 * n, pd=pd)
        for i in range(n):
            b.post_recv(recv_wr([sge(dst, 64, 64 * i)], wr_id=i))
        for i in range(n):
            buf.write(pattern(8, i), 8)
            a.post_send(send_wr([sge(buf, 8)], wr_id=i))
            poll(acq)
            if gap:
                time.sleep(gap)
        self.assertEqual([wc.wr_id for wc in poll(bcq, n)], list(range(n)))
        for i in range(n):
            self.assertEqual(dst.read(8, 64 * i), pattern(8, i))

    def test_busy_polling_engine_saves_doorbells(self):
        if LL_MODE == 'always':
            self.skipTest('XRXE_LL_MODE=always makes a system call of every post')
        self.set_param('engine_idle_us', 2_000_000)
        pair = self.connected_pair()
        before = self.counters()
        self.sends(pair, 10)
        d = self.delta(before)
        # A post that rings sends a low-latency command instead, unless
        # that mode is off: either way one system call.
        calls = d['xrxe_doorbells'] + d['xrxe_ll_posts']
        self.assertGreaterEqual(calls, 1)
        self.assertGreaterEqual(d['xrxe_doorbells_avoided'], 1)
        self.assertGreaterEqual(d['xrxe_busy_poll_hits'], 1)
        self.assertEqual(calls + d['xrxe_doorbells_avoided'], 10)
        self.assertEqual(d['xrxe_wqes_rejected'], 0)

    def test_idle_engine_asks_for_every_doorbell(self):
        self.set_param('engine_idle_us', 0)
        pair = self.connected_pair()
        before = self.counters()
        # No busy-poll window and a pause after each completion: the engine
        # has gone idle before every post. Each doorbell serves its lone
        # WQE itself and leaves the engine asleep.
        self.sends(pair, 5, gap=0.5)
        d = self.delta(before)
        self.assertEqual(d['xrxe_doorbells'] + d['xrxe_ll_posts'], 5)
        self.assertEqual(d['xrxe_ll_posts'], 0 if LL_MODE == 'never' else 5)
        self.assertEqual(d['xrxe_engine_wakeups'], 0)
        self.assertEqual(d['xrxe_doorbells_avoided'], 0)

    def test_environment_falls_back_to_classic_doorbells(self):
        os.environ['XRXE_DOORBELL_LESS'] = '0'
        try:
            ctx = Context(name=self.dev_name)
        finally:
            del os.environ['XRXE_DOORBELL_LESS']
        self.addCleanup(ctx.close)
        saved, self.ctx, self.pd = (self.ctx, self.pd), ctx, PD(ctx)
        try:
            pair = self.connected_pair()
            before = self.counters()
            self.sends(pair, 4)
            d = self.delta(before)
        finally:
            self.ctx, self.pd = saved
        self.assertEqual(d, {n: 0 for n in NAMES})


def engine_nices():
    """The nice value of each engine thread (field 19 of its stat)."""
    nices = []
    for comm in glob.glob('/proc/[0-9]*/comm'):
        try:
            with open(comm) as f:
                if not f.read().startswith('xrxe_engine/'):
                    continue
            with open(comm[:-len('comm')] + 'stat') as f:
                stat = f.read()
        except FileNotFoundError:
            continue
        nices.append(int(stat.rsplit(')', 1)[1].split()[16]))
    return nices


class EngineNice(XrxeTestCase):
    """Module parameter engine_nice sets the engine threads' nice value at
    once; a value outside -20..19, or not a number, is refused with EINVAL
    and changes nothing."""

    def test_engines_take_the_value_at_once(self):
        for nice in (3, -7):
            self.set_param('engine_nice', nice)
            nices = engine_nices()
            self.assertTrue(nices, 'no engine thread found')
            self.assertEqual(set(nices), {nice})

    def test_a_bad_value_is_refused_and_changes_nothing(self):
        self.set_param('engine_nice', 2)
        for bad in ('20', '-21', 'fast'):
            with self.assertRaises(OSError) as ex:
                write_file(MODULE_PARAMS + 'engine_nice', bad)
            self.assertEqual(ex.exception.errno, errno.EINVAL, repr(bad))
            with open(MODULE_PARAMS + 'engine_nice') as f:
                self.assertEqual(f.read().strip(), '2')
            self.assertEqual(set(engine_nices()), {2})
