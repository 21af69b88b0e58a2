// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Doorbell-less send queue math of providers/xrxe/dbl.h and the ABI's
 * xrxe_sq_gen(): generations across many laps, wrap at every ring size,
 * full and empty detection against a model.
 */
#include <stdlib.h>
#include <string.h>
#include "cunit_run.h"

#include "dbl.h"

#define MAX_LOG2_SLOTS 12

/* A slot holds the current lap's WQE only when its gen matches. */
static void test_generation_changes_every_lap(void)
{
	uint32_t log2, lap, i;

	for (log2 = 0; log2 <= MAX_LOG2_SLOTS; log2++) {
		uint32_t slots = 1u << log2;

		for (lap = 0; lap < 40; lap++) {
			for (i = 0; i < slots; i++) {
				uint32_t index = lap * slots + i;
				uint32_t gen = xrxe_sq_gen(index, log2);

				CU_ASSERT_EQUAL_FATAL(gen, lap + 1);
				/* The same slot one lap earlier or later differs. */
				CU_ASSERT_NOT_EQUAL_FATAL(gen, xrxe_sq_gen(index + slots, log2));
				if (index >= slots)
					CU_ASSERT_NOT_EQUAL_FATAL(gen, xrxe_sq_gen(index - slots, log2));
			}
		}
		/* Zeroed memory never looks like a lap-0 WQE. */
		CU_ASSERT_NOT_EQUAL(xrxe_sq_gen(0, log2), 0);
	}
}

/* The 32-bit index wraps: generations stay distinct from one lap to the next. */
static void test_generation_across_index_wrap(void)
{
	uint32_t log2;

	for (log2 = 1; log2 <= MAX_LOG2_SLOTS; log2++) {
		uint32_t slots = 1u << log2, index = 0u - 3 * slots, k;

		for (k = 0; k < 6 * slots; k++, index++)
			CU_ASSERT_NOT_EQUAL_FATAL(xrxe_sq_gen(index, log2),
						  xrxe_sq_gen(index + slots, log2));
	}
}

/* Posts and completions against a plain counter, across the index wrap. */
static void check_full_against_model(uint32_t log2, uint32_t start)
{
	uint32_t slots = 1u << log2, prod = start, done = start, count = 0, i;

	srand(log2 * 7919 + start);
	for (i = 0; i < 6 * slots + 50; i++) {
		bool full = xrxe_dbl_full(prod, done, log2);

		CU_ASSERT_EQUAL_FATAL(full, count == slots - 1);
		if (!full && (count == 0 || rand() % 3)) {
			prod++;
			count++;
		} else if (count) {
			done++;
			count--;
		}
	}
}

static void test_full_at_every_size_and_across_wrap(void)
{
	uint32_t log2;

	for (log2 = 1; log2 <= MAX_LOG2_SLOTS; log2++) {
		check_full_against_model(log2, 0);
		check_full_against_model(log2, 0u - (1u << log2) - 5);
	}
}

/* A completed count ahead of the producer (a broken kernel) reads as full. */
static void test_completed_beyond_producer_is_full(void)
{
	CU_ASSERT_TRUE(xrxe_dbl_full(10, 11, 4));
	CU_ASSERT_TRUE(xrxe_dbl_full(0, 5, 4));
	/* Across the 32-bit wrap one outstanding WQE is not full. */
	CU_ASSERT_FALSE(xrxe_dbl_full(0, 0xffffffffu, 4));
	CU_ASSERT_FALSE(xrxe_dbl_full(10, 10, 4));
}

/* Slots are addressed by index modulo the ring; publishing stores gen. */
static void test_slot_addressing_and_publish(void)
{
	const uint32_t log2_slots = 3, log2_slot_size = 8;
	struct xrxe_dbl_sq d = {
		.log2_slots = log2_slots,
		.log2_slot_size = log2_slot_size,
		.ring_size = (size_t)1 << (log2_slots + log2_slot_size),
	};
	uint32_t i;

	d.ring = calloc(1, d.ring_size);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d.ring);
	for (i = 0; i < 40; i++) {
		struct xrxe_sq_slot *slot = xrxe_dbl_slot(&d, i);

		CU_ASSERT_PTR_EQUAL(slot, d.ring + ((size_t)(i % 8) << log2_slot_size));
		xrxe_dbl_publish(&d, i);
		CU_ASSERT_EQUAL(slot->gen, i / 8 + 1);
	}
	free(d.ring);
}

int main(void)
{
	static const struct xrxe_unit_test tests[] = {
		{ "generation changes every lap", test_generation_changes_every_lap },
		{ "generation across the index wrap", test_generation_across_index_wrap },
		{ "full at every size, across the wrap", test_full_at_every_size_and_across_wrap },
		{ "completed beyond producer reads full", test_completed_beyond_producer_is_full },
		{ "slot addressing and publish", test_slot_addressing_and_publish },
		{ NULL, NULL },
	};

	return xrxe_cunit_run("dbl", tests);
}
