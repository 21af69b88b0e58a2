// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The engines: kernel threads that serve doorbell-less send queues, each
 * with a run list of the contexts that have QPs waiting, and a turn of one
 * QP at a time (a quantum of WQEs taken from its ring, then its send
 * task). A doorbell gives an idle QP its first turn in the caller's own
 * context.
 */

#include <linux/debugfs.h>
#include <linux/kthread.h>
#include <linux/seq_file.h>
#include "rxe.h"
#include "rxe_loc.h"
#include "rxe_hw_counters.h"
#include "xrxe_engine.h"

static unsigned int num_engines_param;
module_param_named(engines, num_engines_param, uint, 0444);
MODULE_PARM_DESC(engines,
		 "Engines serving doorbell-less send queues (0: one per online CPU; at most 32)");

static unsigned int engine_idle_us;
module_param(engine_idle_us, uint, 0644);
MODULE_PARM_DESC(engine_idle_us,
		 "Time an engine keeps polling an empty send queue before it asks for a doorbell (us)");

static unsigned int engine_idle_user_max_us = 100;
module_param(engine_idle_user_max_us, uint, 0644);
MODULE_PARM_DESC(engine_idle_user_max_us,
		 "Longest busy-poll window a QP may choose without CAP_SYS_NICE (us)");

static unsigned int engine_turn_steps = 32;
module_param(engine_turn_steps, uint, 0644);
MODULE_PARM_DESC(engine_turn_steps,
		 "Send task steps (about a packet each) an engine runs for one QP in a turn before it serves the next (0 counts as 1)");

/*
 * A stream of multi-packet WQEs runs its send work on rxe's workqueue, as
 * the classic path does: each QP's task gets a worker of its own, which
 * the scheduler spreads over every CPU, where an engine serves all its
 * QPs' packets from one thread (at 4 QPs on 2 CPUs, bulk writes 0.77x
 * stock through the engines, 1.13x on the classic path; 1 MiB sends 0.98x
 * and 1.50x). The engine still takes the WQEs from the ring.
 */
static unsigned int engine_bulk_packets = 4;
module_param(engine_bulk_packets, uint, 0644);
MODULE_PARM_DESC(engine_bulk_packets,
		 "WQEs of at least this many packets each have their send work run on the workqueue, not by an engine (0: never)");

static unsigned int engine_quantum = 16;
module_param(engine_quantum, uint, 0644);
MODULE_PARM_DESC(engine_quantum,
		 "WQEs an engine takes from one send queue in a turn before it serves the next (0 counts as 1)");

/*
 * An engine serves the QPs of every user. At nice 0 it gets one thread's
 * share of a CPU against each process that spins on its CQ waiting for the
 * engine's work; a lower value gives it more, taken from every other
 * process on its CPU: the administrator's choice, not a user's.
 */
static int engine_nice;

/* xrxe_engines and xrxe_nr_engines, against a writer of engine_nice */
static DEFINE_MUTEX(engines_mutex);

struct xrxe_engine *xrxe_engines;
unsigned int xrxe_nr_engines;
static struct dentry *debugfs_dir;

unsigned int xrxe_num_engines(void)
{
	return xrxe_nr_engines;
}

/*
 * Whether a QP may ask its engine to busy-poll for idle_us: engines are
 * shared by all users, so a long window is a privilege.
 */
bool xrxe_engine_may_poll(s32 idle_us)
{
	return idle_us <= READ_ONCE(engine_idle_user_max_us) ||
	       capable(CAP_SYS_NICE);
}

/*
 * Run qp's send task in a turn. An engine runs a bounded part of it and
 * requeues the rest behind its other QPs; a doorbell's turn is the
 * caller's own time.
 */
static void dbl_run_send(struct rxe_qp *qp, bool by_engine)
{
	/*
	 * An engine serves many users' QPs and must not wait on one
	 * process's page fault (a FUSE file's page may take for ever): the
	 * send work of a QP that may reach an ODP MR runs on the
	 * workqueue, where a fault holds only its own worker.
	 */
	if (by_engine && rxe_pd_has_odp(qp->pd)) {
		rxe_counter_inc(to_rdev(qp->ibqp.device),
				XRXE_CNT_ODP_ENGINE_HANDOFFS);
		xrxe_sched_task_wq(&qp->send_task);
	} else if (by_engine && qp->dbl->bulk) {
		xrxe_sched_task_wq(&qp->send_task);
	} else if (by_engine)
		xrxe_run_task_budget(&qp->send_task,
				     max(READ_ONCE(engine_turn_steps), 1U));
	else
		xrxe_run_task(&qp->send_task);
}

/*
 * One turn of an engine for one QP: up to engine_quantum WQEs taken, then
 * run together, so that the requester sends them back to back and the
 * last one's ACK covers them all. A turn that drained the ring goes on to
 * the idle path at once. A turn run for a low-latency command (ll, len
 * bytes) takes it first, if it can, and says what it did in *ll_result.
 * A QP its rate limit paused takes no turn: its timer gives it back.
 * Returns true while the QP should stay on the engine's run list.
 */
static bool dbl_serve(struct rxe_qp *qp, bool by_engine,
		      const struct xrxe_ll_cmd *ll, size_t len, int *ll_result)
{
	struct xrxe_dbl *d = qp->dbl;
	struct rxe_dev *rxe = to_rdev(qp->ibqp.device);
	unsigned int quantum = max(READ_ONCE(engine_quantum), 1U);
	unsigned int n = 0, bulk;
	bool resume;
	s64 idle_us;

	xrxe_sq_count(d, XRXE_QP_TURNS);
	if (ll) {
		*ll_result = xrxe_sq_take_ll(qp, ll, len);
		if (*ll_result == XRXE_LL_ACCEPTED)
			n++;
	}
	/*
	 * Paused: off the run list. Not in error, where WQEs are flushed,
	 * not sent, nor with a command just taken: the requester must run
	 * for it, and charges it.
	 */
	resume = test_and_clear_bit(XRXE_DBL_RESUME, &d->flags);
	/*
	 * Held at a domain flush: what it would take waits behind the flush.
	 * Its requester runs for a command just taken, and stops there.
	 */
	if (xrxe_fdom_waiting(qp) && qp_state(qp) != IB_QPS_ERR) {
		xrxe_fdom_test_delay();
		if (resume || n)
			dbl_run_send(qp, by_engine);
		return false;
	}
	if (xrxe_pace_paused(qp) && qp_state(qp) != IB_QPS_ERR && !n) {
		/* Its completer takes ACKs meanwhile; its requester waits. */
		if (resume)
			dbl_run_send(qp, by_engine);
		return false;
	}
	while (n < quantum && xrxe_sq_fetch_one(qp))
		n++;
	if (n) {
		bulk = READ_ONCE(engine_bulk_packets);
		d->bulk = bulk && d->take_bytes >= (u64)n * bulk * qp->mtu;
		xrxe_ocu_charge(d, n, d->take_cost, by_engine);
		atomic64_add(n, &d->engine->wqes);
		atomic64_add(d->take_bytes, &d->engine->bytes);
		d->take_cost = 0;
		d->take_bytes = 0;
		if (d->idle_since) {
			xrxe_count(qp, XRXE_QP_BUSY_POLL_HITS,
				   XRXE_CNT_BUSY_POLL_HITS);
			d->idle_since = 0;
		}
		/* Every WQE but one that a doorbell announced came without. */
		rxe_counter_add(rxe, XRXE_CNT_DOORBELLS_AVOIDED,
				n - d->doorbell_pending);
		d->doorbell_pending = false;
	}
	/* Scheduled send work runs even if no slot was taken. */
	if (n || resume) {
		dbl_run_send(qp, by_engine);
		xrxe_fdom_test_delay();
	}
	/* A full quantum: there may be more. */
	if (n == quantum)
		return true;
	/* Parked until the completer frees room: it kicks the engine. */
	if (test_bit(XRXE_DBL_SQ_FULL, &d->flags))
		return false;
	/* Not allowed to send: the first post after RTS must ring. */
	if (!xrxe_sq_may_fetch(qp)) {
		WRITE_ONCE(d->status->need_wakeup, 1);
		return false;
	}
	/*
	 * Kicked during the turn (the requester used up its steps, an ACK
	 * reopened its window, a post came): another turn follows and looks
	 * at the ring first, so posts meanwhile need no doorbell.
	 */
	if (READ_ONCE(d->kicked)) {
		WRITE_ONCE(d->status->need_wakeup, 0);
		return true;
	}

	/* Busy-poll an empty ring for a while before asking for doorbells. */
	idle_us = READ_ONCE(d->idle_us);
	if (idle_us < 0)
		idle_us = READ_ONCE(engine_idle_us);
	if (idle_us) {
		u64 now = ktime_get_ns();

		if (!d->idle_since)
			d->idle_since = now;
		if (now - d->idle_since < idle_us * 1000ULL)
			return true;
	}
	d->idle_since = 0;

	WRITE_ONCE(d->status->need_wakeup, 1);
	/*
	 * Full barrier: the provider must see need_wakeup before we look at
	 * the slot again, or we must see its slot. Pairs with the provider's
	 * full barrier between its store of gen and its load of need_wakeup.
	 */
	smp_mb();
	if (xrxe_sq_slot_ready(d)) {
		WRITE_ONCE(d->status->need_wakeup, 0);
		return true;
	}
	return false;
}

/*
 * One turn for d, by its engine or by a doorbell (by_engine false, with
 * ll_result); the caller owns d->queued.
 */
static bool dbl_turn(struct xrxe_dbl *d, bool by_engine,
		     const struct xrxe_ll_cmd *ll, size_t len, int *ll_result)
{
	bool more = false;

	/*
	 * Only a reset holds serve_lock against the QP's turn. The engine,
	 * shared by every QP, never waits for it: the QP leaves the engine,
	 * and the reset asks the provider for a doorbell. A doorbell's turn
	 * runs in the QP owner's own context and may wait.
	 */
	if (by_engine) {
		if (!mutex_trylock(&d->serve_lock))
			return false;
	} else {
		mutex_lock(&d->serve_lock);
	}
	if (!d->detached)
		more = dbl_serve(d->qp, by_engine, ll, len, ll_result);
	else if (ll)
		*ll_result = XRXE_LL_DROPPED_STATE;
	mutex_unlock(&d->serve_lock);
	return more;
}

/*
 * Mark d queued, on its OCU's engine, for a turn or a place on the run
 * list; an OCU that had drained is mapped again first. Caller holds d's
 * OCU lock.
 */
static struct xrxe_engine *dbl_queue(struct xrxe_dbl *d)
{
	struct xrxe_ocu *o = d->ocu;
	struct xrxe_engine *e;

	if (!o->busy)
		xrxe_ocu_map(o, d);
	o->queued++;
	e = o->engine;
	d->queued = true;
	d->engine = e;
	d->owner = &d->owners[e - xrxe_engines];
	WRITE_ONCE(d->status->engine, e - xrxe_engines);
	return e;
}

/*
 * Queue d for a turn: last among its owner's QPs, and its owner last on
 * the engine's run list if it had no QP waiting. Caller holds d's OCU lock
 * and e->lock.
 */
static void dbl_enqueue(struct xrxe_engine *e, struct xrxe_dbl *d)
{
	struct xrxe_owner *o = d->owner;

	if (list_empty(&o->qps))
		list_add_tail(&o->node, &e->run_list);
	list_add_tail(&d->node, &o->qps);
}

/* Take d off its owner's waiting QPs. Caller holds e->lock. */
void xrxe_engine_unlink(struct xrxe_dbl *d)
{
	list_del_init(&d->node);
	if (list_empty(&d->owner->qps))
		list_del_init(&d->owner->node);
}

/*
 * The next QP to serve: the first owner's first QP. The owner goes to the
 * back of the run list, so that every context with work has one turn per
 * round whatever its number of QPs. Caller holds e->lock.
 */
static struct xrxe_dbl *dbl_dequeue(struct xrxe_engine *e)
{
	struct xrxe_owner *o;
	struct xrxe_dbl *d;

	o = list_first_entry_or_null(&e->run_list, struct xrxe_owner, node);
	if (!o)
		return NULL;
	d = list_first_entry(&o->qps, struct xrxe_dbl, node);
	xrxe_engine_unlink(d);
	if (!list_empty(&o->qps))
		list_move_tail(&o->node, &e->run_list);
	return d;
}

/*
 * After a turn: back on the engine's run list if the QP has more work or a
 * doorbell came meanwhile, else off the engine (dropping the list's QP
 * reference: d may be gone once the caller's locks are released).
 * Returns whether the QP was put on the list. Caller holds d's OCU lock
 * and e->lock.
 */
static bool dbl_turn_done(struct xrxe_engine *e, struct xrxe_dbl *d,
			  bool more)
{
	if (!d->detached && (more || d->kicked)) {
		d->kicked = false;
		dbl_enqueue(e, d);
		return true;
	}
	xrxe_ocu_leave(d);
	rxe_put(d->qp);
	return false;
}

/*
 * End a turn of d on e: dbl_turn_done() under d's OCU lock and e->lock.
 * Returns whether d was put back on the run list.
 */
static bool dbl_end_turn(struct xrxe_engine *e, struct xrxe_dbl *d,
			 bool more)
{
	/* Read first: once let go, d may be on another OCU, or gone. */
	struct xrxe_ocu *o = d->ocu;
	unsigned long flags;
	bool requeued;

	spin_lock_irqsave(&o->lock, flags);
	spin_lock(&e->lock);
	requeued = dbl_turn_done(e, d, more);
	spin_unlock(&e->lock);
	spin_unlock_irqrestore(&o->lock, flags);
	return requeued;
}

static int engine_thread(void *arg);

/* Whether the caller is an engine thread, which must never fault. */
bool xrxe_in_engine(void)
{
	return (current->flags & PF_KTHREAD) &&
	       kthread_func(current) == engine_thread;
}

static int engine_thread(void *arg)
{
	struct xrxe_engine *e = arg;
	struct xrxe_ocu *o;
	struct xrxe_dbl *d;
	unsigned long flags;
	bool more;
	u64 start;

	while (!kthread_should_stop()) {
		spin_lock_irqsave(&e->lock, flags);
		d = dbl_dequeue(e);
		spin_unlock_irqrestore(&e->lock, flags);
		if (!d) {
			wait_event_interruptible(e->wait,
						 kthread_should_stop() ||
						 !list_empty_careful(&e->run_list));
			continue;
		}
		/* Queued, so its OCU and engine stay as they are. */
		o = d->ocu;
		spin_lock_irqsave(&o->lock, flags);
		d->kicked = false;
		spin_unlock_irqrestore(&o->lock, flags);

		start = ktime_get_ns();
		more = dbl_turn(d, true, NULL, 0, NULL);
		atomic64_add(ktime_get_ns() - start, &e->busy_ns);
		atomic64_inc(&e->turns);

		dbl_end_turn(e, d, more);
		cond_resched();
	}
	return 0;
}

static void dbl_wake_engine(struct xrxe_engine *e, struct xrxe_dbl *d)
{
	wake_up(&e->wait);
	xrxe_count(d->qp, XRXE_QP_WAKEUPS, XRXE_CNT_ENGINE_WAKEUPS);
}

/*
 * Ring d's doorbell: an idle QP has its first turn here, in the caller's
 * context, as the classic doorbell runs the send work, so that a lone WQE
 * does not wait for an engine to be scheduled; if more work follows, the
 * engine takes the QP over. A QP waiting on its engine's run list is taken
 * off it and has its turn here too: its owner's post need not wait behind
 * the turns of the engine's other QPs. A QP its engine is serving only
 * gets kicked, and so does a stream's (xrxe_req_post_here()): its engine
 * takes the post's WQE from the ring, a command's with it dropped busy.
 *
 * A low-latency command (ll, len bytes, copied and checked) is a doorbell
 * carrying its WQE: the turn takes the WQE from the command instead of the
 * ring if it can. Returns what became of the command, an enum
 * xrxe_ll_result.
 */
int xrxe_engine_ring(struct rxe_qp *qp, const struct xrxe_ll_cmd *ll, size_t len)
{
	struct xrxe_dbl *d = qp->dbl;
	struct xrxe_engine *e = NULL;
	int result = XRXE_LL_DROPPED_BUSY;
	struct xrxe_ocu *o;
	unsigned long flags;
	bool more;

	WRITE_ONCE(d->status->need_wakeup, 0);
	/* The WQE it announces is not one that came without a system call. */
	d->doorbell_pending = true;

	/* A stream's post goes to the engine, its WQE with the ring's. */
	if (!xrxe_req_post_here(qp, READ_ONCE(d->fetch) !=
				READ_ONCE(d->completed))) {
		/* A paused QP's command is dropped for its pacing, as ever. */
		if (ll && xrxe_pace_paused(qp))
			result = XRXE_LL_DROPPED_PACED;
		return xrxe_engine_kick(qp) ? result : XRXE_LL_DROPPED_STATE;
	}
	o = xrxe_ocu_lock(d, &flags);
	if (d->detached) {
		/* nothing: the QP is going away */
		result = XRXE_LL_DROPPED_STATE;
	} else if (d->queued) {
		spin_lock(&d->engine->lock);
		if (list_empty(&d->node)) {
			/* Being served: its engine's turn goes on. */
			d->kicked = true;
		} else {
			/* Ours until dbl_turn_done(), with the list's reference. */
			xrxe_engine_unlink(d);
			d->kicked = false;
			e = d->engine;
		}
		spin_unlock(&d->engine->lock);
	} else {
		/* Off the list but queued: ours until dbl_turn_done(). */
		e = dbl_queue(d);
		d->kicked = false;
		rxe_get(qp);
	}
	spin_unlock_irqrestore(&o->lock, flags);
	if (!e)
		return result;

	/* Queued, so its OCU stays as it is. */
	more = dbl_turn(d, false, ll, len, &result);
	if (dbl_end_turn(e, d, more))
		dbl_wake_engine(e, d);
	return result;
}

/*
 * Give a QP back to its engine (from the completer, a timer, in any
 * context): onto the run list if no one serves it, else kicked. Returns
 * false if the QP has left its engine for good.
 */
bool xrxe_engine_kick(struct rxe_qp *qp)
{
	struct xrxe_dbl *d = qp->dbl;
	struct xrxe_engine *e = NULL;
	unsigned long flags;
	struct xrxe_ocu *o;
	bool attached = true;

	o = xrxe_ocu_lock(d, &flags);
	if (d->detached) {
		/* nothing: the QP is going away */
		attached = false;
	} else if (d->queued) {
		d->kicked = true;
	} else {
		e = dbl_queue(d);
		rxe_get(qp);
		spin_lock(&e->lock);
		dbl_enqueue(e, d);
		spin_unlock(&e->lock);
	}
	spin_unlock_irqrestore(&o->lock, flags);
	if (e)
		dbl_wake_engine(e, d);
	return attached;
}

/*
 * Send work scheduled for qp while it has WQEs to send (a requester that
 * its window or the skb limit stopped, the ACKs that reopen the window, a
 * retry): its engine's next turn runs the send task, so that the work of
 * sending a QP's WQEs is done where its OCU placed it, served in turn with
 * the engine's other QPs, and counted in the engine's busy time.
 *
 * Completion work alone (every WQE sent, ACKs or read responses to
 * complete) is not send work: it stays on rxe_wq, as in rxe, so that a
 * ping-pong's completion does not wait behind a turn of the bulk QPs of
 * its engine. The test is a hint read outside the send task: either way
 * the task runs, only where differs.
 *
 * Returns false if the QP has no engine (none, or detached for destroy)
 * or only completion work: the caller queues the task as rxe does.
 */
bool xrxe_engine_sched(struct rxe_qp *qp)
{
	struct xrxe_dbl *d = qp->dbl;

	if (!d || !rxe_req_has_unsent(qp))
		return false;
	/* Read by the turn under its engine's lock, taken by the kick. */
	set_bit(XRXE_DBL_RESUME, &d->flags);
	return xrxe_engine_kick(qp);
}

/*
 * The QP's rate limit let it send again (from its timer, in softirq
 * context): its load counts again, and its engine's next turn fetches and
 * runs the requester. A kick, not rxe_sched_task(): the pause took the QP
 * off its engine with WQEs perhaps left in its ring, which only a turn
 * fetches, while a send task running now would only be armed, and its
 * next run may find nothing unsent in the kernel's queue.
 */
void xrxe_engine_resume(struct rxe_qp *qp)
{
	xrxe_ocu_hold(qp->dbl, false);
	xrxe_engine_wake(qp);
}

/* A held QP may go on: its engine's next turn fetches and runs it. */
void xrxe_engine_wake(struct rxe_qp *qp)
{
	/* Read by the turn under its engine's lock, taken by the kick. */
	set_bit(XRXE_DBL_RESUME, &qp->dbl->flags);
	if (!xrxe_engine_kick(qp))
		rxe_sched_task(&qp->send_task);
}

/* The doorbell of a post_send(): the provider saw need_wakeup. */
void xrxe_engine_doorbell(struct rxe_qp *qp)
{
	xrxe_count(qp, XRXE_QP_DOORBELLS, XRXE_CNT_DOORBELLS);
	xrxe_engine_ring(qp, NULL, 0);
}

/*
 * A context's owners, one per engine, for the doorbell-less QPs it may
 * create; freed with the context, after its QPs.
 */
int xrxe_owners_alloc(struct rxe_ucontext *uc)
{
	unsigned int i;

	uc->xrxe_owners = kcalloc(xrxe_nr_engines, sizeof(*uc->xrxe_owners),
				  GFP_KERNEL);
	if (!uc->xrxe_owners)
		return -ENOMEM;
	for (i = 0; i < xrxe_nr_engines; i++) {
		INIT_LIST_HEAD(&uc->xrxe_owners[i].node);
		INIT_LIST_HEAD(&uc->xrxe_owners[i].qps);
	}
	return 0;
}

void xrxe_owners_free(struct rxe_ucontext *uc)
{
	kfree(uc->xrxe_owners);
	uc->xrxe_owners = NULL;
}

/*
 * debugfs rdma_xrxe/engines: each engine's load, busy OCUs and the work it
 * did; the load is a gauge, which no hw counter can be.
 */
static int engines_show(struct seq_file *m, void *unused)
{
	u64 now = ktime_get_ns(), recent;
	unsigned int i;

	seq_puts(m, "engine load busy_ocus wqes bytes turns busy_ns recent\n");
	for (i = 0; i < xrxe_nr_engines; i++) {
		struct xrxe_engine *e = &xrxe_engines[i];

		recent = xrxe_engine_recent_peek(e, now);
		seq_printf(m, "%u %lld %d %lld %lld %lld %lld %llu\n", i,
			   (s64)atomic64_read(&e->load),
			   atomic_read(&e->busy_ocus),
			   (s64)atomic64_read(&e->wqes),
			   (s64)atomic64_read(&e->bytes),
			   (s64)atomic64_read(&e->turns),
			   (s64)atomic64_read(&e->busy_ns), recent);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(engines);

static int engine_nice_set(const char *val, const struct kernel_param *kp)
{
	unsigned int i;
	int nice, err;

	err = kstrtoint(val, 0, &nice);
	if (err)
		return err;
	if (nice < MIN_NICE || nice > MAX_NICE)
		return -EINVAL;
	mutex_lock(&engines_mutex);
	engine_nice = nice;
	for (i = 0; i < xrxe_nr_engines; i++)
		set_user_nice(xrxe_engines[i].thread, nice);
	mutex_unlock(&engines_mutex);
	return 0;
}

static const struct kernel_param_ops engine_nice_ops = {
	.set = engine_nice_set,
	.get = param_get_int,
};
module_param_cb(engine_nice, &engine_nice_ops, &engine_nice, 0644);
MODULE_PARM_DESC(engine_nice,
		 "Nice value of the engine threads (-20 to 19)");

int xrxe_engines_start(void)
{
	unsigned int i, n = num_engines_param;
	int err;

	/*
	 * One per CPU, so that the send work of as many streams as CPUs can
	 * run at once, as stock rxe's unbound workqueue lets it. Unbound,
	 * like that workqueue's workers: the scheduler places them, and an
	 * engine with nothing to do sleeps.
	 */
	if (!n)
		n = num_online_cpus();
	if (n > XRXE_MAX_ENGINES) {
		pr_notice("engines=%u: using the most, %u\n", n,
			  XRXE_MAX_ENGINES);
		n = XRXE_MAX_ENGINES;
	}
	xrxe_engines = kcalloc(n, sizeof(*xrxe_engines), GFP_KERNEL);
	if (!xrxe_engines)
		return -ENOMEM;
	err = xrxe_ocus_alloc(n);
	if (err) {
		kfree(xrxe_engines);
		xrxe_engines = NULL;
		return err;
	}
	for (i = 0; i < n; i++) {
		struct xrxe_engine *e = &xrxe_engines[i];

		spin_lock_init(&e->lock);
		INIT_LIST_HEAD(&e->run_list);
		init_waitqueue_head(&e->wait);
		e->thread = kthread_run(engine_thread, e, "xrxe_engine/%u", i);
		if (IS_ERR(e->thread)) {
			err = PTR_ERR(e->thread);
			xrxe_nr_engines = i;
			xrxe_engines_stop();
			return err;
		}
		mutex_lock(&engines_mutex);
		set_user_nice(e->thread, engine_nice);
		xrxe_nr_engines = i + 1;
		mutex_unlock(&engines_mutex);
	}
	/* For inspection only: the module works without it. */
	debugfs_dir = debugfs_create_dir("rdma_xrxe", NULL);
	debugfs_create_file("engines", 0400, debugfs_dir, NULL,
			    &engines_fops);
	xrxe_ocu_debugfs(debugfs_dir);
	xrxe_stage_debugfs(debugfs_dir);
	/* Test knobs, which no administrator sets. */
	debugfs_create_u32("fdom_delay_us", 0600, debugfs_dir,
			   &xrxe_fdom_delay_us);
	debugfs_create_u32("ll_drop_every", 0600, debugfs_dir,
			   &xrxe_ll_drop_every);
	debugfs_create_u32("pace_delay_us", 0600, debugfs_dir,
			   &xrxe_pace_delay_us);
	return 0;
}

void xrxe_engines_stop(void)
{
	unsigned int i;

	debugfs_remove_recursive(debugfs_dir);
	debugfs_dir = NULL;
	mutex_lock(&engines_mutex);
	for (i = 0; i < xrxe_nr_engines; i++)
		kthread_stop(xrxe_engines[i].thread);
	kfree(xrxe_engines);
	xrxe_engines = NULL;
	xrxe_nr_engines = 0;
	mutex_unlock(&engines_mutex);
	xrxe_ocus_free();
}
