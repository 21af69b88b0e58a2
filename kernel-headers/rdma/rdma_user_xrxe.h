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
 * The burst of a limit whose max_burst_sz is 0: what the rate sends in
 * XRXE_RATE_LIMIT_DEFAULT_BURST_MS, within XRXE_RATE_LIMIT_DEFAULT_BURST
 * and XRXE_RATE_LIMIT_MAX_BURST. Tokens spill whenever the QP cannot run
 * for longer than the bucket takes to fill, late after its timer or held
 * up while it is not paused: the depth must cover the scheduling delays of
 * a loaded host, which reach several milliseconds, not only a timer's.
 */
static inline __u32 xrxe_rate_limit_default_burst(__u32 rate_kbps)
{
	/* A kbit/s is a bit a millisecond. */
	__u64 bytes = (__u64)rate_kbps * XRXE_RATE_LIMIT_DEFAULT_BURST_MS / 8;

	if (bytes < XRXE_RATE_LIMIT_DEFAULT_BURST)
		return XRXE_RATE_LIMIT_DEFAULT_BURST;
	if (bytes > XRXE_RATE_LIMIT_MAX_BURST)
		return XRXE_RATE_LIMIT_MAX_BURST;
	return bytes;
}

/*
 * Driver data of ibv_modify_qp() (any attr_mask, even 0). engine_idle_us:
 * how long the engine keeps polling this QP's empty send queue before it
 * asks for a doorbell, up to XRXE_MAX_ENGINE_IDLE_US; -1 returns to the
 * module's engine_idle_us. Needs a doorbell-less send queue. The rate
 * fields need XRXE_CAP_RATE_LIMIT. A shorter command (of an older
 * provider) ends after engine_idle_us.
 */
struct xrxe_modify_qp_cmd {
	__u32 comp_mask;	/* enum xrxe_modify_qp_mask */
	__s32 engine_idle_us;
	__u32 rate_limit_kbps;
	__u32 max_burst_sz;
	__u16 typical_pkt_sz;
	__u16 reserved;
	__u32 reserved1;
};

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
	XRXE_QP_LL_REJECTED,	/* malformed: refused with EINVAL */
	XRXE_QP_TURNS,		/* turns the QP had, by engine or doorbell */
	XRXE_QP_PACE_PAUSES,	/* times the rate limit paused the requester */
	XRXE_QP_PACE_WAKEUPS,	/* times its timer resumed it */
	XRXE_QP_PACE_BYTES,	/* IP bytes sent under a rate limit */
	XRXE_QP_LL_DROPPED_PACED,	/* the QP's rate limit paused it */
	XRXE_QP_PACE_LATE_WAKEUPS,	/* resumed after its bucket filled */
	XRXE_QP_PACE_LATE_BYTES,	/* IP bytes it could not send then */
	XRXE_QP_PACE_WAIT_US,	/* from its pauses to its runs after them */
	XRXE_QP_NUM_COUNTERS,
};

/*
 * Per-QP status page: the kernel writes, the provider only reads.
 * need_wakeup: the engine stopped watching the ring; the next post must
 * ring the doorbell. sq_completed: WQEs completed, free-running; slots
 * before it may be reused. sq_fetched: slots taken by the engine.
 */
struct xrxe_qp_status {
	__u32 need_wakeup;
	__u32 sq_completed;
	__u32 sq_fetched;
	__u32 reserved;
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

/* What the kernel did with a well-formed command (XRXE_ATTR_LL_POST_RESULT). */
enum xrxe_ll_result {
	XRXE_LL_ACCEPTED,
	XRXE_LL_DROPPED_ORDER,
	XRXE_LL_DROPPED_BUSY,
	XRXE_LL_DROPPED_FULL,
	XRXE_LL_DROPPED_STATE,
	XRXE_LL_DROPPED_FORCED,
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

#endif /* RDMA_USER_XRXE_H */
