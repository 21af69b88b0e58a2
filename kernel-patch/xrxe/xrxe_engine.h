/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What the three parts of doorbell-less send queues share: the ring
 * (xrxe_sq.c), the engines (xrxe_engine.c) and the OCUs (xrxe_ocu.c).
 */

#ifndef XRXE_ENGINE_H
#define XRXE_ENGINE_H

/*
 * Capped, so that per-engine state can have a size fixed at build time and
 * an OCU set (one bit an engine) fits a u32.
 */
#define XRXE_MAX_ENGINES	XRXE_OCU_MAX_ENGINES

/* A sum of work that halves every ocu_load_half_life_ms: value as of ns. */
struct xrxe_recent {
	u64			value;
	u64			ns;
};

struct xrxe_engine {
	/* run_list and its owners' qps lists; taken in any context */
	spinlock_t		lock;
	struct list_head	run_list;	/* xrxe_owner.node */
	wait_queue_head_t	wait;
	struct task_struct	*thread;
	/* For dynamic mapping: updated under the OCUs' locks, read without. */
	atomic64_t		load;		/* cost of its OCUs' WQEs in flight */
	atomic_t		busy_ocus;	/* OCUs mapped here, not drained */
	/*
	 * The recent work of the OCUs mapped here: written under lock, read
	 * without by xrxe_ocu_map(), which must not meet every engine's lock.
	 */
	struct xrxe_recent	recent;
	/* Work done, for debugfs: by any turn of a QP queued here */
	atomic64_t		wqes;
	atomic64_t		bytes;
	/* by the engine's own thread */
	atomic64_t		turns;
	atomic64_t		busy_ns;
};

/*
 * An ordering control unit: the QPs that hash to it reach its engine, one
 * engine at a time. Its lock comes before its engine's.
 *
 * An OCU may move to another engine only once it has drained: none of its
 * QPs queued (on a run list or in a turn) and none of its WQEs in flight
 * (taken from a ring and not yet retired by the completer). WQEs are
 * taken only in a turn, so in flight cannot grow while queued is 0.
 */
struct xrxe_ocu {
	/*
	 * the fields below, and queued, kicked, detached, engine and owner of
	 * its QPs; any context
	 */
	spinlock_t		lock;
	struct xrxe_engine	*engine;
	u32			queued;		/* its QPs with queued set */
	bool			busy;		/* mapped, not drained since */
	u8			tc;
	u8			mode;		/* enum xrxe_ocu_mode */
	/*
	 * A turn counts what it took at its end, so a send task running
	 * meanwhile may retire first: below 0 only while queued.
	 */
	int			inflight;
	/* cost of the WQEs its QPs took; its engine's recent work holds it */
	struct xrxe_recent	recent;
	/* Its QPs, until destroyed: whoever moves one needs no lock of to's. */
	atomic_t		qps;
};

/* xrxe_engine.c */
extern struct xrxe_engine *xrxe_engines;
extern unsigned int xrxe_nr_engines;
bool xrxe_engine_kick(struct rxe_qp *qp);
void xrxe_engine_unlink(struct xrxe_dbl *d);
bool xrxe_engine_may_poll(s32 idle_us);

/* xrxe_ocu.c */
extern struct xrxe_ocu *xrxe_ocus;
extern unsigned int xrxe_nr_ocus;
int xrxe_ocus_alloc(unsigned int n);
void xrxe_ocus_free(void);
void xrxe_ocu_debugfs(struct dentry *dir);
u32 xrxe_ocu_cost(u8 tc, u32 length);
struct xrxe_ocu *xrxe_ocu_lock(struct xrxe_dbl *d, unsigned long *flags);
void xrxe_ocu_map(struct xrxe_ocu *o, struct xrxe_dbl *d);
void xrxe_ocu_charge(struct xrxe_dbl *d, u32 n, u64 cost, bool by_engine);
void xrxe_ocu_retire(struct xrxe_dbl *d, u32 n, u64 cost);
void xrxe_ocu_hold(struct xrxe_dbl *d, bool held);
void xrxe_ocu_put_qp(struct xrxe_ocu *o);
u64 xrxe_engine_recent_peek(const struct xrxe_engine *e, u64 now);
void xrxe_ocu_set(struct xrxe_dbl *d, struct xrxe_ocu *to);
void xrxe_ocu_leave(struct xrxe_dbl *d);
struct xrxe_ocu *xrxe_ocu_home(struct rxe_qp *qp);
void xrxe_ocu_bind(struct rxe_qp *qp, u32 flow_hash, u8 tc);
int xrxe_ocu_place(struct rxe_qp *qp, u32 place, u32 domain);

/* xrxe_sq.c */
bool xrxe_sq_slot_ready(struct xrxe_dbl *d);
void xrxe_sq_count(struct xrxe_dbl *d, enum xrxe_qp_status_counters c);
bool xrxe_sq_may_fetch(struct rxe_qp *qp);
bool xrxe_sq_fetch_one(struct rxe_qp *qp);
int xrxe_sq_take_ll(struct rxe_qp *qp, const struct xrxe_ll_cmd *ll,
		     size_t len);

#endif /* XRXE_ENGINE_H */
