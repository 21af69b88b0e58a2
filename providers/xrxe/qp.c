// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libxrxe queue pairs: creation, query, modification and destruction. The
 * post paths are post.c's, the ibv_wr_* API wr.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "xrxe.h"

enum {
	XRXE_QP_COMP_MASK = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS |
			    IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
};

struct xrxe_create_qp_ex_cmd {
	struct ibv_create_qp_ex ibv_cmd;
	struct xrxe_create_qp_cmd drv;
};

struct xrxe_create_qp_ex_resp {
	struct ib_uverbs_ex_create_qp_resp ibv_resp;
	struct xrxe_create_qp_resp drv;
};

static int check_qp_init_attr(struct verbs_context *vctx,
			      const struct ibv_qp_init_attr_ex *attr)
{
	/* First: a type we lack is EOPNOTSUPP whatever it comes with. */
	if (attr->qp_type != IBV_QPT_RC && attr->qp_type != IBV_QPT_UC &&
	    attr->qp_type != IBV_QPT_UD) {
		verbs_err(vctx, "QP type %d is not supported: RC, UC and UD are\n",
			  attr->qp_type);
		return EOPNOTSUPP;
	}
	/* Unknown comp_mask bits are EINVAL, as in every create_*_ex verb here. */
	if (attr->comp_mask & ~XRXE_QP_COMP_MASK) {
		verbs_err(vctx, "comp_mask bits %#x are not supported\n",
			  attr->comp_mask & ~XRXE_QP_COMP_MASK);
		return EINVAL;
	}
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) && attr->create_flags) {
		verbs_err(vctx, "create_flags %#x: none is supported\n",
			  attr->create_flags);
		return EOPNOTSUPP;
	}
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    (attr->send_ops_flags & ~xrxe_send_ops(attr->qp_type))) {
		verbs_err(vctx, "send_ops_flags %#llx are not supported on QP type %d\n",
			  (unsigned long long)(attr->send_ops_flags &
					       ~xrxe_send_ops(attr->qp_type)),
			  attr->qp_type);
		return EOPNOTSUPP;
	}
	return 0;
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

	ret = check_qp_init_attr(to_verbs_ctx(context), attr);
	if (ret) {
		errno = ret;
		return NULL;
	}
	qp = xrxe_obj_alloc(user_pd, sizeof(*qp), XRXE_RES_TYPE_QP, &mem);
	if (!qp)
		return NULL;
	qp->mem = mem;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		xrxe_qp_set_wr_ops(qp, attr->send_ops_flags);

	/* The kernel knows the protection domain behind a parent domain. */
	attr->pd = xrxe_real_pd(user_pd);
	if (to_xrxe_ctx(context)->caps & XRXE_CAP_DBL_SQ)
		cmd.drv.flags = XRXE_QP_DBL_SQ;
	if (to_xrxe_ctx(context)->caps & XRXE_CAP_LL_SQ)
		cmd.drv.flags |= XRXE_QP_LL_SQ;
#if XRXE_RDMA_CORE_SINCE(BUF)
	ret = ibv_cmd_create_qp_ex2(context, &qp->vqp, attr, &cmd.ibv_cmd,
				    sizeof(cmd), &resp.ibv_resp, sizeof(resp),
				    NULL);
#else
	ret = ibv_cmd_create_qp_ex2(context, &qp->vqp, attr, &cmd.ibv_cmd,
				    sizeof(cmd), &resp.ibv_resp, sizeof(resp));
#endif
	attr->pd = user_pd;
	if (ret)
		goto err_free;
	qp->vqp.qp.pd = user_pd;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		qp->vqp.comp_mask |= VERBS_QP_EX;
	ret = map_queues(context, qp, attr, &resp.drv);
	if (ret)
		goto err_destroy;
	/* A preference: the QP works wherever the kernel left it. */
	if (qp->dbl.ring && to_xrxe_ctx(context)->ocu_mode != XRXEDV_OCU_MODULE &&
	    (to_xrxe_ctx(context)->caps & XRXE_CAP_OCU)) {
		ret = xrxe_qp_set_ocu(qp, to_xrxe_ctx(context)->ocu_mode, 0);
		if (ret)
			verbs_warn(to_verbs_ctx(context),
				   "QP %u keeps the module's OCU mode: %s\n",
				   qp->vqp.qp.qp_num, strerror(ret));
	}
	/* XRXEDV_SEND_DOMAIN_FLUSH: the kernel holds such a QP's WQEs. */
	qp->domain_flush_ok = qp->dbl.ring && attr->qp_type == IBV_QPT_RC &&
			      (to_xrxe_ctx(context)->caps & XRXE_CAP_FLUSH_DOMAIN);
	if (qp->dbl.ring && to_xrxe_ctx(context)->coalesce_max &&
	    (attr->qp_type == IBV_QPT_RC || attr->qp_type == IBV_QPT_UC)) {
		ret = xrxe_qp_set_coalesce(qp, to_xrxe_ctx(context)->coalesce_max);
		if (ret)
			verbs_warn(to_verbs_ctx(context),
				   "QP %u does not coalesce writes: %s\n",
				   qp->vqp.qp.qp_num, strerror(ret));
	}
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

/*
 * ibv_modify_qp() with xrxe's own attributes as driver data (drv, or none).
 * The kernel checks them all, with the standard ones, before it changes
 * anything: its errno is the verb's.
 */
int xrxe_modify_qp_drv(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		       int attr_mask, const struct xrxe_modify_qp_cmd *drv)
{
	struct {
		struct ibv_modify_qp ibv_cmd;
		struct xrxe_modify_qp_cmd drv;
	} cmd = {};
	int ret;

	if (drv)
		cmd.drv = *drv;
	ret = ibv_cmd_modify_qp(qp, attr, attr_mask, &cmd.ibv_cmd,
				drv ? sizeof(cmd) : sizeof(cmd.ibv_cmd));
	if (ret && drv)
		verbs_err(verbs_get_ctx(qp->context),
			  "QP %u: the kernel refused xrxe attributes 0x%x: %s\n",
			  qp->qp_num, drv->comp_mask, strerror(ret));
	if (!ret && (attr_mask & IBV_QP_STATE) && attr->qp_state == IBV_QPS_RESET) {
		qp_clean_cqs(qp);
		/* The kernel emptied the doorbell-less ring: start a new lap 0. */
		if (to_xrxe_qp(qp)->dbl.ring)
			to_xrxe_qp(qp)->sq.producer = 0;
	}
	return ret;
}

/*
 * A modify whose driver data is the whole request: no standard attribute
 * changes.
 */
int xrxe_modify_qp_drv_only(struct ibv_qp *qp, const struct xrxe_modify_qp_cmd *drv)
{
	struct ibv_qp_attr none = {};

	return xrxe_modify_qp_drv(qp, &none, 0, drv);
}

/* Whether the kernel granted cap to qp's context; if not, say so (what). */
static bool kernel_grants(struct ibv_qp *qp, uint32_t cap, const char *what)
{
	if (to_xrxe_ctx(qp->context)->caps & cap)
		return true;
	verbs_err(to_verbs_ctx(qp->context), "QP %u: the kernel %s\n",
		  qp->qp_num, what);
	return false;
}

/*
 * Write coalescing of a doorbell-less QP, as driver data of a modify with
 * no attributes: xrxedv_qp_set_coalesce(), and XRXE_COALESCE at creation.
 */
int xrxe_qp_set_coalesce(struct xrxe_qp *qp, uint32_t max_bytes)
{
	struct xrxe_modify_qp_cmd drv = {
		.comp_mask = XRXE_MODIFY_QP_COALESCE,
		.coalesce_max = max_bytes,
	};
	struct ibv_qp *ibqp = &qp->vqp.qp;

	if (!kernel_grants(ibqp, XRXE_CAP_COALESCE, "does not coalesce writes"))
		return EOPNOTSUPP;
	if (ibqp->qp_type != IBV_QPT_RC && ibqp->qp_type != IBV_QPT_UC)
		return EOPNOTSUPP;
	if (max_bytes > XRXE_COALESCE_MAX_BYTES)
		return EINVAL;
	return xrxe_modify_qp_drv_only(ibqp, &drv);
}

/*
 * The OCU placement of a doorbell-less QP, as driver data of a modify
 * with no attributes: xrxedv_qp_set_ocu(), and XRXE_OCU_MODE at creation.
 */
int xrxe_qp_set_ocu(struct xrxe_qp *qp, enum xrxedv_ocu_mode mode,
		    uint32_t domain)
{
	static const uint32_t placement[] = {
		[XRXEDV_OCU_MODULE] = XRXE_OCU_PLACE_MODULE,
		[XRXEDV_OCU_STATIC] = XRXE_OCU_PLACE_STATIC,
		[XRXEDV_OCU_DYNAMIC] = XRXE_OCU_PLACE_DYNAMIC,
		[XRXEDV_OCU_COMP_VECTOR] = XRXE_OCU_PLACE_COMP_VECTOR,
	};
	struct xrxe_modify_qp_cmd drv = {
		.comp_mask = XRXE_MODIFY_QP_OCU,
		.ocu_domain = domain,
	};
	struct ibv_qp *ibqp = &qp->vqp.qp;

	if (!kernel_grants(ibqp, XRXE_CAP_OCU, "has no OCUs"))
		return EOPNOTSUPP;
	if ((unsigned int)mode >= sizeof(placement) / sizeof(placement[0]))
		return EINVAL;
	drv.ocu_placement = placement[mode];
	return xrxe_modify_qp_drv_only(ibqp, &drv);
}

/* Rate fields as driver data: needs the kernel's XRXE_CAP_RATE_LIMIT. */
static int rate_limit_drv(struct ibv_qp *qp, uint32_t rate_kbps,
			  uint32_t max_burst_sz, uint16_t typical_pkt_sz,
			  struct xrxe_modify_qp_cmd *drv)
{
	if (!(to_xrxe_ctx(qp->context)->caps & XRXE_CAP_RATE_LIMIT)) {
		verbs_err(verbs_get_ctx(qp->context),
			  "QP %u: the kernel grants no rate limits\n", qp->qp_num);
		return EOPNOTSUPP;
	}
	drv->comp_mask |= XRXE_MODIFY_QP_RATE_LIMIT;
	drv->rate_limit_kbps = rate_kbps;
	drv->max_burst_sz = max_burst_sz;
	drv->typical_pkt_sz = typical_pkt_sz;
	return 0;
}

/*
 * The standard rate attribute travels as driver data, with the other
 * attributes in one command: the core's state table lets
 * IB_QP_RATE_LIMIT through only for raw packet QPs.
 */
int xrxe_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	struct xrxe_modify_qp_cmd drv = {};
	int ret;

	if (!(attr_mask & IBV_QP_RATE_LIMIT))
		return xrxe_modify_qp_drv(qp, attr, attr_mask, NULL);
	ret = rate_limit_drv(qp, attr->rate_limit, 0, 0, &drv);
	if (ret)
		return ret;
	return xrxe_modify_qp_drv(qp, attr, attr_mask & ~IBV_QP_RATE_LIMIT, &drv);
}

int xrxe_modify_qp_rate_limit(struct ibv_qp *qp,
			      struct ibv_qp_rate_limit_attr *attr)
{
	struct xrxe_modify_qp_cmd drv = {};
	int ret;

	if (attr->comp_mask)
		return EINVAL;
	ret = rate_limit_drv(qp, attr->rate_limit, attr->max_burst_sz,
			     attr->typical_pkt_sz, &drv);
	if (ret)
		return ret;
	return xrxe_modify_qp_drv_only(qp, &drv);
}

int xrxe_destroy_qp(struct ibv_qp *ibqp)
{
	struct xrxe_qp *qp = to_xrxe_qp(ibqp);
	struct xrxe_obj_mem mem = qp->mem;
	int ret;

	ret = ibv_cmd_destroy_qp(ibqp);
	if (ret)
		return ret;
	/* The kernel took it out of its flush domain. */
	xrxe_qp_left_flush_domain(qp);
	qp_clean_cqs(ibqp);
	xrxe_ring_unmap(&qp->rq.ring);
	xrxe_ring_unmap(&qp->sq.ring);
	dbl_unmap(qp);
	pthread_spin_destroy(&qp->rq.lock);
	pthread_spin_destroy(&qp->sq.lock);
	xrxe_obj_free(qp, &mem);
	return 0;
}
