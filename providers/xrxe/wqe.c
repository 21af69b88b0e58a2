// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* WQE encoding: the rules both post paths (post.c, wr.c) share. */
#include <errno.h>
#include <string.h>

#include <infiniband/xrxedv.h>

#include "wqe.h"

enum {
	QPT_RC = 1 << 0,
	QPT_UC = 1 << 1,
	QPT_UD = 1 << 2,
};

/* Every opcode a QP may post: the QP types that may, its ibv_wr_* flag. */
static const struct {
	enum ibv_wr_opcode opcode;
	uint64_t send_op;
	unsigned int qp_types;
} opcodes[] = {
	{ IBV_WR_SEND, IBV_QP_EX_WITH_SEND, QPT_RC | QPT_UC | QPT_UD },
	{ IBV_WR_SEND_WITH_IMM, IBV_QP_EX_WITH_SEND_WITH_IMM,
	  QPT_RC | QPT_UC | QPT_UD },
	{ IBV_WR_RDMA_WRITE, IBV_QP_EX_WITH_RDMA_WRITE, QPT_RC | QPT_UC },
	{ IBV_WR_RDMA_WRITE_WITH_IMM, IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM,
	  QPT_RC | QPT_UC },
	{ IBV_WR_SEND_WITH_INV, IBV_QP_EX_WITH_SEND_WITH_INV, QPT_RC | QPT_UC },
	{ IBV_WR_LOCAL_INV, IBV_QP_EX_WITH_LOCAL_INV, QPT_RC | QPT_UC },
	{ IBV_WR_BIND_MW, IBV_QP_EX_WITH_BIND_MW, QPT_RC | QPT_UC },
	{ IBV_WR_RDMA_READ, IBV_QP_EX_WITH_RDMA_READ, QPT_RC },
	{ IBV_WR_ATOMIC_CMP_AND_SWP, IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP, QPT_RC },
	{ IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD, QPT_RC },
	{ IBV_WR_ATOMIC_WRITE, IBV_QP_EX_WITH_ATOMIC_WRITE, QPT_RC },
	{ (enum ibv_wr_opcode)XRXEDV_WR_FLUSH, XRXEDV_QP_EX_WITH_FLUSH, QPT_RC },
};

static unsigned int qpt_bit(enum ibv_qp_type qp_type)
{
	switch (qp_type) {
	case IBV_QPT_RC:
		return QPT_RC;
	case IBV_QPT_UC:
		return QPT_UC;
	case IBV_QPT_UD:
		return QPT_UD;
	default:
		return 0;
	}
}

int xrxe_opcode_valid(enum ibv_qp_type qp_type, enum ibv_wr_opcode opcode)
{
	size_t i;

	for (i = 0; i < sizeof(opcodes) / sizeof(opcodes[0]); i++)
		if (opcodes[i].opcode == opcode)
			return !!(opcodes[i].qp_types & qpt_bit(qp_type));
	return 0;
}

uint64_t xrxe_send_ops(enum ibv_qp_type qp_type)
{
	uint64_t ops = 0;
	size_t i;

	for (i = 0; i < sizeof(opcodes) / sizeof(opcodes[0]); i++)
		if (opcodes[i].qp_types & qpt_bit(qp_type))
			ops |= opcodes[i].send_op;
	return ops;
}

static int opcode_carries_data(enum ibv_wr_opcode opcode)
{
	return opcode == IBV_WR_SEND || opcode == IBV_WR_SEND_WITH_IMM ||
	       opcode == IBV_WR_SEND_WITH_INV || opcode == IBV_WR_RDMA_WRITE ||
	       opcode == IBV_WR_RDMA_WRITE_WITH_IMM;
}

static int is_atomic(enum ibv_wr_opcode opcode)
{
	return opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
	       opcode == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

static uint64_t sge_total(const struct ibv_sge *sg, size_t n)
{
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < n; i++)
		total += sg[i].length;
	return total;
}

static void set_dma(struct rxe_dma_info *dma, uint32_t length, uint32_t num_sge)
{
	dma->length = length;
	dma->resid = length;
	dma->cur_sge = 0;
	dma->num_sge = num_sge;
	dma->sge_offset = 0;
	dma->reserved = 0;
}

int xrxe_dma_set_sges(struct rxe_dma_info *dma, const struct ibv_sge *sg, size_t n)
{
	uint64_t length = sge_total(sg, n);
	size_t i;

	if (length > UINT32_MAX)
		return EINVAL;
	for (i = 0; i < n; i++) {
		dma->sge[i].addr = sg[i].addr;
		dma->sge[i].length = sg[i].length;
		dma->sge[i].lkey = sg[i].lkey;
	}
	set_dma(dma, length, n);
	return 0;
}

void xrxe_wqe_init(struct rxe_send_wqe *wqe, uint64_t wr_id,
		   enum ibv_wr_opcode opcode, unsigned int send_flags)
{
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr.wr_id = wr_id;
	wqe->wr.opcode = opcode;
	wqe->wr.send_flags = send_flags;
}

void xrxe_wqe_set_rdma(struct rxe_send_wqe *wqe, uint32_t rkey, uint64_t remote_addr)
{
	wqe->wr.wr.rdma.remote_addr = remote_addr;
	wqe->wr.wr.rdma.rkey = rkey;
	wqe->iova = remote_addr;
}

void xrxe_wqe_set_atomic(struct rxe_send_wqe *wqe, uint32_t rkey,
			 uint64_t remote_addr, uint64_t compare_add, uint64_t swap)
{
	wqe->wr.wr.atomic.remote_addr = remote_addr;
	wqe->wr.wr.atomic.compare_add = compare_add;
	wqe->wr.wr.atomic.swap = swap;
	wqe->wr.wr.atomic.rkey = rkey;
	wqe->iova = remote_addr;
}

void xrxe_wqe_set_atomic_write(struct rxe_send_wqe *wqe, uint32_t rkey,
			       uint64_t remote_addr, const void *data)
{
	xrxe_wqe_set_rdma(wqe, rkey, remote_addr);
	memcpy(wqe->dma.atomic_wr, data, 8);
	wqe->dma.length = 8;
	wqe->dma.resid = 8;
}

void xrxe_wqe_set_bind_mw(struct rxe_send_wqe *wqe, uint32_t mw_rkey, uint32_t rkey,
			  const struct ibv_mw_bind_info *info)
{
	wqe->wr.wr.mw.addr = info->addr;
	wqe->wr.wr.mw.length = info->length;
	wqe->wr.wr.mw.mr_lkey = info->mr ? info->mr->lkey : 0;
	wqe->wr.wr.mw.mw_rkey = mw_rkey;
	wqe->wr.wr.mw.rkey = rkey;
	wqe->wr.wr.mw.access = info->mw_access_flags;
}

void xrxe_wqe_set_flush(struct rxe_send_wqe *wqe, uint32_t rkey, uint64_t remote_addr,
			uint32_t length, uint8_t type, uint8_t level)
{
	wqe->wr.wr.flush.remote_addr = remote_addr;
	wqe->wr.wr.flush.length = length;
	wqe->wr.wr.flush.rkey = rkey;
	wqe->wr.wr.flush.type = type;
	wqe->wr.wr.flush.level = level;
	/* A classic queue's requester reads the range from dma and iova. */
	wqe->iova = remote_addr;
	set_dma(&wqe->dma, length, 0);
}

void xrxe_wqe_set_ud(struct rxe_send_wqe *wqe, uint32_t remote_qpn,
		     uint32_t remote_qkey, uint32_t ah_num)
{
	wqe->wr.wr.ud.remote_qpn = remote_qpn;
	wqe->wr.wr.ud.remote_qkey = remote_qkey;
	wqe->wr.wr.ud.ah_num = ah_num;
}

void xrxe_wqe_set_inline(struct rxe_send_wqe *wqe, uint32_t length)
{
	/* The kernel tells inline payload from SGEs by this flag. */
	wqe->wr.send_flags |= IBV_SEND_INLINE;
	set_dma(&wqe->dma, length, 0);
}

int xrxe_encode_send(const struct ibv_send_wr *wr, const struct xrxe_sq_limits *lim,
		     uint32_t ah_num, struct rxe_send_wqe *wqe)
{
	int inl = !!(wr->send_flags & IBV_SEND_INLINE);
	uint64_t length;
	uint8_t *p;
	int i;

	/*
	 * Atomic write carries its 8 bytes in the WQE, flush its type and
	 * level: only their ibv_wr_* builders can say so.
	 */
	if (!xrxe_opcode_valid(lim->qp_type, wr->opcode) ||
	    wr->opcode == IBV_WR_ATOMIC_WRITE ||
	    wr->opcode == (enum ibv_wr_opcode)XRXEDV_WR_FLUSH)
		return EINVAL;
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > lim->max_sge)
		return EINVAL;
	if ((wr->send_flags & XRXEDV_SEND_DOMAIN_FLUSH) && !lim->domain_flush)
		return EINVAL;
	if (wr->num_sge && !wr->sg_list)
		return EINVAL;
	length = sge_total(wr->sg_list, wr->num_sge);
	if (inl && (!opcode_carries_data(wr->opcode) || length > lim->max_inline))
		return EINVAL;
	if (is_atomic(wr->opcode) && (wr->num_sge != 1 || length != 8))
		return EINVAL;
	if (lim->qp_type == IBV_QPT_UD && !ah_num)
		return EINVAL;
	if (length > UINT32_MAX)
		return EINVAL;

	xrxe_wqe_init(wqe, wr->wr_id, wr->opcode, wr->send_flags);

	switch (wr->opcode) {
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		wqe->wr.ex.imm_data = wr->imm_data;
		break;
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_LOCAL_INV:
		wqe->wr.ex.invalidate_rkey = wr->invalidate_rkey;
		break;
	default:
		break;
	}

	switch (wr->opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
		xrxe_wqe_set_rdma(wqe, wr->wr.rdma.rkey, wr->wr.rdma.remote_addr);
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		xrxe_wqe_set_atomic(wqe, wr->wr.atomic.rkey, wr->wr.atomic.remote_addr,
				    wr->wr.atomic.compare_add, wr->wr.atomic.swap);
		break;
	case IBV_WR_BIND_MW:
		xrxe_wqe_set_bind_mw(wqe, wr->bind_mw.mw ? wr->bind_mw.mw->rkey : 0,
				     wr->bind_mw.rkey, &wr->bind_mw.bind_info);
		break;
	default:
		break;
	}

	if (lim->qp_type == IBV_QPT_UD)
		xrxe_wqe_set_ud(wqe, wr->wr.ud.remote_qpn, wr->wr.ud.remote_qkey, ah_num);

	if (inl) {
		p = wqe->dma.inline_data;
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(p, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			p += wr->sg_list[i].length;
		}
		xrxe_wqe_set_inline(wqe, length);
		return 0;
	}
	return xrxe_dma_set_sges(&wqe->dma, wr->sg_list, wr->num_sge);
}

int xrxe_encode_recv(const struct ibv_recv_wr *wr, uint32_t max_sge,
		     struct rxe_recv_wqe *wqe)
{
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > max_sge)
		return EINVAL;
	if (wr->num_sge && !wr->sg_list)
		return EINVAL;
	if (sge_total(wr->sg_list, wr->num_sge) > UINT32_MAX)
		return EINVAL;

	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr->wr_id;
	return xrxe_dma_set_sges(&wqe->dma, wr->sg_list, wr->num_sge);
}
