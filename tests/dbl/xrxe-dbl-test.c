// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Doorbell-less send queue and low-latency posting tests that need C: the
 * lost-wake-up hunter (which also interleaves low-latency and ring posts),
 * the hostile ring, hostile low-latency commands, and the per-QP controls
 * of infiniband/xrxedv.h. Run in the testbed on one xrxe device; QPs are
 * connected to each other on it.
 *
 *   xrxe-dbl-test hunter [-q QPS] [-t THREADS] [-s SECONDS] [-g MAX_GAP_US]
 *                        [-l idle|always|never]
 *   xrxe-dbl-test shared-qp [-t THREADS] [-s SECONDS] [-l idle|always|never]
 *                           [-o send|write] [-b MAX_BURST] [-i] [-m]
 *   xrxe-dbl-test hostile | stale | status-readonly | ll-hostile
 *   xrxe-dbl-test controls | ll-modes
 *   xrxe-dbl-test create-fault | trailing | reject-flush | full-park |
 *                 before-rts | ll-atomic-write
 *
 * The provider's xrxedv functions come from the library libibverbs loaded
 * (RDMAV_DRIVERS). Exit status 0 when every check held.
 */
#include "xrxe_test_dev.h"
#include "xrxe_test_rc.h"
#include "xrxe_test_uverbs.h"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <sys/types.h>
#include <dirent.h>
#include <infiniband/verbs.h>
#include <infiniband/xrxedv.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_xrxe.h>
#include "xrxe_policy.h"

/* The provider's own ring addressing and command building. */
#include "dbl.h"
#include "ll.h"

#define PORT		1
#define GID_INDEX	0
#define MSG		64
#define DEPTH		64
#define POLL_SECS	10
#define KERNEL_IB_WR_REG_MR	0x20

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static union ibv_gid gid;


static void open_device(const char *name)
{
	ctx = xrxe_open_device(name);
	pd = ibv_alloc_pd(ctx);
	if (!pd || ibv_query_gid(ctx, PORT, GID_INDEX, &gid))
		die("pd or gid of %s", name);
}

/* One end: a QP, its CQ and a registered buffer of DEPTH messages. */
struct end {
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
};

/* One end whose send CQ has completion vector vector. */
static void make_end_on(struct end *e, int vector)
{
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = DEPTH, .max_recv_wr = DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = MSG },
		.qp_type = IBV_QPT_RC,
	};

	e->cq = ibv_create_cq(ctx, 2 * DEPTH, NULL, NULL, vector);
	e->buf = calloc(DEPTH, MSG);
	if (!e->cq || !e->buf)
		die("cq or buffer");
	e->mr = ibv_reg_mr(pd, e->buf, DEPTH * MSG, IBV_ACCESS_LOCAL_WRITE);
	attr.send_cq = attr.recv_cq = e->cq;
	e->qp = ibv_create_qp(pd, &attr);
	if (!e->mr || !e->qp)
		die("mr or qp: %s", strerror(errno));
}

static void make_end(struct end *e)
{
	make_end_on(e, 0);
}

/* The RNR NAK timer code a receiver connected by to_rts() asks for. */
static uint8_t min_rnr_timer = 1;	/* 0.01 ms */

/* Connected to remote, the responder granting the remote access of access. */
static void to_rts_access(struct ibv_qp *qp, uint32_t remote, unsigned int access)
{
	const struct xrxe_rc_peer peer = {
		.qpn = remote, .gid = gid, .port = PORT, .sgid_index = GID_INDEX,
		.rd_atomic = 1, .min_rnr_timer = min_rnr_timer, .timeout = 14,
	};
	const char *step;
	int ret;
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = PORT,
		.qp_access_flags = access,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("to INIT");
	ret = xrxe_rc_rtr_rts(qp, &peer, &step);
	if (ret)
		die("to %s: %s", step, strerror(ret));
}

static void to_rts(struct ibv_qp *qp, uint32_t remote)
{
	to_rts_access(qp, remote, IBV_ACCESS_LOCAL_WRITE);
}

/* A sender and a receiver, connected. */
struct pair {
	struct end tx, rx;
	uint64_t next;		/* sequence of the next send */
	uint64_t done;		/* sends verified complete */
};

/*
 * A pair whose sender, before it is connected, is placed in ordering
 * domain (0: none) with OCU mode (-1: left alone), its send CQ on vector.
 */
static void make_pair_placed(struct pair *p, int mode, uint32_t domain, int vector)
{
	int ret;

	memset(p, 0, sizeof(*p));
	make_end_on(&p->tx, vector);
	make_end(&p->rx);
	if (mode >= 0) {
		ret = xrxedv_qp_set_ocu(p->tx.qp, mode, domain);
		if (ret)
			die("placing a new QP (mode %d, domain %u): %s", mode, domain,
			    strerror(ret));
	}
	to_rts(p->tx.qp, p->rx.qp->qp_num);
	to_rts(p->rx.qp, p->tx.qp->qp_num);
}

static void make_pair(struct pair *p)
{
	make_pair_placed(p, -1, 0, 0);
}

static int post_recv(struct end *e, uint64_t seq)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e->buf + (seq % DEPTH) * MSG,
		.length = MSG, .lkey = e->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = seq, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(e->qp, &wr, &bad);
}

enum post_how {
	POST_INLINE = 1 << 0,		/* the payload as inline data */
	POST_ONE_BY_ONE = 1 << 1,	/* a post per WR, not one list */
};

/*
 * A burst of n sends carrying their sequence numbers, posted as one list or
 * one by one, each after its receive. An inline send's buffer is
 * overwritten right after its post, so a payload read later than the post
 * would show. 0, or the errno of the post that failed (a fuzzer's victim
 * may have a full receive queue: its sends never arrive).
 */
static int post_sends_how(struct pair *p, int n, unsigned int how)
{
	struct ibv_send_wr wr[DEPTH], *bad;
	struct ibv_sge sge[DEPTH];
	uint8_t scratch[DEPTH][MSG];
	int i, ret;

	for (i = 0; i < n; i++) {
		uint64_t seq = p->next + i;
		uint8_t *slot = p->tx.buf + (seq % DEPTH) * MSG;

		if (how & POST_INLINE)
			slot = scratch[i];
		memcpy(slot, &seq, sizeof(seq));
		memset(slot + sizeof(seq), (int)(seq & 0xff), MSG - sizeof(seq));
		sge[i] = (struct ibv_sge){ .addr = (uintptr_t)slot, .length = MSG,
					   .lkey = p->tx.mr->lkey };
		wr[i] = (struct ibv_send_wr){ .wr_id = seq, .sg_list = &sge[i],
					      .num_sge = 1, .opcode = IBV_WR_SEND,
					      .send_flags = IBV_SEND_SIGNALED,
					      .next = i + 1 < n ? &wr[i + 1] : NULL };
		if (how & POST_INLINE)
			wr[i].send_flags |= IBV_SEND_INLINE;
		ret = post_recv(&p->rx, seq);
		if (ret)
			return ret;
	}
	if (!(how & POST_ONE_BY_ONE))
		return ibv_post_send(p->tx.qp, wr, &bad);
	for (i = 0; i < n; i++) {
		wr[i].next = NULL;
		ret = ibv_post_send(p->tx.qp, &wr[i], &bad);
		if (ret)
			return ret;
		if (how & POST_INLINE)
			memset(scratch[i], 0xee, MSG);
	}
	return 0;
}

static int post_sends(struct pair *p, int n)
{
	return post_sends_how(p, n, 0);
}

/* n completions from cq within POLL_SECS, else NULL-equivalent failure. */
static int poll_n(struct ibv_cq *cq, struct ibv_wc *wc, int n)
{
	double deadline = now() + POLL_SECS;
	int got = 0, r;

	while (got < n) {
		r = ibv_poll_cq(cq, n - got, wc + got);
		if (r < 0)
			die("poll_cq");
		got += r;
		if (!r && now() > deadline)
			break;
	}
	return got;
}

/* Every send of the burst completes once, in order, with its payload. */
static void check_burst(struct pair *p, int n, int id)
{
	struct ibv_wc wc[DEPTH];
	int i, got;

	got = poll_n(p->tx.cq, wc, n);
	if (got < n)
		die("lost wake-up? pair %d: %d of %d sends from seq %" PRIu64
		    " not complete after %d s", id, n - got, n, p->next, POLL_SECS);
	for (i = 0; i < n; i++)
		if (wc[i].status != IBV_WC_SUCCESS || wc[i].wr_id != p->next + i)
			die("pair %d send %d: status %d wr_id %" PRIu64 ", expected %" PRIu64,
			    id, i, wc[i].status, wc[i].wr_id, p->next + i);
	got = poll_n(p->rx.cq, wc, n);
	if (got < n)
		die("pair %d: %d receives missing", id, n - got);
	for (i = 0; i < n; i++) {
		uint64_t seq = p->next + i, seen;
		const uint8_t *got_buf = p->rx.buf + (seq % DEPTH) * MSG;
		size_t b;

		memcpy(&seen, got_buf, sizeof(seen));
		if (wc[i].status != IBV_WC_SUCCESS || wc[i].wr_id != seq || seen != seq)
			die("pair %d recv %d: status %d wr_id %" PRIu64 " payload %" PRIu64
			    ", expected %" PRIu64, id, i, wc[i].status, wc[i].wr_id, seen, seq);
		for (b = sizeof(seq); b < MSG; b++)
			if (got_buf[b] != (uint8_t)seq)
				die("pair %d recv %d: byte %zu is %#x, expected %#x",
				    id, i, b, got_buf[b], (uint8_t)seq);
	}
	p->next += n;
	p->done += n;
}

/* Hunter: threads post bursts with random gaps on their own pairs. */
struct hunter {
	struct pair *pairs;
	int first, count;
	double deadline;
	unsigned int max_gap_us;
	int max_burst;
	unsigned int seed;
};

static void *hunt(void *arg)
{
	struct hunter *h = arg;
	int ret;

	while (now() < h->deadline) {
		int id = h->first + rand_r(&h->seed) % h->count;
		struct pair *p = &h->pairs[id];
		int n = 1 + rand_r(&h->seed) % h->max_burst;
		unsigned int gap = rand_r(&h->seed) % 4;

		/* No gap, a short one, one around the engine's idle transition,
		 * or up to the longest.
		 */
		if (gap == 1)
			usleep(rand_r(&h->seed) % 50);
		else if (gap == 2)
			usleep(rand_r(&h->seed) % (h->max_gap_us + 1));
		else if (gap == 3)
			usleep(h->max_gap_us);
		/* Lists and single posts, inline or not: low-latency commands
		 * and ring-only posts interleave on the same QPs.
		 */
		ret = post_sends_how(p, n, rand_r(&h->seed) % 4);
		if (ret)
			die("posting a burst on pair %d: %s", id, strerror(ret));
		check_burst(p, n, id);
	}
	return NULL;
}

static int cmd_hunter(int argc, char **argv)
{
	int qps = 8, threads = 4, secs = 10, i, opt;
	unsigned int max_gap_us = 2000;
	int ll_mode = -1, domains = 0, max_burst = 8;
	struct hunter *h;
	struct pair *pairs;
	pthread_t *tid;
	uint64_t total = 0;
	struct xrxedv_qp_counters c, sum = {};

	while ((opt = getopt(argc, argv, "q:t:s:g:l:d:b:")) != -1) {
		switch (opt) {
		case 'q': qps = atoi(optarg); break;
		case 't': threads = atoi(optarg); break;
		case 's': secs = atoi(optarg); break;
		case 'g': max_gap_us = atoi(optarg); break;
		case 'd': domains = atoi(optarg); break;
		case 'b': max_burst = atoi(optarg); break;
		case 'l':
			ll_mode = !strcmp(optarg, "idle") ? XRXEDV_LL_IDLE :
				  !strcmp(optarg, "always") ? XRXEDV_LL_ALWAYS :
				  !strcmp(optarg, "never") ? XRXEDV_LL_NEVER : -2;
			if (ll_mode == -2)
				die("-l takes idle, always or never, not '%s'", optarg);
			break;
		default:
			die("hunter [-q QPS] [-t THREADS] [-s SECONDS] [-g MAX_GAP_US] "
			    "[-l idle|always|never] [-d DOMAINS] [-b MAX_BURST]");
		}
	}
	if (qps < threads || threads < 1)
		die("need at least one QP per thread");
	if (max_burst < 1 || max_burst > DEPTH)
		die("-b takes 1 to %d WRs", DEPTH);
	pairs = calloc(qps, sizeof(*pairs));
	h = calloc(threads, sizeof(*h));
	tid = calloc(threads, sizeof(*tid));
	/*
	 * With domains, pair i's sender is in domain i mod DOMAINS + 1: the
	 * threads post on QPs that share an OCU.
	 */
	for (i = 0; i < qps; i++) {
		if (domains > 0)
			make_pair_placed(&pairs[i], XRXEDV_OCU_MODULE, i % domains + 1, 0);
		else
			make_pair(&pairs[i]);
		if (ll_mode >= 0 && xrxedv_qp_set_ll_mode(pairs[i].tx.qp, ll_mode))
			die("pair %d has no low-latency posting", i);
	}
	for (i = 0; i < threads; i++) {
		h[i] = (struct hunter){ .pairs = pairs, .first = i * qps / threads,
					.count = (i + 1) * qps / threads - i * qps / threads,
					.deadline = now() + secs, .max_gap_us = max_gap_us,
					.max_burst = max_burst,
					.seed = 1234 + i };
		pthread_create(&tid[i], NULL, hunt, &h[i]);
	}
	for (i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	for (i = 0; i < qps; i++) {
		total += pairs[i].done;
		if (xrxedv_query_qp_counters(pairs[i].tx.qp, &c, sizeof(c)))
			die("pair %d has no doorbell-less send queue", i);
		sum.doorbells += c.doorbells;
		sum.doorbells_avoided += c.doorbells_avoided;
		sum.engine_wakeups += c.engine_wakeups;
		sum.busy_poll_hits += c.busy_poll_hits;
		sum.wqes_rejected += c.wqes_rejected;
		/* Every command reached the kernel, which agrees on its fate. */
		if (c.ll_posts != c.kernel_ll_posts || c.ll_accepted != c.kernel_ll_accepted ||
		    c.ll_errors || c.kernel_ll_rejected)
			die("pair %d: %" PRIu64 " commands sent, %" PRIu64 " received; %" PRIu64
			    " accepted, kernel says %" PRIu64 "; %" PRIu64 " errors, %" PRIu64
			    " rejected", i, c.ll_posts, c.kernel_ll_posts, c.ll_accepted,
			    c.kernel_ll_accepted, c.ll_errors, c.kernel_ll_rejected);
		sum.ll_posts += c.ll_posts;
		sum.ocu_maps += c.ocu_maps;
		sum.ocu_remaps += c.ocu_remaps;
		sum.ll_accepted += c.ll_accepted;
		sum.kernel_ll_dropped_order += c.kernel_ll_dropped_order;
		sum.kernel_ll_dropped_busy += c.kernel_ll_dropped_busy;
		sum.kernel_ll_dropped_full += c.kernel_ll_dropped_full;
		sum.kernel_ll_dropped_state += c.kernel_ll_dropped_state;
		sum.kernel_ll_dropped_forced += c.kernel_ll_dropped_forced;
	}
	printf("hunter: %d QPs in %d ordering domains, %d threads, %d s, bursts up to %d, "
	       "gaps up to %u us: %" PRIu64
	       " sends completed once, in order, with their payloads; doorbells %" PRIu64
	       ", avoided %" PRIu64 ", engine wake-ups %" PRIu64 ", busy-poll hits %" PRIu64
	       "; low-latency commands %" PRIu64 ", accepted %" PRIu64 ", dropped: order %"
	       PRIu64 ", busy %" PRIu64 ", full %" PRIu64 ", state %" PRIu64 ", forced %"
	       PRIu64 "; OCU maps %" PRIu64 ", OCU remaps %" PRIu64 "\n",
	       qps, domains, threads, secs, max_burst, max_gap_us, total, sum.doorbells,
	       sum.doorbells_avoided, sum.engine_wakeups, sum.busy_poll_hits,
	       sum.ll_posts, sum.ll_accepted, sum.kernel_ll_dropped_order,
	       sum.kernel_ll_dropped_busy, sum.kernel_ll_dropped_full,
	       sum.kernel_ll_dropped_state, sum.kernel_ll_dropped_forced,
	       sum.ocu_maps, sum.ocu_remaps);
	if (sum.wqes_rejected)
		die("%" PRIu64 " slots rejected", sum.wqes_rejected);
	if (ll_mode == XRXEDV_LL_NEVER && sum.ll_posts)
		die("mode never sent %" PRIu64 " commands", sum.ll_posts);
	if (ll_mode == XRXEDV_LL_ALWAYS && !sum.ll_posts)
		die("mode always sent no command");
	if (!total)
		die("no traffic");
	return 0;
}

/*
 * shared-qp: several threads post to one sender QP at once, through
 * ibv_post_send (a list, or one WR a post) and through the ibv_wr_* API,
 * RDMA writes of a tagged payload into a slot region of their own in the
 * receiver's memory, or sends. A WR's wr_id is its thread's number over
 * that thread's sequence. Whichever thread runs short of credit (its share
 * of the send queue outstanding) polls the send CQ under the poll lock:
 * every WR completes once, successfully, each thread's in that thread's
 * posting order (the send queue is FIFO). With sends, the poller takes as
 * many receives, in order per thread with their payloads, and posts them
 * again. Measure mode (-m): bursts of one, no gaps, WRs/s.
 */
#define SQ_DEPTH	512		/* send queue (and receive queue) depth */
#define SQ_PAYLOAD	32		/* bytes a WR carries */
#define SQ_SLOTS	64		/* a thread's slots in the receiver's memory */
#define SQ_TAG_SHIFT	48		/* wr_id: thread << SQ_TAG_SHIFT | sequence */
#define SQ_BATCH	32		/* completions a poll takes */

struct sq_shared;

struct sq_thread {
	struct sq_shared *s;
	int id;
	unsigned int seed;
	uint64_t posted;	/* WRs posted: the thread's own */
	uint64_t completed;	/* of them complete: the poller's, read atomically */
	uint64_t checked;	/* completions checked: the poller's */
	uint64_t received;	/* -o send: receives of its sends: the poller's */
	uint64_t by_post, by_wr;	/* WRs through ibv_post_send, ibv_wr_* */
	uint8_t *src;		/* its share of the sender's buffer */
};

struct sq_shared {
	struct ibv_qp *tx, *rx;
	struct ibv_qp_ex *qpx;
	struct ibv_cq *tx_cq, *rx_cq;
	struct ibv_mr *tx_mr, *rx_mr;
	uint8_t *tx_buf, *rx_buf;
	struct sq_thread *th;
	int threads, max_burst;
	uint64_t share;		/* WRs a thread may have outstanding */
	bool write, inl, measure;
	double deadline;
	pthread_mutex_t poll_lock;
	pthread_barrier_t go;
	uint64_t rx_posted, rx_done;	/* receives: the poller's */
};

static uint64_t sq_tag(int thread, uint64_t seq)
{
	return (uint64_t)thread << SQ_TAG_SHIFT | seq;
}

static uint8_t sq_fill_byte(uint64_t tag)
{
	return (uint8_t)(tag ^ (tag >> SQ_TAG_SHIFT) ^ 0x5a);
}

static void sq_fill(uint8_t *p, uint64_t tag)
{
	memcpy(p, &tag, sizeof(tag));
	memset(p + sizeof(tag), sq_fill_byte(tag), SQ_PAYLOAD - sizeof(tag));
}

/* The payload of tag at p, else what differs. */
static void sq_check_payload(const uint8_t *p, uint64_t tag, const char *where)
{
	uint64_t seen;
	size_t b;

	memcpy(&seen, p, sizeof(seen));
	if (seen != tag)
		die("%s: tag %#" PRIx64 ", expected %#" PRIx64, where, seen, tag);
	for (b = sizeof(tag); b < SQ_PAYLOAD; b++)
		if (p[b] != sq_fill_byte(tag))
			die("%s: byte %zu of tag %#" PRIx64 " is %#x, expected %#x", where,
			    b, tag, p[b], sq_fill_byte(tag));
}

static uint8_t *sq_slot(struct sq_shared *s, int thread, uint64_t seq)
{
	return s->rx_buf + ((size_t)thread * SQ_SLOTS + seq % SQ_SLOTS) * SQ_PAYLOAD;
}

static void sq_post_recvs(struct sq_shared *s, int n)
{
	struct ibv_recv_wr wr[SQ_BATCH], *bad;
	struct ibv_sge sge[SQ_BATCH];
	int i, ret;

	for (i = 0; i < n; i++) {
		uint64_t k = s->rx_posted + i;

		sge[i] = (struct ibv_sge){
			.addr = (uintptr_t)s->rx_buf + (k % SQ_DEPTH) * MSG,
			.length = MSG, .lkey = s->rx_mr->lkey };
		wr[i] = (struct ibv_recv_wr){ .wr_id = k, .sg_list = &sge[i], .num_sge = 1,
					      .next = i + 1 < n ? &wr[i + 1] : NULL };
	}
	ret = ibv_post_recv(s->rx, wr, &bad);
	if (ret)
		die("posting %d receives from %" PRIu64 ": %s", n, s->rx_posted, strerror(ret));
	s->rx_posted += n;
}

/*
 * -o send: the n receives the sends just completed took (the responder
 * completes a receive before it acknowledges the send), in each thread's
 * order with their payloads; posted again.
 */
static void sq_take_receives(struct sq_shared *s, int n)
{
	struct ibv_wc wc[SQ_BATCH];
	double deadline = now() + POLL_SECS;
	int got = 0, i, r;

	while (got < n) {
		r = ibv_poll_cq(s->rx_cq, n - got, wc + got);
		if (r < 0)
			die("polling the receive CQ");
		got += r;
		if (!r && now() > deadline)
			die("%d receives missing after %d s (from receive %" PRIu64 ")",
			    n - got, POLL_SECS, s->rx_done + got);
	}
	for (i = 0; i < n; i++) {
		uint64_t k = s->rx_done + i, tag;
		const uint8_t *p = s->rx_buf + (k % SQ_DEPTH) * MSG;
		struct sq_thread *t;
		char where[64];

		if (wc[i].status != IBV_WC_SUCCESS || wc[i].wr_id != k ||
		    wc[i].byte_len != SQ_PAYLOAD)
			die("receive %" PRIu64 ": status %d wr_id %" PRIu64 " length %u", k,
			    wc[i].status, wc[i].wr_id, wc[i].byte_len);
		memcpy(&tag, p, sizeof(tag));
		if ((tag >> SQ_TAG_SHIFT) >= (uint64_t)s->threads)
			die("receive %" PRIu64 ": tag %#" PRIx64 " of no thread", k, tag);
		t = &s->th[tag >> SQ_TAG_SHIFT];
		snprintf(where, sizeof(where), "receive %" PRIu64 " (thread %d)", k, t->id);
		sq_check_payload(p, sq_tag(t->id, t->received), where);
		t->received++;
	}
	s->rx_done += n;
	sq_post_recvs(s, n);
}

/*
 * With the poll lock held: a batch of the sender's completions, each the
 * next of its thread; then their threads' credit back. The number taken.
 */
static int sq_poll(struct sq_shared *s)
{
	struct ibv_wc wc[SQ_BATCH];
	int n, i;

	n = ibv_poll_cq(s->tx_cq, SQ_BATCH, wc);
	if (n < 0)
		die("polling the send CQ");
	if (!n)
		return 0;
	for (i = 0; i < n; i++) {
		uint64_t thread = wc[i].wr_id >> SQ_TAG_SHIFT;
		uint64_t seq = wc[i].wr_id & ((1ull << SQ_TAG_SHIFT) - 1);
		struct sq_thread *t;

		if (wc[i].status != IBV_WC_SUCCESS)
			die("WR %#" PRIx64 " (thread %" PRIu64 ", seq %" PRIu64 "): status %d (%s)",
			    wc[i].wr_id, thread, seq, wc[i].status,
			    ibv_wc_status_str(wc[i].status));
		if (thread >= (uint64_t)s->threads)
			die("completion of WR %#" PRIx64 ": no thread %" PRIu64, wc[i].wr_id,
			    thread);
		t = &s->th[thread];
		if (seq != t->checked)
			die("thread %d: WR %" PRIu64 " completed, expected %" PRIu64
			    " (%s)", t->id, seq, t->checked,
			    seq < t->checked ? "a second time, or out of order" :
			    "an earlier one lost, or out of order");
		if (wc[i].opcode != (s->write ? IBV_WC_RDMA_WRITE : IBV_WC_SEND))
			die("thread %d WR %" PRIu64 ": opcode %d", t->id, seq, wc[i].opcode);
		t->checked++;
	}
	if (!s->write)
		sq_take_receives(s, n);
	for (i = 0; i < s->threads; i++)
		__atomic_store_n(&s->th[i].completed, s->th[i].checked, __ATOMIC_RELEASE);
	return n;
}

/* Poll if no other thread does. */
static void sq_try_poll(struct sq_shared *s)
{
	if (pthread_mutex_trylock(&s->poll_lock)) {
		sched_yield();
		return;
	}
	sq_poll(s);
	pthread_mutex_unlock(&s->poll_lock);
}

static uint64_t sq_outstanding(const struct sq_thread *t)
{
	return t->posted - __atomic_load_n(&t->completed, __ATOMIC_ACQUIRE);
}

/* Until the thread may post n more: a lost completion ends the test. */
static void sq_wait_credit(struct sq_thread *t, uint64_t n)
{
	struct sq_shared *s = t->s;
	uint64_t seen = __atomic_load_n(&t->completed, __ATOMIC_ACQUIRE), c;
	double since = now();

	while (sq_outstanding(t) + n > s->share) {
		sq_try_poll(s);
		c = __atomic_load_n(&t->completed, __ATOMIC_ACQUIRE);
		if (c != seen) {
			seen = c;
			since = now();
		} else if (now() - since > POLL_SECS) {
			die("lost wake-up? thread %d: %" PRIu64 " WRs from seq %" PRIu64
			    " not complete after %d s", t->id, t->posted - c, c, POLL_SECS);
		}
	}
}

enum sq_how { SQ_LIST, SQ_ONE_BY_ONE, SQ_WR_API, NUM_SQ_HOW };

/* A burst of n WRs of thread t, its next sequence numbers, posted how. */
static void sq_post(struct sq_thread *t, int n, enum sq_how how)
{
	struct sq_shared *s = t->s;
	struct ibv_send_wr wr[DEPTH], *bad;
	struct ibv_sge sge[DEPTH];
	uint8_t scratch[DEPTH][SQ_PAYLOAD], *buf[DEPTH];
	unsigned int flags = IBV_SEND_SIGNALED | (s->inl ? IBV_SEND_INLINE : 0);
	int i, ret = 0;

	for (i = 0; i < n; i++) {
		uint64_t seq = t->posted + i;

		/* Free: seq - share completed before the credit came. */
		buf[i] = s->inl ? scratch[i] : t->src + (seq % s->share) * SQ_PAYLOAD;
		sq_fill(buf[i], sq_tag(t->id, seq));
		sge[i] = (struct ibv_sge){ .addr = (uintptr_t)buf[i], .length = SQ_PAYLOAD,
					   .lkey = s->tx_mr->lkey };
		wr[i] = (struct ibv_send_wr){
			.wr_id = sq_tag(t->id, seq), .sg_list = &sge[i], .num_sge = 1,
			.opcode = s->write ? IBV_WR_RDMA_WRITE : IBV_WR_SEND,
			.send_flags = flags, .next = i + 1 < n ? &wr[i + 1] : NULL };
		if (s->write) {
			wr[i].wr.rdma.remote_addr = (uintptr_t)sq_slot(s, t->id, seq);
			wr[i].wr.rdma.rkey = s->rx_mr->rkey;
		}
	}
	switch (how) {
	case SQ_LIST:
		ret = ibv_post_send(s->tx, wr, &bad);
		break;
	case SQ_ONE_BY_ONE:
		for (i = 0; i < n && !ret; i++) {
			wr[i].next = NULL;
			ret = ibv_post_send(s->tx, &wr[i], &bad);
		}
		break;
	default:
		/* wr_id and wr_flags live in the shared ibv_qp_ex: set under its lock. */
		ibv_wr_start(s->qpx);
		for (i = 0; i < n; i++) {
			s->qpx->wr_id = wr[i].wr_id;
			s->qpx->wr_flags = flags;
			if (s->write)
				ibv_wr_rdma_write(s->qpx, wr[i].wr.rdma.rkey,
						  wr[i].wr.rdma.remote_addr);
			else
				ibv_wr_send(s->qpx);
			if (s->inl)
				ibv_wr_set_inline_data(s->qpx, buf[i], SQ_PAYLOAD);
			else
				ibv_wr_set_sge(s->qpx, s->tx_mr->lkey, (uintptr_t)buf[i],
					       SQ_PAYLOAD);
		}
		ret = ibv_wr_complete(s->qpx);
		break;
	}
	if (ret)
		die("thread %d: posting %d WRs from seq %" PRIu64 " (%s) with %" PRIu64
		    " outstanding: %s", t->id, n, t->posted,
		    how == SQ_WR_API ? "ibv_wr_*" : how == SQ_LIST ? "a list" : "one by one",
		    sq_outstanding(t), strerror(ret));
	/* Inline data is the post's copy: a later read would show. */
	if (s->inl)
		memset(scratch, 0xee, sizeof(scratch[0]) * n);
	t->posted += n;
	if (how == SQ_WR_API)
		t->by_wr += n;
	else
		t->by_post += n;
}

static void *sq_run(void *arg)
{
	struct sq_thread *t = arg;
	struct sq_shared *s = t->s;

	pthread_barrier_wait(&s->go);
	while (now() < s->deadline) {
		int n = s->measure ? 1 : 1 + rand_r(&t->seed) % s->max_burst;
		enum sq_how how = rand_r(&t->seed) % NUM_SQ_HOW;

		if (!s->measure) {
			/* No gap, a short one, or one past the engine's going idle. */
			switch (rand_r(&t->seed) % 4) {
			case 1: usleep(rand_r(&t->seed) % 50); break;
			case 2: usleep(rand_r(&t->seed) % 1000); break;
			}
		}
		sq_wait_credit(t, n);
		sq_post(t, n, how);
		/* Half the share out: help drain before anyone runs dry. */
		if (sq_outstanding(t) >= s->share / 2)
			sq_try_poll(s);
	}
	sq_wait_credit(t, s->share);	/* all its WRs complete */
	return NULL;
}

static const char *ll_mode_name(int mode)
{
	return mode == XRXEDV_LL_IDLE ? "idle" : mode == XRXEDV_LL_ALWAYS ? "always" :
	       mode == XRXEDV_LL_NEVER ? "never" : "default";
}

static int cmd_shared_qp(int argc, char **argv)
{
	int threads = 4, secs = 5, max_burst = 8, ll_mode = -1, opt, i, ret;
	bool write = true, inl = false, measure = false;
	struct sq_shared s = {};
	struct ibv_qp_init_attr_ex tx_attr = {
		.cap = { .max_send_wr = SQ_DEPTH, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1, .max_inline_data = MSG },
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
		.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE,
	};
	struct ibv_qp_init_attr rx_attr = {
		.cap = { .max_send_wr = 1, .max_recv_wr = SQ_DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_wc wc;
	struct xrxedv_qp_counters c;
	uint64_t total = 0, by_post = 0, by_wr = 0;
	size_t rx_len;
	pthread_t *tid;
	double start, elapsed;

	while ((opt = getopt(argc, argv, "t:s:l:o:b:im")) != -1) {
		switch (opt) {
		case 't': threads = atoi(optarg); break;
		case 's': secs = atoi(optarg); break;
		case 'b': max_burst = atoi(optarg); break;
		case 'i': inl = true; break;
		case 'm': measure = true; break;
		case 'o':
			if (strcmp(optarg, "send") && strcmp(optarg, "write"))
				die("-o takes send or write, not '%s'", optarg);
			write = !strcmp(optarg, "write");
			break;
		case 'l':
			ll_mode = !strcmp(optarg, "idle") ? XRXEDV_LL_IDLE :
				  !strcmp(optarg, "always") ? XRXEDV_LL_ALWAYS :
				  !strcmp(optarg, "never") ? XRXEDV_LL_NEVER : -2;
			if (ll_mode == -2)
				die("-l takes idle, always or never, not '%s'", optarg);
			break;
		default:
			die("shared-qp [-t THREADS] [-s SECONDS] [-l idle|always|never] "
			    "[-o send|write] [-b MAX_BURST] [-i] [-m]");
		}
	}
	if (measure)
		max_burst = 1;
	if (threads < 1 || secs < 1)
		die("need a thread and a second");
	if (max_burst < 1 || max_burst > DEPTH || (uint64_t)max_burst * threads > SQ_DEPTH)
		die("-b takes 1 to %d WRs, and THREADS x MAX_BURST at most %d", DEPTH,
		    SQ_DEPTH);
	s = (struct sq_shared){ .threads = threads, .max_burst = max_burst,
				.share = SQ_DEPTH / threads, .write = write, .inl = inl,
				.measure = measure };
	pthread_mutex_init(&s.poll_lock, NULL);
	pthread_barrier_init(&s.go, NULL, threads + 1);

	/* The pair: the sender with the ibv_wr_* API, the receiver writable. */
	s.tx_cq = ibv_create_cq(ctx, 2 * SQ_DEPTH, NULL, NULL, 0);
	s.rx_cq = ibv_create_cq(ctx, 2 * SQ_DEPTH, NULL, NULL, 0);
	rx_len = (size_t)threads * SQ_SLOTS * SQ_PAYLOAD;
	if (rx_len < (size_t)SQ_DEPTH * MSG)
		rx_len = (size_t)SQ_DEPTH * MSG;
	s.tx_buf = calloc(SQ_DEPTH, SQ_PAYLOAD);
	s.rx_buf = calloc(1, rx_len);
	if (!s.tx_cq || !s.rx_cq || !s.tx_buf || !s.rx_buf)
		die("CQs or buffers");
	s.tx_mr = ibv_reg_mr(pd, s.tx_buf, SQ_DEPTH * SQ_PAYLOAD, IBV_ACCESS_LOCAL_WRITE);
	s.rx_mr = ibv_reg_mr(pd, s.rx_buf, rx_len,
			     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	tx_attr.send_cq = tx_attr.recv_cq = s.tx_cq;
	rx_attr.send_cq = rx_attr.recv_cq = s.rx_cq;
	s.tx = ibv_create_qp_ex(ctx, &tx_attr);
	s.rx = ibv_create_qp(pd, &rx_attr);
	if (!s.tx_mr || !s.rx_mr || !s.tx || !s.rx)
		die("MRs or QPs: %s", strerror(errno));
	s.qpx = ibv_qp_to_qp_ex(s.tx);
	if (!s.qpx)
		die("the sender has no ibv_qp_ex");
	if (xrxedv_query_qp_counters(s.tx, &c, sizeof(c)))
		die("the sender has no doorbell-less send queue");
	if (ll_mode >= 0 && (ret = xrxedv_qp_set_ll_mode(s.tx, ll_mode)))
		die("the sender has no low-latency posting: %s", strerror(ret));
	to_rts_access(s.tx, s.rx->qp_num, IBV_ACCESS_LOCAL_WRITE);
	to_rts_access(s.rx, s.tx->qp_num, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!write)
		for (i = 0; i < SQ_DEPTH; i += SQ_BATCH)
			sq_post_recvs(&s, SQ_BATCH);

	s.th = calloc(threads, sizeof(*s.th));
	tid = calloc(threads, sizeof(*tid));
	if (!s.th || !tid)
		die("threads");
	for (i = 0; i < threads; i++) {
		s.th[i] = (struct sq_thread){ .s = &s, .id = i, .seed = 4321 + i,
					      .src = s.tx_buf + i * s.share * SQ_PAYLOAD };
		if (pthread_create(&tid[i], NULL, sq_run, &s.th[i]))
			die("thread %d", i);
	}
	start = now();
	s.deadline = start + secs;
	pthread_barrier_wait(&s.go);
	for (i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	elapsed = now() - start;

	/* Nothing more: no WR completed twice, no receive left over. */
	if (ibv_poll_cq(s.tx_cq, 1, &wc))
		die("a completion after all WRs completed: wr_id %#" PRIx64 " status %d",
		    wc.wr_id, wc.status);
	if (!write && ibv_poll_cq(s.rx_cq, 1, &wc))
		die("a receive completed after all sends: wr_id %" PRIu64 " status %d",
		    wc.wr_id, wc.status);
	for (i = 0; i < threads; i++) {
		struct sq_thread *t = &s.th[i];
		uint64_t seq, first = t->posted > SQ_SLOTS ? t->posted - SQ_SLOTS : 0;
		char where[64];

		if (t->checked != t->posted)
			die("thread %d: %" PRIu64 " posted, %" PRIu64 " completed", i,
			    t->posted, t->checked);
		if (!write && t->received != t->posted)
			die("thread %d: %" PRIu64 " sent, %" PRIu64 " received", i, t->posted,
			    t->received);
		/* Its last writes, each in its slot. */
		for (seq = first; write && seq < t->posted; seq++) {
			snprintf(where, sizeof(where), "thread %d slot of seq %" PRIu64, i, seq);
			sq_check_payload(sq_slot(&s, i, seq), sq_tag(i, seq), where);
		}
		if (!t->posted)
			die("thread %d posted nothing", i);
		total += t->posted;
		by_post += t->by_post;
		by_wr += t->by_wr;
	}
	if (xrxedv_query_qp_counters(s.tx, &c, sizeof(c)))
		die("counters");
	printf("shared-qp: threads %d, op %s, ll %s, bursts 1-%d, inline %s, %s, %.2f s: "
	       "WRs %" PRIu64 " (ibv_post_send %" PRIu64 ", ibv_wr %" PRIu64 "), "
	       "WRs/s %.0f; doorbells %" PRIu64 ", avoided %" PRIu64 ", engine wake-ups %"
	       PRIu64 "; ll posts %" PRIu64 ", accepted %" PRIu64 ", dropped: order %" PRIu64
	       ", busy %" PRIu64 ", full %" PRIu64 ", state %" PRIu64 ", forced %" PRIu64 "\n",
	       threads, write ? "write" : "send", ll_mode_name(ll_mode), max_burst,
	       inl ? "yes" : "no", measure ? "measure" : "stress", elapsed, total, by_post,
	       by_wr, total / elapsed, c.doorbells, c.doorbells_avoided, c.engine_wakeups,
	       c.ll_posts, c.ll_accepted, c.kernel_ll_dropped_order,
	       c.kernel_ll_dropped_busy, c.kernel_ll_dropped_full,
	       c.kernel_ll_dropped_state, c.kernel_ll_dropped_forced);
	/* Every command reached the kernel, which agrees on its fate. */
	if (c.ll_posts != c.kernel_ll_posts || c.ll_accepted != c.kernel_ll_accepted ||
	    c.ll_errors || c.kernel_ll_rejected)
		die("%" PRIu64 " commands sent, %" PRIu64 " received; %" PRIu64
		    " accepted, kernel says %" PRIu64 "; %" PRIu64 " errors, %" PRIu64
		    " rejected", c.ll_posts, c.kernel_ll_posts, c.ll_accepted,
		    c.kernel_ll_accepted, c.ll_errors, c.kernel_ll_rejected);
	if (c.wqes_rejected)
		die("%" PRIu64 " slots rejected", c.wqes_rejected);
	if (ll_mode == XRXEDV_LL_NEVER && c.ll_posts)
		die("mode never sent %" PRIu64 " commands", c.ll_posts);
	if (ll_mode == XRXEDV_LL_ALWAYS && !c.ll_posts)
		die("mode always sent no command");
	if (!by_post || !by_wr)
		die("a posting path went unused: ibv_post_send %" PRIu64 ", ibv_wr %" PRIu64,
		    by_post, by_wr);
	if (ibv_destroy_qp(s.tx) || ibv_destroy_qp(s.rx) || ibv_dereg_mr(s.tx_mr) ||
	    ibv_dereg_mr(s.rx_mr) || ibv_destroy_cq(s.tx_cq) || ibv_destroy_cq(s.rx_cq))
		die("teardown");
	return 0;
}

/* Hostile ring: damage the slot after a valid post; only that QP fails. */
enum damage { BAD_OPCODE, HUGE_NUM_SGE, LONG_INLINE, BAD_FLAGS, REG_MR,
	      GARBAGE, NUM_DAMAGE };
static const char *const damage_name[] = {
	"bad opcode", "huge num_sge", "inline beyond max_inline", "unknown flags",
	"REG_MR with a kernel pointer", "random bytes",
};

static uint64_t rejected_total(struct ibv_qp *qp)
{
	struct xrxedv_qp_counters c;

	if (xrxedv_query_qp_counters(qp, &c, sizeof(c)))
		die("no doorbell-less send queue");
	return c.wqes_rejected;
}

/* The provider's view of the doorbell-less send queue info describes. */
static struct xrxe_dbl_sq dbl_of(const struct xrxedv_sq_info *info)
{
	return (struct xrxe_dbl_sq){
		.ring = info->ring, .status = (struct xrxe_qp_status *)info->status,
		.log2_slots = info->log2_slots, .log2_slot_size = info->log2_slot_size,
	};
}

/* Slot index of the ring, addressed as the provider does. */
static struct xrxe_sq_slot *slot_of(const struct xrxedv_sq_info *info, uint32_t index)
{
	const struct xrxe_dbl_sq d = dbl_of(info);

	return xrxe_dbl_slot(&d, index);
}

/* Slots the engine has taken so far, read as the provider reads it. */
static uint32_t fetched_now(const struct xrxedv_sq_info *info)
{
	const struct xrxe_dbl_sq d = dbl_of(info);

	return xrxe_dbl_fetched(&d);
}

/* Hand slot s to the engine with generation gen, valid or not. */
static void publish_gen(struct xrxe_sq_slot *s, uint32_t gen)
{
	/* As the provider does: the WQE before the generation that validates
	 * it, for the engine's acquire load of gen.
	 */
	__atomic_store_n(&s->gen, gen, __ATOMIC_RELEASE);
}

static void damage_slot(struct xrxe_sq_slot *s, enum damage how, uint32_t gen,
			unsigned int *seed)
{
	struct rxe_send_wqe *w = &s->wqe;
	size_t i;

	memset(w, 0, sizeof(*w));
	w->wr.wr_id = 0xbad0000 + how;
	w->wr.opcode = IBV_WR_SEND;
	w->wr.send_flags = IBV_SEND_SIGNALED;
	w->dma.num_sge = 1;
	switch (how) {
	case BAD_OPCODE:
		w->wr.opcode = 0xee;
		break;
	case HUGE_NUM_SGE:
		w->dma.num_sge = 0xffffffff;
		break;
	case LONG_INLINE:
		w->wr.send_flags |= IBV_SEND_INLINE;
		w->dma.length = 1u << 30;
		break;
	case BAD_FLAGS:
		w->wr.send_flags = 0xfff0;
		break;
	case REG_MR:
		/* The kernel's IB_WR_REG_MR, whose first word is a struct ib_mr *. */
		w->wr.opcode = KERNEL_IB_WR_REG_MR;
		w->wr.wr.rdma.remote_addr = 0xffffffffdeadbeefull;
		break;
	case GARBAGE:
		for (i = 0; i < sizeof(*w); i++)
			((uint8_t *)w)[i] = rand_r(seed);
		w->wr.opcode = 0xf0 | (rand_r(seed) & 0xf);
		break;
	default:
		break;
	}
	/* Published like a real slot: the kernel must not trust it anyway. */
	publish_gen(s, gen);
}

static void traffic_ok(struct pair *p, const char *who)
{
	int ret = post_sends(p, 4);

	if (ret)
		die("%s: posting a burst: %s", who, strerror(ret));
	check_burst(p, 4, -1);
}

static int cmd_hostile(void)
{
	struct pair victim, bystander;
	unsigned int seed = 42;
	int how;

	make_pair(&bystander);
	for (how = 0; how < NUM_DAMAGE; how++) {
		struct xrxedv_sq_info info;
		struct ibv_wc wc[4];
		uint32_t next;
		uint64_t before;
		int got, i, found = 0;

		make_pair(&victim);
		traffic_ok(&victim, "victim before");
		if (xrxedv_query_sq(victim.tx.qp, &info, sizeof(info)))
			die("victim has no doorbell-less send queue");
		next = fetched_now(&info);
		before = rejected_total(victim.tx.qp);
		/* The slot after the next post's gets the damage first. */
		damage_slot(slot_of(&info, next + 1), how,
			    xrxe_sq_gen(next + 1, info.log2_slots), &seed);
		post_sends(&victim, 1);
		got = poll_n(victim.tx.cq, wc, 2);
		for (i = 0; i < got; i++)
			if (wc[i].wr_id == 0xbad0000u + how &&
			    wc[i].status == IBV_WC_LOC_QP_OP_ERR)
				found = 1;
		if (!found && how != GARBAGE)
			die("%s: no LOC_QP_OP_ERR completion for the damaged slot",
			    damage_name[how]);
		if (got < 2)
			die("%s: %d completions, expected the valid send and the damaged slot",
			    damage_name[how], got);
		if (rejected_total(victim.tx.qp) != before + 1)
			die("%s: rejects not counted", damage_name[how]);
		traffic_ok(&bystander, "bystander");
		printf("hostile: %s: rejected, victim completed with error, bystander fine\n",
		       damage_name[how]);
	}
	return 0;
}

/* Stale generation: a slot from an earlier lap is never taken. */
static int cmd_stale(void)
{
	struct xrxedv_sq_info info;
	struct pair p;
	uint32_t next, slots;
	struct xrxe_sq_slot *s;

	make_pair(&p);
	if (xrxedv_query_sq(p.tx.qp, &info, sizeof(info)))
		die("no doorbell-less send queue");
	slots = 1u << info.log2_slots;
	traffic_ok(&p, "before");
	next = fetched_now(&info);
	s = slot_of(&info, next + 1);
	/* A WQE in the slot after the next post's, but of the previous lap. */
	memset(&s->wqe, 0, sizeof(s->wqe));
	s->wqe.wr.opcode = 0xee;
	publish_gen(s, xrxe_sq_gen(next + 1 - slots, info.log2_slots));
	traffic_ok(&p, "after a stale slot");
	if (rejected_total(p.tx.qp))
		die("a stale slot was taken");
	printf("hostile: stale generation: ignored\n");
	return 0;
}

/*
 * The status page is the kernel's to write: the provider's read-only
 * mapping cannot be made writable, so no garbage can reach it.
 */
static int cmd_status_readonly(void)
{
	struct xrxedv_sq_info info;
	struct pair victim;
	long page = sysconf(_SC_PAGESIZE);

	make_pair(&victim);
	traffic_ok(&victim, "victim before");
	if (xrxedv_query_sq(victim.tx.qp, &info, sizeof(info)))
		die("no doorbell-less send queue");
	if (!mprotect((void *)info.status, page, PROT_READ | PROT_WRITE))
		die("the status page could be made writable");
	if (errno != EACCES)
		die("mprotect of the status page: %s, expected EACCES", strerror(errno));
	traffic_ok(&victim, "victim after");
	printf("hostile: status page: cannot be made writable (EACCES)\n");
	return 0;
}

/*
 * The query calls take the caller's struct size: one shorter than the first
 * release's struct is EINVAL; a longer one (a program built against a later
 * xrxedv.h) gets the fields this library does not know zeroed, and nothing
 * past the size it gave is written.
 */
static void check_query_sizes(struct ibv_qp *qp)
{
	struct {
		struct xrxedv_qp_counters c;
		uint8_t later[16];
		uint8_t beyond[16];
	} counters;
	struct {
		struct xrxedv_sq_info i;
		uint8_t later[16];
		uint8_t beyond[16];
	} sq;
	/* The first release's counters end with engine_turns. */
	const size_t counters_v1 = offsetof(struct xrxedv_qp_counters, engine_turns) +
				   sizeof(counters.c.engine_turns);
	size_t k;

	memset(&counters, 0xa5, sizeof(counters));
	memset(&sq, 0xa5, sizeof(sq));
	if (xrxedv_query_qp_counters(qp, &counters.c, sizeof(counters.c) + sizeof(counters.later)) ||
	    xrxedv_query_sq(qp, &sq.i, sizeof(sq.i) + sizeof(sq.later)))
		die("queries with a longer struct failed");
	for (k = 0; k < sizeof(counters.later); k++)
		if (counters.later[k] || sq.later[k] || counters.beyond[k] != 0xa5 ||
		    sq.beyond[k] != 0xa5)
			die("a longer struct: byte %zu after ours not zeroed, or one beyond it written",
			    k);
	if (counters.c.engine_turns == 0xa5a5a5a5a5a5a5a5ull || sq.i.ring == NULL)
		die("a longer struct was not filled");
	/*
	 * A program built against the first release passes its smaller
	 * counters: filled up to its end, nothing written past it.
	 */
	memset(&counters, 0xa5, sizeof(counters));
	if (xrxedv_query_qp_counters(qp, &counters.c, counters_v1))
		die("the first release's struct size failed");
	for (k = counters_v1; k < sizeof(counters); k++)
		if (((uint8_t *)&counters)[k] != 0xa5)
			die("the first release's struct: byte %zu past its end written", k);
	if (xrxedv_query_qp_counters(qp, &counters.c, counters_v1 - 1) != EINVAL ||
	    xrxedv_query_sq(qp, &sq.i, sizeof(sq.i) - 1) != EINVAL)
		die("a struct shorter than the first release's is not EINVAL");
}

/* A module parameter's value, as the kernel shows it. */
static unsigned int module_param_value(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/rdma_xrxe/parameters/%s", name);
	return read_number_file(path);
}

/*
 * A connected QP is on the OCU its flow hashes to, as the ABI header's
 * rules say, and on no engine before its first turn; after traffic, on
 * one of the table's engines, with its OCU mapped at least once.
 */
static void check_placement(struct pair *p)
{
	unsigned int ocus = module_param_value("ocus");
	unsigned int mode = module_param_value("ocu_mode");
	struct xrxedv_qp_counters c;
	uint32_t want;

	want = xrxe_ocu_index(xrxe_ocu_flow_hash(gid.raw, p->rx.qp->qp_num),
			      xrxe_ocu_slice_first(ocus, 0, mode),
			      xrxe_ocu_slice_size(ocus));
	if (xrxedv_query_qp_counters(p->tx.qp, &c, sizeof(c)))
		die("counters");
	if (c.ocu != want || c.engine != XRXEDV_UNKNOWN || c.ocu_maps)
		die("new QP: OCU %u engine %u maps %" PRIu64 ", expected OCU %u, no engine, "
		    "no map", c.ocu, c.engine, c.ocu_maps, want);
	traffic_ok(p, "placement");
	xrxedv_query_qp_counters(p->tx.qp, &c, sizeof(c));
	if (c.ocu != want || c.engine >= XRXE_OCU_MAX_ENGINES || c.ocu_maps < 1 ||
	    c.ocu_remaps > c.ocu_maps)
		die("after traffic: OCU %u engine %u maps %" PRIu64 " remaps %" PRIu64,
		    c.ocu, c.engine, c.ocu_maps, c.ocu_remaps);
}

/* Per-QP controls: ALWAYS rings every post; bad modes and QPs refused. */
static int cmd_controls(void)
{
	struct xrxedv_qp_counters c;
	struct pair p, placed;

	make_pair(&placed);
	check_placement(&placed);
	make_pair(&p);
	if (xrxedv_qp_set_doorbell_mode(p.tx.qp, XRXEDV_DOORBELL_ALWAYS))
		die("set ALWAYS");
	traffic_ok(&p, "always");
	traffic_ok(&p, "always");
	if (xrxedv_query_qp_counters(p.tx.qp, &c, sizeof(c)) || c.doorbells != 2 || c.doorbells_avoided)
		die("ALWAYS: %" PRIu64 " doorbells, %" PRIu64 " avoided for 2 posts",
		    c.doorbells, c.doorbells_avoided);
	check_query_sizes(p.tx.qp);
	if (xrxedv_qp_set_doorbell_mode(p.tx.qp, 7) != EINVAL)
		die("an unknown mode is not EINVAL");
	if (xrxedv_qp_set_doorbell_mode(NULL, XRXEDV_DOORBELL_AUTO) != EOPNOTSUPP)
		die("a NULL QP is not EOPNOTSUPP");
	if (xrxedv_qp_set_doorbell_mode(p.tx.qp, XRXEDV_DOORBELL_AUTO))
		die("set AUTO");
	traffic_ok(&p, "auto");

	/* A QP's own busy-poll window of a second: posts after the first
	 * find the engine still watching.
	 */
	if (xrxedv_qp_set_engine_idle(p.tx.qp, XRXE_MAX_ENGINE_IDLE_US))
		die("set engine idle");
	xrxedv_query_qp_counters(p.tx.qp, &c, sizeof(c));
	{
		uint64_t rung = c.doorbells, avoided = c.doorbells_avoided;

		traffic_ok(&p, "busy-poll");
		traffic_ok(&p, "busy-poll");
		traffic_ok(&p, "busy-poll");
		xrxedv_query_qp_counters(p.tx.qp, &c, sizeof(c));
		/* One second covers a burst and its completions, even on a
		 * loaded host: at least one post finds the engine watching.
		 */
		if (c.doorbells_avoided - avoided < 1 || c.doorbells - rung > 2)
			die("per-QP busy-poll: %" PRIu64 " rung, %" PRIu64 " avoided of 3 posts",
			    c.doorbells - rung, c.doorbells_avoided - avoided);
	}
	if (xrxedv_qp_set_engine_idle(p.tx.qp, -2) != EINVAL ||
	    xrxedv_qp_set_engine_idle(p.tx.qp, XRXE_MAX_ENGINE_IDLE_US + 1) != EINVAL)
		die("an out-of-range idle window is not EINVAL");
	if (xrxedv_qp_set_engine_idle(p.tx.qp, -1))
		die("back to the module's window");
	printf("controls: a QP on the OCU its flow hashes to; ALWAYS rang every post; "
	       "per-QP busy-poll saved doorbells; bad values EINVAL; no QP EOPNOTSUPP; "
	       "query struct sizes honoured\n");
	return 0;
}

/* The engine threads the module runs: one completion vector each. */
static unsigned int engine_threads(void)
{
	unsigned int n = 0;
	struct dirent *de;
	char path[300], comm[64];
	DIR *d = opendir("/proc");
	FILE *f;

	if (!d)
		die("cannot read /proc");
	while ((de = readdir(d))) {
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strncmp(comm, "xrxe_engine/", 12))
			n++;
		fclose(f);
	}
	closedir(d);
	return n;
}

static struct xrxedv_qp_counters counters_of(struct ibv_qp *qp)
{
	struct xrxedv_qp_counters c;

	if (xrxedv_query_qp_counters(qp, &c, sizeof(c)))
		die("counters");
	return c;
}

/*
 * The OCU qp's status page shows once a move asked for has happened: at
 * once, or when the engine finishes the turn that completed its last WQE.
 */
static uint32_t ocu_settled(struct ibv_qp *qp, uint32_t want)
{
	uint32_t ocu = counters_of(qp).ocu;
	int i;

	for (i = 0; ocu != want && i < 200; i++) {
		usleep(10000);
		ocu = counters_of(qp).ocu;
	}
	return ocu;
}

/* OCU ocu is in the slice of class 0 and mode, or dies saying what. */
static void check_slice(uint32_t ocu, unsigned int mode, const char *what)
{
	unsigned int ocus = module_param_value("ocus");
	uint32_t first = xrxe_ocu_slice_first(ocus, 0, mode);

	if (ocu < first || ocu >= first + xrxe_ocu_slice_size(ocus))
		die("%s: OCU %u is not in the %s slice [%u, %u)", what, ocu,
		    mode == XRXE_OCU_STATIC ? "static" : "dynamic", first,
		    first + xrxe_ocu_slice_size(ocus));
}

/*
 * xrxedv_qp_set_ocu(): ordering domains shared within a context and not
 * across contexts, kept past RTR; each mode's slice; completion vectors,
 * one per engine, steering a QP to their engine; EBUSY while a send is in
 * flight, and nothing changed by it; bad arguments refused.
 */
static int cmd_ocu_placement(void)
{
	unsigned int ocus = module_param_value("ocus");
	unsigned int module_mode = module_param_value("ocu_mode") ? 1 : 0;
	unsigned int engines = engine_threads(), v, differ = 0;
	struct ibv_context *ctx0 = ctx;
	struct ibv_pd *pd0 = pd;
	struct pair a, b, c, p;
	struct ibv_send_wr wr = { .wr_id = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	struct ibv_cq *cq;
	uint32_t d, want, ocu_a[8];
	int ret;

	/* One vector per engine, and no vector past them. */
	if (!engines || (unsigned int)ctx->num_comp_vectors != engines)
		die("%d completion vectors for %u engines", ctx->num_comp_vectors, engines);
	cq = ibv_create_cq(ctx, 4, NULL, NULL, engines);
	if (cq || errno != EINVAL)
		die("a CQ on vector %u of %u: %s", engines, engines,
		    cq ? "created" : strerror(errno));

	/* Two QPs of one domain share its OCU, also once connected. */
	make_pair_placed(&a, XRXEDV_OCU_MODULE, 7, 0);
	make_pair_placed(&b, XRXEDV_OCU_MODULE, 7, 0);
	if (counters_of(a.tx.qp).ocu != counters_of(b.tx.qp).ocu)
		die("domain 7: QPs on OCUs %u and %u", counters_of(a.tx.qp).ocu,
		    counters_of(b.tx.qp).ocu);
	check_slice(counters_of(a.tx.qp).ocu, module_mode, "domain 7");
	traffic_ok(&a, "domain");
	traffic_ok(&b, "domain");
	if (counters_of(a.tx.qp).ocu != counters_of(b.tx.qp).ocu)
		die("domain 7 after traffic: OCUs differ");

	/*
	 * Another context's domains are its own: of 8, some land elsewhere.
	 * A QP that never sent is off its engine: each move is at once.
	 */
	make_pair(&c);
	for (d = 1; d <= 8; d++) {
		if (xrxedv_qp_set_ocu(c.tx.qp, XRXEDV_OCU_MODULE, d))
			die("domain %u on an idle QP", d);
		ocu_a[d - 1] = counters_of(c.tx.qp).ocu;
	}
	traffic_ok(&c, "domain 8");
	open_device(ibv_get_device_name(ctx0->device));
	for (d = 1; d <= 8; d++) {
		make_pair_placed(&p, XRXEDV_OCU_MODULE, d, 0);
		differ += counters_of(p.tx.qp).ocu != ocu_a[d - 1];
	}
	traffic_ok(&p, "other context");
	ctx = ctx0;
	pd = pd0;
	if (!differ)
		die("8 domains of two contexts landed on the same 8 OCUs");

	/* Back to no domain: the flow's OCU, in the slice of each mode. */
	for (v = 0; v < 3; v++) {
		static const enum xrxedv_ocu_mode modes[] = {
			XRXEDV_OCU_STATIC, XRXEDV_OCU_DYNAMIC, XRXEDV_OCU_MODULE };
		unsigned int slice = modes[v] == XRXEDV_OCU_STATIC ? XRXE_OCU_STATIC :
				     modes[v] == XRXEDV_OCU_DYNAMIC ? XRXE_OCU_DYNAMIC :
				     module_mode;

		/* Its sends completed: its engine may still end their turn. */
		if (xrxedv_qp_set_ocu(a.tx.qp, modes[v], 0))
			die("mode %d on a QP with no send in flight", modes[v]);
		want = xrxe_ocu_index(xrxe_ocu_flow_hash(gid.raw, a.rx.qp->qp_num),
				      xrxe_ocu_slice_first(ocus, 0, slice),
				      xrxe_ocu_slice_size(ocus));
		if (ocu_settled(a.tx.qp, want) != want)
			die("mode %d: OCU %u after 2 s, expected %u", modes[v],
			    counters_of(a.tx.qp).ocu, want);
		traffic_ok(&a, "mode");
	}

	/* A send CQ's vector steers its QP to that engine. */
	for (v = 0; v < engines; v++) {
		struct xrxedv_qp_counters c;
		uint32_t first = xrxe_ocu_slice_first(ocus, 0, XRXE_OCU_STATIC);

		make_pair_placed(&p, XRXEDV_OCU_COMP_VECTOR, 0, v);
		c = counters_of(p.tx.qp);
		check_slice(c.ocu, XRXE_OCU_STATIC, "comp_vector");
		if (xrxe_ocu_static_engine(c.ocu - first, 0, engines) != v)
			die("vector %u: OCU %u is on engine %u", v, c.ocu,
			    xrxe_ocu_static_engine(c.ocu - first, 0, engines));
		traffic_ok(&p, "comp_vector");
		c = counters_of(p.tx.qp);
		if (c.engine != v)
			die("vector %u: served by engine %u", v, c.engine);
	}

	/*
	 * A send with no receive waits on RNR retries (rnr_retry 7): in
	 * flight, so the QP cannot move; once received, it can.
	 */
	make_pair(&p);
	want = counters_of(p.tx.qp).ocu;
	memcpy(p.tx.buf, "busy", 4);
	wr.sg_list = &(struct ibv_sge){ .addr = (uintptr_t)p.tx.buf, .length = MSG,
					.lkey = p.tx.mr->lkey };
	wr.num_sge = 1;
	if (ibv_post_send(p.tx.qp, &wr, &bad))
		die("post");
	usleep(100000);
	ret = xrxedv_qp_set_ocu(p.tx.qp, XRXEDV_OCU_STATIC, 99);
	if (ret != EBUSY || counters_of(p.tx.qp).ocu != want)
		die("a QP with a send in flight: %s, OCU %u (was %u); expected EBUSY, "
		    "unchanged", ret ? strerror(ret) : "moved", counters_of(p.tx.qp).ocu,
		    want);
	if (post_recv(&p.rx, 0) || poll_n(p.tx.cq, &wc, 1) != 1 ||
	    wc.status != IBV_WC_SUCCESS || poll_n(p.rx.cq, &wc, 1) != 1)
		die("the send that waited for its receive");
	if (xrxedv_qp_set_ocu(p.tx.qp, XRXEDV_OCU_STATIC, 99))
		die("the same QP once its send completed");

	if (xrxedv_qp_set_ocu(p.tx.qp, 4, 0) != EINVAL || xrxedv_qp_set_ocu(p.tx.qp, -1, 0) != EINVAL)
		die("an unknown OCU mode is not EINVAL");
	if (xrxedv_qp_set_ocu(NULL, XRXEDV_OCU_STATIC, 0) != EOPNOTSUPP)
		die("a NULL QP is not EOPNOTSUPP");
	traffic_ok(&p, "after EBUSY");
	printf("ocu-placement: %u completion vectors, one per engine, each steering a QP "
	       "to its engine; a domain's QPs share an OCU, past RTR; %u of 8 domains "
	       "of another context elsewhere; each mode's slice; EBUSY with a send in "
	       "flight, nothing moved; bad values EINVAL\n", engines, differ);
	return 0;
}

/*
 * XRXE_OCU_MODE, as this process got it, placed a new QP: static and
 * comp_vector (its CQ on vector 0) in the static slice, the latter on
 * engine 0; dynamic in the dynamic slice.
 */
static int cmd_ocu_env(void)
{
	const char *mode = getenv("XRXE_OCU_MODE");
	unsigned int ocus = module_param_value("ocus");
	struct xrxedv_qp_counters c;
	struct pair p;

	if (!mode)
		die("ocu-env needs XRXE_OCU_MODE");
	make_pair(&p);
	c = counters_of(p.tx.qp);
	if (!strcmp(mode, "dynamic")) {
		check_slice(c.ocu, XRXE_OCU_DYNAMIC, mode);
	} else if (!strcmp(mode, "static") || !strcmp(mode, "comp_vector")) {
		check_slice(c.ocu, XRXE_OCU_STATIC, mode);
		if (!strcmp(mode, "comp_vector") &&
		    xrxe_ocu_static_engine(c.ocu - xrxe_ocu_slice_first(ocus, 0, XRXE_OCU_STATIC),
					   0, engine_threads()))
			die("comp_vector: OCU %u is not on vector 0's engine", c.ocu);
	} else {
		die("ocu-env checks static, dynamic or comp_vector, not '%s'", mode);
	}
	traffic_ok(&p, mode);
	printf("ocu-env: XRXE_OCU_MODE=%s placed a new QP on OCU %u\n", mode, c.ocu);
	return 0;
}

/* A low-latency command, well formed or not, sent as the provider sends one. */
static int ll_raw(struct ibv_qp *qp, const void *cmd, size_t len, uint32_t *result)
{
	return xrxe_ll_ioctl(qp->context->cmd_fd, qp->handle, cmd, len, result);
}

/* An inline send of 8 bytes for ring index index: a well-formed command. */
struct ll_cmd8 {
	struct xrxe_ll_cmd c;
	uint8_t payload[MSG + 8];
};

static void ll_cmd8(struct ll_cmd8 *m, uint32_t index)
{
	union {
		struct rxe_send_wqe w;
		uint8_t bytes[sizeof(struct rxe_send_wqe) + 8];
	} wqe;

	memset(m, 0, sizeof(*m));
	memset(&wqe, 0, sizeof(wqe));
	wqe.w.wr.wr_id = 0x11000000 + index;
	wqe.w.wr.opcode = IBV_WR_SEND;
	wqe.w.wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	wqe.w.dma.length = 8;
	memset(wqe.w.dma.inline_data, 0x5a, 8);
	xrxe_ll_cmd_fill(&m->c, index, &wqe.w);
}

static uint32_t fetched_of(struct ibv_qp *qp, uint32_t *slots)
{
	struct xrxedv_sq_info info;

	if (xrxedv_query_sq(qp, &info, sizeof(info)))
		die("no doorbell-less send queue");
	*slots = 1u << info.log2_slots;
	return fetched_now(&info);
}

/*
 * Hostile low-latency commands: wrong sizes, inline beyond the limit, a bad
 * opcode, far-off ring positions, a QP in error. The kernel rings the
 * doorbell for each and succeeds, saying what it did: a malformed one is
 * rejected, one that is not next in ring order or is for a QP that cannot
 * send is dropped, and nothing runs; only a command shorter than its
 * header fails (EINVAL), refused by uverbs before the method runs. The QP
 * and a bystander keep working.
 */
static int cmd_ll_hostile(void)
{
	struct pair victim, bystander, broken;
	struct xrxedv_qp_counters c;
	struct ibv_qp_attr err_attr = { .qp_state = IBV_QPS_ERR };
	struct ibv_wc wc[2];
	struct ll_cmd8 m;
	uint32_t result, fetched, slots;
	const size_t good = sizeof(struct xrxe_ll_cmd) + 8;
	struct {
		const char *what;
		size_t len;
		int field;		/* 0 size only, 1 inline length, 2 opcode, 3 ahead, 4 behind */
		int err;		/* the ioctl's error, or 0 and this result: */
		uint32_t result;
	} bad[] = {
		{ "one byte too long", good + 1, 0, 0, XRXE_LL_REJECTED },
		{ "one byte too short", good - 1, 0, 0, XRXE_LL_REJECTED },
		{ "shorter than the header", 8, 0, EINVAL, 0 },
		{ "inline beyond max_inline", sizeof(struct xrxe_ll_cmd) + MSG + 1, 1, 0,
		  XRXE_LL_REJECTED },
		{ "bad opcode", good, 2, 0, XRXE_LL_REJECTED },
		{ "a ring ahead", good, 3, 0, XRXE_LL_DROPPED_ORDER },
		{ "behind the slot just taken", good, 4, 0, XRXE_LL_DROPPED_ORDER },
	};
	size_t i;
	int ret, rejected = 0;

	make_pair(&victim);
	make_pair(&bystander);
	traffic_ok(&victim, "victim before");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fetched = fetched_of(victim.tx.qp, &slots);
		ll_cmd8(&m, fetched);
		if (bad[i].field == 1)
			m.c.wqe.dma.length = MSG + 1;
		else if (bad[i].field == 2)
			m.c.wqe.wr.opcode = 0xee;
		else if (bad[i].field == 3)
			m.c.index = fetched + slots;
		else if (bad[i].field == 4)
			m.c.index = fetched - 2;
		result = UINT32_MAX;
		ret = ll_raw(victim.tx.qp, &m, bad[i].len, &result);
		if (ret != bad[i].err || (!ret && result != bad[i].result))
			die("ll-hostile: %s: %s, result %u; expected %s, result %u",
			    bad[i].what, ret ? strerror(ret) : "success", result,
			    bad[i].err ? strerror(bad[i].err) : "success", bad[i].result);
		if (!ret && result == XRXE_LL_REJECTED)
			rejected++;
		if (poll_n(victim.tx.cq, wc, 1) != 0)
			die("ll-hostile: %s: something completed", bad[i].what);
		printf("ll-hostile: %s: %s\n", bad[i].what,
		       ret ? strerror(ret) : result == XRXE_LL_REJECTED ? "rejected" : "dropped");
	}
	if (xrxedv_query_qp_counters(victim.tx.qp, &c, sizeof(c)) || c.kernel_ll_rejected != (uint64_t)rejected ||
	    c.kernel_ll_accepted)
		die("ll-hostile: %" PRIu64 " rejects counted for %d, %" PRIu64 " accepted",
		    c.kernel_ll_rejected, rejected, c.kernel_ll_accepted);

	/* Not next in ring order: dropped; the ring, which holds no new slot, is served. */
	fetched = fetched_of(victim.tx.qp, &slots);
	ll_cmd8(&m, fetched - 1);
	if (ll_raw(victim.tx.qp, &m, good, &result) || result != XRXE_LL_DROPPED_ORDER)
		die("ll-hostile: the slot just taken was not dropped (order)");
	ll_cmd8(&m, fetched + 1);
	if (ll_raw(victim.tx.qp, &m, good, &result) || result != XRXE_LL_DROPPED_ORDER)
		die("ll-hostile: a slot ahead was not dropped (order)");
	if (poll_n(victim.tx.cq, wc, 1) != 0)
		die("ll-hostile: a dropped command ran");
	printf("ll-hostile: positions not next in ring order: dropped, nothing ran\n");
	traffic_ok(&victim, "victim after");
	traffic_ok(&bystander, "bystander");

	/* A QP in error takes no command. */
	make_pair(&broken);
	traffic_ok(&broken, "before error");
	if (ibv_modify_qp(broken.tx.qp, &err_attr, IBV_QP_STATE))
		die("to ERR");
	fetched = fetched_of(broken.tx.qp, &slots);
	ll_cmd8(&m, fetched);
	ret = ll_raw(broken.tx.qp, &m, good, &result);
	if (ret || result != XRXE_LL_DROPPED_STATE)
		die("ll-hostile: a QP in error: %s, result %u, expected a state drop",
		    ret ? strerror(ret) : "success", result);
	if (xrxedv_query_qp_counters(broken.tx.qp, &c, sizeof(c)) || c.kernel_ll_dropped_state != 1)
		die("ll-hostile: a QP in error: state drop not counted");
	printf("ll-hostile: a QP in error: dropped (state)\n");
	traffic_ok(&bystander, "bystander");
	printf("ll-hostile: victim and bystander fine\n");
	return 0;
}

static void set_drop_every(unsigned int n)
{
	/* debugfs, mounted by the test that runs this one */
	FILE *f = fopen("/sys/kernel/debug/rdma_xrxe/ll_drop_every", "w");

	if (!f || fprintf(f, "%u\n", n) < 0 || fclose(f))
		die("cannot set ll_drop_every: %s", strerror(errno));
}

/* n sends, each posted alone and waited for. */
static void singles(struct pair *p, int n, unsigned int how)
{
	int i;

	for (i = 0; i < n; i++) {
		if (post_sends_how(p, 1, how | POST_ONE_BY_ONE))
			die("post_send");
		check_burst(p, 1, -1);
	}
}

/*
 * The modes with an engine that idles at once: never sends no command, idle
 * one per lone post, always one per post of one WR; lists never do. Forced
 * drops fall back to the ring and back off. Bad modes are refused.
 */
static int cmd_ll_modes(void)
{
	struct xrxedv_qp_counters c0, c;
	struct pair p;

	make_pair(&p);
	if (xrxedv_qp_set_ll_mode(p.tx.qp, XRXEDV_LL_NEVER))
		die("set never");
	singles(&p, 4, POST_INLINE);
	xrxedv_query_qp_counters(p.tx.qp, &c, sizeof(c));
	if (c.ll_posts || c.doorbells != 4)
		die("never: %" PRIu64 " commands, %" PRIu64 " doorbells for 4 posts",
		    c.ll_posts, c.doorbells);

	if (xrxedv_qp_set_ll_mode(p.tx.qp, XRXEDV_LL_IDLE))
		die("set idle");
	c0 = c;
	singles(&p, 2, POST_INLINE);
	singles(&p, 2, 0);
	xrxedv_query_qp_counters(p.tx.qp, &c, sizeof(c));
	if (c.ll_accepted - c0.ll_accepted != 4 || c.kernel_ll_accepted != 4 ||
	    c.doorbells != c0.doorbells)
		die("idle: %" PRIu64 " accepted (kernel %" PRIu64 "), %" PRIu64
		    " doorbells for 4 lone posts", c.ll_accepted - c0.ll_accepted,
		    c.kernel_ll_accepted, c.doorbells - c0.doorbells);

	if (xrxedv_qp_set_ll_mode(p.tx.qp, XRXEDV_LL_ALWAYS))
		die("set always");
	c0 = c;
	traffic_ok(&p, "always, a list");
	singles(&p, 2, POST_INLINE);
	xrxedv_query_qp_counters(p.tx.qp, &c, sizeof(c));
	if (c.ll_posts - c0.ll_posts != 2)
		die("always: %" PRIu64 " commands for a list and 2 lone posts",
		    c.ll_posts - c0.ll_posts);

	/* Every command dropped: the ring carries the posts; idle backs off. */
	if (xrxedv_qp_set_ll_mode(p.tx.qp, XRXEDV_LL_IDLE))
		die("set idle");
	c0 = c;
	set_drop_every(1);
	singles(&p, 4, POST_INLINE);
	set_drop_every(0);
	xrxedv_query_qp_counters(p.tx.qp, &c, sizeof(c));
	/* Commands at posts 1 and 3 (dropped), skips at 2 and 4 (back-off 1, 2). */
	if (c.kernel_ll_dropped_forced - c0.kernel_ll_dropped_forced != 2 ||
	    c.ll_dropped - c0.ll_dropped != 2 || c.doorbells - c0.doorbells != 2)
		die("forced drops: %" PRIu64 " dropped (provider %" PRIu64 "), %" PRIu64
		    " doorbells for 4 posts", c.kernel_ll_dropped_forced - c0.kernel_ll_dropped_forced,
		    c.ll_dropped - c0.ll_dropped, c.doorbells - c0.doorbells);

	if (xrxedv_qp_set_ll_mode(p.tx.qp, 7) != EINVAL)
		die("an unknown mode is not EINVAL");
	if (xrxedv_qp_set_ll_mode(NULL, XRXEDV_LL_IDLE) != EOPNOTSUPP)
		die("a NULL QP is not EOPNOTSUPP");
	printf("ll-modes: never 0 commands; idle 4 of 4 lone posts taken; always skips "
	       "lists; forced drops fell back to the ring and backed off; bad values refused\n");
	return 0;
}

/*
 * Raw uverbs write commands, for what libibverbs never sends: responses on
 * read-only pages, trailing driver data, doorbells with no WR.
 */
static int uverbs_write(int fd, uint32_t command, void *in, size_t in_len,
			size_t out_len)
{
	struct ib_uverbs_cmd_hdr *hdr = in;

	hdr->command = command;
	hdr->in_words = in_len / 4;
	hdr->out_words = out_len / 4;
	return write(fd, in, in_len) == (ssize_t)in_len ? 0 : errno;
}

/* A user QP created by hand: resp receives the core and driver response. */
static int raw_create_qp(struct ibv_cq *cq, enum ibv_qp_type type, const void *drv,
			 size_t drv_len, void *resp, size_t resp_len, uint32_t *handle)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_create_qp c;
		uint8_t drv[64];
	} req = {
		.c = { .response = (uintptr_t)resp, .pd_handle = pd->handle,
		       .send_cq_handle = cq->handle, .recv_cq_handle = cq->handle,
		       .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1,
		       .max_recv_sge = 1, .max_inline_data = 64, .qp_type = type },
	};
	int ret;

	memcpy(req.drv, drv, drv_len);
	ret = uverbs_write(ctx->cmd_fd, IB_USER_VERBS_CMD_CREATE_QP, &req,
			   sizeof(req.hdr) + sizeof(req.c) + drv_len, resp_len);
	if (!ret && handle)
		*handle = ((struct ib_uverbs_create_qp_resp *)resp)->qp_handle;
	return ret;
}

/* The doorbell of a user send queue: a post_send with no WRs. */
static int raw_doorbell(uint32_t handle)
{
	struct ib_uverbs_post_send_resp resp;
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send p;
	} req = {
		.p = { .response = (uintptr_t)&resp, .qp_handle = handle,
		       .wqe_size = sizeof(struct ib_uverbs_send_wr) },
	};

	return uverbs_write(ctx->cmd_fd, IB_USER_VERBS_CMD_POST_SEND, &req,
			    sizeof(req), sizeof(resp));
}

/*
 * A doorbell-less QP whose create response crosses into a read-only page
 * just before the ring's or the status page's mmap info: creation fails
 * half way, cleanly, and the device keeps working.
 */
static int cmd_create_fault(void)
{
	long page = sysconf(_SC_PAGESIZE);
	const struct xrxe_create_qp_cmd drv = { .flags = XRXE_QP_DBL_SQ };
	const size_t core = sizeof(struct ib_uverbs_create_qp_resp);
	const size_t at[] = {
		offsetof(struct xrxe_create_qp_resp, sq_ring_mi),
		offsetof(struct xrxe_create_qp_resp, status_mi),
		offsetof(struct xrxe_create_qp_resp, flags),
	};
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	uint8_t *mem;
	struct pair p;
	size_t i;
	int ret, round;

	mem = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED || !cq || mprotect(mem + page, page, PROT_READ))
		die("read-only page or cq");
	for (round = 0; round < 20; round++) {
		for (i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
			/* Everything before at[i] of the driver's part is writable. */
			uint8_t *resp = mem + page - core - at[i];

			ret = raw_create_qp(cq, IBV_QPT_RC, &drv, sizeof(drv), resp,
					    core + sizeof(struct xrxe_create_qp_resp), NULL);
			if (!ret)
				die("a create whose response is read-only at %zu succeeded",
				    at[i]);
			if (ret != EFAULT && ret != ENOMEM)
				die("create with a read-only response: %s", strerror(ret));
		}
	}
	make_pair(&p);
	traffic_ok(&p, "after failed creates");
	printf("hostile: create_qp failing half way (read-only response): %d refused, "
	       "device fine\n", round * (int)(sizeof(at) / sizeof(at[0])));
	return 0;
}

/*
 * Driver data a kernel does not know (trailing non-zero bytes) is refused
 * with EOPNOTSUPP, in create_qp, modify_qp and context negotiation, so
 * that later fields can be added safely.
 */
static int cmd_trailing(void)
{
	struct {
		struct xrxe_modify_qp_cmd c;
		uint64_t extra;
	} mod = { .c = { .comp_mask = 0 }, .extra = 1 };
	struct {
		struct xrxe_create_qp_cmd c;
		uint64_t extra;
	} create = { .c = { .flags = XRXE_QP_DBL_SQ }, .extra = 1 };
	uint8_t resp[256];
	struct ib_uverbs_modify_qp m = { .attr_mask = 0 };
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct pair p;
	int ret;

	make_pair(&p);
	ret = xrxe_raw_modify_qp(ctx->cmd_fd, p.tx.qp->handle, &m, &mod, sizeof(mod));
	if (ret != EOPNOTSUPP)
		die("modify_qp with trailing driver data: %s, expected EOPNOTSUPP",
		    ret ? strerror(ret) : "success");
	mod.extra = 0;
	ret = xrxe_raw_modify_qp(ctx->cmd_fd, p.tx.qp->handle, &m, &mod, sizeof(mod));
	if (ret)
		die("modify_qp with zero trailing data: %s", strerror(ret));
	ret = raw_create_qp(cq, IBV_QPT_RC, &create, sizeof(create), resp,
			    sizeof(struct ib_uverbs_create_qp_resp) +
			    sizeof(struct xrxe_create_qp_resp), NULL);
	if (ret != EOPNOTSUPP)
		die("create_qp with trailing driver data: %s, expected EOPNOTSUPP",
		    ret ? strerror(ret) : "success");
	traffic_ok(&p, "after refused driver data");
	printf("hostile: trailing driver data: EOPNOTSUPP in create_qp and modify_qp\n");
	return 0;
}

/* QP qp's WQEs coalesced so far. */
static uint64_t coalesced_of(struct ibv_qp *qp)
{
	return counters_of(qp).wqes_coalesced;
}

/*
 * Write coalescing's controls: xrxedv_qp_set_coalesce()'s errors, the
 * kernel's own checks of the driver data (reserved fields, a size without
 * its mask, a classic QP), and a slot whose fields claim a merged message
 * (what the kernel keeps in them for its own copies): the kernel ignores
 * them, and the WRITE lands alone.
 */
static int cmd_coalesce_controls(void)
{
	struct ib_uverbs_modify_qp m = { .attr_mask = 0 };
	struct xrxe_modify_qp_cmd mod;
	struct ibv_qp_init_attr ud_attr = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_UD,
	};
	const struct xrxe_create_qp_cmd classic = { .flags = 0 };
	struct ibv_qp_attr access = {
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
	};
	static const char data[8] = "forged!";
	struct xrxedv_sq_info info;
	struct pair p, bystander;
	struct rxe_send_wqe *w;
	struct ibv_mr *target;
	struct ibv_qp *ud;
	struct ibv_wc wc[2];
	uint8_t resp[256];
	uint32_t handle, next;
	uint64_t before;
	int ret;

	make_pair(&p);
	make_pair(&bystander);
	if (xrxedv_qp_set_coalesce(NULL, 64) != EOPNOTSUPP)
		die("a NULL QP is not EOPNOTSUPP");
	if (xrxedv_qp_set_coalesce(p.tx.qp, XRXE_COALESCE_MAX_BYTES + 1) != EINVAL)
		die("a size above XRXE_COALESCE_MAX_BYTES is not EINVAL");
	if (xrxedv_qp_set_coalesce(p.tx.qp, XRXE_COALESCE_MAX_BYTES) ||
	    xrxedv_qp_set_coalesce(p.tx.qp, 0) || xrxedv_qp_set_coalesce(p.tx.qp, 1))
		die("valid sizes refused");
	ud_attr.send_cq = ud_attr.recv_cq = p.tx.cq;
	ud = ibv_create_qp(pd, &ud_attr);
	if (!ud)
		die("UD QP: %s", strerror(errno));
	ret = xrxedv_qp_set_coalesce(ud, 64);
	if (ret != EOPNOTSUPP)
		die("a UD QP: %s, expected EOPNOTSUPP", ret ? strerror(ret) : "success");
	ibv_destroy_qp(ud);

	/* Driver data the library never sends. */
	mod = (struct xrxe_modify_qp_cmd){ .comp_mask = XRXE_MODIFY_QP_COALESCE,
					   .coalesce_max = XRXE_COALESCE_MAX_BYTES + 1 };
	ret = xrxe_raw_modify_qp(ctx->cmd_fd, p.tx.qp->handle, &m, &mod, sizeof(mod));
	if (ret != EINVAL)
		die("coalesce_max above the maximum: %s, expected EINVAL",
		    ret ? strerror(ret) : "success");
	mod = (struct xrxe_modify_qp_cmd){ .coalesce_max = 64 };
	if (xrxe_raw_modify_qp(ctx->cmd_fd, p.tx.qp->handle, &m, &mod, sizeof(mod)) != EINVAL)
		die("coalesce_max without its mask is not EINVAL");
	mod = (struct xrxe_modify_qp_cmd){ .comp_mask = XRXE_MODIFY_QP_COALESCE,
					   .coalesce_max = 64, .flush_domain = 1 };
	if (xrxe_raw_modify_qp(ctx->cmd_fd, p.tx.qp->handle, &m, &mod, sizeof(mod)) != EINVAL)
		die("a flush_domain without its mask is not EINVAL");
	if (raw_create_qp(p.tx.cq, IBV_QPT_RC, &classic, sizeof(classic), resp,
			  sizeof(struct ib_uverbs_create_qp_resp) +
			  sizeof(struct xrxe_create_qp_resp), &handle))
		die("a classic QP by hand");
	mod = (struct xrxe_modify_qp_cmd){ .comp_mask = XRXE_MODIFY_QP_COALESCE,
					   .coalesce_max = 64 };
	ret = xrxe_raw_modify_qp(ctx->cmd_fd, handle, &m, &mod, sizeof(mod));
	if (ret != EOPNOTSUPP)
		die("a classic QP: %s, expected EOPNOTSUPP", ret ? strerror(ret) : "success");
	/* A flush domain comes alone, on a doorbell-less RC QP. */
	mod = (struct xrxe_modify_qp_cmd){ .comp_mask = XRXE_MODIFY_QP_FLUSH_DOMAIN,
					   .flush_domain = 7 };
	if ((ret = xrxe_raw_modify_qp(ctx->cmd_fd, handle, &m, &mod, sizeof(mod))) != EOPNOTSUPP)
		die("a classic QP into a flush domain: %s, expected EOPNOTSUPP",
		    ret ? strerror(ret) : "success");
	mod.rate_limit_kbps = 1000;
	ret = xrxe_raw_modify_qp(ctx->cmd_fd, p.tx.qp->handle, &m, &mod, sizeof(mod));
	if (ret != EINVAL)
		die("a flush domain with rate fields: %s, expected EINVAL",
		    ret ? strerror(ret) : "success");
	mod.rate_limit_kbps = 0;
	mod.comp_mask |= XRXE_MODIFY_QP_ENGINE_IDLE;
	ret = xrxe_raw_modify_qp(ctx->cmd_fd, p.tx.qp->handle, &m, &mod, sizeof(mod));
	if (ret != EINVAL)
		die("a flush domain with another mask bit: %s, expected EINVAL",
		    ret ? strerror(ret) : "success");
	mod.comp_mask = XRXE_MODIFY_QP_FLUSH_DOMAIN;
	if (xrxe_raw_modify_qp(ctx->cmd_fd, p.tx.qp->handle, &m, &mod, sizeof(mod)) ||
	    xrxe_raw_modify_qp(ctx->cmd_fd, p.tx.qp->handle, &m, &(struct xrxe_modify_qp_cmd){
			  .comp_mask = XRXE_MODIFY_QP_FLUSH_DOMAIN }, sizeof(mod)))
		die("a flush domain joined and left by hand");

	/* A WRITE slot whose kernel-owned fields claim 63 merged WQEs. */
	if (xrxedv_qp_set_coalesce(p.tx.qp, XRXE_COALESCE_MAX_BYTES) ||
	    ibv_modify_qp(p.rx.qp, &access, IBV_QP_ACCESS_FLAGS))
		die("coalescing or remote access on");
	target = ibv_reg_mr(pd, p.rx.buf, MSG, IBV_ACCESS_LOCAL_WRITE |
			    IBV_ACCESS_REMOTE_WRITE);
	if (!target || xrxedv_query_sq(p.tx.qp, &info, sizeof(info)))
		die("target MR or send queue");
	traffic_ok(&p, "before the forged slot");
	before = coalesced_of(p.tx.qp);
	next = fetched_now(&info);
	w = &slot_of(&info, next + 1)->wqe;
	memset(w, 0, sizeof(*w));
	w->wr.wr_id = 0xf00d;
	w->wr.opcode = IBV_WR_RDMA_WRITE;
	w->wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	w->wr.reserved = XRXE_COALESCE_MAX_WQES - 1;
	w->wr.wr.rdma.remote_addr = (uintptr_t)p.rx.buf;
	w->wr.wr.rdma.rkey = target->rkey;
	w->wr.wr.rdma.reserved = 5;
	w->dma.length = sizeof(data);
	memcpy(w->dma.inline_data, data, sizeof(data));
	publish_gen(slot_of(&info, next + 1), xrxe_sq_gen(next + 1, info.log2_slots));
	/* The library's post of slot next rings; the engine takes both. */
	if (post_sends(&p, 1) || poll_n(p.tx.cq, wc, 2) != 2)
		die("the send and the forged WRITE did not both complete");
	if (wc[1].wr_id != 0xf00d || wc[1].status != IBV_WC_SUCCESS ||
	    wc[1].byte_len != sizeof(data))
		die("forged WRITE: wr_id %#" PRIx64 " status %s byte_len %u", wc[1].wr_id,
		    ibv_wc_status_str(wc[1].status), wc[1].byte_len);
	if (memcmp(p.rx.buf, data, sizeof(data)))
		die("the forged WRITE's data did not land");
	if (coalesced_of(p.tx.qp) != before)
		die("a lone WRITE counted as coalesced");
	/* The pair's ring is now one slot ahead of its library: done with it. */
	traffic_ok(&bystander, "bystander");
	printf("coalesce-controls: bad sizes EINVAL, UD and classic QPs EOPNOTSUPP, "
	       "reserved fields EINVAL; a slot claiming a merged message landed alone; "
	       "flush-domain commands only alone, on doorbell-less QPs\n");
	return 0;
}

/* A new context on the same device, negotiated by hand with trailing bytes. */
static int cmd_trailing_context(const char *dev)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_get_context g;
		struct xrxe_alloc_context_cmd c;
		uint64_t extra;
	} req = {
		.c = { .abi_version = XRXE_ABI_VERSION, .caps = XRXE_CAP_DBL_SQ },
		.extra = 1,
	};
	uint8_t resp[256];
	char path[64];
	int fd, ret, n;

	if (sscanf(dev, "xrxe%d", &n) != 1)
		die("device name %s", dev);
	/* uverbsN follows device creation order: xrxe0 is uverbs0 here. */
	snprintf(path, sizeof(path), "/dev/infiniband/uverbs%d", n);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die("open %s: %s", path, strerror(errno));
	req.g.response = (uintptr_t)resp;
	ret = uverbs_write(fd, IB_USER_VERBS_CMD_GET_CONTEXT, &req, sizeof(req),
			   sizeof(struct ib_uverbs_get_context_resp) +
			   sizeof(struct xrxe_alloc_context_resp));
	close(fd);
	if (ret != EOPNOTSUPP)
		die("context negotiation with trailing bytes: %s, expected EOPNOTSUPP",
		    ret ? strerror(ret) : "success");
	printf("hostile: trailing context negotiation bytes: EOPNOTSUPP\n");
	return 0;
}

/* Fill the ring slot index of qp with a valid inline send (or a bad one). */
static void write_slot(const struct xrxedv_sq_info *info, uint32_t index,
		       uint64_t wr_id, bool bad)
{
	struct xrxe_sq_slot *s = slot_of(info, index);

	memset(&s->wqe, 0, sizeof(s->wqe));
	s->wqe.wr.wr_id = wr_id;
	s->wqe.wr.opcode = bad ? 0xee : IBV_WR_SEND;
	s->wqe.wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	s->wqe.dma.length = 8;
	memcpy(s->wqe.dma.inline_data, &wr_id, 8);
	publish_gen(s, xrxe_sq_gen(index, info->log2_slots));
}

/*
 * Slots after a rejected one still complete, with flush errors, as WQEs
 * posted to a QP in the error state do.
 */
static int cmd_reject_flush(void)
{
	struct xrxedv_sq_info info;
	struct ibv_wc wc[4];
	struct pair p;
	uint32_t next;
	int i, got;

	make_pair(&p);
	traffic_ok(&p, "before");
	if (xrxedv_query_sq(p.tx.qp, &info, sizeof(info)))
		die("no doorbell-less send queue");
	next = fetched_now(&info);
	write_slot(&info, next, 0xbad, true);
	for (i = 1; i < 4; i++)
		write_slot(&info, next + i, 0x600d + i, false);
	if (raw_doorbell(p.tx.qp->handle))
		die("doorbell");
	got = poll_n(p.tx.cq, wc, 4);
	if (got != 4)
		die("%d of 4 completions after a rejected slot", got);
	if (wc[0].wr_id != 0xbad || wc[0].status != IBV_WC_LOC_QP_OP_ERR)
		die("rejected slot: wr_id %#" PRIx64 " status %d", wc[0].wr_id, wc[0].status);
	for (i = 1; i < 4; i++)
		if (wc[i].wr_id != 0x600du + i || wc[i].status != IBV_WC_WR_FLUSH_ERR)
			die("slot %d after the rejected one: wr_id %#" PRIx64 " status %d",
			    i, wc[i].wr_id, wc[i].status);
	printf("hostile: slots after a rejected one: flushed in order (3 of 3)\n");
	return 0;
}

/* CPU time (ticks) the engine threads have used so far. */
static unsigned long long engine_ticks(void)
{
	unsigned long long total = 0, ut, st;
	DIR *d = opendir("/proc");
	struct dirent *e;
	char path[300], buf[512], *p;
	FILE *f;

	while (d && (e = readdir(d))) {
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f) && strstr(buf, "(xrxe_engine/")) {
			p = strrchr(buf, ')');
			/* utime and stime are fields 14 and 15. */
			if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
					&ut, &st) == 2)
				total += ut + st;
		}
		fclose(f);
	}
	if (d)
		closedir(d);
	return total;
}

/*
 * A send queue the requester cannot drain (the peer posts no receives and
 * RNR retries are endless, if rare) with one more slot than it holds, and a
 * doorbell: the QP waits off the engine instead of keeping it busy, and
 * everything completes once the QP is moved to the error state.
 */
static int cmd_full_park(void)
{
	struct xrxedv_sq_info info;
	struct ibv_qp_attr err_attr = { .qp_state = IBV_QPS_ERR };
	struct ibv_wc wc[DEPTH * 2];
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	unsigned long long t0, t1;
	long hz = sysconf(_SC_CLK_TCK);
	uint32_t posted = 0;
	struct pair p;
	int got = 0;

	/*
	 * RNR retries 655 ms apart: the send work of retries runs on the
	 * QP's engine, and only a spin on the parked QP is measured.
	 */
	min_rnr_timer = 0;
	make_pair(&p);
	min_rnr_timer = 1;
	sge = (struct ibv_sge){ .addr = (uintptr_t)p.tx.buf, .length = 8,
				.lkey = p.tx.mr->lkey };
	while (!ibv_post_send(p.tx.qp, &wr, &bad))
		wr.wr_id = ++posted;
	if (xrxedv_query_sq(p.tx.qp, &info, sizeof(info)))
		die("no doorbell-less send queue");
	write_slot(&info, posted, 0xf011, false);
	if (raw_doorbell(p.tx.qp->handle))
		die("doorbell");
	usleep(200000);
	t0 = engine_ticks();
	sleep(2);
	t1 = engine_ticks();
	printf("full-park: %u posted + 1 extra slot; engines used %.2f s of CPU in 2 s\n",
	       posted, (double)(t1 - t0) / hz);
	if (t1 - t0 > (unsigned long long)hz)
		die("an engine spins on a QP whose send queue is full");
	if (ibv_modify_qp(p.tx.qp, &err_attr, IBV_QP_STATE))
		die("to ERR");
	got = poll_n(p.tx.cq, wc, posted + 1);
	if ((uint32_t)got != posted + 1)
		die("%d of %u WQEs completed after the error state", got, posted + 1);
	if (wc[got - 1].wr_id != 0xf011)
		die("the extra slot completed out of order");
	printf("hostile: full send queue with an extra slot: parked, then flushed (%d)\n", got);
	return 0;
}

/*
 * A low-latency command for a UD QP in INIT: nothing is taken from the
 * ring (the QP must not transmit before RTS).
 */
static int cmd_before_rts(void)
{
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = DEPTH, .max_recv_wr = DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1, .max_inline_data = MSG },
		.qp_type = IBV_QPT_UD,
	};
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = PORT,
				 .qkey = 0x1111 };
	struct xrxedv_sq_info info;
	struct ll_cmd8 m;
	struct ibv_qp *qp;
	uint32_t result, fetched;
	int ret;

	attr.send_cq = attr.recv_cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	qp = ibv_create_qp(pd, &attr);
	if (!qp || ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				 IBV_QP_PORT | IBV_QP_QKEY))
		die("UD QP in INIT");
	if (xrxedv_query_sq(qp, &info, sizeof(info)))
		die("no doorbell-less send queue");
	write_slot(&info, 0, 0x1417, false);
	ll_cmd8(&m, 0);
	ret = ll_raw(qp, &m, sizeof(struct xrxe_ll_cmd) + 8, &result);
	fetched = fetched_now(&info);
	if (fetched)
		die("a UD QP in INIT had %u slots taken (command: %s)", fetched,
		    ret ? strerror(ret) : "taken");
	printf("hostile: low-latency command before RTS: %s, nothing taken\n",
	       ret ? strerror(ret) : "no error");
	return 0;
}

/*
 * An atomic write's 8 bytes travel in the WQE: a low-latency command
 * without them is malformed (rejected, the doorbell rung).
 */
static int cmd_ll_atomic_write(void)
{
	struct pair p;
	struct ibv_mr *mr;
	uint64_t *target = aligned_alloc(8, 64);
	struct {
		struct xrxe_ll_cmd c;
		uint64_t value;
	} m;
	uint32_t result, slots, next;
	struct xrxedv_sq_info info;
	int ret;

	make_pair(&p);
	memset(target, 0, 64);
	mr = ibv_reg_mr(pd, target, 64, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_ATOMIC);
	if (!mr)
		die("mr");
	traffic_ok(&p, "before");
	next = fetched_of(p.tx.qp, &slots);
	if (xrxedv_query_sq(p.tx.qp, &info, sizeof(info)))
		die("no doorbell-less send queue");
	memset(&m, 0, sizeof(m));
	m.c.index = next;
	m.c.wqe.wr.wr_id = 0xa7;
	m.c.wqe.wr.opcode = IBV_WR_ATOMIC_WRITE;
	m.c.wqe.wr.send_flags = IBV_SEND_SIGNALED;
	m.c.wqe.wr.wr.rdma.remote_addr = (uintptr_t)target;
	m.c.wqe.wr.wr.rdma.rkey = mr->rkey;
	m.value = 0x1122334455667788ull;
	result = UINT32_MAX;
	ret = ll_raw(p.tx.qp, &m, sizeof(m.c), &result);
	if (ret || result != XRXE_LL_REJECTED)
		die("an atomic write command without its 8 bytes: %s, result %u, expected rejected",
		    ret ? strerror(ret) : "success", result);
	printf("hostile: atomic write command without its data: rejected\n");
	return 0;
}

/*
 * Busy-poll windows above the module's engine_idle_user_max_us are a
 * privilege: once the process is no longer root, 100 us is still granted
 * and 101 us is EPERM.
 */
static int cmd_idle_cap(void)
{
	struct pair p;
	int ret;

	make_pair(&p);
	if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
		die("cannot become nobody: %s", strerror(errno));
	ret = xrxedv_qp_set_engine_idle(p.tx.qp, 100);
	if (ret)
		die("a 100 us window without privilege: %s", strerror(ret));
	ret = xrxedv_qp_set_engine_idle(p.tx.qp, 101);
	if (ret != EPERM)
		die("a 101 us window without CAP_SYS_NICE returned %d (%s), expected EPERM",
		    ret, strerror(ret));
	printf("idle-cap: unprivileged 100 us granted, 101 us EPERM\n");
	return 0;
}

static uint64_t turns_of(struct ibv_qp *qp)
{
	struct xrxedv_qp_counters c;

	if (xrxedv_query_qp_counters(qp, &c, sizeof(c)))
		die("counters");
	return c.engine_turns;
}

#define FAIR_MANY	8

/*
 * One engine (module parameter engines=1) shared by two contexts: A with
 * one QP, B with FAIR_MANY. Every QP gets a 1 s busy-poll window after one
 * send, so that all of them wait on the engine's run list at once and the
 * engine does nothing but give turns. Served per context, A's QP gets as
 * many turns as all of B's together; served per QP, it would get
 * 1/FAIR_MANY of them.
 */
static int cmd_fairness(void)
{
	struct pair a, b[FAIR_MANY];
	uint64_t a0, a1, b0 = 0, b1 = 0, bmin = UINT64_MAX;
	double ratio;
	int i;

	if (module_param_value("engines") != 1)
		die("fairness needs rdma_xrxe loaded with engines=1");
	make_pair(&a);			/* context A: the one opened by main() */
	open_device(ibv_get_device_name(ctx->device));	/* context B */
	for (i = 0; i < FAIR_MANY; i++)
		make_pair(&b[i]);
	/*
	 * Every QP onto the run list, polling its empty ring for 1 s; A last,
	 * so that B's windows do not end before A's.
	 */
	for (i = 0; i <= FAIR_MANY; i++) {
		struct pair *p = i < FAIR_MANY ? &b[i] : &a;
		int ret = xrxedv_qp_set_engine_idle(p->tx.qp, XRXE_MAX_ENGINE_IDLE_US);

		if (ret)
			die("a 1 s window: %s", strerror(ret));
		if (post_sends(p, 1))
			die("post");
		check_burst(p, 1, i);
	}
	usleep(100000);
	a0 = turns_of(a.tx.qp);
	for (i = 0; i < FAIR_MANY; i++)
		b0 += turns_of(b[i].tx.qp);
	usleep(300000);
	a1 = turns_of(a.tx.qp);
	for (i = 0; i < FAIR_MANY; i++) {
		uint64_t t = turns_of(b[i].tx.qp);

		b1 += t;
		if (t < bmin)
			bmin = t;
	}
	if (b1 == b0 || a1 == a0)
		die("no turns counted (A %" PRIu64 ", B %" PRIu64 ")", a1 - a0, b1 - b0);
	ratio = (double)(a1 - a0) / (double)(b1 - b0);
	printf("fairness: one engine, context A's 1 QP had %" PRIu64 " turns, context B's %d QPs %"
	       PRIu64 " together (A/B %.2f; per QP it would be %.2f)\n",
	       a1 - a0, FAIR_MANY, b1 - b0, ratio, 1.0 / FAIR_MANY);
	if (ratio < 0.5)
		die("context A had %.2f of B's engine turns: the engine is not fair per context",
		    ratio);
	if (bmin == 0)
		die("a QP of context B had no turn");
	return 0;
}

/* Move a QP made by raw_create_qp() to RTS, connected to remote. */
static void raw_to_rts(uint32_t handle, uint32_t remote)
{
	struct ib_uverbs_modify_qp m = {
		.attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			     IBV_QP_ACCESS_FLAGS,
		.qp_state = IBV_QPS_INIT, .port_num = PORT,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE,
	};

	if (xrxe_raw_modify_qp(ctx->cmd_fd, handle, &m, NULL, 0))
		die("raw QP to INIT");
	memset(&m, 0, sizeof(m));
	m.attr_mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		      IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	m.qp_state = IBV_QPS_RTR;
	memcpy(m.dest.dgid, gid.raw, sizeof(m.dest.dgid));
	m.dest.is_global = 1;
	m.dest.port_num = PORT;
	m.dest.sgid_index = GID_INDEX;
	m.dest.hop_limit = 1;
	m.path_mtu = IBV_MTU_1024;
	m.dest_qp_num = remote;
	m.max_dest_rd_atomic = 1;
	m.min_rnr_timer = 1;
	if (xrxe_raw_modify_qp(ctx->cmd_fd, handle, &m, NULL, 0))
		die("raw QP to RTR");
	memset(&m, 0, sizeof(m));
	m.attr_mask = IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
		      IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC;
	m.qp_state = IBV_QPS_RTS;
	m.timeout = 14;
	m.retry_cnt = 7;
	m.rnr_retry = 7;
	m.max_rd_atomic = 1;
	if (xrxe_raw_modify_qp(ctx->cmd_fd, handle, &m, NULL, 0))
		die("raw QP to RTS");
}

/*
 * The classic user send queue (rxe's own, shared with userspace) carrying
 * the kernel's IB_WR_REG_MR, whose first word the kernel would take for a
 * struct ib_mr pointer: the WQE completes with an error, nothing is
 * dereferenced, and the device keeps working.
 */
static int cmd_classic_reg_mr(void)
{
	struct {
		struct ib_uverbs_create_qp_resp core;
		struct rxe_create_qp_resp drv;
		uint8_t spare[64];
	} resp;
	struct rxe_queue_buf *sq;
	struct rxe_send_wqe *w;
	struct pair bystander;
	struct end peer;
	struct ibv_wc wc;
	uint32_t handle, prod;
	int got;

	make_pair(&bystander);
	make_end(&peer);
	memset(&resp, 0, sizeof(resp));
	if (raw_create_qp(peer.cq, IBV_QPT_RC, NULL, 0, &resp, sizeof(resp), &handle))
		die("raw classic QP: %s", strerror(errno));
	to_rts(peer.qp, resp.core.qpn);
	raw_to_rts(handle, peer.qp->qp_num);
	sq = mmap(NULL, resp.drv.sq_mi.size, PROT_READ | PROT_WRITE, MAP_SHARED,
		  ctx->cmd_fd, resp.drv.sq_mi.offset);
	if (sq == MAP_FAILED)
		die("mmap of the classic send queue: %s", strerror(errno));
	/* We are the queue's only producer: no ordering to wait for. */
	prod = __atomic_load_n(&sq->producer_index, __ATOMIC_RELAXED);
	w = (struct rxe_send_wqe *)(sq->data +
				    ((size_t)(prod & sq->index_mask) << sq->log2_elem_size));
	memset(w, 0, sizeof(*w));
	w->wr.wr_id = 0x5e9;
	w->wr.opcode = KERNEL_IB_WR_REG_MR;
	w->wr.send_flags = IBV_SEND_SIGNALED;
	/* The kernel's struct ib_reg_wr starts with a struct ib_mr *. */
	w->wr.wr.rdma.remote_addr = 0xffffffffdeadbeefull;
	/* Release: the WQE before the index that publishes it. */
	__atomic_store_n(&sq->producer_index, prod + 1, __ATOMIC_RELEASE);
	if (raw_doorbell(handle))
		die("doorbell of the classic send queue: %s", strerror(errno));
	got = poll_n(peer.cq, &wc, 1);
	/* The consumer index (acquire, as the provider reads it) for the report. */
	if (got != 1)
		die("the REG_MR WQE of QP %#x did not complete (consumer index %u)",
		    resp.core.qpn, __atomic_load_n(&sq->consumer_index, __ATOMIC_ACQUIRE));
	if (wc.wr_id != 0x5e9 || wc.status == IBV_WC_SUCCESS)
		die("the REG_MR WQE completed with wr_id %#" PRIx64 " status %d, expected an error",
		    wc.wr_id, wc.status);
	traffic_ok(&bystander, "bystander");
	printf("hostile: REG_MR on a classic user send queue: completed with status %d (%s), "
	       "bystander fine\n", wc.status, ibv_wc_status_str(wc.status));
	return 0;
}

static void fuzz_bytes(uint64_t *state, void *buf, size_t len)
{
	uint8_t *b = buf;
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = splitmix64(state);
}

/* A victim's slot: a valid send, a damaged WQE or random bytes, any lap. */
static void fuzz_slot(struct pair *v, uint64_t *st)
{
	struct xrxedv_sq_info info;
	uint32_t slots, index, gen;
	struct xrxe_sq_slot *s;
	unsigned int seed = splitmix64(st);

	if (xrxedv_query_sq(v->tx.qp, &info, sizeof(info)))
		die("victim has no doorbell-less send queue");
	slots = 1u << info.log2_slots;
	index = fetched_now(&info) + splitmix64(st) % (slots + 8) - 4;
	s = slot_of(&info, index);
	gen = splitmix64(st) % 4 ? xrxe_sq_gen(index, info.log2_slots) : (uint32_t)splitmix64(st);
	switch (splitmix64(st) % 3) {
	case 0:
		write_slot(&info, index, splitmix64(st), false);
		publish_gen(s, gen);
		break;
	case 1:
		damage_slot(s, splitmix64(st) % NUM_DAMAGE, gen, &seed);
		break;
	default:
		fuzz_bytes(st, s, (size_t)1 << info.log2_slot_size);
		break;
	}
}

/* A low-latency command: well formed at a random position, or random. */
static void fuzz_ll(struct pair *v, uint64_t *st)
{
	struct ll_cmd8 m;
	uint32_t result, slots, fetched = fetched_of(v->tx.qp, &slots);
	size_t len = sizeof(struct xrxe_ll_cmd) + 8;

	ll_cmd8(&m, fetched + splitmix64(st) % 8 - 2);
	if (splitmix64(st) % 2) {
		fuzz_bytes(st, &m, sizeof(m));
		len = splitmix64(st) % (sizeof(m) + 1);
	}
	ll_raw(v->tx.qp, &m, len, &result);
}

/* modify_qp with random driver data, to any state or none. */
static void fuzz_modify(struct pair *v, uint64_t *st)
{
	struct ib_uverbs_modify_qp m = { 0 };
	uint8_t drv[64];
	/* The extended command carries driver data in 8-byte words. */
	size_t len = 8 * (splitmix64(st) % (sizeof(drv) / 8 + 1));

	fuzz_bytes(st, drv, sizeof(drv));
	if (splitmix64(st) % 2) {
		struct xrxe_modify_qp_cmd *c = (void *)drv;
		static const uint32_t masks[] = {
			XRXE_MODIFY_QP_ENGINE_IDLE, XRXE_MODIFY_QP_COALESCE,
			XRXE_MODIFY_QP_ENGINE_IDLE | XRXE_MODIFY_QP_COALESCE,
			XRXE_MODIFY_QP_FLUSH_DOMAIN,
		};

		memset(drv, 0, sizeof(*c));
		c->comp_mask = splitmix64(st) % 4 ? masks[splitmix64(st) % 4] : splitmix64(st);
		c->engine_idle_us = (int32_t)(splitmix64(st) % 2200000) - 100000;
		/* Valid windows short: the victim's engine serves other QPs too. */
		if (c->engine_idle_us >= 0 && c->engine_idle_us <= XRXE_MAX_ENGINE_IDLE_US)
			c->engine_idle_us %= 200;
		c->coalesce_max = splitmix64(st) % (2 * XRXE_COALESCE_MAX_BYTES);
		/* Domains of a few numbers, so that some fill up. */
		if (splitmix64(st) % 8 == 0)
			c->flush_domain = splitmix64(st) % 4 ? splitmix64(st) % 3 :
					  splitmix64(st);
		len = sizeof(*c) + (splitmix64(st) % 4 ? 0 : 8 * (splitmix64(st) % 3));
		memset(drv + sizeof(*c), splitmix64(st) % 4 ? 0 : 0xff, sizeof(drv) - sizeof(*c));
	}
	if (splitmix64(st) % 4 == 0) {
		m.attr_mask = IBV_QP_STATE;
		m.qp_state = splitmix64(st) % 7;	/* RESET .. ERR and beyond */
	}
	xrxe_raw_modify_qp(ctx->cmd_fd, v->tx.qp->handle, &m, drv, len);
}

static uint64_t fuzz_remakes, fuzz_rejected, fuzz_refused;

/* A victim that broke (or was reset) is made again. */
static void fuzz_remake(struct pair *v)
{
	fuzz_remakes++;
	fuzz_rejected += rejected_total(v->tx.qp);
	if (ibv_destroy_qp(v->tx.qp) || ibv_destroy_qp(v->rx.qp) ||
	    ibv_dereg_mr(v->tx.mr) || ibv_dereg_mr(v->rx.mr) ||
	    ibv_destroy_cq(v->tx.cq) || ibv_destroy_cq(v->rx.cq))
		die("destroying a victim: %s", strerror(errno));
	free(v->tx.buf);
	free(v->rx.buf);
	make_pair(v);
}

#define FUZZ_VICTIMS	2
#define FUZZ_CHECK	500

/*
 * One process of the userspace fuzzer: its own context, a bystander pair
 * and FUZZ_VICTIMS victim pairs. Random slots, generations and indices,
 * low-latency commands, doorbells, modify_qp driver data and states hit
 * the victims; every FUZZ_CHECK actions the bystander passes checked
 * traffic. Returns the actions done.
 */
static uint64_t fuzz_process(uint64_t seed, double secs, uint64_t max_iter)
{
	struct pair byst, victims[FUZZ_VICTIMS];
	double end = now() + secs;
	uint64_t st = seed, i;
	struct ibv_wc wc[16];
	int v;

	make_pair(&byst);
	for (v = 0; v < FUZZ_VICTIMS; v++)
		make_pair(&victims[v]);
	for (i = 0; i < max_iter && now() < end; i++) {
		struct pair *p = &victims[splitmix64(&st) % FUZZ_VICTIMS];
		struct ibv_qp_attr a;
		struct ibv_qp_init_attr ia;

		switch (splitmix64(&st) % 8) {
		case 0:
		case 1:
			fuzz_slot(p, &st);
			break;
		case 2:
			raw_doorbell(p->tx.qp->handle);
			break;
		case 3:
			fuzz_ll(p, &st);
			break;
		case 4:
			fuzz_modify(p, &st);
			break;
		case 5:
			/* A victim's queues may be full: its ring is broken. */
			if (post_sends(p, 1 + splitmix64(&st) % 4))
				fuzz_refused++;
			break;
		case 6:
			while (ibv_poll_cq(p->tx.cq, 16, wc) > 0 ||
			       ibv_poll_cq(p->rx.cq, 16, wc) > 0)
				;
			break;
		default:
			if (splitmix64(&st) % 64 == 0 ||
			    (!ibv_query_qp(p->tx.qp, &a, IBV_QP_STATE, &ia) &&
			     a.qp_state != IBV_QPS_RTS))
				fuzz_remake(p);
			break;
		}
		if (i % FUZZ_CHECK == FUZZ_CHECK - 1)
			traffic_ok(&byst, "bystander");
	}
	traffic_ok(&byst, "bystander at the end");
	for (v = 0; v < FUZZ_VICTIMS; v++)
		fuzz_rejected += rejected_total(victims[v].tx.qp);
	printf("fuzz: process %d: %" PRIu64 " actions, victims made again %" PRIu64
	       " times, %" PRIu64 " slots rejected, %" PRIu64 " posts refused\n",
	       getpid(), i, fuzz_remakes, fuzz_rejected, fuzz_refused);
	fflush(stdout);
	return i;
}

/*
 * Userspace fuzzer: PROCS processes (-p, default 3), each with its own
 * context, for SECONDS (-s, default 10) or ITERATIONS each (-n), seeded
 * (-S). Passes when every process's bystander kept passing traffic; the
 * testbed fails the run on any kernel splat.
 */
static int cmd_fuzz(int argc, char **argv)
{
	uint64_t seed = (uint64_t)time(NULL), max_iter = UINT64_MAX, total = 0;
	int procs = 3, opt, i, status, failed = 0;
	const char *dev = ibv_get_device_name(ctx->device);
	double secs = 10, t0 = now();
	int fds[64];

	while ((opt = getopt(argc, argv, "p:s:n:S:")) != -1) {
		switch (opt) {
		case 'p': procs = atoi(optarg); break;
		case 's': secs = atof(optarg); break;
		case 'n': max_iter = strtoull(optarg, NULL, 0); break;
		case 'S': seed = strtoull(optarg, NULL, 0); break;
		default: die("usage: fuzz [-p PROCS] [-s SECONDS] [-n ITERATIONS] [-S SEED]");
		}
	}
	if (procs < 1 || procs > 64)
		die("PROCS must be 1-64");
	printf("fuzz: %d processes on %s, seed %" PRIu64 "\n", procs, dev, seed);
	fflush(stdout);
	for (i = 0; i < procs; i++) {
		int pfd[2];
		pid_t pid;

		if (pipe(pfd))
			die("pipe");
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid) {
			uint64_t n;

			close(pfd[0]);
			open_device(dev);	/* a context of its own */
			n = fuzz_process(seed + i * 0x1000193ull, secs, max_iter);
			if (write(pfd[1], &n, sizeof(n)) != sizeof(n))
				_exit(1);
			_exit(0);
		}
		close(pfd[1]);
		fds[i] = pfd[0];
	}
	for (i = 0; i < procs; i++) {
		uint64_t n = 0;

		if (read(fds[i], &n, sizeof(n)) != sizeof(n))
			failed++;
		total += n;
		close(fds[i]);
	}
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			failed++;
	if (failed)
		die("%d fuzzing processes failed (seed %" PRIu64 ")", failed, seed);
	printf("fuzz: %" PRIu64 " hostile actions by %d processes in %.1f s; every bystander "
	       "kept passing traffic\n", total, procs, now() - t0);
	return 0;
}

int main(int argc, char **argv)
{
	const char *dev = getenv("XRXE_DEV") ? getenv("XRXE_DEV") : "xrxe0";

	if (argc < 2)
		die("usage: xrxe-dbl-test hunter|shared-qp|hostile|stale|status-readonly|ll-hostile|"
		    "controls|ocu-placement|ocu-env|ll-modes|create-fault|trailing|reject-flush|full-park|"
		    "before-rts|ll-atomic-write|idle-cap|fairness|fuzz|classic-reg-mr|coalesce-controls "
		    "[OPTIONS]");
	open_device(dev);
	if (!strcmp(argv[1], "hunter"))
		return cmd_hunter(argc - 1, argv + 1);
	if (!strcmp(argv[1], "shared-qp"))
		return cmd_shared_qp(argc - 1, argv + 1);
	if (!strcmp(argv[1], "hostile"))
		return cmd_hostile();
	if (!strcmp(argv[1], "stale"))
		return cmd_stale();
	if (!strcmp(argv[1], "controls"))
		return cmd_controls();
	if (!strcmp(argv[1], "ocu-placement"))
		return cmd_ocu_placement();
	if (!strcmp(argv[1], "ocu-env"))
		return cmd_ocu_env();
	if (!strcmp(argv[1], "status-readonly"))
		return cmd_status_readonly();
	if (!strcmp(argv[1], "ll-hostile"))
		return cmd_ll_hostile();
	if (!strcmp(argv[1], "ll-modes"))
		return cmd_ll_modes();
	if (!strcmp(argv[1], "create-fault"))
		return cmd_create_fault();
	if (!strcmp(argv[1], "trailing"))
		return cmd_trailing() || cmd_trailing_context(dev);
	if (!strcmp(argv[1], "reject-flush"))
		return cmd_reject_flush();
	if (!strcmp(argv[1], "full-park"))
		return cmd_full_park();
	if (!strcmp(argv[1], "before-rts"))
		return cmd_before_rts();
	if (!strcmp(argv[1], "ll-atomic-write"))
		return cmd_ll_atomic_write();
	if (!strcmp(argv[1], "idle-cap"))
		return cmd_idle_cap();
	if (!strcmp(argv[1], "fairness"))
		return cmd_fairness();
	if (!strcmp(argv[1], "fuzz"))
		return cmd_fuzz(argc - 1, argv + 1);
	if (!strcmp(argv[1], "classic-reg-mr"))
		return cmd_classic_reg_mr();
	if (!strcmp(argv[1], "coalesce-controls"))
		return cmd_coalesce_controls();
	die("unknown test '%s'", argv[1]);
	return 1;
}
