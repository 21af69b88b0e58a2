// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libxrxe completion queues: the kernel produces struct ib_uverbs_wc entries
 * into a mapped ring, we consume them.
 */
#include <errno.h>
#include <sched.h>

#include "xrxe.h"

enum {
	XRXE_WC_EX_FLAGS = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM |
			   IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP |
			   IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL |
			   IBV_WC_EX_WITH_DLID_PATH_BITS,
	/* Need XRXE_CAP_CQ_TIMESTAMP: the entries are then struct xrxe_cqe. */
	XRXE_WC_EX_TIMESTAMPS = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
				IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK,
	XRXE_CQ_COMP_MASK = IBV_CQ_INIT_ATTR_MASK_FLAGS | IBV_CQ_INIT_ATTR_MASK_PD,
	/* Not IGNORE_OVERRUN: a full CQ raises IBV_EVENT_CQ_ERR in the kernel. */
	XRXE_CQ_FLAGS = IBV_CREATE_CQ_ATTR_SINGLE_THREADED,
};

struct xrxe_create_cq_resp {
	struct ib_uverbs_create_cq_resp ibv_resp;
	struct rxe_create_cq_resp drv;
};

struct xrxe_create_cq_ex_resp {
	struct ib_uverbs_ex_create_cq_resp ibv_resp;
	struct rxe_create_cq_resp drv;
};

struct xrxe_resize_cq_resp {
	struct ib_uverbs_resize_cq_resp ibv_resp;
	struct rxe_resize_cq_resp drv;
};

static void copy_wc(struct ibv_wc *wc, const struct ib_uverbs_wc *src)
{
	wc->wr_id = src->wr_id;
	wc->status = src->status;
	wc->opcode = src->opcode;
	wc->vendor_err = src->vendor_err;
	wc->byte_len = src->byte_len;
	wc->imm_data = src->ex.imm_data;
	wc->qp_num = src->qp_num;
	wc->src_qp = src->src_qp;
	wc->wc_flags = src->wc_flags;
	wc->pkey_index = src->pkey_index;
	wc->slid = src->slid;
	wc->sl = src->sl;
	wc->dlid_path_bits = src->dlid_path_bits;
}

int xrxe_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct xrxe_cq *cq = to_xrxe_cq(ibcq);
	uint32_t cons, prod;
	int n = 0;

	pthread_spin_lock(&cq->lock);
	cons = xrxe_load_consumer(&cq->ring);
	prod = xrxe_load_producer(&cq->ring);
	for (; n < ne && !xrxe_ring_empty(prod, cons); n++) {
		copy_wc(&wc[n], xrxe_ring_slot(&cq->ring, cons));
		cons = xrxe_index_next(cons, cq->ring.mask);
	}
	if (n)
		xrxe_store_consumer(&cq->ring, cons);
	pthread_spin_unlock(&cq->lock);
	/* Nothing to take: let the kernel work that makes completions run. */
	if (!n && cq->yield_when_empty)
		sched_yield();
	return n;
}

static bool wc_of_qp(const void *elem, void *qpn)
{
	return ((const struct ib_uverbs_wc *)elem)->qp_num == *(uint32_t *)qpn;
}

/*
 * Remove the completions of QP qpn that nobody polled yet, as a QP moved to
 * RESET or destroyed must not leave stale completions (flushes, mostly) for
 * the next user of the CQ.
 */
void xrxe_cq_clean(struct xrxe_cq *cq, uint32_t qpn)
{
	uint32_t cons, prod, new_cons;

	pthread_spin_lock(&cq->lock);
	cons = xrxe_load_consumer(&cq->ring);
	prod = xrxe_load_producer(&cq->ring);
	new_cons = xrxe_ring_compact(&cq->ring, cons, prod, wc_of_qp, &qpn);
	if (new_cons != cons)
		xrxe_store_consumer(&cq->ring, new_cons);
	pthread_spin_unlock(&cq->lock);
}

int xrxe_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	return ibv_cmd_req_notify_cq(ibcq, solicited_only);
}

/* Extended polling: the lock is held from a successful start to the end. */
static void cq_ex_load(struct xrxe_cq *cq, uint32_t index)
{
	cq->cur_index = index;
	cq->cur = xrxe_ring_slot(&cq->ring, index);
	cq->vcq.cq_ex.status = cq->cur->status;
	cq->vcq.cq_ex.wr_id = cq->cur->wr_id;
}

static int cq_start_poll(struct ibv_cq_ex *ibcq, struct ibv_poll_cq_attr *attr)
{
	struct xrxe_cq *cq = to_xrxe_cq_ex(ibcq);
	uint32_t cons;

	if (attr->comp_mask)
		return EINVAL;
	pthread_spin_lock(&cq->lock);
	cons = xrxe_load_consumer(&cq->ring);
	if (cons == xrxe_load_producer(&cq->ring)) {
		pthread_spin_unlock(&cq->lock);
		if (cq->yield_when_empty)
			sched_yield();
		return ENOENT;
	}
	cq_ex_load(cq, cons);
	return 0;
}

static int cq_next_poll(struct ibv_cq_ex *ibcq)
{
	struct xrxe_cq *cq = to_xrxe_cq_ex(ibcq);
	uint32_t next = xrxe_index_next(cq->cur_index, cq->ring.mask);

	xrxe_store_consumer(&cq->ring, next);
	if (next == xrxe_load_producer(&cq->ring)) {
		cq->cur = NULL;
		return ENOENT;
	}
	cq_ex_load(cq, next);
	return 0;
}

static void cq_end_poll(struct ibv_cq_ex *ibcq)
{
	struct xrxe_cq *cq = to_xrxe_cq_ex(ibcq);

	if (cq->cur)
		xrxe_store_consumer(&cq->ring,
				    xrxe_index_next(cq->cur_index, cq->ring.mask));
	cq->cur = NULL;
	pthread_spin_unlock(&cq->lock);
}

static enum ibv_wc_opcode cq_read_opcode(struct ibv_cq_ex *ibcq)
{
	return to_xrxe_cq_ex(ibcq)->cur->opcode;
}

static uint32_t cq_read_vendor_err(struct ibv_cq_ex *ibcq)
{
	return to_xrxe_cq_ex(ibcq)->cur->vendor_err;
}

static uint32_t cq_read_byte_len(struct ibv_cq_ex *ibcq)
{
	return to_xrxe_cq_ex(ibcq)->cur->byte_len;
}

static __be32 cq_read_imm_data(struct ibv_cq_ex *ibcq)
{
	return to_xrxe_cq_ex(ibcq)->cur->ex.imm_data;
}

static uint32_t cq_read_qp_num(struct ibv_cq_ex *ibcq)
{
	return to_xrxe_cq_ex(ibcq)->cur->qp_num;
}

static uint32_t cq_read_src_qp(struct ibv_cq_ex *ibcq)
{
	return to_xrxe_cq_ex(ibcq)->cur->src_qp;
}

static unsigned int cq_read_wc_flags(struct ibv_cq_ex *ibcq)
{
	return to_xrxe_cq_ex(ibcq)->cur->wc_flags;
}

static uint32_t cq_read_slid(struct ibv_cq_ex *ibcq)
{
	return to_xrxe_cq_ex(ibcq)->cur->slid;
}

static uint8_t cq_read_sl(struct ibv_cq_ex *ibcq)
{
	return to_xrxe_cq_ex(ibcq)->cur->sl;
}

static uint8_t cq_read_dlid_path_bits(struct ibv_cq_ex *ibcq)
{
	return to_xrxe_cq_ex(ibcq)->cur->dlid_path_bits;
}

static const struct xrxe_cqe *cur_stamped(struct ibv_cq_ex *ibcq)
{
	/* Only a timestamping CQ has these readers: its entries are xrxe_cqe. */
	return (const struct xrxe_cqe *)to_xrxe_cq_ex(ibcq)->cur;
}

static uint64_t cq_read_completion_ts(struct ibv_cq_ex *ibcq)
{
	return cur_stamped(ibcq)->ts_ns;
}

static uint64_t cq_read_completion_wallclock_ns(struct ibv_cq_ex *ibcq)
{
	return cur_stamped(ibcq)->wallclock_ns;
}

static void cq_set_ex_ops(struct xrxe_cq *cq, uint64_t wc_flags)
{
	struct ibv_cq_ex *ex = &cq->vcq.cq_ex;

	ex->start_poll = cq_start_poll;
	ex->next_poll = cq_next_poll;
	ex->end_poll = cq_end_poll;
	ex->read_opcode = cq_read_opcode;
	ex->read_vendor_err = cq_read_vendor_err;
	ex->read_wc_flags = cq_read_wc_flags;
	if (wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		ex->read_byte_len = cq_read_byte_len;
	if (wc_flags & IBV_WC_EX_WITH_IMM)
		ex->read_imm_data = cq_read_imm_data;
	if (wc_flags & IBV_WC_EX_WITH_QP_NUM)
		ex->read_qp_num = cq_read_qp_num;
	if (wc_flags & IBV_WC_EX_WITH_SRC_QP)
		ex->read_src_qp = cq_read_src_qp;
	if (wc_flags & IBV_WC_EX_WITH_SLID)
		ex->read_slid = cq_read_slid;
	if (wc_flags & IBV_WC_EX_WITH_SL)
		ex->read_sl = cq_read_sl;
	if (wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS)
		ex->read_dlid_path_bits = cq_read_dlid_path_bits;
	if (wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP)
		ex->read_completion_ts = cq_read_completion_ts;
	if (wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)
		ex->read_completion_wallclock_ns = cq_read_completion_wallclock_ns;
}

/* What a ring slot must hold: a stamped entry, or a standard one. */
static size_t cq_entry_size(const struct xrxe_cq *cq)
{
	return cq->timestamps ? sizeof(struct xrxe_cqe) : sizeof(struct ib_uverbs_wc);
}

/*
 * After the kernel created the CQ: map its ring. On failure the CQ is
 * destroyed and freed, errno set, and NULL returned.
 */
static struct xrxe_cq *cq_finish(struct ibv_context *context, struct xrxe_cq *cq,
				 const struct mminfo *mi)
{
	int ret = xrxe_ring_map(context, &cq->ring, mi, cq_entry_size(cq));

	if (ret) {
		ibv_cmd_destroy_cq(&cq->vcq.cq);
		xrxe_obj_free(cq, &cq->mem);
		errno = ret;
		return NULL;
	}
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	cq->yield_when_empty = to_xrxe_ctx(context)->yield_when_empty;
	return cq;
}

struct ibv_cq *xrxe_create_cq(struct ibv_context *context, int cqe,
			      struct ibv_comp_channel *channel, int comp_vector)
{
	struct xrxe_create_cq_resp resp = {};
	struct xrxe_obj_mem mem;
	struct xrxe_cq *cq;
	int ret;

	cq = xrxe_obj_alloc(NULL, sizeof(*cq), XRXE_RES_TYPE_CQ, &mem);
	if (!cq)
		return NULL;
	cq->mem = mem;
	ret = ibv_cmd_create_cq(context, cqe, channel, comp_vector, &cq->vcq.cq,
				NULL, 0, &resp.ibv_resp, sizeof(resp));
	if (ret) {
		xrxe_obj_free(cq, &mem);
		errno = ret;
		return NULL;
	}
	cq = cq_finish(context, cq, &resp.drv.mi);
	return cq ? &cq->vcq.cq : NULL;
}

struct ibv_cq_ex *xrxe_create_cq_ex(struct ibv_context *context,
				    struct ibv_cq_init_attr_ex *attr)
{
	struct verbs_context *vctx = to_verbs_ctx(context);
	struct xrxe_create_cq_ex_resp resp = {};
	struct xrxe_obj_mem mem;
	struct ibv_pd *pd = NULL;
	struct xrxe_cq *cq;
	uint64_t wc_flags;
	int ret;

	if (attr->comp_mask & ~XRXE_CQ_COMP_MASK) {
		verbs_err(vctx, "comp_mask bits %#x are not supported\n",
			  attr->comp_mask & ~XRXE_CQ_COMP_MASK);
		errno = EINVAL;
		return NULL;
	}
	wc_flags = XRXE_WC_EX_FLAGS;
	if (to_xrxe_ctx(context)->caps & XRXE_CAP_CQ_TIMESTAMP)
		wc_flags |= XRXE_WC_EX_TIMESTAMPS;
	if (attr->wc_flags & ~wc_flags) {
		verbs_err(vctx, "wc_flags %#llx: the device does not report these fields\n",
			  (unsigned long long)(attr->wc_flags & ~wc_flags));
		errno = EOPNOTSUPP;
		return NULL;
	}
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (attr->flags & ~XRXE_CQ_FLAGS)) {
		verbs_err(vctx, "CQ flags %#x are not supported\n",
			  attr->flags & ~XRXE_CQ_FLAGS);
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) {
		pd = attr->parent_domain;
		if (!xrxe_parent_of(pd)) {
			verbs_err(vctx, "parent_domain is not a parent domain\n");
			errno = EINVAL;
			return NULL;
		}
	}

	cq = xrxe_obj_alloc(pd, sizeof(*cq), XRXE_RES_TYPE_CQ, &mem);
	if (!cq)
		return NULL;
	cq->mem = mem;
	/* A timestamp flag makes libibverbs ask the kernel for stamped entries. */
	cq->timestamps = attr->wc_flags & XRXE_WC_EX_TIMESTAMPS;
	ret = ibv_cmd_create_cq_ex(context, attr,
#if XRXE_RDMA_CORE_SINCE(DMAH)
				   NULL,
#endif
				   &cq->vcq, NULL, 0, &resp.ibv_resp,
				   sizeof(resp), 0);
	if (ret) {
		xrxe_obj_free(cq, &mem);
		errno = ret;
		return NULL;
	}
	cq = cq_finish(context, cq, &resp.drv.mi);
	if (!cq)
		return NULL;
	cq_set_ex_ops(cq, attr->wc_flags);
	return &cq->vcq.cq_ex;
}

int xrxe_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct xrxe_cq *cq = to_xrxe_cq(ibcq);
	struct xrxe_resize_cq_resp resp = {};
	struct ibv_resize_cq cmd = {};
	int ret;

	pthread_spin_lock(&cq->lock);
	ret = ibv_cmd_resize_cq(ibcq, cqe, &cmd, sizeof(cmd), &resp.ibv_resp,
				sizeof(resp));
	/* The kernel moved the ring. */
	if (!ret)
		ret = xrxe_ring_map(ibcq->context, &cq->ring, &resp.drv.mi,
				    cq_entry_size(cq));
	pthread_spin_unlock(&cq->lock);
	return ret;
}

int xrxe_destroy_cq(struct ibv_cq *ibcq)
{
	struct xrxe_cq *cq = to_xrxe_cq(ibcq);
	struct xrxe_obj_mem mem = cq->mem;
	int ret;

	ret = ibv_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;
	xrxe_ring_unmap(&cq->ring);
	pthread_spin_destroy(&cq->lock);
	xrxe_obj_free(cq, &mem);
	return 0;
}
