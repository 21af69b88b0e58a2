// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ABI's write coalescing rule: when an RDMA WRITE may join the message
 * of the WRITEs before it (xrxe_coalesce_joins()).
 */
#include <linux/types.h>
#include "cunit_run.h"

#include <rdma/rdma_user_xrxe.h>
#include "xrxe_policy.h"

#define BASE	0x10000ULL
#define RKEY	0x1234

/* A WRITE of len bytes to addr, rkey RKEY, no barrier, joining BASE..+msg. */
static int joins(__u32 msg_len, __u64 addr, __u32 len, __u32 max)
{
	return xrxe_coalesce_joins(BASE, msg_len, RKEY, 1, addr, len, RKEY, 0,
				   max);
}

/* Exactly contiguous joins; a gap or an overlap of one byte does not. */
static void test_contiguous_only(void)
{
	CU_ASSERT_TRUE(joins(64, BASE + 64, 64, 1024));
	CU_ASSERT_FALSE(joins(64, BASE + 65, 64, 1024));
	CU_ASSERT_FALSE(joins(64, BASE + 63, 64, 1024));
	CU_ASSERT_FALSE(joins(64, BASE, 64, 1024));
	/* Backwards adjacency (the new WRITE just before the message). */
	CU_ASSERT_FALSE(joins(64, BASE - 64, 64, 1024));
}

/* The same rkey only. */
static void test_same_rkey(void)
{
	CU_ASSERT_TRUE(xrxe_coalesce_joins(BASE, 8, RKEY, 1, BASE + 8, 8, RKEY,
					   0, 64));
	CU_ASSERT_FALSE(xrxe_coalesce_joins(BASE, 8, RKEY, 1, BASE + 8, 8,
					    RKEY + 1, 0, 64));
}

/* A fence or a solicited event keeps a WRITE out. */
static void test_barrier(void)
{
	CU_ASSERT_FALSE(xrxe_coalesce_joins(BASE, 8, RKEY, 1, BASE + 8, 8, RKEY,
					    1, 64));
}

/* Zero-length WRITEs never join, nor does anything join one. */
static void test_zero_length(void)
{
	CU_ASSERT_FALSE(joins(64, BASE + 64, 0, 1024));
	CU_ASSERT_FALSE(joins(0, BASE, 64, 1024));
}

/* The merged message fits max exactly, not a byte more. */
static void test_size_cap(void)
{
	CU_ASSERT_TRUE(joins(960, BASE + 960, 64, 1024));
	CU_ASSERT_FALSE(joins(961, BASE + 961, 64, 1024));
	CU_ASSERT_TRUE(joins(1, BASE + 1, 1023, 1024));
	CU_ASSERT_FALSE(joins(1, BASE + 1, 1024, 1024));
	/* No wrap of the sum: a huge WRITE never fits. */
	CU_ASSERT_FALSE(joins(64, BASE + 64, 0xffffffffu, 1024));
	CU_ASSERT_FALSE(joins(64, BASE + 64, 64, 0));
	CU_ASSERT_TRUE(joins(2048, BASE + 2048, 2048,
			     XRXE_COALESCE_MAX_BYTES));
}

/* At most XRXE_COALESCE_MAX_WQES WQEs in one message. */
static void test_wqe_cap(void)
{
	CU_ASSERT_TRUE(xrxe_coalesce_joins(BASE, 63, RKEY,
					   XRXE_COALESCE_MAX_WQES - 1,
					   BASE + 63, 1, RKEY, 0, 4096));
	CU_ASSERT_FALSE(xrxe_coalesce_joins(BASE, 64, RKEY,
					    XRXE_COALESCE_MAX_WQES,
					    BASE + 64, 1, RKEY, 0, 4096));
}

/* Not across the end of the address space. */
static void test_no_address_wrap(void)
{
	__u64 top = ~0ULL - 63;

	CU_ASSERT_FALSE(xrxe_coalesce_joins(top, 64, RKEY, 1, 0, 64, RKEY, 0,
					    1024));
	CU_ASSERT_TRUE(xrxe_coalesce_joins(top - 64, 64, RKEY, 1, top, 64,
					   RKEY, 0, 1024));
}

int main(void)
{
	static const struct xrxe_unit_test tests[] = {
		{ "contiguous only", test_contiguous_only },
		{ "same rkey", test_same_rkey },
		{ "fence or solicited", test_barrier },
		{ "zero length", test_zero_length },
		{ "size cap", test_size_cap },
		{ "WQE cap", test_wqe_cap },
		{ "no address wrap", test_no_address_wrap },
		{ NULL, NULL },
	};

	return xrxe_cunit_run("coalesce", tests);
}
