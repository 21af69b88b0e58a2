/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Doorbell-less send queue: a ring of struct xrxe_sq_slot whose generation
 * word says which lap a slot was written in, and the kernel's read-only
 * status page. The producer index is free-running (never masked): its high
 * bits are the lap, which the generation encodes.
 */
#ifndef XRXE_DBL_H
#define XRXE_DBL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <rdma/rdma_user_xrxe.h>

struct xrxe_dbl_sq {
	uint8_t *ring;			/* NULL: the classic send queue */
	size_t ring_size;
	struct xrxe_qp_status *status;	/* mapped read-only */
	size_t status_size;
	uint32_t log2_slots;
	uint32_t log2_slot_size;
};

static inline uint32_t xrxe_dbl_slots(const struct xrxe_dbl_sq *d)
{
	return 1u << d->log2_slots;
}

static inline struct xrxe_sq_slot *xrxe_dbl_slot(const struct xrxe_dbl_sq *d,
						 uint32_t index)
{
	size_t i = index & (xrxe_dbl_slots(d) - 1);

	return (struct xrxe_sq_slot *)(d->ring + (i << d->log2_slot_size));
}

/*
 * Posted but not completed WQEs fill the queue at slots - 1, the capacity
 * of the kernel's own send queue. A completed count beyond the producer
 * (which only a broken kernel could publish) reads as full.
 */
static inline bool xrxe_dbl_full(uint32_t producer, uint32_t completed,
				 uint32_t log2_slots)
{
	return producer - completed >= (1u << log2_slots) - 1;
}

static inline uint32_t xrxe_dbl_completed(const struct xrxe_dbl_sq *d)
{
	/* Pairs with the kernel's release store after it retired WQEs. */
	return __atomic_load_n(&d->status->sq_completed, __ATOMIC_ACQUIRE);
}

/* Slots the kernel has taken: all before this index are out of the ring. */
static inline uint32_t xrxe_dbl_fetched(const struct xrxe_dbl_sq *d)
{
	/* Only a hint (the kernel checks the order itself): no ordering needed. */
	return __atomic_load_n(&d->status->sq_fetched, __ATOMIC_RELAXED);
}

/* Hand slot index to the engine: its generation is stored last. */
static inline void xrxe_dbl_publish(const struct xrxe_dbl_sq *d, uint32_t index)
{
	/* The WQE must be visible before the generation that validates it:
	 * pairs with the engine's acquire load of gen.
	 */
	__atomic_store_n(&xrxe_dbl_slot(d, index)->gen,
			 xrxe_sq_gen(index, d->log2_slots), __ATOMIC_RELEASE);
}

/* After publishing: whether the engine stopped watching and needs a kick. */
static inline bool xrxe_dbl_need_doorbell(const struct xrxe_dbl_sq *d)
{
	/*
	 * Full barrier: our generation stores must be visible to the engine
	 * before we read need_wakeup, or a sleeping engine could miss them.
	 * Pairs with the engine's smp_mb() between its need_wakeup store and
	 * its second look at the slot: one of the two sides sees the other.
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return __atomic_load_n(&d->status->need_wakeup, __ATOMIC_RELAXED);
}

#endif /* XRXE_DBL_H */
