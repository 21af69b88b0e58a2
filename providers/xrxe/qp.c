// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libxrxe queue pairs: creation and the send and receive paths, both the
 * ibv_post_* verbs and the ibv_wr_* API.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "xrxe.h"

enum {
	XRXE_QP_COMP_MASK = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS |
			    IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
	XRXE_RC_SEND_OPS = IBV_QP_EX_WITH_RDMA_WRITE |
			   IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
			   IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
			   IBV_QP_EX_WITH_RDMA_READ |
			   IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
			   IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
			   IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW |
			   IBV_QP_EX_WITH_SEND_WITH_INV |
			   IBV_QP_EX_WITH_ATOMIC_WRITE,
	XRXE_UC_SEND_OPS = IBV_QP_EX_WITH_RDMA_WRITE |
			   IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
			   IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
			   IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_SEND_WITH_INV |
			   IBV_QP_EX_WITH_LOCAL_INV,
	XRXE_UD_SEND_OPS = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM,
	XRXE_RES_TYPE_QP = 1,
};

struct xrxe_create_qp_ex_cmd {
	struct ibv_create_qp_ex ibv_cmd;
	struct xrxe_create_qp_cmd drv;
};

struct xrxe_create_qp_ex_resp {
	struct ib_uverbs_ex_create_qp_resp ibv_resp;
	struct xrxe_create_qp_resp drv;
};

static uint64_t send_ops_for(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_RC:
		return XRXE_RC_SEND_OPS;
	case IBV_QPT_UC:
		return XRXE_UC_SEND_OPS;
	case IBV_QPT_UD:
		return XRXE_UD_SEND_OPS;
	default:
		return 0;
	}
}

static int check_qp_init_attr(const struct ibv_qp_init_attr_ex *attr)
{
	if (attr->comp_mask & ~XRXE_QP_COMP_MASK)
		return EOPNOTSUPP;
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) && attr->create_flags)
		return EOPNOTSUPP;
	if (attr->qp_type != IBV_QPT_RC && attr->qp_type != IBV_QPT_UC &&
	    attr->qp_type != IBV_QPT_UD)
		return EOPNOTSUPP;
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    (attr->send_ops_flags & ~send_ops_for(attr->qp_type)))
		return EOPNOTSUPP;
	return 0;
}

/*
 * Doorbell: an empty post_send makes the kernel look at the send queue.
 * Counted in the QP's doorbells.
 */
int xrxe_sq_doorbell(struct xrxe_qp *qp)
{
	struct ibv_send_wr *bad;

	qp->doorbells++;
	return ibv_cmd_post_send(&qp->vqp.qp, NULL, &bad);
}

/* The next free send slot, or NULL if the queue is full. */
static struct rxe_send_wqe *sq_peek(struct xrxe_qp *qp)
{
	struct xrxe_wq *sq = &qp->sq;

	if (qp->dbl.ring) {
		if (xrxe_dbl_full(sq->producer, xrxe_dbl_completed(&qp->dbl),
				  qp->dbl.log2_slots))
			return NULL;
		return &xrxe_dbl_slot(&qp->dbl, sq->producer)->wqe;
	}
	if (xrxe_ring_full(sq->producer, xrxe_load_consumer(&sq->ring),
			   sq->ring.mask))
		return NULL;
	return xrxe_ring_slot(&sq->ring, sq->producer);
}

static void sq_advance(struct xrxe_qp *qp)
{
	if (qp->dbl.ring)
		qp->sq.producer++;
	else
		qp->sq.producer = xrxe_index_next(qp->sq.producer, qp->sq.ring.mask);
}

/* Make the slots from start to the producer visible to the kernel. */
static void sq_publish(struct xrxe_qp *qp, uint32_t start)
{
	uint32_t i;

	if (!qp->dbl.ring) {
		xrxe_store_producer(&qp->sq.ring, qp->sq.producer);
		return;
	}
	for (i = start; i != qp->sq.producer; i++)
		xrxe_dbl_publish(&qp->dbl, i);
}

/*
 * After publishing the slots from start: the classic queue always rings; a
 * doorbell-less one only when the engine asked for it (or the QP is told
 * to ring always). A post of one WQE may send it in the doorbell instead
 * (ll.h), which then serves as the doorbell.
 */
static int sq_kick(struct xrxe_qp *qp, uint32_t start)
{
	bool need;

	if (!qp->dbl.ring)
		return xrxe_sq_doorbell(qp);
	need = xrxe_dbl_need_doorbell(&qp->dbl) || qp->dbl_always_ring;
	if (qp->ll_cmd && qp->sq.producer - start == 1 &&
	    xrxe_ll_qualifies(&xrxe_dbl_slot(&qp->dbl, start)->wqe) &&
	    xrxe_ll_choose(&qp->ll, need,
			   xrxe_dbl_fetched(&qp->dbl) == start))
		return xrxe_ll_post(qp, start);
	if (!need) {
		qp->doorbells_avoided++;
		return 0;
	}
	return xrxe_sq_doorbell(qp);
}

static void sq_limits(const struct xrxe_qp *qp, struct xrxe_sq_limits *lim)
{
	lim->qp_type = qp->vqp.qp.qp_type;
	lim->max_sge = qp->sq.max_sge;
	lim->max_inline = qp->sq.max_inline;
}

int xrxe_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr)
{
	struct xrxe_qp *qp = to_xrxe_qp(ibqp);
	struct xrxe_wq *sq = &qp->sq;
	struct xrxe_sq_limits lim;
	struct rxe_send_wqe *wqe;
	uint32_t start;
	int ret = 0, err;

	*bad_wr = NULL;
	if (!wr)
		return 0;
	if (ibqp->state < IBV_QPS_RTS) {
		*bad_wr = wr;
		return EINVAL;
	}
	sq_limits(qp, &lim);

	pthread_spin_lock(&sq->lock);
	start = sq->producer;
	for (; wr; wr = wr->next) {
		wqe = sq_peek(qp);
		if (!wqe) {
			ret = ENOMEM;
			break;
		}
		ret = xrxe_encode_send(wr, &lim,
				       lim.qp_type == IBV_QPT_UD && wr->wr.ud.ah ?
				       to_xrxe_ah(wr->wr.ud.ah)->ah_num : 0, wqe);
		if (ret)
			break;
		wqe->ssn = qp->ssn++;
		sq_advance(qp);
	}
	if (ret)
		*bad_wr = wr;
	/* The WRs before a bad one are posted, as ibv_post_send(3) says. */
	if (sq->producer == start) {
		pthread_spin_unlock(&sq->lock);
		return ret;
	}
	sq_publish(qp, start);
	err = sq_kick(qp, start);
	pthread_spin_unlock(&sq->lock);
	return ret ? ret : err;
}

int xrxe_post_one_recv(struct xrxe_wq *rq, struct ibv_recv_wr *wr)
{
	struct rxe_recv_wqe *wqe;
	int ret;

	if (xrxe_ring_full(rq->producer, xrxe_load_consumer(&rq->ring),
			   rq->ring.mask))
		return ENOMEM;
	wqe = xrxe_ring_slot(&rq->ring, rq->producer);
	ret = xrxe_encode_recv(wr, rq->max_sge, wqe);
	if (ret)
		return ret;
	rq->producer = xrxe_index_next(rq->producer, rq->ring.mask);
	return 0;
}

int xrxe_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr)
{
	struct xrxe_qp *qp = to_xrxe_qp(ibqp);
	struct xrxe_wq *rq = &qp->rq;
	int ret = 0;

	*bad_wr = NULL;
	if (!rq->ring.buf) {
		/* The QP receives through its SRQ. */
		*bad_wr = wr;
		return EINVAL;
	}
	/* A QP in RESET does not take receives (IBA C10-97.2.1). */
	if (ibqp->state == IBV_QPS_RESET) {
		*bad_wr = wr;
		return EINVAL;
	}

	pthread_spin_lock(&rq->lock);
	for (; wr; wr = wr->next) {
		ret = xrxe_post_one_recv(rq, wr);
		if (ret) {
			*bad_wr = wr;
			break;
		}
	}
	xrxe_store_producer(&rq->ring, rq->producer);
	pthread_spin_unlock(&rq->lock);
	return ret;
}

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
	wqe = sq_peek(qp);
	if (!wqe) {
		qp->wr_err = ENOMEM;
		return NULL;
	}
	sq_advance(qp);
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr.wr_id = ibqp->wr_id;
	wqe->wr.opcode = op;
	wqe->wr.send_flags = ibqp->wr_flags;
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
	int ret = qp->wr_err;
	int posted;

	if (ret)
		qp->sq.producer = qp->wr_start;
	posted = qp->sq.producer != qp->wr_start;
	if (posted) {
		sq_publish(qp, qp->wr_start);
		ret = sq_kick(qp, qp->wr_start);
	}
	pthread_spin_unlock(&qp->sq.lock);
	return ret;
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

static void set_rdma(struct rxe_send_wqe *wqe, uint32_t rkey, uint64_t remote_addr)
{
	wqe->wr.wr.rdma.remote_addr = remote_addr;
	wqe->wr.wr.rdma.rkey = rkey;
	wqe->iova = remote_addr;
}

static void wr_rdma_write(struct ibv_qp_ex *ibqp, uint32_t rkey, uint64_t remote_addr)
{
	struct rxe_send_wqe *wqe = wr_begin(ibqp, IBV_WR_RDMA_WRITE);

	if (wqe)
		set_rdma(wqe, rkey, remote_addr);
}

static void wr_rdma_write_imm(struct ibv_qp_ex *ibqp, uint32_t rkey,
			      uint64_t remote_addr, __be32 imm_data)
{
	struct rxe_send_wqe *wqe = wr_begin(ibqp, IBV_WR_RDMA_WRITE_WITH_IMM);

	if (!wqe)
		return;
	set_rdma(wqe, rkey, remote_addr);
	wqe->wr.ex.imm_data = imm_data;
}

static void wr_rdma_read(struct ibv_qp_ex *ibqp, uint32_t rkey, uint64_t remote_addr)
{
	struct rxe_send_wqe *wqe = wr_begin(ibqp, IBV_WR_RDMA_READ);

	if (wqe)
		set_rdma(wqe, rkey, remote_addr);
}

static void set_atomic(struct rxe_send_wqe *wqe, uint32_t rkey, uint64_t remote_addr,
		       uint64_t compare_add, uint64_t swap)
{
	wqe->wr.wr.atomic.remote_addr = remote_addr;
	wqe->wr.wr.atomic.compare_add = compare_add;
	wqe->wr.wr.atomic.swap = swap;
	wqe->wr.wr.atomic.rkey = rkey;
	wqe->iova = remote_addr;
}

static void wr_atomic_cmp_swp(struct ibv_qp_ex *ibqp, uint32_t rkey,
			      uint64_t remote_addr, uint64_t compare, uint64_t swap)
{
	struct rxe_send_wqe *wqe = wr_begin(ibqp, IBV_WR_ATOMIC_CMP_AND_SWP);

	if (wqe)
		set_atomic(wqe, rkey, remote_addr, compare, swap);
}

static void wr_atomic_fetch_add(struct ibv_qp_ex *ibqp, uint32_t rkey,
				uint64_t remote_addr, uint64_t add)
{
	struct rxe_send_wqe *wqe = wr_begin(ibqp, IBV_WR_ATOMIC_FETCH_AND_ADD);

	if (wqe)
		set_atomic(wqe, rkey, remote_addr, add, 0);
}

/* The 8 bytes to write travel in the WQE itself. */
static void wr_atomic_write(struct ibv_qp_ex *ibqp, uint32_t rkey,
			    uint64_t remote_addr, const void *atomic_wr)
{
	struct rxe_send_wqe *wqe = wr_begin(ibqp, IBV_WR_ATOMIC_WRITE);

	if (!wqe)
		return;
	set_rdma(wqe, rkey, remote_addr);
	memcpy(wqe->dma.atomic_wr, atomic_wr, 8);
	wqe->dma.length = 8;
	wqe->dma.resid = 8;
}

static void wr_bind_mw(struct ibv_qp_ex *ibqp, struct ibv_mw *mw, uint32_t rkey,
		       const struct ibv_mw_bind_info *info)
{
	struct rxe_send_wqe *wqe = wr_begin(ibqp, IBV_WR_BIND_MW);

	if (!wqe)
		return;
	wqe->wr.wr.mw.addr = info->addr;
	wqe->wr.wr.mw.length = info->length;
	wqe->wr.wr.mw.mr_lkey = info->mr ? info->mr->lkey : 0;
	wqe->wr.wr.mw.mw_rkey = mw->rkey;
	wqe->wr.wr.mw.rkey = rkey;
	wqe->wr.wr.mw.access = info->mw_access_flags;
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
	wqe->wr.wr.ud.remote_qpn = remote_qpn;
	wqe->wr.wr.ud.remote_qkey = remote_qkey;
	wqe->wr.wr.ud.ah_num = to_xrxe_ah(ah)->ah_num;
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
	/* The kernel tells inline payload from SGEs by this flag. */
	wqe->wr.send_flags |= IBV_SEND_INLINE;
	wqe->dma.length = length;
	wqe->dma.resid = length;
	wqe->dma.num_sge = 0;
}

static void wr_set_inline_data(struct ibv_qp_ex *ibqp, void *addr, size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	wr_set_inline_data_list(ibqp, 1, &buf);
}

static void set_qp_send_ops(struct xrxe_qp *qp, uint64_t flags)
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
}

static void dbl_unmap(struct xrxe_qp *qp)
{
	free(qp->ll_cmd);
	qp->ll_cmd = NULL;
	xrxe_dbl_unmap(&qp->dbl);
}

/*
 * A doorbell-less send queue: its ring, whose slots must hold the QP's
 * SGEs or inline data, its status page, and the low-latency command buffer.
 */
static int dbl_map(struct ibv_context *ctx, struct xrxe_qp *qp,
		   const struct ibv_qp_init_attr_ex *attr,
		   const struct xrxe_create_qp_resp *resp)
{
	uint64_t payload = attr->cap.max_send_sge * sizeof(struct ibv_sge);
	int ret;

	if (attr->cap.max_inline_data > payload)
		payload = attr->cap.max_inline_data;
	ret = xrxe_dbl_map(ctx, &qp->dbl, resp, payload);
	if (ret)
		return ret;
	qp->sq.producer = 0;
	if (resp->flags & XRXE_QP_LL_SQ) {
		/* A command holds a whole slot's WQE and payload. */
		qp->ll_cmd = malloc(offsetof(struct xrxe_ll_cmd, wqe) +
				    (1ull << qp->dbl.log2_slot_size) -
				    offsetof(struct xrxe_sq_slot, wqe));
		if (!qp->ll_cmd) {
			dbl_unmap(qp);
			return ENOMEM;
		}
		qp->ll.mode = to_xrxe_ctx(ctx)->ll_mode;
	}
	return 0;
}

static int map_queues(struct ibv_context *ctx, struct xrxe_qp *qp,
		      const struct ibv_qp_init_attr_ex *attr,
		      const struct xrxe_create_qp_resp *xresp)
{
	const struct rxe_create_qp_resp *resp = &xresp->rxe;
	int ret;

	if (!attr->srq) {
		ret = xrxe_wq_map(ctx, &qp->rq, &resp->rq_mi,
				  sizeof(struct rxe_recv_wqe));
		if (ret)
			return ret;
		qp->rq.max_sge = attr->cap.max_recv_sge;
	}
	if (xresp->flags & XRXE_QP_DBL_SQ)
		ret = dbl_map(ctx, qp, attr, xresp);
	else
		ret = xrxe_wq_map(ctx, &qp->sq, &resp->sq_mi,
				  sizeof(struct rxe_send_wqe));
	if (ret) {
		xrxe_ring_unmap(&qp->rq.ring);
		return ret;
	}
	qp->sq.max_sge = attr->cap.max_send_sge;
	qp->sq.max_inline = attr->cap.max_inline_data;
	pthread_spin_init(&qp->sq.lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq.lock, PTHREAD_PROCESS_PRIVATE);
	return 0;
}

static struct xrxe_qp *create_qp(struct ibv_context *context,
				 struct ibv_qp_init_attr_ex *attr)
{
	struct xrxe_create_qp_ex_resp resp = {};
	struct xrxe_create_qp_ex_cmd cmd = {};
	struct ibv_pd *user_pd = attr->pd;
	struct xrxe_obj_mem mem;
	struct xrxe_qp *qp;
	int ret;

	ret = check_qp_init_attr(attr);
	if (ret) {
		errno = ret;
		return NULL;
	}
	qp = xrxe_obj_alloc(user_pd, sizeof(*qp), XRXE_RES_TYPE_QP, &mem);
	if (!qp)
		return NULL;
	qp->mem = mem;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		set_qp_send_ops(qp, attr->send_ops_flags);

	/* The kernel knows the protection domain behind a parent domain. */
	attr->pd = xrxe_real_pd(user_pd);
	if (to_xrxe_ctx(context)->caps & XRXE_CAP_DBL_SQ)
		cmd.drv.flags = XRXE_QP_DBL_SQ;
	if (to_xrxe_ctx(context)->caps & XRXE_CAP_LL_SQ)
		cmd.drv.flags |= XRXE_QP_LL_SQ;
	ret = ibv_cmd_create_qp_ex2(context, &qp->vqp, attr, &cmd.ibv_cmd,
				    sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	attr->pd = user_pd;
	if (ret)
		goto err_free;
	qp->vqp.qp.pd = user_pd;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		qp->vqp.comp_mask |= VERBS_QP_EX;
	ret = map_queues(context, qp, attr, &resp.drv);
	if (ret)
		goto err_destroy;
	return qp;

err_destroy:
	ibv_cmd_destroy_qp(&qp->vqp.qp);
err_free:
	xrxe_obj_free(qp, &mem);
	errno = ret;
	return NULL;
}

struct ibv_qp *xrxe_create_qp_ex(struct ibv_context *context,
				 struct ibv_qp_init_attr_ex *attr)
{
	struct xrxe_qp *qp = create_qp(context, attr);

	return qp ? &qp->vqp.qp : NULL;
}

struct ibv_qp *xrxe_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ex = {
		.qp_context = attr->qp_context,
		.send_cq = attr->send_cq,
		.recv_cq = attr->recv_cq,
		.srq = attr->srq,
		.cap = attr->cap,
		.qp_type = attr->qp_type,
		.sq_sig_all = attr->sq_sig_all,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};
	struct xrxe_qp *qp = create_qp(pd->context, &ex);

	if (!qp)
		return NULL;
	attr->cap = ex.cap;
	return &qp->vqp.qp;
}

int xrxe_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		  struct ibv_qp_init_attr *init_attr)
{
	struct ibv_query_qp cmd;

	return ibv_cmd_query_qp(qp, attr, attr_mask, init_attr, &cmd, sizeof(cmd));
}

/* The QP's unpolled completions go with it, on both of its CQs. */
static void qp_clean_cqs(struct ibv_qp *qp)
{
	if (qp->recv_cq)
		xrxe_cq_clean(to_xrxe_cq(qp->recv_cq), qp->qp_num);
	if (qp->send_cq && qp->send_cq != qp->recv_cq)
		xrxe_cq_clean(to_xrxe_cq(qp->send_cq), qp->qp_num);
}

int xrxe_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	struct ibv_modify_qp cmd = {};
	int ret;

	ret = ibv_cmd_modify_qp(qp, attr, attr_mask, &cmd, sizeof(cmd));
	if (!ret && (attr_mask & IBV_QP_STATE) && attr->qp_state == IBV_QPS_RESET) {
		qp_clean_cqs(qp);
		/* The kernel emptied the doorbell-less ring: start a new lap 0. */
		if (to_xrxe_qp(qp)->dbl.ring)
			to_xrxe_qp(qp)->sq.producer = 0;
	}
	return ret;
}

int xrxe_destroy_qp(struct ibv_qp *ibqp)
{
	struct xrxe_qp *qp = to_xrxe_qp(ibqp);
	struct xrxe_obj_mem mem = qp->mem;
	int ret;

	ret = ibv_cmd_destroy_qp(ibqp);
	if (ret)
		return ret;
	qp_clean_cqs(ibqp);
	xrxe_ring_unmap(&qp->rq.ring);
	xrxe_ring_unmap(&qp->sq.ring);
	dbl_unmap(qp);
	pthread_spin_destroy(&qp->rq.lock);
	pthread_spin_destroy(&qp->sq.lock);
	xrxe_obj_free(qp, &mem);
	return 0;
}
