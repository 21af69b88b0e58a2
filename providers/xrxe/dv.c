// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libxrxe direct verbs (infiniband/xrxedv.h).
 */
#include <errno.h>

#include <infiniband/xrxedv.h>

#include "xrxe.h"

#define XRXEDV_EXPORT __attribute__((visibility("default")))

/* qp if it is ours and its send queue is doorbell-less, else NULL. */
static struct xrxe_qp *dbl_qp(struct ibv_qp *ibqp)
{
	struct xrxe_qp *qp;

	if (!ibqp || ibqp->context->ops.post_send != xrxe_post_send)
		return NULL;
	qp = to_xrxe_qp(ibqp);
	return qp->dbl.ring ? qp : NULL;
}

XRXEDV_EXPORT
int xrxedv_qp_set_doorbell_mode(struct ibv_qp *ibqp, enum xrxedv_doorbell_mode mode)
{
	struct xrxe_qp *qp = dbl_qp(ibqp);

	if (!qp)
		return EOPNOTSUPP;
	if (mode != XRXEDV_DOORBELL_AUTO && mode != XRXEDV_DOORBELL_ALWAYS)
		return EINVAL;
	pthread_spin_lock(&qp->sq.lock);
	qp->dbl_always_ring = mode == XRXEDV_DOORBELL_ALWAYS;
	pthread_spin_unlock(&qp->sq.lock);
	return 0;
}

XRXEDV_EXPORT
int xrxedv_qp_set_engine_idle(struct ibv_qp *ibqp, int32_t idle_us)
{
	struct {
		struct ibv_modify_qp ibv_cmd;
		struct xrxe_modify_qp_cmd drv;
	} cmd = {};
	struct ibv_qp_attr attr = {};

	if (!dbl_qp(ibqp))
		return EOPNOTSUPP;
	if (idle_us < -1 || idle_us > XRXEDV_MAX_ENGINE_IDLE_US)
		return EINVAL;
	cmd.drv.comp_mask = XRXE_MODIFY_QP_ENGINE_IDLE;
	cmd.drv.engine_idle_us = idle_us;
	/* No standard attribute: the driver data is the whole request. */
	return ibv_cmd_modify_qp(ibqp, &attr, 0, &cmd.ibv_cmd, sizeof(cmd));
}

XRXEDV_EXPORT
int xrxedv_qp_set_ll_mode(struct ibv_qp *ibqp, enum xrxedv_ll_mode mode)
{
	struct xrxe_qp *qp = dbl_qp(ibqp);

	if (!qp || !qp->ll_cmd)
		return EOPNOTSUPP;
	if (mode != XRXEDV_LL_IDLE && mode != XRXEDV_LL_ALWAYS &&
	    mode != XRXEDV_LL_NEVER)
		return EINVAL;
	pthread_spin_lock(&qp->sq.lock);
	qp->ll.mode = mode;
	qp->ll.backoff = 0;
	qp->ll.skip = 0;
	pthread_spin_unlock(&qp->sq.lock);
	return 0;
}

XRXEDV_EXPORT
int xrxedv_query_qp_counters(struct ibv_qp *ibqp, struct xrxedv_qp_counters *c)
{
	struct xrxe_qp *qp = dbl_qp(ibqp);
	const __u64 *k;

	if (!qp)
		return EOPNOTSUPP;
	pthread_spin_lock(&qp->sq.lock);
	c->doorbells = qp->doorbells;
	c->doorbells_avoided = qp->doorbells_avoided;
	c->ll_posts = qp->ll_posts;
	c->ll_accepted = qp->ll_accepted;
	c->ll_dropped = qp->ll_dropped;
	c->ll_errors = qp->ll_errors;
	pthread_spin_unlock(&qp->sq.lock);
	k = qp->dbl.status->counters;
	c->kernel_doorbells = __atomic_load_n(&k[XRXE_QP_DOORBELLS], __ATOMIC_RELAXED);
	c->engine_wakeups = __atomic_load_n(&k[XRXE_QP_WAKEUPS], __ATOMIC_RELAXED);
	c->wqes_fetched = __atomic_load_n(&k[XRXE_QP_FETCHED], __ATOMIC_RELAXED);
	c->busy_poll_hits = __atomic_load_n(&k[XRXE_QP_BUSY_POLL_HITS], __ATOMIC_RELAXED);
	c->wqes_rejected = __atomic_load_n(&k[XRXE_QP_REJECTED], __ATOMIC_RELAXED);
	c->kernel_ll_posts = __atomic_load_n(&k[XRXE_QP_LL_POSTS], __ATOMIC_RELAXED);
	c->kernel_ll_accepted = __atomic_load_n(&k[XRXE_QP_LL_ACCEPTED], __ATOMIC_RELAXED);
	c->kernel_ll_dropped_order =
		__atomic_load_n(&k[XRXE_QP_LL_DROPPED_ORDER], __ATOMIC_RELAXED);
	c->kernel_ll_dropped_busy =
		__atomic_load_n(&k[XRXE_QP_LL_DROPPED_BUSY], __ATOMIC_RELAXED);
	c->kernel_ll_dropped_full =
		__atomic_load_n(&k[XRXE_QP_LL_DROPPED_FULL], __ATOMIC_RELAXED);
	c->kernel_ll_dropped_state =
		__atomic_load_n(&k[XRXE_QP_LL_DROPPED_STATE], __ATOMIC_RELAXED);
	c->kernel_ll_dropped_forced =
		__atomic_load_n(&k[XRXE_QP_LL_DROPPED_FORCED], __ATOMIC_RELAXED);
	c->kernel_ll_rejected = __atomic_load_n(&k[XRXE_QP_LL_REJECTED], __ATOMIC_RELAXED);
	c->engine_turns = __atomic_load_n(&k[XRXE_QP_TURNS], __ATOMIC_RELAXED);
	return 0;
}

XRXEDV_EXPORT
int xrxedv_query_sq(struct ibv_qp *ibqp, struct xrxedv_sq_info *info)
{
	struct xrxe_qp *qp = dbl_qp(ibqp);

	if (!qp)
		return EOPNOTSUPP;
	info->ring = qp->dbl.ring;
	info->log2_slots = qp->dbl.log2_slots;
	info->log2_slot_size = qp->dbl.log2_slot_size;
	info->status = qp->dbl.status;
	return 0;
}
