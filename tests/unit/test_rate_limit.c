// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ABI's xrxe_rate_limit_default_burst(): the burst the kernel gives a
 * rate limit set with max_burst_sz 0, and the benchmark judges it by.
 */
#include <linux/types.h>
#include "cunit_run.h"

#include <rdma/rdma_user_xrxe.h>

/* Up to 32 Mbit/s, 4 ms of the rate is less than the fixed floor. */
static void test_floor_at_low_rates(void)
{
	CU_ASSERT_EQUAL(xrxe_rate_limit_default_burst(XRXE_RATE_LIMIT_MIN_KBPS),
			XRXE_RATE_LIMIT_DEFAULT_BURST);
	CU_ASSERT_EQUAL(xrxe_rate_limit_default_burst(10000),
			XRXE_RATE_LIMIT_DEFAULT_BURST);
	CU_ASSERT_EQUAL(xrxe_rate_limit_default_burst(32768),
			XRXE_RATE_LIMIT_DEFAULT_BURST);
}

/* Above it, what the rate sends in XRXE_RATE_LIMIT_DEFAULT_BURST_MS. */
static void test_grows_with_the_rate(void)
{
	CU_ASSERT_EQUAL(XRXE_RATE_LIMIT_DEFAULT_BURST_MS, 4);
	CU_ASSERT_EQUAL(xrxe_rate_limit_default_burst(32770), 16385);
	/* 100 Mbit/s: 12 500 bytes a millisecond. */
	CU_ASSERT_EQUAL(xrxe_rate_limit_default_burst(100000), 50000);
	CU_ASSERT_EQUAL(xrxe_rate_limit_default_burst(1000000), 500000);
	/* Odd rates round down, never past the rate's own bytes. */
	CU_ASSERT_EQUAL(xrxe_rate_limit_default_burst(100001), 50000);
	CU_ASSERT_EQUAL(xrxe_rate_limit_default_burst(100003), 50001);
}

/* The cap holds at the top of the range, with no 32-bit overflow. */
static void test_capped_at_the_max_burst(void)
{
	CU_ASSERT_EQUAL(xrxe_rate_limit_default_burst(XRXE_RATE_LIMIT_MAX_KBPS),
			XRXE_RATE_LIMIT_MAX_BURST);
	CU_ASSERT_EQUAL(xrxe_rate_limit_default_burst(0xffffffffu),
			XRXE_RATE_LIMIT_MAX_BURST);
	CU_ASSERT_EQUAL(xrxe_rate_limit_default_burst(2 * XRXE_RATE_LIMIT_MAX_BURST),
			XRXE_RATE_LIMIT_MAX_BURST);
	CU_ASSERT_EQUAL(xrxe_rate_limit_default_burst(2 * XRXE_RATE_LIMIT_MAX_BURST - 2),
			XRXE_RATE_LIMIT_MAX_BURST - 1);
}

int main(void)
{
	static const struct xrxe_unit_test tests[] = {
		{ "floor at low rates", test_floor_at_low_rates },
		{ "grows with the rate", test_grows_with_the_rate },
		{ "capped at the max burst", test_capped_at_the_max_burst },
		{ NULL, NULL },
	};

	return xrxe_cunit_run("rate_limit", tests);
}
