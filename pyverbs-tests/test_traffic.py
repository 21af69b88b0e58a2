# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Data paths of the xrxe provider with payload verification: RC, UC and UD
sends, RDMA write and read, immediate data, atomics, SRQ, memory windows,
parent domains, completion channels and the ibv_wr_* API."""
import errno
import struct
import time

import pyverbs.enums as e
import pyverbs.mem_alloc as mem
from pyverbs.cq import CQ, CQEX, CompChannel, CqInitAttrEx, PollCqAttr
from pyverbs.mr import MW, MWBind, MWBindInfo
from pyverbs.pd import ParentDomain, ParentDomainContext, ParentDomainInitAttr
from pyverbs.qp import QPAttr, QPCap, QPEx, QPInitAttrEx
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr

from xrxe_base import (XrxeTestCase, GRH_SIZE, QKEY, drain, poll, sge,
                       send_wr, recv_wr, pattern)

SIZES = (0, 1, 63, 1024, 4096, 65536)


class SendRecv(XrxeTestCase):
    def exchange(self, qp_type, sizes, sges=1):
        (a, acq), (b, bcq) = self.connected_pair(qp_type)
        src, dst = self.mr(1 << 17), self.mr(1 << 17)
        ah = self.ud_ah() if qp_type == e.IBV_QPT_UD else None
        off = GRH_SIZE if qp_type == e.IBV_QPT_UD else 0
        for i, size in enumerate(sizes):
            data = pattern(size, i)
            src.write(data, size)
            dst.write(bytes(size + off), size + off)
            b.post_recv(recv_wr([sge(dst, size + off)], wr_id=i))
            step = max(1, size // sges) if size else 0
            parts = [sge(src, min(step, size - k * step), k * step)
                     for k in range(sges)] if size else [sge(src, 0)]
            wr = send_wr(parts, wr_id=i)
            if ah:
                wr.set_wr_ud(ah, b.qp_num, QKEY)
            a.post_send(wr)
            self.assertEqual(poll(acq)[0].wr_id, i)
            wc = poll(bcq)[0]
            self.assertEqual((wc.wr_id, wc.byte_len), (i, size + off))
            self.assertEqual(wc.opcode, e.IBV_WC_RECV)
            self.assertEqual(dst.read(size, off), data)

    def test_rc(self):
        self.exchange(e.IBV_QPT_RC, SIZES)

    def test_rc_four_sges(self):
        self.exchange(e.IBV_QPT_RC, (4, 400, 4096), sges=4)

    def test_uc(self):
        self.exchange(e.IBV_QPT_UC, SIZES)

    def test_ud(self):
        self.exchange(e.IBV_QPT_UD, (0, 1, 512, 1024))

    def test_ud_receive_reports_its_network_header_in_the_sl(self):
        """Each GID of the port, IPv6 and (where the netdev has an address)
        IPv4: a datagram sent from and to it lands with an IPv6 header in
        the GRH area and SL 1, or an IPv4 header 20 bytes in and SL 2, as
        RoCE NICs report it (the hook "Report a UD receive's network header
        type in its SL")."""
        from pyverbs.addr import AH, AHAttr, GlobalRoute
        (a, acq), (b, bcq) = self.connected_pair(e.IBV_QPT_UD)
        src, dst = self.mr(64), self.mr(64 + GRH_SIZE)
        seen = set()
        for index in range(self.ctx.query_port(1).gid_tbl_len):
            gid = self.ctx.query_gid(port_num=1, index=index)
            if str(gid) in ('::', '0000:0000:0000:0000:0000:0000:0000:0000'):
                continue
            ipv4 = str(gid).startswith('0000:0000:0000:0000:0000:ffff')
            gr = GlobalRoute(dgid=gid, sgid_index=index)
            ah = AH(self.pd, attr=AHAttr(port_num=1, is_global=1, gr=gr))
            b.post_recv(recv_wr([sge(dst)]))
            wr = send_wr([sge(src, 64)])
            wr.set_wr_ud(ah, b.qp_num, QKEY)
            a.post_send(wr)
            poll(acq)
            wc = poll(bcq)[0]
            version = dst.read(1, 20 if ipv4 else 0)[0] >> 4
            self.assertEqual((wc.sl, version), (2, 4) if ipv4 else (1, 6),
                             f'GID {index} {gid}')
            seen.add(ipv4)
        self.assertIn(False, seen, 'no IPv6 GID on the port')

    def test_inline_send(self):
        (a, acq), (b, bcq) = self.connected_pair(max_inline_data=256)
        src, dst = self.mr(512), self.mr(512)
        data = pattern(256, 3)
        src.write(data, 256)
        b.post_recv(recv_wr([sge(dst, 256)]))
        a.post_send(send_wr([sge(src, 200), sge(src, 56, 200)],
                            flags=e.IBV_SEND_INLINE | e.IBV_SEND_SIGNALED))
        # Inline data was copied at post time: changing the buffer is safe.
        src.write(bytes(256), 256)
        poll(acq)
        self.assertEqual(poll(bcq)[0].byte_len, 256)
        self.assertEqual(dst.read(256, 0), data)

    def test_send_with_imm(self):
        (a, acq), (b, bcq) = self.connected_pair()
        buf = self.mr(64)
        b.post_recv(recv_wr([sge(buf, 64)]))
        a.post_send(send_wr([sge(buf, 8)], opcode=e.IBV_WR_SEND_WITH_IMM,
                            imm_data=0x12345678))
        poll(acq)
        wc = poll(bcq)[0]
        self.assertTrue(wc.wc_flags & e.IBV_WC_WITH_IMM)
        self.assertEqual(wc.imm_data, 0x12345678)

    def test_list_of_wrs_completes_in_order(self):
        (a, acq), (b, bcq) = self.connected_pair(max_send_wr=64, max_recv_wr=64)
        src, dst = self.mr(64 * 64), self.mr(64 * 64)
        src.write(b''.join(pattern(64, i) for i in range(64)), 64 * 64)
        recvs = [recv_wr([sge(dst, 64, 64 * i)], wr_id=i) for i in range(64)]
        sends = [send_wr([sge(src, 64, 64 * i)], wr_id=i) for i in range(64)]
        for lst in (recvs, sends):
            for x, y in zip(lst, lst[1:]):
                x.next_wr = y
        b.post_recv(recvs[0])
        a.post_send(sends[0])
        self.assertEqual([wc.wr_id for wc in poll(acq, 64)], list(range(64)))
        self.assertEqual([wc.wr_id for wc in poll(bcq, 64)], list(range(64)))
        self.assertEqual(dst.read(64 * 64, 0), src.read(64 * 64, 0))


class Rdma(XrxeTestCase):
    def setUp(self):
        super().setUp()
        (self.a, self.acq), (self.b, self.bcq) = self.connected_pair()
        self.local, self.remote = self.mr(65536), self.mr(65536)

    def test_write(self):
        for i, size in enumerate((1, 100, 4096, 65536)):
            data = pattern(size, i)
            self.local.write(data, size)
            wr = send_wr([sge(self.local, size)], opcode=e.IBV_WR_RDMA_WRITE)
            wr.set_wr_rdma(self.remote.rkey, self.remote.buf)
            self.a.post_send(wr)
            poll(self.acq)
            self.assertEqual(self.remote.read(size, 0), data)
        self.assertTrue(drain(self.bcq, 0.3) == [])

    def test_write_with_imm(self):
        self.b.post_recv(recv_wr([sge(self.remote, 0)]))
        self.local.write(b'xrxe', 4)
        wr = send_wr([sge(self.local, 4)], opcode=e.IBV_WR_RDMA_WRITE_WITH_IMM,
                     imm_data=0xabcdef)
        wr.set_wr_rdma(self.remote.rkey, self.remote.buf + 100)
        self.a.post_send(wr)
        poll(self.acq)
        wc = poll(self.bcq)[0]
        self.assertEqual(wc.opcode, e.IBV_WC_RECV_RDMA_WITH_IMM)
        self.assertEqual(wc.imm_data, 0xabcdef)
        self.assertEqual(self.remote.read(4, 100), b'xrxe')

    def test_read(self):
        data = pattern(8192, 9)
        self.remote.write(data, 8192)
        wr = send_wr([sge(self.local, 8192)], opcode=e.IBV_WR_RDMA_READ)
        wr.set_wr_rdma(self.remote.rkey, self.remote.buf)
        self.a.post_send(wr)
        self.assertEqual(poll(self.acq)[0].opcode, e.IBV_WC_RDMA_READ)
        self.assertEqual(self.local.read(8192, 0), data)

    def test_bad_rkey_is_remote_access_error(self):
        wr = send_wr([sge(self.local, 8)], opcode=e.IBV_WR_RDMA_WRITE)
        wr.set_wr_rdma(self.remote.rkey ^ 0x1000, self.remote.buf)
        self.a.post_send(wr)
        poll(self.acq, expect=e.IBV_WC_REM_ACCESS_ERR)

    def test_atomics(self):
        self.remote.write(struct.pack('<Q', 40), 8)
        wr = send_wr([sge(self.local, 8)], opcode=e.IBV_WR_ATOMIC_FETCH_AND_ADD)
        wr.set_wr_atomic(self.remote.rkey, self.remote.buf, 2)
        self.a.post_send(wr)
        poll(self.acq)
        self.assertEqual(struct.unpack('<Q', self.local.read(8, 0))[0], 40)
        self.assertEqual(struct.unpack('<Q', self.remote.read(8, 0))[0], 42)
        for compare, expect in ((41, 42), (42, 7)):
            wr = send_wr([sge(self.local, 8)], opcode=e.IBV_WR_ATOMIC_CMP_AND_SWP)
            wr.set_wr_atomic(self.remote.rkey, self.remote.buf, compare, 7)
            self.a.post_send(wr)
            poll(self.acq)
            self.assertEqual(struct.unpack('<Q', self.local.read(8, 0))[0], 42)
            self.assertEqual(struct.unpack('<Q', self.remote.read(8, 0))[0], expect)


class SharedReceiveQueue(XrxeTestCase):
    def test_two_qps_share_one_srq(self):
        srq = SRQ(self.pd, SrqInitAttr(SrqAttr(max_wr=64, max_sge=1)))
        dst = self.mr(16 * 128)
        for i in range(16):
            srq.post_recv(recv_wr([sge(dst, 128, 128 * i)], wr_id=i))
        cq = CQ(self.ctx, 64)
        r1, _ = self.create_qp(srq=srq, cq=cq)
        r2, _ = self.create_qp(srq=srq, cq=cq)
        s1, s1cq = self.create_qp()
        s2, s2cq = self.create_qp()
        for s, r in ((s1, r1), (s2, r2)):
            self.connect(s, r)
        src = self.mr(128)
        got = set()
        for i in range(16):
            s, scq = (s1, s1cq) if i % 2 else (s2, s2cq)
            src.write(pattern(128, i), 128)
            s.post_send(send_wr([sge(src, 128)], wr_id=i))
            poll(scq)
            wc = poll(cq)[0]
            self.assertEqual(wc.qp_num, (r1 if i % 2 else r2).qp_num)
            self.assertEqual(dst.read(128, 128 * wc.wr_id), pattern(128, i))
            got.add(wc.wr_id)
        self.assertEqual(got, set(range(16)))

    def test_srq_limit_and_query(self):
        srq = SRQ(self.pd, SrqInitAttr(SrqAttr(max_wr=32, max_sge=2)))
        attr = srq.query()
        self.assertGreaterEqual(attr.max_wr, 32)
        self.assertGreaterEqual(attr.max_sge, 2)


class MemoryWindows(XrxeTestCase):
    def setUp(self):
        super().setUp()
        (self.a, self.acq), (self.b, self.bcq) = self.connected_pair()
        self.target = self.mr(4096, e.IBV_ACCESS_LOCAL_WRITE |
                              e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_MW_BIND)
        self.src = self.mr(64)

    def write_through(self, rkey, offset=0):
        self.src.write(b'window!!', 8)
        wr = send_wr([sge(self.src, 8)], opcode=e.IBV_WR_RDMA_WRITE)
        wr.set_wr_rdma(rkey, self.target.buf + offset)
        self.a.post_send(wr)
        return poll(self.acq, expect=None)[0].status

    def test_type1_bind_then_write(self):
        mw = MW(self.pd, e.IBV_MW_TYPE_1)
        self.b.bind_mw(mw, MWBind(MWBindInfo(self.target, self.target.buf, 1024,
                                              e.IBV_ACCESS_REMOTE_WRITE),
                                   e.IBV_SEND_SIGNALED))
        poll(self.bcq)
        self.assertEqual(self.write_through(mw.rkey, 16), e.IBV_WC_SUCCESS)
        self.assertEqual(self.target.read(8, 16), b'window!!')


class MemoryRegionRereg(XrxeTestCase):
    def write_to(self, mr, offset, data):
        (a, acq), _ = self.connected_pair()
        src = self.mr(64)
        src.write(data, len(data))
        wr = send_wr([sge(src, len(data))], opcode=e.IBV_WR_RDMA_WRITE)
        wr.set_wr_rdma(mr.rkey, mr.buf + offset)
        a.post_send(wr)
        return poll(acq, expect=None)[0].status

    def test_translation_moves_the_region_and_changes_its_keys(self):
        target = self.mr(4096)
        old_buf, old_keys = target.buf, (target.lkey, target.rkey)
        new_buf = mem.posix_memalign(8192)
        self.addCleanup(mem.free, new_buf)
        target.rereg(e.IBV_REREG_MR_CHANGE_TRANSLATION, None, new_buf, 8192, 0)
        self.assertEqual(target.buf, new_buf)
        self.assertNotEqual((target.lkey, target.rkey), old_keys)
        self.assertEqual(self.write_to(target, 5000, b'moved!!!'), e.IBV_WC_SUCCESS)
        self.assertEqual(mem.read(new_buf, 8, 5000), b'moved!!!')
        # The old keys no longer reach the old memory.
        (a, acq), _ = self.connected_pair()
        src = self.mr(64)
        wr = send_wr([sge(src, 8)], opcode=e.IBV_WR_RDMA_WRITE)
        wr.set_wr_rdma(old_keys[1], old_buf)
        a.post_send(wr)
        self.assertEqual(poll(acq, expect=None)[0].status, e.IBV_WC_REM_ACCESS_ERR)

    def test_translation_keeps_access_unless_changed(self):
        target = self.mr(4096, e.IBV_ACCESS_LOCAL_WRITE)
        new_buf = mem.posix_memalign(4096)
        self.addCleanup(mem.free, new_buf)
        target.rereg(e.IBV_REREG_MR_CHANGE_TRANSLATION, None, new_buf, 4096, 0)
        self.assertEqual(self.write_to(target, 0, b'denied!!'),
                         e.IBV_WC_REM_ACCESS_ERR)

    def test_translation_with_bound_window_is_ebusy(self):
        (a, acq), (b, bcq) = self.connected_pair()
        target = self.mr(4096, e.IBV_ACCESS_LOCAL_WRITE |
                         e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_MW_BIND)
        mw = MW(self.pd, e.IBV_MW_TYPE_1)
        b.bind_mw(mw, MWBind(MWBindInfo(target, target.buf, 1024,
                                        e.IBV_ACCESS_REMOTE_WRITE),
                             e.IBV_SEND_SIGNALED))
        poll(bcq)
        keys = (target.lkey, target.rkey)
        new_buf = mem.posix_memalign(4096)
        self.addCleanup(mem.free, new_buf)
        self.assertErrno(errno.EBUSY, target.rereg,
                         e.IBV_REREG_MR_CHANGE_TRANSLATION, None, new_buf,
                         4096, 0)
        self.assertEqual((target.lkey, target.rkey), keys)
        mw.close()
        target.rereg(e.IBV_REREG_MR_CHANGE_TRANSLATION, None, new_buf, 4096, 0)
        self.assertNotEqual((target.lkey, target.rkey), keys)


class WrApi(XrxeTestCase):
    def qpex_pair(self, qp_type=e.IBV_QPT_RC, ops=0):
        ops = ops or (e.IBV_QP_EX_WITH_SEND | e.IBV_QP_EX_WITH_RDMA_WRITE |
                      e.IBV_QP_EX_WITH_RDMA_READ | e.IBV_QP_EX_WITH_SEND_WITH_IMM)
        qps = []
        for _ in range(2):
            cq = CQ(self.ctx, 64)
            attr = QPInitAttrEx(qp_type=qp_type, scq=cq, rcq=cq, pd=self.pd,
                                cap=QPCap(max_send_wr=32, max_recv_wr=32,
                                          max_send_sge=2, max_recv_sge=2,
                                          max_inline_data=128),
                                comp_mask=e.IBV_QP_INIT_ATTR_PD |
                                e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
                                send_ops_flags=ops)
            qps.append((QPEx(self.ctx, attr), cq))
        (a, _), (b, _) = qps
        self.connect(a, b)
        return qps

    def test_send_and_inline_write(self):
        (a, acq), (b, bcq) = self.qpex_pair()
        src, dst = self.mr(256), self.mr(256)
        src.write(pattern(100, 1), 100)
        b.post_recv(recv_wr([sge(dst, 256)]))
        a.wr_start()
        a.wr_id = 1
        a.wr_flags = e.IBV_SEND_SIGNALED
        a.wr_send()
        a.wr_set_sge(sge(src, 100))
        a.wr_id = 2
        a.wr_rdma_write(dst.rkey, dst.buf + 128)
        data = mem.posix_memalign(64, 8)
        a.wr_set_inline_data(data, 64)
        a.wr_complete()
        self.assertEqual([wc.wr_id for wc in poll(acq, 2)], [1, 2])
        self.assertEqual(poll(bcq)[0].byte_len, 100)
        self.assertEqual(dst.read(100, 0), pattern(100, 1))
        mem.free(data)

    def test_abort_posts_nothing(self):
        (a, acq), (b, bcq) = self.qpex_pair()
        src = self.mr(64)
        a.wr_start()
        a.wr_flags = e.IBV_SEND_SIGNALED
        a.wr_send()
        a.wr_set_sge(sge(src, 8))
        a.wr_abort()
        self.assertEqual(drain(acq, 0.5), [])

    def test_too_many_sges_fails_complete_with_einval(self):
        (a, acq), _ = self.qpex_pair()
        src = self.mr(64)
        a.wr_start()
        n = self.send_cap(a).max_send_sge + 1
        a.wr_send()
        a.wr_set_sge_list(n, [sge(src, 8)] * n)
        self.assertErrno(errno.EINVAL, a.wr_complete)
        self.assertEqual(drain(acq, 0.5), [])

    def test_atomic_write(self):
        (a, acq), (b, bcq) = self.qpex_pair(
            ops=e.IBV_QP_EX_WITH_ATOMIC_WRITE | e.IBV_QP_EX_WITH_SEND)
        dst = self.mr(64)
        a.wr_start()
        a.wr_flags = e.IBV_SEND_SIGNALED
        a.wr_atomic_write(dst.rkey, dst.buf + 8, struct.pack('<Q', 0x1122334455667788))
        a.wr_complete()
        poll(acq)
        self.assertEqual(dst.read(8, 8), struct.pack('<Q', 0x1122334455667788))

    def test_bind_mw_type2(self):
        (a, acq), (b, bcq) = self.qpex_pair(
            ops=e.IBV_QP_EX_WITH_BIND_MW | e.IBV_QP_EX_WITH_RDMA_WRITE |
            e.IBV_QP_EX_WITH_LOCAL_INV)
        target = self.mr(4096, e.IBV_ACCESS_LOCAL_WRITE |
                         e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_MW_BIND)
        mw = MW(self.pd, e.IBV_MW_TYPE_2)
        rkey = (mw.rkey & 0xffffff00) | 0x5a
        b.wr_start()
        b.wr_flags = e.IBV_SEND_SIGNALED
        b.wr_bind_mw(mw, rkey, MWBindInfo(target, target.buf, 1024,
                                          e.IBV_ACCESS_REMOTE_WRITE))
        b.wr_complete()
        poll(bcq)
        src = self.mr(64)
        src.write(b'window!!', 8)
        a.wr_start()
        a.wr_flags = e.IBV_SEND_SIGNALED
        a.wr_rdma_write(rkey, target.buf + 32)
        a.wr_set_sge(sge(src, 8))
        a.wr_complete()
        poll(acq)
        self.assertEqual(target.read(8, 32), b'window!!')
        # After a local invalidate the window no longer grants access.
        b.wr_start()
        b.wr_flags = e.IBV_SEND_SIGNALED
        b.wr_local_inv(rkey)
        b.wr_complete()
        poll(bcq)
        a.wr_start()
        a.wr_flags = e.IBV_SEND_SIGNALED
        a.wr_rdma_write(rkey, target.buf + 32)
        a.wr_set_sge(sge(src, 8))
        a.wr_complete()
        poll(acq, expect=e.IBV_WC_REM_ACCESS_ERR)


class ExtendedCq(XrxeTestCase):
    def test_read_ops(self):
        attr = CqInitAttrEx(cqe=32, wc_flags=e.IBV_WC_EX_WITH_BYTE_LEN |
                            e.IBV_WC_EX_WITH_IMM | e.IBV_WC_EX_WITH_QP_NUM,
                            comp_mask=e.IBV_CQ_INIT_ATTR_MASK_FLAGS)
        cq = CQEX(self.ctx, attr)
        a, _ = self.create_qp()
        b, _ = self.create_qp(cq=cq)
        self.connect(a, b)
        buf = self.mr(64)
        for i in range(3):
            b.post_recv(recv_wr([sge(buf, 64)], wr_id=10 + i))
        for i in range(3):
            a.post_send(send_wr([sge(buf, 5 + i)], opcode=e.IBV_WR_SEND_WITH_IMM,
                                imm_data=100 + i))
        seen = []
        for _ in range(1000):
            if cq.start_poll(PollCqAttr()) == 0:
                while True:
                    self.assertEqual(cq.status, e.IBV_WC_SUCCESS)
                    seen.append((cq.wr_id, cq.read_byte_len(), cq.read_imm_data(),
                                 cq.read_qp_num()))
                    if cq.poll_next() != 0:
                        break
                cq.end_poll()
            if len(seen) == 3:
                break
            time.sleep(0.01)
        self.assertEqual(seen, [(10 + i, 5 + i, 100 + i, b.qp_num) for i in range(3)])


class CompletionChannel(XrxeTestCase):
    def test_event_after_notify(self):
        channel = CompChannel(self.ctx)
        cq = CQ(self.ctx, 16, None, channel, 0)
        a, acq = self.create_qp()
        b, _ = self.create_qp(cq=cq)
        self.connect(a, b)
        buf = self.mr(64)
        b.post_recv(recv_wr([sge(buf, 64)], wr_id=5))
        cq.req_notify()
        a.post_send(send_wr([sge(buf, 8)]))
        channel.get_cq_event(cq)
        cq.ack_events(1)
        self.assertEqual(poll(cq)[0].wr_id, 5)


class QpResetAndDestroy(XrxeTestCase):
    """A QP moved to RESET or destroyed takes its unpolled completions out
    of a shared CQ; the other QP's completion stays and the QP works again."""

    def shared_cq_pairs(self):
        cq = CQ(self.ctx, 64)
        a, _ = self.create_qp(cq=cq)
        b, bcq = self.create_qp()
        c, _ = self.create_qp(cq=cq)
        d, dcq = self.create_qp()
        for x, y in ((a, b), (b, a), (c, d), (d, c)):
            self.to_rts(x, y.qp_num)
        return cq, (a, b, bcq), (c, d, dcq)

    def error_with_flushes_then_other_completion(self, cq, a, c, d, dcq, buf):
        for i in range(3):
            a.post_recv(recv_wr([sge(buf, 64)], wr_id=i))
        a.modify(QPAttr(qp_state=e.IBV_QPS_ERR), e.IBV_QP_STATE)
        d.post_recv(recv_wr([sge(buf, 64)], wr_id=7))
        c.post_send(send_wr([sge(buf, 8)], wr_id=9))
        poll(dcq)

    def test_reset_removes_only_its_completions(self):
        cq, (a, b, bcq), (c, d, dcq) = self.shared_cq_pairs()
        buf = self.mr(64)
        self.error_with_flushes_then_other_completion(cq, a, c, d, dcq, buf)
        a.modify(QPAttr(qp_state=e.IBV_QPS_RESET), e.IBV_QP_STATE)
        self.assertEqual([(wc.wr_id, wc.qp_num) for wc in drain(cq)],
                         [(9, c.qp_num)])
        self.to_rts(a, b.qp_num)
        b.post_recv(recv_wr([sge(buf, 64)], wr_id=3))
        a.post_send(send_wr([sge(buf, 8)], wr_id=4))
        self.assertEqual(poll(cq)[0].wr_id, 4)
        self.assertEqual(poll(bcq)[0].wr_id, 3)

    def test_destroy_removes_only_its_completions(self):
        cq, (a, _, _), (c, d, dcq) = self.shared_cq_pairs()
        buf = self.mr(64)
        self.error_with_flushes_then_other_completion(cq, a, c, d, dcq, buf)
        a.close()
        self.assertEqual([(wc.wr_id, wc.qp_num) for wc in drain(cq)],
                         [(9, c.qp_num)])


class ParentDomains(XrxeTestCase):
    def test_custom_allocator_serves_qp_and_cq(self):
        calls = {'alloc': 0, 'free': 0}

        def alloc(pd, context, size, alignment, resource_type):
            calls['alloc'] += 1
            return mem.posix_memalign(size, alignment)

        def free(pd, context, ptr, resource_type):
            calls['free'] += 1
            mem.free(ptr)

        ctx = ParentDomainContext(self.pd, alloc, free)
        parent = ParentDomain(self.ctx, attr=ParentDomainInitAttr(pd=self.pd,
                                                                  pd_context=ctx))
        attr = CqInitAttrEx(cqe=32, parent_domain=parent,
                            comp_mask=e.IBV_CQ_INIT_ATTR_MASK_PD)
        cq = CQEX(self.ctx, attr)
        qp, _ = self.create_qp(pd=parent)
        peer, pcq = self.create_qp()
        self.connect(qp, peer)
        buf = self.mr(64)
        peer.post_recv(recv_wr([sge(buf, 64)]))
        qp.post_send(send_wr([sge(buf, 8)]))
        poll(pcq)
        self.assertGreaterEqual(calls['alloc'], 2)
        qp.close()
        cq.close()
        self.assertEqual(calls['free'], calls['alloc'])


STAGES = ('post', 'req', 'comp', 'resp')


class StageCounters(XrxeTestCase):
    """Where each stage of a stream ran (the hook "Count where each stage of
    a stream runs"): a ping-pong of sends between two QPs of the device
    counts runs of every stage (the poster's system call, the requester,
    the completer and the responder), and no stage counts more runs on the
    CPU of the stage before than runs, whatever the send queue (classic,
    doorbell-less, low-latency)."""
    counter_names = tuple(f'xrxe_stage_{s}_{k}' for s in STAGES
                          for k in ('runs', 'same_cpu'))

    def test_every_stage_runs(self):
        (a, acq), (b, bcq) = self.connected_pair()
        src, dst = self.mr(64), self.mr(64)
        before = self.counters()
        for i in range(20):
            b.post_recv(recv_wr([sge(dst)], wr_id=i))
            a.post_send(send_wr([sge(src)], wr_id=i))
            poll(acq)
            poll(bcq)
        d = self.delta(before)
        for s in STAGES:
            runs = d[f'xrxe_stage_{s}_runs']
            self.assertGreater(runs, 0, f'no {s} run counted: {d}')
            self.assertLessEqual(d[f'xrxe_stage_{s}_same_cpu'], runs, d)
