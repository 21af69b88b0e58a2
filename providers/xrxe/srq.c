// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libxrxe shared receive queues. */
#include <errno.h>

#include "xrxe.h"

enum {
	XRXE_SRQ_COMP_MASK = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_CQ,
};

struct xrxe_create_srq_resp {
	struct ib_uverbs_create_srq_resp ibv_resp;
	struct rxe_create_srq_resp drv;
};

struct xrxe_modify_srq {
	struct ibv_modify_srq ibv_cmd;
	struct rxe_modify_srq_cmd drv;
};

static struct xrxe_srq *srq_finish(struct ibv_context *ctx, struct xrxe_srq *srq,
				   const struct ibv_srq_attr *attr,
				   const struct xrxe_create_srq_resp *resp)
{
	int ret = xrxe_wq_map(ctx, &srq->rq, &resp->drv.mi,
			      sizeof(struct rxe_recv_wqe));

	if (ret) {
		ibv_cmd_destroy_srq(&srq->vsrq.srq);
		xrxe_obj_free(srq, &srq->mem);
		errno = ret;
		return NULL;
	}
	srq->rq.max_sge = attr->max_sge;
	pthread_spin_init(&srq->rq.lock, PTHREAD_PROCESS_PRIVATE);
	return srq;
}

struct ibv_srq *xrxe_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	struct xrxe_create_srq_resp resp = {};
	struct ibv_create_srq cmd = {};
	struct xrxe_obj_mem mem;
	struct xrxe_srq *srq;
	int ret;

	srq = xrxe_obj_alloc(pd, sizeof(*srq), XRXE_RES_TYPE_SRQ, &mem);
	if (!srq)
		return NULL;
	srq->mem = mem;
	ret = ibv_cmd_create_srq(xrxe_real_pd(pd), &srq->vsrq.srq, attr, &cmd,
				 sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (ret) {
		xrxe_obj_free(srq, &mem);
		errno = ret;
		return NULL;
	}
	srq->vsrq.srq.pd = pd;
	srq = srq_finish(pd->context, srq, &attr->attr, &resp);
	return srq ? &srq->vsrq.srq : NULL;
}

struct ibv_srq *xrxe_create_srq_ex(struct ibv_context *context,
				   struct ibv_srq_init_attr_ex *attr)
{
	struct xrxe_create_srq_resp resp = {};
	struct ibv_create_xsrq cmd = {};
	struct ibv_pd *user_pd = attr->pd;
	struct xrxe_obj_mem mem;
	struct xrxe_srq *srq;
	int ret;

	if (attr->comp_mask & ~XRXE_SRQ_COMP_MASK ||
	    !(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd) {
		verbs_err(to_verbs_ctx(context),
			  "comp_mask %#x: unknown bits, or no PD\n", attr->comp_mask);
		errno = EINVAL;
		return NULL;
	}
	/* rxe has basic SRQs only: no XRC, no tag matching. */
	if ((attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) &&
	    attr->srq_type != IBV_SRQT_BASIC) {
		verbs_err(to_verbs_ctx(context),
			  "SRQ type %d is not supported: basic is\n", attr->srq_type);
		errno = EOPNOTSUPP;
		return NULL;
	}

	srq = xrxe_obj_alloc(user_pd, sizeof(*srq), XRXE_RES_TYPE_SRQ, &mem);
	if (!srq)
		return NULL;
	srq->mem = mem;
	attr->pd = xrxe_real_pd(user_pd);
	ret = ibv_cmd_create_srq_ex(context, &srq->vsrq, attr, &cmd, sizeof(cmd),
				    &resp.ibv_resp, sizeof(resp));
	attr->pd = user_pd;
	if (ret) {
		xrxe_obj_free(srq, &mem);
		errno = ret;
		return NULL;
	}
	srq->vsrq.srq.pd = user_pd;
	srq = srq_finish(context, srq, &attr->attr, &resp);
	return srq ? &srq->vsrq.srq : NULL;
}

int xrxe_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr, int attr_mask)
{
	struct xrxe_srq *srq = to_xrxe_srq(ibsrq);
	struct xrxe_modify_srq cmd = {};
	struct mminfo mi = {};
	int ret;

	/* A resize moves the ring: the kernel tells where into mi. */
	if (attr_mask & IBV_SRQ_MAX_WR)
		cmd.drv.mmap_info_addr = (uintptr_t)&mi;

	pthread_spin_lock(&srq->rq.lock);
	ret = ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd.ibv_cmd, sizeof(cmd));
	if (!ret && (attr_mask & IBV_SRQ_MAX_WR))
		ret = xrxe_wq_map(ibsrq->context, &srq->rq, &mi,
				  sizeof(struct rxe_recv_wqe));
	pthread_spin_unlock(&srq->rq.lock);
	return ret;
}

int xrxe_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd;

	return ibv_cmd_query_srq(srq, attr, &cmd, sizeof(cmd));
}

int xrxe_destroy_srq(struct ibv_srq *ibsrq)
{
	struct xrxe_srq *srq = to_xrxe_srq(ibsrq);
	struct xrxe_obj_mem mem = srq->mem;
	int ret;

	ret = ibv_cmd_destroy_srq(ibsrq);
	if (ret)
		return ret;
	xrxe_ring_unmap(&srq->rq.ring);
	pthread_spin_destroy(&srq->rq.lock);
	xrxe_obj_free(srq, &mem);
	return 0;
}

int xrxe_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr)
{
	*bad_wr = NULL;
	return xrxe_post_recv_list(&to_xrxe_srq(ibsrq)->rq, wr, bad_wr);
}
