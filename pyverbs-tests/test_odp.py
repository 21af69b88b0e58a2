# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""On-demand paging (mainline's rxe_odp.c, with the hooks "Keep ODP faults
out of the contexts that must not sleep" and "Prefetch only an ODP MR's
own pages"): MRs registered with
IBV_ACCESS_ON_DEMAND over memory never touched, as the source and target of
sends, RDMA WRITE and READ, atomics, UD; pages the process drops or a fork
shares; prefetch through ibv_advise_mr() and its errnos; rate-limited,
coalesced and flushed traffic on them. The pyverbs runs repeat it on every
kind of send queue (doorbell-less, classic, low-latency modes, OCU
placements)."""
import ctypes
import errno
import os

import pyverbs.enums as e
from pyverbs.mem_alloc import mmap, munmap
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.wr import SGE

from xrxe_base import (XrxeTestCase, RW_ACCESS, GRH_SIZE, poll, sge, send_wr,
                       recv_wr, pattern, run_test_tool)
# Modules, not their classes: a test class named here would run twice.
import test_coalesce
import test_rate_limit
import test_rx_inline

ODP = e.IBV_ACCESS_ON_DEMAND
PAGE = 4096
MADV_DONTNEED = 4
# IB_UVERBS_ACCESS_FLUSH_GLOBAL and _PERSISTENT: this pyverbs has no names
# for them.
ACCESS_FLUSH_GLOBAL = 1 << 8
ACCESS_FLUSH_PERSISTENT = 1 << 9
LIBC = ctypes.CDLL(None, use_errno=True)

RC_CAPS = (e.IBV_ODP_SUPPORT_SEND | e.IBV_ODP_SUPPORT_RECV |
           e.IBV_ODP_SUPPORT_WRITE | e.IBV_ODP_SUPPORT_READ |
           e.IBV_ODP_SUPPORT_ATOMIC | e.IBV_ODP_SUPPORT_SRQ_RECV)


def odp_mr(testcase, size, access=RW_ACCESS, pd=None):
    """An ODP MR over size bytes of fresh anonymous memory, unmapped when
    the test ends (after the MR: cleanups run last first)."""
    length = max(size, PAGE)
    addr = mmap(length=length)
    testcase.addCleanup(munmap, addr, length)
    mr = MR(pd or testcase.pd, size, access | ODP, address=addr)
    testcase.addCleanup(mr.close)
    return mr


def drop_pages(mr):
    """Let the kernel take mr's pages away (their contents become zeros)."""
    length = max(mr.length, PAGE)
    if LIBC.madvise(ctypes.c_void_p(mr.buf), ctypes.c_size_t(length),
                    MADV_DONTNEED):
        raise OSError(ctypes.get_errno(), 'madvise')


class OdpCase(XrxeTestCase):
    """Every MR the helpers make is ODP, over untouched memory."""

    def mr(self, size, access=RW_ACCESS, pd=None):
        return odp_mr(self, size, access, pd)


class Odp(OdpCase):
    counter_names = ('xrxe_odp_faults', 'xrxe_odp_engine_handoffs')

    def setUp(self):
        super().setUp()
        (self.qp, self.cq), (self.peer, self.pcq) = self.connected_pair(
            max_send_wr=128, max_recv_wr=32)

    def rdma(self, opcode, local, remote, size, offset=0, wr_id=0):
        wr = send_wr([sge(local, size)], opcode=opcode, wr_id=wr_id)
        wr.set_wr_rdma(remote.rkey, remote.buf + offset)
        self.qp.post_send(wr)
        poll(self.cq)

    def send(self, src, dst, size, wr_id=0):
        self.peer.post_recv(recv_wr([sge(dst, size)], wr_id=wr_id))
        self.qp.post_send(send_wr([sge(src, size)], wr_id=wr_id))
        poll(self.cq)
        self.assertEqual(poll(self.pcq)[0].byte_len, size)

    def test_caps(self):
        caps = self.ctx.query_device_ex().odp_caps
        self.assertTrue(caps.general_caps & e.IBV_ODP_SUPPORT)
        self.assertFalse(caps.general_caps & e.IBV_ODP_SUPPORT_IMPLICIT)
        self.assertEqual(caps.rc_odp_caps & RC_CAPS, RC_CAPS)
        self.assertTrue(caps.ud_odp_caps & e.IBV_ODP_SUPPORT_SEND)
        self.assertTrue(caps.ud_odp_caps & e.IBV_ODP_SUPPORT_RECV)

    def test_send_write_read_fault_pages_in(self):
        """Each size from one byte to several pages, unaligned too, through
        buffers no one has touched: the transfers fault them in."""
        before = self.counters()
        sizes = (1, 64, PAGE - 3, PAGE + 5, 5 * PAGE)
        for i, size in enumerate(sizes):
            src, dst, back = self.mr(size + 8), self.mr(size + 8), self.mr(size + 8)
            data = pattern(size, i)
            src.write(data, size)
            self.send(src, dst, size, i)
            self.assertEqual(dst.read(size, 0), data, f'send {size}')
            self.rdma(e.IBV_WR_RDMA_WRITE, src, dst, size, offset=8)
            self.assertEqual(dst.read(size, 8), data, f'write {size}')
            # READ from a target the device itself filled, into fresh pages.
            self.rdma(e.IBV_WR_RDMA_READ, back, dst, size, offset=8)
            self.assertEqual(back.read(size, 0), data, f'read {size}')
        # At least the first touch of each of the three MRs, each size.
        self.assertGreaterEqual(self.delta(before)['xrxe_odp_faults'],
                                3 * len(sizes))

    def test_engines_hand_odp_send_work_to_the_workqueue(self):
        """An engine never takes a page fault: the send work of a QP whose
        PD holds an ODP MR goes from an engine's turn to the workqueue.
        Lists longer than a turn's quantum make sure engines take turns
        (doorbell-less queues); a classic queue has no engine."""
        src, dst = self.mr(PAGE), self.mr(96 * 64)
        src.write(pattern(64, 7), 64)
        before = self.counters()
        for burst in range(3):
            wrs = []
            for i in range(32):
                wr = send_wr([sge(src, 64)], opcode=e.IBV_WR_RDMA_WRITE,
                             wr_id=i)
                wr.set_wr_rdma(dst.rkey, dst.buf + 64 * (32 * burst + i))
                wrs.append(wr)
            for wr, nxt in zip(wrs, wrs[1:]):
                wr.next_wr = nxt
            self.qp.post_send(wrs[0])
        poll(self.cq, 96)    # the pair signals every WR
        self.assertEqual(dst.read(96 * 64, 0), pattern(64, 7) * 96)
        handoffs = self.delta(before)['xrxe_odp_engine_handoffs']
        if os.environ.get('XRXE_DOORBELL_LESS') == '0':
            self.assertEqual(handoffs, 0)
        else:
            self.assertGreater(handoffs, 0)

    def test_untouched_source_sends_zeros(self):
        src, dst = self.mr(2 * PAGE), XrxeTestCase.mr(self, 2 * PAGE)
        dst.write(b'\xff' * 2 * PAGE, 2 * PAGE)
        self.send(src, dst, 2 * PAGE)
        self.assertEqual(dst.read(2 * PAGE, 0), bytes(2 * PAGE))

    def test_atomics(self):
        local, remote = self.mr(8), self.mr(PAGE)
        # (compare or add, swap): a fetch-and-add adds its compare_add.
        for opcode, compare_add, swap, want_old, want_new in (
                (e.IBV_WR_ATOMIC_FETCH_AND_ADD, 5, 0, 0, 5),
                (e.IBV_WR_ATOMIC_CMP_AND_SWP, 5, 9, 5, 9),
                (e.IBV_WR_ATOMIC_CMP_AND_SWP, 1, 3, 9, 9)):
            wr = send_wr([sge(local, 8)], opcode=opcode)
            wr.set_wr_atomic(remote.rkey, remote.buf + 8, compare_add, swap)
            self.qp.post_send(wr)
            poll(self.cq)
            self.assertEqual(int.from_bytes(local.read(8, 0), 'little'), want_old)
            self.assertEqual(int.from_bytes(remote.read(8, 8), 'little'), want_new)

    def test_dropped_pages_fault_in_again(self):
        """After madvise(MADV_DONTNEED) the MR's pages are new zero pages:
        a READ sees the zeros, a WRITE lands in what the process reads."""
        src, dst, back = self.mr(3 * PAGE), self.mr(3 * PAGE), self.mr(3 * PAGE)
        src.write(pattern(3 * PAGE, 1), 3 * PAGE)
        self.rdma(e.IBV_WR_RDMA_WRITE, src, dst, 3 * PAGE)
        drop_pages(dst)
        self.rdma(e.IBV_WR_RDMA_READ, back, dst, 3 * PAGE)
        self.assertEqual(back.read(3 * PAGE, 0), bytes(3 * PAGE))
        drop_pages(src)
        src.write(pattern(3 * PAGE, 2), 3 * PAGE)
        self.rdma(e.IBV_WR_RDMA_WRITE, src, dst, 3 * PAGE)
        self.assertEqual(dst.read(3 * PAGE, 0), pattern(3 * PAGE, 2))

    def test_fork_shares_nothing_with_the_child(self):
        """After fork() the parent's pages are copy-on-write. The parent's
        new data is what a peer reads, and a peer's WRITE lands in the
        parent's memory only, not in the child's copy."""
        mr = self.mr(PAGE)
        back = XrxeTestCase.mr(self, PAGE)
        mr.write(b'A' * PAGE, PAGE)
        self.rdma(e.IBV_WR_RDMA_READ, back, mr, PAGE)    # pages mapped
        go_r, go_w = os.pipe()
        out_r, out_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            # The child: wait, then report the first bytes of its copy.
            os.close(go_w)
            os.read(go_r, 1)
            os.write(out_w, ctypes.string_at(mr.buf, 8))
            os._exit(0)
        os.close(go_r)
        os.close(out_w)
        try:
            mr.write(b'B' * PAGE, PAGE)
            self.rdma(e.IBV_WR_RDMA_READ, back, mr, PAGE)
            self.assertEqual(back.read(PAGE, 0), b'B' * PAGE)
            src = XrxeTestCase.mr(self, 8)
            src.write(b'C' * 8, 8)
            self.rdma(e.IBV_WR_RDMA_WRITE, src, mr, 8)
            self.assertEqual(mr.read(8, 0), b'C' * 8)
            os.write(go_w, b'x')
            self.assertEqual(os.read(out_r, 8), b'A' * 8)
        finally:
            os.close(go_w)
            os.close(out_r)
            _, status = os.waitpid(pid, 0)
        self.assertEqual(os.waitstatus_to_exitcode(status), 0)

    def test_ud_send_and_receive(self):
        (a, acq), (b, bcq) = self.connected_pair(e.IBV_QPT_UD)
        src, dst = self.mr(256), self.mr(256 + GRH_SIZE)
        src.write(pattern(256, 3), 256)
        b.post_recv(recv_wr([sge(dst, 256 + GRH_SIZE)]))
        wr = send_wr([sge(src, 256)])
        wr.set_wr_ud(self.ud_ah(), b.qp_num, 0x11111111)
        a.post_send(wr)
        poll(acq)
        poll(bcq)
        self.assertEqual(dst.read(256, GRH_SIZE), pattern(256, 3))

    def test_reregister_access(self):
        """New access on an ODP MR, or ODP given or taken away, registers
        the range again: new keys, the data kept."""
        mr = self.mr(PAGE, e.IBV_ACCESS_LOCAL_WRITE)
        mr.write(b'D' * 64, 64)
        mr.rereg(e.IBV_REREG_MR_CHANGE_ACCESS, self.pd, 0, 0, RW_ACCESS | ODP)
        back = XrxeTestCase.mr(self, 64)
        self.rdma(e.IBV_WR_RDMA_READ, back, mr, 64)
        self.assertEqual(back.read(64, 0), b'D' * 64)
        mr.rereg(e.IBV_REREG_MR_CHANGE_ACCESS, self.pd, 0, 0, RW_ACCESS)
        self.rdma(e.IBV_WR_RDMA_READ, back, mr, 64)
        self.assertEqual(back.read(64, 0), b'D' * 64)

    def test_prefetch(self):
        for advice in (e._IBV_ADVISE_MR_ADVICE_PREFETCH,
                       e._IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
                       e._IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT):
            for flags in (0, e._IBV_ADVISE_MR_FLAG_FLUSH):
                src, dst = self.mr(3 * PAGE), self.mr(3 * PAGE)
                self.pd.advise_mr(advice, flags, [sge(src), sge(dst, PAGE, PAGE)])
                src.write(pattern(3 * PAGE, advice), 3 * PAGE)
                self.rdma(e.IBV_WR_RDMA_WRITE, src, dst, 3 * PAGE)
                self.assertEqual(dst.read(3 * PAGE, 0), pattern(3 * PAGE, advice))

    def test_prefetch_errors(self):
        odp = self.mr(PAGE)
        pinned = XrxeTestCase.mr(self, PAGE)
        prefetch = e._IBV_ADVISE_MR_ADVICE_PREFETCH
        self.assertErrno(errno.EINVAL, self.pd.advise_mr, prefetch, 0,
                         [sge(pinned)])
        self.assertErrno(errno.EINVAL, self.pd.advise_mr, prefetch, 0,
                         [SGE(odp.buf, PAGE, odp.lkey ^ 0xff00)])
        self.assertErrno(errno.EFAULT, self.pd.advise_mr, prefetch, 0,
                         [SGE(odp.buf + 8, PAGE, odp.lkey)])
        read_only = self.mr(PAGE, 0)
        self.assertErrno(errno.EINVAL, self.pd.advise_mr,
                         e._IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, 0,
                         [sge(read_only)])
        self.assertErrno(errno.EINVAL, self.pd.advise_mr, prefetch, 2,
                         [sge(odp)])
        self.assertErrno(errno.EOPNOTSUPP, self.pd.advise_mr, 3, 0, [sge(odp)])

    def test_registration_errors(self):
        """As mainline rxe: IBV_ACCESS_HUGETLB is refused with EOPNOTSUPP,
        with ODP and without; ODP with both flush access bits registers
        (only a pinned MR's persistence needs persistent memory)."""
        addr = mmap(length=PAGE)
        self.addCleanup(munmap, addr, PAGE)
        for access in (RW_ACCESS | ODP | e.IBV_ACCESS_HUGETLB,
                       RW_ACCESS | e.IBV_ACCESS_HUGETLB):
            self.assertErrno(errno.EOPNOTSUPP, MR, self.pd, PAGE, access,
                             address=addr)
        mr = MR(self.pd, PAGE, RW_ACCESS | ODP | ACCESS_FLUSH_GLOBAL |
                ACCESS_FLUSH_PERSISTENT, address=addr)
        mr.close()

    def test_munmapped_target_is_a_remote_access_error(self):
        """A WRITE into pages the owner unmapped fails at the responder,
        which NAKs it: the requester's WQE completes with a remote access
        error, and the QP's peer is left in error as rxe leaves it."""
        length = 2 * PAGE
        addr = mmap(length=length)
        dst = MR(self.pd, length, RW_ACCESS | ODP, address=addr)
        self.addCleanup(dst.close)
        munmap(addr, PAGE)
        self.addCleanup(munmap, addr + PAGE, PAGE)
        src = XrxeTestCase.mr(self, 64)
        wr = send_wr([sge(src, 64)], opcode=e.IBV_WR_RDMA_WRITE)
        wr.set_wr_rdma(dst.rkey, dst.buf)
        self.qp.post_send(wr)
        poll(self.cq, expect=e.IBV_WC_REM_ACCESS_ERR)


class OdpSoftirq(OdpCase):
    """A QP whose PD holds an ODP MR has its requests handled where a page
    fault may sleep, never in the receive softirq; a QP of another PD keeps
    its ping-pong there."""
    counter_names = test_rx_inline.NAMES
    send = test_rx_inline.RxInline.send
    ping_pong = test_rx_inline.RxInline.ping_pong

    def setUp(self):
        super().setUp()
        self.set_param('rx_inline', 1)

    def pair(self, pd, mr):
        (self.a, self.acq), (self.b, self.bcq) = self.connected_pair(pd=pd)
        self.amr, self.bmr = mr(64, pd=pd), mr(64, pd=pd)

    def test_odp_pd_stays_out_of_the_softirq(self):
        self.pair(self.pd, self.mr)
        before = self.counters()
        self.ping_pong()
        self.assertEqual(self.delta(before)['xrxe_rx_inline_requests'], 0)

    def test_other_pd_keeps_the_softirq(self):
        self.mr(64)
        self.pair(PD(self.ctx), lambda size, pd: XrxeTestCase.mr(self, size, pd=pd))
        before = self.counters()
        self.ping_pong()
        self.assertGreater(self.delta(before)['xrxe_rx_inline_requests'], 0)


class OdpCoalesce(OdpCase, test_coalesce.Coalesce):
    """Every coalescing rule with the WRITEs' source and target ODP."""


class OdpRateLimit(OdpCase):
    """Paced traffic from and into ODP MRs."""
    RateLimit = test_rate_limit.RateLimit
    counter_names = RateLimit.counter_names
    set_rate = RateLimit.set_rate
    rc_pair = RateLimit.rc_pair
    rc_traffic = RateLimit.rc_traffic
    rdma = staticmethod(RateLimit.rdma)
    assert_one_pause_per_wakeup = RateLimit.assert_one_pause_per_wakeup

    def test_paced_messages(self):
        before = self.counters()
        (a, acq), (b, bcq) = self.rc_pair(test_rate_limit.SLOW_KBPS)
        self.rc_traffic(a, acq, b, bcq, (4096, 65536))
        self.assert_one_pause_per_wakeup(self.delta(before))


class OdpFlush(OdpCase):
    """RDMA FLUSH and flush domains with the data MRs ODP (the C programs
    register them so under XRXE_TEST_ODP=1: their faults count)."""
    counter_names = ('xrxe_odp_faults',)

    def setUp(self):
        super().setUp()
        os.environ['XRXE_TEST_ODP'] = '1'
        self.addCleanup(os.environ.pop, 'XRXE_TEST_ODP')

    def run_tool(self, passed, *args, traffic=True):
        before = self.counters()
        r = run_test_tool(self, *args)
        self.assertIn(passed, r.stdout)
        if traffic:
            self.assertGreater(self.delta(before)['xrxe_odp_faults'], 0)

    def test_flush(self):
        # rxe maps an ODP MR's present pages when it is registered
        # (rxe_odp_init_pages()), and xrxe-flush-test fills its buffers
        # before it registers them: no fault is left for it to take.
        self.run_tool('flush: all checks passed', 'xrxe-flush-test',
                      self.dev_name, traffic=False)

    def test_domain_flush(self):
        # On classic queues it only checks that they have no flush domains.
        self.run_tool('domain flush: all checks passed',
                      'xrxe-domain-flush-test', self.dev_name, '20',
                      traffic=os.environ.get('XRXE_DOORBELL_LESS') != '0')
