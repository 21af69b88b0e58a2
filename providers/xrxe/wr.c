// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libxrxe's ibv_wr_* API: extended posting on the send queue of post.c. */
#include <errno.h>
#include <string.h>

#include <infiniband/xrxedv.h>

#include "xrxe.h"

/*
 * The ibv_wr_* API: ibv_wr_start() takes the SQ lock, each builder claims
 * the next slot, ibv_wr_complete() publishes them all at once; a builder's
 * error is reported by ibv_wr_complete(), which then posts none of them.
 */
static struct rxe_send_wqe *wr_begin(struct ibv_qp_ex *ibqp, enum ibv_wr_opcode op)
{
	struct xrxe_qp *qp = to_xrxe_qp_ex(ibqp);
	struct rxe_send_wqe *wqe;

	qp->wr_cur = NULL;
	if (qp->wr_err)
		return NULL;
	if ((ibqp->wr_flags & XRXEDV_SEND_DOMAIN_FLUSH) && !qp->domain_flush_ok) {
		qp->wr_err = EINVAL;
		return NULL;
	}
	wqe = xrxe_sq_peek(qp);
	if (!wqe) {
		qp->wr_err = ENOMEM;
		return NULL;
	}
	xrxe_sq_advance(qp);
	xrxe_wqe_init(wqe, ibqp->wr_id, op, ibqp->wr_flags);
	wqe->ssn = qp->ssn++;
	qp->wr_cur = wqe;
	return wqe;
}

static void wr_start(struct ibv_qp_ex *ibqp)
{
	struct xrxe_qp *qp = to_xrxe_qp_ex(ibqp);

	pthread_spin_lock(&qp->sq.lock);
	qp->wr_err = qp->vqp.qp.state < IBV_QPS_RTS ? EINVAL : 0;
	qp->wr_start = qp->sq.producer;
	qp->wr_cur = NULL;
}

static int wr_complete(struct ibv_qp_ex *ibqp)
{
	struct xrxe_qp *qp = to_xrxe_qp_ex(ibqp);
	enum xrxe_sq_kick kick = XRXE_SQ_KICK_NONE;
	int ret = qp->wr_err;

	if (ret)
		qp->sq.producer = qp->wr_start;
	if (qp->sq.producer != qp->wr_start)
		kick = xrxe_sq_submit(qp, qp->wr_start);
	pthread_spin_unlock(&qp->sq.lock);
	return ret ? ret : xrxe_sq_kick(qp, kick);
}

static void wr_abort(struct ibv_qp_ex *ibqp)
{
	struct xrxe_qp *qp = to_xrxe_qp_ex(ibqp);

	qp->sq.producer = qp->wr_start;
	pthread_spin_unlock(&qp->sq.lock);
}

static void wr_send(struct ibv_qp_ex *ibqp)
{
	wr_begin(ibqp, IBV_WR_SEND);
}

static void wr_send_imm(struct ibv_qp_ex *ibqp, __be32 imm_data)
{
	struct rxe_send_wqe *wqe = wr_begin(ibqp, IBV_WR_SEND_WITH_IMM);

	if (wqe)
		wqe->wr.ex.imm_data = imm_data;
}

static void wr_send_inv(struct ibv_qp_ex *ibqp, uint32_t invalidate_rkey)
{
	struct rxe_send_wqe *wqe = wr_begin(ibqp, IBV_WR_SEND_WITH_INV);

	if (wqe)
		wqe->wr.ex.invalidate_rkey = invalidate_rkey;
}

/* An RDMA write (with immediate) or read to remote_addr under rkey. */
static struct rxe_send_wqe *wr_rdma(struct ibv_qp_ex *ibqp, enum ibv_wr_opcode op,
				    uint32_t rkey, uint64_t remote_addr)
{
	struct rxe_send_wqe *wqe = wr_begin(ibqp, op);

	if (wqe)
		xrxe_wqe_set_rdma(wqe, rkey, remote_addr);
	return wqe;
}

static void wr_rdma_write(struct ibv_qp_ex *ibqp, uint32_t rkey, uint64_t remote_addr)
{
	wr_rdma(ibqp, IBV_WR_RDMA_WRITE, rkey, remote_addr);
}

static void wr_rdma_write_imm(struct ibv_qp_ex *ibqp, uint32_t rkey,
			      uint64_t remote_addr, __be32 imm_data)
{
	struct rxe_send_wqe *wqe = wr_rdma(ibqp, IBV_WR_RDMA_WRITE_WITH_IMM, rkey,
					   remote_addr);

	if (wqe)
		wqe->wr.ex.imm_data = imm_data;
}

static void wr_rdma_read(struct ibv_qp_ex *ibqp, uint32_t rkey, uint64_t remote_addr)
{
	wr_rdma(ibqp, IBV_WR_RDMA_READ, rkey, remote_addr);
}

static void wr_atomic_cmp_swp(struct ibv_qp_ex *ibqp, uint32_t rkey,
			      uint64_t remote_addr, uint64_t compare, uint64_t swap)
{
	struct rxe_send_wqe *wqe = wr_begin(ibqp, IBV_WR_ATOMIC_CMP_AND_SWP);

	if (wqe)
		xrxe_wqe_set_atomic(wqe, rkey, remote_addr, compare, swap);
}

static void wr_atomic_fetch_add(struct ibv_qp_ex *ibqp, uint32_t rkey,
				uint64_t remote_addr, uint64_t add)
{
	struct rxe_send_wqe *wqe = wr_begin(ibqp, IBV_WR_ATOMIC_FETCH_AND_ADD);

	if (wqe)
		xrxe_wqe_set_atomic(wqe, rkey, remote_addr, add, 0);
}

static void wr_atomic_write(struct ibv_qp_ex *ibqp, uint32_t rkey,
			    uint64_t remote_addr, const void *atomic_wr)
{
	struct rxe_send_wqe *wqe = wr_begin(ibqp, IBV_WR_ATOMIC_WRITE);

	if (wqe)
		xrxe_wqe_set_atomic_write(wqe, rkey, remote_addr, atomic_wr);
}

/*
 * The builder that ibv_qp_ex has no slot for before rdma-core 45: a program
 * calls it by name (infiniband/xrxedv.h), so it first makes sure the QP is
 * ours, and reports what it cannot post through ibv_wr_complete(). From 45
 * it is ibv_wr_flush() too (the QP's wr_flush).
 */
void xrxedv_wr_flush(struct ibv_qp_ex *ibqp, uint32_t rkey, uint64_t remote_addr,
		     size_t len, uint8_t type, uint8_t level)
{
	struct rxe_send_wqe *wqe;
	struct xrxe_qp *qp;

	if (!ibqp || ibqp->qp_base.context->ops.post_send != xrxe_post_send)
		return;
	qp = to_xrxe_qp_ex(ibqp);
	if (!qp->wr_flush_ok || !type ||
	    (type & ~(XRXEDV_FLUSH_GLOBAL | XRXEDV_FLUSH_PERSISTENT)) ||
	    (level != XRXEDV_FLUSH_RANGE && level != XRXEDV_FLUSH_MR) ||
	    len > UINT32_MAX) {
		qp->wr_cur = NULL;
		if (!qp->wr_err)
			qp->wr_err = qp->wr_flush_ok ? EINVAL : EOPNOTSUPP;
		return;
	}
	wqe = wr_begin(ibqp, (enum ibv_wr_opcode)XRXEDV_WR_FLUSH);
	if (wqe)
		xrxe_wqe_set_flush(wqe, rkey, remote_addr, len, type, level);
}

static void wr_bind_mw(struct ibv_qp_ex *ibqp, struct ibv_mw *mw, uint32_t rkey,
		       const struct ibv_mw_bind_info *info)
{
	struct rxe_send_wqe *wqe = wr_begin(ibqp, IBV_WR_BIND_MW);

	if (wqe)
		xrxe_wqe_set_bind_mw(wqe, mw->rkey, rkey, info);
}

static void wr_local_inv(struct ibv_qp_ex *ibqp, uint32_t invalidate_rkey)
{
	struct rxe_send_wqe *wqe = wr_begin(ibqp, IBV_WR_LOCAL_INV);

	if (wqe)
		wqe->wr.ex.invalidate_rkey = invalidate_rkey;
}

static void wr_set_ud_addr(struct ibv_qp_ex *ibqp, struct ibv_ah *ah,
			   uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct xrxe_qp *qp = to_xrxe_qp_ex(ibqp);
	struct rxe_send_wqe *wqe = qp->wr_cur;

	if (!wqe)
		return;
	if (!ah) {
		qp->wr_err = EINVAL;
		return;
	}
	xrxe_wqe_set_ud(wqe, remote_qpn, remote_qkey, to_xrxe_ah(ah)->ah_num);
}

static void wr_set_sge_list(struct ibv_qp_ex *ibqp, size_t num_sge,
			    const struct ibv_sge *sg_list)
{
	struct xrxe_qp *qp = to_xrxe_qp_ex(ibqp);
	struct rxe_send_wqe *wqe = qp->wr_cur;

	if (!wqe)
		return;
	if (num_sge > qp->sq.max_sge || xrxe_dma_set_sges(&wqe->dma, sg_list, num_sge))
		qp->wr_err = EINVAL;
}

static void wr_set_sge(struct ibv_qp_ex *ibqp, uint32_t lkey, uint64_t addr,
		       uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	wr_set_sge_list(ibqp, 1, &sge);
}

static void wr_set_inline_data_list(struct ibv_qp_ex *ibqp, size_t num_buf,
				    const struct ibv_data_buf *buf_list)
{
	struct xrxe_qp *qp = to_xrxe_qp_ex(ibqp);
	struct rxe_send_wqe *wqe = qp->wr_cur;
	size_t i, length = 0;

	if (!wqe)
		return;
	for (i = 0; i < num_buf; i++) {
		if (buf_list[i].length > qp->sq.max_inline - length) {
			qp->wr_err = EINVAL;
			return;
		}
		memcpy(wqe->dma.inline_data + length, buf_list[i].addr,
		       buf_list[i].length);
		length += buf_list[i].length;
	}
	xrxe_wqe_set_inline(wqe, length);
}

static void wr_set_inline_data(struct ibv_qp_ex *ibqp, void *addr, size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	wr_set_inline_data_list(ibqp, 1, &buf);
}

void xrxe_qp_set_wr_ops(struct xrxe_qp *qp, uint64_t flags)
{
	struct ibv_qp_ex *ex = &qp->vqp.qp_ex;

	ex->wr_start = wr_start;
	ex->wr_complete = wr_complete;
	ex->wr_abort = wr_abort;
	ex->wr_set_sge = wr_set_sge;
	ex->wr_set_sge_list = wr_set_sge_list;
	ex->wr_set_inline_data = wr_set_inline_data;
	ex->wr_set_inline_data_list = wr_set_inline_data_list;
	ex->wr_set_ud_addr = wr_set_ud_addr;
	if (flags & IBV_QP_EX_WITH_SEND)
		ex->wr_send = wr_send;
	if (flags & IBV_QP_EX_WITH_SEND_WITH_IMM)
		ex->wr_send_imm = wr_send_imm;
	if (flags & IBV_QP_EX_WITH_SEND_WITH_INV)
		ex->wr_send_inv = wr_send_inv;
	if (flags & IBV_QP_EX_WITH_RDMA_WRITE)
		ex->wr_rdma_write = wr_rdma_write;
	if (flags & IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
		ex->wr_rdma_write_imm = wr_rdma_write_imm;
	if (flags & IBV_QP_EX_WITH_RDMA_READ)
		ex->wr_rdma_read = wr_rdma_read;
	if (flags & IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP)
		ex->wr_atomic_cmp_swp = wr_atomic_cmp_swp;
	if (flags & IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
		ex->wr_atomic_fetch_add = wr_atomic_fetch_add;
	if (flags & IBV_QP_EX_WITH_ATOMIC_WRITE)
		ex->wr_atomic_write = wr_atomic_write;
	if (flags & IBV_QP_EX_WITH_BIND_MW)
		ex->wr_bind_mw = wr_bind_mw;
	if (flags & IBV_QP_EX_WITH_LOCAL_INV)
		ex->wr_local_inv = wr_local_inv;
	qp->wr_flush_ok = flags & XRXEDV_QP_EX_WITH_FLUSH;
#if XRXE_RDMA_CORE_SINCE(QP_EX_FLUSH)
	/* IBV_QP_EX_WITH_FLUSH is the same bit. */
	if (qp->wr_flush_ok)
		ex->wr_flush = xrxedv_wr_flush;
#endif
}
