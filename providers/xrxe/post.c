// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libxrxe posting: ibv_post_send and ibv_post_recv, the receive loop SRQs
 * share, and the send queue's slots and doorbell, classic or doorbell-less,
 * which the ibv_wr_* API (wr.c) uses too.
 */
#include <errno.h>

#include "xrxe.h"

/*
 * Doorbell: an empty post_send makes the kernel look at the send queue.
 * Called without sq->lock, which counted it in the QP's doorbells.
 */
int xrxe_sq_doorbell(struct xrxe_qp *qp)
{
	struct ibv_send_wr *bad;

	return ibv_cmd_post_send(&qp->vqp.qp, NULL, &bad);
}

struct rxe_send_wqe *xrxe_sq_peek(struct xrxe_qp *qp)
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

/* Classic: rxe's masked index. Doorbell-less: a free-running one. */
void xrxe_sq_advance(struct xrxe_qp *qp)
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
 * Under sq->lock, after publishing the slots from start: what the post
 * must do once it lets go of the lock. The classic queue always rings; a
 * doorbell-less one only when the engine asked for it (or the QP is told
 * to ring always). A post of one WQE may send it in the doorbell instead
 * (ll.h), which then serves as the doorbell; the QP's one command buffer
 * is the post's until the command returns, and a post that finds it in
 * use rings plainly.
 */
static enum xrxe_sq_kick sq_choose_kick(struct xrxe_qp *qp, uint32_t start)
{
	bool need;

	if (qp->dbl.ring) {
		need = xrxe_dbl_need_doorbell(&qp->dbl) || qp->dbl_always_ring;
		if (qp->ll_cmd && !qp->ll_cmd_busy &&
		    qp->sq.producer - start == 1 &&
		    xrxe_ll_qualifies(&xrxe_dbl_slot(&qp->dbl, start)->wqe) &&
		    xrxe_ll_choose(&qp->ll, need,
				   xrxe_dbl_fetched(&qp->dbl) == start)) {
			qp->ll_cmd_len = xrxe_ll_cmd_fill(qp->ll_cmd, start,
					&xrxe_dbl_slot(&qp->dbl, start)->wqe);
			qp->ll_cmd_busy = true;
			qp->ll_posts++;
			return XRXE_SQ_KICK_LL;
		}
		if (!need) {
			qp->doorbells_avoided++;
			return XRXE_SQ_KICK_NONE;
		}
	}
	qp->doorbells++;
	return XRXE_SQ_KICK_DOORBELL;
}

/*
 * Under sq->lock: make the slots from start to the producer visible to
 * the kernel, and say how to tell it, which xrxe_sq_kick() does after the
 * lock is let go: the system call may run the requester, and the QP's
 * other posters must not spin behind it.
 */
enum xrxe_sq_kick xrxe_sq_submit(struct xrxe_qp *qp, uint32_t start)
{
	sq_publish(qp, start);
	return sq_choose_kick(qp, start);
}

/* Without sq->lock: do what xrxe_sq_submit() said. */
int xrxe_sq_kick(struct xrxe_qp *qp, enum xrxe_sq_kick kick)
{
	switch (kick) {
	case XRXE_SQ_KICK_DOORBELL:
		return xrxe_sq_doorbell(qp);
	case XRXE_SQ_KICK_LL:
		return xrxe_ll_post(qp);
	default:
		return 0;
	}
}

static void sq_limits(const struct xrxe_qp *qp, struct xrxe_sq_limits *lim)
{
	lim->qp_type = qp->vqp.qp.qp_type;
	lim->max_sge = qp->sq.max_sge;
	lim->max_inline = qp->sq.max_inline;
	lim->domain_flush = qp->domain_flush_ok;
}

int xrxe_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr)
{
	struct xrxe_qp *qp = to_xrxe_qp(ibqp);
	struct xrxe_wq *sq = &qp->sq;
	struct xrxe_sq_limits lim;
	struct rxe_send_wqe *wqe;
	enum xrxe_sq_kick kick;
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
		wqe = xrxe_sq_peek(qp);
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
		xrxe_sq_advance(qp);
	}
	if (ret)
		*bad_wr = wr;
	/* The WRs before a bad one are posted, as ibv_post_send(3) says. */
	if (sq->producer == start) {
		pthread_spin_unlock(&sq->lock);
		return ret;
	}
	kick = xrxe_sq_submit(qp, start);
	pthread_spin_unlock(&sq->lock);
	err = xrxe_sq_kick(qp, kick);
	return ret ? ret : err;
}

static int post_one_recv(struct xrxe_wq *rq, struct ibv_recv_wr *wr)
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

int xrxe_post_recv_list(struct xrxe_wq *rq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr)
{
	int ret = 0;

	pthread_spin_lock(&rq->lock);
	for (; wr; wr = wr->next) {
		ret = post_one_recv(rq, wr);
		if (ret) {
			*bad_wr = wr;
			break;
		}
	}
	xrxe_store_producer(&rq->ring, rq->producer);
	pthread_spin_unlock(&rq->lock);
	return ret;
}

int xrxe_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr)
{
	struct xrxe_qp *qp = to_xrxe_qp(ibqp);

	*bad_wr = NULL;
	if (!qp->rq.ring.buf) {
		/* The QP receives through its SRQ. */
		*bad_wr = wr;
		return EINVAL;
	}
	/* A QP in RESET does not take receives (IBA C10-97.2.1). */
	if (ibqp->state == IBV_QPS_RESET) {
		*bad_wr = wr;
		return EINVAL;
	}
	return xrxe_post_recv_list(&qp->rq, wr, bad_wr);
}
