/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Rings shared with the kernel (struct rxe_queue_buf): index math and the
 * acquire/release accesses to the producer and consumer words.
 *
 * A ring has mask + 1 slots and holds at most mask elements: one slot stays
 * free so that producer == consumer means empty. Indices are kept masked.
 * The provider caches the geometry when the ring is mapped and never reads
 * log2_elem_size or index_mask back from shared memory, which the kernel may
 * rewrite on resize.
 */
#ifndef XRXE_QUEUE_H
#define XRXE_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <rdma/rdma_user_rxe.h>

static inline uint32_t xrxe_index_next(uint32_t index, uint32_t mask)
{
	return (index + 1) & mask;
}

/* Elements between consumer and producer. */
static inline uint32_t xrxe_ring_count(uint32_t prod, uint32_t cons, uint32_t mask)
{
	return (prod - cons) & mask;
}

static inline bool xrxe_ring_empty(uint32_t prod, uint32_t cons)
{
	return prod == cons;
}

static inline bool xrxe_ring_full(uint32_t prod, uint32_t cons, uint32_t mask)
{
	return xrxe_index_next(prod, mask) == cons;
}

/* Private, cached geometry of one mapped ring. */
struct xrxe_ring {
	struct rxe_queue_buf *buf;
	size_t map_size;
	uint32_t mask;
	uint32_t log2_elem_size;
};

static inline void xrxe_ring_init(struct xrxe_ring *r, void *map, size_t map_size)
{
	r->buf = map;
	r->map_size = map_size;
	r->mask = r->buf->index_mask;
	r->log2_elem_size = r->buf->log2_elem_size;
}

static inline void *xrxe_ring_slot(const struct xrxe_ring *r, uint32_t index)
{
	return r->buf->data + ((size_t)(index & r->mask) << r->log2_elem_size);
}

/*
 * Consumer side only: drop the elements in [cons, prod) for which
 * drop(elem, arg) holds, keeping the others in order. Walks from the newest
 * back to the oldest, moving each kept element towards the producer end by
 * the number dropped so far, so the freed slots end up at the consumer end.
 * Slots in [cons, prod) belong to the consumer; the producer only writes
 * at prod and beyond. Returns the new consumer index.
 */
static inline uint32_t xrxe_ring_compact(struct xrxe_ring *r, uint32_t cons,
					 uint32_t prod,
					 bool (*drop)(const void *elem, void *arg),
					 void *arg)
{
	size_t elem_size = (size_t)1 << r->log2_elem_size;
	uint32_t n = xrxe_ring_count(prod, cons, r->mask), dropped = 0, i;

	for (i = 0; i < n; i++) {
		uint32_t index = (prod - 1 - i) & r->mask;
		void *elem = xrxe_ring_slot(r, index);

		if (drop(elem, arg))
			dropped++;
		else if (dropped)
			memcpy(xrxe_ring_slot(r, index + dropped), elem, elem_size);
	}
	return (cons + dropped) & r->mask;
}

/*
 * Barriers. The producer fills a slot, then publishes the new producer
 * index with a release store: a consumer that loads the index with acquire
 * sees the slot contents. The consumer finishes reading a slot, then
 * publishes the consumer index with release: a producer that loads it with
 * acquire may reuse the slot. The indices the other side writes are masked
 * before use, whatever it wrote.
 */
static inline uint32_t xrxe_load_producer(const struct xrxe_ring *r)
{
	/* Pairs with the kernel's release store after it wrote a CQE/WQE. */
	return __atomic_load_n(&r->buf->producer_index, __ATOMIC_ACQUIRE) & r->mask;
}

static inline uint32_t xrxe_load_consumer(const struct xrxe_ring *r)
{
	/* Pairs with the kernel's release store after it read our WQE. */
	return __atomic_load_n(&r->buf->consumer_index, __ATOMIC_ACQUIRE) & r->mask;
}

static inline void xrxe_store_producer(struct xrxe_ring *r, uint32_t index)
{
	/* The kernel must see the slot contents before the new index. */
	__atomic_store_n(&r->buf->producer_index, index, __ATOMIC_RELEASE);
}

static inline void xrxe_store_consumer(struct xrxe_ring *r, uint32_t index)
{
	/* Our reads of the slot complete before the kernel may overwrite it. */
	__atomic_store_n(&r->buf->consumer_index, index, __ATOMIC_RELEASE);
}

#endif /* XRXE_QUEUE_H */
