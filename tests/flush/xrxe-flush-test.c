// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * usage: xrxe-flush-test DEVICE
 *
 * RDMA FLUSH through xrxedv_wr_flush(), which pyverbs cannot call: two RC
 * QPs of DEVICE connected to each other, on whatever send queue the
 * environment gives (doorbell-less, classic, low-latency modes).
 *
 *   - the device offers global and persistent flushes; an MR of ordinary
 *     memory cannot be registered for persistence (EINVAL);
 *   - records written and then a global flush, of the range and of the
 *     whole MR: every record in place, completions in order, the flush's
 *     with XRXEDV_WC_FLUSH; the same with write coalescing on, where the
 *     queue allows it (the flush ends a merge and is never part of one);
 *   - the builder's errors through ibv_wr_complete(), with nothing of the
 *     list posted: type 0 and unknown bits, unknown level, a length above
 *     32 bits (EINVAL), a QP created without XRXEDV_QP_EX_WITH_FLUSH
 *     (EOPNOTSUPP); ibv_post_send() cannot carry a flush (EINVAL); UC and
 *     UD QPs cannot be created for flushes (EOPNOTSUPP);
 *   - the responder's refusals, each on a fresh pair: an MR without the
 *     flush access, a persistent flush to an MR of ordinary memory, a
 *     responder QP without the flush access.
 *
 * Exit 0 when all holds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <infiniband/xrxedv.h>
#include <rdma/ib_user_verbs.h>

#include "xrxe_test_dev.h"
#include "xrxe_test_rc.h"

#define PORT		1
#define GID_INDEX	0
#define REC		64		/* bytes of a record */
#define RECS		32		/* records a round writes */
#define BUF		(RECS * REC)
#define DEPTH		64
#define POLLS		50000000L

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static union ibv_gid gid;

/* A requester and a responder QP of ctx, connected, and their memory. */
struct pair {
	struct ibv_qp *req, *resp;
	struct ibv_qp_ex *qpx;
	struct ibv_cq *cq;
	struct ibv_mr *src_mr, *dst_mr;
	uint8_t *src, *dst;
};

static struct ibv_qp *create_qp(struct ibv_cq *cq, enum ibv_qp_type type,
				uint64_t send_ops)
{
	struct ibv_qp_init_attr_ex attr = {
		.send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = DEPTH, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = type,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};

	if (send_ops) {
		attr.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		attr.send_ops_flags = send_ops;
	}
	return ibv_create_qp_ex(ctx, &attr);
}

static void to_rts(struct ibv_qp *qp, uint32_t remote, unsigned int access)
{
	const struct xrxe_rc_peer peer = {
		.qpn = remote, .gid = gid, .port = PORT, .sgid_index = GID_INDEX,
		.rd_atomic = 1, .min_rnr_timer = 1, .timeout = 14,
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = PORT,
		.qp_access_flags = access,
	};
	const char *step;
	int ret;

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("QP %u to INIT with access %#x: %s", qp->qp_num, access,
		    strerror(errno));
	ret = xrxe_rc_rtr_rts(qp, &peer, &step);
	if (ret)
		die("QP %u to %s: %s", qp->qp_num, step, strerror(ret));
}

/*
 * A pair whose responder QP has qp_access and whose destination MR
 * mr_access, its requester created with send_ops (flushes, unless 0).
 */
static void make_pair(struct pair *p, unsigned int qp_access, unsigned int mr_access,
		      uint64_t send_ops)
{
	memset(p, 0, sizeof(*p));
	p->cq = ibv_create_cq(ctx, 2 * DEPTH, NULL, NULL, 0);
	p->src = calloc(1, BUF);
	p->dst = calloc(1, BUF);
	if (!p->cq || !p->src || !p->dst)
		die("cq or buffers");
	p->src_mr = ibv_reg_mr(pd, p->src, BUF, xrxe_test_mr_access(IBV_ACCESS_LOCAL_WRITE));
	p->dst_mr = ibv_reg_mr(pd, p->dst, BUF, xrxe_test_mr_access(mr_access));
	if (!p->src_mr || !p->dst_mr)
		die("MRs (destination access %#x): %s", mr_access, strerror(errno));
	p->req = create_qp(p->cq, IBV_QPT_RC, send_ops);
	p->resp = create_qp(p->cq, IBV_QPT_RC, 0);
	if (!p->req || !p->resp)
		die("QPs: %s", strerror(errno));
	p->qpx = ibv_qp_to_qp_ex(p->req);
	to_rts(p->req, p->resp->qp_num, IBV_ACCESS_LOCAL_WRITE);
	to_rts(p->resp, p->req->qp_num, qp_access);
}

static void free_pair(struct pair *p)
{
	if (ibv_destroy_qp(p->req) || ibv_destroy_qp(p->resp) ||
	    ibv_dereg_mr(p->src_mr) || ibv_dereg_mr(p->dst_mr) ||
	    ibv_destroy_cq(p->cq))
		die("teardown: %s", strerror(errno));
	free(p->src);
	free(p->dst);
}

static const unsigned int flushable = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				      XRXEDV_ACCESS_FLUSH_GLOBAL;
static const uint64_t write_and_flush = IBV_QP_EX_WITH_RDMA_WRITE | XRXEDV_QP_EX_WITH_FLUSH;

/* The next completion of p's CQ (it must come). */
static struct ibv_wc next_wc(struct pair *p)
{
	struct ibv_wc wc;
	long i;
	int n = 0;

	for (i = 0; i < POLLS && !(n = ibv_poll_cq(p->cq, 1, &wc)); i++)
		;
	if (n < 0)
		die("poll: %d", n);
	if (!n)
		die("no completion after %ld polls", POLLS);
	return wc;
}

static void expect_wc(struct pair *p, uint64_t wr_id, enum ibv_wc_opcode opcode,
		      enum ibv_wc_status status, const char *what)
{
	struct ibv_wc wc = next_wc(p);

	if (wc.wr_id != wr_id || wc.status != status ||
	    (status == IBV_WC_SUCCESS && wc.opcode != opcode))
		die("%s: completion wr_id %llu opcode %d status %s, expected wr_id %llu opcode %d status %s",
		    what, (unsigned long long)wc.wr_id, wc.opcode,
		    ibv_wc_status_str(wc.status), (unsigned long long)wr_id, opcode,
		    ibv_wc_status_str(status));
}

/* Nothing more in p's CQ: what a refused list posted would be there. */
static void expect_empty(struct pair *p, const char *what)
{
	struct ibv_wc wc;

	usleep(20000);
	if (ibv_poll_cq(p->cq, 1, &wc))
		die("%s: a completion (wr_id %llu) of a list that was refused",
		    what, (unsigned long long)wc.wr_id);
}

/* Fill the source with round's records, the destination with other bytes. */
static void fill(struct pair *p, int round)
{
	int i;

	for (i = 0; i < BUF; i++) {
		p->src[i] = (uint8_t)(round * 31 + i);
		p->dst[i] = (uint8_t)~p->src[i];
	}
}

/*
 * RECS record writes, unsignalled but the last, then a signalled flush of
 * the given level; both completions in order and every record in place.
 */
static void records_then_flush(struct pair *p, int round, uint8_t level)
{
	struct ibv_qp_ex *x = p->qpx;
	int i, ret;

	fill(p, round);
	ibv_wr_start(x);
	for (i = 0; i < RECS; i++) {
		x->wr_id = i;
		x->wr_flags = i == RECS - 1 ? IBV_SEND_SIGNALED : 0;
		ibv_wr_rdma_write(x, p->dst_mr->rkey, (uintptr_t)p->dst + i * REC);
		ibv_wr_set_sge(x, p->src_mr->lkey, (uintptr_t)p->src + i * REC, REC);
	}
	x->wr_id = 1000;
	x->wr_flags = IBV_SEND_SIGNALED;
	xrxedv_wr_flush(x, p->dst_mr->rkey, (uintptr_t)p->dst, BUF,
			XRXEDV_FLUSH_GLOBAL, level);
	ret = ibv_wr_complete(x);
	if (ret)
		die("round %d: records and a flush: %s", round, strerror(ret));
	expect_wc(p, RECS - 1, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS, "last record");
	expect_wc(p, 1000, (enum ibv_wc_opcode)XRXEDV_WC_FLUSH, IBV_WC_SUCCESS, "flush");
	if (memcmp(p->src, p->dst, BUF))
		die("round %d: the records are not all in place after the flush", round);
}

static void test_device_caps(void)
{
	struct ibv_device_attr_ex attr;
	void *buf = calloc(1, 4096);
	struct ibv_mr *mr;

	if (ibv_query_device_ex(ctx, NULL, &attr))
		die("query device");
	if (!(attr.device_cap_flags_ex & IB_UVERBS_DEVICE_FLUSH_GLOBAL) ||
	    !(attr.device_cap_flags_ex & IB_UVERBS_DEVICE_FLUSH_PERSISTENT))
		die("device_cap_flags_ex %#llx lacks the flush capabilities",
		    (unsigned long long)attr.device_cap_flags_ex);
	mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			XRXEDV_ACCESS_FLUSH_PERSISTENT);
	if (mr || errno != EINVAL)
		die("an MR of ordinary memory registered for persistence: %s",
		    mr ? "accepted" : strerror(errno));
	free(buf);
	printf("device caps: flush global and persistent; persistence refused on ordinary memory\n");
}

static void test_flushes(void)
{
	struct pair p;
	int round, ret;

	make_pair(&p, flushable, flushable, write_and_flush);
	for (round = 0; round < 4; round++)
		records_then_flush(&p, round, round % 2 ? XRXEDV_FLUSH_MR : XRXEDV_FLUSH_RANGE);
	ret = xrxedv_qp_set_coalesce(p.req, 1024);
	if (ret && ret != EOPNOTSUPP)
		die("coalescing on: %s", strerror(ret));
	for (; round < 8; round++)
		records_then_flush(&p, round, XRXEDV_FLUSH_RANGE);
	printf("records then a flush: %d rounds of %d records, range and MR level, coalescing %s\n",
	       round, RECS, ret ? "not offered on this queue" : "on for the last 4");
	free_pair(&p);
}

/* One builder call between a good write before and after it: ret expected. */
static void refused_list(struct pair *p, int expected, uint32_t len_hi, uint8_t type,
			 uint8_t level, const char *what)
{
	struct ibv_qp_ex *x = p->qpx;
	int ret;

	ibv_wr_start(x);
	x->wr_id = 1;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(x, p->dst_mr->rkey, (uintptr_t)p->dst);
	ibv_wr_set_sge(x, p->src_mr->lkey, (uintptr_t)p->src, REC);
	x->wr_id = 2;
	xrxedv_wr_flush(x, p->dst_mr->rkey, (uintptr_t)p->dst,
			((size_t)len_hi << 32) | BUF, type, level);
	x->wr_id = 3;
	ibv_wr_rdma_write(x, p->dst_mr->rkey, (uintptr_t)p->dst + REC);
	ibv_wr_set_sge(x, p->src_mr->lkey, (uintptr_t)p->src + REC, REC);
	ret = ibv_wr_complete(x);
	if (ret != expected)
		die("%s: ibv_wr_complete() gave %d (%s), expected %s", what, ret,
		    strerror(ret), strerror(expected));
	expect_empty(p, what);
}

static void test_builder_errors(void)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = (enum ibv_wr_opcode)XRXEDV_WR_FLUSH }, *bad;
	struct ibv_cq *cq;
	struct pair p;
	int ret;

	make_pair(&p, flushable, flushable, write_and_flush);
	refused_list(&p, EINVAL, 0, 0, XRXEDV_FLUSH_RANGE, "type 0");
	refused_list(&p, EINVAL, 0, 4, XRXEDV_FLUSH_RANGE, "type 4");
	refused_list(&p, EINVAL, 0, XRXEDV_FLUSH_GLOBAL, 2, "level 2");
	refused_list(&p, EINVAL, 1, XRXEDV_FLUSH_GLOBAL, XRXEDV_FLUSH_RANGE, "length 2^32");
	sge = (struct ibv_sge){ (uintptr_t)p.src, 8, p.src_mr->lkey };
	ret = ibv_post_send(p.req, &wr, &bad);
	if (ret != EINVAL)
		die("ibv_post_send() of a flush gave %d, expected EINVAL", ret);
	expect_empty(&p, "ibv_post_send() of a flush");
	/* The QP still posts: nothing above reached the kernel. */
	records_then_flush(&p, 9, XRXEDV_FLUSH_RANGE);
	free_pair(&p);

	make_pair(&p, flushable, flushable, IBV_QP_EX_WITH_RDMA_WRITE);
	refused_list(&p, EOPNOTSUPP, 0, XRXEDV_FLUSH_GLOBAL, XRXEDV_FLUSH_RANGE,
		     "a QP created without XRXEDV_QP_EX_WITH_FLUSH");
	free_pair(&p);

	cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	if (!cq)
		die("cq");
	if (create_qp(cq, IBV_QPT_UC, write_and_flush) || errno != EOPNOTSUPP)
		die("a UC QP for flushes: not refused with EOPNOTSUPP");
	if (create_qp(cq, IBV_QPT_UD, IBV_QP_EX_WITH_SEND | XRXEDV_QP_EX_WITH_FLUSH) ||
	    errno != EOPNOTSUPP)
		die("a UD QP for flushes: not refused with EOPNOTSUPP");
	ibv_destroy_cq(cq);
	printf("builder errors: EINVAL x4 and EOPNOTSUPP through ibv_wr_complete(), nothing posted; "
	       "ibv_post_send() EINVAL; UC and UD refused\n");
}

/* A flush the responder refuses: the status, then the QP is in error. */
static void refused_flush(unsigned int qp_access, unsigned int mr_access, uint8_t type,
			  enum ibv_wc_status expected, const char *what)
{
	struct pair p;
	int ret;

	make_pair(&p, qp_access, mr_access, write_and_flush);
	ibv_wr_start(p.qpx);
	p.qpx->wr_id = 7;
	p.qpx->wr_flags = IBV_SEND_SIGNALED;
	xrxedv_wr_flush(p.qpx, p.dst_mr->rkey, (uintptr_t)p.dst, BUF, type,
			XRXEDV_FLUSH_RANGE);
	ret = ibv_wr_complete(p.qpx);
	if (ret)
		die("%s: post: %s", what, strerror(ret));
	expect_wc(&p, 7, (enum ibv_wc_opcode)XRXEDV_WC_FLUSH, expected, what);
	free_pair(&p);
}

static void test_responder_refusals(void)
{
	const unsigned int written = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;

	refused_flush(flushable, written, XRXEDV_FLUSH_GLOBAL, IBV_WC_REM_ACCESS_ERR,
		      "an MR without the flush access");
	refused_flush(flushable | XRXEDV_ACCESS_FLUSH_PERSISTENT, flushable,
		      XRXEDV_FLUSH_PERSISTENT, IBV_WC_REM_ACCESS_ERR,
		      "a persistent flush to ordinary memory");
	refused_flush(written, flushable, XRXEDV_FLUSH_GLOBAL, IBV_WC_REM_INV_REQ_ERR,
		      "a responder QP without the flush access");
	printf("responder refusals: MR access, persistence, QP access\n");
}

int main(int argc, char **argv)
{
	if (argc != 2)
		die("usage: %s DEVICE", argv[0]);
	ctx = xrxe_open_device(argv[1]);
	pd = ibv_alloc_pd(ctx);
	if (!pd || ibv_query_gid(ctx, PORT, GID_INDEX, &gid))
		die("pd or gid of %s", argv[1]);
	test_device_caps();
	test_flushes();
	test_builder_errors();
	test_responder_refusals();
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	printf("flush: all checks passed\n");
	return 0;
}
