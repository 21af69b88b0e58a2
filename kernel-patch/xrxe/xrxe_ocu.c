// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Ordering control units (OCUs): a QP reaches an engine through the OCU
 * it hashes to, and the QPs of one OCU are served one after the other. An
 * OCU maps to an engine when it starts work (static: by its index;
 * dynamic: the least loaded) and may move only once drained. The load
 * model: the cost of the WQEs in flight, and recent work that decays.
 */

#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include "rxe.h"
#include "rxe_loc.h"
#include "rxe_hw_counters.h"
#include "xrxe_engine.h"
#include "xrxe_policy.h"

static unsigned int num_ocus_param;
module_param_named(ocus, num_ocus_param, uint, 0444);
MODULE_PARM_DESC(ocus,
		 "Ordering control units between QPs and engines (16 to 65536; 0: 128 an engine, at least 256)");

static unsigned int ocu_mode_param = XRXE_OCU_DYNAMIC;
module_param_named(ocu_mode, ocu_mode_param, uint, 0644);
MODULE_PARM_DESC(ocu_mode,
		 "How a new QP's OCU reaches engines: 0 static (OCU mod engines), 1 dynamic (least loaded, moved only once drained)");

static unsigned int ocu_hdr_cost[XRXE_OCU_TCS] = {
	[0 ... XRXE_OCU_TCS - 1] = 64
};
module_param_array(ocu_hdr_cost, uint, NULL, 0644);
MODULE_PARM_DESC(ocu_hdr_cost,
		 "Load of a WQE before its bytes, per traffic class");

static unsigned int ocu_byte_shift[XRXE_OCU_TCS] = {
	[0 ... XRXE_OCU_TCS - 1] = 6
};
module_param_array(ocu_byte_shift, uint, NULL, 0644);
MODULE_PARM_DESC(ocu_byte_shift,
		 "Load of a WQE's bytes: bytes >> shift, per traffic class");

static unsigned int ocu_load_half_life_ms = 100;
module_param(ocu_load_half_life_ms, uint, 0644);
MODULE_PARM_DESC(ocu_load_half_life_ms,
		 "Half-life of the recent work of an engine's OCUs, counted in its load beside the work in flight (ms, at most 60000; 0: the work in flight only)");

/*
 * Test knob (debugfs rdma_xrxe/ocu_remap_test, off by default): move every
 * OCU that starts work again to another engine than its last.
 */
static bool ocu_remap_test;

static unsigned int ocu_set[XRXE_OCU_TCS];
module_param_array(ocu_set, uint, NULL, 0644);
MODULE_PARM_DESC(ocu_set,
		 "Engines each traffic class's OCUs may use, one bit per engine (0: all)");

/* At least one OCU per slice. */
#define XRXE_MIN_OCUS		(2 * XRXE_OCU_TCS)
#define XRXE_MAX_OCUS		65536
/*
 * By default 8 OCUs a slice for each engine: QPs that hash to one OCU are
 * served one after the other, so the table grows with the engines that
 * could serve them at once; and 256 at least, as with 2 engines.
 */
#define XRXE_OCUS_PER_ENGINE	128
#define XRXE_DEFAULT_MIN_OCUS	256

struct xrxe_ocu *xrxe_ocus;
unsigned int xrxe_nr_ocus;

/* The load of a WQE of length bytes in traffic class tc. */
u32 xrxe_ocu_cost(u8 tc, u32 length)
{
	return xrxe_ocu_wqe_cost(length, READ_ONCE(ocu_hdr_cost[tc]),
				 READ_ONCE(ocu_byte_shift[tc]));
}

/* Whether o has drained: it may move. Caller holds o->lock. */
static bool ocu_drained(struct xrxe_ocu *o)
{
	WARN_ON_ONCE(!o->queued && o->inflight < 0);
	return !o->queued && !o->inflight;
}

/* Once o has drained, it no longer counts as busy on its engine. */
static void ocu_settle(struct xrxe_ocu *o)
{
	if (o->busy && ocu_drained(o)) {
		o->busy = false;
		atomic_dec(&o->engine->busy_ocus);
	}
}

/* r decayed to now. Caller holds the lock of r's owner, or has a copy. */
static u64 recent_at(const struct xrxe_recent *r, u64 now)
{
	u64 half = (u64)min(READ_ONCE(ocu_load_half_life_ms), 60000U) *
		   NSEC_PER_MSEC;
	u64 halves, rest;

	if (!half)
		return 0;
	/* Added to on another CPU after the caller read its clock. */
	if (now <= r->ns)
		return r->value;
	halves = div64_u64_rem(now - r->ns, half, &rest);
	return min_t(u64, xrxe_ocu_decay(r->value, min_t(u64, halves, 64),
					 div64_u64(rest << 10, half)),
		     S64_MAX / 4);
}

/*
 * r, decayed to now, with add added and sub taken away (down to 0: the
 * decay of a sum and of its parts round apart). Caller holds the lock of
 * r's owner.
 */
static void recent_add(struct xrxe_recent *r, u64 now, u64 add, u64 sub)
{
	u64 v = recent_at(r, now);

	v = v > sub ? v - sub : 0;
	/* Once each, for xrxe_engine_recent_peek(). */
	WRITE_ONCE(r->value, min_t(u64, v + add, S64_MAX / 4));
	WRITE_ONCE(r->ns, max(r->ns, now));
}

/*
 * e's recent work as of now, read without its lock. It only guides where
 * an OCU goes: a value and a time of two different updates decay it a
 * little more or less than they should, and that is all.
 */
u64 xrxe_engine_recent_peek(const struct xrxe_engine *e, u64 now)
{
	struct xrxe_recent r = {
		.value = READ_ONCE(e->recent.value),
		.ns = READ_ONCE(e->recent.ns),
	};

	return recent_at(&r, now);
}

/* e's recent work with add and less sub. */
static void engine_recent_add(struct xrxe_engine *e, u64 now, u64 add,
			      u64 sub)
{
	spin_lock(&e->lock);
	recent_add(&e->recent, now, add, sub);
	spin_unlock(&e->lock);
}

/*
 * n more WQEs of d, of total cost, are in flight: its OCU stays where it
 * is, and its engine carries their load unless d's rate limit holds it.
 * WQEs its engine took (by_engine), held or not, the OCU and its engine
 * remember as recent work. Those a doorbell's turn took ran their first
 * pass on the poster's CPU: a ping-pong whose every WQE goes so gives its
 * engine no work, and must not make it look busy to the OCUs that place
 * themselves.
 */
void xrxe_ocu_charge(struct xrxe_dbl *d, u32 n, u64 cost, bool by_engine)
{
	struct xrxe_ocu *o = d->ocu;
	struct xrxe_engine *e;
	unsigned long flags;
	u64 now;

	spin_lock_irqsave(&o->lock, flags);
	e = o->engine;
	o->inflight += n;
	d->cost_out += cost;
	if (!d->load_held)
		atomic64_add(cost, &e->load);
	if (by_engine) {
		now = ktime_get_ns();
		recent_add(&o->recent, now, cost, 0);
		engine_recent_add(e, now, cost, 0);
	}
	spin_unlock_irqrestore(&o->lock, flags);
}

/*
 * n WQEs of d, of total cost, left flight: retired, or dropped by a reset
 * or a destroy.
 */
void xrxe_ocu_retire(struct xrxe_dbl *d, u32 n, u64 cost)
{
	struct xrxe_ocu *o = d->ocu;
	unsigned long flags;

	if (!n)
		return;
	spin_lock_irqsave(&o->lock, flags);
	o->inflight -= n;
	d->cost_out -= cost;
	/* In flight until now, so on the engine it was charged to. */
	if (!d->load_held)
		atomic64_sub(cost, &o->engine->load);
	ocu_settle(o);
	spin_unlock_irqrestore(&o->lock, flags);
}

/*
 * d's rate limit holds it (held) or lets it go: its WQEs stay in flight,
 * so its OCU keeps its engine, but a QP that waits for its timer does no
 * work there, and its load is taken off meanwhile.
 */
void xrxe_ocu_hold(struct xrxe_dbl *d, bool held)
{
	struct xrxe_ocu *o;
	unsigned long flags;

	o = xrxe_ocu_lock(d, &flags);
	if (d->load_held != held) {
		d->load_held = held;
		if (held)
			atomic64_sub(d->cost_out, &o->engine->load);
		else
			atomic64_add(d->cost_out, &o->engine->load);
	}
	spin_unlock_irqrestore(&o->lock, flags);
}

/* The QP's rate limit paused it (from its requester). */
void xrxe_ocu_pause(struct rxe_qp *qp)
{
	xrxe_ocu_hold(qp->dbl, true);
}

/*
 * Map o, drained, to an engine: a static OCU to its own, a dynamic one to
 * the least loaded; counted as d's doing. Its recent work goes with it.
 * Caller holds o->lock.
 */
void xrxe_ocu_map(struct xrxe_ocu *o, struct xrxe_dbl *d)
{
	struct xrxe_engine *prev = o->engine;
	u32 index = o - xrxe_ocus;
	u32 slice = index - xrxe_ocu_slice_first(xrxe_nr_ocus, o->tc, o->mode);
	u32 set = xrxe_ocu_set_engines(READ_ONCE(ocu_set[o->tc]), xrxe_nr_engines);
	s64 load[XRXE_MAX_ENGINES];
	u32 busy[XRXE_MAX_ENGINES];
	unsigned int i, k;
	u64 now = ktime_get_ns();
	u64 own = recent_at(&o->recent, now), r;

	if (o->mode == XRXE_OCU_STATIC) {
		i = xrxe_ocu_static_engine(slice, set, xrxe_nr_engines);
	} else {
		for (i = 0; i < xrxe_nr_engines; i++) {
			struct xrxe_engine *e = &xrxe_engines[i];

			/*
			 * What is in flight, and what the OCUs mapped to the
			 * engine did lately, o's own work aside: an OCU that
			 * starts after a pause sees where the others will
			 * work even if nothing is in flight at that instant.
			 */
			r = xrxe_engine_recent_peek(e, now);
			if (e == prev)
				r -= min(r, own);
			load[i] = atomic64_read(&e->load) + r;
			busy[i] = atomic_read(&e->busy_ocus);
		}
		i = xrxe_ocu_pick(load, busy, set, xrxe_nr_engines,
				  prev - xrxe_engines, index);
	}
	/* The test knob: moves at every chance, to catch reordering. */
	if (READ_ONCE(ocu_remap_test) && i == prev - xrxe_engines) {
		/* The next engine of the set, if it has another. */
		for (k = 1; k < xrxe_nr_engines; k++)
			if (set & BIT((i + k) % xrxe_nr_engines))
				break;
		if (k < xrxe_nr_engines) {
			i = (i + k) % xrxe_nr_engines;
			rxe_counter_inc(to_rdev(d->qp->ibqp.device),
					XRXE_CNT_OCU_REMAPS_FORCED);
		}
	}
	o->engine = &xrxe_engines[i];
	o->busy = true;
	atomic_inc(&o->engine->busy_ocus);
	xrxe_count(d->qp, XRXE_QP_OCU_MAPS, XRXE_CNT_OCU_MAPS);
	if (o->engine != prev) {
		xrxe_count(d->qp, XRXE_QP_OCU_REMAPS, XRXE_CNT_OCU_REMAPS);
		if (own) {
			engine_recent_add(prev, now, 0, own);
			engine_recent_add(o->engine, now, own, 0);
		}
	}
}

/*
 * Lock d's OCU. A QP that is not queued may be moved to another OCU
 * (xrxe_ocu_bind()) by whoever holds its OCU's lock: look again once
 * locked. A queued QP's OCU does not change, and needs no second look.
 */
struct xrxe_ocu *xrxe_ocu_lock(struct xrxe_dbl *d, unsigned long *flags)
{
	struct xrxe_ocu *o;

	for (;;) {
		o = READ_ONCE(d->ocu);
		spin_lock_irqsave(&o->lock, *flags);
		if (o == d->ocu)
			return o;
		spin_unlock_irqrestore(&o->lock, *flags);
	}
}

/*
 * One QP fewer on o. The recent work of an OCU left without QPs says where
 * nobody will work again: it leaves its engine's, which would keep
 * turning OCUs that place themselves away for a few half-lives. Caller
 * holds o->lock.
 */
void xrxe_ocu_put_qp(struct xrxe_ocu *o)
{
	u64 now, own;

	if (!atomic_dec_and_test(&o->qps))
		return;
	now = ktime_get_ns();
	own = recent_at(&o->recent, now);
	if (own)
		engine_recent_add(o->engine, now, 0, own);
	o->recent.value = 0;
	o->recent.ns = now;
}

/*
 * Move d to OCU to, and say so in its status page. Caller holds d's OCU's
 * lock, if it has one yet.
 */
void xrxe_ocu_set(struct xrxe_dbl *d, struct xrxe_ocu *to)
{
	atomic_inc(&to->qps);
	if (d->ocu)
		xrxe_ocu_put_qp(d->ocu);
	WRITE_ONCE(d->ocu, to);
	WRITE_ONCE(d->status->ocu, to - xrxe_ocus);
	WRITE_ONCE(d->status->ocu_mode, to->mode);
}

/*
 * d leaves its engine: a move asked for meanwhile happens now if nothing
 * of d is in flight, else at a later leave. Only a turn fetches, and none
 * runs now; the completer may retire meanwhile, which can only delay the
 * move.
 */
void xrxe_ocu_leave(struct xrxe_dbl *d)
{
	struct xrxe_ocu *o = d->ocu;

	d->queued = false;
	o->queued--;
	ocu_settle(o);
	if (d->ocu_next && d->fetch == READ_ONCE(d->completed)) {
		xrxe_ocu_set(d, d->ocu_next);
		d->ocu_next = NULL;
	}
}

/*
 * The OCU of hash in the slice of class tc and mode (any but static is
 * dynamic).
 */
static struct xrxe_ocu *ocu_of(u32 hash, u8 tc, u32 mode)
{
	return &xrxe_ocus[xrxe_ocu_index(hash,
				    xrxe_ocu_slice_first(xrxe_nr_ocus, tc, mode),
				    xrxe_ocu_slice_size(xrxe_nr_ocus))];
}

/*
 * The OCU qp belongs to by what it knows and asked for: the hash of its
 * ordering domain, else of a connected QP's flow once it has one, else of
 * itself; in the slice of its class and of the mode it asked for. Caller
 * holds d's OCU lock, or owns d alone.
 */
struct xrxe_ocu *xrxe_ocu_home(struct rxe_qp *qp)
{
	struct xrxe_dbl *d = qp->dbl;
	u32 dev_index = qp->ibqp.device->index;
	u32 hash, set, mode;

	if (d->ocu_domain)
		hash = xrxe_ocu_domain_hash(dev_index, d->ctx_index,
					    d->ocu_domain);
	else if (d->has_flow)
		hash = d->flow_hash;
	else
		hash = xrxe_ocu_qp_hash(dev_index, qp->elem.index);

	switch (d->ocu_place) {
	case XRXE_OCU_PLACE_STATIC:
		mode = XRXE_OCU_STATIC;
		break;
	case XRXE_OCU_PLACE_DYNAMIC:
		mode = XRXE_OCU_DYNAMIC;
		break;
	case XRXE_OCU_PLACE_COMP_VECTOR:
		set = xrxe_ocu_set_engines(READ_ONCE(ocu_set[d->tc]),
					   xrxe_nr_engines);
		return &xrxe_ocus[xrxe_ocu_steered_index(hash,
				xrxe_ocu_slice_first(xrxe_nr_ocus, d->tc,
						     XRXE_OCU_STATIC),
				xrxe_ocu_slice_size(xrxe_nr_ocus),
				qp->scq->comp_vector, xrxe_ocu_set_count(set))];
	default:
		mode = READ_ONCE(ocu_mode_param);
	}
	return ocu_of(hash, d->tc, mode);
}

/*
 * Move d, with nothing in flight, to OCU to: at once if it is off its
 * engine, else when it leaves it. Caller holds d's OCU lock.
 */
static void dbl_move(struct xrxe_dbl *d, struct xrxe_ocu *to)
{
	if (d->queued) {
		d->ocu_next = to;
	} else {
		d->ocu_next = NULL;
		xrxe_ocu_set(d, to);
	}
}

/*
 * A connected QP that reached RTR, with nothing in flight, knows its flow
 * and class: move it to its OCU by them, at once if it is off its engine,
 * else when it leaves it.
 */
void xrxe_ocu_bind(struct rxe_qp *qp, u32 flow_hash, u8 tc)
{
	struct xrxe_dbl *d = qp->dbl;
	struct xrxe_ocu *o;
	unsigned long flags;

	o = xrxe_ocu_lock(d, &flags);
	/*
	 * uverbs does not serialize two modifies of one QP: another may have
	 * taken it on to RTS, and its engine WQEs, since this one's reached
	 * RTR. It keeps its OCU, so that what it sent stays in order.
	 */
	if (d->fetch == d->completed) {
		d->tc = tc;
		d->flow_hash = flow_hash;
		d->has_flow = true;
		dbl_move(d, xrxe_ocu_home(qp));
	}
	spin_unlock_irqrestore(&o->lock, flags);
}

/*
 * The placement and ordering domain a QP asks for (XRXE_MODIFY_QP_OCU):
 * it moves to its OCU by them, which needs nothing of it in flight; at
 * once if it is off its engine, else when its turn ends (an engine may be
 * finishing the turn that completed its last WQE). A turn that runs
 * meanwhile takes WQEs on the old OCU, and the move waits for them.
 */
int xrxe_ocu_place(struct rxe_qp *qp, u32 place, u32 domain)
{
	struct xrxe_dbl *d = qp->dbl;
	struct xrxe_ocu *o;
	unsigned long flags;
	int err = 0;

	o = xrxe_ocu_lock(d, &flags);
	if (d->fetch != d->completed) {
		err = -EBUSY;
	} else {
		d->ocu_place = place;
		d->ocu_domain = domain;
		dbl_move(d, xrxe_ocu_home(qp));
	}
	spin_unlock_irqrestore(&o->lock, flags);
	return err;
}

/*
 * The OCU table, each OCU on its engine of n under static mapping until it
 * is first mapped.
 */
int xrxe_ocus_alloc(unsigned int n)
{
	unsigned int i, slice;

	xrxe_nr_ocus = num_ocus_param ?:
		   max_t(unsigned int, XRXE_OCUS_PER_ENGINE * n,
			 XRXE_DEFAULT_MIN_OCUS);
	xrxe_nr_ocus = clamp(xrxe_nr_ocus, XRXE_MIN_OCUS, XRXE_MAX_OCUS);
	if (num_ocus_param && xrxe_nr_ocus != num_ocus_param)
		pr_notice("ocus=%u: using %u\n", num_ocus_param, xrxe_nr_ocus);
	/* The parameter shows the count in use. */
	num_ocus_param = xrxe_nr_ocus;
	xrxe_ocus = kvcalloc(xrxe_nr_ocus, sizeof(*xrxe_ocus), GFP_KERNEL);
	if (!xrxe_ocus)
		return -ENOMEM;
	slice = xrxe_ocu_slice_size(xrxe_nr_ocus);
	for (i = 0; i < xrxe_nr_ocus; i++) {
		struct xrxe_ocu *o = &xrxe_ocus[i];

		spin_lock_init(&o->lock);
		o->tc = i / slice / 2 % XRXE_OCU_TCS;
		o->mode = i / slice % 2 ? XRXE_OCU_DYNAMIC : XRXE_OCU_STATIC;
		o->engine = &xrxe_engines[xrxe_ocu_static_engine(i % slice, 0, n)];
	}
	return 0;
}

/* debugfs rdma_xrxe/ocus: the OCUs that have not drained. */
static int ocus_show(struct seq_file *m, void *unused)
{
	unsigned long flags;
	unsigned int i;

	seq_puts(m, "ocu tc mode engine queued inflight\n");
	for (i = 0; i < xrxe_nr_ocus; i++) {
		struct xrxe_ocu *o = &xrxe_ocus[i];
		u32 queued;
		int inflight;
		bool busy;
		long e;

		spin_lock_irqsave(&o->lock, flags);
		busy = o->busy;
		queued = o->queued;
		inflight = o->inflight;
		e = o->engine - xrxe_engines;
		spin_unlock_irqrestore(&o->lock, flags);
		if (busy)
			seq_printf(m, "%u %u %s %ld %u %d\n", i, o->tc,
				   o->mode == XRXE_OCU_STATIC ? "static" :
				   "dynamic", e, queued, inflight);
		cond_resched();
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ocus);

void xrxe_ocu_debugfs(struct dentry *dir)
{
	debugfs_create_file("ocus", 0400, dir, NULL, &ocus_fops);
	debugfs_create_bool("ocu_remap_test", 0600, dir, &ocu_remap_test);
}

void xrxe_ocus_free(void)
{
	kvfree(xrxe_ocus);
	xrxe_ocus = NULL;
	xrxe_nr_ocus = 0;
}
