// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * usage: xrxe-domain-flush-test DEVICE [ROUNDS]
 *        xrxe-domain-flush-test DEVICE snapshot-cost [OPTIONS]
 *
 * Flush domains, which pyverbs cannot reach (xrxedv calls):
 *
 *   - records then a tag: four RC QPs of a flush domain, each on the OCU of
 *     its own ordering domain, write records (three QPs eight of 4 KiB
 *     each, the tag's QP one), then the first QP writes the round number
 *     as a tag with XRXEDV_SEND_DOMAIN_FLUSH; a reader thread polls the
 *     tag, and every time it moves checks that no record is older than
 *     it, for ROUNDS rounds (default 100). The same without the flag is
 *     run first, as the control: its early tags are reported, not judged.
 *     The tag QP's domain_flushes counter and the device's
 *     xrxe_domain_flushes grow by exactly ROUNDS;
 *   - the flag on a QP in no domain waits for that QP alone;
 *   - a member whose write is never answered holds the flushes; a QP held
 *     at its flush can be destroyed, and destroying the stuck member
 *     lets the other flush go;
 *   - a member's ring out of order (its next slot empty, every other one
 *     of a later lap), and then its next slot of a later lap, holds a
 *     flush only until the watchdog looks;
 *   - the errors: a QP of another context or device (EINVAL), UC and UD
 *     QPs (EOPNOTSUPP), a domain destroyed with QPs in it (EBUSY), a QP
 *     with WQEs in flight (EBUSY), a 17th QP (ENOSPC);
 *   - two threads move one QP between two domains, each of which keeps a
 *     member of its own, with modifies written to the command file (the
 *     provider serialises its own; XRXE_FDOM_RACE_THREADS threads,
 *     default 2), for XRXE_FDOM_RACE_SECS seconds (default 5), the QP
 *     destroyed and made again every other round:
 *     it leaves both, every round the members' domain flushes complete,
 *     and at the end each domain takes exactly its 16 QPs (no member
 *     left over) and the context closes with none left;
 *   - classic send queues (XRXE_DOORBELL_LESS=0): no domain can be
 *     created (EOPNOTSUPP) and ibv_post_send() refuses the flag (EINVAL).
 *
 * Exit 0 when all holds.
 *
 * snapshot-cost is a measurement, not a test: what one domain flush costs
 * when the other members' rings are full, the snapshot being taken with
 * the domain's lock held and interrupts off (see snapshot_cost() below;
 * tests/flush/snapshot-cost.sh drives it with ftrace in the testbed).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <infiniband/xrxedv.h>
#include <rdma/rdma_user_xrxe.h>

#include "xrxe_test_dev.h"
#include "xrxe_test_rc.h"
#include "xrxe_test_uverbs.h"

#define PORT		1
#define GID_INDEX	0
#define QPS		4
#define RECS		8		/* records of a QP other than the tag's */
#define REC		4096
#define TAG_RECS	1		/* records of the tag's QP */
#define REGION		(RECS * REC)
#define BUF		(QPS * REGION + 64)	/* the tag last */
#define DEPTH		64
#define POLLS		20000000L

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	union ibv_gid gid;
};

static struct side dev;

static void open_side(struct side *s, const char *name)
{
	s->ctx = xrxe_open_device(name);
	s->pd = ibv_alloc_pd(s->ctx);
	if (!s->pd || ibv_query_gid(s->ctx, PORT, GID_INDEX, &s->gid))
		die("pd or gid of %s", name);
}

static struct ibv_qp *make_qp(struct side *s, struct ibv_cq *cq, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = DEPTH, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = type,
	};
	struct ibv_qp *qp = ibv_create_qp(s->pd, &attr);

	if (!qp)
		die("create QP type %d: %s", type, strerror(errno));
	return qp;
}

static void to_rts(struct side *s, struct ibv_qp *qp, uint32_t remote, uint8_t timeout)
{
	const struct xrxe_rc_peer peer = {
		.qpn = remote, .gid = s->gid, .port = PORT, .sgid_index = GID_INDEX,
		.rd_atomic = 1, .min_rnr_timer = 1, .timeout = timeout,
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = PORT,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
	};
	const char *step;
	int ret;

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("QP %u to INIT", qp->qp_num);
	ret = xrxe_rc_rtr_rts(qp, &peer, &step);
	if (ret)
		die("QP %u to %s: %s", qp->qp_num, step, strerror(ret));
}

static struct ibv_wc next_wc(struct ibv_cq *cq)
{
	struct ibv_wc wc;
	long i;
	int n = 0;

	for (i = 0; i < POLLS && !(n = ibv_poll_cq(cq, 1, &wc)); i++)
		;
	if (n <= 0)
		die("no completion after %ld polls (%d)", POLLS, n);
	if (wc.status != IBV_WC_SUCCESS)
		die("wr_id %llu: %s", (unsigned long long)wc.wr_id,
		    ibv_wc_status_str(wc.status));
	return wc;
}

static int post_write(struct ibv_qp *qp, uint64_t wr_id, struct ibv_mr *src, size_t off,
		      struct ibv_mr *dst, size_t doff, uint32_t len, unsigned int flags)
{
	struct ibv_sge sge = { (uintptr_t)src->addr + off, len, src->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = flags,
		.wr.rdma = { (uintptr_t)dst->addr + doff, dst->rkey },
	}, *bad;

	return ibv_post_send(qp, &wr, &bad);
}

/* A device counter of dev, from sysfs. */
static uint64_t hw_counter(const char *name)
{
	char path[256];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/hw_counters/%s",
		 ibv_get_device_name(dev.ctx->device), name);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%llu", &v) != 1)
		die("read %s", path);
	fclose(f);
	return v;
}

/* ---- Records then a tag ---- */

struct stream {
	struct ibv_cq *cq;
	struct ibv_qp *req[QPS], *resp[QPS];
	struct ibv_mr *src_mr, *dst_mr;
	uint8_t *src, *dst;
	struct xrxedv_flush_domain *dom;
};

static volatile int reader_stop;
static uint64_t reader_checks, reader_early;

static uint64_t load64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static size_t record_off(int qp, int rec)
{
	return (size_t)qp * REGION + (size_t)rec * REC;
}

static int records_of(int qp)
{
	return qp ? RECS : TAG_RECS;
}

/*
 * Every time the tag moves to t, each record must carry a round of at
 * least t at both ends: it was written, whole, before the tag.
 */
static void *reader(void *arg)
{
	struct stream *s = arg;
	uint64_t seen = 0, t, *tag = (uint64_t *)(s->dst + QPS * REGION);
	int q, r;

	while (!reader_stop) {
		/* Acquire: the records are read after the tag that vouches for them. */
		t = __atomic_load_n(tag, __ATOMIC_ACQUIRE);
		if (t == seen)
			continue;
		seen = t;
		reader_checks++;
		for (q = 0; q < QPS; q++)
			for (r = 0; r < records_of(q); r++) {
				const uint8_t *p = s->dst + record_off(q, r);

				if (load64(p) < t || load64(p + REC - 8) < t) {
					reader_early++;
					q = QPS;
					break;
				}
			}
	}
	return NULL;
}

static void make_stream(struct stream *s, int in_domain)
{
	int i, ret;

	memset(s, 0, sizeof(*s));
	s->cq = ibv_create_cq(dev.ctx, 4 * DEPTH, NULL, NULL, 0);
	s->src = calloc(1, BUF);
	s->dst = calloc(1, BUF);
	if (!s->cq || !s->src || !s->dst)
		die("cq or buffers");
	s->src_mr = ibv_reg_mr(dev.pd, s->src, BUF,
			       xrxe_test_mr_access(IBV_ACCESS_LOCAL_WRITE));
	s->dst_mr = ibv_reg_mr(dev.pd, s->dst, BUF,
			       xrxe_test_mr_access(IBV_ACCESS_LOCAL_WRITE |
						   IBV_ACCESS_REMOTE_WRITE));
	if (!s->src_mr || !s->dst_mr)
		die("MRs");
	if (in_domain) {
		s->dom = xrxedv_create_flush_domain(dev.ctx);
		if (!s->dom)
			die("create a flush domain: %s", strerror(errno));
	}
	for (i = 0; i < QPS; i++) {
		s->req[i] = make_qp(&dev, s->cq, IBV_QPT_RC);
		s->resp[i] = make_qp(&dev, s->cq, IBV_QPT_RC);
		/* An OCU of its own ordering domain each: engines of their own. */
		ret = xrxedv_qp_set_ocu(s->req[i], XRXEDV_OCU_DYNAMIC, 100 + i);
		if (ret && ret != EOPNOTSUPP)
			die("OCU of QP %d: %s", i, strerror(ret));
		if (in_domain) {
			ret = xrxedv_qp_set_flush_domain(s->req[i], s->dom);
			if (ret)
				die("QP %d into the domain: %s", i, strerror(ret));
		}
		to_rts(&dev, s->req[i], s->resp[i]->qp_num, 14);
		to_rts(&dev, s->resp[i], s->req[i]->qp_num, 14);
	}
}

static void free_stream(struct stream *s)
{
	int i;

	for (i = 0; i < QPS; i++)
		if (ibv_destroy_qp(s->req[i]) || ibv_destroy_qp(s->resp[i]))
			die("destroy QPs");
	if (s->dom && xrxedv_destroy_flush_domain(s->dom))
		die("destroy the domain once its QPs are gone");
	if (ibv_dereg_mr(s->src_mr) || ibv_dereg_mr(s->dst_mr) || ibv_destroy_cq(s->cq))
		die("teardown");
	free(s->src);
	free(s->dst);
}

/* One round: every QP's records, then the tag; wait for all of it. */
static void round_trip(struct stream *s, uint64_t round, unsigned int tag_flags)
{
	int q, r, ret, completions = 0;

	for (q = 0; q < QPS; q++)
		for (r = 0; r < records_of(q); r++) {
			uint8_t *p = s->src + record_off(q, r);

			memcpy(p, &round, 8);
			memcpy(p + REC - 8, &round, 8);
		}
	memcpy(s->src + QPS * REGION, &round, 8);
	/* The far QPs first: the tag's QP has the least to send. */
	for (q = QPS - 1; q >= 0; q--)
		for (r = 0; r < records_of(q); r++) {
			int last = r == records_of(q) - 1;

			ret = post_write(s->req[q], q, s->src_mr, record_off(q, r), s->dst_mr,
					 record_off(q, r), REC, last ? IBV_SEND_SIGNALED : 0);
			if (ret)
				die("round %llu: record %d of QP %d: %s",
				    (unsigned long long)round, r, q, strerror(ret));
			completions += last;
		}
	ret = post_write(s->req[0], 99, s->src_mr, QPS * REGION, s->dst_mr, QPS * REGION, 8,
			 IBV_SEND_SIGNALED | tag_flags);
	if (ret)
		die("round %llu: the tag: %s", (unsigned long long)round, strerror(ret));
	for (completions++; completions; completions--)
		next_wc(s->cq);
}

static uint64_t qp_domain_flushes(struct ibv_qp *qp)
{
	struct xrxedv_qp_counters c;

	if (xrxedv_query_qp_counters(qp, &c, sizeof(c)))
		die("counters");
	return c.domain_flushes;
}

/* The rounds of one stream; the early tags the reader saw. */
static uint64_t run_stream(struct stream *s, uint64_t rounds, unsigned int tag_flags)
{
	pthread_t th;
	uint64_t i;

	reader_stop = 0;
	reader_checks = reader_early = 0;
	if (pthread_create(&th, NULL, reader, s))
		die("reader thread");
	for (i = 1; i <= rounds; i++)
		round_trip(s, i, tag_flags);
	/* The last tag is in place: let the reader see it. */
	usleep(10000);
	reader_stop = 1;
	pthread_join(th, NULL);
	if (!reader_checks)
		die("the reader never saw the tag move");
	return reader_early;
}

static void test_records_then_tag(uint64_t rounds)
{
	struct xrxedv_qp_counters c;
	uint64_t early, before, dev_before;
	struct stream s;
	char engines[64] = "";
	int i;

	make_stream(&s, 0);
	early = run_stream(&s, rounds, 0);
	printf("control, no domain flush: %llu of %llu tag moves came before their records\n",
	       (unsigned long long)early, (unsigned long long)reader_checks);
	free_stream(&s);

	make_stream(&s, 1);
	before = qp_domain_flushes(s.req[0]);
	dev_before = hw_counter("xrxe_domain_flushes");
	early = run_stream(&s, rounds, XRXEDV_SEND_DOMAIN_FLUSH);
	if (early)
		die("domain flush: %llu of %llu tag moves came before their records",
		    (unsigned long long)early, (unsigned long long)reader_checks);
	if (qp_domain_flushes(s.req[0]) - before != rounds ||
	    hw_counter("xrxe_domain_flushes") - dev_before != rounds)
		die("domain_flushes grew by %llu (device %llu), expected %llu",
		    (unsigned long long)(qp_domain_flushes(s.req[0]) - before),
		    (unsigned long long)(hw_counter("xrxe_domain_flushes") - dev_before),
		    (unsigned long long)rounds);
	for (i = 0; i < QPS; i++) {
		if (xrxedv_query_qp_counters(s.req[i], &c, sizeof(c)))
			die("counters");
		snprintf(engines + strlen(engines), sizeof(engines) - strlen(engines),
			 "%s%d", i ? "," : "", c.engine == XRXEDV_UNKNOWN ? -1 : (int)c.engine);
	}
	if (xrxedv_query_qp_counters(s.req[0], &c, sizeof(c)))
		die("counters");
	printf("domain flush: %llu rounds, %llu tag moves checked, none early; "
	       "QPs on engines %s; the tag waited %llu us in all\n",
	       (unsigned long long)rounds, (unsigned long long)reader_checks, engines,
	       (unsigned long long)c.domain_wait_us);
	free_stream(&s);
}

/* ---- The flag without a domain, and the errors ---- */

static void test_lone_flush(void)
{
	struct stream s;
	uint64_t before;
	int r;

	make_stream(&s, 0);
	before = qp_domain_flushes(s.req[1]);
	for (r = 0; r < RECS; r++)
		if (post_write(s.req[1], r, s.src_mr, record_off(1, r), s.dst_mr,
			       record_off(1, r), REC, 0))
			die("lone records");
	if (post_write(s.req[1], 7, s.src_mr, 0, s.dst_mr, QPS * REGION, 8,
		       IBV_SEND_SIGNALED | XRXEDV_SEND_DOMAIN_FLUSH))
		die("lone flush");
	if (next_wc(s.cq).wr_id != 7 || qp_domain_flushes(s.req[1]) - before != 1)
		die("a flush on a QP in no domain: not completed or not counted");
	free_stream(&s);
	printf("a flush on a QP in no domain: waited for its own QP, counted\n");
}

/* The name of another xrxe device than ours, or NULL. */
static const char *other_device(void)
{
	static char name[256];
	struct dirent *e;
	DIR *d = opendir("/sys/class/infiniband");

	if (!d)
		return NULL;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "xrxe", 4) &&
		    strcmp(e->d_name, ibv_get_device_name(dev.ctx->device))) {
			snprintf(name, sizeof(name), "%s", e->d_name);
			closedir(d);
			return name;
		}
	closedir(d);
	return NULL;
}

/* A QP of s joining dom must fail with expected. */
static void foreign_qp(struct side *s, struct xrxedv_flush_domain *dom, const char *what)
{
	struct ibv_cq *cq = ibv_create_cq(s->ctx, 4, NULL, NULL, 0);
	struct ibv_qp *qp;
	int ret;

	if (!cq)
		die("cq");
	qp = make_qp(s, cq, IBV_QPT_RC);
	ret = xrxedv_qp_set_flush_domain(qp, dom);
	if (ret != EINVAL)
		die("a QP of %s into the domain: %s, expected EINVAL", what,
		    ret ? strerror(ret) : "accepted");
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
}

static void test_errors(const char *name)
{
	struct ibv_qp *qps[XRXE_FLUSH_DOMAIN_MAX_QPS + 1], *qp;
	struct xrxedv_flush_domain *dom = xrxedv_create_flush_domain(dev.ctx);
	const struct xrxe_qp_status *status;
	struct xrxedv_sq_info info;
	struct side other;
	const char *odev;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	long i;
	int ret;

	if (!dom)
		die("create a flush domain: %s", strerror(errno));
	cq = ibv_create_cq(dev.ctx, 64, NULL, NULL, 0);
	if (!cq)
		die("cq");
	open_side(&other, name);
	foreign_qp(&other, dom, "another context");
	odev = other_device();
	if (odev) {
		struct side far;

		open_side(&far, odev);
		foreign_qp(&far, dom, "another device");
		ibv_dealloc_pd(far.pd);
		ibv_close_device(far.ctx);
	}
	ibv_dealloc_pd(other.pd);
	ibv_close_device(other.ctx);

	qp = make_qp(&dev, cq, IBV_QPT_UC);
	if ((ret = xrxedv_qp_set_flush_domain(qp, dom)) != EOPNOTSUPP)
		die("a UC QP into the domain: %s, expected EOPNOTSUPP", strerror(ret));
	ibv_destroy_qp(qp);
	qp = make_qp(&dev, cq, IBV_QPT_UD);
	if ((ret = xrxedv_qp_set_flush_domain(qp, dom)) != EOPNOTSUPP)
		die("a UD QP into the domain: %s, expected EOPNOTSUPP", strerror(ret));
	ibv_destroy_qp(qp);

	for (i = 0; i <= XRXE_FLUSH_DOMAIN_MAX_QPS; i++) {
		qps[i] = make_qp(&dev, cq, IBV_QPT_RC);
		ret = xrxedv_qp_set_flush_domain(qps[i], dom);
		if (ret != (i < XRXE_FLUSH_DOMAIN_MAX_QPS ? 0 : ENOSPC))
			die("QP %ld into the domain: %s", i, ret ? strerror(ret) : "accepted");
	}
	if ((ret = xrxedv_destroy_flush_domain(dom)) != EBUSY)
		die("destroying a domain with QPs: %s, expected EBUSY",
		    ret ? strerror(ret) : "destroyed");
	/* Out again (and the same call twice changes nothing). */
	if (xrxedv_qp_set_flush_domain(qps[0], NULL) ||
	    xrxedv_qp_set_flush_domain(qps[0], NULL))
		die("a QP out of its domain");
	if (xrxedv_qp_set_flush_domain(qps[XRXE_FLUSH_DOMAIN_MAX_QPS], dom))
		die("a QP into the room another left");
	for (i = 0; i <= XRXE_FLUSH_DOMAIN_MAX_QPS; i++)
		ibv_destroy_qp(qps[i]);

	/*
	 * WQEs in flight: a write to a QP number nobody has waits for its
	 * ACK, retrying for a second; the kernel has taken it.
	 */
	buf = calloc(1, 64);
	mr = ibv_reg_mr(dev.pd, buf, 64, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	qp = make_qp(&dev, cq, IBV_QPT_RC);
	if (!buf || !mr)
		die("buffer");
	to_rts(&dev, qp, 0xfffff0, 16);
	if (post_write(qp, 1, mr, 0, mr, 0, 8, IBV_SEND_SIGNALED) ||
	    xrxedv_query_sq(qp, &info, sizeof(info)))
		die("a write that waits");
	status = info.status;
	for (i = 0; i < POLLS && __atomic_load_n(&status->sq_fetched, __ATOMIC_ACQUIRE) ==
				 __atomic_load_n(&status->sq_completed, __ATOMIC_ACQUIRE); i++)
		;
	ret = xrxedv_qp_set_flush_domain(qp, dom);
	if (ret != EBUSY)
		die("a QP with a WQE in flight into the domain: %s, expected EBUSY",
		    ret ? strerror(ret) : "accepted");
	ibv_destroy_qp(qp);
	ibv_dereg_mr(mr);
	free(buf);
	if (xrxedv_destroy_flush_domain(dom))
		die("destroy an empty domain");
	ibv_destroy_cq(cq);
	printf("errors: other context%s EINVAL, UC and UD EOPNOTSUPP, 17th QP ENOSPC, "
	       "busy domain EBUSY, WQE in flight EBUSY\n", odev ? " and device" : "");
}

/*
 * A member whose write never gets an answer (its peer's QP number does not
 * exist: it retries for seconds) holds the domain's flushes; destroying a
 * QP held at its flush is safe, and destroying the stuck member lets the
 * other flush go at once.
 */
static void test_teardown_while_waiting(void)
{
	struct ibv_cq *cq = ibv_create_cq(dev.ctx, 64, NULL, NULL, 0);
	struct xrxedv_flush_domain *dom = xrxedv_create_flush_domain(dev.ctx);
	struct ibv_qp *stuck, *held, *tag, *held_peer, *tag_peer;
	uint8_t *buf = calloc(1, 4096);
	struct ibv_mr *mr;
	struct ibv_wc wc;
	int i;

	if (!cq || !dom || !buf)
		die("cq, domain or buffer");
	mr = ibv_reg_mr(dev.pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	stuck = make_qp(&dev, cq, IBV_QPT_RC);
	held = make_qp(&dev, cq, IBV_QPT_RC);
	tag = make_qp(&dev, cq, IBV_QPT_RC);
	held_peer = make_qp(&dev, cq, IBV_QPT_RC);
	tag_peer = make_qp(&dev, cq, IBV_QPT_RC);
	if (!mr || xrxedv_qp_set_flush_domain(stuck, dom) ||
	    xrxedv_qp_set_flush_domain(held, dom) || xrxedv_qp_set_flush_domain(tag, dom))
		die("MR or domain members");
	to_rts(&dev, stuck, 0xfffff0, 18);
	to_rts(&dev, held, held_peer->qp_num, 14);
	to_rts(&dev, held_peer, held->qp_num, 14);
	to_rts(&dev, tag, tag_peer->qp_num, 14);
	to_rts(&dev, tag_peer, tag->qp_num, 14);
	if (post_write(stuck, 1, mr, 0, mr, 0, 8, 0))
		die("the write that waits");
	/* Both flushes wait for it. */
	if (post_write(held, 2, mr, 64, mr, 64, 8, IBV_SEND_SIGNALED | XRXEDV_SEND_DOMAIN_FLUSH) ||
	    post_write(tag, 3, mr, 128, mr, 128, 8, IBV_SEND_SIGNALED | XRXEDV_SEND_DOMAIN_FLUSH))
		die("the flushes");
	usleep(50000);
	for (i = 0; i < 1000 && ibv_poll_cq(cq, 1, &wc) == 0; i++)
		usleep(100);
	if (i < 1000)
		die("a flush completed (wr_id %llu) while a member's write was unanswered",
		    (unsigned long long)wc.wr_id);
	if (ibv_destroy_qp(held))
		die("destroy a QP held at its flush");
	if (ibv_destroy_qp(stuck))
		die("destroy the stuck member");
	wc = next_wc(cq);
	if (wc.wr_id != 3)
		die("after the stuck member went: wr_id %llu, expected the tag's",
		    (unsigned long long)wc.wr_id);
	if (ibv_destroy_qp(tag) || ibv_destroy_qp(held_peer) || ibv_destroy_qp(tag_peer) ||
	    xrxedv_destroy_flush_domain(dom))
		die("teardown");
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	free(buf);
	printf("teardown: a QP held at its flush destroyed; the stuck member destroyed, the other flush went on\n");
}

/* ---- A member's ring out of order ---- */

/*
 * The snapshot counts a member's posted slots by bisection, which relies on
 * the provider posting in index order. A ring whose next slot is empty but
 * whose every other slot carries a generation of a later lap (which the
 * engine never takes) bisects to nearly a ring's worth: the flush must not
 * wait for it for ever. Its watchdog lowers the count to what the ring
 * shows was posted, without calling that a missed wake-up (no rescue), and
 * the member's ring serves posts afterwards.
 */
/*
 * The flush wr_id's completion, within 10 s (fifty looks of the watchdog):
 * the seconds it took.
 */
static double flush_wait(struct ibv_cq *cq, uint64_t wr_id, const char *what)
{
	struct timespec t0, t1;
	struct ibv_wc wc;
	double waited;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		n = ibv_poll_cq(cq, 1, &wc);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		waited = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
		if (!n)
			usleep(1000);
	} while (!n && waited < 10);
	if (n != 1 || wc.wr_id != wr_id || wc.status != IBV_WC_SUCCESS)
		die("a flush behind a ring out of order, %s: %s after %.1f s", what,
		    n ? "failed" : "not completed", waited);
	return waited;
}

static void test_out_of_order_ring(void)
{
	struct ibv_cq *cq = ibv_create_cq(dev.ctx, 64, NULL, NULL, 0);
	struct xrxedv_flush_domain *dom = xrxedv_create_flush_domain(dev.ctx);
	struct ibv_qp *member, *tag, *member_peer, *tag_peer;
	uint64_t rescues = hw_counter("xrxe_domain_flush_rescues");
	uint8_t *buf = calloc(1, 4096);
	struct xrxedv_sq_info info;
	struct xrxe_sq_slot *slot;
	struct ibv_mr *mr;
	uint32_t slots, next, i;
	double waited, waited2;

	if (!cq || !dom || !buf)
		die("cq, domain or buffer");
	mr = ibv_reg_mr(dev.pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	member = make_qp(&dev, cq, IBV_QPT_RC);
	tag = make_qp(&dev, cq, IBV_QPT_RC);
	member_peer = make_qp(&dev, cq, IBV_QPT_RC);
	tag_peer = make_qp(&dev, cq, IBV_QPT_RC);
	if (!mr || xrxedv_qp_set_flush_domain(member, dom) ||
	    xrxedv_qp_set_flush_domain(tag, dom))
		die("MR or domain members");
	to_rts(&dev, member, member_peer->qp_num, 14);
	to_rts(&dev, member_peer, member->qp_num, 14);
	to_rts(&dev, tag, tag_peer->qp_num, 14);
	to_rts(&dev, tag_peer, tag->qp_num, 14);
	if (xrxedv_query_sq(member, &info, sizeof(info)))
		die("the member's send queue");
	slots = 1u << info.log2_slots;
	/* Nothing posted yet: the engine's next slot is the first. */
	next = 0;
	for (i = 1; i < slots; i++) {
		slot = (struct xrxe_sq_slot *)((uint8_t *)info.ring +
			((size_t)((next + i) & (slots - 1)) << info.log2_slot_size));
		__atomic_store_n(&slot->gen,
				 xrxe_sq_gen(next + i + 2 * slots, info.log2_slots),
				 __ATOMIC_RELEASE);
	}
	if (post_write(tag, 1, mr, 0, mr, 0, 8, IBV_SEND_SIGNALED | XRXEDV_SEND_DOMAIN_FLUSH))
		die("the flush");
	waited = flush_wait(cq, 1, "its next slot empty");
	if (hw_counter("xrxe_domain_flush_rescues") != rescues)
		die("a flush behind a ring out of order was counted as a missed wake-up");
	/* The member's ring: the provider's posts overwrite the slots. */
	for (i = 0; i < 3; i++) {
		if (post_write(member, 10 + i, mr, 64, mr, 64, 8, IBV_SEND_SIGNALED))
			die("a write on the member after the flush");
		if (next_wc(cq).wr_id != 10 + i)
			die("the member's write %u", i);
	}
	/* Now the next slot is of a later lap: the engine does not take it. */
	if (post_write(tag, 2, mr, 0, mr, 0, 8, IBV_SEND_SIGNALED | XRXEDV_SEND_DOMAIN_FLUSH))
		die("the second flush");
	waited2 = flush_wait(cq, 2, "its next slot of a later lap");
	if (hw_counter("xrxe_domain_flush_rescues") != rescues)
		die("a flush behind a ring out of order was counted as a missed wake-up");
	if (ibv_destroy_qp(member) || ibv_destroy_qp(tag) || ibv_destroy_qp(member_peer) ||
	    ibv_destroy_qp(tag_peer) || xrxedv_destroy_flush_domain(dom))
		die("teardown");
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	free(buf);
	printf("a member's ring out of order (%u slots): the flushes went after %.2f s "
	       "(next slot empty) and %.2f s (of a later lap), not rescues; the member "
	       "serves posts\n", slots, waited, waited2);
}

/* ---- Two threads move one QP between two domains ---- */

#define RACE_MAX_THREADS	8	/* XRXE_FDOM_RACE_THREADS, default 2 */
#define RACE_MOVES	200		/* a thread's moves a round */

/* qp (a handle of dev) into flush domain id, 0 for none: 0 or an errno. */
static int raw_set_domain(uint32_t handle, uint32_t id)
{
	struct ib_uverbs_modify_qp m = {};
	const struct xrxe_modify_qp_cmd drv = {
		.comp_mask = XRXE_MODIFY_QP_FLUSH_DOMAIN, .flush_domain = id,
	};

	return xrxe_raw_modify_qp(dev.ctx->cmd_fd, handle, &m, &drv, sizeof(drv));
}

struct mover {
	pthread_barrier_t *start;
	uint32_t handle, id;
	uint64_t moves;
	int err;
};

/* Into the thread's domain, and out of any now and then. */
static void *mover_thread(void *arg)
{
	struct mover *a = arg;
	int i, ret;

	pthread_barrier_wait(a->start);
	for (i = 0; i < RACE_MOVES && !a->err; i++, a->moves++) {
		ret = raw_set_domain(a->handle, i % 8 == 7 ? 0 : a->id);
		if (ret && ret != EBUSY && ret != ENOSPC)
			a->err = ret;
	}
	return NULL;
}

/* Domain id, holding one QP, takes 15 more and refuses the next. */
static void domain_capacity(struct ibv_cq *cq, uint32_t id)
{
	struct ibv_qp *qps[XRXE_FLUSH_DOMAIN_MAX_QPS];
	int i, ret = 0;

	for (i = 0; i < XRXE_FLUSH_DOMAIN_MAX_QPS && !ret; i++) {
		qps[i] = make_qp(&dev, cq, IBV_QPT_RC);
		ret = raw_set_domain(qps[i]->handle, id);
		if (ret != (i < XRXE_FLUSH_DOMAIN_MAX_QPS - 1 ? 0 : ENOSPC))
			die("domain %#x after the moves: its member %d %s", id, i + 2,
			    ret ? strerror(ret) : "accepted");
	}
	while (i--)
		ibv_destroy_qp(qps[i]);
}

static void test_moving_qp(void)
{
	static const uint32_t ids[2] = { 0x7f000001, 0x7f000002 };
	const char *secs = getenv("XRXE_FDOM_RACE_SECS");
	const char *nth = getenv("XRXE_FDOM_RACE_THREADS");
	int threads = nth ? atoi(nth) : 2;
	double t0 = now(), end = t0 + (secs ? atof(secs) : 5);
	struct ibv_cq *cq = ibv_create_cq(dev.ctx, 64, NULL, NULL, 0);
	struct ibv_qp *member[2], *peer[2], *qp;
	struct mover movers[RACE_MAX_THREADS];
	pthread_t th[RACE_MAX_THREADS];
	pthread_barrier_t start;
	uint8_t *buf = calloc(1, 4096);
	uint64_t moves = 0, rounds, wrs;
	struct ibv_mr *mr;
	int i, j, ret;

	if (threads < 1 || threads > RACE_MAX_THREADS)
		die("XRXE_FDOM_RACE_THREADS: 1 to %d", RACE_MAX_THREADS);
	if (!cq || !buf || pthread_barrier_init(&start, NULL, threads))
		die("cq, buffer or barrier");
	mr = ibv_reg_mr(dev.pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!mr)
		die("MR");
	for (i = 0; i < 2; i++) {
		member[i] = make_qp(&dev, cq, IBV_QPT_RC);
		peer[i] = make_qp(&dev, cq, IBV_QPT_RC);
		to_rts(&dev, member[i], peer[i]->qp_num, 14);
		to_rts(&dev, peer[i], member[i]->qp_num, 14);
		if ((ret = raw_set_domain(member[i]->handle, ids[i])))
			die("a member into domain %#x: %s", ids[i], strerror(ret));
	}
	qp = make_qp(&dev, cq, IBV_QPT_RC);
	for (rounds = 0; !rounds || now() < end; rounds++) {
		for (i = 0; i < threads; i++) {
			movers[i] = (struct mover){ .start = &start, .handle = qp->handle,
						    .id = ids[i % 2] };
			if (pthread_create(&th[i], NULL, mover_thread, &movers[i]))
				die("mover thread");
		}
		for (i = 0; i < threads; i++) {
			pthread_join(th[i], NULL);
			moves += movers[i].moves;
			if (movers[i].err)
				die("round %llu: a move of the QP: %s",
				    (unsigned long long)rounds, strerror(movers[i].err));
		}
		/* Wherever the threads left it, it leaves; a second leave is a no-op. */
		if ((ret = raw_set_domain(qp->handle, 0)) ||
		    (ret = raw_set_domain(qp->handle, 0)))
			die("round %llu: the moved QP out of its domain: %s",
			    (unsigned long long)rounds, strerror(ret));
		if (rounds % 2) {
			if (ibv_destroy_qp(qp))
				die("destroy the moved QP");
			qp = make_qp(&dev, cq, IBV_QPT_RC);
		}
		/* Behind writes, so that each flush waits and wakes via its domain. */
		for (i = 0; i < 2; i++) {
			for (j = 0; j < 3; j++)
				if (post_write(member[i], j, mr, 0, mr, 512 * i + 64 * j, 64, 0))
					die("a write before the flush");
			if (post_write(member[i], 100 + i, mr, 0, mr, 512 * i + 256, 8,
				       IBV_SEND_SIGNALED | XRXEDV_SEND_DOMAIN_FLUSH))
				die("the flush of domain %#x", ids[i]);
		}
		for (wrs = 0, i = 0; i < 2; i++)
			wrs |= 1ull << (next_wc(cq).wr_id - 100) % 64;
		if (wrs != 3)
			die("round %llu: not the two flushes' completions",
			    (unsigned long long)rounds);
	}
	if (ibv_destroy_qp(qp))
		die("destroy the moved QP");
	domain_capacity(cq, ids[0]);
	domain_capacity(cq, ids[1]);
	for (i = 0; i < 2; i++)
		if (ibv_destroy_qp(member[i]) || ibv_destroy_qp(peer[i]))
			die("teardown");
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	pthread_barrier_destroy(&start);
	free(buf);
	printf("moving QP: %llu moves of one QP between two domains by %d thread(s) in %llu "
	       "rounds (destroyed and made again in every other), %.1f s; it left both, "
	       "every flush of their members completed, each domain held exactly 16 QPs\n",
	       (unsigned long long)moves, threads, (unsigned long long)rounds, now() - t0);
}

/* Classic send queues: no domains, and the flag is refused. */
static void test_classic(void)
{
	struct stream s;
	int ret;

	if (xrxedv_create_flush_domain(dev.ctx) || errno != EOPNOTSUPP)
		die("a flush domain on classic send queues: not EOPNOTSUPP");
	make_stream(&s, 0);
	ret = post_write(s.req[0], 1, s.src_mr, 0, s.dst_mr, 0, 8,
			 IBV_SEND_SIGNALED | XRXEDV_SEND_DOMAIN_FLUSH);
	if (ret != EINVAL)
		die("the flag on a classic queue: %s, expected EINVAL",
		    ret ? strerror(ret) : "posted");
	free_stream(&s);
	printf("classic send queues: no flush domain (EOPNOTSUPP), the flag EINVAL\n");
}

/* ---- Snapshot cost: a measurement, not a test ---- */

/*
 * xrxe-domain-flush-test DEVICE snapshot-cost [--members N] [--slots S|max]
 *	[--fill empty|full] [--hold pace|sqd] [--samples K] [--tracefs DIR
 *	[--trace-save FILE]]
 *
 * A flush domain of N doorbell-less RC QPs (default 16), each paired with
 * a responder QP of the same device. N-1 of them, the members a flush
 * waits for, have send rings of S slots (default 4096; a power of two,
 * max_send_wr S-1;
 * "max": the largest the device allows, max_send_wr = max_qp_wr, whose
 * ring rxe rounds up to the next power of two above it). With --fill full
 * each member's ring is filled to the provider's limit (S-1 WQEs posted,
 * none completed) with 8-byte RDMA WRITEs the engine does not take:
 *
 *   --hold pace (default): the member is rate-limited to 1 kbit/s and
 *     first posts one 1 MiB RDMA WRITE, whose packets use up its 16 KiB
 *     burst; the requester pauses in the middle of that write, the paused
 *     QP is off its engine's run list, and its timer gives it back only
 *     when half the burst has come back (8 KiB at 1 kbit/s: 65 s), so the
 *     S-2 WRITEs posted after it stay in the ring unfetched;
 *   --hold sqd: the member is moved to SQD and then filled (its engine
 *     still takes slots in SQD, as the figures show: a comparison).
 *
 * The remaining QP then posts K flushes (default 5), each on a fresh QP
 * that joins the domain (a flush held behind full members holds its QP,
 * so each sample takes a new one and destroys it): one 8-byte RDMA WRITE
 * with IBV_SEND_SIGNALED | XRXEDV_SEND_DOMAIN_FLUSH, with the doorbell
 * rung on every post and no low-latency command, so that the doorbell's
 * turn runs the requester, and so xrxe_fdom_must_wait() and its snapshot,
 * inside the timed ibv_post_send().
 *
 * With --tracefs DIR (tracefs, current_tracer set to function_graph by the
 * caller, tracing_on 0): K samples with tracing_on 1 around the post, a
 * trace_marker line before each, the trace copied to FILE after them (a
 * change of tracer empties it); then K samples with current_tracer nop;
 * then, where DIR's available_tracers has irqsoff, K samples under it,
 * reading tracing_max_latency. Without it, the untraced samples only.
 * The last line is "RESULT key=value ...", the times in microseconds.
 */

#define SC_BIG		(1u << 20)		/* the write that uses up a burst */
#define SC_DST		(SC_BIG + 4096)		/* where the writes land */
#define SC_BUF		(SC_DST + SC_BIG)
#define SC_CHAIN	64			/* WRs per post of the fill */
#define SC_MAX_SAMPLES	1000

struct sc {
	unsigned int members, samples;
	uint32_t slots, max_send_wr, posted, log2_slot_size;
	int full, sqd;
	const char *tracefs;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	struct xrxedv_flush_domain *dom;
	struct ibv_qp *member[XRXE_FLUSH_DOMAIN_MAX_QPS], *peer[XRXE_FLUSH_DOMAIN_MAX_QPS];
};

static struct ibv_qp *sc_make_qp(struct ibv_cq *cq, uint32_t max_send_wr)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = max_send_wr, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp *qp = ibv_create_qp(dev.pd, &attr);

	if (!qp)
		die("create an RC QP of max_send_wr %u: %s", max_send_wr, strerror(errno));
	return qp;
}

static int sc_open(const char *dir, const char *file, int flags)
{
	char path[512];
	int fd;

	if (!dir)
		return -1;
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, flags);
	if (fd < 0)
		die("open %s: %s", path, strerror(errno));
	return fd;
}

static void sc_write(int fd, const char *val)
{
	if (fd >= 0 && write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		die("write '%s' to tracefs: %s", val, strerror(errno));
}

/* Write val into tracefs file (a new open each time, as echo does). */
static void sc_set(const char *dir, const char *file, const char *val)
{
	int fd = sc_open(dir, file, O_WRONLY | O_TRUNC);

	sc_write(fd, val);
	close(fd);
}

static unsigned long long sc_get(const char *dir, const char *file)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return read_number_file(path);
}

static int sc_has_tracer(const char *dir, const char *name)
{
	char path[512], buf[4096], *tok, *save;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/available_tracers", dir);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	for (tok = strtok_r(buf, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
		if (!strcmp(tok, name))
			return 1;
	return 0;
}

/* Copy dir's trace (the traced phase's function_graph records) to path. */
static void sc_copy_trace(const char *dir, const char *path)
{
	char src[512], buf[65536];
	FILE *in, *out;
	size_t n;

	snprintf(src, sizeof(src), "%s/trace", dir);
	in = fopen(src, "r");
	out = fopen(path, "w");
	if (!in || !out)
		die("copy %s to %s: %s", src, path, strerror(errno));
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			die("write %s: %s", path, strerror(errno));
	if (fclose(out) || fclose(in))
		die("copy %s to %s", src, path);
}

static struct xrxedv_qp_counters sc_counters(struct ibv_qp *qp)
{
	struct xrxedv_qp_counters c;

	if (xrxedv_query_qp_counters(qp, &c, sizeof(c)))
		die("counters of QP %u", qp->qp_num);
	return c;
}

static int sc_post_write(struct sc *c, struct ibv_qp *qp, struct ibv_send_wr *wr,
			 unsigned int n, struct ibv_sge *sge, uint32_t len, size_t dst)
{
	struct ibv_send_wr *bad;
	unsigned int i;

	for (i = 0; i < n; i++) {
		sge[i] = (struct ibv_sge){ (uintptr_t)c->buf, len, c->mr->lkey };
		wr[i] = (struct ibv_send_wr){
			.wr_id = i, .sg_list = &sge[i], .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.wr.rdma = { (uintptr_t)c->buf + dst, c->mr->rkey },
			.next = i + 1 < n ? &wr[i + 1] : NULL,
		};
	}
	return ibv_post_send(qp, wr, &bad);
}

/* Fill member i's ring to the provider's limit, held as c->sqd says. */
static void sc_fill(struct sc *c, unsigned int i)
{
	struct ibv_qp *qp = c->member[i];
	struct ibv_send_wr wr[SC_CHAIN];
	struct ibv_sge sge[SC_CHAIN];
	uint32_t left = c->slots - 1, n;
	double end;
	int ret;

	if (c->sqd) {
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_SQD };

		if ((ret = ibv_modify_qp(qp, &a, IBV_QP_STATE)))
			die("member %u to SQD: %s", i, strerror(ret));
	} else {
		struct ibv_qp_rate_limit_attr rl = { .rate_limit = 1 };

		if ((ret = ibv_modify_qp_rate_limit(qp, &rl)))
			die("member %u to 1 kbit/s: %s", i, strerror(ret));
		if ((ret = sc_post_write(c, qp, wr, 1, sge, SC_BIG, SC_DST)))
			die("member %u's big write: %s", i, strerror(ret));
		left--;
		for (end = now() + 10; !sc_counters(qp).pace_pauses; usleep(1000))
			if (now() > end)
				die("member %u was not paused by its rate limit", i);
	}
	while (left) {
		n = left < SC_CHAIN ? left : SC_CHAIN;
		if ((ret = sc_post_write(c, qp, wr, n, sge, 8, SC_DST + 64 * (i + 1))))
			die("member %u: the fill with %u left: %s", i, left, strerror(ret));
		left -= n;
	}
	/* Now full: the provider refuses one more. */
	ret = sc_post_write(c, qp, wr, 1, sge, 8, SC_DST);
	if (ret != ENOMEM)
		die("member %u: a post to its full ring: %s, expected ENOMEM", i,
		    ret ? strerror(ret) : "posted");
}

static void sc_pending(struct sc *c, uint32_t *min, uint32_t *max, uint64_t *fetched_max)
{
	unsigned int i;

	*min = UINT32_MAX;
	*max = 0;
	*fetched_max = 0;
	for (i = 0; i < c->members - 1; i++) {
		uint64_t fetched = sc_counters(c->member[i]).wqes_fetched;
		uint32_t pending = c->posted - (uint32_t)fetched;

		if (pending < *min)
			*min = pending;
		if (pending > *max)
			*max = pending;
		if (fetched > *fetched_max)
			*fetched_max = fetched;
	}
}

/*
 * One flush on a fresh QP of the domain; its ibv_post_send() time in
 * microseconds. on_fd (tracing_on) is set around the post when given;
 * *held says whether the flush had not completed 20 ms later.
 */
static double sc_sample(struct sc *c, int on_fd, int marker_fd, const char *phase,
			unsigned int idx, int *held)
{
	struct ibv_cq *cq = ibv_create_cq(dev.ctx, 4, NULL, NULL, 0);
	struct ibv_qp *f, *p;
	struct ibv_sge sge = { 0, 8, 0 };
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_wc wc;
	double t0, t1, end;
	char mark[128];
	int ret, n = 0;

	if (!cq)
		die("cq");
	f = sc_make_qp(cq, 15);
	p = sc_make_qp(cq, 15);
	if ((ret = xrxedv_qp_set_flush_domain(f, c->dom)))
		die("the flushing QP into the domain: %s", strerror(ret));
	if ((ret = xrxedv_qp_set_doorbell_mode(f, XRXEDV_DOORBELL_ALWAYS)))
		die("doorbell mode: %s", strerror(ret));
	ret = xrxedv_qp_set_ll_mode(f, XRXEDV_LL_NEVER);
	if (ret && ret != EOPNOTSUPP)
		die("low-latency mode: %s", strerror(ret));
	if ((ret = xrxedv_qp_set_engine_idle(f, 0)))
		die("engine idle: %s", strerror(ret));
	to_rts(&dev, f, p->qp_num, 14);
	to_rts(&dev, p, f->qp_num, 14);
	sge = (struct ibv_sge){ (uintptr_t)c->buf, 8, c->mr->lkey };
	wr = (struct ibv_send_wr){
		.wr_id = 1000 + idx, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED | XRXEDV_SEND_DOMAIN_FLUSH,
		.wr.rdma = { (uintptr_t)c->buf + SC_DST, c->mr->rkey },
	};
	snprintf(mark, sizeof(mark), "snapshot-cost %s sample %u\n", phase, idx);
	sc_write(on_fd, "1");
	sc_write(marker_fd, mark);
	t0 = now();
	ret = ibv_post_send(f, &wr, &bad);
	t1 = now();
	sc_write(on_fd, "0");
	if (ret)
		die("the flush: %s", strerror(ret));
	for (end = now() + (c->full ? 0.02 : 10); now() < end && !(n = ibv_poll_cq(cq, 1, &wc));)
		;
	if (n < 0 || (n && wc.status != IBV_WC_SUCCESS))
		die("the flush's completion: %s", n < 0 ? "poll failed" :
		    ibv_wc_status_str(wc.status));
	*held = !n;
	if (ibv_destroy_qp(f) || ibv_destroy_qp(p) || ibv_destroy_cq(cq))
		die("destroy the flushing QP");
	return (t1 - t0) * 1e6;
}

static int sc_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct sc_stats {
	double min, med, max;
	int held;
};

static struct sc_stats sc_phase(struct sc *c, const char *phase, int on_fd, int marker_fd)
{
	double t[SC_MAX_SAMPLES];
	struct sc_stats s = {};
	unsigned int i;
	int held;

	for (i = 0; i < c->samples; i++) {
		t[i] = sc_sample(c, on_fd, marker_fd, phase, i, &held);
		s.held += held;
		printf("snapshot-cost: %s sample %u: ibv_post_send %.1f us, flush %s\n",
		       phase, i, t[i], held ? "held" : "completed");
	}
	qsort(t, c->samples, sizeof(t[0]), sc_cmp);
	s.min = t[0];
	s.med = t[c->samples / 2];
	s.max = t[c->samples - 1];
	return s;
}

static uint32_t sc_pow2_above(uint32_t v)
{
	uint32_t p = 1;

	while (p <= v)
		p <<= 1;
	return p;
}

static int snapshot_cost(int argc, char **argv)
{
	struct ibv_device_attr da;
	struct sc c = { .members = 16, .slots = 4096, .samples = 5 };
	struct sc_stats traced = {}, plain, irq = {};
	struct xrxedv_sq_info info;
	const char *slots_arg = NULL, *trace_save = NULL;
	uint32_t pmin, pmax, pmin2, pmax2;
	uint64_t fmax, fmax2;
	double irq_max = -1, t0;
	char irq_text[32];
	int i, ret, on_fd = -1, marker_fd = -1;
	unsigned int m;

	for (i = 0; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			die("snapshot-cost: %s needs a value", o);
		i++;
		if (!strcmp(o, "--members"))
			c.members = strtoul(v, NULL, 0);
		else if (!strcmp(o, "--slots"))
			slots_arg = v;
		else if (!strcmp(o, "--fill") && (!strcmp(v, "empty") || !strcmp(v, "full")))
			c.full = !strcmp(v, "full");
		else if (!strcmp(o, "--hold") && (!strcmp(v, "pace") || !strcmp(v, "sqd")))
			c.sqd = !strcmp(v, "sqd");
		else if (!strcmp(o, "--samples"))
			c.samples = strtoul(v, NULL, 0);
		else if (!strcmp(o, "--tracefs"))
			c.tracefs = v;
		else if (!strcmp(o, "--trace-save"))
			trace_save = v;
		else
			die("snapshot-cost: unknown option or value: %s %s", o, v);
	}
	if (c.members < 2 || c.members > XRXE_FLUSH_DOMAIN_MAX_QPS)
		die("--members: 2 to %d", XRXE_FLUSH_DOMAIN_MAX_QPS);
	if (c.samples < 1 || c.samples > SC_MAX_SAMPLES)
		die("--samples: 1 to %d", SC_MAX_SAMPLES);
	if (ibv_query_device(dev.ctx, &da))
		die("query device");
	printf("snapshot-cost: %s max_qp_wr %d: the largest ring is max_send_wr %d, "
	       "%u slots\n", ibv_get_device_name(dev.ctx->device), da.max_qp_wr,
	       da.max_qp_wr, sc_pow2_above(da.max_qp_wr));
	if (slots_arg && !strcmp(slots_arg, "max")) {
		c.max_send_wr = da.max_qp_wr;
		c.slots = sc_pow2_above(c.max_send_wr);
	} else {
		if (slots_arg)
			c.slots = strtoul(slots_arg, NULL, 0);
		if (c.slots < 4 || (c.slots & (c.slots - 1)) ||
		    c.slots - 1 > (uint32_t)da.max_qp_wr)
			die("--slots: a power of two from 4 up to max_qp_wr + 1, or max");
		c.max_send_wr = c.slots - 1;
	}

	c.cq = ibv_create_cq(dev.ctx, 1024, NULL, NULL, 0);
	c.buf = calloc(1, SC_BUF);
	if (!c.cq || !c.buf)
		die("cq or buffer");
	c.mr = ibv_reg_mr(dev.pd, c.buf, SC_BUF, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	c.dom = xrxedv_create_flush_domain(dev.ctx);
	if (!c.mr || !c.dom)
		die("MR or flush domain: %s", strerror(errno));
	t0 = now();
	for (m = 0; m < c.members - 1; m++) {
		c.member[m] = sc_make_qp(c.cq, c.max_send_wr);
		c.peer[m] = sc_make_qp(c.cq, 15);
		if ((ret = xrxedv_qp_set_flush_domain(c.member[m], c.dom)))
			die("member %u into the domain: %s", m, strerror(ret));
		if ((ret = xrxedv_query_sq(c.member[m], &info, sizeof(info))))
			die("member %u's ring: %s", m, strerror(ret));
		if ((1u << info.log2_slots) != c.slots)
			die("member %u's ring has %u slots, expected %u", m,
			    1u << info.log2_slots, c.slots);
		c.log2_slot_size = info.log2_slot_size;
		to_rts(&dev, c.member[m], c.peer[m]->qp_num, 14);
		to_rts(&dev, c.peer[m], c.member[m]->qp_num, 14);
		if (c.full)
			sc_fill(&c, m);
	}
	c.posted = c.full ? c.slots - 1 : 0;
	/* Let the engines and the doorbells of the fill settle. */
	usleep(200000);
	sc_pending(&c, &pmin, &pmax, &fmax);
	printf("snapshot-cost: %u members, %u slots each (max_send_wr %u, %u-byte slots: "
	       "%.0f MiB of ring and kernel queue a member), fill %s, hold %s: "
	       "%u WQEs posted a member, at most %llu taken by the engine, "
	       "%u to %u pending in the ring; setup %.1f s\n",
	       c.members - 1, c.slots, c.max_send_wr, 1u << c.log2_slot_size,
	       (double)c.slots * ((1u << c.log2_slot_size) + 256) / (1 << 20),
	       c.full ? "full" : "empty", c.sqd ? "sqd" : "pace", c.posted,
	       (unsigned long long)fmax, pmin, pmax, now() - t0);
	fflush(stdout);

	if (c.tracefs) {
		on_fd = sc_open(c.tracefs, "tracing_on", O_WRONLY);
		marker_fd = sc_open(c.tracefs, "trace_marker", O_WRONLY);
		traced = sc_phase(&c, "traced", on_fd, marker_fd);
		/* A change of tracer empties the buffer: keep it first. */
		if (trace_save)
			sc_copy_trace(c.tracefs, trace_save);
		sc_set(c.tracefs, "current_tracer", "nop");
	}
	plain = sc_phase(&c, "untraced", -1, -1);
	if (c.tracefs && sc_has_tracer(c.tracefs, "irqsoff")) {
		unsigned int s;
		int held;

		sc_set(c.tracefs, "current_tracer", "irqsoff");
		for (s = 0; s < c.samples; s++) {
			double us;

			sc_set(c.tracefs, "tracing_max_latency", "0");
			us = sc_sample(&c, on_fd, -1, "irqsoff", s, &held);
			irq.held += held;
			printf("snapshot-cost: irqsoff sample %u: ibv_post_send %.1f us, "
			       "tracing_max_latency %llu us\n", s, us,
			       sc_get(c.tracefs, "tracing_max_latency"));
			if ((double)sc_get(c.tracefs, "tracing_max_latency") > irq_max)
				irq_max = sc_get(c.tracefs, "tracing_max_latency");
		}
		sc_set(c.tracefs, "current_tracer", "nop");
	}
	sc_pending(&c, &pmin2, &pmax2, &fmax2);
	if (on_fd >= 0)
		close(on_fd);
	if (marker_fd >= 0)
		close(marker_fd);

	if (irq_max < 0)
		snprintf(irq_text, sizeof(irq_text), "na");
	else
		snprintf(irq_text, sizeof(irq_text), "%.0f", irq_max);
	printf("RESULT members=%u slots=%u fill=%s hold=%s posted=%u pending_min=%u "
	       "pending_max=%u pending_min_after=%u pending_max_after=%u samples=%u held=%d "
	       "post_us_min=%.1f post_us_med=%.1f post_us_max=%.1f "
	       "traced_post_us_med=%.1f traced_post_us_max=%.1f irqsoff_us_max=%s\n",
	       c.members, c.slots, c.full ? "full" : "empty", c.sqd ? "sqd" : "pace",
	       c.posted, pmin, pmax, pmin2, pmax2, c.samples, plain.held,
	       plain.min, plain.med, plain.max,
	       c.tracefs ? traced.med : -1, c.tracefs ? traced.max : -1,
	       irq_text);
	fflush(stdout);

	for (m = 0; m < c.members - 1; m++)
		if (ibv_destroy_qp(c.member[m]) || ibv_destroy_qp(c.peer[m]))
			die("destroy member %u", m);
	if (xrxedv_destroy_flush_domain(c.dom) || ibv_dereg_mr(c.mr) || ibv_destroy_cq(c.cq))
		die("teardown");
	free(c.buf);
	ibv_dealloc_pd(dev.pd);
	ibv_close_device(dev.ctx);
	return 0;
}

int main(int argc, char **argv)
{
	struct xrxedv_sq_info info;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint64_t rounds = argc > 2 ? strtoull(argv[2], NULL, 0) : 100;
	int classic;

	if (argc > 2 && !strcmp(argv[2], "snapshot-cost")) {
		open_side(&dev, argv[1]);
		return snapshot_cost(argc - 3, argv + 3);
	}
	if (argc < 2 || !rounds)
		die("usage: %s DEVICE [ROUNDS] | DEVICE snapshot-cost [OPTIONS]", argv[0]);
	open_side(&dev, argv[1]);
	cq = ibv_create_cq(dev.ctx, 4, NULL, NULL, 0);
	if (!cq)
		die("cq");
	qp = make_qp(&dev, cq, IBV_QPT_RC);
	classic = xrxedv_query_sq(qp, &info, sizeof(info)) == EOPNOTSUPP;
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	if (classic) {
		test_classic();
	} else {
		test_errors(argv[1]);
		test_lone_flush();
		test_teardown_while_waiting();
		test_out_of_order_ring();
		test_moving_qp();
		test_records_then_tag(rounds);
	}
	ibv_dealloc_pd(dev.pd);
	ibv_close_device(dev.ctx);
	printf("domain flush: all checks passed\n");
	return 0;
}
