// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* WQE encoding of providers/xrxe/wqe.c: every opcode, flag and limit. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cunit_run.h"

#include <infiniband/xrxedv.h>

#include "wqe.h"

#define MAX_SGE 4
#define MAX_INLINE 256

/* A send slot with room for MAX_SGE SGEs or MAX_INLINE bytes. */
static union {
	struct rxe_send_wqe wqe;
	uint8_t bytes[sizeof(struct rxe_send_wqe) + MAX_INLINE];
} slot;

static const struct xrxe_sq_limits rc = { IBV_QPT_RC, MAX_SGE, MAX_INLINE, true };
static const struct xrxe_sq_limits uc = { IBV_QPT_UC, MAX_SGE, MAX_INLINE, false };
static const struct xrxe_sq_limits ud = { IBV_QPT_UD, MAX_SGE, MAX_INLINE, false };

static void test_opcode_table(void)
{
	static const struct {
		enum ibv_wr_opcode op;
		int rc, uc, ud;
	} table[] = {
		{ IBV_WR_SEND, 1, 1, 1 },
		{ IBV_WR_SEND_WITH_IMM, 1, 1, 1 },
		{ IBV_WR_RDMA_WRITE, 1, 1, 0 },
		{ IBV_WR_RDMA_WRITE_WITH_IMM, 1, 1, 0 },
		{ IBV_WR_SEND_WITH_INV, 1, 1, 0 },
		{ IBV_WR_LOCAL_INV, 1, 1, 0 },
		{ IBV_WR_BIND_MW, 1, 1, 0 },
		{ IBV_WR_RDMA_READ, 1, 0, 0 },
		{ IBV_WR_ATOMIC_CMP_AND_SWP, 1, 0, 0 },
		{ IBV_WR_ATOMIC_FETCH_AND_ADD, 1, 0, 0 },
		{ IBV_WR_ATOMIC_WRITE, 1, 0, 0 },
		{ (enum ibv_wr_opcode)XRXEDV_WR_FLUSH, 1, 0, 0 },
		{ IBV_WR_TSO, 0, 0, 0 },
		{ IBV_WR_DRIVER1, 0, 0, 0 },
		{ (enum ibv_wr_opcode)99, 0, 0, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		CU_ASSERT_EQUAL(xrxe_opcode_valid(IBV_QPT_RC, table[i].op), table[i].rc);
		CU_ASSERT_EQUAL(xrxe_opcode_valid(IBV_QPT_UC, table[i].op), table[i].uc);
		CU_ASSERT_EQUAL(xrxe_opcode_valid(IBV_QPT_UD, table[i].op), table[i].ud);
		CU_ASSERT_EQUAL(xrxe_opcode_valid(IBV_QPT_RAW_PACKET, table[i].op), 0);
	}
}

/* The ibv_wr_* flags a QP type offers follow the same table. */
static void test_send_ops(void)
{
	const uint64_t uc = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
			    IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
			    IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_SEND_WITH_INV |
			    IBV_QP_EX_WITH_LOCAL_INV;
	const uint64_t rc = uc | IBV_QP_EX_WITH_RDMA_READ |
			    IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
			    IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_ATOMIC_WRITE |
			    XRXEDV_QP_EX_WITH_FLUSH;

	CU_ASSERT_EQUAL(xrxe_send_ops(IBV_QPT_RC), rc);
	CU_ASSERT_EQUAL(xrxe_send_ops(IBV_QPT_UC), uc);
	CU_ASSERT_EQUAL(xrxe_send_ops(IBV_QPT_UD),
			IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM);
	CU_ASSERT_EQUAL(xrxe_send_ops(IBV_QPT_RAW_PACKET), 0);
}

static void test_send_fields(void)
{
	struct ibv_sge sge[2] = { { 0x1000, 100, 7 }, { 0x2000, 28, 8 } };
	struct ibv_send_wr wr = {
		.wr_id = 42, .sg_list = sge, .num_sge = 2,
		.opcode = IBV_WR_SEND_WITH_IMM,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | IBV_SEND_FENCE,
		.imm_data = htobe32(0x12345678),
	};
	struct rxe_send_wqe *w = &slot.wqe;

	memset(&slot, 0xa5, sizeof(slot));
	CU_ASSERT_EQUAL_FATAL(xrxe_encode_send(&wr, &rc, 0, w), 0);
	CU_ASSERT_EQUAL(w->wr.wr_id, 42);
	CU_ASSERT_EQUAL(w->wr.opcode, IBV_WR_SEND_WITH_IMM);
	CU_ASSERT_EQUAL(w->wr.send_flags, wr.send_flags);
	CU_ASSERT_EQUAL(w->wr.ex.imm_data, htobe32(0x12345678));
	CU_ASSERT_EQUAL(w->dma.length, 128);
	CU_ASSERT_EQUAL(w->dma.resid, 128);
	CU_ASSERT_EQUAL(w->dma.num_sge, 2);
	CU_ASSERT_EQUAL(w->dma.cur_sge, 0);
	CU_ASSERT_EQUAL(w->dma.sge_offset, 0);
	CU_ASSERT_EQUAL(w->dma.sge[1].addr, 0x2000);
	CU_ASSERT_EQUAL(w->dma.sge[1].length, 28);
	CU_ASSERT_EQUAL(w->dma.sge[1].lkey, 8);
	/* Kernel-owned state starts cleared, not as garbage. */
	CU_ASSERT_EQUAL(w->state, 0);
	CU_ASSERT_EQUAL(w->status, 0);
	CU_ASSERT_EQUAL(w->mask, 0);
}

static void test_rdma_atomic_inv_fields(void)
{
	struct ibv_sge sge = { 0x1000, 8, 3 };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1 };
	struct rxe_send_wqe *w = &slot.wqe;

	wr.opcode = IBV_WR_RDMA_READ;
	wr.wr.rdma.remote_addr = 0xabc000;
	wr.wr.rdma.rkey = 0x55;
	CU_ASSERT_EQUAL_FATAL(xrxe_encode_send(&wr, &rc, 0, w), 0);
	CU_ASSERT_EQUAL(w->iova, 0xabc000);
	CU_ASSERT_EQUAL(w->wr.wr.rdma.remote_addr, 0xabc000);
	CU_ASSERT_EQUAL(w->wr.wr.rdma.rkey, 0x55);

	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.remote_addr = 0xdef000;
	wr.wr.atomic.compare_add = 1;
	wr.wr.atomic.swap = 2;
	wr.wr.atomic.rkey = 0x66;
	CU_ASSERT_EQUAL_FATAL(xrxe_encode_send(&wr, &rc, 0, w), 0);
	CU_ASSERT_EQUAL(w->iova, 0xdef000);
	CU_ASSERT_EQUAL(w->wr.wr.atomic.compare_add, 1);
	CU_ASSERT_EQUAL(w->wr.wr.atomic.swap, 2);
	CU_ASSERT_EQUAL(w->wr.wr.atomic.rkey, 0x66);

	/* Atomics need exactly one 8-byte local buffer. */
	sge.length = 4;
	CU_ASSERT_EQUAL(xrxe_encode_send(&wr, &rc, 0, w), EINVAL);
	sge.length = 8;
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	CU_ASSERT_EQUAL(xrxe_encode_send(&wr, &uc, 0, w), EINVAL);
	CU_ASSERT_EQUAL(xrxe_encode_send(&wr, &rc, 0, w), 0);

	wr.opcode = IBV_WR_SEND_WITH_INV;
	wr.invalidate_rkey = 0x77;
	CU_ASSERT_EQUAL_FATAL(xrxe_encode_send(&wr, &rc, 0, w), 0);
	CU_ASSERT_EQUAL(w->wr.ex.invalidate_rkey, 0x77);

	/* Atomic write and flush exist only in the ibv_wr_* API. */
	wr.opcode = IBV_WR_ATOMIC_WRITE;
	CU_ASSERT_EQUAL(xrxe_encode_send(&wr, &rc, 0, w), EINVAL);
	wr.opcode = (enum ibv_wr_opcode)XRXEDV_WR_FLUSH;
	CU_ASSERT_EQUAL(xrxe_encode_send(&wr, &rc, 0, w), EINVAL);
}

/* The domain flush flag where the queue allows it, and nowhere else. */
static void test_domain_flush_flag(void)
{
	static uint8_t buf[8];
	struct ibv_sge sge = { (uintptr_t)buf, sizeof(buf), 1 };
	struct ibv_send_wr wr = {
		.wr_id = 3, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED | XRXEDV_SEND_DOMAIN_FLUSH,
	};
	struct xrxe_sq_limits classic_rc = rc;
	struct rxe_send_wqe *w = &slot.wqe;

	classic_rc.domain_flush = false;
	CU_ASSERT_EQUAL_FATAL(xrxe_encode_send(&wr, &rc, 0, w), 0);
	CU_ASSERT_EQUAL(w->wr.send_flags, IBV_SEND_SIGNALED | XRXEDV_SEND_DOMAIN_FLUSH);
	CU_ASSERT_EQUAL(xrxe_encode_send(&wr, &classic_rc, 0, w), EINVAL);
	CU_ASSERT_EQUAL(xrxe_encode_send(&wr, &uc, 0, w), EINVAL);
	wr.send_flags = IBV_SEND_SIGNALED;
	CU_ASSERT_EQUAL(xrxe_encode_send(&wr, &uc, 0, w), 0);
}

/* A flush's range is in wr.flush for the kernel's copy, and in dma/iova. */
static void test_flush_fields(void)
{
	struct rxe_send_wqe *w = &slot.wqe;

	memset(&slot, 0xa5, sizeof(slot));
	xrxe_wqe_init(w, 9, (enum ibv_wr_opcode)XRXEDV_WR_FLUSH, IBV_SEND_SIGNALED);
	xrxe_wqe_set_flush(w, 0x1234, 0x10000, 4096, XRXEDV_FLUSH_GLOBAL,
			   XRXEDV_FLUSH_MR);
	CU_ASSERT_EQUAL(w->wr.opcode, XRXEDV_WR_FLUSH);
	CU_ASSERT_EQUAL(w->wr.wr.flush.rkey, 0x1234);
	CU_ASSERT_EQUAL(w->wr.wr.flush.remote_addr, 0x10000);
	CU_ASSERT_EQUAL(w->wr.wr.flush.length, 4096);
	CU_ASSERT_EQUAL(w->wr.wr.flush.type, XRXEDV_FLUSH_GLOBAL);
	CU_ASSERT_EQUAL(w->wr.wr.flush.level, XRXEDV_FLUSH_MR);
	CU_ASSERT_EQUAL(w->iova, 0x10000);
	CU_ASSERT_EQUAL(w->dma.length, 4096);
	CU_ASSERT_EQUAL(w->dma.resid, 4096);
	CU_ASSERT_EQUAL(w->dma.num_sge, 0);
	CU_ASSERT_EQUAL(w->wr.send_flags, IBV_SEND_SIGNALED);
}

static void test_ud(void)
{
	struct ibv_sge sge = { 0x1000, 64, 3 };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND };
	struct rxe_send_wqe *w = &slot.wqe;

	wr.wr.ud.remote_qpn = 0x11;
	wr.wr.ud.remote_qkey = 0x22;
	CU_ASSERT_EQUAL(xrxe_encode_send(&wr, &ud, 0, w), EINVAL);
	CU_ASSERT_EQUAL_FATAL(xrxe_encode_send(&wr, &ud, 9, w), 0);
	CU_ASSERT_EQUAL(w->wr.wr.ud.remote_qpn, 0x11);
	CU_ASSERT_EQUAL(w->wr.wr.ud.remote_qkey, 0x22);
	CU_ASSERT_EQUAL(w->wr.wr.ud.ah_num, 9);
	wr.opcode = IBV_WR_RDMA_WRITE;
	CU_ASSERT_EQUAL(xrxe_encode_send(&wr, &ud, 9, w), EINVAL);
}

static void test_inline(void)
{
	uint8_t a[200], b[MAX_INLINE];
	struct ibv_sge sge[2] = { { (uintptr_t)a, sizeof(a), 0 }, { (uintptr_t)b, 56, 0 } };
	struct ibv_send_wr wr = {
		.sg_list = sge, .num_sge = 2, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_INLINE,
	};
	struct rxe_send_wqe *w = &slot.wqe;
	size_t i;

	for (i = 0; i < sizeof(a); i++)
		a[i] = i;
	for (i = 0; i < sizeof(b); i++)
		b[i] = 0xff - i;
	/* Exactly at the limit: accepted, payload concatenated in the WQE. */
	CU_ASSERT_EQUAL_FATAL(xrxe_encode_send(&wr, &rc, 0, w), 0);
	CU_ASSERT_EQUAL(w->dma.length, MAX_INLINE);
	CU_ASSERT_EQUAL(w->dma.num_sge, 0);
	CU_ASSERT_EQUAL(memcmp(w->dma.inline_data, a, sizeof(a)), 0);
	CU_ASSERT_EQUAL(memcmp(w->dma.inline_data + sizeof(a), b, 56), 0);
	/* One byte over: rejected. */
	sge[1].length = 57;
	CU_ASSERT_EQUAL(xrxe_encode_send(&wr, &rc, 0, w), EINVAL);
	/* Inline with an opcode that carries no payload: rejected. */
	sge[1].length = 1;
	wr.opcode = IBV_WR_RDMA_READ;
	CU_ASSERT_EQUAL(xrxe_encode_send(&wr, &rc, 0, w), EINVAL);
	/* Zero-length inline send is fine. */
	wr.opcode = IBV_WR_SEND;
	wr.num_sge = 0;
	CU_ASSERT_EQUAL(xrxe_encode_send(&wr, &rc, 0, w), 0);
	CU_ASSERT_EQUAL(w->dma.length, 0);
}

static void test_sge_limits(void)
{
	struct ibv_sge sge[MAX_SGE + 1] = { { 0 } };
	struct ibv_send_wr wr = { .sg_list = sge, .opcode = IBV_WR_SEND };
	struct ibv_recv_wr rwr = { .sg_list = sge };
	union {
		struct rxe_recv_wqe wqe;
		uint8_t bytes[sizeof(struct rxe_recv_wqe) + MAX_SGE * sizeof(struct rxe_sge)];
	} rslot;
	int i;

	for (i = 0; i <= MAX_SGE; i++)
		sge[i] = (struct ibv_sge){ 0x1000 * (i + 1), 10, i };
	wr.num_sge = MAX_SGE;
	CU_ASSERT_EQUAL(xrxe_encode_send(&wr, &rc, 0, &slot.wqe), 0);
	wr.num_sge = MAX_SGE + 1;
	CU_ASSERT_EQUAL(xrxe_encode_send(&wr, &rc, 0, &slot.wqe), EINVAL);
	wr.num_sge = -1;
	CU_ASSERT_EQUAL(xrxe_encode_send(&wr, &rc, 0, &slot.wqe), EINVAL);
	wr.num_sge = 1;
	wr.sg_list = NULL;
	CU_ASSERT_EQUAL(xrxe_encode_send(&wr, &rc, 0, &slot.wqe), EINVAL);

	rwr.wr_id = 5;
	rwr.num_sge = MAX_SGE;
	CU_ASSERT_EQUAL_FATAL(xrxe_encode_recv(&rwr, MAX_SGE, &rslot.wqe), 0);
	CU_ASSERT_EQUAL(rslot.wqe.wr_id, 5);
	CU_ASSERT_EQUAL(rslot.wqe.dma.length, 10 * MAX_SGE);
	CU_ASSERT_EQUAL(rslot.wqe.dma.num_sge, MAX_SGE);
	CU_ASSERT_EQUAL(rslot.wqe.dma.sge[3].addr, 0x4000);
	CU_ASSERT_EQUAL(rslot.wqe.dma.sge[3].lkey, 3);
	rwr.num_sge = MAX_SGE + 1;
	CU_ASSERT_EQUAL(xrxe_encode_recv(&rwr, MAX_SGE, &rslot.wqe), EINVAL);
}

int main(void)
{
	static const struct xrxe_unit_test tests[] = {
		{ "opcodes per QP type", test_opcode_table },
		{ "ibv_wr_* flags per QP type", test_send_ops },
		{ "send fields and flags", test_send_fields },
		{ "rdma, atomic and invalidate fields", test_rdma_atomic_inv_fields },
		{ "flush fields", test_flush_fields },
		{ "domain flush flag", test_domain_flush_flag },
		{ "UD address", test_ud },
		{ "inline data and its limit", test_inline },
		{ "SGE limits, send and receive", test_sge_limits },
		{ NULL, NULL },
	};

	return xrxe_cunit_run("wqe", tests);
}
