/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * User ABI of xrxe, the extended rxe driver: what its userspace provider
 * and the kernel agree on beyond rdma_user_rxe.h.
 */
#ifndef RDMA_USER_XRXE_H
#define RDMA_USER_XRXE_H

#include <linux/types.h>
#include <rdma/rdma_user_rxe.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_verbs.h>

/*
 * Driver id reported to userspace (RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID):
 * "xrxe" in ASCII, far from the values of enum rdma_driver_id, so that
 * only the xrxe provider binds xrxe devices.
 */
#define XRXE_DRIVER_ID		0x78727865

/* Link type of "rdma link add NAME type xrxe netdev DEV". */
#define XRXE_LINK_TYPE		"xrxe"

/*
 * Version of this ABI. The provider sends its version and the capabilities
 * it can use when it creates a context; the kernel answers with its version
 * and the subset it grants. A provider that sends nothing gets nothing and
 * runs on the plain rxe ABI.
 */
#define XRXE_ABI_VERSION	1

enum xrxe_caps {
	/* Doorbell-less send queues: struct xrxe_sq_slot, xrxe_qp_status. */
	XRXE_CAP_DBL_SQ		= 1 << 0,
	/* Low-latency posting: struct xrxe_ll_cmd (needs XRXE_CAP_DBL_SQ). */
	XRXE_CAP_LL_SQ		= 1 << 1,
	/* Send rate limits: XRXE_MODIFY_QP_RATE_LIMIT, on any QP. */
	XRXE_CAP_RATE_LIMIT	= 1 << 2,
	/* OCUs: xrxe_qp_status.ocu, engine, ocu_mode (needs XRXE_CAP_DBL_SQ). */
	XRXE_CAP_OCU		= 1 << 3,
	/* Completion timestamps: struct xrxe_cqe in a timestamping CQ. */
	XRXE_CAP_CQ_TIMESTAMP	= 1 << 4,
	/* Write coalescing: XRXE_MODIFY_QP_COALESCE (needs XRXE_CAP_DBL_SQ). */
	XRXE_CAP_COALESCE	= 1 << 5,
	/*
	 * Flush domains: XRXE_MODIFY_QP_FLUSH_DOMAIN and
	 * XRXE_SEND_DOMAIN_FLUSH (needs XRXE_CAP_DBL_SQ).
	 */
	XRXE_CAP_FLUSH_DOMAIN	= 1 << 6,
};

/*
 * The entry of a CQ created with IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION
 * (needs XRXE_CAP_CQ_TIMESTAMP): the standard entry, then the times the
 * kernel posted it. The device's clock is the kernel's: ts_ns counts
 * CLOCK_MONOTONIC nanoseconds (hca_core_clock is 1 GHz), wallclock_ns
 * CLOCK_REALTIME ones. Entries of other CQs leave both undefined.
 */
struct xrxe_cqe {
	struct ib_uverbs_wc wc;
	__aligned_u64 ts_ns;
	__aligned_u64 wallclock_ns;
};

struct xrxe_alloc_context_cmd {
	__u32 abi_version;
	__u32 caps;
};

struct xrxe_alloc_context_resp {
	__u32 abi_version;
	__u32 caps;
	__u32 engines;		/* engines serving doorbell-less send queues */
	__u32 reserved;
};

enum xrxe_create_qp_flags {
	XRXE_QP_DBL_SQ		= 1 << 0,
	XRXE_QP_LL_SQ		= 1 << 1,	/* with XRXE_QP_DBL_SQ */
};

struct xrxe_create_qp_cmd {
	__u32 flags;		/* enum xrxe_create_qp_flags */
	__u32 reserved;
};

/*
 * With XRXE_QP_DBL_SQ granted, rxe.sq_mi is empty: the send queue is the
 * ring of slots at sq_ring_mi (1 << sq_log2_slots slots of
 * 1 << sq_log2_slot_size bytes) and the QP's status page is at status_mi.
 */
struct xrxe_create_qp_resp {
	struct rxe_create_qp_resp rxe;
	struct mminfo sq_ring_mi;
	struct mminfo status_mi;
	__u32 flags;		/* enum xrxe_create_qp_flags granted */
	__u32 sq_log2_slots;
	__u32 sq_log2_slot_size;
	__u32 reserved;
};

enum xrxe_modify_qp_mask {
	/* engine_idle_us is valid */
	XRXE_MODIFY_QP_ENGINE_IDLE	= 1 << 0,
	/* rate_limit_kbps, max_burst_sz and typical_pkt_sz are valid */
	XRXE_MODIFY_QP_RATE_LIMIT	= 1 << 1,
	/* ocu_placement and ocu_domain are valid (needs XRXE_CAP_OCU) */
	XRXE_MODIFY_QP_OCU		= 1 << 2,
	/* coalesce_max is valid (needs XRXE_CAP_COALESCE) */
	XRXE_MODIFY_QP_COALESCE		= 1 << 3,
	/* flush_domain is valid (needs XRXE_CAP_FLUSH_DOMAIN) */
	XRXE_MODIFY_QP_FLUSH_DOMAIN	= 1 << 4,
};

#define XRXE_MAX_ENGINE_IDLE_US	1000000

/*
 * Send rate limits of RC, UC and UD QPs, as ibv_modify_qp_rate_limit()
 * takes them. The rate counts the bytes of the IP packets the QP's
 * requester sends (IP, UDP and RoCE headers, payload, pad and ICRC),
 * retransmissions included, in kbit/s; 0 is no limit. max_burst_sz is how
 * many such bytes the QP may send back to back (0: the default below; at
 * least one packet is always allowed); a paused QP waits until it may send
 * typical_pkt_sz bytes (0: one packet of the path MTU) before it resumes.
 */
#define XRXE_RATE_LIMIT_MIN_KBPS	1
#define XRXE_RATE_LIMIT_MAX_KBPS	100000000
#define XRXE_RATE_LIMIT_DEFAULT_BURST	16384
#define XRXE_RATE_LIMIT_DEFAULT_BURST_MS	32
#define XRXE_RATE_LIMIT_MAX_BURST	(16U << 20)

/*
 * Driver data of ibv_modify_qp() (any attr_mask, even 0). engine_idle_us:
 * how long the engine keeps polling this QP's empty send queue before it
 * asks for a doorbell, up to XRXE_MAX_ENGINE_IDLE_US; -1 returns to the
 * module's engine_idle_us. Needs a doorbell-less send queue. The rate
 * fields need XRXE_CAP_RATE_LIMIT. The OCU fields (enum
 * xrxe_ocu_placement, and an ordering domain of the context, 0 for none)
 * come alone, with attr_mask 0, on a doorbell-less QP with nothing in
 * flight (else EBUSY). coalesce_max: see xrxe_coalesce_joins(), 0 for
 * none; on a doorbell-less RC or UC QP. flush_domain: the flush domain of
 * the context the QP joins, 0 to leave its own; alone, with attr_mask 0,
 * on a doorbell-less RC QP with nothing in flight (else EBUSY), into a
 * domain of fewer than XRXE_FLUSH_DOMAIN_MAX_QPS QPs (else ENOSPC). A
 * shorter command (of an older provider) ends after engine_idle_us.
 */
struct xrxe_modify_qp_cmd {
	__u32 comp_mask;	/* enum xrxe_modify_qp_mask */
	__s32 engine_idle_us;
	__u32 rate_limit_kbps;
	__u32 max_burst_sz;
	__u16 typical_pkt_sz;
	__u16 reserved;
	__u32 reserved1;
	__u32 ocu_placement;
	__u32 ocu_domain;
	__u32 coalesce_max;
	__u32 flush_domain;
};

/*
 * Flush domains. QPs of one context that joined the same flush domain (a
 * number of the context's choosing) may run on any engines; a WQE posted
 * with XRXE_SEND_DOMAIN_FLUSH does not start until every WQE the engine
 * had taken, or could take from the ring, of each other QP of the domain
 * when the flush reached the head of its own QP's requester has
 * completed, and every earlier WQE of its own QP too. A flush never waits
 * for WQEs of another QP at or after that QP's own waiting flush, so that
 * flushes on several QPs cannot wait for each other. The flag is the
 * first of the send flags the verbs leave to drivers.
 */
#define XRXE_SEND_DOMAIN_FLUSH		(1U << 26)
#define XRXE_FLUSH_DOMAIN_MAX_QPS	16

/*
 * Write coalescing. When the requester of a QP whose coalesce_max is set
 * starts an RDMA WRITE that the engine took from its ring, it sends the
 * RDMA WRITEs taken after it, for as long as each may join, in the same
 * message: one standard RDMA WRITE on the wire. Every WQE still completes,
 * in order, when that message is acknowledged; an error of the message is
 * reported on its first WQE, and the WQEs after it are flushed. Nothing
 * waits for a WQE to join: only what is already queued behind a WRITE as
 * it starts is merged into it.
 */
#define XRXE_COALESCE_MAX_BYTES	4096	/* the largest path MTU */
#define XRXE_COALESCE_MAX_WQES	64	/* WQEs in one message */

/*
 * A send queue slot. The provider fills wqe (as for rxe's send queue: wr,
 * dma.length, dma.num_sge, dma.sge[] or dma.inline_data[]; the kernel
 * computes every other field itself), then stores gen last, with release
 * semantics. The engine takes slot i when gen equals xrxe_sq_gen(i), with
 * no index read; it copies the slot and validates the copy.
 */
struct xrxe_sq_slot {
	__u32 gen;
	__u32 reserved;
	struct rxe_send_wqe wqe;
};

/*
 * Generation of slot index i (a free-running count of posts): the lap
 * number plus one, so that a zeroed ring holds no valid slot and a slot
 * left from an earlier lap never matches.
 */
static inline __u32 xrxe_sq_gen(__u32 index, __u32 log2_slots)
{
	return (index >> log2_slots) + 1;
}

enum xrxe_qp_status_counters {
	XRXE_QP_DOORBELLS,	/* doorbells the provider rang */
	XRXE_QP_WAKEUPS,	/* of them, the ones that woke an idle engine */
	XRXE_QP_FETCHED,	/* slots the engine took */
	XRXE_QP_BUSY_POLL_HITS,	/* slots found while busy-polling */
	XRXE_QP_REJECTED,	/* slots refused by validation */
	XRXE_QP_LL_POSTS,	/* low-latency commands received */
	XRXE_QP_LL_ACCEPTED,	/* of them, the ones executed from the buffer */
	XRXE_QP_LL_DROPPED_ORDER,	/* not the next WQE in ring order */
	XRXE_QP_LL_DROPPED_BUSY,	/* the QP's engine was serving it */
	XRXE_QP_LL_DROPPED_FULL,	/* no free entry in the QP's buffer */
	XRXE_QP_LL_DROPPED_STATE,	/* the QP could not send */
	XRXE_QP_LL_DROPPED_FORCED,	/* dropped by the ll_drop_every knob */
	XRXE_QP_LL_REJECTED,	/* malformed: dropped, the doorbell rung */
	XRXE_QP_TURNS,		/* turns the QP had, by engine or doorbell */
	XRXE_QP_PACE_PAUSES,	/* times the rate limit paused the requester */
	XRXE_QP_PACE_WAKEUPS,	/* times its timer resumed it */
	XRXE_QP_PACE_BYTES,	/* IP bytes sent under a rate limit */
	XRXE_QP_LL_DROPPED_PACED,	/* the QP's rate limit paused it */
	XRXE_QP_PACE_LATE_WAKEUPS,	/* resumed after its bucket filled */
	XRXE_QP_PACE_LATE_BYTES,	/* IP bytes it could not send then */
	XRXE_QP_PACE_WAIT_US,	/* from its pauses to its runs after them */
	XRXE_QP_OCU_MAPS,	/* its OCU started work, mapped by this QP */
	XRXE_QP_OCU_REMAPS,	/* of them, the ones onto another engine */
	XRXE_QP_COALESCED_WQES,	/* WQEs sent in an earlier WQE's message */
	XRXE_QP_COALESCED_MSGS,	/* messages that carried more than one WQE */
	XRXE_QP_DOMAIN_FLUSHES,	/* domain flushes that started */
	XRXE_QP_DOMAIN_WAIT_US,	/* how long they waited for their domain */
	XRXE_QP_NUM_COUNTERS,
};

/*
 * Per-QP status page: the kernel writes, the provider only reads.
 * need_wakeup: the engine stopped watching the ring; the next post must
 * ring the doorbell. sq_completed: WQEs completed, free-running; slots
 * before it may be reused. sq_fetched: slots taken by the engine. With
 * XRXE_CAP_OCU: the QP's OCU and its mode (enum xrxe_ocu_mode), and the
 * engine it was last queued on (XRXE_QP_NO_ENGINE before its first turn).
 */
#define XRXE_QP_NO_ENGINE	0xff

struct xrxe_qp_status {
	__u32 need_wakeup;
	__u32 sq_completed;
	__u32 sq_fetched;
	__u16 ocu;
	__u8 engine;
	__u8 ocu_mode;
	__aligned_u64 counters[XRXE_QP_NUM_COUNTERS];
};

/*
 * Low-latency posting. After writing a WQE into its ring slot as usual,
 * the provider may send the same WQE, with its inline data, in the
 * XRXE_METHOD_QP_LL_POST ioctl on the QP object instead of a doorbell. The
 * kernel copies the command into a small per-QP buffer, validates the copy
 * and, if the WQE is the next one in ring order and no engine is serving
 * the QP, executes it at once in the caller's context, skipping its ring
 * slot; otherwise it drops the copy, serves the ring as a doorbell would,
 * and counts the drop. The ring slot stays the authoritative copy either
 * way.
 *
 * The command: the slot's index and its WQE, as written into the slot,
 * followed by dma.num_sge SGEs or, with IB_SEND_INLINE, dma.length bytes
 * of inline data; the attribute's length must be exactly that.
 */
struct xrxe_ll_cmd {
	__u32 index;		/* free-running ring index of the WQE's slot */
	__u32 reserved;
	struct rxe_send_wqe wqe;
};

/*
 * What the kernel did with a command (XRXE_ATTR_LL_POST_RESULT). Once the
 * method has rung the QP's doorbell it succeeds and says here what became
 * of the WQE; it fails only when the doorbell may not have rung, and the
 * provider then rings it.
 */
enum xrxe_ll_result {
	XRXE_LL_ACCEPTED,
	XRXE_LL_DROPPED_ORDER,
	XRXE_LL_DROPPED_BUSY,
	XRXE_LL_DROPPED_FULL,
	XRXE_LL_DROPPED_STATE,
	XRXE_LL_DROPPED_FORCED,
	XRXE_LL_REJECTED,	/* malformed: ignored, the ring served */
	XRXE_LL_DROPPED_PACED,
};

/* Ioctl ids on UVERBS_OBJECT_QP, in the driver's namespace. */
enum xrxe_qp_methods {
	XRXE_METHOD_QP_LL_POST = (1U << UVERBS_ID_NS_SHIFT),
};

enum xrxe_ll_post_attrs {
	XRXE_ATTR_LL_POST_QP_HANDLE = (1U << UVERBS_ID_NS_SHIFT),
	XRXE_ATTR_LL_POST_CMD,		/* in: struct xrxe_ll_cmd and payload */
	XRXE_ATTR_LL_POST_RESULT,	/* out: __u32, enum xrxe_ll_result */
};

/*
 * Ordering control units (OCUs). Every doorbell-less QP belongs to one OCU
 * of a module-wide table, chosen by a hash; an OCU reaches one engine at a
 * time, so that the QPs of an OCU are served in order. The placement
 * rules are the kernel's own (xrxe_policy.h); what userspace chooses is
 * below.
 */
#define XRXE_OCU_MAX_ENGINES	32

/*
 * The table is cut into 2 * XRXE_OCU_TCS equal slices: for each traffic
 * class, one of static OCUs and one of dynamic OCUs. An OCU's mode is the
 * mode of its slice, and its class picks the engines it may use.
 */
#define XRXE_OCU_TCS		8

enum xrxe_ocu_mode {
	XRXE_OCU_STATIC,	/* OCU mod the engines of its class's set */
	XRXE_OCU_DYNAMIC,	/* the least loaded of them, while it drains */
};

/* Which slice a QP asks for (XRXE_MODIFY_QP_OCU). */
enum xrxe_ocu_placement {
	XRXE_OCU_PLACE_MODULE,	/* the module's ocu_mode (a new QP's) */
	XRXE_OCU_PLACE_STATIC,
	XRXE_OCU_PLACE_DYNAMIC,
	/*
	 * Static, on the engine of its send CQ's completion vector: the
	 * device has one vector per engine (num_comp_vectors).
	 */
	XRXE_OCU_PLACE_COMP_VECTOR,
};

#endif /* RDMA_USER_XRXE_H */
