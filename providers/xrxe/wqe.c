// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <string.h>

#include "wqe.h"

int xrxe_opcode_valid(enum ibv_qp_type qp_type, enum ibv_wr_opcode opcode)
{
	switch (opcode) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		return qp_type == IBV_QPT_RC || qp_type == IBV_QPT_UC ||
		       qp_type == IBV_QPT_UD;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_LOCAL_INV:
	case IBV_WR_BIND_MW:
		return qp_type == IBV_QPT_RC || qp_type == IBV_QPT_UC;
	case IBV_WR_RDMA_READ:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
	case IBV_WR_ATOMIC_WRITE:
		return qp_type == IBV_QPT_RC;
	default:
		return 0;
	}
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

int xrxe_encode_send(const struct ibv_send_wr *wr, const struct xrxe_sq_limits *lim,
		     uint32_t ah_num, struct rxe_send_wqe *wqe)
{
	int inl = !!(wr->send_flags & IBV_SEND_INLINE);
	uint64_t length;
	uint8_t *p;
	int i;

	/* Atomic write carries its 8 bytes in the WQE: only ibv_wr_atomic_write(). */
	if (!xrxe_opcode_valid(lim->qp_type, wr->opcode) ||
	    wr->opcode == IBV_WR_ATOMIC_WRITE)
		return EINVAL;
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > lim->max_sge)
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

	memset(wqe, 0, sizeof(*wqe));
	wqe->wr.wr_id = wr->wr_id;
	wqe->wr.opcode = wr->opcode;
	wqe->wr.send_flags = wr->send_flags;

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
	case IBV_WR_ATOMIC_WRITE:
		wqe->wr.wr.rdma.remote_addr = wr->wr.rdma.remote_addr;
		wqe->wr.wr.rdma.rkey = wr->wr.rdma.rkey;
		wqe->iova = wr->wr.rdma.remote_addr;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		wqe->wr.wr.atomic.remote_addr = wr->wr.atomic.remote_addr;
		wqe->wr.wr.atomic.compare_add = wr->wr.atomic.compare_add;
		wqe->wr.wr.atomic.swap = wr->wr.atomic.swap;
		wqe->wr.wr.atomic.rkey = wr->wr.atomic.rkey;
		wqe->iova = wr->wr.atomic.remote_addr;
		break;
	case IBV_WR_BIND_MW:
		wqe->wr.wr.mw.addr = wr->bind_mw.bind_info.addr;
		wqe->wr.wr.mw.length = wr->bind_mw.bind_info.length;
		wqe->wr.wr.mw.mr_lkey = wr->bind_mw.bind_info.mr ?
					wr->bind_mw.bind_info.mr->lkey : 0;
		wqe->wr.wr.mw.mw_rkey = wr->bind_mw.mw ? wr->bind_mw.mw->rkey : 0;
		wqe->wr.wr.mw.rkey = wr->bind_mw.rkey;
		wqe->wr.wr.mw.access = wr->bind_mw.bind_info.mw_access_flags;
		break;
	default:
		break;
	}

	if (lim->qp_type == IBV_QPT_UD) {
		wqe->wr.wr.ud.remote_qpn = wr->wr.ud.remote_qpn;
		wqe->wr.wr.ud.remote_qkey = wr->wr.ud.remote_qkey;
		wqe->wr.wr.ud.ah_num = ah_num;
	}

	if (inl) {
		p = wqe->dma.inline_data;
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(p, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			p += wr->sg_list[i].length;
		}
		set_dma(&wqe->dma, length, 0);
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
