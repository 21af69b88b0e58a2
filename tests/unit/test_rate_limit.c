// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ABI's xrxe_rate_limit_default_burst(): the burst the kernel gives a
 * rate limit set with max_burst_sz 0, and the benchmark judges it by.
 */
#include <linux/types.h>
#include "cunit_run.h"

#include <rdma/rdma_user_xrxe.h>
#include "xrxe_policy.h"

/* Up to 4096 kbit/s, 32 ms of the rate is no more than the fixed floor. */
static void test_floor_at_low_rates(void)
{
	CU_ASSERT_EQUAL(xrxe_rate_limit_default_burst(XRXE_RATE_LIMIT_MIN_KBPS),
			XRXE_RATE_LIMIT_DEFAULT_BURST);
	CU_ASSERT_EQUAL(xrxe_rate_limit_default_burst(1000),
			XRXE_RATE_LIMIT_DEFAULT_BURST);
	CU_ASSERT_EQUAL(xrxe_rate_limit_default_burst(4096),
			XRXE_RATE_LIMIT_DEFAULT_BURST);
}

/* Above it, what the rate sends in XRXE_RATE_LIMIT_DEFAULT_BURST_MS. */
static void test_grows_with_the_rate(void)
{
	CU_ASSERT_EQUAL(XRXE_RATE_LIMIT_DEFAULT_BURST_MS, 32);
	/* A kbit/s sends 4 bytes in 32 ms. */
	CU_ASSERT_EQUAL(xrxe_rate_limit_default_burst(4097), 16388);
	CU_ASSERT_EQUAL(xrxe_rate_limit_default_burst(10000), 40000);
	/* 100 Mbit/s: 12 500 bytes a millisecond. */
	CU_ASSERT_EQUAL(xrxe_rate_limit_default_burst(100000), 400000);
	CU_ASSERT_EQUAL(xrxe_rate_limit_default_burst(100001), 400004);
	CU_ASSERT_EQUAL(xrxe_rate_limit_default_burst(1000000), 4000000);
}

/* The cap holds at the top of the range, with no 32-bit overflow. */
static void test_capped_at_the_max_burst(void)
{
	/* 4 bytes a kbit/s: the cap is reached at a quarter of its bytes. */
	CU_ASSERT_EQUAL(xrxe_rate_limit_default_burst(XRXE_RATE_LIMIT_MAX_BURST / 4 - 1),
			XRXE_RATE_LIMIT_MAX_BURST - 4);
	CU_ASSERT_EQUAL(xrxe_rate_limit_default_burst(XRXE_RATE_LIMIT_MAX_BURST / 4),
			XRXE_RATE_LIMIT_MAX_BURST);
	CU_ASSERT_EQUAL(xrxe_rate_limit_default_burst(XRXE_RATE_LIMIT_MAX_BURST / 4 + 1),
			XRXE_RATE_LIMIT_MAX_BURST);
	CU_ASSERT_EQUAL(xrxe_rate_limit_default_burst(XRXE_RATE_LIMIT_MAX_KBPS),
			XRXE_RATE_LIMIT_MAX_BURST);
	CU_ASSERT_EQUAL(xrxe_rate_limit_default_burst(0xffffffffu),
			XRXE_RATE_LIMIT_MAX_BURST);
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
