// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A model, with real threads, of a flush domain's wait and wake-up
 * (xrxe_fdom.c) together with the doorbell-less engine's hold, kick and
 * need-wakeup handshake (xrxe_engine.c) and the send task (rxe_task.c): a
 * poster (the provider) posts records on QPs 3, 2, 1, 0 and then a tag on
 * QP 0 flagged as a domain flush, now and then only once the records have
 * completed; engines serve the QPs from run lists; wire threads send ACKs
 * for what was sent, in order per QP. An ACK schedules the QP's send task
 * (rxe_comp_queue_pkt(), rxe_sched_task()): armed if it runs, else with
 * WQEs unsent to the QP's engine (xrxe_engine_sched(): RESUME, then a kick),
 * else to a workqueue thread (rxe_wq), where it runs outside any turn,
 * beside the QP's turns. The send task (rxe_sender()) runs the requester,
 * then the completer (one ACK a call), until neither has work; on the
 * workqueue or in a doorbell's turn again while armed, in an engine's turn
 * for one pass (xrxe_run_task_budget()). A doorbell with nothing in flight
 * has the QP's turn in the poster's context (xrxe_engine_ring()).
 *
 * The protocol's invariants, as the model has them:
 * - Snapshot: the requester, with the flush at its head, takes for each
 *   other member its fetch plus what is posted in its ring and not fetched
 *   (a member held at its own flush: only up to that flush), and for
 *   itself the count of its WQEs before the flush. The flush starts once
 *   every count is reached; checked: what the other QPs had posted when the
 *   tag reached the head has completed (safety).
 * - The flush states and waiting (the flushes not NONE) change only under
 *   the domain's lock: waiting is raised by the requester that looks at a
 *   new flush, and lowered by that requester if the domain is drained
 *   already, else by the requester that starts the flush. completed is
 *   written by its QP's completer and req by its requester, both in the
 *   QP's send task; fetch by its turns.
 * - One runner of a QP's send task at a time: its state (IDLE, BUSY,
 *   ARMED) changes under the task's lock. A scheduling while it runs arms
 *   it, and its runner runs it again, or, after an engine's pass, schedules
 *   it anew; a turn that finds it running elsewhere only arms it. No
 *   scheduling is lost.
 * - Two store-buffer pairs, a full barrier on each side, so that either
 *   side sees the other: the requester's waiting++ before it reads the
 *   counts (fdom_must_wait(), xrxe_fdom.c) against a completer's new count
 *   before it reads waiting (complete(), xrxe_sq_complete()); and the
 *   engine's need_wakeup = 1 before its second look at the ring
 *   (dbl_serve()) against the poster's count before its look at
 *   need_wakeup (post(), the provider's xrxe_dbl_need_doorbell()).
 * - A QP held at its flush (WAITING) leaves its engine without asking for
 *   doorbells: whoever ends a hold kicks the QP (RESUME, then a kick) -- the
 *   completer that finds the domain drained (READY), and the requester that
 *   finds it drained itself while WAITING. A turn reads the state without
 *   the domain's lock, while the requester may run beside it on the
 *   workqueue: so a flush is marked WAITING only once it waits, never for
 *   the moment between its arming and a look that finds the domain drained
 *   already. Every round completes within STALL_MS of the last (liveness).
 * - A kick of a QP being served sets kicked; the end of the turn requeues
 *   it. One turn at a time per QP; no kick lost.
 *
 * Simplified: one call of the model's requester sends all that was
 * fetched, and the send task's step budget never runs out (an engine's
 * pass has engine_turn_steps, 32, for a quantum of QUANTUM); the workqueue
 * has one worker (rxe_wq runs the tasks of different QPs at once, here one
 * after another); an ACK is the count it acknowledges up to, never lost,
 * and the requester has no window.
 *
 * Left out: epochs (no member leaves or is reset, so every recorded one
 * would match), leave and reset, the watchdog (the protocol must not need
 * its rescue), low-latency commands, pacing, OCU remaps (QP q is on engine
 * q % NENGINE for good), SQ_FULL (the kernel queue never fills), the idle
 * busy-poll (engine_idle_us 0, the default), retries and their timers, the
 * answers a received request lets run in the poster's context (no QP
 * receives), and serve_lock (only a reset holds it against a turn).
 * Only QP 0 posts flushes, so the cap at a member's own flush is modelled
 * but never taken.
 *
 * The delay points (model_delay(), random, at times none, at times the CPU
 * given up) are those of the kernel's test knob, xrxe_fdom_test_delay(),
 * and one it lacks: between the arming's full barrier and its look at the
 * counts, the window of that store-buffer pair, and under the old NONE
 * order the life of a transient WAITING. The wire adds an ACK's latency.
 *
 * XRXE_FDOM_MODEL_SECS sets the run's length. XRXE_FDOM_MODEL_OLD runs a
 * protocol from before a fix and says whether the model caught it, without
 * failing (a person's check, not ctest's): 1, no kick when the requester
 * finds the domain drained while WAITING; 2, the old NONE case, WAITING
 * set before the look at the counts and the flush started at once, with
 * no kick, if the domain was drained already: a turn beside the requester
 * (on the workqueue) that sees that WAITING leaves the QP off its engine,
 * need_wakeup 0, for good.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cunit_run.h"

#define NQP		4	/* members of the one domain; QP 0 posts tags */
#define NENGINE		2
#define NWIRE		2	/* wire threads: QP q's is q % NWIRE */
#define RING		16	/* slots of a ring, a power of 2 */
/* Smaller than the kernel's 16: this workload's turns fill it too. */
#define QUANTUM		2
#define DELAY_SPINS	2000	/* the test knob: 0..DELAY_SPINS spins */
#define DRAIN_EVERY	4	/* rounds whose tag waits for its records */
#define STALL_MS	5000	/* no round completed for this long: stuck */
#define RUN_MS		2500	/* default length of a run */
#define OLD_RUN_MS	60000	/* of an old protocol's run, cut by a stall */

enum fdom_state { FDOM_NONE, FDOM_WAITING, FDOM_READY };
enum task_state { TASK_IDLE, TASK_BUSY, TASK_ARMED };

/* XRXE_FDOM_MODEL_OLD: which protocol runs. */
enum protocol {
	FIXED,
	OLD_NO_START_KICK,	/* 1: no kick at the WAITING-case start */
	OLD_WAITING_FIRST,	/* 2: WAITING before the look at the counts */
};

struct engine;

struct mqp {
	unsigned int id;
	struct engine *e;
	/* The provider's ring: slots, then their count (release). */
	bool ring_flush[RING];
	atomic_uint posted;
	atomic_uint need_wakeup;
	/* Kernel side: the fetched copies, written by the turns. */
	bool kflush[RING];
	atomic_uint fetch;	/* release: the copy before; read by snapshots */
	atomic_uint req;	/* all before it sent: read by the wire */
	/*
	 * The ACKs (resp_pkts): the count each acknowledges up to, queued
	 * by its wire thread (head, release), taken by its completer (tail).
	 * Each one queued acknowledges a WQE not completed: fewer than RING.
	 */
	uint32_t ack_at[RING];
	atomic_uint ack_head, ack_tail;
	atomic_uint acked;	/* by its wire thread: the last ACK's count */
	atomic_uint completed;	/* by its completer, in the send task */
	atomic_bool resume;
	/* The send task: its state under its lock (rxe_task.c). */
	pthread_mutex_t task_lock;
	enum task_state task;
	struct mqp *wq_next;	/* on the workqueue */
	/* The OCU lock: queued, and writes of kicked. */
	pthread_mutex_t lock;
	bool queued;
	atomic_bool kicked;	/* read by the turn without the lock */
	struct mqp *next;	/* on its engine's run list */
	/* The flush wait: under the domain's lock, state read without. */
	atomic_int state;
	uint32_t pos;
	uint32_t slots;
	uint32_t target[NQP];
	/* The safety check's own record, by the requester: index + 1. */
	uint32_t head_flush;
	uint32_t head_posted[NQP];
};

struct engine {
	pthread_mutex_t lock;
	pthread_cond_t wait;
	struct mqp *head, **tail;
};

static struct model {
	struct mqp qp[NQP];
	struct engine eng[NENGINE];
	/* The workqueue: send tasks queued to run outside a turn. */
	pthread_mutex_t wq_lock;
	pthread_cond_t wq_wait;
	struct mqp *wq_head, **wq_tail;
	pthread_mutex_t dom_lock;
	atomic_int waiting;
	enum protocol proto;
	atomic_bool stop;		/* every thread ends */
	atomic_bool stop_posting;	/* the poster drains, then ends */
	atomic_bool poster_done;
	atomic_uint rounds;		/* rounds whose tag completed */
	atomic_uint violations;
	/* For the report. */
	atomic_uint turns, held_turns, doorbells, holds, wakes, held_starts;
	atomic_uint first_starts, wq_runs, armed, wq_first_looks;
} M;

static _Thread_local uint64_t rng_state;
static _Thread_local bool on_wq;	/* this thread is the workqueue's */

static uint32_t rnd(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	rng_state = x;
	return x >> 32;
}

static void rnd_seed(unsigned int salt)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	rng_state = ((uint64_t)ts.tv_nsec << 20) ^ ts.tv_sec ^
		    ((uint64_t)salt << 48) ^ 0x9e3779b97f4a7c15ULL;
}

static void count(atomic_uint *c)
{
	atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
}

/* xrxe_fdom_test_delay(): a random wait, now and then the CPU given up. */
static void model_delay(void)
{
	volatile uint32_t n = rnd() % (DELAY_SPINS + 1);

	while (n)
		n--;
	if (!(rnd() % 64))
		sched_yield();
}

static uint32_t load(atomic_uint *v)
{
	return atomic_load_explicit(v, memory_order_relaxed);
}

static bool before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

/* Engines: a locked FIFO of the QPs queued and not in a turn. */

static void engine_enqueue(struct engine *e, struct mqp *d)
{
	d->next = NULL;
	*e->tail = d;
	e->tail = &d->next;
	pthread_cond_signal(&e->wait);
}

static struct mqp *engine_dequeue(struct engine *e)
{
	struct mqp *d = e->head;

	if (d) {
		e->head = d->next;
		if (!e->head)
			e->tail = &e->head;
	}
	return d;
}

/* dbl_unlink(): off the run list if on it (not in a turn). Locked. */
static bool engine_unlink(struct engine *e, struct mqp *d)
{
	struct mqp **p;

	for (p = &e->head; *p; p = &(*p)->next) {
		if (*p != d)
			continue;
		*p = d->next;
		if (!*p)
			e->tail = p;
		return true;
	}
	return false;
}

/* dbl_kick(): onto the run list if no one serves it, else kicked. */
static void dbl_kick(struct mqp *d)
{
	pthread_mutex_lock(&d->lock);
	if (d->queued) {
		atomic_store_explicit(&d->kicked, true, memory_order_relaxed);
	} else {
		d->queued = true;
		pthread_mutex_lock(&d->e->lock);
		engine_enqueue(d->e, d);
		pthread_mutex_unlock(&d->e->lock);
	}
	pthread_mutex_unlock(&d->lock);
}

/* xrxe_engine_wake(): a held QP may go on; its next turn runs its requester. */
static void dbl_wake(struct mqp *d)
{
	/* No barrier: the kick's lock orders it before the turn's read. */
	atomic_store_explicit(&d->resume, true, memory_order_relaxed);
	dbl_kick(d);
}

/* Flush domains: xrxe_fdom.c. */

/* fdom_snapshot(). Domain lock held. */
static void fdom_snapshot(struct mqp *d, uint32_t pos)
{
	struct mqp *md;
	uint32_t fetch, pending, target;
	unsigned int i;

	d->pos = pos;
	d->slots = 0;
	for (i = 0; i < NQP; i++) {
		md = &M.qp[i];
		if (md == d)
			continue;
		fetch = load(&md->fetch);
		/*
		 * Acquire: the posts that came before ours are seen here, as
		 * the kernel sees slots by their gen. A count behind fetch
		 * means nothing pending.
		 */
		pending = atomic_load_explicit(&md->posted,
					       memory_order_acquire) - fetch;
		if ((int32_t)pending < 0)
			pending = 0;
		target = fetch + pending;
		/* Held at its own flush: up to that flush only. */
		if (atomic_load_explicit(&md->state, memory_order_relaxed) ==
		    FDOM_WAITING && before(md->pos, target))
			target = md->pos;
		d->target[i] = target;
		d->slots |= 1U << i;
	}
}

/* fdom_drained(): members found done are not looked at again. Lock held. */
static bool fdom_drained(struct mqp *d)
{
	unsigned int i;

	if (before(load(&d->completed), d->pos))
		return false;
	for (i = 0; i < NQP; i++) {
		if (!(d->slots & (1U << i)))
			continue;
		if (before(load(&M.qp[i].completed), d->target[i]))
			return false;
		d->slots &= ~(1U << i);
	}
	return true;
}

/* fdom_end_wait(): the flush waits no more. Lock held. */
static void fdom_end_wait(struct mqp *d)
{
	if (atomic_load_explicit(&d->state, memory_order_relaxed) == FDOM_NONE)
		return;
	atomic_fetch_sub_explicit(&M.waiting, 1, memory_order_relaxed);
	atomic_store_explicit(&d->state, FDOM_NONE, memory_order_relaxed);
}

/* The NONE case: a new flush at the head. Domain lock held. */
static bool fdom_arm(struct mqp *d, uint32_t pos)
{
	bool old = M.proto == OLD_WAITING_FIRST, wait;

	if (on_wq)
		count(&M.wq_first_looks);
	fdom_snapshot(d, pos);
	model_delay();
	/* Before the fix: held from here, ended below if drained already. */
	if (old)
		atomic_store_explicit(&d->state, FDOM_WAITING,
				      memory_order_relaxed);
	atomic_fetch_add_explicit(&M.waiting, 1, memory_order_relaxed);
	/*
	 * Full barrier: a completer that publishes from here on sees waiting
	 * set, or we see its new count below. Pairs with the one in
	 * complete().
	 */
	atomic_thread_fence(memory_order_seq_cst);
	/* The model's own delay point: see the top comment. */
	model_delay();
	wait = !fdom_drained(d);
	if (old)
		return wait;	/* the caller's fdom_end_wait() if not */
	if (!wait) {
		/* Drained already: never held. */
		atomic_fetch_sub_explicit(&M.waiting, 1, memory_order_relaxed);
		return false;
	}
	/*
	 * Held only once it does wait: a turn reads the state without our
	 * lock, and one that saw a hold we end at once would leave the QP off
	 * its engine with no one to give it back.
	 */
	atomic_store_explicit(&d->state, FDOM_WAITING, memory_order_relaxed);
	return true;
}

/* xrxe_fdom_must_wait(): the flush at index pos is at the requester's head. */
static bool fdom_must_wait(struct mqp *d, uint32_t pos)
{
	bool wait = false, kick = false;

	pthread_mutex_lock(&M.dom_lock);
	switch (atomic_load_explicit(&d->state, memory_order_relaxed)) {
	case FDOM_NONE:
		wait = fdom_arm(d, pos);
		count(wait ? &M.holds : &M.first_starts);
		break;
	case FDOM_WAITING:
		/*
		 * Run while held, by its own ACK or the workqueue: the
		 * completer that drained the domain may not have looked yet.
		 * Whoever ends a hold kicks the QP: the turn that saw WAITING
		 * leaves it off its engine, perhaps with posts in its ring and
		 * no doorbell asked for.
		 */
		wait = !fdom_drained(d);
		kick = !wait && M.proto != OLD_NO_START_KICK;
		if (!wait)
			count(&M.held_starts);
		break;
	case FDOM_READY:
		break;
	}
	if (!wait) {
		fdom_end_wait(d);
		d->kflush[pos % RING] = false;
	}
	pthread_mutex_unlock(&M.dom_lock);
	if (kick)
		dbl_wake(d);
	if (wait)
		model_delay();
	return wait;
}

/* fdom_wake(), fdom_ready(): give back the flushes that may start. */
static void fdom_wake(void)
{
	struct mqp *md;
	unsigned int i;

	for (i = 0; i < NQP; i++) {
		md = &M.qp[i];
		if (atomic_load_explicit(&md->state, memory_order_relaxed) !=
		    FDOM_WAITING || !fdom_drained(md))
			continue;
		atomic_store_explicit(&md->state, FDOM_READY,
				      memory_order_relaxed);
		count(&M.wakes);
		model_delay();
		dbl_wake(md);
	}
}

/* xrxe_fdom_completed(): after the count and its full barrier. */
static void fdom_completed(void)
{
	model_delay();
	if (atomic_load_explicit(&M.waiting, memory_order_relaxed)) {
		pthread_mutex_lock(&M.dom_lock);
		fdom_wake();
		pthread_mutex_unlock(&M.dom_lock);
	}
}

/* The safety check: what the others had posted when the tag got here. */
static void note_head(struct mqp *d, uint32_t i)
{
	unsigned int m;

	d->head_flush = i + 1;
	/* Acquire: read before the snapshot's, so never more than it. */
	for (m = 0; m < NQP; m++)
		d->head_posted[m] = atomic_load_explicit(&M.qp[m].posted,
							 memory_order_acquire);
}

static void check_start(struct mqp *d, uint32_t i)
{
	bool bad = before(load(&d->completed), i);
	unsigned int m;

	for (m = 0; m < NQP; m++)
		if (&M.qp[m] != d &&
		    before(load(&M.qp[m].completed), d->head_posted[m]))
			bad = true;
	if (bad && !atomic_fetch_add(&M.violations, 1))
		fprintf(stderr, "fdom model: QP %u's flush %u started before the records it waits for completed\n",
			d->id, i);
}

/*
 * The requester: sends what the turns fetched, in order, and stops at a
 * flush that must wait. Run in the send task, one runner at a time.
 * Returns whether it sent anything (rxe_requester() returning 0).
 */
static bool requester(struct mqp *d)
{
	uint32_t i = load(&d->req), start = i;

	/* Acquire: the turn's copy before its fetch, on another thread. */
	while (i != atomic_load_explicit(&d->fetch, memory_order_acquire)) {
		if (d->kflush[i % RING]) {
			if (d->head_flush != i + 1)
				note_head(d, i);
			if (fdom_must_wait(d, i))
				break;
			check_start(d, i);
		}
		i++;
		/*
		 * Release: the wire acknowledges only what was sent, after
		 * its fetch. Pairs with the wire's acquire load.
		 */
		atomic_store_explicit(&d->req, i, memory_order_release);
	}
	return i != start;
}

/* The completer's count: xrxe_sq_complete() with xrxe_fdom_completed(). */
static void complete(struct mqp *d, uint32_t n)
{
	/*
	 * Release: the poster reuses slots up to here and sees its tag done
	 * after our reads of them. Pairs with its acquire loads.
	 */
	atomic_store_explicit(&d->completed, load(&d->completed) + n,
			      memory_order_release);
	/*
	 * Full barrier: we see waiting raised by a flush armed before, or its
	 * requester sees our count. Pairs with the one in fdom_must_wait().
	 */
	atomic_thread_fence(memory_order_seq_cst);
	fdom_completed();
}

/* rxe_completer(): one ACK taken, the WQEs it acknowledges retired. */
static bool completer(struct mqp *d)
{
	uint32_t tail = load(&d->ack_tail), acked;

	/* Acquire: the ACK before its count. Pairs with the wire's release. */
	if (tail == atomic_load_explicit(&d->ack_head, memory_order_acquire))
		return false;
	acked = d->ack_at[tail % RING];
	atomic_store_explicit(&d->ack_tail, tail + 1, memory_order_relaxed);
	complete(d, acked - load(&d->completed));
	return true;
}

/* rxe_sender(): the requester, then the completer; true if either worked. */
static bool sender(struct mqp *d)
{
	bool sent = requester(d);

	return completer(d) || sent;
}

/* The send task: rxe_task.c, for a doorbell-less QP. */

static void sched_task(struct mqp *d);

/* The workqueue: queue_work(), its list under its lock. */
static void wq_queue(struct mqp *d)
{
	pthread_mutex_lock(&M.wq_lock);
	d->wq_next = NULL;
	*M.wq_tail = d;
	M.wq_tail = &d->wq_next;
	pthread_cond_signal(&M.wq_wait);
	pthread_mutex_unlock(&M.wq_lock);
}

/* __reserve_if_idle(): IDLE to BUSY, ours to run; BUSY to ARMED. Locked. */
static bool reserve_if_idle(struct mqp *d)
{
	if (d->task == TASK_IDLE) {
		d->task = TASK_BUSY;
		return true;
	}
	if (d->task == TASK_BUSY) {
		d->task = TASK_ARMED;
		count(&M.armed);
	}
	return false;
}

/*
 * __do_task(): the sender until it has nothing to do, again while armed;
 * a turn's run (once) leaves the rest to rxe_sched_task() instead.
 */
static void do_task(struct mqp *d, bool once)
{
	bool cont, resched = false;

	do {
		while (sender(d))
			;
		cont = false;
		pthread_mutex_lock(&d->task_lock);
		if (d->task == TASK_ARMED && !once) {
			d->task = TASK_BUSY;
			cont = true;
		} else {
			resched = d->task == TASK_ARMED;
			d->task = TASK_IDLE;
		}
		pthread_mutex_unlock(&d->task_lock);
	} while (cont);
	if (resched)
		sched_task(d);
}

/*
 * rxe_run_task(), or with once xrxe_run_task_budget(): here if idle, else
 * armed for its runner.
 */
static void run_task(struct mqp *d, bool once)
{
	bool run;

	pthread_mutex_lock(&d->task_lock);
	run = reserve_if_idle(d);
	pthread_mutex_unlock(&d->task_lock);
	if (run)
		do_task(d, once);
}

/*
 * xrxe_engine_sched(): WQEs unsent (rxe_req_has_unsent(), a hint), so send
 * work for the QP's engine: its next turn runs the task.
 */
static bool dbl_sched(struct mqp *d)
{
	if (load(&d->req) == load(&d->fetch))
		return false;
	dbl_wake(d);
	return true;
}

/*
 * rxe_sched_task() of a doorbell-less QP's send task: armed if running,
 * else to the engine if unsent, else to the workqueue.
 */
static void sched_task(struct mqp *d)
{
	pthread_mutex_lock(&d->task_lock);
	if (d->task != TASK_IDLE) {
		if (d->task == TASK_BUSY)
			count(&M.armed);
		d->task = TASK_ARMED;
		pthread_mutex_unlock(&d->task_lock);
		return;
	}
	pthread_mutex_unlock(&d->task_lock);
	if (dbl_sched(d))
		return;
	pthread_mutex_lock(&d->task_lock);
	if (reserve_if_idle(d))
		wq_queue(d);
	pthread_mutex_unlock(&d->task_lock);
}

/* rxe_wq's worker: do_work(), outside any turn. */
static void *wq_thread(void *arg)
{
	struct mqp *d;

	(void)arg;
	rnd_seed(300);
	on_wq = true;
	for (;;) {
		pthread_mutex_lock(&M.wq_lock);
		while (!(d = M.wq_head) && !atomic_load(&M.stop))
			pthread_cond_wait(&M.wq_wait, &M.wq_lock);
		if (d) {
			M.wq_head = d->wq_next;
			if (!M.wq_head)
				M.wq_tail = &M.wq_head;
		}
		pthread_mutex_unlock(&M.wq_lock);
		if (!d || atomic_load(&M.stop))
			return NULL;
		count(&M.wq_runs);
		do_task(d, false);
	}
}

/* Engines: xrxe_engine.c. */

/*
 * dbl_run_send(): an engine runs one pass of the send task, a doorbell's
 * turn all of it, in the poster's own time.
 */
static void dbl_run_send(struct mqp *d, bool by_engine)
{
	run_task(d, by_engine);
}

/* dbl_serve(): one turn. Returns true while the QP should stay queued. */
static bool dbl_serve(struct mqp *d, bool by_engine)
{
	uint32_t f = load(&d->fetch);
	unsigned int n = 0;
	bool resume;

	count(&M.turns);
	resume = atomic_exchange_explicit(&d->resume, false,
					  memory_order_relaxed);
	/* Held at a domain flush: what it would take waits behind it. */
	if (atomic_load_explicit(&d->state, memory_order_relaxed) ==
	    FDOM_WAITING) {
		count(&M.held_turns);
		model_delay();
		if (resume)
			dbl_run_send(d, by_engine);
		return false;
	}
	/* Acquire: the slot before its count. Pairs with post()'s release. */
	while (n < QUANTUM &&
	       f != atomic_load_explicit(&d->posted, memory_order_acquire)) {
		d->kflush[f % RING] = d->ring_flush[f % RING];
		/* Release: the copy before; pairs with requester()'s acquire. */
		atomic_store_explicit(&d->fetch, ++f, memory_order_release);
		n++;
	}
	/* Scheduled send work runs even if no slot was taken. */
	if (n || resume) {
		dbl_run_send(d, by_engine);
		model_delay();
	}
	if (n == QUANTUM)
		return true;
	/* Kicked during the turn: another follows and looks at the ring. */
	if (atomic_load_explicit(&d->kicked, memory_order_relaxed)) {
		atomic_store_explicit(&d->need_wakeup, 0, memory_order_relaxed);
		return true;
	}
	atomic_store_explicit(&d->need_wakeup, 1, memory_order_relaxed);
	/*
	 * Full barrier: the poster sees need_wakeup before we look at the
	 * ring again, or we see its new count. Pairs with the one in post().
	 */
	atomic_thread_fence(memory_order_seq_cst);
	if (f != atomic_load_explicit(&d->posted, memory_order_acquire)) {
		atomic_store_explicit(&d->need_wakeup, 0, memory_order_relaxed);
		return true;
	}
	return false;
}

/* dbl_end_turn(), dbl_turn_done(): requeued if more or kicked, else off. */
static void dbl_end_turn(struct engine *e, struct mqp *d, bool more)
{
	pthread_mutex_lock(&d->lock);
	pthread_mutex_lock(&e->lock);
	if (more || atomic_load_explicit(&d->kicked, memory_order_relaxed)) {
		atomic_store_explicit(&d->kicked, false, memory_order_relaxed);
		engine_enqueue(e, d);
	} else {
		d->queued = false;
	}
	pthread_mutex_unlock(&e->lock);
	pthread_mutex_unlock(&d->lock);
}

/* engine_thread(). */
static void *engine_thread(void *arg)
{
	struct engine *e = arg;
	struct mqp *d;

	rnd_seed(e - M.eng);
	for (;;) {
		pthread_mutex_lock(&e->lock);
		while (!(d = engine_dequeue(e)) &&
		       !atomic_load(&M.stop))
			pthread_cond_wait(&e->wait, &e->lock);
		pthread_mutex_unlock(&e->lock);
		/* At the end, a QP still queued is left so. */
		if (!d || atomic_load(&M.stop))
			return NULL;
		pthread_mutex_lock(&d->lock);
		atomic_store_explicit(&d->kicked, false, memory_order_relaxed);
		pthread_mutex_unlock(&d->lock);

		dbl_end_turn(e, d, dbl_serve(d, true));
	}
}

/* The wire: ACKs for what was sent, each scheduling the send task. */
static void *wire_thread(void *arg)
{
	unsigned int w = (uintptr_t)arg, q;
	uint32_t sent, acked, head;
	bool idle;

	rnd_seed(100 + w);
	while (!atomic_load(&M.stop)) {
		idle = true;
		for (q = w; q < NQP; q += NWIRE) {
			struct mqp *d = &M.qp[q];

			/*
			 * Acquire: we acknowledge only what was sent, after
			 * its fetch. Pairs with requester()'s release.
			 */
			sent = atomic_load_explicit(&d->req,
						    memory_order_acquire);
			acked = load(&d->acked);
			if (sent == acked)
				continue;
			idle = false;
			model_delay();
			acked += 1 + rnd() % (sent - acked);
			atomic_store_explicit(&d->acked, acked,
					      memory_order_relaxed);
			/* rxe_comp_queue_pkt(): queued, then the task. */
			head = load(&d->ack_head);
			d->ack_at[head % RING] = acked;
			/* Release: pairs with completer()'s acquire. */
			atomic_store_explicit(&d->ack_head, head + 1,
					      memory_order_release);
			sched_task(d);
		}
		if (idle)
			sched_yield();
	}
	return NULL;
}

/*
 * xrxe_engine_ring(): with nothing in flight (xrxe_req_post_here()), the
 * QP's turn runs here, taken off its run list if it waits there; else, or
 * if its engine serves it now, a kick.
 */
static void dbl_ring(struct mqp *d)
{
	struct engine *e = NULL;

	atomic_store_explicit(&d->need_wakeup, 0, memory_order_relaxed);
	if (load(&d->fetch) != load(&d->completed)) {
		dbl_kick(d);
		return;
	}
	pthread_mutex_lock(&d->lock);
	if (d->queued) {
		pthread_mutex_lock(&d->e->lock);
		if (engine_unlink(d->e, d))
			e = d->e;
		else
			atomic_store_explicit(&d->kicked, true,
					      memory_order_relaxed);
		pthread_mutex_unlock(&d->e->lock);
	} else {
		d->queued = true;
		e = d->e;
	}
	if (e)
		atomic_store_explicit(&d->kicked, false, memory_order_relaxed);
	pthread_mutex_unlock(&d->lock);
	if (e)
		dbl_end_turn(e, d, dbl_serve(d, false));
}

/* The provider's post: slot, count, full barrier, need_wakeup. */
static uint32_t post(struct mqp *d, bool flush)
{
	uint32_t i = load(&d->posted);

	/*
	 * Acquire: the slot's last WQE was taken before we write it. Pairs
	 * with complete()'s release.
	 */
	while (i - atomic_load_explicit(&d->completed, memory_order_acquire) >=
	       RING - 1) {
		if (atomic_load(&M.stop))
			return i;
		sched_yield();
	}
	d->ring_flush[i % RING] = flush;
	/* Release: the slot before its count; pairs with the engines. */
	atomic_store_explicit(&d->posted, i + 1, memory_order_release);
	/*
	 * Full barrier: the engine sees our count at its second look, or we
	 * see its need_wakeup. Pairs with the one in dbl_serve().
	 */
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&d->need_wakeup, memory_order_relaxed)) {
		count(&M.doorbells);
		dbl_ring(d);
	}
	return i;
}

/* Until QP 0 completed its tag at index tag; false if the run stops. */
static bool tag_wait(uint32_t tag)
{
	/* Acquire: pairs with complete()'s release. */
	while (!before(tag, atomic_load_explicit(&M.qp[0].completed,
						 memory_order_acquire))) {
		if (atomic_load(&M.stop))
			return false;
		sched_yield();
	}
	atomic_fetch_add(&M.rounds, 1);
	return true;
}

/*
 * Until every QP completed all that was posted, as the provider sees it
 * (sq_completed, before the CQEs), looked at in the order of the posts
 * (QP 0 last); false if the run stops.
 */
static bool drain_wait(void)
{
	int q;

	/* Acquire: pairs with complete()'s release. */
	for (q = NQP - 1; q >= 0; q--)
		while (atomic_load_explicit(&M.qp[q].completed,
					    memory_order_acquire) !=
		       load(&M.qp[q].posted)) {
			if (atomic_load(&M.stop))
				return false;
			sched_yield();
		}
	return true;
}

/*
 * Rounds of records on QPs 3, 2, 1, 0 and a tag on 0; two at most out. One
 * round in DRAIN_EVERY waits for its records to complete before its tag,
 * whose flush then finds its domain drained at the first look (never
 * held), often while QP 0's send task still runs on the workqueue for the
 * last ACK: the doorbell's turn arms it, and the requester looks at the
 * flush there, outside any turn.
 */
static void *poster_thread(void *arg)
{
	uint32_t tag[2], posted = 0, done = 0, n;
	int q;

	(void)arg;
	rnd_seed(200);
	while (!atomic_load(&M.stop_posting)) {
		if (posted - done == 2) {
			if (!tag_wait(tag[done % 2]))
				return NULL;
			done++;
		}
		for (q = NQP - 1; q >= 0; q--)
			for (n = 1 + rnd() % 3; n; n--)
				post(&M.qp[q], false);
		if (!(rnd() % DRAIN_EVERY) && !drain_wait())
			return NULL;
		tag[posted++ % 2] = post(&M.qp[0], true);
	}
	for (; done != posted; done++)
		if (!tag_wait(tag[done % 2]))
			return NULL;
	atomic_store(&M.poster_done, true);
	return NULL;
}

static const char *const state_name[] = { "NONE", "WAITING", "READY" };
static const char *const task_name[] = { "IDLE", "BUSY", "ARMED" };
static const char *const proto_name[] = {
	"fixed",
	"old 1, no kick at the WAITING-case start",
	"old 2, WAITING before the look at the counts",
};

static void dump(void)
{
	unsigned int i;

	fprintf(stderr, "fdom model: domain waiting %d\n",
		atomic_load(&M.waiting));
	fprintf(stderr, "  qp   posted    fetch      req    acked completed need_wakeup queued kicked resume task  state\n");
	for (i = 0; i < NQP; i++) {
		struct mqp *d = &M.qp[i];
		enum task_state task;
		bool queued;

		pthread_mutex_lock(&d->lock);
		queued = d->queued;
		pthread_mutex_unlock(&d->lock);
		pthread_mutex_lock(&d->task_lock);
		task = d->task;
		pthread_mutex_unlock(&d->task_lock);
		fprintf(stderr, "  %2u %8u %8u %8u %8u %9u %11u %6d %6d %6d %-5s %s\n",
			i, load(&d->posted), load(&d->fetch), load(&d->req),
			load(&d->acked), load(&d->completed),
			load(&d->need_wakeup), queued,
			atomic_load(&d->kicked), atomic_load(&d->resume),
			task_name[task], state_name[atomic_load(&d->state)]);
	}
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

static void model_init(enum protocol proto)
{
	unsigned int i;

	memset(&M, 0, sizeof(M));
	M.proto = proto;
	pthread_mutex_init(&M.dom_lock, NULL);
	pthread_mutex_init(&M.wq_lock, NULL);
	pthread_cond_init(&M.wq_wait, NULL);
	M.wq_tail = &M.wq_head;
	for (i = 0; i < NENGINE; i++) {
		pthread_mutex_init(&M.eng[i].lock, NULL);
		pthread_cond_init(&M.eng[i].wait, NULL);
		M.eng[i].tail = &M.eng[i].head;
	}
	for (i = 0; i < NQP; i++) {
		M.qp[i].id = i;
		M.qp[i].e = &M.eng[i % NENGINE];
		pthread_mutex_init(&M.qp[i].lock, NULL);
		pthread_mutex_init(&M.qp[i].task_lock, NULL);
		/* A new QP asks for its first doorbell. */
		atomic_store(&M.qp[i].need_wakeup, 1);
	}
}

static void model_fini(void)
{
	unsigned int i;

	for (i = 0; i < NQP; i++) {
		pthread_mutex_destroy(&M.qp[i].task_lock);
		pthread_mutex_destroy(&M.qp[i].lock);
	}
	for (i = 0; i < NENGINE; i++) {
		pthread_mutex_destroy(&M.eng[i].lock);
		pthread_cond_destroy(&M.eng[i].wait);
	}
	pthread_cond_destroy(&M.wq_wait);
	pthread_mutex_destroy(&M.wq_lock);
	pthread_mutex_destroy(&M.dom_lock);
}

static void wake_all(pthread_mutex_t *lock, pthread_cond_t *wait)
{
	pthread_mutex_lock(lock);
	pthread_cond_broadcast(wait);
	pthread_mutex_unlock(lock);
}

/* One run: true if it stalled; the stall's start in *stall_at_ms. */
static bool model_run(enum protocol proto, uint64_t run_ms,
		      uint64_t *stall_at_ms)
{
	pthread_t engines[NENGINE], wires[NWIRE], poster, wq;
	uint64_t start, now, last;
	unsigned int i, rounds, seen = 0;
	bool stalled = false;

	model_init(proto);
	for (i = 0; i < NENGINE; i++)
		pthread_create(&engines[i], NULL, engine_thread, &M.eng[i]);
	pthread_create(&wq, NULL, wq_thread, NULL);
	for (i = 0; i < NWIRE; i++)
		pthread_create(&wires[i], NULL, wire_thread,
			       (void *)(uintptr_t)i);
	pthread_create(&poster, NULL, poster_thread, NULL);

	start = last = now_ms();
	while (!atomic_load(&M.poster_done)) {
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
		now = now_ms();
		if (now - start >= run_ms)
			atomic_store(&M.stop_posting, true);
		rounds = atomic_load(&M.rounds);
		if (rounds != seen) {
			seen = rounds;
			last = now;
		} else if (now - last >= STALL_MS) {
			stalled = true;
			*stall_at_ms = last - start;
			fprintf(stderr, "\nfdom model: no round completed for %u ms after %u rounds (%.1f s in)\n",
				STALL_MS, rounds, (last - start) / 1000.0);
			dump();
			break;
		}
	}

	atomic_store(&M.stop, true);
	for (i = 0; i < NENGINE; i++)
		wake_all(&M.eng[i].lock, &M.eng[i].wait);
	wake_all(&M.wq_lock, &M.wq_wait);
	pthread_join(poster, NULL);
	for (i = 0; i < NWIRE; i++)
		pthread_join(wires[i], NULL);
	pthread_join(wq, NULL);
	for (i = 0; i < NENGINE; i++)
		pthread_join(engines[i], NULL);

	printf("\nfdom model (%s): %u rounds in %.1f s; %u turns (%u held), %u doorbells; flushes: %u held, %u started at the first look, %u wake-ups by completers, %u started while WAITING; send task: %u workqueue runs, %u armings, %u first looks at a flush on the workqueue\n",
	       proto_name[proto], atomic_load(&M.rounds),
	       (now_ms() - start) / 1000.0, atomic_load(&M.turns),
	       atomic_load(&M.held_turns), atomic_load(&M.doorbells),
	       atomic_load(&M.holds), atomic_load(&M.first_starts),
	       atomic_load(&M.wakes), atomic_load(&M.held_starts),
	       atomic_load(&M.wq_runs), atomic_load(&M.armed),
	       atomic_load(&M.wq_first_looks));
	return stalled;
}

static uint64_t env_ms(uint64_t dflt)
{
	const char *s = getenv("XRXE_FDOM_MODEL_SECS");

	return s && *s ? strtoull(s, NULL, 10) * 1000 : dflt;
}

static enum protocol env_protocol(void)
{
	const char *o = getenv("XRXE_FDOM_MODEL_OLD");

	if (o && !strcmp(o, "1"))
		return OLD_NO_START_KICK;
	if (o && !strcmp(o, "2"))
		return OLD_WAITING_FIRST;
	return FIXED;
}

static void test_records_then_tag(void)
{
	enum protocol proto = env_protocol();
	uint64_t stall_at = 0;
	bool stalled;
	unsigned int i;

	stalled = model_run(proto, env_ms(proto ? OLD_RUN_MS : RUN_MS),
			    &stall_at);
	/* Safety holds in every protocol: the bugs are lost kicks. */
	CU_ASSERT_EQUAL(atomic_load(&M.violations), 0);
	if (proto) {
		if (stalled)
			printf("fdom model: old protocol %d caught: stuck %.2f s in\n",
			       proto, stall_at / 1000.0);
		else
			printf("fdom model: old protocol %d not caught\n",
			       proto);
	} else {
		CU_ASSERT_FALSE(stalled);
	}
	if (!stalled) {
		/* Drained: every post completed, no flush waits. */
		for (i = 0; i < NQP; i++) {
			CU_ASSERT_EQUAL(load(&M.qp[i].completed),
					load(&M.qp[i].posted));
			CU_ASSERT_EQUAL(atomic_load(&M.qp[i].state), FDOM_NONE);
		}
		CU_ASSERT_EQUAL(atomic_load(&M.waiting), 0);
		CU_ASSERT_TRUE(atomic_load(&M.rounds) > 0);
	}
	model_fini();
}

int main(void)
{
	static const struct xrxe_unit_test tests[] = {
		{ "records then a tag through a domain's wait and wake-up",
		  test_records_then_tag },
		{ NULL, NULL },
	};

	return xrxe_cunit_run("fdom_model", tests);
}
