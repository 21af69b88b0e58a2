// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ABI's OCU placement rules: the hashes that pick a QP's OCU, the
 * slices and the index of a hash in them, the engine of an OCU under
 * static mapping, a WQE's load, the engine dynamic mapping picks, and
 * the OCU of an ordering domain or of a completion vector.
 */
#include <linux/types.h>
#include <string.h>
#include "cunit_run.h"

#include <rdma/rdma_user_xrxe.h>
#include "xrxe_policy.h"

/* Cassini's static OCU set: engine = first of the set + ocu mod its size. */
static void test_static_engine_of_a_contiguous_set(void)
{
	static const struct { __u32 first, count; } sets[] = {
		{ 0, 1 }, { 0, 2 }, { 0, 3 }, { 0, 4 }, { 0, 8 },
		{ 1, 1 }, { 2, 2 }, { 4, 4 }, { 5, 3 },
	};
	unsigned int s;
	__u32 ocu;

	for (s = 0; s < sizeof(sets) / sizeof(sets[0]); s++) {
		__u32 mask = ((1U << sets[s].count) - 1) << sets[s].first;

		for (ocu = 0; ocu < 1000; ocu++)
			CU_ASSERT_EQUAL_FATAL(xrxe_ocu_static_engine(ocu, mask, 8),
					      sets[s].first + ocu % sets[s].count);
	}
}

/* A set with holes: the (ocu mod n)-th of its engines, in order. */
static void test_static_engine_of_a_sparse_set(void)
{
	static const __u32 in_0x52[] = { 1, 4, 6 };
	__u32 ocu;

	for (ocu = 0; ocu < 300; ocu++) {
		CU_ASSERT_EQUAL_FATAL(xrxe_ocu_static_engine(ocu, 0x52, 8),
				      in_0x52[ocu % 3]);
		CU_ASSERT_EQUAL_FATAL(xrxe_ocu_static_engine(ocu, 0x5, 4),
				      ocu % 2 ? 2 : 0);
	}
}

/* Engines past the last are not in any set; an empty set means all. */
static void test_static_engine_bounds(void)
{
	__u32 n, ocu;

	for (n = 1; n <= XRXE_OCU_MAX_ENGINES; n++)
		for (ocu = 0; ocu < 100; ocu++) {
			CU_ASSERT_EQUAL_FATAL(xrxe_ocu_static_engine(ocu, 0, n),
					      ocu % n);
			CU_ASSERT_EQUAL_FATAL(xrxe_ocu_static_engine(ocu, ~0U, n),
					      ocu % n);
			/* The first 8: all of them up to 8 engines. */
			CU_ASSERT_EQUAL_FATAL(xrxe_ocu_static_engine(ocu, 0xff, n),
					      ocu % (n < 8 ? n : 8));
			/* Only engine 7 asked for, and it does not exist. */
			if (n < 8)
				CU_ASSERT_EQUAL_FATAL(
					xrxe_ocu_static_engine(ocu, 0x80, n),
					ocu % n);
		}
	CU_ASSERT_EQUAL(xrxe_ocu_static_engine(5, 0xff, 0), 0);
	CU_ASSERT_EQUAL(xrxe_ocu_static_engine(0xffffffffU, 0x80, 8), 7);
}

/* An index stays in its range and grows with the hash. */
static void test_index_in_range(void)
{
	static const __u32 hashes[] = { 0, 1, 0x7fffffffU, 0x80000000U,
					0xfffffffeU, 0xffffffffU };
	static const __u32 sizes[] = { 1, 3, 16, 256, 65536 };
	unsigned int h, z;

	for (z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
		__u32 prev = 0;

		for (h = 0; h < sizeof(hashes) / sizeof(hashes[0]); h++) {
			__u32 i = xrxe_ocu_index(hashes[h], 32, sizes[z]);

			CU_ASSERT_FATAL(i >= 32 && i < 32 + sizes[z]);
			CU_ASSERT_FATAL(i >= prev);
			prev = i;
		}
		CU_ASSERT_EQUAL(xrxe_ocu_index(0, 32, sizes[z]), 32);
		CU_ASSERT_EQUAL(xrxe_ocu_index(0xffffffffU, 32, sizes[z]),
				32 + sizes[z] - 1);
	}
}

/*
 * The QPs of a device, numbered one after another, spread over the OCUs
 * and, through them, over the engines: no OCU gets more than three times
 * its share, no engine more than 10% over its own.
 */
static void test_qp_hash_spreads(void)
{
	enum { OCUS = 256, QPS = 4096 };
	static unsigned int per_ocu[OCUS];
	unsigned int per_engine[4] = { 0 }, max = 0, i, dev;

	for (dev = 0; dev < 3; dev++) {
		memset(per_ocu, 0, sizeof(per_ocu));
		memset(per_engine, 0, sizeof(per_engine));
		max = 0;
		for (i = 0; i < QPS; i++) {
			__u32 ocu = xrxe_ocu_index(xrxe_ocu_qp_hash(dev, 17 + i),
						   0, OCUS);

			per_ocu[ocu]++;
			per_engine[xrxe_ocu_static_engine(ocu, 0, 4)]++;
		}
		for (i = 0; i < OCUS; i++)
			if (per_ocu[i] > max)
				max = per_ocu[i];
		CU_ASSERT(max <= 3 * QPS / OCUS);
		for (i = 0; i < 4; i++)
			CU_ASSERT(per_engine[i] * 10 <= QPS / 4 * 11);
	}
	/* The same QP always hashes alike; another device's does not. */
	CU_ASSERT_EQUAL(xrxe_ocu_qp_hash(1, 42), xrxe_ocu_qp_hash(1, 42));
	CU_ASSERT_NOT_EQUAL(xrxe_ocu_qp_hash(1, 42), xrxe_ocu_qp_hash(2, 42));
}

/*
 * A few consecutive numbers (the QPs a program creates in a row, the
 * domains it numbers 1, 2, ...) split over 2 engines by static mapping as
 * a fair coin would: 8 of them land 7/1 or worse for about 7% of
 * contexts (18 in 256), not the third that one multiplicative round gave.
 */
static void test_consecutive_values_spread(void)
{
	unsigned int lopsided_qps = 0, lopsided_domains = 0, ctx, v;

	for (ctx = 0; ctx < 256; ctx++) {
		unsigned int qps = 0, domains = 0;

		for (v = 1; v <= 8; v++) {
			qps += xrxe_ocu_index(xrxe_ocu_qp_hash(ctx / 64, ctx * 8 + v),
					      0, 16) % 2;
			domains += xrxe_ocu_index(xrxe_ocu_domain_hash(ctx / 64, ctx % 64, v),
						  0, 16) % 2;
		}
		lopsided_qps += qps <= 1 || qps >= 7;
		lopsided_domains += domains <= 1 || domains >= 7;
	}
	CU_ASSERT(lopsided_qps <= 36);
	CU_ASSERT(lopsided_domains <= 36);
}

/* Every class has a static and a dynamic slice, apart and in the table. */
static void test_slices(void)
{
	static const __u32 tables[] = { 16, 17, 256, 1000, 65536 };
	unsigned int t;
	__u32 tc, mode;

	for (t = 0; t < sizeof(tables) / sizeof(tables[0]); t++) {
		__u32 n = tables[t], size = xrxe_ocu_slice_size(n);
		__u32 seen[2 * XRXE_OCU_TCS];

		CU_ASSERT_FATAL(size >= 1);
		CU_ASSERT(size * 2 * XRXE_OCU_TCS <= n);
		for (tc = 0; tc < XRXE_OCU_TCS; tc++)
			for (mode = 0; mode < 2; mode++) {
				__u32 first = xrxe_ocu_slice_first(n, tc, mode);
				__u32 i;

				CU_ASSERT_FATAL(first + size <= n);
				CU_ASSERT_EQUAL(first % size, 0);
				seen[tc * 2 + mode] = first / size;
				for (i = 0; i < tc * 2 + mode; i++)
					CU_ASSERT_NOT_EQUAL_FATAL(seen[i], first / size);
			}
		/* A mode that is not static is dynamic; classes wrap. */
		CU_ASSERT_EQUAL(xrxe_ocu_slice_first(n, 3, 7),
				xrxe_ocu_slice_first(n, 3, XRXE_OCU_DYNAMIC));
		CU_ASSERT_EQUAL(xrxe_ocu_slice_first(n, 3 + XRXE_OCU_TCS, 1),
				xrxe_ocu_slice_first(n, 3, 1));
	}
}

/* A WQE's load: the fixed part plus its shifted bytes, saturating. */
static void test_wqe_cost(void)
{
	CU_ASSERT_EQUAL(xrxe_ocu_wqe_cost(0, 64, 6), 64);
	CU_ASSERT_EQUAL(xrxe_ocu_wqe_cost(63, 64, 6), 64);
	CU_ASSERT_EQUAL(xrxe_ocu_wqe_cost(64, 64, 6), 65);
	/* The fixed part counts as 4 KiB of payload. */
	CU_ASSERT_EQUAL(xrxe_ocu_wqe_cost(4096, 64, 6), 128);
	CU_ASSERT_EQUAL(xrxe_ocu_wqe_cost(65536, 64, 6), 64 + 1024);
	CU_ASSERT_EQUAL(xrxe_ocu_wqe_cost(100, 0, 0), 100);
	CU_ASSERT_EQUAL(xrxe_ocu_wqe_cost(0xffffffffU, 0, 31), 1);
	CU_ASSERT_EQUAL(xrxe_ocu_wqe_cost(0xffffffffU, 5, 32), 5);
	CU_ASSERT_EQUAL(xrxe_ocu_wqe_cost(0xffffffffU, 7, 200), 7);
	CU_ASSERT_EQUAL(xrxe_ocu_wqe_cost(0xffffffffU, 0xffffffffU, 0),
			0xffffffffU);
	CU_ASSERT_EQUAL(xrxe_ocu_wqe_cost(1, 0xffffffffU, 0), 0xffffffffU);
}

/*
 * An engine's recent work: halved per half-life, along a straight line
 * within one, never growing, exact for values too large to multiply.
 */
static void test_decay(void)
{
	__u64 big = 0xffffffffffffffffULL, prev;
	__u32 f;

	CU_ASSERT_EQUAL(xrxe_ocu_decay(1000, 0, 0), 1000);
	CU_ASSERT_EQUAL(xrxe_ocu_decay(1000, 1, 0), 500);
	CU_ASSERT_EQUAL(xrxe_ocu_decay(1000, 2, 0), 250);
	/* Half a half-life: 3/4 on the line (the exponential gives 0.707). */
	CU_ASSERT_EQUAL(xrxe_ocu_decay(1024, 0, 512), 768);
	/* A whole one by the fraction is a whole one by the count. */
	CU_ASSERT_EQUAL(xrxe_ocu_decay(4096, 0, 1024), xrxe_ocu_decay(4096, 1, 0));
	CU_ASSERT_EQUAL(xrxe_ocu_decay(4096, 0, 5000), 2048);
	CU_ASSERT_EQUAL(xrxe_ocu_decay(1000, 63, 0), 0);
	CU_ASSERT_EQUAL(xrxe_ocu_decay(1000, 64, 0), 0);
	CU_ASSERT_EQUAL(xrxe_ocu_decay(big, 200, 0), 0);
	CU_ASSERT_EQUAL(xrxe_ocu_decay(big, 1, 0), big >> 1);
	CU_ASSERT_EQUAL(xrxe_ocu_decay(big, 0, 1024), (big >> 1) + 1);
	CU_ASSERT_EQUAL(xrxe_ocu_decay(0, 0, 700), 0);
	prev = big;
	for (f = 0; f <= 1024; f += 16) {
		CU_ASSERT(xrxe_ocu_decay(big, 0, f) <= prev);
		prev = xrxe_ocu_decay(big, 0, f);
	}
	CU_ASSERT(prev >= big / 2 - 1 && prev <= big / 2 + 1);
}

/* One call of xrxe_ocu_pick() and the engine it must give. */
struct pick_case {
	__u32 set, num_engines, prev, rotate, want;
};

static void check_picks(const __s64 *load, const __u32 *busy,
			const struct pick_case *c, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		CU_ASSERT_EQUAL(xrxe_ocu_pick(load, busy, c[i].set, c[i].num_engines,
					      c[i].prev, c[i].rotate), c[i].want);
}

#define CHECK_PICKS(load, busy, cases) \
	check_picks(load, busy, cases, sizeof(cases) / sizeof(cases[0]))

/* Least load first, then fewest busy OCUs, then the previous engine. */
static void test_pick_order(void)
{
	__s64 load[8] = { 500, 100, 300, 100 };
	__u32 busy[8] = { 0, 3, 0, 2 };
	static const struct pick_case fewest_busy[] = { { 0, 4, 0, 0, 3 } };
	/*
	 * Engines 1 and 3 equal: the previous engine stays, else the first
	 * from rotate on; a previous engine that is no better is left.
	 */
	static const struct pick_case equal[] = {
		{ 0, 4, 1, 0, 1 }, { 0, 4, 3, 0, 3 }, { 0, 4, 0, 0, 1 },
		{ 0, 4, 0, 2, 3 }, { 0, 4, 0, 6, 3 }, { 0, 4, 2, 0, 1 },
	};
	/* A load below 0 (a retire ahead of its charge) counts as 0. */
	static const struct pick_case below_zero[] = { { 0, 4, 0, 0, 2 } };
	static const struct pick_case zero_and_below[] = {
		{ 0, 4, 2, 0, 2 }, { 0, 4, 1, 0, 0 },
	};

	CHECK_PICKS(load, busy, fewest_busy);
	busy[1] = 2;
	CHECK_PICKS(load, busy, equal);
	load[2] = -40;
	CHECK_PICKS(load, busy, below_zero);
	load[0] = 0;
	busy[0] = 0;
	CHECK_PICKS(load, busy, zero_and_below);
}

/* Only engines of the set, which ignores engines past the last. */
static void test_pick_in_set(void)
{
	__s64 load[8] = { 0, 9, 9, 9, 9, 9, 9, 1 };
	__u32 busy[8] = { 0 };
	static const struct pick_case in_set[] = {
		{ 0x06, 8, 0, 0, 1 }, { 0x86, 8, 0, 0, 7 }, { 0x80, 8, 0, 0, 7 },
		/* Engine 7 does not exist with 4: the set is empty, so all. */
		{ 0x80, 4, 3, 0, 0 },
		{ 0, 1, 0, 5, 0 }, { 0, 0, 0, 0, 0 },
	};
	__u32 r;

	CHECK_PICKS(load, busy, in_set);
	/* Equal engines: every rotation gives one of the set. */
	for (r = 0; r < 16; r++) {
		__s64 flat[8] = { 0 };
		__u32 e = xrxe_ocu_pick(flat, busy, 0x5a, 8, 9, r);

		CU_ASSERT_FATAL(0x5a & (1U << e));
	}
	CU_ASSERT_EQUAL(xrxe_ocu_set_engines(0, 4), 0xf);
	CU_ASSERT_EQUAL(xrxe_ocu_set_engines(0xf0, 4), 0xf);
	CU_ASSERT_EQUAL(xrxe_ocu_set_engines(0x12, 4), 0x2);
	CU_ASSERT_EQUAL(xrxe_ocu_set_engines(0x12, 8), 0x12);
}

/* A flow's hash: its whole GID and the QP number count. */
static void test_flow_hash(void)
{
	__u8 gid[16] = { 0xfe, 0x80 };
	__u32 h = xrxe_ocu_flow_hash(gid, 17), i;

	CU_ASSERT_EQUAL(h, xrxe_ocu_flow_hash(gid, 17));
	CU_ASSERT_NOT_EQUAL(h, xrxe_ocu_flow_hash(gid, 18));
	for (i = 0; i < 16; i++) {
		gid[i] ^= 1;
		CU_ASSERT_NOT_EQUAL(h, xrxe_ocu_flow_hash(gid, 17));
		gid[i] ^= 1;
	}
	CU_ASSERT_EQUAL(xrxe_ocu_tc(0), 0);
	CU_ASSERT_EQUAL(xrxe_ocu_tc(0x1f), 0);
	CU_ASSERT_EQUAL(xrxe_ocu_tc(0x20), 1);
	CU_ASSERT_EQUAL(xrxe_ocu_tc(0xb8), 5);	/* EF */
	CU_ASSERT_EQUAL(xrxe_ocu_tc(0xff), 7);
}

/*
 * A steered OCU lies in its slice and, under static mapping, on the
 * (vector mod n)-th engine of the set; every such OCU is reachable; a
 * slice smaller than the set falls back to an offset within it.
 */
static void test_steered_index(void)
{
	static const __u32 sets[] = { 0x3, 0x7, 0xf, 0x52, 0xff };
	__u32 s, size, vector, h, ocu, n, first = 32;

	for (s = 0; s < sizeof(sets) / sizeof(sets[0]); s++) {
		n = xrxe_ocu_set_count(sets[s]);
		for (size = n; size <= 64; size += 7)
			for (vector = 0; vector < 2 * n; vector++) {
				__u8 seen[64] = { 0 };
				__u32 reached = 0, want = 0;

				for (h = 0; h < 4096; h++) {
					ocu = xrxe_ocu_steered_index(h * 0x9e3779b1U, first,
								     size, vector, n);
					CU_ASSERT_FATAL(ocu >= first && ocu < first + size);
					CU_ASSERT_EQUAL_FATAL(
						xrxe_ocu_static_engine(ocu - first, sets[s], 8),
						xrxe_ocu_static_engine(vector % n, sets[s], 8));
					if (!seen[ocu - first]) {
						seen[ocu - first] = 1;
						reached++;
					}
				}
				for (ocu = 0; ocu < size; ocu++)
					want += ocu % n == vector % n;
				CU_ASSERT_EQUAL_FATAL(reached, want);
			}
	}
	/* Slices of 1 and 2 OCUs for 4 engines: the offset wraps. */
	CU_ASSERT_EQUAL(xrxe_ocu_steered_index(123, 16, 1, 3, 4), 16);
	CU_ASSERT_EQUAL(xrxe_ocu_steered_index(123, 16, 2, 3, 4), 17);
	CU_ASSERT_EQUAL(xrxe_ocu_steered_index(123, 16, 2, 2, 4), 16);
	CU_ASSERT_EQUAL(xrxe_ocu_steered_index(123, 16, 0, 2, 4), 16);
	CU_ASSERT_EQUAL(xrxe_ocu_steered_index(123, 16, 8, 2, 0), 16);
}

/* A domain's hash: its number, its context and its device all count. */
static void test_domain_hash(void)
{
	__u32 h = xrxe_ocu_domain_hash(1, 2, 3);

	CU_ASSERT_EQUAL(h, xrxe_ocu_domain_hash(1, 2, 3));
	CU_ASSERT_NOT_EQUAL(h, xrxe_ocu_domain_hash(1, 2, 4));
	CU_ASSERT_NOT_EQUAL(h, xrxe_ocu_domain_hash(1, 3, 3));
	CU_ASSERT_NOT_EQUAL(h, xrxe_ocu_domain_hash(2, 2, 3));
	/* Not the hash of a QP with the same numbers. */
	CU_ASSERT_NOT_EQUAL(xrxe_ocu_domain_hash(1, 0, 3), xrxe_ocu_qp_hash(1, 3));
	CU_ASSERT_EQUAL(xrxe_ocu_set_count(0), 0);
	CU_ASSERT_EQUAL(xrxe_ocu_set_count(0x52), 3);
	CU_ASSERT_EQUAL(xrxe_ocu_set_count(0xffffffffU), 32);
}

int main(void)
{
	static const struct xrxe_unit_test tests[] = {
		{ "static engine of a contiguous set",
		  test_static_engine_of_a_contiguous_set },
		{ "static engine of a sparse set",
		  test_static_engine_of_a_sparse_set },
		{ "static engine bounds", test_static_engine_bounds },
		{ "index in range", test_index_in_range },
		{ "qp hash spreads", test_qp_hash_spreads },
		{ "consecutive values spread", test_consecutive_values_spread },
		{ "slices", test_slices },
		{ "wqe cost", test_wqe_cost },
		{ "decay", test_decay },
		{ "pick order", test_pick_order },
		{ "pick in set", test_pick_in_set },
		{ "flow hash", test_flow_hash },
		{ "steered index", test_steered_index },
		{ "domain hash", test_domain_hash },
		{ NULL, NULL },
	};

	return xrxe_cunit_run("ocu", tests);
}
