// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Write coalescing's append workload, or with -t flush domains' records
 * then a tag (bench/xrxe-bench --workload coalesce runs it; the method:
 * docs/bench/coalesce.md). RC QPs on DEV0 write records to DEV1 (append:
 * into a ring each), each write its own ibv_post_send(), one thread busy
 * polling for them all. Every record is checked once the QPs have drained.
 * One JSON object on stdout; it fails only when it could not measure, or
 * when what landed is wrong.
 *
 *   -q QPS	writers (default 1)
 *   -s SIZE	a record's size (default 64)
 *   -g GAP	bytes skipped after each record, so that none may merge (default 0)
 *   -d DEPTH	writes outstanding a QP (default 256)
 *   -S EVERY	every EVERY-th write signalled (default 16)
 *   -R RING	the ring's bytes (default 1 MiB)
 *   -M MTU	the path MTU asked for, at most the port's active one (default 4096)
 *   -c BYTES	xrxedv_qp_set_coalesce() (default: the provider's XRXE_COALESCE)
 *   -I		inline writes
 *   -t MODE	records then a tag: one, domain, wait or domain1
 *   -r RECORDS	-t: records a round (default 16)
 *   -w S	the window (default 5)
 *   -W S	the warm-up before it (default 1)
 *   -D DRIVER	xrxe (default) or rxe
 */
#include "bench_lib.h"
#include <rdma/rdma_user_xrxe.h>

#define MAX_QPS		16
#define POLL_BATCH	32

/* The device counters a run reports, each on both devices. */
static const char *const dev_counters[] = {
	"sent_pkts", "rcvd_pkts", "xrxe_wqes_coalesced", "xrxe_msgs_coalesced",
	"xrxe_domain_flushes", "xrxe_domain_wait_us",
};
#define NDEV_COUNTERS	(sizeof(dev_counters) / sizeof(dev_counters[0]))

/* A writer on DEV0 and its peer on DEV1 (with -t, a QP of the tagger). */
struct writer {
	struct ibv_qp *sqp, *rqp;
	struct ibv_mr *smr, *rmr;
	uint8_t *src;		/* DEPTH records, the i-th write uses i % DEPTH */
	uint8_t *ring;
	uint64_t posted;	/* writes posted */
	uint64_t done;		/* writes known complete: up to a signalled one */
	uint64_t done0;		/* done at the window's start */
	struct xrxedv_qp_counters c0, c1;	/* at the window's ends */
};

static struct ibv_cq *scq, *rcq;
static struct writer writers[MAX_QPS];
static unsigned int nqps = 1, depth = 256, signal_every = 16;
static uint32_t size = 64, gap, ring_bytes = 1 << 20, path_mtu = 4096;
static enum ibv_mtu mtu;	/* -M's, at most the port's active MTU */
static int32_t coalesce = -1;	/* -1: as the provider's XRXE_COALESCE says */
static bool use_inline;

/* Slots of a ring: each a record and the gap after it. */
static uint64_t ring_slots(void)
{
	return ring_bytes / (size + gap);
}

/* Byte k of the record of write seq: its number, then a pattern of it. */
static void fill_record(uint8_t *p, uint64_t seq)
{
	uint32_t k;

	for (k = 0; k < size; k++)
		p[k] = k < sizeof(seq) ? (uint8_t)(seq >> (8 * k)) :
					 (uint8_t)(seq * 131 + k * 7 + 1);
}

static uint32_t mtu_bytes(enum ibv_mtu m)
{
	return 128u << m;
}

static enum ibv_mtu pick_mtu(void)
{
	struct ibv_port_attr pa;
	enum ibv_mtu want = IBV_MTU_256;

	while (want < IBV_MTU_4096 && mtu_bytes(want) != path_mtu)
		want++;
	if (mtu_bytes(want) != path_mtu)
		die("-M 256, 512, 1024, 2048 or 4096");
	if (ibv_query_port(tx.ctx, PORT, &pa))
		die("query port of %s0", driver);
	return pa.active_mtu < want ? pa.active_mtu : want;
}

static void read_counters(int64_t v[2][NDEV_COUNTERS])
{
	unsigned int i;

	for (i = 0; i < NDEV_COUNTERS; i++) {
		v[0][i] = read_counter(false, HW_COUNTERS, tx.name, dev_counters[i]);
		v[1][i] = read_counter(false, HW_COUNTERS, rx.name, dev_counters[i]);
	}
}

/* The JSON object of both devices' counters that grew from d0 to d1. */
static void print_device_deltas(int64_t d0[2][NDEV_COUNTERS], int64_t d1[2][NDEV_COUNTERS])
{
	unsigned int i, k;

	printf("\"devices\": {");
	for (i = 0; i < 2; i++) {
		bool first = true;

		printf("%s\"%s\": {", i ? ", " : "", i ? rx.name : tx.name);
		for (k = 0; k < NDEV_COUNTERS; k++) {
			if (d0[i][k] < 0 || d1[i][k] < 0)
				continue;
			printf("%s\"%s\": %" PRId64, first ? "" : ", ", dev_counters[k],
			       d1[i][k] - d0[i][k]);
			first = false;
		}
		printf("}");
	}
	printf("}");
}

static void writer_init(struct writer *w)
{
	int ret;

	w->smr = alloc_mr(&tx, (size_t)depth * size, 0);
	w->rmr = alloc_mr(&rx, ring_bytes, PEER_ACCESS);
	w->src = w->smr->addr;
	w->ring = w->rmr->addr;
	w->sqp = make_qp(&tx, IBV_QPT_RC, scq, depth, 1, use_inline ? size : 0);
	w->rqp = make_qp(&rx, IBV_QPT_RC, rcq, 1, 1, 0);
	if (xrxe && coalesce >= 0) {
		ret = xrxedv_qp_set_coalesce(w->sqp, coalesce);
		if (ret)
			die("coalescing of %d bytes on QP %u: %s", coalesce,
			    w->sqp->qp_num, strerror(ret));
	}
	connect_pair(w->sqp, w->rqp, mtu);
}

/* Post w's next write, one ibv_post_send() for it. */
static void writer_post(struct writer *w)
{
	uint64_t seq = w->posted;
	uint8_t *rec = w->src + (seq % depth) * size;
	struct ibv_sge sge = { (uintptr_t)rec, size, w->smr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = seq, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
	}, *bad;
	int ret;

	/* Its source slot's last write has completed: posted - done < depth. */
	fill_record(rec, seq);
	if ((seq + 1) % signal_every == 0)
		wr.send_flags |= IBV_SEND_SIGNALED;
	if (use_inline)
		wr.send_flags |= IBV_SEND_INLINE;
	wr.wr.rdma.remote_addr = (uintptr_t)w->ring +
				 (seq % ring_slots()) * (size + gap);
	wr.wr.rdma.rkey = w->rmr->rkey;
	ret = ibv_post_send(w->sqp, &wr, &bad);
	if (ret)
		die("post write %" PRIu64 " on QP %u: %s", seq, w->sqp->qp_num,
		    strerror(ret));
	w->posted++;
}

/* Retire what completed; which writer a completion is for, by its QP. */
static void poll_writers(void)
{
	struct ibv_wc wc[POLL_BATCH];
	unsigned int k;
	int n, i;

	n = ibv_poll_cq(scq, POLL_BATCH, wc);
	if (n < 0)
		die("poll");
	for (i = 0; i < n; i++) {
		for (k = 0; k < nqps && writers[k].sqp->qp_num != wc[i].qp_num; k++)
			;
		if (k == nqps)
			die("a completion of QP %u, not ours", wc[i].qp_num);
		if (wc[i].status != IBV_WC_SUCCESS)
			die("write %" PRIu64 " on QP %u: %s", wc[i].wr_id, wc[i].qp_num,
			    ibv_wc_status_str(wc[i].status));
		/* In order: a signalled write completes every one before it. */
		if (wc[i].wr_id + 1 <= writers[k].done)
			die("QP %u completed write %" PRIu64 " after %" PRIu64,
			    wc[i].qp_num, wc[i].wr_id, writers[k].done);
		writers[k].done = wc[i].wr_id + 1;
	}
}

/*
 * Every slot of w's ring holds the last record written to it, every other
 * byte zero. Returns the slots checked.
 */
static uint64_t verify_ring(struct writer *w)
{
	uint64_t slots = ring_slots(), s, seq, k;
	uint32_t stride = size + gap;
	uint8_t want[4096];

	for (s = 0; s < slots && s < w->posted; s++) {
		/* The last write to slot s: the largest seq < posted with seq % slots == s. */
		seq = (w->posted - 1 - s) / slots * slots + s;
		fill_record(want, seq);
		if (memcmp(w->ring + s * stride, want, size))
			die("QP %u: slot %" PRIu64 " of its ring does not hold write %"
			    PRIu64, w->sqp->qp_num, s, seq);
		for (k = s * stride + size; k < (s + 1) * stride; k++)
			if (w->ring[k])
				die("QP %u: byte %" PRIu64 " of its ring, in a gap, was written",
				    w->sqp->qp_num, k);
	}
	/* Past the last slot written: nothing. */
	for (k = s * stride; k < ring_bytes; k++)
		if (w->ring[k])
			die("QP %u: byte %" PRIu64 " of its ring, past its last slot written, was written",
			    w->sqp->qp_num, k);
	return s;
}

/*
 * Records then a tag (-t): a round's records go to set round % TAG_SETS of
 * the region, then its tag; at most OUT_ROUNDS rounds outstanding, so that
 * no later round writes the set the tag names while the writer checks it.
 */
#define TAG_SETS	3
#define OUT_ROUNDS	2
#define TAG_WR		0xff	/* the wr_id's low byte of a tag */

enum tag_mode { TAG_NONE, TAG_ONE, TAG_DOMAIN, TAG_WAIT, TAG_DOMAIN1 };
static const char *const tag_mode_names[] = {
	[TAG_ONE] = "one", [TAG_DOMAIN] = "domain", [TAG_WAIT] = "wait",
	[TAG_DOMAIN1] = "domain1",
};
static enum tag_mode tag_mode;
static unsigned int records = 16;

/* The tagger's QPs are writers[0 to nqps - 1], the tag's QP 0. */
struct tagger {
	struct xrxedv_flush_domain *dom;
	struct ibv_mr *smr, *rmr;
	uint8_t *src, *region;	/* the tag first, in a line of its own */
	uint64_t posted, tagged, done;	/* rounds posted, tags posted, tags completed */
	uint64_t done0;		/* done at the window's start */
	/* Records of a round not yet completed (wait), by round % 4. */
	unsigned int pending[4];
	uint64_t seen, checks;	/* the tag last read, times it moved */
	uint64_t flushes0;	/* QP 0's domain_flushes before the first round */
};

static struct tagger tg;

static size_t tag_record_off(uint64_t round, unsigned int i)
{
	return 64 + ((round % TAG_SETS) * records + i) * (size_t)size;
}

/* Record i of a round: the round at both ends, a pattern between. */
static void fill_tag_record(uint8_t *p, uint64_t round, unsigned int i)
{
	uint32_t k;

	for (k = 0; k < size; k++)
		p[k] = (uint8_t)(round * 131 + i * 29 + k * 7 + 1);
	for (k = 0; k < 8; k++)
		p[k] = p[size - 8 + k] = (uint8_t)(round >> (8 * k));
}

static void tagger_init(void)
{
	size_t len = 64 + (size_t)TAG_SETS * records * size;	/* the tag's line, the sets */
	struct writer *w;
	unsigned int k;
	int ret;

	tg.smr = alloc_mr(&tx, len, 0);
	tg.rmr = alloc_mr(&rx, len, PEER_ACCESS);
	tg.src = tg.smr->addr;
	tg.region = tg.rmr->addr;
	if (tag_mode == TAG_DOMAIN || tag_mode == TAG_DOMAIN1) {
		tg.dom = xrxedv_create_flush_domain(tx.ctx);
		if (!tg.dom)
			die("a flush domain: %s", strerror(errno));
	}
	for (k = 0; k < nqps; k++) {
		w = &writers[k];
		/* Every record of OUT_ROUNDS rounds and their tags, with room. */
		w->sqp = make_qp(&tx, IBV_QPT_RC, scq, 2 * OUT_ROUNDS * (records + 1), 1, 0);
		w->rqp = make_qp(&rx, IBV_QPT_RC, rcq, 1, 1, 0);
		/* Engines of their own: one ordering domain each. */
		if (tag_mode == TAG_DOMAIN || tag_mode == TAG_WAIT) {
			ret = xrxedv_qp_set_ocu(w->sqp, XRXEDV_OCU_DYNAMIC, 100 + k);
			if (ret)
				die("OCU of QP %u: %s", k, strerror(ret));
		}
		if (tg.dom) {
			ret = xrxedv_qp_set_flush_domain(w->sqp, tg.dom);
			if (ret)
				die("QP %u into the flush domain: %s", k, strerror(ret));
		}
		connect_pair(w->sqp, w->rqp, mtu);
	}
	tg.flushes0 = counters_of(writers[0].sqp).domain_flushes;
}

static void tag_write(unsigned int q, uint64_t wr_id, size_t src_off, size_t dst_off,
		      uint32_t len, unsigned int flags)
{
	struct ibv_sge sge = { (uintptr_t)tg.src + src_off, len, tg.smr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = flags,
		.wr.rdma = { (uintptr_t)tg.region + dst_off, tg.rmr->rkey },
	}, *bad;
	int ret;

	ret = ibv_post_send(writers[q].sqp, &wr, &bad);
	if (ret)
		die("round %" PRIu64 ", %s on QP %u: %s", wr_id >> 8,
		    (wr_id & 0xff) == TAG_WR ? "the tag" : "a record", q, strerror(ret));
}

/*
 * The tag of a round, into the region's first 8 bytes, on QP 0. Its
 * source is 8 bytes of the source's tag line a set: a set is reused only
 * once the tag of the round after it completed, in order after this one.
 */
static void tag_post_tag(uint64_t round)
{
	size_t off = 8 + (round % TAG_SETS) * 8;

	memcpy(tg.src + off, &round, 8);
	tag_write(0, round << 8 | TAG_WR, off, 0, 8,
		  IBV_SEND_SIGNALED | (tg.dom ? XRXEDV_SEND_DOMAIN_FLUSH : 0));
	tg.tagged = round;
}

/* Round posted + 1: its records, the far QPs first, then (not wait) its tag. */
static void tag_post_round(void)
{
	uint64_t round = tg.posted + 1;
	unsigned int i, q, per = records / nqps;

	for (i = 0; i < records; i++)
		fill_tag_record(tg.src + tag_record_off(round, i), round, i);
	for (q = nqps; q-- > 0;)
		for (i = q * per; i < (q + 1) * per; i++)
			tag_write(q, round << 8 | q, tag_record_off(round, i),
				  tag_record_off(round, i), size,
				  i == (q + 1) * per - 1 && nqps > 1 ? IBV_SEND_SIGNALED : 0);
	tg.pending[round % 4] = nqps;
	tg.posted = round;
	if (tag_mode != TAG_WAIT)
		tag_post_tag(round);
}

static void tag_poll(void)
{
	struct ibv_wc wc[POLL_BATCH];
	uint64_t round;
	int n, i;

	n = ibv_poll_cq(scq, POLL_BATCH, wc);
	if (n < 0)
		die("poll");
	for (i = 0; i < n; i++) {
		round = wc[i].wr_id >> 8;
		if (wc[i].status != IBV_WC_SUCCESS)
			die("round %" PRIu64 " on QP %u: %s", round, wc[i].qp_num,
			    ibv_wc_status_str(wc[i].status));
		if ((wc[i].wr_id & 0xff) == TAG_WR) {
			if (round != tg.done + 1)
				die("tag %" PRIu64 " completed after tag %" PRIu64, round, tg.done);
			tg.done = round;
		} else if (!--tg.pending[round % 4] && tag_mode == TAG_WAIT) {
			/* Every record of the round completed: now its tag. */
			if (round != tg.tagged + 1)
				die("the records of round %" PRIu64 " completed before round %"
				    PRIu64 "'s", round, tg.tagged + 1);
			tag_post_tag(round);
		}
	}
}

/* Whenever the tag moved: both ends of its round's records hold the round. */
static void tag_check(void)
{
	uint64_t t = __atomic_load_n((uint64_t *)tg.region, __ATOMIC_ACQUIRE), v;
	unsigned int i;

	if (t == tg.seen)
		return;
	if (t < tg.seen || t > tg.tagged)
		die("the tag went from %" PRIu64 " to %" PRIu64 " (last posted %" PRIu64 ")",
		    tg.seen, t, tg.tagged);
	for (i = 0; i < 2 * records; i++) {
		/* Record i / 2's start, then its end. */
		memcpy(&v, tg.region + tag_record_off(t, i / 2) + (i % 2) * (size - 8), 8);
		if (v != t)
			die("the tag says round %" PRIu64 " but record %u holds round %"
			    PRIu64 " at its %s: the tag came before its records", t, i / 2, v,
			    i % 2 ? "end" : "start");
	}
	tg.seen = t;
	tg.checks++;
}

/* After the drain: the last round whole, and every set its last round. */
static void tag_verify(void)
{
	uint8_t want[4096];
	uint64_t t, round;
	unsigned int i;

	memcpy(&t, tg.region, 8);
	if (t != tg.posted)
		die("the tag holds %" PRIu64 ", the last round was %" PRIu64, t, tg.posted);
	for (round = tg.posted > TAG_SETS ? tg.posted - TAG_SETS + 1 : 1;
	     round <= tg.posted; round++)
		for (i = 0; i < records; i++) {
			fill_tag_record(want, round, i);
			if (memcmp(tg.region + tag_record_off(round, i), want, size))
				die("record %u of round %" PRIu64 " is not what was written",
				    i, round);
		}
}

/*
 * What each QP's status page and counters say, for a run that stopped:
 * which queue holds what, and whether its engine still serves it.
 */
static void tag_dump_stuck(void)
{
	const struct xrxe_qp_status *st;
	struct xrxedv_qp_counters c;
	struct xrxedv_sq_info info;
	struct ibv_qp *qp;
	unsigned int k;

	fprintf(stderr, "stuck: rounds posted %" PRIu64 ", tagged %" PRIu64 ", done %" PRIu64 "\n",
		tg.posted, tg.tagged, tg.done);
	for (k = 0; k < nqps; k++) {
		qp = writers[k].sqp;
		c = counters_of(qp);
		if (xrxedv_query_sq(qp, &info, sizeof(info)))
			continue;
		st = info.status;
		fprintf(stderr, "stuck: QP %u (qpn %u): fetched %u completed %u need_wakeup %u engine %u ocu %u; "
			"wqes_fetched %" PRIu64 " turns %" PRIu64 " doorbells %" PRIu64 "/%" PRIu64
			" wakeups %" PRIu64 " domain_flushes %" PRIu64 "\n",
			k, qp->qp_num, st->sq_fetched, st->sq_completed, st->need_wakeup,
			st->engine, st->ocu, c.wqes_fetched, c.engine_turns, c.doorbells,
			c.kernel_doorbells, c.engine_wakeups, c.domain_flushes);
	}
}

/* Post what may go (unless post is false), then retire what completed. */
static void turn(bool post)
{
	unsigned int k;

	if (tag_mode) {
		while (post && tg.posted - tg.done < OUT_ROUNDS)
			tag_post_round();
		tag_poll();
		tag_check();
		return;
	}
	for (k = 0; post && k < nqps; k++)
		while (writers[k].posted - writers[k].done < depth)
			writer_post(&writers[k]);
	poll_writers();
}

/*
 * Whether a write is outstanding. Every writer ends on a signalled write:
 * it was filled to done + depth, both multiples of signal_every.
 */
static bool outstanding(void)
{
	unsigned int k;

	if (tag_mode)
		return tg.done != tg.posted;
	for (k = 0; k < nqps; k++)
		if (writers[k].done != writers[k].posted)
			return true;
	return false;
}

/*
 * Either workload's run until t_end, the device counters (d0, d1) and the
 * QPs' taken at the window's ends; then, if anything completed in the
 * window, the drain. Returns the window's seconds.
 */
static double measure(int64_t d0[2][NDEV_COUNTERS], int64_t d1[2][NDEV_COUNTERS])
{
	int64_t t, t0 = 0, t1, drain_end;
	bool measuring = false;
	uint64_t done = 0;
	unsigned int k;

	scq = make_cq(&tx, tag_mode ? OUT_ROUNDS * (nqps + 1) * 2 + 16 :
		      nqps * (depth / signal_every) + 16, NULL);
	rcq = make_cq(&rx, 16, NULL);
	if (tag_mode)
		tagger_init();
	for (k = 0; !tag_mode && k < nqps; k++)
		writer_init(&writers[k]);
	set_window();
	for (;;) {
		turn(true);
		t = now_ns();
		if (!measuring && t >= t_measure) {
			measuring = true;
			read_counters(d0);
			for (k = 0; k < nqps; k++) {
				writers[k].done0 = writers[k].done;
				writers[k].c0 = counters_of(writers[k].sqp);
			}
			tg.done0 = tg.done;
			t0 = now_ns();
		}
		if (t >= t_end)
			break;
	}
	t1 = now_ns();
	read_counters(d1);
	for (k = 0; k < nqps; k++) {
		writers[k].c1 = counters_of(writers[k].sqp);
		done += writers[k].done - writers[k].done0;
	}
	if (tag_mode ? tg.done == tg.done0 : !done)
		die("no %s completed in the window", tag_mode ? "round" : "write");
	drain_end = now_ns() + DRAIN_SECS * NS_PER_S;
	while (outstanding()) {
		turn(false);
		if (now_ns() <= drain_end)
			continue;
		if (tag_mode)
			tag_dump_stuck();
		die("%s still outstanding %d s after the window", tag_mode ? "rounds" : "writes",
		    DRAIN_SECS);
	}
	return (t1 - t0) / 1e9;
}

static int tag_main(void)
{
	int64_t d0[2][NDEV_COUNTERS], d1[2][NDEV_COUNTERS];
	const struct xrxedv_qp_counters *a, *b;
	uint64_t rounds, flushes;
	unsigned int k;
	double secs;

	if (records % nqps)
		die("-r a multiple of -q: the records spread evenly");
	if (size < 16)
		die("-s at least 16 with -t: a record carries its round at both ends");
	if (!xrxe && tag_mode != TAG_ONE)
		die("-t %s needs xrxe's flush domains or OCUs", tag_mode_names[tag_mode]);
	if ((tag_mode == TAG_ONE || tag_mode == TAG_DOMAIN1) && nqps != 1)
		die("-t %s is one QP's", tag_mode_names[tag_mode]);
	secs = measure(d0, d1);
	rounds = tg.done - tg.done0;
	tag_check();
	if (!tg.checks)
		die("the tag was never seen to move");
	tag_verify();
	if (tg.dom) {
		flushes = counters_of(writers[0].sqp).domain_flushes - tg.flushes0;
		if (flushes != tg.posted)
			die("domain_flushes grew by %" PRIu64 ", %" PRIu64 " tags were flagged",
			    flushes, tg.posted);
	}

	printf("{\"workload\": \"tag\", \"driver\": \"%s\", \"tag_mode\": \"%s\", "
	       "\"qps\": %u, \"size\": %u, \"records_per_round\": %u, "
	       "\"outstanding_rounds\": %u, \"path_mtu\": %u, \"coalesce_env\": \"%s\", "
	       "\"window_s\": %.3f, \"rounds\": %" PRIu64 ", \"records\": %" PRIu64
	       ", \"rounds_per_s\": %.1f, \"records_per_s\": %.1f, \"rounds_posted\": %"
	       PRIu64 ", \"tag_checks\": %" PRIu64 ", ",
	       driver, tag_mode_names[tag_mode], nqps, size, records, OUT_ROUNDS,
	       mtu_bytes(mtu), getenv("XRXE_COALESCE") ?: "", secs, rounds,
	       rounds * records, rounds / secs, rounds * records / secs, tg.posted,
	       tg.checks);
	print_device_deltas(d0, d1);
	if (xrxe) {
		printf(", \"qp_counters\": [");
		for (k = 0; k < nqps; k++) {
			a = &writers[k].c0;
			b = &writers[k].c1;
			printf("%s{\"engine\": %d, \"ocu\": %d, \"ocu_remaps\": %" PRIu64
			       ", \"wqes_fetched\": %" PRIu64 ", \"wqes_coalesced\": %" PRIu64
			       ", \"domain_flushes\": %" PRIu64 ", \"domain_wait_us\": %" PRIu64
			       "}", k ? ", " : "", known(b->engine), known(b->ocu),
			       b->ocu_remaps - a->ocu_remaps, b->wqes_fetched - a->wqes_fetched,
			       b->wqes_coalesced - a->wqes_coalesced,
			       b->domain_flushes - a->domain_flushes,
			       b->domain_wait_us - a->domain_wait_us);
		}
		printf("]");
	}
	printf("}\n");
	return 0;
}

int main(int argc, char **argv)
{
	int64_t d0[2][NDEV_COUNTERS], d1[2][NDEV_COUNTERS];
	const struct xrxedv_qp_counters *a, *b;
	uint64_t msgs = 0, checked = 0, posted = 0;
	unsigned int k;
	double secs;
	int c;

	while ((c = getopt(argc, argv, "D:q:s:g:d:S:R:M:c:Iw:W:t:r:")) != -1) {
		switch (c) {
		case 'q': nqps = strtoul(optarg, NULL, 0); break;
		case 's': size = strtoul(optarg, NULL, 0); break;
		case 'g': gap = strtoul(optarg, NULL, 0); break;
		case 'd': depth = strtoul(optarg, NULL, 0); break;
		case 'S': signal_every = strtoul(optarg, NULL, 0); break;
		case 'R': ring_bytes = strtoul(optarg, NULL, 0); break;
		case 'M': path_mtu = strtoul(optarg, NULL, 0); break;
		case 'c': coalesce = strtol(optarg, NULL, 0); break;
		case 'I': use_inline = true; break;
		case 't':
			for (tag_mode = TAG_ONE; tag_mode <= TAG_DOMAIN1; tag_mode++)
				if (!strcmp(optarg, tag_mode_names[tag_mode]))
					break;
			if (tag_mode > TAG_DOMAIN1)
				die("-t one, domain, wait or domain1");
			break;
		case 'r': records = strtoul(optarg, NULL, 0); break;
		default: common_opt(c, "coalesce-bench.c");
		}
	}
	if (!nqps || nqps > MAX_QPS)
		die("-q 1 to %d", MAX_QPS);
	if (!records || records > 1024)
		die("-r 1 to 1024");
	if (size < 8 || size > 4096)
		die("-s 8 to 4096: a record starts with its 8-byte number");
	if (!signal_every || depth < 2 * signal_every || depth % signal_every)
		die("-d a multiple of -S, at least two signalled writes deep");
	if (ring_slots() < depth)
		die("-R holds fewer slots than -d writes");
	if (window <= 0 || warmup < 0)
		die("-w positive, -W not negative");
	open_devs(false);
	mtu = pick_mtu();
	if (tag_mode)
		return tag_main();
	secs = measure(d0, d1);
	/* Every write has completed: check what landed. */
	for (k = 0; k < nqps; k++) {
		msgs += writers[k].done - writers[k].done0;
		checked += verify_ring(&writers[k]);
		posted += writers[k].posted;
	}

	printf("{\"driver\": \"%s\", \"qps\": %u, \"size\": %u, \"gap\": %u, "
	       "\"stride\": %u, \"depth\": %u, \"signal_every\": %u, \"inline\": %s, "
	       "\"ring_bytes\": %u, \"path_mtu\": %u, \"coalesce_set\": %d, "
	       "\"coalesce_env\": \"%s\", \"window_s\": %.3f, \"messages\": %" PRIu64
	       ", \"msgs_per_s\": %.1f, \"bytes_per_s\": %.1f, \"writes_posted\": %"
	       PRIu64 ", \"slots_verified\": %" PRIu64 ", ",
	       driver, nqps, size, gap, size + gap, depth, signal_every,
	       use_inline ? "true" : "false", ring_bytes, mtu_bytes(mtu), coalesce,
	       getenv("XRXE_COALESCE") ?: "", secs, msgs, msgs / secs,
	       msgs * (double)size / secs, posted, checked);
	print_device_deltas(d0, d1);
	if (xrxe) {
		printf(", \"qp_counters\": [");
		for (k = 0; k < nqps; k++) {
			a = &writers[k].c0;
			b = &writers[k].c1;
			printf("%s{\"messages\": %" PRIu64 ", \"wqes_fetched\": %" PRIu64
			       ", \"wqes_coalesced\": %" PRIu64 ", \"msgs_coalesced\": %" PRIu64
			       ", \"doorbells\": %" PRIu64 ", \"ll_accepted\": %" PRIu64
			       ", \"engine_turns\": %" PRIu64 "}", k ? ", " : "",
			       writers[k].done - writers[k].done0,
			       b->wqes_fetched - a->wqes_fetched,
			       b->wqes_coalesced - a->wqes_coalesced,
			       b->msgs_coalesced - a->msgs_coalesced,
			       b->kernel_doorbells - a->kernel_doorbells,
			       b->kernel_ll_accepted - a->kernel_ll_accepted,
			       b->engine_turns - a->engine_turns);
		}
		printf("]");
	}
	printf("}\n");
	return 0;
}
