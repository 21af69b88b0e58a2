/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xrxe direct verbs: per-QP controls and figures of xrxe's extensions, for
 * programs that link against libxrxe.
 */
#ifndef INFINIBAND_XRXEDV_H
#define INFINIBAND_XRXEDV_H

#include <stdint.h>
#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

enum xrxedv_doorbell_mode {
	/* Ring the doorbell only when the engine asks for it (default). */
	XRXEDV_DOORBELL_AUTO,
	/* Ring it on every post, as classic rxe does. */
	XRXEDV_DOORBELL_ALWAYS,
};

/*
 * Choose when posts on qp ring the doorbell. 0, or EOPNOTSUPP if qp is not
 * an xrxe QP with a doorbell-less send queue, EINVAL for an unknown mode.
 */
int xrxedv_qp_set_doorbell_mode(struct ibv_qp *qp, enum xrxedv_doorbell_mode mode);

/*
 * How long the engine keeps polling qp's empty send queue before it asks
 * for a doorbell: 0 to XRXE_MAX_ENGINE_IDLE_US microseconds (one second,
 * <rdma/rdma_user_xrxe.h>), or -1 for the module's engine_idle_us. 0,
 * EINVAL for a value out of range, EOPNOTSUPP as above, EPERM above the
 * module's engine_idle_user_max_us without CAP_SYS_NICE, or another error
 * of the modify-QP system call as it came (xrxedv_qp_set_engine_idle(3)).
 */
int xrxedv_qp_set_engine_idle(struct ibv_qp *qp, int32_t idle_us);

enum xrxedv_ll_mode {
	/*
	 * Send a post's WQE in its doorbell when a doorbell is needed anyway
	 * (the engine is idle) and the ring holds nothing else (default).
	 */
	XRXEDV_LL_IDLE,
	/* On every post of one small WQE, whatever the engine does. */
	XRXEDV_LL_ALWAYS,
	/* Never: posts use the ring and bare doorbells only. */
	XRXEDV_LL_NEVER,
};

/*
 * Choose when posts on qp use the low-latency path. 0, EOPNOTSUPP if qp
 * is not an xrxe QP with low-latency posting, EINVAL for an unknown mode.
 */
int xrxedv_qp_set_ll_mode(struct ibv_qp *qp, enum xrxedv_ll_mode mode);

enum xrxedv_ocu_mode {
	/* The module's ocu_mode parameter, as a new QP has it. */
	XRXEDV_OCU_MODULE,
	/* Static: the OCU's engine is fixed by its number. */
	XRXEDV_OCU_STATIC,
	/* Dynamic: the least loaded engine each time the OCU starts work. */
	XRXEDV_OCU_DYNAMIC,
	/*
	 * Static, on the engine of the QP's send CQ's comp_vector: the device
	 * has one completion vector per engine.
	 */
	XRXEDV_OCU_COMP_VECTOR,
};

/*
 * Choose the ordering control unit (OCU) that serves qp's sends: its mode,
 * and an ordering domain, a number of the caller's choice (0 for none):
 * QPs of one context with the same domain, mode and traffic class (and,
 * with XRXEDV_OCU_COMP_VECTOR, the same send CQ vector) share one OCU, so
 * they are never served by two engines at once and move between engines
 * together. With no domain a connected QP's OCU comes from its destination
 * (at RTR), a UD QP's from its own number. 0: the QP belongs to its new OCU
 * from its next turn on (a turn already queued on its engine is served
 * first); EBUSY while WQEs the kernel has taken from it have not completed
 * (try again once they have), EINVAL for an unknown mode, EOPNOTSUPP if qp
 * is not an xrxe QP with a doorbell-less send queue or the kernel has no
 * OCUs (xrxedv_qp_set_ocu(3)).
 */
int xrxedv_qp_set_ocu(struct ibv_qp *qp, enum xrxedv_ocu_mode mode,
		      uint32_t domain);

/*
 * Let the kernel send the RDMA WRITEs queued behind one that starts, to the
 * remote bytes that follow it under the same rkey, in its message, up to
 * max_bytes (at most XRXE_COALESCE_MAX_BYTES, <rdma/rdma_user_xrxe.h>, and
 * the path MTU; 0 turns it off). Every WQE still completes, in order, when
 * the merged message is acknowledged; an error of the message is reported
 * on its first WQE and flushes the rest (xrxedv_qp_set_coalesce(3) gives
 * the rules). 0, EINVAL above XRXE_COALESCE_MAX_BYTES, EOPNOTSUPP if qp is
 * not an RC or UC xrxe QP with a doorbell-less send queue or the kernel
 * does not coalesce.
 */
int xrxedv_qp_set_coalesce(struct ibv_qp *qp, uint32_t max_bytes);

/*
 * RDMA FLUSH (IBTA 1.5) for libibverbs releases whose struct ibv_qp_ex has
 * no wr_flush: each value equals the IBV_* name of later rdma-core, so a
 * program moves to ibv_wr_flush() by renaming.
 */
enum {
	/* send_ops_flags of ibv_create_qp_ex(): IBV_QP_EX_WITH_FLUSH. */
	XRXEDV_QP_EX_WITH_FLUSH = 1 << 11,
	/* The WQE's opcode: IBV_WR_FLUSH. */
	XRXEDV_WR_FLUSH = 14,
	/* Its completion's opcode: IBV_WC_FLUSH. */
	XRXEDV_WC_FLUSH = 8,
	/* MR and QP access: IBV_ACCESS_FLUSH_GLOBAL, _PERSISTENT. */
	XRXEDV_ACCESS_FLUSH_GLOBAL = 1 << 8,
	XRXEDV_ACCESS_FLUSH_PERSISTENT = 1 << 9,
};

/* Placement types, one or both: IBV_FLUSH_GLOBAL, IBV_FLUSH_PERSISTENT. */
enum xrxedv_flush_type {
	XRXEDV_FLUSH_GLOBAL = 1 << 0,
	XRXEDV_FLUSH_PERSISTENT = 1 << 1,
};

/* Selectivity level: IBV_FLUSH_RANGE, IBV_FLUSH_MR. */
enum xrxedv_flush_level {
	XRXEDV_FLUSH_RANGE,
	XRXEDV_FLUSH_MR,
};

/*
 * Post an RDMA FLUSH of len bytes at remote_addr under rkey (the whole MR
 * with XRXEDV_FLUSH_MR), between ibv_wr_start() and ibv_wr_complete() on an
 * RC xrxe QP created with XRXEDV_QP_EX_WITH_FLUSH, as ibv_wr_flush() does.
 * It completes, with XRXEDV_WC_FLUSH, once the responder has made every
 * earlier write of the QP to that memory visible (type GLOBAL) or
 * persistent (PERSISTENT, only on persistent memory). ibv_wr_complete()
 * then returns EOPNOTSUPP if the QP was not created for flushes, EINVAL
 * for an unknown type or level or len above 32 bits
 * (xrxedv_wr_flush(3)).
 */
void xrxedv_wr_flush(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr,
		     size_t len, uint8_t type, uint8_t level);

/*
 * Flush domains. Doorbell-less RC QPs of one context that join a domain
 * may be served by different engines; a WR posted on one of them with
 * XRXEDV_SEND_DOMAIN_FLUSH in its send_flags (ibv_post_send()) or wr_flags
 * (ibv_wr_*()) does not start until every WR posted before it on the other
 * QPs of the domain, and on its own QP, has been acknowledged: records
 * spread over several QPs, then a tag that lands after all of them
 * (xrxedv_create_flush_domain(3) gives the rules).
 */
struct xrxedv_flush_domain;

#define XRXEDV_SEND_DOMAIN_FLUSH	(1U << 26)

/*
 * A new, empty flush domain of ctx, or NULL with errno EOPNOTSUPP (ctx is
 * not an xrxe context with doorbell-less send queues, or the kernel has no
 * flush domains), ENOMEM.
 */
struct xrxedv_flush_domain *xrxedv_create_flush_domain(struct ibv_context *ctx);

/* 0, or EBUSY while QPs are in dom (it is then left as it is). */
int xrxedv_destroy_flush_domain(struct xrxedv_flush_domain *dom);

/*
 * Move qp into dom (NULL: out of its domain). 0, or EINVAL if qp and dom
 * belong to different contexts, EOPNOTSUPP if qp is not a doorbell-less RC
 * xrxe QP, EBUSY while WQEs the kernel took from qp have not completed,
 * ENOSPC if dom holds XRXE_FLUSH_DOMAIN_MAX_QPS QPs already.
 */
int xrxedv_qp_set_flush_domain(struct ibv_qp *qp, struct xrxedv_flush_domain *dom);

struct xrxedv_qp_counters {
	/* Kept by the provider. */
	uint64_t doorbells;		/* posts that rang the doorbell */
	uint64_t doorbells_avoided;	/* posts that did not need to */
	/* Published by the kernel in the QP's status page. */
	uint64_t kernel_doorbells;
	uint64_t engine_wakeups;
	uint64_t wqes_fetched;
	uint64_t busy_poll_hits;
	uint64_t wqes_rejected;
	/* Low-latency posting, kept by the provider. */
	uint64_t ll_posts;		/* posts sent as commands */
	uint64_t ll_accepted;		/* of them, taken by the kernel */
	uint64_t ll_dropped;		/* dropped: the ring copy was used */
	uint64_t ll_errors;		/* refused with an error */
	/* Low-latency posting, published by the kernel, by outcome. */
	uint64_t kernel_ll_posts;
	uint64_t kernel_ll_accepted;
	uint64_t kernel_ll_dropped_order;	/* not next in ring order */
	uint64_t kernel_ll_dropped_busy;	/* the engine was serving the QP */
	uint64_t kernel_ll_dropped_full;	/* the QP's buffer was full */
	uint64_t kernel_ll_dropped_state;	/* the QP could not send */
	uint64_t kernel_ll_dropped_forced;	/* the ll_drop_every test knob */
	uint64_t kernel_ll_rejected;		/* malformed */
	/* Turns the QP had, from its engine or in its doorbells. */
	uint64_t engine_turns;
	/* Its rate limit, published by the kernel. */
	uint64_t pace_pauses;		/* times the requester was paused */
	uint64_t pace_wakeups;		/* times its timer resumed it */
	uint64_t pace_bytes;		/* IP bytes sent under a limit */
	uint64_t kernel_ll_dropped_paced;	/* commands while its limit paused it */
	/* Resumed after its bucket filled: a backlog not run in time. */
	uint64_t pace_late_wakeups;
	uint64_t pace_late_bytes;	/* IP bytes the rate gave it then */
	uint64_t pace_wait_us;		/* from its pauses to its runs after */
	/*
	 * Where the kernel serves it: its ordering control unit (OCU) and the
	 * engine it was last queued on; XRXEDV_UNKNOWN from a kernel without
	 * OCUs, and engine until its first turn.
	 */
	uint32_t ocu;
	uint32_t engine;
	uint64_t ocu_maps;		/* its OCU started work, by its turns */
	uint64_t ocu_remaps;		/* of them, onto another engine */
	/* Write coalescing, published by the kernel. */
	uint64_t wqes_coalesced;	/* WQEs sent in an earlier WQE's message */
	uint64_t msgs_coalesced;	/* messages that carried more than one */
	/* Flush domains, published by the kernel. */
	uint64_t domain_flushes;	/* WQEs with XRXEDV_SEND_DOMAIN_FLUSH started */
	uint64_t domain_wait_us;	/* how long they waited for their domain */
};

#define XRXEDV_UNKNOWN	UINT32_MAX

/*
 * The queries fill a struct whose size the caller passes as inlen
 * (sizeof(*c)), so that fields added at the end later do not break
 * programs built before: the library fills what it and the caller both
 * know, zeroes the caller's fields it does not know, and writes nothing
 * past inlen. 0, EINVAL if inlen is smaller than the struct of the first
 * release (XRXE_1.0), or EOPNOTSUPP as above.
 */

/* The counters of qp. */
int xrxedv_query_qp_counters(struct ibv_qp *qp, struct xrxedv_qp_counters *c,
			     uint32_t inlen);

struct xrxedv_sq_info {
	void *ring;			/* 1 << log2_slots slots */
	uint32_t log2_slots;
	uint32_t log2_slot_size;
	const void *status;		/* struct xrxe_qp_status, read-only */
};

/*
 * Where qp's doorbell-less send queue lives, for tools and tests that look
 * at (or deliberately damage) it.
 */
int xrxedv_query_sq(struct ibv_qp *qp, struct xrxedv_sq_info *info, uint32_t inlen);

#ifdef __cplusplus
}
#endif

#endif /* INFINIBAND_XRXEDV_H */
