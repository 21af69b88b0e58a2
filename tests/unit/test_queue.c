// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Ring index math of providers/xrxe/queue.h, at every ring size. */
#include <stdlib.h>
#include <string.h>
#include "cunit_run.h"

#include "queue.h"

#define MAX_LOG2_SLOTS 16

/* A model of the ring: a plain counter of elements, never wrapped. */
static void check_ring_against_model(uint32_t mask)
{
	uint32_t prod = 0, cons = 0, count = 0;
	unsigned int laps = 3, steps = laps * (mask + 1) * 2, i;

	srand(mask);
	for (i = 0; i < steps; i++) {
		bool push = count == 0 || (count < mask && rand() % 3);

		if (push) {
			CU_ASSERT_FALSE_FATAL(xrxe_ring_full(prod, cons, mask));
			prod = xrxe_index_next(prod, mask);
			count++;
		} else {
			CU_ASSERT_FALSE_FATAL(xrxe_ring_empty(prod, cons));
			cons = xrxe_index_next(cons, mask);
			count--;
		}
		CU_ASSERT_EQUAL_FATAL(xrxe_ring_count(prod, cons, mask), count);
		CU_ASSERT_EQUAL_FATAL(xrxe_ring_empty(prod, cons), count == 0);
		CU_ASSERT_EQUAL_FATAL(xrxe_ring_full(prod, cons, mask), count == mask);
		CU_ASSERT_TRUE_FATAL(prod <= mask && cons <= mask);
	}
}

static void test_every_size(void)
{
	unsigned int log2;

	for (log2 = 1; log2 <= MAX_LOG2_SLOTS; log2++)
		check_ring_against_model((1u << log2) - 1);
}

static void test_fill_and_drain_across_wrap(void)
{
	uint32_t mask = 7, prod, cons, n, start;

	for (start = 0; start <= mask; start++) {
		prod = cons = start;
		for (n = 0; n < mask; n++)
			prod = xrxe_index_next(prod, mask);
		CU_ASSERT_TRUE(xrxe_ring_full(prod, cons, mask));
		CU_ASSERT_EQUAL(xrxe_ring_count(prod, cons, mask), mask);
		CU_ASSERT_EQUAL(prod, (start + mask) & mask);
		for (n = 0; n < mask; n++)
			cons = xrxe_index_next(cons, mask);
		CU_ASSERT_TRUE(xrxe_ring_empty(prod, cons));
	}
}

/* Slots are addressed by the cached geometry, and indices beyond the mask
 * (as a hostile or stale shared word could hold) stay inside the ring.
 */
static void test_slot_addressing_and_masking(void)
{
	const uint32_t log2_elem = 6, mask = 15;
	size_t size = sizeof(struct rxe_queue_buf) + ((size_t)(mask + 1) << log2_elem);
	struct rxe_queue_buf *buf = calloc(1, size);
	struct xrxe_ring r;
	uint8_t *data;

	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	buf->index_mask = mask;
	buf->log2_elem_size = log2_elem;
	xrxe_ring_init(&r, buf, size);
	data = buf->data;

	/* Later writes to the shared geometry do not change the cached one. */
	buf->index_mask = 0xffffffff;
	buf->log2_elem_size = 20;
	CU_ASSERT_PTR_EQUAL(xrxe_ring_slot(&r, 0), data);
	CU_ASSERT_PTR_EQUAL(xrxe_ring_slot(&r, 3), data + 3 * 64);
	CU_ASSERT_PTR_EQUAL(xrxe_ring_slot(&r, mask), data + mask * 64);
	CU_ASSERT_PTR_EQUAL(xrxe_ring_slot(&r, mask + 1), data);
	CU_ASSERT_PTR_EQUAL(xrxe_ring_slot(&r, 0xfffffff3), data + 3 * 64);

	buf->producer_index = 0xdead0005;
	buf->consumer_index = 0xbeef0002;
	CU_ASSERT_EQUAL(xrxe_load_producer(&r), 5);
	CU_ASSERT_EQUAL(xrxe_load_consumer(&r), 2);
	xrxe_store_producer(&r, 9);
	xrxe_store_consumer(&r, 4);
	CU_ASSERT_EQUAL(buf->producer_index, 9);
	CU_ASSERT_EQUAL(buf->consumer_index, 4);
	free(buf);
}

static bool drop_odd(const void *elem, void *arg)
{
	(void)arg;
	return *(const uint32_t *)elem & 1;
}

static bool drop_none(const void *elem, void *arg)
{
	(void)elem;
	(void)arg;
	return false;
}

/*
 * Compaction keeps the survivors in order, ending at the same producer
 * index, from every starting position, so across the wrap.
 */
static void test_compact_keeps_order_across_wrap(void)
{
	const uint32_t log2_elem = 3, mask = 7;
	size_t size = sizeof(struct rxe_queue_buf) + ((size_t)(mask + 1) << log2_elem);
	struct rxe_queue_buf *buf = calloc(1, size);
	uint32_t start, n, i, cons, prod, kept;
	struct xrxe_ring r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	buf->index_mask = mask;
	buf->log2_elem_size = log2_elem;
	xrxe_ring_init(&r, buf, size);
	for (start = 0; start <= mask; start++) {
		for (n = 0; n <= mask; n++) {
			prod = start;
			for (i = 0; i < n; i++) {
				*(uint32_t *)xrxe_ring_slot(&r, prod) = 100 + i;
				prod = xrxe_index_next(prod, mask);
			}
			CU_ASSERT_EQUAL(xrxe_ring_compact(&r, start, prod, drop_none, NULL), start);
			cons = xrxe_ring_compact(&r, start, prod, drop_odd, NULL);
			kept = (n + 1) / 2;
			CU_ASSERT_EQUAL_FATAL(xrxe_ring_count(prod, cons, mask), kept);
			for (i = 0; i < kept; i++) {
				CU_ASSERT_EQUAL(*(uint32_t *)xrxe_ring_slot(&r, cons), 100 + 2 * i);
				cons = xrxe_index_next(cons, mask);
			}
			CU_ASSERT_EQUAL(cons, prod);
		}
	}
	free(buf);
}

int main(void)
{
	static const struct xrxe_unit_test tests[] = {
		{ "every ring size against a model", test_every_size },
		{ "fill and drain across the wrap", test_fill_and_drain_across_wrap },
		{ "slot addressing and index masking", test_slot_addressing_and_masking },
		{ "compaction keeps order across the wrap", test_compact_keeps_order_across_wrap },
		{ NULL, NULL },
	};

	return xrxe_cunit_run("queue", tests);
}
