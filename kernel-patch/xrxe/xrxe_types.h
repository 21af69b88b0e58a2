/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * xrxe's state in rxe's objects: the types that struct rxe_qp, struct
 * rxe_ucontext and struct rxe_dev hold (rxe_verbs.h includes this header
 * before it defines them).
 */

#ifndef XRXE_TYPES_H
#define XRXE_TYPES_H

#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <rdma/rdma_user_xrxe.h>

struct rxe_qp;
struct rxe_mmap_info;
struct xrxe_ocu;
struct xrxe_engine;
struct xrxe_fdom;

/*
 * A context's share of one engine: its doorbell-less QPs waiting for a
 * turn there. An engine's run list holds owners, not QPs, and serves one
 * QP of each owner per round, so that a context gets no more of a shared
 * engine by creating more QPs.
 */
struct xrxe_owner {
	struct list_head	node;	/* on the engine's run list */
	struct list_head	qps;	/* xrxe_dbl.node of its waiting QPs */
};

/* Bits of xrxe_dbl.flags */
enum {
	XRXE_DBL_SQ_FULL,	/* parked until the completer frees room */
	XRXE_DBL_RESUME,	/* send work scheduled: run the send task */
};

/* Where a QP's domain flush is (struct xrxe_fdom_wait.state). */
enum xrxe_fdom_wait_state {
	XRXE_FDOM_NONE,		/* no flush at the requester */
	XRXE_FDOM_WAITING,	/* off its engine until the domain drains */
	XRXE_FDOM_READY,	/* resumed: the flush may start */
};

/*
 * A domain flush at a QP's requester: for each other member of the domain
 * (by slot), the count of its completed WQEs that lets the flush start,
 * valid while that member's epoch is the one recorded. Under the domain's
 * lock.
 */
struct xrxe_fdom_wait {
	enum xrxe_fdom_wait_state state;
	u32			pos;		/* own completed count to reach */
	u32			slots;		/* members still waited for */
	u64			since_ns;
	bool			drained_seen;	/* by the watchdog's last look */
	u32			target[XRXE_FLUSH_DOMAIN_MAX_QPS];
	u32			epoch[XRXE_FLUSH_DOMAIN_MAX_QPS];
};

/* A doorbell-less send queue (xrxe_sq.c). */
struct xrxe_dbl {
	struct rxe_qp		*qp;
	struct xrxe_ocu		*ocu;		/* changed under its lock */
	struct xrxe_ocu		*ocu_next;	/* once off its engine */
	struct xrxe_owner	*owners;	/* its context's, one per engine */
	/* Under the OCU's lock; engine and owner are valid while queued. */
	struct xrxe_engine	*engine;
	struct xrxe_owner	*owner;		/* owners[engine] */
	struct list_head	node;		/* on owner->qps */
	bool			queued;		/* on the list or being served */
	u8			tc;		/* traffic class of its OCU */
	/* What places it on an OCU (dbl_home()): under its OCU's lock. */
	u8			ocu_place;	/* enum xrxe_ocu_placement */
	bool			has_flow;	/* connected, past RTR */
	u32			flow_hash;
	u32			ocu_domain;	/* 0: none */
	u32			ctx_index;	/* its context's, for domains */
	bool			kicked;		/* doorbell while being served */
	bool			detached;	/* the QP is being destroyed */
	bool			doorbell_pending;
	unsigned long		flags;		/* XRXE_DBL_* */
	struct mutex		serve_lock;	/* engine against reset */
	struct xrxe_sq_slot	*ring;		/* shared: read with care */
	struct xrxe_qp_status	*status;	/* shared: written only */
	struct rxe_mmap_info	*ring_ip;
	struct rxe_mmap_info	*status_ip;
	u32			log2_slots;
	u32			log2_slot_size;
	u32			fetch;		/* next slot index */
	u64			take_cost;	/* of the WQEs this turn took */
	u64			take_bytes;	/* their payload */
	bool			bulk;		/* its last WQEs: engine_bulk_packets */
	u64			cost_out;	/* of its WQEs in flight: OCU lock */
	bool			load_held;	/* cost_out off its engine: OCU lock */
	u32			completed;	/* WQEs retired, free-running */
	u64			idle_since;	/* busy-poll start, ns */
	s32			idle_us;	/* -1: module's engine_idle_us */
	u32			coalesce_max;	/* 0: none (xrxe_coalesce.c) */
	/* Its flush domain (xrxe_fdom.c): pointer under RCU and its lock. */
	struct xrxe_fdom __rcu	*fdom;
	u8			fdom_slot;
	u32			fdom_epoch;	/* changed when counts restart */
	struct xrxe_fdom_wait	fdom_wait;
	/* Low-latency commands (xrxe_ll.c): XRXE_LL_ENTRIES of ll_entry_size. */
	void			*ll_buf;	/* NULL: no low-latency posting */
	unsigned long		ll_used;	/* entries in use, one bit each */
	u32			ll_entry_size;
};

/* Bits of xrxe_pace.flags */
enum {
	XRXE_PACE_PAUSED,	/* waiting for its timer */
	XRXE_PACE_WOKEN,	/* its timer fired since the last send */
};

/*
 * A QP's send rate limit (xrxe_pace.c): a token bucket of the IP bytes its
 * requester sends. limit is written by modify_qp and read by the
 * requester; tokens and stamp_ns belong to the requester, which rxe's send
 * task runs one at a time.
 */
struct xrxe_pace {
	u64			limit;		/* rate_kbps | burst << 32 */
	u16			typical_pkt_sz;	/* 0: the path MTU's packet */
	u64			tokens;		/* bytes * XRXE_PACE_SCALE */
	u64			stamp_ns;	/* last refill; 0: bucket full */
	unsigned long		flags;		/* XRXE_PACE_* bits */
	struct hrtimer		timer;
};

/*
 * xrxe: the stages of a stream whose runs are counted, per CPU, to show
 * where each ran (xrxe_stage.c).
 */
enum xrxe_stage {
	XRXE_STAGE_POST,	/* a post_send() or doorbell system call */
	XRXE_STAGE_REQ,		/* a send task pass whose requester worked */
	XRXE_STAGE_COMP,	/* a send task pass whose completer worked */
	XRXE_STAGE_RESP,	/* a receive task pass whose responder worked */
	XRXE_NUM_STAGES,
};

/*
 * One CPU's counts of a device's stage runs: runs, and runs on the CPU
 * where the stage before last ran for the same QP. Per CPU, so that no
 * run writes a line another CPU writes; summed when read.
 */
struct xrxe_stage_counts {
	u64			runs[XRXE_NUM_STAGES];
	u64			same_cpu[XRXE_NUM_STAGES];
};

#endif /* XRXE_TYPES_H */
