// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xrxe-soak: mixed RC traffic over many QP pairs with checked payloads, for
 * soak and teardown tests in the testbed. Plain libibverbs: whether send
 * queues are doorbell-less and how they post is the provider's choice
 * (XRXE_DOORBELL_LESS, XRXE_LL_MODE); -x also varies the low-latency mode
 * and the engine's busy-poll window per QP through xrxedv, when the
 * provider has them.
 *
 *   xrxe-soak [-q PAIRS] [-t THREADS] [-s SECONDS] [-d DEPTH] [-m MAX_MSG]
 *             [-g MAX_GAP_US] [-i REPORT_SECS] [-S SEED] [-D DEV0,DEV1] [-x]
 *             [-T ACK_TIMEOUT] [-o OPS]
 *
 * Pair i connects a requester QP to a responder QP: xrxe0 to xrxe1, xrxe1
 * to xrxe0, or both on one device, by i % 4. Each thread owns some pairs
 * and posts bursts of random operations on them, as WR lists or one by one:
 *
 * - SEND (inline or not) into the responder's receive buffers;
 * - RDMA WRITE with immediate into the responder's buffer, reported by a
 *   receive completion that carries the message's sequence as immediate;
 * - RDMA WRITE followed by an RDMA READ of the same bytes back;
 * - RDMA READ of a fixed pattern at a random offset;
 * - FETCH_AND_ADD of 1 on a counter the responder holds.
 *
 * Every payload carries a header (pair, kind, sequence, length) and a CRC-32
 * that the receiving side checks; reads are compared with the pattern; each
 * fetch-and-add must return the number of earlier ones (an operation run
 * twice or lost shows). Every WR is signaled and its wr_id carries the
 * pair and a sequence: completions must come once each, in order per
 * queue, with the expected opcode and status. A pair with work outstanding
 * and no completion for STALL_SECS fails the run. At the end the pairs
 * drain, the counters must balance, and everything is destroyed.
 *
 * -o limits the operations to some of s (send), i (write with immediate),
 * w (write and read-back), r (pattern read) and a (fetch-and-add); default
 * all. -T sets the QPs' ACK timeout exponent (default 14, 67 ms): a small one
 * makes requesters retransmit under load, to exercise duplicate handling.
 *
 * Exit status 0 when every check held; the first failure prints FAIL and
 * exits 1.
 */
#include "xrxe_test_dev.h"
#include "xrxe_test_rc.h"
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <infiniband/xrxedv.h>

#define PORT		1
#define GID_INDEX	0
#define HDR_MAGIC	0x78726b53u	/* "Skrx" */
#define PAT_LEN		65536
#define MAX_INLINE	256
#define MAX_BURST	8
#define RD_ATOMIC	16
#define STALL_SECS	30
#define POLL_BATCH	32

#define WRID_RECV	(1ULL << 63)
#define WRID_PAIR_SHIFT	48
#define WRID_SEQ_MASK	((1ULL << WRID_PAIR_SHIFT) - 1)

enum op_kind { OP_SEND, OP_WRITE_IMM, OP_WRITE, OP_READBACK, OP_READ, OP_FAA, OP_KINDS };

static const char *const kind_name[OP_KINDS] = {
	"send", "write-imm", "write", "read-back", "read", "fetch-add",
};

/* The header at the start of every SEND, WRITE and WRITE_IMM payload. */
struct hdr {
	uint32_t magic;
	uint16_t pair;
	uint8_t kind;
	uint8_t reserved;
	uint32_t len;
	uint32_t csum;
	uint64_t seq;
	uint64_t reserved2;
};

/* What an outstanding send-queue operation was, by its sequence. */
struct op {
	uint8_t kind;
	bool inl;
	uint32_t len;
	uint32_t slot;		/* landing slot (reads) or scratch slot (writes) */
	uint64_t arg;		/* message sequence, read offset, write's sequence, FAA index */
};

struct dev {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	union ibv_gid gid;
};

struct end {
	struct dev *dev;
	struct ibv_cq *cq;	/* the owning thread's CQ on dev */
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t size;
};

struct pair {
	int id;
	struct end req, rsp;
	struct op *ops;		/* depth entries, by send-queue sequence */
	uint8_t *msg_kind;	/* depth entries, by message sequence */
	uint64_t sq_posted, sq_done;
	uint64_t msg_posted, msg_done;
	uint64_t rq_posted;
	uint64_t faa_posted;
	double last_progress;
};

/* Figures of one thread, read by the reporter while it runs. */
struct stats {
	uint64_t sq_completions;
	uint64_t rq_completions;
	uint64_t bytes_checked;
	uint64_t ops[OP_KINDS];
	uint64_t inline_posts;
	uint64_t list_posts;
};

struct thr {
	int index;
	struct pair **pairs;
	int npairs;
	struct ibv_cq *cq[2];
	unsigned int seed;
	struct stats st;
};

static struct {
	int pairs, threads, secs, depth, max_msg, report_secs, timeout;
	unsigned int max_gap_us, seed;
	bool mix;
	unsigned int ops;	/* enabled kinds, 1 << OP_* */
} cfg = { .pairs = 16, .threads = 2, .secs = 30, .depth = 16, .max_msg = 4096,
	  .report_secs = 10, .max_gap_us = 200, .timeout = 14 };

static struct dev devs[2];
static volatile sig_atomic_t stop_flag;
static double deadline;
static uint32_t crc_table[256];



/* Counters the threads share: totals only, nothing is published by them. */
static void count(uint64_t *c, uint64_t n)
{
	__atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

static uint64_t read_count(const uint64_t *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

/* CRC-32 (IEEE 802.3, reflected), table-driven. */
static void crc_init(void)
{
	uint32_t c;
	int i, k;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

static uint32_t crc32_update(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;

	crc = ~crc;
	while (len--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

/* The responder's read-only pattern: a function of the pair and offset. */
static uint8_t pattern_byte(int pair, uint32_t off)
{
	return (uint8_t)mix64(((uint64_t)pair << 32) | off);
}

static uint32_t payload_csum(const struct hdr *h, const uint8_t *body, size_t len)
{
	struct hdr copy = *h;

	copy.csum = 0;
	return crc32_update(crc32_update(0, &copy, sizeof(copy)), body, len);
}

/* A payload of len bytes: header, then bytes from (pair, kind, seq). */
static void fill_payload(uint8_t *p, uint32_t len, int pair, int kind, uint64_t seq)
{
	struct hdr h = { .magic = HDR_MAGIC, .pair = pair, .kind = kind,
			 .len = len, .seq = seq };
	uint64_t x = mix64(((uint64_t)pair << 56) ^ ((uint64_t)kind << 48) ^ seq) | 1;
	uint32_t i;

	for (i = sizeof(h); i < len; i++) {
		if (!((i - sizeof(h)) & 7)) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
		p[i] = (uint8_t)(x >> (8 * ((i - sizeof(h)) & 7)));
	}
	h.csum = payload_csum(&h, p + sizeof(h), len - sizeof(h));
	memcpy(p, &h, sizeof(h));
}

/* NULL if p holds the payload expected, else what is wrong with it. */
static const char *check_payload(const uint8_t *p, uint32_t len, int pair, int kind,
				 uint64_t seq)
{
	struct hdr h;

	memcpy(&h, p, sizeof(h));
	if (h.magic != HDR_MAGIC)
		return "bad magic";
	if (h.pair != pair || h.kind != kind || h.seq != seq)
		return "header of another message";
	if (h.len != len)
		return "length differs from the header's";
	if (h.csum != payload_csum(&h, p + sizeof(h), len - sizeof(h)))
		return "checksum mismatch";
	return NULL;
}

static void dump_bytes(const char *what, const uint8_t *p, size_t len)
{
	size_t i;

	fprintf(stderr, "%s:", what);
	for (i = 0; i < len && i < 64; i++)
		fprintf(stderr, " %02x", p[i]);
	fputc('\n', stderr);
}

/* Buffer layouts. Requester: stage[D] | land[D] | fetch-add results[D]. */
static uint8_t *stage_slot(struct pair *p, uint64_t seq)
{
	return p->req.buf + (seq % cfg.depth) * cfg.max_msg;
}

static uint8_t *land_slot(struct pair *p, uint32_t slot)
{
	return p->req.buf + ((size_t)cfg.depth + slot) * cfg.max_msg;
}

static uint64_t *faa_slot(struct pair *p, uint32_t slot)
{
	return (uint64_t *)(p->req.buf + 2 * (size_t)cfg.depth * cfg.max_msg) + slot;
}

static size_t req_size(void)
{
	return 2 * (size_t)cfg.depth * cfg.max_msg + cfg.depth * sizeof(uint64_t);
}

/* Responder: recv[D] | write-imm[D] | scratch[2D] | pattern | counter. */
static size_t rsp_recv_off(uint64_t seq)
{
	return (seq % cfg.depth) * cfg.max_msg;
}

static size_t rsp_wimm_off(uint64_t seq)
{
	return ((size_t)cfg.depth + seq % cfg.depth) * cfg.max_msg;
}

static size_t rsp_scratch_off(uint32_t slot)
{
	return (2 * (size_t)cfg.depth + slot) * cfg.max_msg;
}

static size_t rsp_pattern_off(void)
{
	return 4 * (size_t)cfg.depth * cfg.max_msg;
}

static size_t rsp_counter_off(void)
{
	return rsp_pattern_off() + PAT_LEN;
}

static size_t rsp_size(void)
{
	return rsp_counter_off() + sizeof(uint64_t);
}

static void open_devices(const char *names)
{
	char *copy = strdup(names), *comma = strchr(copy, ',');
	int d;

	if (!comma)
		die("-D takes two device names: DEV0,DEV1");
	*comma = 0;
	devs[0].name = copy;
	devs[1].name = comma + 1;
	for (d = 0; d < 2; d++) {
		devs[d].ctx = xrxe_open_device(devs[d].name);
		devs[d].pd = ibv_alloc_pd(devs[d].ctx);
		if (!devs[d].pd || ibv_query_gid(devs[d].ctx, PORT, GID_INDEX, &devs[d].gid))
			die("pd or gid of %s", devs[d].name);
	}
}

static void make_end(struct end *e, struct dev *dev, struct ibv_cq *cq, size_t size,
		     int send_wr, int recv_wr, int access)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = send_wr, .max_recv_wr = recv_wr,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = MAX_INLINE },
		.qp_type = IBV_QPT_RC,
	};

	e->dev = dev;
	e->cq = cq;
	e->size = size;
	if (posix_memalign((void **)&e->buf, 4096, size))
		die("buffer of %zu bytes", size);
	memset(e->buf, 0, size);
	e->mr = ibv_reg_mr(dev->pd, e->buf, size, access);
	if (!e->mr)
		die("reg_mr on %s: %s", dev->name, strerror(errno));
	e->qp = ibv_create_qp(dev->pd, &attr);
	if (!e->qp)
		die("create_qp on %s: %s", dev->name, strerror(errno));
	if (attr.cap.max_inline_data < MAX_INLINE)
		die("%s gives %u bytes of inline data, not %d", dev->name,
		    attr.cap.max_inline_data, MAX_INLINE);
}

static void to_rts(struct end *e, struct end *remote, uint32_t sq_psn, uint32_t rq_psn)
{
	const struct xrxe_rc_peer peer = {
		.qpn = remote->qp->qp_num, .gid = remote->dev->gid, .port = PORT,
		.sgid_index = GID_INDEX, .rq_psn = rq_psn, .sq_psn = sq_psn,
		.rd_atomic = RD_ATOMIC, .min_rnr_timer = 1, .timeout = cfg.timeout,
	};
	const char *step;
	int ret;
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = PORT,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
	};

	if (ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("to INIT: %s", strerror(errno));
	ret = xrxe_rc_rtr_rts(e->qp, &peer, &step);
	if (ret)
		die("to %s: %s", step, strerror(ret));
}

static void post_recv(struct pair *p)
{
	uint64_t seq = p->rq_posted;
	struct ibv_sge sge = {
		.addr = (uintptr_t)p->rsp.buf + rsp_recv_off(seq),
		.length = cfg.max_msg, .lkey = p->rsp.mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = WRID_RECV | ((uint64_t)p->id << WRID_PAIR_SHIFT) | seq,
		.sg_list = &sge, .num_sge = 1,
	};
	struct ibv_recv_wr *bad;
	int ret = ibv_post_recv(p->rsp.qp, &wr, &bad);

	if (ret)
		die("pair %d: post_recv %" PRIu64 ": %s", p->id, seq, strerror(ret));
	p->rq_posted++;
}

/* Which device each end of pair i is on: cross both ways, or loopback. */
static void pair_devices(int i, int *req, int *rsp)
{
	static const int map[4][2] = { { 0, 1 }, { 1, 0 }, { 0, 0 }, { 1, 1 } };

	*req = map[i % 4][0];
	*rsp = map[i % 4][1];
}

static void setup_pair(struct pair *p, int id, struct thr *t)
{
	int rd, sd;
	/* PSNs near the 24-bit wrap, so that long runs cross it. */
	uint32_t psn_a = (0xffffffu - (uint32_t)id * 977u) & 0xffffff;
	uint32_t psn_b = (0xfffff0u - (uint32_t)id * 331u) & 0xffffff;
	int remote = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	uint32_t i;

	memset(p, 0, sizeof(*p));
	p->id = id;
	pair_devices(id, &rd, &sd);
	make_end(&p->req, &devs[rd], t->cq[rd], req_size(), cfg.depth, 1,
		 IBV_ACCESS_LOCAL_WRITE);
	make_end(&p->rsp, &devs[sd], t->cq[sd], rsp_size(), 1, cfg.depth, remote);
	to_rts(&p->req, &p->rsp, psn_a, psn_b);
	to_rts(&p->rsp, &p->req, psn_b, psn_a);
	for (i = 0; i < PAT_LEN; i++)
		p->rsp.buf[rsp_pattern_off() + i] = pattern_byte(id, i);
	p->ops = calloc(cfg.depth, sizeof(*p->ops));
	p->msg_kind = calloc(cfg.depth, 1);
	if (!p->ops || !p->msg_kind)
		die("out of memory");
	while (p->rq_posted < (uint64_t)cfg.depth)
		post_recv(p);
	if (cfg.mix) {
		static const enum xrxedv_ll_mode ll[3] = {
			XRXEDV_LL_IDLE, XRXEDV_LL_ALWAYS, XRXEDV_LL_NEVER };
		static const int32_t idle[4] = { -1, 0, 50, 1000 };

		/*
		 * EOPNOTSUPP on a classic send queue or another provider's QP:
		 * nothing to vary there.
		 */
		xrxedv_qp_set_ll_mode(p->req.qp, ll[id % 3]);
		xrxedv_qp_set_engine_idle(p->req.qp, idle[(id / 3) % 4]);
	}
	p->last_progress = now();
}

/* A length: mostly small (low-latency and inline sizes), some multi-packet. */
static uint32_t pick_len(unsigned int *seed, uint32_t min)
{
	unsigned int r = rand_r(seed) % 16;
	uint32_t len;

	if (r < 8)
		len = min + rand_r(seed) % (MAX_INLINE - min + 1);
	else if (r < 10)
		len = 1024 + (rand_r(seed) % 3) - 1;	/* around one MTU */
	else
		len = min + rand_r(seed) % (cfg.max_msg - min + 1);
	if (len > (uint32_t)cfg.max_msg)
		len = cfg.max_msg;
	return len < min ? min : len;
}

/* Relative frequencies; a write counts with its read-back. */
static const unsigned int kind_weight[OP_KINDS] = {
	[OP_SEND] = 30, [OP_WRITE_IMM] = 20, [OP_WRITE] = 15, [OP_READ] = 23, [OP_FAA] = 12,
};

static enum op_kind pick_kind(unsigned int *seed)
{
	unsigned int total = 0, r, k;

	for (k = 0; k < OP_KINDS; k++)
		if (cfg.ops & (1u << k))
			total += kind_weight[k];
	r = rand_r(seed) % total;
	for (k = 0; k < OP_KINDS; k++) {
		if (!(cfg.ops & (1u << k)))
			continue;
		if (r < kind_weight[k])
			break;
		r -= kind_weight[k];
	}
	return k;
}

static unsigned int parse_ops(const char *s)
{
	static const char letters[OP_KINDS + 1] = "siw-ra";
	unsigned int ops = 0;
	const char *c;

	for (; *s; s++) {
		c = strchr(letters, *s);
		if (!c || *s == '-')
			die("-o takes letters of s, i, w, r and a, not '%c'", *s);
		ops |= 1u << (c - letters);
	}
	return ops;
}

/* Post a burst of up to MAX_BURST operations on p within its windows. */
static void post_burst(struct thr *t, struct pair *p)
{
	struct ibv_send_wr wr[MAX_BURST], *bad;
	struct ibv_sge sge[MAX_BURST];
	bool scribble[MAX_BURST];
	int want = 1 + rand_r(&t->seed) % MAX_BURST, n = 0, i, ret;
	bool list = rand_r(&t->seed) & 1;
	uint64_t rkey_base = (uintptr_t)p->rsp.buf;
	uint32_t rkey = p->rsp.mr->rkey;

	while (n < want) {
		uint64_t seq = p->sq_posted + n;
		enum op_kind kind = pick_kind(&t->seed);
		struct op *op = &p->ops[seq % cfg.depth];
		uint8_t *stage = stage_slot(p, seq);
		int need = kind == OP_WRITE ? 2 : 1;

		if (seq + need > p->sq_done + cfg.depth || n + need > MAX_BURST)
			break;
		/* A message the receiver has no room for yet: try later. */
		if ((kind == OP_SEND || kind == OP_WRITE_IMM) &&
		    p->msg_posted + 1 > p->msg_done + cfg.depth - 1)
			break;
		memset(op, 0, sizeof(*op));
		op->kind = kind;
		memset(&wr[n], 0, sizeof(wr[n]));
		wr[n].wr_id = ((uint64_t)p->id << WRID_PAIR_SHIFT) | seq;
		wr[n].sg_list = &sge[n];
		wr[n].num_sge = 1;
		wr[n].send_flags = IBV_SEND_SIGNALED;
		scribble[n] = false;
		sge[n].lkey = p->req.mr->lkey;
		switch (kind) {
		case OP_SEND:
		case OP_WRITE_IMM:
		case OP_WRITE:
			op->len = pick_len(&t->seed, sizeof(struct hdr));
			op->arg = kind == OP_WRITE ? seq : p->msg_posted;
			fill_payload(stage, op->len, p->id, kind, op->arg);
			sge[n].addr = (uintptr_t)stage;
			sge[n].length = op->len;
			if (op->len <= MAX_INLINE && rand_r(&t->seed) % 2) {
				wr[n].send_flags |= IBV_SEND_INLINE;
				op->inl = scribble[n] = true;
			}
			if (kind == OP_SEND) {
				wr[n].opcode = IBV_WR_SEND;
			} else if (kind == OP_WRITE_IMM) {
				wr[n].opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
				wr[n].imm_data = htonl((uint32_t)op->arg);
				wr[n].wr.rdma.remote_addr = rkey_base + rsp_wimm_off(op->arg);
				wr[n].wr.rdma.rkey = rkey;
			} else {
				/* Scratch slots span two windows: the read-back of
				 * a slot completes before a write reuses it.
				 */
				op->slot = seq % (2 * cfg.depth);
				wr[n].opcode = IBV_WR_RDMA_WRITE;
				wr[n].wr.rdma.remote_addr = rkey_base + rsp_scratch_off(op->slot);
				wr[n].wr.rdma.rkey = rkey;
			}
			if (kind != OP_WRITE) {
				p->msg_kind[op->arg % cfg.depth] = kind;
				p->msg_posted++;
			}
			break;
		case OP_READ:
			op->len = 1 + rand_r(&t->seed) % cfg.max_msg;
			if (op->len > PAT_LEN)
				op->len = PAT_LEN;
			op->arg = rand_r(&t->seed) % (PAT_LEN - op->len + 1);
			op->slot = seq % cfg.depth;
			sge[n].addr = (uintptr_t)land_slot(p, op->slot);
			sge[n].length = op->len;
			memset(land_slot(p, op->slot), 0xa5, op->len);
			wr[n].opcode = IBV_WR_RDMA_READ;
			wr[n].wr.rdma.remote_addr = rkey_base + rsp_pattern_off() + op->arg;
			wr[n].wr.rdma.rkey = rkey;
			break;
		case OP_FAA:
			op->slot = seq % cfg.depth;
			op->arg = p->faa_posted++;
			*faa_slot(p, op->slot) = ~0ULL;
			sge[n].addr = (uintptr_t)faa_slot(p, op->slot);
			sge[n].length = sizeof(uint64_t);
			wr[n].opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
			wr[n].wr.atomic.remote_addr = rkey_base + rsp_counter_off();
			wr[n].wr.atomic.rkey = rkey;
			wr[n].wr.atomic.compare_add = 1;
			break;
		default:
			break;
		}
		n++;
		if (kind == OP_WRITE) {
			/* The read-back of the bytes just written. */
			struct op *rb = &p->ops[(seq + 1) % cfg.depth];

			*rb = (struct op){ .kind = OP_READBACK, .len = op->len,
					   .slot = (seq + 1) % cfg.depth, .arg = seq };
			memset(&wr[n], 0, sizeof(wr[n]));
			wr[n].wr_id = ((uint64_t)p->id << WRID_PAIR_SHIFT) | (seq + 1);
			wr[n].sg_list = &sge[n];
			wr[n].num_sge = 1;
			wr[n].send_flags = IBV_SEND_SIGNALED;
			wr[n].opcode = IBV_WR_RDMA_READ;
			wr[n].wr.rdma.remote_addr = wr[n - 1].wr.rdma.remote_addr;
			wr[n].wr.rdma.rkey = rkey;
			sge[n] = (struct ibv_sge){ .addr = (uintptr_t)land_slot(p, rb->slot),
						   .length = rb->len, .lkey = p->req.mr->lkey };
			memset(land_slot(p, rb->slot), 0x5a, rb->len);
			scribble[n] = false;
			n++;
		}
	}
	if (!n)
		return;
	for (i = 0; i < n; i++)
		wr[i].next = list && i + 1 < n ? &wr[i + 1] : NULL;
	if (list) {
		ret = ibv_post_send(p->req.qp, wr, &bad);
		if (ret)
			die("pair %d: post_send of a list of %d: %s", p->id, n, strerror(ret));
		count(&t->st.list_posts, 1);
	} else {
		for (i = 0; i < n; i++) {
			ret = ibv_post_send(p->req.qp, &wr[i], &bad);
			if (ret)
				die("pair %d: post_send %d of %d: %s", p->id, i, n, strerror(ret));
		}
	}
	/* An inline payload was copied at the post: later changes must not show. */
	for (i = 0; i < n; i++) {
		if (scribble[i]) {
			memset((void *)(uintptr_t)sge[i].addr, 0xee, sge[i].length);
			count(&t->st.inline_posts, 1);
		}
	}
	if (p->sq_posted == p->sq_done)
		p->last_progress = now();
	p->sq_posted += n;
}

static enum ibv_wc_opcode expected_opcode(int kind)
{
	switch (kind) {
	case OP_SEND:
		return IBV_WC_SEND;
	case OP_WRITE_IMM:
	case OP_WRITE:
		return IBV_WC_RDMA_WRITE;
	case OP_READBACK:
	case OP_READ:
		return IBV_WC_RDMA_READ;
	default:
		return IBV_WC_FETCH_ADD;
	}
}

static bool untouched(const uint8_t *p, uint32_t len, uint8_t fill)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (p[i] != fill)
			return false;
	return true;
}

static void sq_complete(struct thr *t, struct pair *p, const struct ibv_wc *wc, uint64_t seq)
{
	struct op *op = &p->ops[seq % cfg.depth];
	const uint8_t *land;
	const char *err;
	uint32_t i;

	if (seq != p->sq_done)
		die("pair %d: send-queue completion %" PRIu64 " where %" PRIu64 " was next (%s)",
		    p->id, seq, p->sq_done, seq < p->sq_done ? "duplicate" : "one lost");
	if (seq >= p->sq_posted)
		die("pair %d: completion %" PRIu64 " of a WR never posted", p->id, seq);
	if (wc->opcode != expected_opcode(op->kind))
		die("pair %d: %s %" PRIu64 " completed with opcode %d", p->id,
		    kind_name[op->kind], seq, wc->opcode);
	switch (op->kind) {
	case OP_READBACK:
		land = land_slot(p, op->slot);
		err = check_payload(land, op->len, p->id, OP_WRITE, op->arg);
		if (err) {
			dump_bytes("read back", land, op->len);
			die("pair %d: read-back of write %" PRIu64 " (%u bytes%s): %s%s", p->id,
			    op->arg, op->len, p->ops[op->arg % cfg.depth].inl ? ", inline" : "",
			    err, untouched(land, op->len, 0x5a) ?
			    " (completed successfully, but no byte of its data arrived)" : "");
		}
		count(&t->st.bytes_checked, op->len);
		break;
	case OP_READ:
		land = land_slot(p, op->slot);
		for (i = 0; i < op->len; i++)
			if (land[i] != pattern_byte(p->id, op->arg + i))
				die("pair %d: read %" PRIu64 " of %u bytes at %" PRIu64
				    ": byte %u is %#x, expected %#x%s", p->id, seq, op->len,
				    op->arg, i, land[i], pattern_byte(p->id, op->arg + i),
				    untouched(land, op->len, 0xa5) ?
				    " (completed successfully, but no byte of its data arrived)" : "");
		count(&t->st.bytes_checked, op->len);
		break;
	case OP_FAA:
		if (*faa_slot(p, op->slot) != op->arg)
			die("pair %d: fetch-and-add %" PRIu64 " (send-queue %" PRIu64 ") returned %#"
			    PRIx64 "%s", p->id, op->arg, seq, *faa_slot(p, op->slot),
			    *faa_slot(p, op->slot) == ~0ULL ?
			    ": completed successfully, but its result never arrived" :
			    " (run twice or lost?)");
		break;
	default:
		break;
	}
	count(&t->st.ops[op->kind], 1);
	count(&t->st.sq_completions, 1);
	p->sq_done++;
}

static void rq_complete(struct thr *t, struct pair *p, const struct ibv_wc *wc, uint64_t seq)
{
	int kind = p->msg_kind[seq % cfg.depth];
	const uint8_t *data;
	const char *err;
	uint32_t len;

	if (seq != p->msg_done)
		die("pair %d: receive completion %" PRIu64 " where %" PRIu64 " was next (%s)",
		    p->id, seq, p->msg_done, seq < p->msg_done ? "duplicate" : "one lost");
	if (seq >= p->msg_posted)
		die("pair %d: receive %" PRIu64 " completed but only %" PRIu64
		    " messages were sent", p->id, seq, p->msg_posted);
	if (kind == OP_SEND) {
		if (wc->opcode != IBV_WC_RECV || (wc->wc_flags & IBV_WC_WITH_IMM))
			die("pair %d: send %" PRIu64 " received as opcode %d flags %#x",
			    p->id, seq, wc->opcode, wc->wc_flags);
		data = p->rsp.buf + rsp_recv_off(seq);
	} else {
		if (wc->opcode != IBV_WC_RECV_RDMA_WITH_IMM || !(wc->wc_flags & IBV_WC_WITH_IMM))
			die("pair %d: write-imm %" PRIu64 " received as opcode %d flags %#x",
			    p->id, seq, wc->opcode, wc->wc_flags);
		if (ntohl(wc->imm_data) != (uint32_t)seq)
			die("pair %d: write-imm %" PRIu64 " carries immediate %u", p->id, seq,
			    ntohl(wc->imm_data));
		data = p->rsp.buf + rsp_wimm_off(seq);
	}
	len = wc->byte_len;
	if (len < sizeof(struct hdr) || len > (uint32_t)cfg.max_msg)
		die("pair %d: %s %" PRIu64 " received with byte_len %u", p->id, kind_name[kind],
		    seq, len);
	err = check_payload(data, len, p->id, kind, seq);
	if (err) {
		dump_bytes("received", data, len);
		die("pair %d: %s %" PRIu64 " of %u bytes: %s", p->id, kind_name[kind], seq, len,
		    err);
	}
	count(&t->st.bytes_checked, len);
	count(&t->st.rq_completions, 1);
	p->msg_done++;
	/* Its buffer is checked: give it back for message seq + depth. */
	post_recv(p);
}

static struct pair *pair_of(struct thr *t, uint64_t wr_id)
{
	int id = (wr_id & ~WRID_RECV) >> WRID_PAIR_SHIFT, i;

	for (i = 0; i < t->npairs; i++)
		if (t->pairs[i]->id == id)
			return t->pairs[i];
	die("completion with wr_id %#" PRIx64 " of no pair of thread %d", wr_id, t->index);
	return NULL;
}

/* Poll a CQ until empty; returns the number of completions. */
static int poll_cq(struct thr *t, struct ibv_cq *cq)
{
	struct ibv_wc wc[POLL_BATCH];
	int n, i, total = 0;

	do {
		n = ibv_poll_cq(cq, POLL_BATCH, wc);
		if (n < 0)
			die("poll_cq: %d", n);
		for (i = 0; i < n; i++) {
			struct pair *p = pair_of(t, wc[i].wr_id);
			uint64_t seq = wc[i].wr_id & WRID_SEQ_MASK;
			bool recv = wc[i].wr_id & WRID_RECV;

			if (wc[i].status != IBV_WC_SUCCESS)
				die("pair %d: %s completion %" PRIu64 ": status %s (%d), vendor_err %#x",
				    p->id, recv ? "receive" : "send-queue", seq,
				    ibv_wc_status_str(wc[i].status), wc[i].status, wc[i].vendor_err);
			if (wc[i].qp_num != (recv ? p->rsp.qp : p->req.qp)->qp_num)
				die("pair %d: completion %#" PRIx64 " names QP %u", p->id,
				    wc[i].wr_id, wc[i].qp_num);
			if (recv)
				rq_complete(t, p, &wc[i], seq);
			else
				sq_complete(t, p, &wc[i], seq);
			p->last_progress = now();
		}
		total += n;
	} while (n == POLL_BATCH);
	return total;
}

static bool outstanding(const struct pair *p)
{
	return p->sq_done != p->sq_posted || p->msg_done != p->msg_posted;
}

static void check_stalls(struct thr *t)
{
	double tnow = now();
	int i;

	for (i = 0; i < t->npairs; i++) {
		struct pair *p = t->pairs[i];

		if (outstanding(p) && tnow - p->last_progress > STALL_SECS)
			die("pair %d stalled for %d s: send queue %" PRIu64 " of %" PRIu64
			    " complete, messages %" PRIu64 " of %" PRIu64 " received",
			    p->id, STALL_SECS, p->sq_done, p->sq_posted, p->msg_done,
			    p->msg_posted);
	}
}

static void *run_thread(void *arg)
{
	struct thr *t = arg;
	double next_check = now() + 1;
	bool busy;
	int i;

	while (!stop_flag && now() < deadline) {
		for (i = 0; i < t->npairs; i++)
			if (rand_r(&t->seed) % 4)
				post_burst(t, t->pairs[i]);
		do {
			busy = poll_cq(t, t->cq[0]) + poll_cq(t, t->cq[1]) > 0;
		} while (busy);
		if (now() > next_check) {
			check_stalls(t);
			next_check = now() + 1;
		}
		/* Now and then a pause, so that engines go idle and ask for doorbells. */
		if (cfg.max_gap_us && !(rand_r(&t->seed) % 8))
			usleep(rand_r(&t->seed) % (cfg.max_gap_us + 1));
	}
	/* Drain. */
	for (;;) {
		bool left = false;

		for (i = 0; i < t->npairs; i++)
			left |= outstanding(t->pairs[i]);
		if (!left)
			break;
		poll_cq(t, t->cq[0]);
		poll_cq(t, t->cq[1]);
		check_stalls(t);
	}
	return NULL;
}

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static void sum_stats(struct thr *th, struct stats *s)
{
	int i, k;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < cfg.threads; i++) {
		s->sq_completions += read_count(&th[i].st.sq_completions);
		s->rq_completions += read_count(&th[i].st.rq_completions);
		s->bytes_checked += read_count(&th[i].st.bytes_checked);
		s->inline_posts += read_count(&th[i].st.inline_posts);
		s->list_posts += read_count(&th[i].st.list_posts);
		for (k = 0; k < OP_KINDS; k++)
			s->ops[k] += read_count(&th[i].st.ops[k]);
	}
}

static void destroy_end(struct end *e)
{
	if (ibv_destroy_qp(e->qp))
		die("destroy_qp");
	if (ibv_dereg_mr(e->mr))
		die("dereg_mr");
	free(e->buf);
}

int main(int argc, char **argv)
{
	const char *devnames = "xrxe0,xrxe1";
	struct sigaction sa = { .sa_handler = on_signal };
	struct thr *th;
	struct pair *pairs;
	pthread_t *tid;
	struct stats s;
	double start, next_report;
	int i, d, opt;

	cfg.seed = (unsigned int)time(NULL);
	cfg.ops = (1u << OP_SEND) | (1u << OP_WRITE_IMM) | (1u << OP_WRITE) |
		  (1u << OP_READ) | (1u << OP_FAA);
	while ((opt = getopt(argc, argv, "q:t:s:d:m:g:i:S:D:xT:o:")) != -1) {
		switch (opt) {
		case 'q':
			cfg.pairs = atoi(optarg);
			break;
		case 't':
			cfg.threads = atoi(optarg);
			break;
		case 's':
			cfg.secs = atoi(optarg);
			break;
		case 'd':
			cfg.depth = atoi(optarg);
			break;
		case 'm':
			cfg.max_msg = atoi(optarg);
			break;
		case 'g':
			cfg.max_gap_us = atoi(optarg);
			break;
		case 'i':
			cfg.report_secs = atoi(optarg);
			break;
		case 'S':
			cfg.seed = strtoul(optarg, NULL, 0);
			break;
		case 'D':
			devnames = optarg;
			break;
		case 'x':
			cfg.mix = true;
			break;
		case 'T':
			cfg.timeout = atoi(optarg);
			break;
		case 'o':
			cfg.ops = parse_ops(optarg);
			break;
		default:
			die("usage: xrxe-soak [-q PAIRS] [-t THREADS] [-s SECONDS] [-d DEPTH] "
			    "[-m MAX_MSG] [-g MAX_GAP_US] [-i REPORT_SECS] [-S SEED] "
			    "[-D DEV0,DEV1] [-x] [-T ACK_TIMEOUT] [-o OPS]");
		}
	}
	if (cfg.pairs < 1 || cfg.pairs > 4096 || cfg.threads < 1 || cfg.threads > cfg.pairs)
		die("need 1-4096 pairs and 1 to PAIRS threads");
	if (cfg.depth < 4 || cfg.depth > 256)
		die("depth must be 4-256");
	if (!cfg.ops)
		die("-o enables no operation");
	if (cfg.max_msg < MAX_INLINE || cfg.max_msg > PAT_LEN)
		die("max message must be %d-%d bytes", MAX_INLINE, PAT_LEN);
	crc_init();
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	open_devices(devnames);

	th = calloc(cfg.threads, sizeof(*th));
	pairs = calloc(cfg.pairs, sizeof(*pairs));
	tid = calloc(cfg.threads, sizeof(*tid));
	if (!th || !pairs || !tid)
		die("out of memory");
	for (i = 0; i < cfg.threads; i++) {
		int first = i * cfg.pairs / cfg.threads, last = (i + 1) * cfg.pairs / cfg.threads;
		int on_dev[2] = { 0, 0 }, k, rd, sd;

		th[i].index = i;
		th[i].seed = cfg.seed + 7919 * i;
		th[i].npairs = last - first;
		th[i].pairs = calloc(th[i].npairs, sizeof(*th[i].pairs));
		if (!th[i].pairs)
			die("out of memory");
		for (k = first; k < last; k++) {
			pair_devices(k, &rd, &sd);
			on_dev[rd]++;
			on_dev[sd]++;
		}
		/* Room for every WR of every QP of the thread on the device. */
		for (d = 0; d < 2; d++) {
			th[i].cq[d] = ibv_create_cq(devs[d].ctx, on_dev[d] * (cfg.depth + 1) + 1,
						    NULL, NULL, 0);
			if (!th[i].cq[d])
				die("create_cq on %s: %s", devs[d].name, strerror(errno));
		}
		for (k = first; k < last; k++) {
			setup_pair(&pairs[k], k, &th[i]);
			th[i].pairs[k - first] = &pairs[k];
		}
	}
	printf("xrxe-soak: %d pairs on %s and %s, %d threads, depth %d, messages up to %d B, "
	       "gaps up to %u us, %s, seed %u\n", cfg.pairs, devs[0].name, devs[1].name,
	       cfg.threads, cfg.depth, cfg.max_msg, cfg.max_gap_us,
	       cfg.mix ? "per-QP modes mixed on doorbell-less send queues" :
	       "process-wide modes", cfg.seed);
	fflush(stdout);

	start = now();
	deadline = start + cfg.secs;
	for (i = 0; i < cfg.threads; i++)
		if (pthread_create(&tid[i], NULL, run_thread, &th[i]))
			die("pthread_create");
	next_report = start + cfg.report_secs;
	while (!stop_flag && now() < deadline) {
		usleep(100000);
		if (cfg.report_secs > 0 && now() >= next_report) {
			sum_stats(th, &s);
			printf("xrxe-soak: %.0f s: %" PRIu64 " send-queue and %" PRIu64
			       " receive completions, %" PRIu64 " bytes checked\n", now() - start,
			       s.sq_completions, s.rq_completions, s.bytes_checked);
			fflush(stdout);
			next_report += cfg.report_secs;
		}
	}
	for (i = 0; i < cfg.threads; i++)
		pthread_join(tid[i], NULL);

	/* Balance: everything posted completed once; the counters agree. */
	for (i = 0; i < cfg.pairs; i++) {
		struct pair *p = &pairs[i];
		uint64_t counter;

		memcpy(&counter, p->rsp.buf + rsp_counter_off(), sizeof(counter));
		if (counter != p->faa_posted)
			die("pair %d: the responder's counter is %" PRIu64 " after %" PRIu64
			    " fetch-and-adds", p->id, counter, p->faa_posted);
		if (p->rq_posted != p->msg_done + cfg.depth)
			die("pair %d: %" PRIu64 " receives posted for %" PRIu64 " messages",
			    p->id, p->rq_posted, p->msg_done);
		if (!p->sq_done)
			die("pair %d never completed anything", p->id);
	}
	sum_stats(th, &s);
	if (s.sq_completions != s.ops[OP_SEND] + s.ops[OP_WRITE_IMM] + s.ops[OP_WRITE] +
	    s.ops[OP_READBACK] + s.ops[OP_READ] + s.ops[OP_FAA])
		die("completion counts do not add up");

	for (i = 0; i < cfg.pairs; i++) {
		destroy_end(&pairs[i].req);
		destroy_end(&pairs[i].rsp);
		free(pairs[i].ops);
		free(pairs[i].msg_kind);
	}
	for (i = 0; i < cfg.threads; i++) {
		for (d = 0; d < 2; d++)
			if (ibv_destroy_cq(th[i].cq[d]))
				die("destroy_cq");
		free(th[i].pairs);
	}
	for (d = 0; d < 2; d++) {
		if (ibv_dealloc_pd(devs[d].pd) || ibv_close_device(devs[d].ctx))
			die("closing %s", devs[d].name);
	}
	printf("xrxe-soak: PASS: %d pairs, %.0f s: %" PRIu64 " send-queue and %" PRIu64
	       " receive completions, each once and in order, 0 lost, 0 duplicated; %" PRIu64
	       " bytes checked; sends %" PRIu64 ", write-imm %" PRIu64 ", writes %" PRIu64
	       " read back %" PRIu64 ", pattern reads %" PRIu64 ", fetch-adds %" PRIu64
	       "; inline posts %" PRIu64 ", list posts %" PRIu64 "\n", cfg.pairs, now() - start,
	       s.sq_completions, s.rq_completions, s.bytes_checked, s.ops[OP_SEND],
	       s.ops[OP_WRITE_IMM], s.ops[OP_WRITE], s.ops[OP_READBACK], s.ops[OP_READ],
	       s.ops[OP_FAA], s.inline_posts, s.list_posts);
	free(pairs);
	free(th);
	free(tid);
	return 0;
}
