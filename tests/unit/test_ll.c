// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Low-latency path choice of providers/xrxe/ll.h: which WQEs qualify, the
 * command's payload size, the command and its ioctl request, the choice in
 * each mode and the back-off after drops.
 */
#include <string.h>
#include "cunit_run.h"

#include "ll.h"

static struct rxe_send_wqe wqe_of(uint32_t opcode, uint32_t flags,
				  uint32_t num_sge, uint32_t length)
{
	struct rxe_send_wqe w;

	memset(&w, 0, sizeof(w));
	w.wr.opcode = opcode;
	w.wr.send_flags = flags;
	w.dma.num_sge = num_sge;
	w.dma.length = length;
	return w;
}

static void test_qualifies(void)
{
	static const uint32_t ok_ops[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_SEND_WITH_INV,
		IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
	};
	static const uint32_t no_ops[] = {
		IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD,
		IBV_WR_LOCAL_INV, IBV_WR_BIND_MW, IBV_WR_ATOMIC_WRITE, 0xee,
	};
	struct rxe_send_wqe w;
	size_t i;

	for (i = 0; i < sizeof(ok_ops) / sizeof(ok_ops[0]); i++) {
		w = wqe_of(ok_ops[i], IBV_SEND_INLINE, 0, 256);
		CU_ASSERT_TRUE(xrxe_ll_qualifies(&w));
		w = wqe_of(ok_ops[i], 0, 1, XRXE_LL_MAX_SGE_BYTES);
		CU_ASSERT_TRUE(xrxe_ll_qualifies(&w));
		w = wqe_of(ok_ops[i], 0, 0, 0);
		CU_ASSERT_TRUE(xrxe_ll_qualifies(&w));
		/* Too large, or more than one SGE: the ring alone. */
		w = wqe_of(ok_ops[i], 0, 1, XRXE_LL_MAX_SGE_BYTES + 1);
		CU_ASSERT_FALSE(xrxe_ll_qualifies(&w));
		w = wqe_of(ok_ops[i], 0, 2, 16);
		CU_ASSERT_FALSE(xrxe_ll_qualifies(&w));
	}
	for (i = 0; i < sizeof(no_ops) / sizeof(no_ops[0]); i++) {
		w = wqe_of(no_ops[i], 0, 1, 8);
		CU_ASSERT_FALSE(xrxe_ll_qualifies(&w));
	}
}

static void test_payload(void)
{
	struct rxe_send_wqe w = wqe_of(IBV_WR_SEND, IBV_SEND_INLINE, 3, 200);

	CU_ASSERT_EQUAL(xrxe_ll_payload(&w), 200);
	w = wqe_of(IBV_WR_SEND, 0, 1, 200);
	CU_ASSERT_EQUAL(xrxe_ll_payload(&w), sizeof(struct rxe_sge));
	w = wqe_of(IBV_WR_RDMA_WRITE, 0, 0, 0);
	CU_ASSERT_EQUAL(xrxe_ll_payload(&w), 0);
}

/* A command copies the WQE and its payload after index and reserved. */
static void test_cmd_fill(void)
{
	union {
		struct rxe_send_wqe w;
		uint8_t bytes[sizeof(struct rxe_send_wqe) + 64];
	} wqe;
	union {
		struct xrxe_ll_cmd c;
		uint8_t bytes[sizeof(struct xrxe_ll_cmd) + 64];
	} cmd;
	size_t len;

	memset(&wqe, 0, sizeof(wqe));
	memset(&cmd, 0xa5, sizeof(cmd));
	wqe.w = wqe_of(IBV_WR_SEND, IBV_SEND_INLINE, 0, 24);
	wqe.w.wr.wr_id = 77;
	memset(wqe.w.dma.inline_data, 0x3c, 24);
	len = xrxe_ll_cmd_fill(&cmd.c, 1234, &wqe.w);
	CU_ASSERT_EQUAL(len, sizeof(struct xrxe_ll_cmd) + 24);
	CU_ASSERT_EQUAL(cmd.c.index, 1234);
	CU_ASSERT_EQUAL(cmd.c.reserved, 0);
	CU_ASSERT_EQUAL(memcmp(&cmd.c.wqe, &wqe.w, sizeof(wqe.w) + 24), 0);
	/* Nothing past the command is written. */
	CU_ASSERT_EQUAL(cmd.bytes[len], 0xa5);
}

/* The ioctl request: the QP object's method with its three attributes. */
static void test_request(void)
{
	struct xrxe_ll_req req;
	uint8_t cmd[40] = { 0 };
	uint32_t result;

	memset(&req, 0xff, sizeof(req));
	xrxe_ll_req_init(&req, 42, cmd, sizeof(cmd), &result);
	CU_ASSERT_EQUAL(req.hdr.length, sizeof(req));
	CU_ASSERT_EQUAL(req.hdr.object_id, UVERBS_OBJECT_QP);
	CU_ASSERT_EQUAL(req.hdr.method_id, XRXE_METHOD_QP_LL_POST);
	CU_ASSERT_EQUAL(req.hdr.num_attrs, 3);
	CU_ASSERT_EQUAL(req.hdr.driver_id, XRXE_DRIVER_ID);
	CU_ASSERT_EQUAL(req.hdr.reserved1, 0);
	CU_ASSERT_EQUAL(req.attrs[0].attr_id, XRXE_ATTR_LL_POST_QP_HANDLE);
	CU_ASSERT_EQUAL(req.attrs[0].data, 42);
	CU_ASSERT_EQUAL(req.attrs[1].attr_id, XRXE_ATTR_LL_POST_CMD);
	CU_ASSERT_EQUAL(req.attrs[1].len, sizeof(cmd));
	CU_ASSERT_EQUAL(req.attrs[1].data, (uintptr_t)cmd);
	CU_ASSERT_EQUAL(req.attrs[2].attr_id, XRXE_ATTR_LL_POST_RESULT);
	CU_ASSERT_EQUAL(req.attrs[2].len, sizeof(result));
	CU_ASSERT_EQUAL(req.attrs[2].data, (uintptr_t)&result);
	CU_ASSERT_EQUAL(req.attrs[0].flags & UVERBS_ATTR_F_MANDATORY, UVERBS_ATTR_F_MANDATORY);
	CU_ASSERT_EQUAL(req.attrs[1].flags & UVERBS_ATTR_F_MANDATORY, UVERBS_ATTR_F_MANDATORY);
	CU_ASSERT_EQUAL(req.attrs[2].flags & UVERBS_ATTR_F_MANDATORY, UVERBS_ATTR_F_MANDATORY);
}

static void test_modes(void)
{
	struct xrxe_ll_state s = { .mode = XRXEDV_LL_NEVER };
	int need, empty;

	for (need = 0; need < 2; need++) {
		for (empty = 0; empty < 2; empty++) {
			s.mode = XRXEDV_LL_NEVER;
			CU_ASSERT_FALSE(xrxe_ll_choose(&s, need, empty));
			s.mode = XRXEDV_LL_ALWAYS;
			CU_ASSERT_TRUE(xrxe_ll_choose(&s, need, empty));
			s.mode = XRXEDV_LL_IDLE;
			/* Only when a doorbell is due and nothing else is queued. */
			CU_ASSERT_EQUAL(xrxe_ll_choose(&s, need, empty), need && empty);
		}
	}
	s.mode = 42;
	CU_ASSERT_FALSE(xrxe_ll_choose(&s, 1, 1));
}

/* Count the eligible idle-mode posts skipped before the next command. */
static unsigned int skipped(struct xrxe_ll_state *s)
{
	unsigned int n = 0;

	while (!xrxe_ll_choose(s, 1, 1)) {
		n++;
		CU_ASSERT_TRUE_FATAL(n <= XRXE_LL_MAX_BACKOFF);
	}
	return n;
}

static void test_backoff(void)
{
	struct xrxe_ll_state s = { .mode = XRXEDV_LL_IDLE };
	unsigned int expect = 1, i;

	CU_ASSERT_EQUAL(skipped(&s), 0);
	/* Drops in a row: 1, 2, 4, ... posts skipped, up to the cap. */
	for (i = 0; i < 10; i++) {
		xrxe_ll_outcome(&s, false);
		CU_ASSERT_EQUAL(skipped(&s), expect);
		if (expect < XRXE_LL_MAX_BACKOFF)
			expect *= 2;
	}
	/* Posts that were not eligible do not use up the skips. */
	xrxe_ll_outcome(&s, false);
	CU_ASSERT_FALSE(xrxe_ll_choose(&s, 0, 1));
	CU_ASSERT_FALSE(xrxe_ll_choose(&s, 1, 0));
	CU_ASSERT_EQUAL(skipped(&s), XRXE_LL_MAX_BACKOFF);
	/* One accepted command forgets the drops. */
	xrxe_ll_outcome(&s, true);
	CU_ASSERT_EQUAL(skipped(&s), 0);
	xrxe_ll_outcome(&s, false);
	CU_ASSERT_EQUAL(skipped(&s), 1);
	/* Always ignores the back-off. */
	xrxe_ll_outcome(&s, false);
	s.mode = XRXEDV_LL_ALWAYS;
	CU_ASSERT_TRUE(xrxe_ll_choose(&s, 0, 0));
}

int main(void)
{
	static const struct xrxe_unit_test tests[] = {
		{ "which WQEs qualify", test_qualifies },
		{ "command payload size", test_payload },
		{ "command built from a WQE", test_cmd_fill },
		{ "ioctl request", test_request },
		{ "choice in each mode", test_modes },
		{ "back-off after drops", test_backoff },
		{ NULL, NULL },
	};

	return xrxe_cunit_run("ll", tests);
}
