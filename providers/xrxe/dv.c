// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libxrxe direct verbs (infiniband/xrxedv.h). libxrxe.map lists the ones
 * exported, with their symbol version.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/xrxedv.h>

#include "xrxe.h"

/* The structs of the first release (XRXE_1.0): no caller has less. */
#define QP_COUNTERS_V1_SIZE	end_of(struct xrxedv_qp_counters, engine_turns)
#define SQ_INFO_V1_SIZE		end_of(struct xrxedv_sq_info, status)

/* Our size bytes of a query's answer into the caller's inlen bytes. */
static void copy_out(void *dst, uint32_t inlen, const void *src, size_t size)
{
	if (inlen <= size) {
		memcpy(dst, src, inlen);
		return;
	}
	memcpy(dst, src, size);
	/* Fields of a later xrxedv.h that this library does not fill. */
	memset((uint8_t *)dst + size, 0, inlen - size);
}

/* qp if it is ours and its send queue is doorbell-less, else NULL. */
static struct xrxe_qp *dbl_qp(struct ibv_qp *ibqp)
{
	struct xrxe_qp *qp;

	if (!ibqp || ibqp->context->ops.post_send != xrxe_post_send)
		return NULL;
	qp = to_xrxe_qp(ibqp);
	if (!qp->dbl.ring) {
		verbs_err(to_verbs_ctx(ibqp->context),
			  "QP %u has the classic send queue (XRXE_DOORBELL_LESS=0, or no engines)\n",
			  ibqp->qp_num);
		return NULL;
	}
	return qp;
}

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

int xrxedv_qp_set_engine_idle(struct ibv_qp *ibqp, int32_t idle_us)
{
	struct xrxe_modify_qp_cmd drv = {
		.comp_mask = XRXE_MODIFY_QP_ENGINE_IDLE,
		.engine_idle_us = idle_us,
	};

	if (!dbl_qp(ibqp))
		return EOPNOTSUPP;
	if (idle_us < -1 || idle_us > XRXE_MAX_ENGINE_IDLE_US)
		return EINVAL;
	return xrxe_modify_qp_drv_only(ibqp, &drv);
}

int xrxedv_qp_set_ll_mode(struct ibv_qp *ibqp, enum xrxedv_ll_mode mode)
{
	struct xrxe_qp *qp = dbl_qp(ibqp);

	if (!qp)
		return EOPNOTSUPP;
	if (!qp->ll_cmd) {
		verbs_err(to_verbs_ctx(ibqp->context),
			  "QP %u has no low-latency posting\n", ibqp->qp_num);
		return EOPNOTSUPP;
	}
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

int xrxedv_qp_set_ocu(struct ibv_qp *ibqp, enum xrxedv_ocu_mode mode,
		      uint32_t domain)
{
	struct xrxe_qp *qp = dbl_qp(ibqp);

	if (!qp)
		return EOPNOTSUPP;
	return xrxe_qp_set_ocu(qp, mode, domain);
}

int xrxedv_qp_set_coalesce(struct ibv_qp *ibqp, uint32_t max_bytes)
{
	struct xrxe_qp *qp = dbl_qp(ibqp);

	if (!qp)
		return EOPNOTSUPP;
	return xrxe_qp_set_coalesce(qp, max_bytes);
}

/* The QP's OCU and engine, from its status page if the kernel has OCUs. */
static void qp_placement(struct xrxe_qp *qp, struct xrxedv_qp_counters *c)
{
	const struct xrxe_qp_status *s = qp->dbl.status;
	const __u64 *k = s->counters;
	uint8_t engine;

	c->ocu = c->engine = XRXEDV_UNKNOWN;
	c->ocu_maps = c->ocu_remaps = 0;
	if (!(to_xrxe_ctx(qp->vqp.qp.context)->caps & XRXE_CAP_OCU))
		return;
	/* Figures, not flags: no ordering with anything else is needed. */
	c->ocu = __atomic_load_n(&s->ocu, __ATOMIC_RELAXED);
	engine = __atomic_load_n(&s->engine, __ATOMIC_RELAXED);
	if (engine != XRXE_QP_NO_ENGINE)
		c->engine = engine;
	c->ocu_maps = __atomic_load_n(&k[XRXE_QP_OCU_MAPS], __ATOMIC_RELAXED);
	c->ocu_remaps = __atomic_load_n(&k[XRXE_QP_OCU_REMAPS], __ATOMIC_RELAXED);
}

int xrxedv_query_qp_counters(struct ibv_qp *ibqp, struct xrxedv_qp_counters *out,
			     uint32_t inlen)
{
	struct xrxe_qp *qp = dbl_qp(ibqp);
	struct xrxedv_qp_counters c;
	const __u64 *k;

	if (!qp)
		return EOPNOTSUPP;
	if (inlen < QP_COUNTERS_V1_SIZE)
		return EINVAL;
	pthread_spin_lock(&qp->sq.lock);
	c.doorbells = qp->doorbells;
	c.doorbells_avoided = qp->doorbells_avoided;
	c.ll_posts = qp->ll_posts;
	c.ll_accepted = qp->ll_accepted;
	c.ll_dropped = qp->ll_dropped;
	c.ll_errors = qp->ll_errors;
	pthread_spin_unlock(&qp->sq.lock);
	/* Figures, not flags: no ordering with anything else is needed. */
	k = qp->dbl.status->counters;
	c.kernel_doorbells = __atomic_load_n(&k[XRXE_QP_DOORBELLS], __ATOMIC_RELAXED);
	c.engine_wakeups = __atomic_load_n(&k[XRXE_QP_WAKEUPS], __ATOMIC_RELAXED);
	c.wqes_fetched = __atomic_load_n(&k[XRXE_QP_FETCHED], __ATOMIC_RELAXED);
	c.busy_poll_hits = __atomic_load_n(&k[XRXE_QP_BUSY_POLL_HITS], __ATOMIC_RELAXED);
	c.wqes_rejected = __atomic_load_n(&k[XRXE_QP_REJECTED], __ATOMIC_RELAXED);
	c.kernel_ll_posts = __atomic_load_n(&k[XRXE_QP_LL_POSTS], __ATOMIC_RELAXED);
	c.kernel_ll_accepted = __atomic_load_n(&k[XRXE_QP_LL_ACCEPTED], __ATOMIC_RELAXED);
	c.kernel_ll_dropped_order =
		__atomic_load_n(&k[XRXE_QP_LL_DROPPED_ORDER], __ATOMIC_RELAXED);
	c.kernel_ll_dropped_busy =
		__atomic_load_n(&k[XRXE_QP_LL_DROPPED_BUSY], __ATOMIC_RELAXED);
	c.kernel_ll_dropped_full =
		__atomic_load_n(&k[XRXE_QP_LL_DROPPED_FULL], __ATOMIC_RELAXED);
	c.kernel_ll_dropped_state =
		__atomic_load_n(&k[XRXE_QP_LL_DROPPED_STATE], __ATOMIC_RELAXED);
	c.kernel_ll_dropped_forced =
		__atomic_load_n(&k[XRXE_QP_LL_DROPPED_FORCED], __ATOMIC_RELAXED);
	c.kernel_ll_rejected = __atomic_load_n(&k[XRXE_QP_LL_REJECTED], __ATOMIC_RELAXED);
	c.engine_turns = __atomic_load_n(&k[XRXE_QP_TURNS], __ATOMIC_RELAXED);
	c.pace_pauses = __atomic_load_n(&k[XRXE_QP_PACE_PAUSES], __ATOMIC_RELAXED);
	c.pace_wakeups = __atomic_load_n(&k[XRXE_QP_PACE_WAKEUPS], __ATOMIC_RELAXED);
	c.pace_bytes = __atomic_load_n(&k[XRXE_QP_PACE_BYTES], __ATOMIC_RELAXED);
	c.kernel_ll_dropped_paced =
		__atomic_load_n(&k[XRXE_QP_LL_DROPPED_PACED], __ATOMIC_RELAXED);
	c.pace_late_wakeups =
		__atomic_load_n(&k[XRXE_QP_PACE_LATE_WAKEUPS], __ATOMIC_RELAXED);
	c.pace_late_bytes = __atomic_load_n(&k[XRXE_QP_PACE_LATE_BYTES], __ATOMIC_RELAXED);
	c.pace_wait_us = __atomic_load_n(&k[XRXE_QP_PACE_WAIT_US], __ATOMIC_RELAXED);
	qp_placement(qp, &c);
	c.wqes_coalesced = c.msgs_coalesced = 0;
	if (to_xrxe_ctx(ibqp->context)->caps & XRXE_CAP_COALESCE) {
		c.wqes_coalesced =
			__atomic_load_n(&k[XRXE_QP_COALESCED_WQES], __ATOMIC_RELAXED);
		c.msgs_coalesced =
			__atomic_load_n(&k[XRXE_QP_COALESCED_MSGS], __ATOMIC_RELAXED);
	}
	c.domain_flushes = c.domain_wait_us = 0;
	if (to_xrxe_ctx(ibqp->context)->caps & XRXE_CAP_FLUSH_DOMAIN) {
		c.domain_flushes =
			__atomic_load_n(&k[XRXE_QP_DOMAIN_FLUSHES], __ATOMIC_RELAXED);
		c.domain_wait_us =
			__atomic_load_n(&k[XRXE_QP_DOMAIN_WAIT_US], __ATOMIC_RELAXED);
	}
	copy_out(out, inlen, &c, sizeof(c));
	return 0;
}

int xrxedv_query_sq(struct ibv_qp *ibqp, struct xrxedv_sq_info *out, uint32_t inlen)
{
	struct xrxe_qp *qp = dbl_qp(ibqp);
	struct xrxedv_sq_info info;

	if (!qp)
		return EOPNOTSUPP;
	if (inlen < SQ_INFO_V1_SIZE)
		return EINVAL;
	memset(&info, 0, sizeof(info));
	info.ring = qp->dbl.ring;
	info.log2_slots = qp->dbl.log2_slots;
	info.log2_slot_size = qp->dbl.log2_slot_size;
	info.status = qp->dbl.status;
	copy_out(out, inlen, &info, sizeof(info));
	return 0;
}

/*
 * A flush domain is a number of its context, which the kernel knows by the
 * QPs that joined it; the library hands the numbers out and counts the
 * members, so that a domain still in use is not destroyed.
 */
struct xrxedv_flush_domain {
	struct ibv_context *context;
	uint32_t id;
	uint32_t qps;		/* under the context's fdom_lock */
};

_Static_assert(XRXEDV_SEND_DOMAIN_FLUSH == XRXE_SEND_DOMAIN_FLUSH,
	       "the send flag is the kernel's");

struct xrxedv_flush_domain *xrxedv_create_flush_domain(struct ibv_context *ibctx)
{
	struct xrxedv_flush_domain *dom;
	struct xrxe_context *ctx;

	if (!ibctx || ibctx->ops.post_send != xrxe_post_send) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	ctx = to_xrxe_ctx(ibctx);
	if (!(ctx->caps & XRXE_CAP_FLUSH_DOMAIN)) {
		verbs_err(&ctx->ibv_ctx, "no flush domains: %s\n",
			  ctx->caps & XRXE_CAP_DBL_SQ ?
			  "the kernel has none" :
			  "send queues are classic (XRXE_DOORBELL_LESS=0, or no engines)");
		errno = EOPNOTSUPP;
		return NULL;
	}
	dom = calloc(1, sizeof(*dom));
	if (!dom) {
		errno = ENOMEM;
		return NULL;
	}
	dom->context = ibctx;
	pthread_mutex_lock(&ctx->fdom_lock);
	/* 0 is no domain; after 2^32 - 1 domains numbers are used again. */
	if (!++ctx->fdom_last_id)
		++ctx->fdom_last_id;
	dom->id = ctx->fdom_last_id;
	pthread_mutex_unlock(&ctx->fdom_lock);
	return dom;
}

int xrxedv_destroy_flush_domain(struct xrxedv_flush_domain *dom)
{
	struct xrxe_context *ctx;
	int ret = 0;

	if (!dom)
		return EINVAL;
	ctx = to_xrxe_ctx(dom->context);
	pthread_mutex_lock(&ctx->fdom_lock);
	if (dom->qps)
		ret = EBUSY;
	pthread_mutex_unlock(&ctx->fdom_lock);
	if (!ret)
		free(dom);
	return ret;
}

int xrxedv_qp_set_flush_domain(struct ibv_qp *ibqp, struct xrxedv_flush_domain *dom)
{
	struct xrxe_modify_qp_cmd drv = { .comp_mask = XRXE_MODIFY_QP_FLUSH_DOMAIN };
	struct xrxe_qp *qp = dbl_qp(ibqp);
	struct xrxe_context *ctx;
	int ret;

	if (!qp || ibqp->qp_type != IBV_QPT_RC)
		return EOPNOTSUPP;
	if (dom && dom->context != ibqp->context) {
		verbs_err(to_verbs_ctx(ibqp->context),
			  "QP %u: the flush domain belongs to another context\n",
			  ibqp->qp_num);
		return EINVAL;
	}
	if (!(to_xrxe_ctx(ibqp->context)->caps & XRXE_CAP_FLUSH_DOMAIN))
		return EOPNOTSUPP;
	ctx = to_xrxe_ctx(ibqp->context);
	pthread_mutex_lock(&ctx->fdom_lock);
	if (qp->fdom == dom) {
		pthread_mutex_unlock(&ctx->fdom_lock);
		return 0;
	}
	drv.flush_domain = dom ? dom->id : 0;
	ret = xrxe_modify_qp_drv_only(ibqp, &drv);
	if (!ret) {
		if (qp->fdom)
			qp->fdom->qps--;
		if (dom)
			dom->qps++;
		qp->fdom = dom;
	}
	pthread_mutex_unlock(&ctx->fdom_lock);
	return ret;
}

/* The kernel took the QP out of its domain as it destroyed it. */
void xrxe_qp_left_flush_domain(struct xrxe_qp *qp)
{
	struct xrxe_context *ctx = to_xrxe_ctx(qp->vqp.qp.context);

	if (!qp->fdom)
		return;
	pthread_mutex_lock(&ctx->fdom_lock);
	qp->fdom->qps--;
	qp->fdom = NULL;
	pthread_mutex_unlock(&ctx->fdom_lock);
}
