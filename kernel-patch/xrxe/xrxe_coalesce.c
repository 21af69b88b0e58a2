// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Write coalescing of doorbell-less send queues: RDMA WRITEs queued behind
 * one that starts, to the remote bytes that follow it, go in its message.
 *
 * The merged WQEs keep their own entries in the kernel send queue, marked
 * done: the requester skips them, and the completer completes them after
 * the message's first WQE, in order, as it does local operations. That
 * first WQE carries the message: dma.length and dma.resid count every
 * merged byte, so a retry resends the same message, and two of its fields
 * no WQE of a doorbell-less queue otherwise uses (the copy's, zeroed by
 * xrxe_sq_validate()) say what it carries.
 */

#include "rxe.h"
#include "rxe_loc.h"
#include "rxe_queue.h"
#include "xrxe_policy.h"

/* WQEs after wqe whose data its message carries. */
static u32 *merged_wqes(struct rxe_send_wqe *wqe)
{
	return &wqe->wr.reserved;
}

/* wqe's own length, once it carries others. */
static u32 *own_length(struct rxe_send_wqe *wqe)
{
	return &wqe->wr.wr.rdma.reserved;
}

/*
 * WQEs after wqe whose data its message carries: none but on a doorbell-
 * less queue, whose entries are the kernel's copies (a classic user
 * queue's are the user's to write).
 */
u32 xrxe_coalesce_merged(struct rxe_qp *qp, struct rxe_send_wqe *wqe)
{
	return qp->dbl && wqe->wr.opcode == IB_WR_RDMA_WRITE ?
	       *merged_wqes(wqe) : 0;
}

/* The length wqe's completion reports: its own. */
u32 xrxe_coalesce_own_length(struct rxe_qp *qp, struct rxe_send_wqe *wqe)
{
	return xrxe_coalesce_merged(qp, wqe) ? *own_length(wqe) :
					       wqe->dma.length;
}

/* Whether qp's next packet starts a PSN it never sent: not a retry. */
static bool req_sends_new(struct rxe_qp *qp)
{
	return psn_compare(qp->req.psn, qp->req.fresh_psn) >= 0;
}

/* Note that qp's requester sent up to the PSN before its next one. */
void xrxe_coalesce_sent(struct rxe_qp *qp)
{
	if (req_sends_new(qp))
		qp->req.fresh_psn = qp->req.psn;
}

/*
 * Merge into wqe, the RDMA WRITE the requester is about to start, the
 * WQEs queued behind it that may join its message. Only before wqe's first
 * packet, and only with PSNs never sent: on a retry, the WQEs after it were
 * sent in messages of their own, which the responder has seen.
 */
void xrxe_coalesce(struct rxe_qp *qp, struct rxe_send_wqe *wqe)
{
	struct xrxe_dbl *d = qp->dbl;
	struct rxe_queue *q = qp->sq.queue;
	struct rxe_send_wqe *next;
	u32 max, merged, len, index, prod, added = 0;

	if (!d || wqe->wr.opcode != IB_WR_RDMA_WRITE ||
	    wqe->state != wqe_state_posted || !req_sends_new(qp) ||
	    wqe->wr.send_flags & IB_SEND_SOLICITED)
		return;
	max = min_t(u32, READ_ONCE(d->coalesce_max), qp->mtu);
	if (!max)
		return;
	merged = *merged_wqes(wqe);
	len = wqe->dma.length;
	index = (qp->req.wqe_index + 1 + merged) & q->index_mask;
	prod = queue_get_producer(q, QUEUE_TYPE_FROM_CLIENT);
	/* Bounded by the queue and by XRXE_COALESCE_MAX_WQES. */
	while (index != prod) {
		next = queue_addr_from_index(q, index);
		if (next->wr.opcode != IB_WR_RDMA_WRITE ||
		    next->state != wqe_state_posted ||
		    !xrxe_coalesce_joins(wqe->iova, len, wqe->wr.wr.rdma.rkey,
					 1 + merged + added, next->iova,
					 next->dma.length,
					 next->wr.wr.rdma.rkey,
					 !!(next->wr.send_flags &
					    (IB_SEND_FENCE | IB_SEND_SOLICITED |
					     XRXE_SEND_DOMAIN_FLUSH)),
					 max))
			break;
		next->state = wqe_state_done;
		next->status = IB_WC_SUCCESS;
		len += next->dma.length;
		added++;
		index = queue_next_index(q, index);
	}
	if (!added)
		return;
	if (!merged) {
		*own_length(wqe) = wqe->dma.length;
		xrxe_count(qp, XRXE_QP_COALESCED_MSGS, XRXE_CNT_MSGS_COALESCED);
	}
	*merged_wqes(wqe) = merged + added;
	wqe->dma.length = len;
	wqe->dma.resid = len;
	xrxe_count_add(qp, XRXE_QP_COALESCED_WQES, XRXE_CNT_WQES_COALESCED,
		       added);
}

/* Copy the data of one WQE of a merged message, whole, to dst. */
static int copy_wqe_data(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
			 u32 len, u8 *dst)
{
	if (wqe->wr.send_flags & IB_SEND_INLINE) {
		memcpy(dst, wqe->dma.inline_data, len);
		return 0;
	}
	wqe->dma.cur_sge = 0;
	wqe->dma.sge_offset = 0;
	wqe->dma.resid = len;
	return copy_data(qp->pd, 0, &wqe->dma, dst, len, RXE_FROM_MR_OBJ);
}

/*
 * Fill the payload of the packet of wqe, a merged message (one packet, of
 * payload bytes): its own data, then that of each WQE it carries.
 */
int xrxe_coalesce_copy(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
		       u8 *dst, u32 payload)
{
	struct rxe_queue *q = qp->sq.queue;
	u32 n = *merged_wqes(wqe);
	u32 index = qp->req.wqe_index;
	struct rxe_send_wqe *next;
	u32 len = *own_length(wqe);
	int err;

	/* One packet, sent whole; not so only if the path MTU shrank since. */
	if (payload != wqe->dma.length)
		return -EINVAL;
	err = copy_wqe_data(qp, wqe, len, dst);
	while (!err && n--) {
		dst += len;
		index = queue_next_index(q, index);
		next = queue_addr_from_index(q, index);
		len = next->dma.length;
		err = copy_wqe_data(qp, next, len, dst);
	}
	wqe->dma.resid = 0;
	return err;
}
