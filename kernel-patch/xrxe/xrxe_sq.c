// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Doorbell-less send queues (xrxe): the ring and the checks of what it
 * holds.
 *
 * The provider writes send WQEs into a ring of slots it shares with the
 * kernel; each slot's generation word, stored last, says whether it holds
 * the WQE of the current lap. An engine takes slots while their generation
 * matches, with no index read and no system call. It copies each slot into
 * the QP's kernel-private send queue, validates the copy and only ever uses
 * the copy, then lets rxe's send task process it. Before an engine stops
 * watching a QP it publishes need_wakeup in the QP's status page and looks
 * at the next slot once more; the provider rings the doorbell only when it
 * sees need_wakeup after writing a slot.
 *
 * The engines that take the slots, and the turns in which they do, are in
 * xrxe_engine.c; the OCUs that place a QP on an engine in xrxe_ocu.c.
 */

#include <linux/vmalloc.h>
#include "rxe.h"
#include "rxe_loc.h"
#include "rxe_queue.h"
#include "rxe_hw_counters.h"
#include "xrxe_engine.h"
#include "xrxe_policy.h"

static u32 dbl_slot_size(struct rxe_qp *qp)
{
	return sizeof(struct xrxe_sq_slot) +
	       max_t(u32, qp->sq.max_sge * sizeof(struct ib_sge),
		     qp->sq.max_inline);
}

static struct xrxe_sq_slot *dbl_slot(struct xrxe_dbl *d, u32 index)
{
	u32 i = index & ((1U << d->log2_slots) - 1);

	return (void *)((u8 *)d->ring + ((size_t)i << d->log2_slot_size));
}

/* Whether slot index holds a WQE of its lap: the provider posted it. */
static bool dbl_slot_posted(struct xrxe_dbl *d, u32 index)
{
	/* Pairs with the provider's release store of gen after the slot. */
	return smp_load_acquire(&dbl_slot(d, index)->gen) ==
	       xrxe_sq_gen(index, d->log2_slots);
}

/* Whether the next slot holds a WQE of the current lap. */
bool xrxe_sq_slot_ready(struct xrxe_dbl *d)
{
	return dbl_slot_posted(d, d->fetch);
}

/*
 * The opcode and send flags of the WQE in the ring's next slot, if the
 * provider has posted one there. Read from the user's ring, not checked.
 */
bool xrxe_sq_next_posted(struct xrxe_dbl *d, u32 *opcode, u32 *send_flags)
{
	u32 index = READ_ONCE(d->fetch);
	struct xrxe_sq_slot *slot = dbl_slot(d, index);

	if (!dbl_slot_posted(d, index))
		return false;
	*opcode = READ_ONCE(slot->wqe.wr.opcode);
	*send_flags = READ_ONCE(slot->wqe.wr.send_flags);
	return true;
}

/* Whether the engine would take slot index: it holds its lap's WQE. */
bool xrxe_sq_slot_posted(struct xrxe_dbl *d, u32 index)
{
	return dbl_slot_posted(d, index);
}

/*
 * Whether the provider has posted slot index's WQE, perhaps overwritten
 * since by a later lap's (the engine took it, it completed and the slot was
 * reused). The laps are compared modulo their count, so that this holds
 * across the wrap of the index. The provider posts in index order: true for
 * every index below its next, false from there on.
 */
static bool dbl_has_posted(struct xrxe_dbl *d, u32 index)
{
	/* Pairs with the provider's release store of gen after the slot. */
	u32 gen = smp_load_acquire(&dbl_slot(d, index)->gen);

	return (s32)((gen - xrxe_sq_gen(index, d->log2_slots)) <<
		     d->log2_slots) >= 0;
}

/*
 * Slots from index on that the provider has posted: what the engine could
 * take from the ring now, at most a ring's worth. Found by bisection, with
 * about log2 of the ring's slots loads, since the posted slots form a
 * prefix: a flush's snapshot takes it under its domain's spinlock, with
 * interrupts off, for every member. Each load is an acquire, so a later
 * probe sees every slot posted before one an earlier probe saw. The ring is
 * the user's: one whose generations are out of order gives some count up to
 * a ring's worth, which only bounds what a flush of the same context waits
 * for (and its watchdog lowers that, xrxe_fdom.c).
 */
u32 xrxe_sq_pending(struct xrxe_dbl *d, u32 index)
{
	u32 lo = 0, hi = 1U << d->log2_slots, mid;

	/* Slots before index + lo are posted; index + hi counts as not. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (dbl_has_posted(d, index + mid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void xrxe_sq_count(struct xrxe_dbl *d, enum xrxe_qp_status_counters c)
{
	WRITE_ONCE(d->status->counters[c], d->status->counters[c] + 1);
}

/*
 * Count n of something of qp in its device's hw counters and, if it has a
 * doorbell-less send queue, in its status page.
 */
void xrxe_count_add(struct rxe_qp *qp, enum xrxe_qp_status_counters qc,
		    enum rxe_counters dc, u64 n)
{
	struct xrxe_dbl *d = qp->dbl;

	if (d)
		WRITE_ONCE(d->status->counters[qc],
			   d->status->counters[qc] + n);
	rxe_counter_add(to_rdev(qp->ibqp.device), dc, n);
}

/* Count an event of qp, as xrxe_count_add(). */
void xrxe_count(struct rxe_qp *qp, enum xrxe_qp_status_counters qc,
		enum rxe_counters dc)
{
	xrxe_count_add(qp, qc, dc, 1);
}

/*
 * Bytes that follow a user WQE: its inline data, the 8 bytes of an atomic
 * write, or its SGEs; none for local operations and flushes, whose SGE
 * fields mean nothing.
 */
u64 xrxe_wqe_payload(const struct rxe_send_wqe *wqe, u32 mask)
{
	if (mask & (WR_LOCAL_OP_MASK | WR_FLUSH_MASK))
		return 0;
	if (mask & WR_ATOMIC_WRITE_MASK)
		return 8;
	if (wqe->wr.send_flags & IB_SEND_INLINE)
		return wqe->dma.length;
	return (u64)wqe->dma.num_sge * sizeof(struct rxe_sge);
}

/*
 * Check the copy of a user WQE, of which only the first copied bytes came
 * from userspace, and compute every kernel-owned field but the SSN, as
 * rxe's post_one_send() does for a kernel ULP. Returns NULL or a reason.
 * Running it again on its own result changes nothing.
 */
const char *xrxe_sq_validate(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
			      size_t copied)
{
	struct rxe_sq *sq = &qp->sq;
	u32 num_sge = wqe->dma.num_sge;
	u64 length = 0;
	u32 mask, i;

	mask = wr_opcode_mask(wqe->wr.opcode, qp);
	if (!mask)
		return "opcode";
	if (wqe->wr.send_flags & ~(IB_SEND_FENCE | IB_SEND_SIGNALED |
				   IB_SEND_SOLICITED | IB_SEND_INLINE |
				   XRXE_SEND_DOMAIN_FLUSH))
		return "flags";
	if ((wqe->wr.send_flags & XRXE_SEND_DOMAIN_FLUSH) &&
	    qp_type(qp) != IB_QPT_RC)
		return "domain flush off RC";
	/* Whatever lies past the copy is left from an earlier WQE. */
	if (sizeof(*wqe) + xrxe_wqe_payload(wqe, mask) > copied)
		return "payload beyond the slot";
	/* Nothing of the slot but the WR and the payload description counts. */
	wqe->status = 0;
	wqe->first_psn = 0;
	wqe->last_psn = 0;
	wqe->ack_length = 0;
	wqe->has_rd_atomic = 0;
	wqe->iova = 0;
	wqe->dma.resid = 0;
	wqe->dma.cur_sge = 0;
	wqe->dma.sge_offset = 0;
	/* What a merged message carries is the kernel's (xrxe_coalesce.c). */
	wqe->wr.reserved = 0;
	if (wqe->wr.opcode == IB_WR_RDMA_WRITE)
		wqe->wr.wr.rdma.reserved = 0;
	if (mask & WR_LOCAL_OP_MASK) {
		/* No data: a user's lengths must not reach the completion. */
		wqe->dma.length = 0;
		wqe->dma.num_sge = 0;
		wqe->mask = mask;
		wqe->state = wqe_state_posted;
		return NULL;
	}
	if (mask & WR_FLUSH_MASK) {
		/* The range to flush travels in the WR, not in SGEs. */
		length = wqe->wr.wr.flush.length;
		num_sge = 0;
	} else if (mask & WR_ATOMIC_WRITE_MASK) {
		/* The 8 bytes to write travel in dma.atomic_wr. */
		length = 8;
		num_sge = 0;
	} else if (wqe->wr.send_flags & IB_SEND_INLINE) {
		if (!(mask & WR_INLINE_MASK))
			return "inline on this opcode";
		if (wqe->dma.length > sq->max_inline)
			return "inline length";
		length = wqe->dma.length;
		num_sge = 0;
	} else {
		if (num_sge > sq->max_sge)
			return "num_sge";
		for (i = 0; i < num_sge; i++)
			length += wqe->dma.sge[i].length;
	}
	if (length > RXE_PORT_MAX_MSG_SZ)
		return "length";
	if (mask & WR_ATOMIC_MASK) {
		if (length != 8)
			return "atomic length";
		if (wqe->wr.wr.atomic.remote_addr & 0x7)
			return "atomic alignment";
	}
	wqe->iova = mask & WR_ATOMIC_MASK ? wqe->wr.wr.atomic.remote_addr :
		    mask & WR_FLUSH_MASK ? wqe->wr.wr.flush.remote_addr :
		    mask & (WR_READ_OR_WRITE_MASK | WR_ATOMIC_WRITE_MASK) ?
		    wqe->wr.wr.rdma.remote_addr : 0;
	wqe->mask = mask;
	wqe->dma.length = length;
	wqe->dma.resid = length;
	wqe->dma.num_sge = num_sge;
	wqe->state = wqe_state_posted;
	return NULL;
}

/*
 * A rejected slot still completes, in order, with an error: its copy keeps
 * only the wr_id and the opcode, and the requester fails it and moves the
 * QP to the error state when it gets there. The engine goes on taking the
 * slots that follow, which the error state flushes.
 */
static void dbl_poison(struct rxe_send_wqe *wqe)
{
	u64 wr_id = wqe->wr.wr_id;

	memset(wqe, 0, sizeof(*wqe));
	wqe->wr.wr_id = wr_id;
	wqe->wr.opcode = IB_WR_SEND;
	wqe->wr.send_flags = IB_SEND_SIGNALED;
	wqe->status = IB_WC_LOC_QP_OP_ERR;
	wqe->state = wqe_state_error;
}

/*
 * Put the WQE of slot d->fetch, copied from src (len bytes: the ring slot
 * or a low-latency command), into the kernel send queue, if it has room.
 */
static bool dbl_take(struct rxe_qp *qp, const struct rxe_send_wqe *src,
		     size_t len)
{
	struct xrxe_dbl *d = qp->dbl;
	struct rxe_queue *q = qp->sq.queue;
	struct rxe_send_wqe *wqe;
	const char *why;
	unsigned long flags;

	spin_lock_irqsave(&qp->sq.sq_lock, flags);
	if (queue_full(q, QUEUE_TYPE_FROM_ULP)) {
		/*
		 * The provider overran its own queue: park the QP until the
		 * completer frees room (xrxe_sq_complete()) instead of
		 * looking at it again every turn.
		 */
		set_bit(XRXE_DBL_SQ_FULL, &d->flags);
		/*
		 * Full barrier: the completer must see SQ_FULL after it frees
		 * an entry, or we must see the entry it freed. Pairs with the
		 * smp_mb() in xrxe_sq_complete().
		 */
		smp_mb__after_atomic();
		if (queue_full(q, QUEUE_TYPE_FROM_ULP)) {
			spin_unlock_irqrestore(&qp->sq.sq_lock, flags);
			return false;
		}
		clear_bit(XRXE_DBL_SQ_FULL, &d->flags);
	}
	wqe = queue_producer_addr(q, QUEUE_TYPE_FROM_ULP);
	/* One copy; from here on only the copy counts. */
	len = min_t(size_t, q->elem_size, len);
	memcpy(wqe, src, len);
	why = xrxe_sq_validate(qp, wqe, len);
	if (why) {
		rxe_dbg_qp(qp, "rejected send slot %u: %s\n", d->fetch, why);
		dbl_poison(wqe);
		xrxe_count(qp, XRXE_QP_REJECTED, XRXE_CNT_WQES_REJECTED);
	} else if (!(wqe->mask & WR_LOCAL_OP_MASK)) {
		wqe->ssn = atomic_add_return(1, &qp->ssn);
	}
	/* The copy's own: the completer gives it back (xrxe_sq_complete()). */
	wqe->dma.reserved = xrxe_ocu_cost(d->tc, wqe->dma.length);
	d->take_cost += wqe->dma.reserved;
	d->take_bytes += wqe->dma.length;
	/* Counted before the completer can retire it (xrxe_sq_complete()). */
	d->fetch++;
	queue_advance_producer(q, QUEUE_TYPE_FROM_ULP);
	spin_unlock_irqrestore(&qp->sq.sq_lock, flags);

	WRITE_ONCE(d->status->sq_fetched, d->fetch);
	xrxe_sq_count(d, XRXE_QP_FETCHED);
	return true;
}

/*
 * Whether the engine may take WQEs: from RTS on, as post_send() allows;
 * in the error state so that they complete with a flush error. Before RTS
 * a slot waits in the ring, and a UD QP sends nothing.
 */
bool xrxe_sq_may_fetch(struct rxe_qp *qp)
{
	return READ_ONCE(qp->attr.qp_state) >= IB_QPS_RTS;
}

/* Take the next slot if it is ready and the kernel send queue has room. */
bool xrxe_sq_fetch_one(struct rxe_qp *qp)
{
	struct xrxe_dbl *d = qp->dbl;

	if (!xrxe_sq_may_fetch(qp) || !xrxe_sq_slot_ready(d))
		return false;
	return dbl_take(qp, &dbl_slot(d, d->fetch)->wqe,
			(1U << d->log2_slot_size) -
			offsetof(struct xrxe_sq_slot, wqe));
}

/*
 * Take a low-latency command's WQE in place of its ring slot: only if it
 * is the next WQE in ring order, so that the slot, which the provider
 * wrote first, is skipped and never taken twice. Any other position is
 * dropped: the provider sends the command after letting go of its send
 * queue, so other posts, the engine and even the completer may have gone
 * past the slot meanwhile. Returns an enum xrxe_ll_result.
 */
int xrxe_sq_take_ll(struct rxe_qp *qp, const struct xrxe_ll_cmd *ll,
		       size_t len)
{
	struct xrxe_dbl *d = qp->dbl;

	if (qp_state(qp) != IB_QPS_RTS)
		return XRXE_LL_DROPPED_STATE;
	/*
	 * A QP its limit has paused waits for its timer: the command goes to
	 * the ring. One with tokens left may run it at once, as its engine
	 * would; the requester charges every packet either way.
	 */
	if (xrxe_pace_paused(qp))
		return XRXE_LL_DROPPED_PACED;
	if (ll->index != d->fetch)
		return XRXE_LL_DROPPED_ORDER;
	if (!dbl_take(qp, &ll->wqe, len - offsetof(struct xrxe_ll_cmd, wqe)))
		return XRXE_LL_DROPPED_FULL;
	return XRXE_LL_ACCEPTED;
}

/*
 * The completer retired n WQEs from the kernel send queue: publish the
 * count, and give a QP parked on a full queue back to its engine. Called
 * wherever the completer retires send WQEs, in any context.
 */
void xrxe_sq_complete(struct rxe_qp *qp, u32 n, u64 cost)
{
	struct xrxe_dbl *d = qp->dbl;

	if (!d || !n)
		return;
	xrxe_ocu_retire(d, n, cost);
	WRITE_ONCE(d->completed, d->completed + n);
	/*
	 * Release: the provider reuses slots up to here, which must come
	 * after our reads of them. Pairs with its acquire load.
	 */
	smp_store_release(&d->status->sq_completed, d->completed);
	/*
	 * Full barrier: the engine must see the room we freed, or we must see
	 * SQ_FULL. Pairs with the one in dbl_take().
	 */
	smp_mb();
	if (test_bit(XRXE_DBL_SQ_FULL, &d->flags) &&
	    test_and_clear_bit(XRXE_DBL_SQ_FULL, &d->flags))
		xrxe_engine_kick(qp);
	/* The same barrier orders our count before the domain's waiters. */
	xrxe_fdom_completed(qp);
}

/*
 * The driver data of a modify_qp, checked before anything changes:
 * 0 and the request in *cmd, or an error.
 */
int xrxe_sq_modify_check(struct rxe_qp *qp, struct ib_udata *udata, int mask,
			  struct xrxe_modify_qp_cmd *cmd)
{
	struct rxe_ucontext *uc = rdma_udata_to_drv_context(udata,
					struct rxe_ucontext, ibuc);
	size_t len = min(udata->inlen, sizeof(*cmd));
	int err;

	/* An older provider's command ends after engine_idle_us. */
	if (len < offsetofend(typeof(*cmd), engine_idle_us))
		return -EINVAL;
	memset(cmd, 0, sizeof(*cmd));
	err = ib_copy_from_udata(cmd, udata, len);
	if (err)
		return err;
	/* Fields this kernel does not know must be absent (zero). */
	if (udata->inlen > sizeof(*cmd) &&
	    !ib_is_udata_cleared(udata, sizeof(*cmd),
				 udata->inlen - sizeof(*cmd)))
		return -EOPNOTSUPP;
	if (cmd->comp_mask & ~(XRXE_MODIFY_QP_ENGINE_IDLE |
			       XRXE_MODIFY_QP_RATE_LIMIT |
			       XRXE_MODIFY_QP_OCU | XRXE_MODIFY_QP_COALESCE |
			       XRXE_MODIFY_QP_FLUSH_DOMAIN) ||
	    cmd->reserved || cmd->reserved1)
		return -EINVAL;
	if (cmd->comp_mask & XRXE_MODIFY_QP_OCU) {
		if (!qp->dbl || !(uc->xrxe_caps & XRXE_CAP_OCU))
			return -EOPNOTSUPP;
		/* Alone: its EBUSY must leave nothing else changed. */
		if (mask || cmd->comp_mask != XRXE_MODIFY_QP_OCU ||
		    cmd->ocu_placement > XRXE_OCU_PLACE_COMP_VECTOR)
			return -EINVAL;
		return 0;
	}
	if (cmd->ocu_placement || cmd->ocu_domain)
		return -EINVAL;
	if (cmd->comp_mask & XRXE_MODIFY_QP_COALESCE) {
		/* Only the kernel's copies of WQEs may be merged. */
		if (!qp->dbl || !(uc->xrxe_caps & XRXE_CAP_COALESCE) ||
		    (qp_type(qp) != IB_QPT_RC && qp_type(qp) != IB_QPT_UC))
			return -EOPNOTSUPP;
		if (cmd->coalesce_max > XRXE_COALESCE_MAX_BYTES)
			return -EINVAL;
	} else if (cmd->coalesce_max) {
		return -EINVAL;
	}
	if (cmd->comp_mask & XRXE_MODIFY_QP_FLUSH_DOMAIN) {
		if (!qp->dbl || !(uc->xrxe_caps & XRXE_CAP_FLUSH_DOMAIN) ||
		    qp_type(qp) != IB_QPT_RC)
			return -EOPNOTSUPP;
		/* Alone: its EBUSY must leave nothing else changed. */
		if (mask || cmd->comp_mask != XRXE_MODIFY_QP_FLUSH_DOMAIN ||
		    cmd->engine_idle_us || cmd->rate_limit_kbps ||
		    cmd->max_burst_sz || cmd->typical_pkt_sz)
			return -EINVAL;
		return 0;
	}
	if (cmd->flush_domain)
		return -EINVAL;
	if (cmd->comp_mask & XRXE_MODIFY_QP_RATE_LIMIT) {
		if (!(uc->xrxe_caps & XRXE_CAP_RATE_LIMIT))
			return -EOPNOTSUPP;
		err = xrxe_pace_check(qp, cmd->rate_limit_kbps,
				      cmd->max_burst_sz, cmd->typical_pkt_sz);
		if (err)
			return err;
	}
	if (!(cmd->comp_mask & XRXE_MODIFY_QP_ENGINE_IDLE))
		return 0;
	if (!qp->dbl)
		return -EOPNOTSUPP;
	if (cmd->engine_idle_us < -1 ||
	    cmd->engine_idle_us > XRXE_MAX_ENGINE_IDLE_US)
		return -EINVAL;
	if (!xrxe_engine_may_poll(cmd->engine_idle_us))
		return -EPERM;
	return 0;
}

/*
 * Apply a checked request: the QP's own busy-poll window, its rate limit,
 * its OCU placement (alone, and the only part that can fail); and with the
 * modify's mask, once a connected QP knows its destination (at RTR, before
 * it may send), hash its flow and class to its OCU.
 */
int xrxe_sq_modify(struct rxe_qp *qp, struct rxe_ucontext *uc,
		    const struct xrxe_modify_qp_cmd *cmd, int mask)
{
	if (cmd->comp_mask & XRXE_MODIFY_QP_OCU)
		return xrxe_ocu_place(qp, cmd->ocu_placement, cmd->ocu_domain);
	if (cmd->comp_mask & XRXE_MODIFY_QP_FLUSH_DOMAIN)
		return xrxe_fdom_set(qp, uc, cmd->flush_domain);
	if (qp->dbl && (mask & IB_QP_STATE) &&
	    qp_state(qp) == IB_QPS_RTR &&
	    (qp_type(qp) == IB_QPT_RC || qp_type(qp) == IB_QPT_UC))
		xrxe_ocu_bind(qp, xrxe_ocu_flow_hash(qp->pri_av.grh.dgid.raw,
						qp->attr.dest_qp_num),
			 xrxe_ocu_tc(qp->pri_av.grh.traffic_class));
	if (cmd->comp_mask & XRXE_MODIFY_QP_ENGINE_IDLE)
		WRITE_ONCE(qp->dbl->idle_us, cmd->engine_idle_us);
	if (cmd->comp_mask & XRXE_MODIFY_QP_COALESCE)
		WRITE_ONCE(qp->dbl->coalesce_max, cmd->coalesce_max);
	if (cmd->comp_mask & XRXE_MODIFY_QP_RATE_LIMIT)
		xrxe_pace_set(qp, cmd->rate_limit_kbps, cmd->max_burst_sz,
			      cmd->typical_pkt_sz);
	return 0;
}

/* Take the QP off its engine for good, before it is destroyed. */
void xrxe_sq_detach(struct rxe_qp *qp)
{
	struct xrxe_dbl *d = qp->dbl;
	struct xrxe_engine *e;
	struct xrxe_ocu *o;
	unsigned long flags;

	if (!d)
		return;
	o = xrxe_ocu_lock(d, &flags);
	d->detached = true;
	/* Queued but not being served: drop the list's reference here. */
	if (d->queued) {
		e = d->engine;
		spin_lock(&e->lock);
		if (!list_empty(&d->node)) {
			xrxe_engine_unlink(d);
			xrxe_ocu_leave(d);
			rxe_put(qp);
		}
		spin_unlock(&e->lock);
	}
	spin_unlock_irqrestore(&o->lock, flags);
	/*
	 * Send work handed to the engine and not run yet goes to rxe_wq, as
	 * all from now on does: the ACKs it has to complete hold references
	 * that the destroy waits for.
	 */
	if (test_and_clear_bit(XRXE_DBL_RESUME, &d->flags))
		rxe_sched_task(&qp->send_task);
}

/*
 * Modify to RESET, first step: no turn takes a slot from here on, so that
 * nothing fetched before the queues are reset runs after them.
 */
void xrxe_sq_reset_begin(struct rxe_qp *qp)
{
	if (qp->dbl)
		mutex_lock(&qp->dbl->serve_lock);
}

/*
 * Modify to RESET, last step, once the kernel send queue is empty: back to
 * the state of a new QP, nothing fetched, and turns allowed again. The
 * ring can be large: clear it in pieces, in the caller's own time.
 */
void xrxe_sq_reset_end(struct rxe_qp *qp)
{
	struct xrxe_dbl *d = qp->dbl;
	size_t size, off, chunk;

	if (!d)
		return;
	size = (size_t)1 << (d->log2_slots + d->log2_slot_size);
	for (off = 0; off < size; off += chunk) {
		chunk = min_t(size_t, size - off, SZ_1M);
		memset((u8 *)d->ring + off, 0, chunk);
		cond_resched();
	}
	/* The reset dropped the WQEs it did not complete. */
	xrxe_ocu_retire(d, d->fetch - d->completed, d->cost_out);
	/* Its rate limit was stopped, and nothing is left to hold. */
	d->load_held = false;
	d->fetch = 0;
	d->completed = 0;
	d->idle_since = 0;
	clear_bit(XRXE_DBL_SQ_FULL, &d->flags);
	WRITE_ONCE(d->status->sq_fetched, 0);
	WRITE_ONCE(d->status->sq_completed, 0);
	WRITE_ONCE(d->status->need_wakeup, 1);
	xrxe_fdom_reset(qp);
	mutex_unlock(&d->serve_lock);
}

/* Let userspace map buf; from then on the mmap info's release frees it. */
static int dbl_share(struct rxe_qp *qp, void *buf, size_t size,
		     bool read_only, struct ib_udata *udata,
		     struct mminfo __user *out, struct rxe_mmap_info **ip)
{
	return xrxe_do_mmap_info(to_rdev(qp->ibqp.device), out, udata, buf,
				 size, read_only, ip);
}

/*
 * Mark qp's send queue doorbell-less before the QP is built, so that its
 * kernel send queue is not shared with userspace. Its engine serves it
 * as one of uc's QPs.
 */
int xrxe_sq_create(struct rxe_qp *qp, struct rxe_ucontext *uc)
{
	struct xrxe_dbl *d;

	if (!xrxe_nr_engines || !uc->xrxe_owners)
		return -EOPNOTSUPP;
	d = kzalloc_obj(*d);
	if (!d)
		return -ENOMEM;
	/*
	 * The status page exists as long as d does: the completer and the
	 * counters write it even when creation fails half way.
	 */
	d->status = vmalloc_user(PAGE_SIZE);
	if (!d->status) {
		kfree(d);
		return -ENOMEM;
	}
	d->status->need_wakeup = 1;
	d->qp = qp;
	INIT_LIST_HEAD(&d->node);
	mutex_init(&d->serve_lock);
	d->idle_us = -1;
	d->owners = uc->xrxe_owners;
	d->ctx_index = uc->elem.index;
	qp->dbl = d;
	xrxe_ocu_set(d, xrxe_ocu_home(qp));
	d->status->engine = XRXE_QP_NO_ENGINE;
	return 0;
}

/*
 * Share the ring and the status page of a doorbell-less send queue, once
 * the QP's kernel send queue exists, and with ll its low-latency buffer;
 * the caller learns them from uresp.
 */
int xrxe_sq_init(struct rxe_qp *qp, bool ll, struct ib_udata *udata,
		  struct xrxe_create_qp_resp __user *uresp)
{
	struct xrxe_dbl *d = qp->dbl;
	u32 slots = qp->sq.queue->index_mask + 1;
	size_t size;
	void *ring;
	int err;

	d->log2_slots = ilog2(slots);
	d->log2_slot_size = order_base_2(dbl_slot_size(qp));
	size = (size_t)slots << d->log2_slot_size;
	ring = vmalloc_user(size);
	if (!ring)
		return -ENOMEM;
	err = dbl_share(qp, ring, size, false, udata, &uresp->sq_ring_mi,
			&d->ring_ip);
	if (err) {
		vfree(ring);
		return err;
	}
	d->ring = ring;
	/* The provider only reads the status page. */
	err = dbl_share(qp, d->status, PAGE_SIZE, true, udata,
			&uresp->status_mi, &d->status_ip);
	if (err)
		return err;
	if (ll) {
		err = xrxe_ll_init(qp);
		if (err)
			return err;
	}

	if (put_user(XRXE_QP_DBL_SQ | (ll ? XRXE_QP_LL_SQ : 0), &uresp->flags) ||
	    put_user(d->log2_slots, &uresp->sq_log2_slots) ||
	    put_user(d->log2_slot_size, &uresp->sq_log2_slot_size))
		return -EFAULT;
	return 0;
}

void xrxe_sq_cleanup(struct rxe_qp *qp)
{
	struct xrxe_dbl *d = qp->dbl;
	struct xrxe_ocu *o;
	unsigned long flags;

	if (!d)
		return;
	qp->dbl = NULL;
	/* Off every list for good: what it took and did not retire is gone. */
	xrxe_ocu_retire(d, d->fetch - d->completed, d->cost_out);
	o = xrxe_ocu_lock(d, &flags);
	xrxe_ocu_put_qp(o);
	spin_unlock_irqrestore(&o->lock, flags);
	xrxe_ll_cleanup(d);
	if (d->status_ip)
		kref_put(&d->status_ip->ref, rxe_mmap_release);
	else
		vfree(d->status);
	if (d->ring_ip)
		kref_put(&d->ring_ip->ref, rxe_mmap_release);
	kfree(d);
}
