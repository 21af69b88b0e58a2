/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Low-latency posting: which posts send their WQE in the doorbell system
 * call (struct xrxe_ll_cmd) instead of a bare doorbell. Pure: no device,
 * no locks, so it is unit tested on its own.
 *
 * The choice is speculative: the kernel takes the command only if its WQE
 * is the next in ring order and no engine is serving the QP, and drops it
 * otherwise (the ring slot, always written too, is then used). In mode
 * idle a post sends a command when it must ring anyway (the engine asked
 * for a doorbell) and the ring held nothing else; after a drop the next
 * posts back off, doubling up to XRXE_LL_MAX_BACKOFF, until one is taken.
 */
#ifndef XRXE_LL_H
#define XRXE_LL_H

#include <stdbool.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <infiniband/xrxedv.h>
#include <rdma/rdma_user_rxe.h>

/* Payload of a non-inline WQE small enough to qualify, in one SGE. */
#define XRXE_LL_MAX_SGE_BYTES	256
#define XRXE_LL_MAX_BACKOFF	64

struct xrxe_ll_state {
	enum xrxedv_ll_mode mode;
	uint32_t backoff;	/* posts to skip after the next drop */
	uint32_t skip;		/* posts left to skip */
};

/*
 * Whether a WQE may travel in a command: sends, RDMA writes and reads,
 * with inline data or at most one SGE of at most XRXE_LL_MAX_SGE_BYTES.
 */
static inline bool xrxe_ll_qualifies(const struct rxe_send_wqe *wqe)
{
	switch (wqe->wr.opcode) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
		break;
	default:
		return false;
	}
	if (wqe->wr.send_flags & IBV_SEND_INLINE)
		return true;
	return wqe->dma.num_sge <= 1 && wqe->dma.length <= XRXE_LL_MAX_SGE_BYTES;
}

/* Bytes of SGEs or inline data that follow the WQE in its command. */
static inline uint32_t xrxe_ll_payload(const struct rxe_send_wqe *wqe)
{
	if (wqe->wr.send_flags & IBV_SEND_INLINE)
		return wqe->dma.length;
	return wqe->dma.num_sge * sizeof(struct rxe_sge);
}

/*
 * For a post of one qualifying WQE: send it as a command? need_doorbell:
 * the engine asked for a doorbell; ring_empty: the kernel had taken every
 * earlier WQE, so this one is next in ring order.
 */
static inline bool xrxe_ll_choose(struct xrxe_ll_state *s, bool need_doorbell,
				  bool ring_empty)
{
	switch (s->mode) {
	case XRXEDV_LL_ALWAYS:
		return true;
	case XRXEDV_LL_IDLE:
		if (!need_doorbell || !ring_empty)
			return false;
		if (s->skip) {
			s->skip--;
			return false;
		}
		return true;
	default:
		return false;
	}
}

/* What the kernel did with a command: taken, or dropped (or refused). */
static inline void xrxe_ll_outcome(struct xrxe_ll_state *s, bool accepted)
{
	if (accepted) {
		s->backoff = 0;
		s->skip = 0;
		return;
	}
	s->backoff = s->backoff ? s->backoff * 2 : 1;
	if (s->backoff > XRXE_LL_MAX_BACKOFF)
		s->backoff = XRXE_LL_MAX_BACKOFF;
	s->skip = s->backoff;
}

#endif /* XRXE_LL_H */
