# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Error paths of the xrxe provider: each returns the errno the verbs man
pages name, and leaves the objects usable."""
import pyverbs.enums as e
from pyverbs.cq import CQ, CQEX, CqInitAttrEx
from pyverbs.pd import ParentDomain, ParentDomainInitAttr
from pyverbs.srq import SRQ, SrqInitAttr, SrqAttr
from pyverbs.mr import MW, MWBind, MWBindInfo
from pyverbs.qp import QPCap, QPInitAttr, QP

from xrxe_base import XrxeTestCase, errno, drain, poll, sge, send_wr, recv_wr


class PostSendErrors(XrxeTestCase):
    def setUp(self):
        super().setUp()
        (self.qp, self.cq), (self.peer, self.peer_cq) = self.connected_pair(
            max_send_wr=4, max_send_sge=2, max_inline_data=64)
        self.buf = self.mr(4096)

    def test_too_many_sges_is_einval(self):
        # The kernel may grant more SGEs than asked: go one past its grant.
        n = self.send_cap(self.qp).max_send_sge + 1
        sges = [sge(self.buf, 8, 8 * i) for i in range(n)]
        self.assertErrno(errno.EINVAL, self.qp.post_send, send_wr(sges))

    def test_inline_over_limit_is_einval(self):
        limit = self.send_cap(self.qp).max_inline_data
        wr = send_wr([sge(self.buf, limit + 1)], flags=e.IBV_SEND_INLINE)
        self.assertErrno(errno.EINVAL, self.qp.post_send, wr)

    def test_inline_on_read_is_einval(self):
        wr = send_wr([sge(self.buf, 8)], opcode=e.IBV_WR_RDMA_READ,
                     flags=e.IBV_SEND_INLINE | e.IBV_SEND_SIGNALED)
        wr.set_wr_rdma(self.buf.rkey, self.buf.buf)
        self.assertErrno(errno.EINVAL, self.qp.post_send, wr)

    def test_atomic_with_wrong_length_is_einval(self):
        wr = send_wr([sge(self.buf, 4)], opcode=e.IBV_WR_ATOMIC_FETCH_AND_ADD)
        wr.set_wr_atomic(self.buf.rkey, self.buf.buf, 1)
        self.assertErrno(errno.EINVAL, self.qp.post_send, wr)

    def test_full_queue_is_enomem_and_keeps_what_fit(self):
        """A WR list longer than the SQ posts what fits, then ENOMEM."""
        self.peer.post_recv(recv_wr([sge(self.buf, 16)]))
        wrs = [send_wr([sge(self.buf, 0)], opcode=e.IBV_WR_RDMA_WRITE, wr_id=i)
               for i in range(64)]
        for w in wrs:
            w.set_wr_rdma(self.buf.rkey, self.buf.buf)
        for a, b in zip(wrs, wrs[1:]):
            a.next_wr = b
        self.assertErrno(errno.ENOMEM, self.qp.post_send, wrs[0])
        # The WRs that fit complete, in order; the queue works afterwards.
        done = drain(self.cq)
        self.assertTrue(all(wc.status == e.IBV_WC_SUCCESS for wc in done))
        ids = [wc.wr_id for wc in done]
        self.assertGreaterEqual(len(ids), 4)
        self.assertEqual(ids, list(range(len(ids))))
        w = send_wr([sge(self.buf, 0)], opcode=e.IBV_WR_RDMA_WRITE, wr_id=99)
        w.set_wr_rdma(self.buf.rkey, self.buf.buf)
        self.qp.post_send(w)
        self.assertEqual(poll(self.cq)[0].wr_id, 99)

    def test_post_send_before_rts_is_einval(self):
        qp, _ = self.create_qp()
        self.assertErrno(errno.EINVAL, qp.post_send, send_wr([sge(self.buf, 8)]))


class OpcodeErrors(XrxeTestCase):
    def test_read_on_uc_is_einval(self):
        (qp, _), _ = self.connected_pair(e.IBV_QPT_UC)
        buf = self.mr(64)
        wr = send_wr([sge(buf, 8)], opcode=e.IBV_WR_RDMA_READ)
        wr.set_wr_rdma(buf.rkey, buf.buf)
        self.assertErrno(errno.EINVAL, qp.post_send, wr)

    def test_write_on_ud_is_einval(self):
        qp, _ = self.create_qp(e.IBV_QPT_UD)
        self.to_rts(qp, 0)
        buf = self.mr(64)
        wr = send_wr([sge(buf, 8)], opcode=e.IBV_WR_RDMA_WRITE)
        wr.set_wr_ud(self.ud_ah(), qp.qp_num, 0x11111111)
        self.assertErrno(errno.EINVAL, qp.post_send, wr)


class ReceiveErrors(XrxeTestCase):
    def test_too_many_recv_sges_is_einval(self):
        qp, _ = self.create_qp(max_recv_sge=1)
        buf = self.mr(64)
        self.to_rts(qp, qp.qp_num)
        self.assertErrno(errno.EINVAL, qp.post_recv,
                         recv_wr([sge(buf, 8), sge(buf, 8, 8)]))

    def test_recv_on_srq_qp_is_einval(self):
        srq = SRQ(self.pd, SrqInitAttr(SrqAttr(max_wr=16, max_sge=1)))
        qp, _ = self.create_qp(srq=srq)
        buf = self.mr(64)
        self.assertErrno(errno.EINVAL, qp.post_recv, recv_wr([sge(buf, 8)]))

    def test_full_rq_is_enomem(self):
        qp, _ = self.create_qp(max_recv_wr=4, max_recv_sge=1)
        buf = self.mr(64)
        self.to_rts(qp, qp.qp_num)
        with self.assertRaises(Exception) as ex:
            for _ in range(4096):
                qp.post_recv(recv_wr([sge(buf, 8)]))
        self.assertEqual(ex.exception.error_code, errno.ENOMEM)


class CreateErrors(XrxeTestCase):
    def test_cq_too_large_is_einval(self):
        max_cqe = self.ctx.query_device().max_cqe
        self.assertErrno(errno.EINVAL, CQ, self.ctx, max_cqe + 1)

    def test_cq_ex_unsupported_wc_flag_is_eopnotsupp(self):
        attr = CqInitAttrEx(cqe=16, wc_flags=e.IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
                            e.IBV_WC_EX_WITH_CVLAN,
                            comp_mask=e.IBV_CQ_INIT_ATTR_MASK_FLAGS)
        self.assertErrno(errno.EOPNOTSUPP, CQEX, self.ctx, attr)

    def test_cq_ex_ignore_overrun_is_eopnotsupp(self):
        attr = CqInitAttrEx(cqe=16, comp_mask=e.IBV_CQ_INIT_ATTR_MASK_FLAGS,
                            flags=e.IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN)
        self.assertErrno(errno.EOPNOTSUPP, CQEX, self.ctx, attr)

    def test_raw_packet_qp_is_eopnotsupp(self):
        cq = CQ(self.ctx, 16)
        attr = QPInitAttr(qp_type=e.IBV_QPT_RAW_PACKET, scq=cq, rcq=cq, cap=QPCap())
        self.assertErrno(errno.EOPNOTSUPP, QP, self.pd, attr)

    def test_inline_above_device_limit_is_einval(self):
        self.assertErrno(errno.EINVAL, self.create_qp, max_inline_data=1 << 20)

    def test_mr_remote_write_without_local_write_is_einval(self):
        self.assertErrno(errno.EINVAL, self.mr, 4096, e.IBV_ACCESS_REMOTE_WRITE)


class DomainErrors(XrxeTestCase):
    def test_parent_of_parent_is_einval(self):
        parent = ParentDomain(self.ctx, attr=ParentDomainInitAttr(pd=self.pd))
        self.assertErrno(errno.EINVAL, ParentDomain, self.ctx,
                         attr=ParentDomainInitAttr(pd=parent))

    def test_bind_type2_window_with_bind_mw_is_einval(self):
        (qp, _), _ = self.connected_pair()
        mr = self.mr(4096, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_MW_BIND)
        mw = MW(self.pd, e.IBV_MW_TYPE_2)
        bind = MWBind(MWBindInfo(mr, mr.buf, 64, e.IBV_ACCESS_REMOTE_WRITE),
                      e.IBV_SEND_SIGNALED)
        self.assertErrno(errno.EINVAL, qp.bind_mw, mw, bind)
