# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Send rate limits through the standard verb: ibv_modify_qp() with
IBV_QP_RATE_LIMIT, the caps ibv_query_device_ex() reports, and traffic
that pauses on its limit and still arrives whole and in order."""
import errno
import os
import time

import pyverbs.enums as e
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QPAttr

from xrxe_base import (XrxeTestCase, GRH_SIZE, QKEY, poll, sge, send_wr,
                       recv_wr, pattern)

RATE_MIN = 1
RATE_MAX = 100000000
# Slow enough that a 64 KiB message outlasts the default 16 KiB burst (the
# floor, up to 4096 kbit/s) many times over, fast enough that 1 MiB takes
# about two seconds.
SLOW_KBPS = 4000
# ACK timeout of the paced QPs (4.3 s): a loaded host may delay an ACK past
# the 67 ms of exponent 14, which is a retry the limit did not cause. The
# long-pause tests keep 14, so that their pauses outlast it.
TRAFFIC_TIMEOUT = 20
LONG_PAUSE_TIMEOUT = 14
# What must not move while paced traffic flows: the transport recovering
# from a lost, duplicated or reordered packet.
TRANSPORT_COUNTERS = ('duplicate_request', 'out_of_seq_request',
                      'rcvd_seq_err', 'completer_retry_err',
                      'retry_exceeded_err', 'retry_rnr_exceeded_err',
                      'send_rnr_err', 'rcvd_rnr_err')


class RateLimit(XrxeTestCase):
    counter_names = ('xrxe_pace_pauses', 'xrxe_pace_wakeups',
                     'xrxe_pace_bytes', 'xrxe_ll_dropped_paced',
                     'xrxe_ll_accepted',
                     'xrxe_pace_late_wakeups', 'xrxe_pace_late_bytes',
                     'xrxe_pace_wait_us') + \
        TRANSPORT_COUNTERS

    def set_rate(self, qp, kbps):
        attr = QPAttr()
        attr.rate_limit = kbps
        qp.modify(attr, e.IBV_QP_RATE_LIMIT)

    def assert_clean_transport(self, moved):
        for name in TRANSPORT_COUNTERS:
            self.assertEqual(moved[name], 0, f'{name} moved by {moved[name]}')

    def assert_one_pause_per_wakeup(self, moved):
        """With the rate left alone, every pause is one timer wait that ended
        before the last message completed: an ACK or a post that runs the
        paused requester must not count or arm another."""
        self.assertGreater(moved['xrxe_pace_pauses'], 0)
        self.assertEqual(moved['xrxe_pace_pauses'], moved['xrxe_pace_wakeups'])
        # Some wake-ups may be late on a busy machine, never more than all.
        self.assertLessEqual(moved['xrxe_pace_late_wakeups'],
                             moved['xrxe_pace_wakeups'])

    def test_caps(self):
        caps = self.ctx.query_device_ex().packet_pacing_caps
        self.assertEqual(caps.qp_rate_limit_min, RATE_MIN)
        self.assertEqual(caps.qp_rate_limit_max, RATE_MAX)
        self.assertEqual(caps.supported_qpts,
                         1 << e.IBV_QPT_RC | 1 << e.IBV_QPT_UC |
                         1 << e.IBV_QPT_UD)

    def test_range_in_every_state(self):
        """Above the device's range is EINVAL, in and out of RTS; the range's
        ends and 0 (no limit) are accepted."""
        for qp_type in (e.IBV_QPT_RC, e.IBV_QPT_UC, e.IBV_QPT_UD):
            qp, _ = self.create_qp(qp_type)
            self.assertErrno(errno.EINVAL, self.set_rate, qp, RATE_MAX + 1)
            self.assertErrno(errno.EINVAL, self.set_rate, qp, 0xffffffff)
            for kbps in (RATE_MIN, RATE_MAX, 0):
                self.set_rate(qp, kbps)
            self.to_rts(qp, qp.qp_num)
            self.assertErrno(errno.EINVAL, self.set_rate, qp, RATE_MAX + 1)
            for kbps in (RATE_MAX, SLOW_KBPS, 0):
                self.set_rate(qp, kbps)

    def test_rate_with_other_attributes(self):
        """The rate goes in the same modify as a state change; a bad rate
        fails the whole modify, which changes nothing."""
        qp, _ = self.create_qp()
        attr = QPAttr(qp_state=e.IBV_QPS_INIT, port_num=1)
        attr.pkey_index = 0
        attr.qp_access_flags = 0
        attr.rate_limit = RATE_MAX + 1
        mask = (e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT |
                e.IBV_QP_ACCESS_FLAGS)
        self.assertErrno(errno.EINVAL, qp.modify, attr,
                         mask | e.IBV_QP_RATE_LIMIT)
        self.assertEqual(qp.query(e.IBV_QP_STATE)[0].cur_qp_state,
                         e.IBV_QPS_RESET)
        attr.rate_limit = SLOW_KBPS
        qp.modify(attr, mask | e.IBV_QP_RATE_LIMIT)
        self.assertEqual(qp.query(e.IBV_QP_STATE)[0].cur_qp_state,
                         e.IBV_QPS_INIT)

    def rc_pair(self, kbps, when='rts', retry_cnt=7, timeout=TRAFFIC_TIMEOUT):
        """An RC pair whose first QP is paced at kbps, set before RTS
        (in INIT) or once in RTS; the paced QP retries retry_cnt times
        after ACK timeouts of the given IBTA exponent."""
        a, acq = self.create_qp(e.IBV_QPT_RC, max_send_wr=64)
        b, bcq = self.create_qp(e.IBV_QPT_RC, max_send_wr=64)
        if when == 'init':
            attr = QPAttr(qp_state=e.IBV_QPS_INIT, port_num=1)
            attr.qp_access_flags = e.IBV_ACCESS_REMOTE_WRITE
            a.to_init(attr)
            self.set_rate(a, kbps)
        self.to_rts(a, b.qp_num, retry_cnt, timeout)
        self.to_rts(b, a.qp_num)
        if when == 'rts':
            self.set_rate(a, kbps)
        return (a, acq), (b, bcq)

    def rc_traffic(self, a, acq, b, bcq, sizes):
        """RDMA writes, sends and reads of each size from a to b, each
        checked byte for byte."""
        big = max(sizes)
        src, dst, back = self.mr(big), self.mr(big), self.mr(big)
        for i, size in enumerate(sizes):
            data = pattern(size, i)
            src.write(data, size)
            self.rdma(a, acq, src, dst, size, e.IBV_WR_RDMA_WRITE, i)
            self.assertEqual(dst.read(size, 0), data, f'write {size}')

            data = pattern(size, i + 100)
            src.write(data, size)
            b.post_recv(recv_wr([sge(dst, size)], wr_id=i))
            a.post_send(send_wr([sge(src, size)], wr_id=i))
            poll(acq, timeout=60)
            self.assertEqual(poll(bcq, timeout=60)[0].byte_len, size)
            self.assertEqual(dst.read(size, 0), data, f'send {size}')

            self.rdma(a, acq, back, dst, size, e.IBV_WR_RDMA_READ, i)
            self.assertEqual(back.read(size, 0), data, f'read {size}')

    @staticmethod
    def rdma(qp, cq, local, remote, size, opcode, wr_id):
        """One RDMA WRITE or READ of size bytes between local and remote,
        completed."""
        wr = send_wr([sge(local, size)], opcode=opcode, wr_id=wr_id)
        wr.set_wr_rdma(remote.rkey, remote.buf)
        qp.post_send(wr)
        poll(cq, timeout=60)

    def test_rc_multi_packet_messages_across_pauses(self):
        before = self.counters()
        (a, acq), (b, bcq) = self.rc_pair(SLOW_KBPS)
        self.rc_traffic(a, acq, b, bcq, (4096, 65536, 1 << 20))
        moved = self.delta(before)
        self.assert_one_pause_per_wakeup(moved)
        # Two megabytes and more went out under the limit, headers counted.
        self.assertGreater(moved['xrxe_pace_bytes'], 2 * (1 << 20))
        self.assert_clean_transport(moved)

    def paced_write(self, kbps, size, seed, retry_cnt=7, timeout=TRAFFIC_TIMEOUT):
        """One RDMA write of size bytes from a QP paced at kbps, its data
        checked; returns the counters it moved."""
        before = self.counters()
        (a, acq), (b, bcq) = self.rc_pair(kbps, retry_cnt=retry_cnt,
                                          timeout=timeout)
        src, dst = self.mr(size), self.mr(size)
        data = pattern(size, seed)
        src.write(data, size)
        wr = send_wr([sge(src, size)], opcode=e.IBV_WR_RDMA_WRITE)
        wr.set_wr_rdma(dst.rkey, dst.buf)
        a.post_send(wr)
        poll(acq, timeout=60)
        self.assertEqual(dst.read(size, 0), data)
        return self.delta(before)

    def test_late_wakeups_are_counted(self):
        """The test knob resumes every paused QP 50 ms late. At SLOW_KBPS
        (500 bytes a millisecond) the default 16 KiB bucket fills within
        32.8 ms of any pause, so every wake-up comes after it filled, and
        more than 17 ms of the rate (8500 bytes) spilled each time; each
        wait, from the pause to the run after it, lasted 50 ms at least.
        The data still arrives whole."""
        self.set_knob('pace_delay_us', 50000)
        moved = self.paced_write(SLOW_KBPS, 256 * 1024, 23)
        self.assert_one_pause_per_wakeup(moved)
        self.assertEqual(moved['xrxe_pace_late_wakeups'],
                         moved['xrxe_pace_wakeups'])
        self.assertGreaterEqual(moved['xrxe_pace_late_bytes'],
                                8500 * moved['xrxe_pace_late_wakeups'])
        self.assertGreaterEqual(moved['xrxe_pace_wait_us'],
                                50000 * moved['xrxe_pace_wakeups'])
        self.assert_clean_transport(moved)

    def write_across_long_pauses(self, retry_cnt):
        """A 32 KiB write at 100 kbit/s: each pause outlasts the ACK timeout
        (67 ms here). A pause with every packet acknowledged is no timeout,
        so the write completes and nothing is retried or sent twice."""
        moved = self.paced_write(100, 32768, 17, retry_cnt, LONG_PAUSE_TIMEOUT)
        self.assert_one_pause_per_wakeup(moved)
        self.assert_clean_transport(moved)

    def test_pauses_longer_than_the_retry_timeout(self):
        self.write_across_long_pauses(7)

    def test_pauses_do_not_use_up_retries(self):
        """retry_cnt 0: one timeout would fail the write, so no pause may
        leave the retry timer to fire."""
        self.write_across_long_pauses(0)

    def test_rate_set_in_init_applies_from_rts(self):
        before = self.counters()
        (a, acq), (b, bcq) = self.rc_pair(SLOW_KBPS, when='init')
        self.rc_traffic(a, acq, b, bcq, (65536,))
        moved = self.delta(before)
        self.assertGreater(moved['xrxe_pace_pauses'], 0)
        self.assert_clean_transport(moved)

    def test_rate_zero_removes_the_limit(self):
        (a, acq), (b, bcq) = self.rc_pair(SLOW_KBPS)
        self.set_rate(a, 0)
        before = self.counters()
        self.rc_traffic(a, acq, b, bcq, (65536,))
        moved = self.delta(before)
        self.assertEqual(moved['xrxe_pace_pauses'], 0)
        self.assertEqual(moved['xrxe_pace_bytes'], 0)

    def test_rate_changes_while_traffic_flows(self):
        """A backlog of writes, the rate changed under it again and again:
        every write lands, in order, whole."""
        (a, acq), (b, bcq) = self.rc_pair(SLOW_KBPS)
        n, size = 16, 32768
        src, dst = self.mr(n * size), self.mr(n * size)
        data = pattern(n * size, 5)
        src.write(data, n * size)
        before = self.counters()
        for i in range(n):
            wr = send_wr([sge(src, size, i * size)],
                         opcode=e.IBV_WR_RDMA_WRITE, wr_id=i)
            wr.set_wr_rdma(dst.rkey, dst.buf + i * size)
            a.post_send(wr)
        for kbps in (2000, 0, 8000, RATE_MAX, SLOW_KBPS, 16000):
            self.set_rate(a, kbps)
        wcs = poll(acq, n, timeout=60)
        self.assertEqual([wc.wr_id for wc in wcs], list(range(n)))
        self.assertEqual(dst.read(n * size, 0), data)
        self.assert_clean_transport(self.delta(before))

    def test_back_pressure_is_a_full_send_queue(self):
        """A QP held back by its limit fills its send queue: the post after
        that is ENOMEM, as for any full queue; lifting the limit drains it."""
        (a, acq), (b, bcq) = self.connected_pair(max_send_wr=8)
        self.set_rate(a, RATE_MIN)
        depth = self.send_cap(a).max_send_wr
        size = 8192
        src, dst = self.mr(size), self.mr(size)
        posted = 0
        with self.assertRaises(PyverbsRDMAError) as ex:
            for posted in range(depth + 64):
                wr = send_wr([sge(src, size)], opcode=e.IBV_WR_RDMA_WRITE,
                             wr_id=posted)
                wr.set_wr_rdma(dst.rkey, dst.buf)
                a.post_send(wr)
        self.assertEqual(ex.exception.error_code, errno.ENOMEM)
        self.assertGreaterEqual(posted, depth)
        self.set_rate(a, 0)
        wcs = poll(acq, posted, timeout=60)
        self.assertEqual([wc.wr_id for wc in wcs], list(range(posted)))

    def test_uc_writes_and_ud_sends_across_pauses(self):
        before = self.counters()
        (a, acq), (b, bcq) = self.connected_pair(e.IBV_QPT_UC,
                                                 max_send_wr=64)
        self.set_rate(a, SLOW_KBPS)
        n, size = 8, 65536
        src, dst = self.mr(n * size), self.mr(n * size)
        data = pattern(n * size, 9)
        src.write(data, n * size)
        mark = self.mr(4)
        b.post_recv(recv_wr([sge(mark, 4)], wr_id=n))
        for i in range(n):
            wr = send_wr([sge(src, size, i * size)],
                         opcode=e.IBV_WR_RDMA_WRITE, wr_id=i)
            wr.set_wr_rdma(dst.rkey, dst.buf + i * size)
            a.post_send(wr)
        # A UC write completes once sent: a send after them, received,
        # says the receiver has placed them (one QP's packets in order).
        a.post_send(send_wr([sge(mark, 4)], wr_id=n))
        poll(acq, n + 1, timeout=60)
        poll(bcq, timeout=60)
        self.assertEqual(dst.read(n * size, 0), data)

        (u, ucq), (v, vcq) = self.connected_pair(e.IBV_QPT_UD,
                                                 max_send_wr=64,
                                                 max_recv_wr=64)
        self.set_rate(u, 1000)
        ah = self.ud_ah()
        n, size = 32, 1024
        src, dst = self.mr(n * size), self.mr(n * (size + GRH_SIZE))
        data = pattern(n * size, 11)
        src.write(data, n * size)
        for i in range(n):
            v.post_recv(recv_wr([sge(dst, size + GRH_SIZE,
                                     i * (size + GRH_SIZE))], wr_id=i))
        for i in range(n):
            wr = send_wr([sge(src, size, i * size)], wr_id=i)
            wr.set_wr_ud(ah, v.qp_num, QKEY)
            u.post_send(wr)
        poll(ucq, n, timeout=60)
        wcs = poll(vcq, n, timeout=60)
        self.assertEqual([wc.wr_id for wc in wcs], list(range(n)))
        for i in range(n):
            got = dst.read(size, i * (size + GRH_SIZE) + GRH_SIZE)
            self.assertEqual(got, data[i * size:(i + 1) * size], f'UD {i}')
        moved = self.delta(before)
        self.assertGreater(moved['xrxe_pace_pauses'], 0)
        self.assert_clean_transport(moved)

    def test_read_responses_are_not_paced(self):
        """The limit paces what a QP requests, not its answers: a paced QP
        serving another's reads never pauses (the reader is unpaced)."""
        (a, acq), (b, bcq) = self.connected_pair(e.IBV_QPT_RC)
        self.set_rate(b, 1000)
        size = 1 << 20
        src, back = self.mr(size), self.mr(size)
        data = pattern(size, 13)
        src.write(data, size)
        before = self.counters()
        wr = send_wr([sge(back, size)], opcode=e.IBV_WR_RDMA_READ)
        wr.set_wr_rdma(src.rkey, src.buf)
        a.post_send(wr)
        poll(acq, timeout=60)
        self.assertEqual(back.read(size, 0), data)
        moved = self.delta(before)
        self.assertEqual(moved['xrxe_pace_pauses'], 0)
        self.assertEqual(moved['xrxe_pace_bytes'], 0)

    def skip_unless_every_post_is_a_command(self):
        if os.environ.get('XRXE_LL_MODE') != 'always':
            self.skipTest('needs XRXE_LL_MODE=always (the ll-always run)')
        if os.environ.get('XRXE_DOORBELL_LESS') == '0':
            self.skipTest('low-latency posting needs doorbell-less queues')

    def wait_for_pause(self, before, timeout=10):
        """Wait until the device counts a pause since counters() gave
        before; fail after timeout seconds."""
        deadline = time.monotonic() + timeout
        while self.delta(before)['xrxe_pace_pauses'] == 0:
            self.assertLess(time.monotonic(), deadline, 'the QP never paused')
            time.sleep(0.01)

    def test_low_latency_command_on_a_paced_qp_with_tokens_runs_at_once(self):
        """Run with XRXE_LL_MODE=always: a command on a paced QP whose
        bucket is full runs at once, as on an unpaced QP, and its bytes are
        charged to the limit."""
        self.skip_unless_every_post_is_a_command()
        (a, acq), (b, bcq) = self.connected_pair(max_inline_data=64)
        self.set_rate(a, 1000)
        buf = self.mr(64)
        b.post_recv(recv_wr([sge(buf, 64)]))
        before = self.counters()
        a.post_send(send_wr([sge(buf, 16)], flags=e.IBV_SEND_SIGNALED |
                            e.IBV_SEND_INLINE))
        poll(acq)
        self.assertEqual(poll(bcq)[0].byte_len, 16)
        moved = self.delta(before)
        self.assertEqual(moved['xrxe_ll_accepted'], 1)
        self.assertEqual(moved['xrxe_ll_dropped_paced'], 0)
        self.assertEqual(moved['xrxe_pace_pauses'], 0)
        self.assertGreater(moved['xrxe_pace_bytes'], 16)

    def test_low_latency_command_on_a_paused_qp_uses_the_ring(self):
        """Run with XRXE_LL_MODE=always: while a long write holds a paced QP
        paused, its commands go to the ring, counted, and every WQE still
        completes in order with its data."""
        self.skip_unless_every_post_is_a_command()
        (a, acq), (b, bcq) = self.connected_pair(max_inline_data=64)
        self.set_rate(a, 1000)
        size = 1 << 17
        src, dst, buf = self.mr(size), self.mr(size), self.mr(64)
        data = pattern(size, 21)
        src.write(data, size)
        for i in range(8):
            b.post_recv(recv_wr([sge(buf, 64)], wr_id=i))
        before = self.counters()
        # About a second at 1 Mbit/s, beyond the 16 KiB burst.
        wr = send_wr([sge(src, size)], opcode=e.IBV_WR_RDMA_WRITE, wr_id=100,
                     flags=e.IBV_SEND_SIGNALED)
        wr.set_wr_rdma(dst.rkey, dst.buf)
        a.post_send(wr)
        self.wait_for_pause(before)
        for i in range(8):
            a.post_send(send_wr([sge(buf, 16)], wr_id=i,
                                flags=e.IBV_SEND_SIGNALED |
                                e.IBV_SEND_INLINE))
        self.assertEqual([wc.wr_id for wc in poll(acq, 9, timeout=60)],
                         [100] + list(range(8)))
        self.assertEqual([wc.byte_len for wc in poll(bcq, 8)], [16] * 8)
        self.assertEqual(dst.read(size, 0), data)
        self.assertGreater(self.delta(before)['xrxe_ll_dropped_paced'], 0)
