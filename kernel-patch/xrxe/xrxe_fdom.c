// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Flush domains (xrxe). A program spreads records over several RC QPs,
 * each served by whichever engine its OCU maps to, and then writes a tag
 * that must land after all of them. The QPs join one flush domain; the tag
 * is posted with XRXE_SEND_DOMAIN_FLUSH, and its requester does not start
 * it until what the other members had posted has completed, that is, been
 * acknowledged.
 *
 * When the flush reaches the head of its requester, the QP records for
 * each other member the completed count that covers every WQE the member's
 * engine had taken or could take from its ring at that moment, and the
 * count its own earlier WQEs reach. Until they are all reached it is held
 * off its engine, as a rate limit holds a paced QP; each member's
 * completer, having retired WQEs, gives back to its engine every waiting
 * QP whose counts are now all reached.
 *
 * A member held at a flush of its own when the snapshot is taken counts
 * only up to that flush: waits go from earlier snapshots to later ones,
 * never back, so that flushes on several QPs cannot wait for each other.
 *
 * A held QP asks its owner for no doorbells, so whoever ends a hold gives
 * the QP back to its engine; and a watchdog starts, and reports, a flush
 * that still waits with nothing left to wait for.
 *
 * The snapshot runs under the domain's spinlock with interrupts off; it
 * reads about log2 of each member's ring size of generation words, not the
 * ring (xrxe_sq_pending()), whatever the rings' sizes and contents.
 */

#include <linux/delay.h>
#include <linux/random.h>

#include "rxe.h"
#include "rxe_loc.h"
#include "rxe_queue.h"
#include "rxe_hw_counters.h"

struct xrxe_fdom {
	spinlock_t		lock;
	u32			id;
	struct rxe_ucontext	*uc;
	unsigned int		members;
	u32			epochs;		/* last epoch handed out */
	/* Members whose flush waits: completers look only if any does. */
	atomic_t		waiting;
	struct rxe_qp		*member[XRXE_FLUSH_DOMAIN_MAX_QPS];
	/* Looks at waiting flushes now and then: none waits for ever. */
	struct delayed_work	watchdog;
	struct rcu_head		rcu;
};

/* How often the watchdog looks at a domain while a flush waits. */
#define XRXE_FDOM_WATCH_MS	100

/*
 * Test knob (debugfs rdma_xrxe/fdom_delay_us, 0 by default): a random
 * delay of up to this many microseconds at each point of the wait and
 * wake-up protocol, so that a stress run meets the interleavings that
 * real parallelism makes rare.
 */
u32 xrxe_fdom_delay_us;

void xrxe_fdom_delay(void)
{
	u32 max = min(READ_ONCE(xrxe_fdom_delay_us), 1000U);

	if (max)
		udelay(get_random_u32_below(max + 1));
}

void xrxe_fdom_uc_init(struct rxe_ucontext *uc)
{
	xa_init(&uc->xrxe_fdoms);
	mutex_init(&uc->xrxe_fdom_lock);
}

/* Every QP of the context is gone, and with them its domains. */
void xrxe_fdom_uc_fini(struct rxe_ucontext *uc)
{
	WARN_ON_ONCE(!xa_empty(&uc->xrxe_fdoms));
	xa_destroy(&uc->xrxe_fdoms);
}

static bool fdom_counting(struct rxe_qp *qp)
{
	switch (qp_state(qp)) {
	case IB_QPS_RTS:
	case IB_QPS_SQD:
	case IB_QPS_SQE:
	case IB_QPS_ERR:
		return true;
	default:
		/* Its engine takes nothing from its ring. */
		return false;
	}
}

/*
 * Record what d's flush at own completed count pos waits for. Caller holds
 * the domain's lock.
 */
static void fdom_snapshot(struct xrxe_fdom *dom, struct xrxe_dbl *d, u32 pos)
{
	struct xrxe_fdom_wait *w = &d->fdom_wait;
	struct xrxe_dbl *md;
	unsigned int i;
	u32 fetch, target;

	w->pos = pos;
	w->slots = 0;
	for (i = 0; i < XRXE_FLUSH_DOMAIN_MAX_QPS; i++) {
		if (!dom->member[i] || dom->member[i] == d->qp ||
		    !fdom_counting(dom->member[i]))
			continue;
		md = dom->member[i]->dbl;
		fetch = READ_ONCE(md->fetch);
		target = fetch + xrxe_sq_pending(md, fetch);
		/* Held at its own flush: up to that flush only. */
		if (md->fdom_wait.state == XRXE_FDOM_WAITING &&
		    (s32)(target - md->fdom_wait.pos) > 0)
			target = md->fdom_wait.pos;
		w->target[i] = target;
		w->epoch[i] = md->fdom_epoch;
		w->slots |= BIT(i);
	}
}

/*
 * Whether every count d's flush waits for is reached; members found done
 * are not looked at again. Caller holds the domain's lock.
 */
static bool fdom_drained(struct xrxe_fdom *dom, struct xrxe_dbl *d)
{
	struct xrxe_fdom_wait *w = &d->fdom_wait;
	unsigned long slots = w->slots;
	struct rxe_qp *m;
	unsigned int i;

	if ((s32)(READ_ONCE(d->completed) - w->pos) < 0)
		return false;
	for_each_set_bit(i, &slots, XRXE_FLUSH_DOMAIN_MAX_QPS) {
		m = dom->member[i];
		/* Gone, or reset: nothing it had is left to complete. */
		if (m && m->dbl->fdom_epoch == w->epoch[i] &&
		    (s32)(READ_ONCE(m->dbl->completed) - w->target[i]) < 0)
			return false;
		w->slots &= ~BIT(i);
	}
	return true;
}

/*
 * Lower what d's flush waits for from each member whose next slot holds no
 * WQE its engine would take: the provider posts in order, so whatever it
 * posted before the flush lies below that member's fetch count. A ring in order gives the
 * counts the snapshot took; one whose generations are not (the user's
 * doing) would otherwise hold the flush for WQEs its engine never takes.
 * Returns whether any count was lowered. Caller holds the domain's lock.
 */
static bool fdom_lower(struct xrxe_fdom *dom, struct xrxe_dbl *d)
{
	struct xrxe_fdom_wait *w = &d->fdom_wait;
	unsigned long slots = w->slots;
	bool lowered = false;
	struct rxe_qp *m;
	unsigned int i;
	u32 fetch;

	for_each_set_bit(i, &slots, XRXE_FLUSH_DOMAIN_MAX_QPS) {
		m = dom->member[i];
		if (!m || m->dbl->fdom_epoch != w->epoch[i])
			continue;
		fetch = READ_ONCE(m->dbl->fetch);
		if ((s32)(w->target[i] - fetch) > 0 &&
		    !xrxe_sq_slot_posted(m->dbl, fetch)) {
			w->target[i] = fetch;
			lowered = true;
		}
	}
	return lowered;
}

/*
 * d's flush, if any, waits no more (its QP started it, left the domain or
 * was reset). Domain lock held; outside a domain the state is always NONE.
 */
static void fdom_end_wait(struct xrxe_fdom *dom, struct xrxe_dbl *d)
{
	if (d->fdom_wait.state == XRXE_FDOM_NONE)
		return;
	atomic_dec(&dom->waiting);
	WRITE_ONCE(d->fdom_wait.state, XRXE_FDOM_NONE);
}

/* d's flush starts: counted, and no longer waiting. Domain lock held. */
static void fdom_pass(struct xrxe_fdom *dom, struct xrxe_dbl *d)
{
	struct xrxe_fdom_wait *w = &d->fdom_wait;

	fdom_end_wait(dom, d);
	xrxe_count(d->qp, XRXE_QP_DOMAIN_FLUSHES, XRXE_CNT_DOMAIN_FLUSHES);
	xrxe_count_add(d->qp, XRXE_QP_DOMAIN_WAIT_US, XRXE_CNT_DOMAIN_WAIT_US,
		       div_u64(ktime_get_ns() - w->since_ns, NSEC_PER_USEC));
}

/*
 * The own completed count at which every WQE before wqe, the one at the
 * head of the requester, has completed: the slots taken, less wqe and those
 * after it.
 */
static u32 fdom_own_pos(struct rxe_qp *qp, struct rxe_send_wqe *wqe)
{
	struct rxe_queue *q = qp->sq.queue;
	unsigned long flags;
	u32 pos, prod;

	spin_lock_irqsave(&qp->sq.sq_lock, flags);
	prod = queue_get_producer(q, QUEUE_TYPE_FROM_ULP);
	pos = qp->dbl->fetch - ((prod - qp->req.wqe_index) & q->index_mask);
	spin_unlock_irqrestore(&qp->sq.sq_lock, flags);
	return pos;
}

/*
 * The requester is at wqe, posted with XRXE_SEND_DOMAIN_FLUSH, before its
 * first packet: true while it must wait (the QP is then off its engine
 * until its domain drains). The flag is dropped once it may start, so that
 * a retry resends it without waiting again.
 */
bool xrxe_fdom_must_wait(struct rxe_qp *qp, struct rxe_send_wqe *wqe)
{
	struct xrxe_dbl *d = qp->dbl;
	struct xrxe_fdom_wait *w;
	struct xrxe_fdom *dom;
	unsigned long flags;
	bool wait = false, kick = false;
	int tries = 0;
	u32 pos;

	if (!d || wqe->state != wqe_state_posted)
		return false;
	w = &d->fdom_wait;
	pos = fdom_own_pos(qp, wqe);
	rcu_read_lock();
again:
	dom = rcu_dereference(d->fdom);
	if (!dom) {
		/*
		 * No domain: it waits for its own QP's WQEs only, as a fence
		 * does for reads, and its completer runs it again the same way.
		 */
		wait = (s32)(READ_ONCE(d->completed) - pos) < 0;
		if (wait)
			qp->req.wait_fence = 1;
		else {
			xrxe_count(qp, XRXE_QP_DOMAIN_FLUSHES,
				   XRXE_CNT_DOMAIN_FLUSHES);
			wqe->wr.send_flags &= ~XRXE_SEND_DOMAIN_FLUSH;
		}
		rcu_read_unlock();
		return wait;
	}
	spin_lock_irqsave(&dom->lock, flags);
	/*
	 * A modify moved the QP out of this domain meanwhile (the program
	 * changed it while posting): look again, a bounded number of times;
	 * a QP that keeps moving sends its flush as it is.
	 */
	if (dom->member[d->fdom_slot] != qp) {
		spin_unlock_irqrestore(&dom->lock, flags);
		if (++tries < 3)
			goto again;
		rcu_read_unlock();
		wqe->wr.send_flags &= ~XRXE_SEND_DOMAIN_FLUSH;
		return false;
	}
	switch (w->state) {
	case XRXE_FDOM_NONE:
		fdom_snapshot(dom, d, pos);
		w->since_ns = ktime_get_ns();
		w->drained_seen = false;
		xrxe_fdom_test_delay();
		atomic_inc(&dom->waiting);
		/*
		 * Full barrier: a completer that retires WQEs from here on
		 * sees waiting set, or we see its new count below. Pairs with
		 * the one in xrxe_sq_complete().
		 */
		smp_mb__after_atomic();
		xrxe_fdom_test_delay();
		wait = !fdom_drained(dom, d);
		if (!wait) {
			/* Drained already: never held. */
			atomic_dec(&dom->waiting);
			break;
		}
		/*
		 * Held only once it does wait: a turn reads the state without
		 * our lock, and one that saw a hold we end at once would leave
		 * the QP off its engine with no one to give it back.
		 */
		WRITE_ONCE(w->state, XRXE_FDOM_WAITING);
		queue_delayed_work(system_wq, &dom->watchdog,
				   msecs_to_jiffies(XRXE_FDOM_WATCH_MS));
		break;
	case XRXE_FDOM_WAITING:
		/*
		 * Run while held, by its own ACK or a post: a completer that
		 * let it go may not have looked yet. Starting the flush here
		 * ends the hold behind the back of the turn that ran us, which
		 * leaves the QP off its engine without asking for doorbells:
		 * whoever ends a hold gives the QP back to its engine, so that
		 * a turn takes what was posted to its ring meanwhile.
		 */
		wait = !fdom_drained(dom, d);
		kick = !wait;
		break;
	case XRXE_FDOM_READY:
		break;
	}
	if (!wait) {
		fdom_pass(dom, d);
		wqe->wr.send_flags &= ~XRXE_SEND_DOMAIN_FLUSH;
	}
	spin_unlock_irqrestore(&dom->lock, flags);
	rcu_read_unlock();
	if (kick)
		xrxe_engine_wake(qp);
	if (wait)
		xrxe_fdom_test_delay();
	return wait;
}

/*
 * Whether qp waits for its domain, and so takes no turn on its engine. Its
 * state is written under the domain's lock; a turn reads it without.
 */
bool xrxe_fdom_waiting(struct rxe_qp *qp)
{
	return READ_ONCE(qp->dbl->fdom_wait.state) == XRXE_FDOM_WAITING;
}

/* d's flush may start: back to its engine. Domain lock held. */
static void fdom_ready(struct xrxe_dbl *d)
{
	WRITE_ONCE(d->fdom_wait.state, XRXE_FDOM_READY);
	xrxe_fdom_test_delay();
	xrxe_engine_wake(d->qp);
}

/* Give back to their engines the members whose flush may now start. */
static void fdom_wake(struct xrxe_fdom *dom)
{
	struct xrxe_dbl *md;
	unsigned int i;

	for (i = 0; i < XRXE_FLUSH_DOMAIN_MAX_QPS; i++) {
		if (!dom->member[i])
			continue;
		md = dom->member[i]->dbl;
		if (md->fdom_wait.state != XRXE_FDOM_WAITING ||
		    !fdom_drained(dom, md))
			continue;
		fdom_ready(md);
	}
}

/*
 * The watchdog: a flush found at two looks in a row with everything it
 * waits for complete missed its wake-up (a bug): it is counted, said once
 * and started, so that such a bug costs a late flush, not a QP held for
 * ever. A flush still waiting for WQEs keeps the watchdog looking, and
 * stops waiting for slots that the member's ring shows were never posted.
 */
static void fdom_watchdog(struct work_struct *work)
{
	struct xrxe_fdom *dom = container_of(to_delayed_work(work),
					     struct xrxe_fdom, watchdog);
	struct xrxe_fdom_wait *w;
	struct xrxe_dbl *md;
	unsigned long flags;
	bool again = false;
	unsigned int i;

	spin_lock_irqsave(&dom->lock, flags);
	for (i = 0; i < XRXE_FLUSH_DOMAIN_MAX_QPS; i++) {
		if (!dom->member[i])
			continue;
		md = dom->member[i]->dbl;
		w = &md->fdom_wait;
		if (w->state != XRXE_FDOM_WAITING)
			continue;
		/* Waiting for slots never posted: not a missed wake-up. */
		if (fdom_lower(dom, md) && fdom_drained(dom, md)) {
			fdom_ready(md);
			continue;
		}
		if (!fdom_drained(dom, md)) {
			w->drained_seen = false;
			again = true;
			continue;
		}
		if (!w->drained_seen) {
			w->drained_seen = true;
			again = true;
			continue;
		}
		rxe_counter_inc(to_rdev(md->qp->ibqp.device),
				XRXE_CNT_DOMAIN_FLUSH_RESCUES);
		pr_warn_once("rdma_xrxe: a domain flush missed its wake-up; started by the watchdog\n");
		fdom_ready(md);
	}
	spin_unlock_irqrestore(&dom->lock, flags);
	if (again)
		queue_delayed_work(system_wq, &dom->watchdog,
				   msecs_to_jiffies(XRXE_FDOM_WATCH_MS));
}

/*
 * qp's completer retired WQEs (its new count is published and followed by
 * a full barrier): wake the flushes of its domain that it let start.
 */
void xrxe_fdom_completed(struct rxe_qp *qp)
{
	struct xrxe_fdom *dom;
	unsigned long flags;

	rcu_read_lock();
	dom = rcu_dereference(qp->dbl->fdom);
	xrxe_fdom_test_delay();
	if (dom && atomic_read(&dom->waiting)) {
		spin_lock_irqsave(&dom->lock, flags);
		fdom_wake(dom);
		spin_unlock_irqrestore(&dom->lock, flags);
	}
	rcu_read_unlock();
}

/*
 * Take qp out of its domain, which goes when it is left empty. Caller
 * holds the context's domain mutex, under which alone a QP's domain
 * pointer is written.
 */
static void fdom_leave(struct rxe_qp *qp, struct xrxe_fdom *dom)
{
	struct xrxe_dbl *d = qp->dbl;
	unsigned long flags;

	spin_lock_irqsave(&dom->lock, flags);
	fdom_end_wait(dom, d);
	dom->member[d->fdom_slot] = NULL;
	dom->members--;
	RCU_INIT_POINTER(d->fdom, NULL);
	/* What waited for it waits no more. */
	fdom_wake(dom);
	spin_unlock_irqrestore(&dom->lock, flags);
	if (!dom->members) {
		/* No member is left to queue it again. */
		cancel_delayed_work_sync(&dom->watchdog);
		xa_erase(&dom->uc->xrxe_fdoms, dom->id);
		kfree_rcu(dom, rcu);
	}
}

/* Put qp into dom, which has room. Caller holds the domain mutex. */
static void fdom_join(struct rxe_qp *qp, struct xrxe_fdom *dom)
{
	struct xrxe_dbl *d = qp->dbl;
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&dom->lock, flags);
	for (i = 0; i < XRXE_FLUSH_DOMAIN_MAX_QPS - 1 && dom->member[i]; i++)
		;
	dom->member[i] = qp;
	dom->members++;
	d->fdom_slot = i;
	d->fdom_epoch = ++dom->epochs;
	rcu_assign_pointer(d->fdom, dom);
	spin_unlock_irqrestore(&dom->lock, flags);
}

/*
 * qp's domain. Only a holder of the context's domain mutex may rely on it:
 * uverbs serializes a QP's destroy against its modifies, not two modifies
 * of one QP, so another thread may be moving the QP meanwhile.
 */
static struct xrxe_fdom *fdom_of(struct rxe_qp *qp, struct rxe_ucontext *uc)
{
	return rcu_dereference_protected(qp->dbl->fdom,
					 lockdep_is_held(&uc->xrxe_fdom_lock));
}

/*
 * Move qp (a doorbell-less RC QP of uc) to flush domain id of its context,
 * 0 for none: EBUSY while WQEs the engine took from it have not completed
 * (a flush may be counting them), ENOSPC if the domain is full, ENOMEM.
 */
int xrxe_fdom_set(struct rxe_qp *qp, struct rxe_ucontext *uc, u32 id)
{
	struct xrxe_dbl *d = qp->dbl;
	struct xrxe_fdom *old, *dom = NULL;
	int err = 0;

	mutex_lock(&uc->xrxe_fdom_lock);
	old = fdom_of(qp, uc);
	if (old && old->id == id)
		goto out;
	if (READ_ONCE(d->fetch) != READ_ONCE(d->completed)) {
		err = -EBUSY;
		goto out;
	}
	if (id) {
		dom = xa_load(&uc->xrxe_fdoms, id);
		if (dom && dom->members == XRXE_FLUSH_DOMAIN_MAX_QPS) {
			err = -ENOSPC;
			goto out;
		}
		if (!dom) {
			dom = kzalloc_obj(*dom);
			if (!dom) {
				err = -ENOMEM;
				goto out;
			}
			spin_lock_init(&dom->lock);
			INIT_DELAYED_WORK(&dom->watchdog, fdom_watchdog);
			dom->id = id;
			dom->uc = uc;
			err = xa_err(xa_store(&uc->xrxe_fdoms, id, dom,
					      GFP_KERNEL));
			if (err) {
				kfree(dom);
				goto out;
			}
		}
	}
	if (old)
		fdom_leave(qp, old);
	if (dom)
		fdom_join(qp, dom);
out:
	mutex_unlock(&uc->xrxe_fdom_lock);
	return err;
}

/*
 * The user context of qp (a doorbell-less QP is a user QP, and uverbs gave
 * it a PD of the same context), whose domain mutex guards its domain.
 */
static struct rxe_ucontext *fdom_uc(struct rxe_qp *qp)
{
	return container_of(qp->ibqp.pd->uobject->context, struct rxe_ucontext,
			    ibuc);
}

/* The QP is being destroyed: out of its domain. */
void xrxe_fdom_detach(struct rxe_qp *qp)
{
	struct rxe_ucontext *uc;
	struct xrxe_fdom *dom;

	if (!qp->dbl)
		return;
	uc = fdom_uc(qp);
	mutex_lock(&uc->xrxe_fdom_lock);
	dom = fdom_of(qp, uc);
	if (dom)
		fdom_leave(qp, dom);
	mutex_unlock(&uc->xrxe_fdom_lock);
}

/*
 * The QP was reset: its counts start again from 0, so what others recorded
 * of it no longer holds (a new epoch), and its own flush is gone. Under the
 * domain mutex: a modify of the same QP from another thread may be moving
 * it to another domain, or freeing the one it leaves.
 */
void xrxe_fdom_reset(struct rxe_qp *qp)
{
	struct xrxe_dbl *d = qp->dbl;
	struct rxe_ucontext *uc;
	struct xrxe_fdom *dom;
	unsigned long flags;

	if (!d)
		return;
	uc = fdom_uc(qp);
	mutex_lock(&uc->xrxe_fdom_lock);
	dom = fdom_of(qp, uc);
	if (dom) {
		spin_lock_irqsave(&dom->lock, flags);
		fdom_end_wait(dom, d);
		d->fdom_epoch = ++dom->epochs;
		fdom_wake(dom);
		spin_unlock_irqrestore(&dom->lock, flags);
	}
	mutex_unlock(&uc->xrxe_fdom_lock);
}
