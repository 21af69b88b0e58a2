// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Ordered load balancing measured in the testbed (bench/xrxe-bench
 * --workload ocu runs it; docs/load-balancing.md shows the figures). Senders are QPs on DEV0,
 * their peers QPs on DEV1 (xrxe0 and xrxe1, or rxe0 and rxe1 with -D rxe).
 * A "bulk" QP writes messages of its size with RDMA WRITE in lists of
 * LIST WRs, the last one signalled, and keeps up to LISTS lists
 * outstanding: a list longer than engine_quantum is what hands a QP to its
 * engine (a lone post runs in the caller's own system call). One thread
 * serves every bulk QP. An OCU "of its own" is one no other QP of the run
 * has, found by trying ordering domains 1, 2, ... of the QP's context.
 * One JSON object on stdout per run.
 *
 *   -m balance -p static|dynamic|spread [-s SIZE,SIZE,...]
 *	bulk QPs of the sizes given (default 8, 64 B to 64 KiB), each on an
 *	OCU of its own in the slice of the mode: the engines' busy time.
 *	spread: static, the i-th QP on an OCU of engine i mod the engines
 *	(static mapping at its best by count).
 *   -m isolation -p static|dynamic|collide [-q BULK] [-s SIZE] [-P US]
 *	a ping-pong of 64 B inline sends (both ends in one thread) beside BULK
 *	bulk QPs (default 3). collide: every one of their OCUs, and the
 *	ping-pong's at both ends, static on engine 0; dynamic: OCUs of their
 *	own in the dynamic slice (static: in the static slice, wherever they
 *	land). -P US: the ping-pong's QPs keep their engine polling their
 *	empty ring for US microseconds, so that its sends are taken by the
 *	engine rather than in its own post.
 *   -m throughput -q N -p static|dynamic [-s SIZE]
 *	N bulk QPs, each on an OCU of its own.
 *   -m scale -q N -i IDLE [-r LISTS] [-p static|dynamic] [-s SIZE]
 *	N bulk QPs alone, then beside IDLE more RC QPs on DEV0 in RTS that
 *	never send, then alone again once those are destroyed, each window
 *	after a pause of SETTLE_SECS (the guest's CPU in each pause too); the
 *	memory the idle QPs took.
 *
 * -D rxe runs on stock rxe: no placement, no engines. The bulk thread
 * sleeps on completion events, leaving the CPUs to the kernel's work and
 * the guest's busy time to what that work costs; -B: it busy polls, as
 * perftest does. -r LISTS: each bulk QP posts LISTS lists a second, not
 * as many as it can. -w window and -W warm-up, in seconds. Nothing here
 * asserts a figure; the program fails only when it could not measure.
 */
#include "xrxe_test_util.h"
#include "bench_lib.h"
#include <getopt.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <infiniband/xrxedv.h>
#include <rdma/rdma_user_xrxe.h>

#define LIST		32	/* WRs a post: twice the default engine_quantum */
#define LISTS		4	/* lists outstanding a QP */
#define DEPTH		(LIST * LISTS)
#define MAX_BULK	16
#define MAX_ENGINES	XRXE_OCU_MAX_ENGINES
#define MAX_OCUS	65536	/* the module's limit of its ocus parameter */
#define DRAIN_SECS	30
#define SETTLE_SECS	2	/* a pause with no traffic, in the scale runs */
#define PARAMS		"/sys/module/rdma_xrxe/parameters/"
#define ENGINES_FILE	"/sys/kernel/debug/rdma_xrxe/engines"

/* A sender on DEV0 writing into its peer on DEV1. */
struct bulk {
	uint32_t size;
	struct ibv_qp *sqp, *rqp;
	struct ibv_mr *smr, *rmr;
	uint8_t *sbuf, *rbuf;
	unsigned int lists_out;
	int64_t next_due;	/* with -r, when its next list is due */
	uint64_t done, done0;
};

/* What the engines did, from debugfs; n 0 without it (stock rxe). */
struct engines {
	unsigned int n;
	int64_t wqes[MAX_ENGINES], bytes[MAX_ENGINES];
	int64_t turns[MAX_ENGINES], busy_ns[MAX_ENGINES];
};

/* The machine at one end of a window. */
struct snap {
	int64_t t;
	double idle_s;
	struct engines e;
	uint64_t qp_turns;	/* every turn our QPs had, engine or doorbell */
	uint64_t doorbells;	/* doorbells our QPs rang, as the kernel counts */
	uint64_t ll_taken;	/* low-latency commands the kernel took */
};

static struct dev tx, rx;
static bool xrxe;
static const char *driver = "xrxe";
static struct ibv_cq *bulk_scq, *bulk_rcq;
/* Unless -B: the bulk thread sleeps on completion events. */
static struct ibv_comp_channel *bulk_channel;
static bool busy_poll;
/* -r: lists a second each bulk QP posts (0: as fast as it can). */
static double list_rate;
static struct bulk bulks[MAX_BULK];
static unsigned int nbulk;
/* Every QP of ours that sends, for the turn counts. */
static struct ibv_qp *senders[MAX_BULK + 2];
static unsigned int nsenders;
/* The OCUs our QPs took, so that no two share one. */
static bool ocu_used[MAX_OCUS];
static unsigned int num_ocus, num_engines, ocu_set0, byte_shift;
static double warmup = 0.5, window = 3;

static void sleep_until(int64_t t)
{
	struct timespec ts = { t / 1000000000LL, t % 1000000000LL };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
		;
}

/* A module parameter's first value (an array's first element). */
static unsigned int module_param(const char *name)
{
	char path[128];
	unsigned int v;
	FILE *f;

	snprintf(path, sizeof(path), PARAMS "%s", name);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%u", &v) != 1)
		die("cannot read %s", path);
	fclose(f);
	return v;
}

static struct engines read_engines(void)
{
	struct engines e = { 0 };
	long long load, busy, wqes, bytes, turns, ns;
	unsigned int i;
	char line[256];
	FILE *f;

	if (!xrxe)
		return e;
	f = fopen(ENGINES_FILE, "r");
	if (!f)
		die("cannot read %s (debugfs mounted?)", ENGINES_FILE);
	if (!fgets(line, sizeof(line), f))
		die("%s is empty", ENGINES_FILE);
	/* The columns named in the header line; a later column is ignored. */
	while (e.n < MAX_ENGINES && fgets(line, sizeof(line), f) &&
	       sscanf(line, "%u %lld %lld %lld %lld %lld %lld", &i, &load, &busy,
		      &wqes, &bytes, &turns, &ns) == 7) {
		e.wqes[e.n] = wqes;
		e.bytes[e.n] = bytes;
		e.turns[e.n] = turns;
		e.busy_ns[e.n] = ns;
		e.n++;
	}
	fclose(f);
	if (!e.n)
		die("no engine in %s", ENGINES_FILE);
	return e;
}

static struct xrxedv_qp_counters counters_of(struct ibv_qp *qp)
{
	struct xrxedv_qp_counters c;
	int ret = xrxedv_query_qp_counters(qp, &c, sizeof(c));

	if (ret)
		die("counters of QP %u: %s", qp->qp_num, strerror(ret));
	return c;
}

static struct snap take_snap(void)
{
	struct snap s = { .t = now_ns(), .idle_s = idle_seconds() };
	unsigned int i;

	s.e = read_engines();
	for (i = 0; xrxe && i < nsenders; i++) {
		struct xrxedv_qp_counters c = counters_of(senders[i]);

		s.qp_turns += c.engine_turns;
		s.doorbells += c.kernel_doorbells;
		s.ll_taken += c.kernel_ll_accepted;
	}
	return s;
}

/* sep "name": [b[i] - a[i], ...] in JSON. */
static void print_deltas(const char *sep, const char *name, const int64_t *a,
			 const int64_t *b, unsigned int n)
{
	unsigned int i;

	printf("%s\"%s\": [", sep, name);
	for (i = 0; i < n; i++)
		printf("%s%" PRId64, i ? ", " : "", b[i] - a[i]);
	printf("]");
}

/* The window between two snapshots, as JSON fields (no braces). */
static void print_window(const struct snap *a, const struct snap *b)
{
	double secs = (b->t - a->t) / 1e9;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	double busy = secs * cpus - (b->idle_s - a->idle_s);
	int64_t turns = 0, busy_ns = 0;
	unsigned int i;

	if (busy < 0)
		busy = 0;
	printf("\"window_s\": %.3f, \"cpus\": %ld, \"cpu_busy_s\": %.3f, "
	       "\"busy_poll\": %s, \"list_rate\": %.1f", secs, cpus, busy,
	       busy_poll ? "true" : "false", list_rate);
	if (!a->e.n)
		return;
	printf(", \"engines\": {");
	print_deltas("", "busy_ns", a->e.busy_ns, b->e.busy_ns, a->e.n);
	print_deltas(", ", "turns", a->e.turns, b->e.turns, a->e.n);
	print_deltas(", ", "wqes", a->e.wqes, b->e.wqes, a->e.n);
	print_deltas(", ", "bytes", a->e.bytes, b->e.bytes, a->e.n);
	printf("}");
	for (i = 0; i < a->e.n; i++) {
		turns += b->e.turns[i] - a->e.turns[i];
		busy_ns += b->e.busy_ns[i] - a->e.busy_ns[i];
	}
	/*
	 * Turns by the engine threads against every turn our QPs had, in the
	 * threads or in the callers' own doorbells and commands.
	 */
	printf(", \"engine_turns\": %" PRId64 ", \"qp_turns\": %" PRIu64
	       ", \"doorbells\": %" PRIu64 ", \"ll_taken\": %" PRIu64
	       ", \"engine_busy_s\": %.4f",
	       turns, b->qp_turns - a->qp_turns, b->doorbells - a->doorbells,
	       b->ll_taken - a->ll_taken, busy_ns / 1e9);
}

/* Placements a QP may be given before it is connected. */
enum place {
	PLACE_NONE,	/* as the module's ocu_mode and its flow say */
	PLACE_STATIC,	/* an OCU of its own in the static slice */
	PLACE_DYNAMIC,	/* an OCU of its own in the dynamic slice */
	PLACE_ENGINE0,	/* an OCU of its own, static, on engine 0 */
	PLACE_SPREAD,	/* an OCU of its own, static, the i-th QP on engine i mod n */
};

static enum place parse_place(const char *s)
{
	if (!strcmp(s, "static"))
		return PLACE_STATIC;
	if (!strcmp(s, "dynamic"))
		return PLACE_DYNAMIC;
	if (!strcmp(s, "collide"))
		return PLACE_ENGINE0;
	if (!strcmp(s, "spread"))
		return PLACE_SPREAD;
	die("-p static, dynamic, collide or spread");
	return PLACE_NONE;
}

static const char *place_name(enum place p)
{
	static const char *const names[] = {
		"module", "static", "dynamic", "collide", "spread",
	};

	return xrxe ? names[p] : "stock";
}

/* The engine static mapping gives an OCU of the static slice. */
static unsigned int static_engine(uint32_t ocu)
{
	return xrxe_ocu_static_engine(ocu - xrxe_ocu_slice_first(num_ocus, 0, XRXE_OCU_STATIC),
				      ocu_set0, num_engines);
}

/*
 * Give qp, not yet connected, an OCU of its own: try the ordering domains
 * of its context one after the other until one puts it on an OCU no QP of
 * ours has, and under static mapping is on engine (any if negative). A
 * domain's OCU comes from a hash of the context and the number, which the
 * QP reports back.
 */
static void place_qp(struct dev *d, struct ibv_qp *qp, enum place how, int engine)
{
	enum xrxedv_ocu_mode mode = how == PLACE_DYNAMIC ? XRXEDV_OCU_DYNAMIC :
				    XRXEDV_OCU_STATIC;
	uint32_t tries;
	int ret;

	if (!xrxe || how == PLACE_NONE)
		return;
	for (tries = 0; tries < 4096; tries++) {
		uint32_t ocu;

		ret = xrxedv_qp_set_ocu(qp, mode, d->next_domain++);
		if (ret)
			die("placing QP %u: %s", qp->qp_num, strerror(ret));
		ocu = counters_of(qp).ocu;
		if (ocu >= MAX_OCUS)
			die("QP %u reports OCU %u", qp->qp_num, ocu);
		if (ocu_used[ocu] || (engine >= 0 && static_engine(ocu) != (unsigned int)engine))
			continue;
		ocu_used[ocu] = true;
		return;
	}
	die("no free OCU for QP %u in 4096 domains", qp->qp_num);
}

static void bulk_init(struct bulk *b, uint32_t size, enum place how, int engine)
{
	b->size = size;
	b->sbuf = calloc(1, size);
	b->rbuf = calloc(1, size);
	if (!b->sbuf || !b->rbuf)
		die("buffers");
	b->smr = ibv_reg_mr(tx.pd, b->sbuf, size, 0);
	b->rmr = ibv_reg_mr(rx.pd, b->rbuf, size,
			    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!b->smr || !b->rmr)
		die("mr: %s", strerror(errno));
	b->sqp = make_qp(&tx, IBV_QPT_RC, bulk_scq, DEPTH, 1, 0);
	b->rqp = make_qp(&rx, IBV_QPT_RC, bulk_rcq, 1, 1, 0);
	place_qp(&tx, b->sqp, how, engine);
	connect_qp(b->sqp, &rx, b->rqp->qp_num);
	connect_qp(b->rqp, &tx, b->sqp->qp_num);
	senders[nsenders++] = b->sqp;
}

static void bulks_init(const uint32_t *sizes, unsigned int n, enum place how)
{
	unsigned int i;

	if (n > MAX_BULK)
		die("at most %d bulk QPs", MAX_BULK);
	bulk_scq = ibv_create_cq(tx.ctx, MAX_BULK * LISTS * 2, NULL, bulk_channel, 0);
	bulk_rcq = ibv_create_cq(rx.ctx, 16, NULL, NULL, 0);
	if (!bulk_scq || !bulk_rcq)
		die("cqs");
	for (i = 0; i < n; i++)
		bulk_init(&bulks[i], sizes[i], how,
			  how == PLACE_ENGINE0 ? 0 :
			  how == PLACE_SPREAD ? (int)(i % num_engines) : -1);
	nbulk = n;
}

/* One list of LIST writes, the last one signalled. */
static void bulk_post(struct bulk *b, unsigned int index)
{
	struct ibv_sge sge = { (uintptr_t)b->sbuf, b->size, b->smr->lkey };
	struct ibv_send_wr wr[LIST], *bad;
	unsigned int i;
	int ret;

	memset(wr, 0, sizeof(wr));
	for (i = 0; i < LIST; i++) {
		wr[i].wr_id = index;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_RDMA_WRITE;
		wr[i].wr.rdma.remote_addr = (uintptr_t)b->rbuf;
		wr[i].wr.rdma.rkey = b->rmr->rkey;
		wr[i].next = i + 1 < LIST ? &wr[i + 1] : NULL;
	}
	wr[LIST - 1].send_flags = IBV_SEND_SIGNALED;
	ret = ibv_post_send(b->sqp, wr, &bad);
	if (ret)
		die("post a list on QP %u: %s", b->sqp->qp_num, strerror(ret));
	b->lists_out++;
}

/*
 * Sleep until a completion comes or timeout_ms pass (so that the caller
 * sees its clock): arm the CQ, then look once more, since a completion
 * may have come before the arming.
 */
static int bulk_wait(struct ibv_wc *wc, int max, int timeout_ms)
{
	struct pollfd pfd = { .fd = bulk_channel->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *ctx;
	int n;

	if (ibv_req_notify_cq(bulk_scq, 0))
		die("arm the cq");
	n = ibv_poll_cq(bulk_scq, max, wc);
	if (n)
		return n;
	if (poll(&pfd, 1, timeout_ms) < 0)
		die("poll the completion channel: %s", strerror(errno));
	if (pfd.revents & POLLIN) {
		if (ibv_get_cq_event(bulk_channel, &cq, &ctx))
			die("cq event");
		ibv_ack_cq_events(cq, 1);
	}
	return ibv_poll_cq(bulk_scq, max, wc);
}

/* Retire what completed; without busy polling, wait up to timeout_ms. */
static void bulk_poll(int timeout_ms)
{
	struct ibv_wc wc[32];
	int n, i;

	n = ibv_poll_cq(bulk_scq, 32, wc);
	if (!n && bulk_channel && timeout_ms > 0)
		n = bulk_wait(wc, 32, timeout_ms);
	if (n < 0)
		die("poll");
	for (i = 0; i < n; i++) {
		struct bulk *b = &bulks[wc[i].wr_id];

		if (wc[i].status != IBV_WC_SUCCESS)
			die("QP %u: %s", b->sqp->qp_num, ibv_wc_status_str(wc[i].status));
		b->lists_out--;
		b->done += LIST;
	}
}

/*
 * Post the lists that may go now: every one a QP has room for, or with
 * -r one a period per QP. Returns the milliseconds until the next is due.
 */
static int bulk_post_due(int64_t t)
{
	int64_t period = list_rate > 0 ? (int64_t)(1e9 / list_rate) : 0, wait = 100000000;
	unsigned int i;

	for (i = 0; i < nbulk; i++) {
		struct bulk *b = &bulks[i];

		while (b->lists_out < LISTS && (!period || t >= b->next_due)) {
			bulk_post(b, i);
			/* A QP that fell behind does not catch up in a burst. */
			b->next_due = b->next_due + period < t - period ? t + period :
				      b->next_due + period;
		}
		if (period && b->lists_out < LISTS && b->next_due - t < wait)
			wait = b->next_due - t;
	}
	return wait / 1000000 + 1;
}

/*
 * Keep the bulk QPs' lists going from now until t_end, snapping the
 * machine at t_measure (into *s0) and at t_end (*s1); then let what is
 * outstanding complete, so that the next window starts with every OCU
 * drained.
 */
static void bulk_run(int64_t t_measure, int64_t t_end, struct snap *s0,
		     struct snap *s1)
{
	bool measuring = false;
	unsigned int i;
	int64_t t = now_ns();
	int wait;

	for (i = 0; i < nbulk; i++)
		bulks[i].next_due = t;
	for (;;) {
		wait = bulk_post_due(t);
		if (!measuring && (t_measure - t) / 1000000 < wait)
			wait = (t_measure - t) / 1000000 + 1;
		if ((t_end - t) / 1000000 < wait)
			wait = (t_end - t) / 1000000 + 1;
		bulk_poll(wait);
		t = now_ns();
		if (!measuring && t >= t_measure) {
			measuring = true;
			for (i = 0; i < nbulk; i++)
				bulks[i].done0 = bulks[i].done;
			*s0 = take_snap();
		}
		if (t >= t_end)
			break;
	}
	*s1 = take_snap();
	for (;;) {
		unsigned int out = 0;

		for (i = 0; i < nbulk; i++)
			out += bulks[i].lists_out;
		if (!out)
			break;
		if (now_ns() > t_end + DRAIN_SECS * 1000000000LL)
			die("%u lists still outstanding %d s after the window", out,
			    DRAIN_SECS);
		bulk_poll(100);
	}
}

/* The bulk QPs' messages in the window and where they ran, as JSON. */
static void print_bulks(double secs)
{
	uint64_t msgs = 0, bytes = 0;
	unsigned int i;

	for (i = 0; i < nbulk; i++) {
		msgs += bulks[i].done - bulks[i].done0;
		bytes += (bulks[i].done - bulks[i].done0) * bulks[i].size;
	}
	printf(", \"bulk_msgs_per_s\": %.1f, \"bulk_mb_per_s\": %.3f, \"qps\": [",
	       msgs / secs, bytes / secs / 1e6);
	for (i = 0; i < nbulk; i++) {
		struct bulk *b = &bulks[i];

		printf("%s{\"size\": %u, \"msgs_per_s\": %.1f", i ? ", " : "", b->size,
		       (b->done - b->done0) / secs);
		if (xrxe) {
			struct xrxedv_qp_counters c = counters_of(b->sqp);

			printf(", \"ocu\": %u, \"engine\": %d, \"ocu_maps\": %" PRIu64
			       ", \"ocu_remaps\": %" PRIu64,
			       c.ocu, c.engine == XRXEDV_UNKNOWN ? -1 : (int)c.engine,
			       c.ocu_maps, c.ocu_remaps);
		}
		printf("}");
	}
	printf("]");
}

static void set_window(int64_t *t_measure, int64_t *t_end)
{
	*t_measure = now_ns() + (int64_t)(warmup * 1e9);
	*t_end = *t_measure + (int64_t)(window * 1e9);
}

static void run_bulk_mode(const char *mode, const uint32_t *sizes, unsigned int n,
			  enum place how)
{
	struct snap s0, s1;
	int64_t t_measure, t_end;

	bulks_init(sizes, n, how);
	set_window(&t_measure, &t_end);
	bulk_run(t_measure, t_end, &s0, &s1);
	printf("{\"mode\": \"%s\", \"driver\": \"%s\", \"placement\": \"%s\", "
	       "\"nqps\": %u, \"byte_shift\": %u, ", mode, driver, place_name(how), n,
	       byte_shift);
	print_window(&s0, &s1);
	print_bulks((s1.t - s0.t) / 1e9);
	printf("}\n");
}

static void pingpong_init(struct pingpong *p, enum place how, int32_t poll_us)
{
	struct dev *d[2] = { &tx, &rx };
	int s, ret;

	for (s = 0; s < 2; s++) {
		pingpong_open(p, s, d[s]);
		place_qp(d[s], p->qp[s], how, how == PLACE_ENGINE0 ? 0 : -1);
		if (xrxe && poll_us) {
			ret = xrxedv_qp_set_engine_idle(p->qp[s], poll_us);
			if (ret)
				die("engine busy-poll window of %d us: %s", poll_us,
				    strerror(ret));
		}
		senders[nsenders++] = p->qp[s];
	}
	pingpong_connect(p);
}

struct pp_args {
	struct pingpong *p;
	int64_t t_measure, t_end;
};

static void *pingpong_thread(void *arg)
{
	struct pp_args *a = arg;

	pingpong_run(a->p, a->t_measure, a->t_end);
	return NULL;
}

static void run_isolation(unsigned int n, uint32_t size, enum place how,
			  int32_t poll_us)
{
	uint32_t sizes[MAX_BULK];
	struct pingpong pp = { 0 };
	struct pp_args a = { .p = &pp };
	struct snap s0, s1;
	pthread_t thread;
	double sum = 0;
	unsigned int i;
	uint64_t k;

	if (n > MAX_BULK)
		die("at most %d bulk QPs", MAX_BULK);
	for (i = 0; i < n; i++)
		sizes[i] = size;
	/* The ping-pong first: its OCUs must exist at both ends. */
	pingpong_init(&pp, how, poll_us);
	bulks_init(sizes, n, how);
	set_window(&a.t_measure, &a.t_end);
	if (pthread_create(&thread, NULL, pingpong_thread, &a))
		die("thread");
	if (n) {
		bulk_run(a.t_measure, a.t_end, &s0, &s1);
	} else {
		sleep_until(a.t_measure);
		s0 = take_snap();
		sleep_until(a.t_end);
		s1 = take_snap();
	}
	pthread_join(thread, NULL);
	if (!pp.n)
		die("no ping-pong in the window");
	qsort(pp.half, pp.n, sizeof(*pp.half), cmp_double);
	for (k = 0; k < pp.n; k++)
		sum += pp.half[k];
	printf("{\"mode\": \"isolation\", \"driver\": \"%s\", \"placement\": \"%s\", "
	       "\"nqps\": %u, \"pp_poll_us\": %d, ", driver, place_name(how), n,
	       poll_us);
	print_window(&s0, &s1);
	printf(", \"pp_iters\": %" PRIu64 ", \"pp_p50_us\": %.2f, \"pp_p90_us\": %.2f, "
	       "\"pp_p99_us\": %.2f, \"pp_max_us\": %.2f, \"pp_mean_us\": %.2f",
	       pp.n, quantile(pp.half, pp.n, 0.5), quantile(pp.half, pp.n, 0.9),
	       quantile(pp.half, pp.n, 0.99), pp.half[pp.n - 1], sum / pp.n);
	if (xrxe) {
		struct xrxedv_qp_counters c[2] = { counters_of(pp.qp[0]),
						   counters_of(pp.qp[1]) };

		printf(", \"pp\": [");
		for (i = 0; i < 2; i++)
			printf("%s{\"ocu\": %u, \"engine\": %d, \"ocu_maps\": %" PRIu64
			       ", \"ocu_remaps\": %" PRIu64 ", \"turns\": %" PRIu64
			       ", \"doorbells\": %" PRIu64 ", \"ll_taken\": %" PRIu64
			       ", \"wqes\": %" PRIu64 "}", i ? ", " : "", c[i].ocu,
			       c[i].engine == XRXEDV_UNKNOWN ? -1 : (int)c[i].engine,
			       c[i].ocu_maps, c[i].ocu_remaps, c[i].engine_turns,
			       c[i].kernel_doorbells, c[i].kernel_ll_accepted,
			       c[i].wqes_fetched);
		printf("]");
	}
	if (n)
		print_bulks((s1.t - s0.t) / 1e9);
	printf("}\n");
}

/* Fields of /proc/meminfo, in KiB. */
struct meminfo {
	long long avail, slab, vmalloc, pagetables;
};

static struct meminfo read_meminfo(void)
{
	struct meminfo m = { -1, -1, -1, -1 };
	char line[256];
	long long v;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		die("cannot read /proc/meminfo");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "MemAvailable: %lld", &v) == 1)
			m.avail = v;
		else if (sscanf(line, "Slab: %lld", &v) == 1)
			m.slab = v;
		else if (sscanf(line, "VmallocUsed: %lld", &v) == 1)
			m.vmalloc = v;
		else if (sscanf(line, "PageTables: %lld", &v) == 1)
			m.pagetables = v;
	}
	fclose(f);
	if (m.avail < 0 || m.slab < 0 || m.vmalloc < 0 || m.pagetables < 0)
		die("/proc/meminfo lacks a field");
	return m;
}

static void print_phase(const char *name, const struct snap *s0, const struct snap *s1)
{
	printf(", \"%s\": {", name);
	print_window(s0, s1);
	print_bulks((s1->t - s0->t) / 1e9);
	printf("}");
}

/*
 * A pause with no traffic: the guest's busy CPU seconds a second meanwhile,
 * which is what work deferred by the last step (a destroy's freeing) costs,
 * and keeps it out of the next window.
 */
static double settle(void)
{
	double idle0 = idle_seconds(), wall;
	int64_t t0 = now_ns();

	sleep_until(t0 + SETTLE_SECS * 1000000000LL);
	wall = (now_ns() - t0) / 1e9;
	return (wall * sysconf(_SC_NPROCESSORS_ONLN) - (idle_seconds() - idle0)) / wall;
}

/*
 * The bulk QPs alone, beside idle QPs, and alone again, each window after
 * a pause. The idle QPs are connected (RTS) to made-up QP numbers on DEV1,
 * as many RC QPs of a big application are that have nothing to send: they
 * hash to OCUs all over their slice and are never queued.
 */
static void run_scale(unsigned int n, unsigned int idle, uint32_t size,
		      enum place how)
{
	uint32_t sizes[MAX_BULK];
	struct snap a0, a1, b0, b1, c0, c1;
	struct ibv_qp **qps = calloc(idle, sizeof(*qps));
	struct ibv_cq *cq = ibv_create_cq(tx.ctx, 16, NULL, NULL, 0);
	struct meminfo m0, m1, m2;
	int64_t t_measure, t_end, t0, t1, t2;
	double paused[3];
	unsigned int i;

	if (!qps || !cq)
		die("memory or cq");
	for (i = 0; i < n && i < MAX_BULK; i++)
		sizes[i] = size;
	bulks_init(sizes, n, how);
	paused[0] = settle();
	set_window(&t_measure, &t_end);
	bulk_run(t_measure, t_end, &a0, &a1);

	m0 = read_meminfo();
	t0 = now_ns();
	for (i = 0; i < idle; i++) {
		qps[i] = make_qp(&tx, IBV_QPT_RC, cq, DEPTH, 1, 0);
		connect_qp(qps[i], &rx, 0x100000 + i);
	}
	t1 = now_ns();
	m1 = read_meminfo();
	paused[1] = settle();
	set_window(&t_measure, &t_end);
	bulk_run(t_measure, t_end, &b0, &b1);

	t2 = now_ns();
	for (i = 0; i < idle; i++)
		if (ibv_destroy_qp(qps[i]))
			die("destroy an idle QP");
	t2 = now_ns() - t2;
	m2 = read_meminfo();
	paused[2] = settle();
	set_window(&t_measure, &t_end);
	bulk_run(t_measure, t_end, &c0, &c1);

	printf("{\"mode\": \"scale\", \"driver\": \"%s\", \"placement\": \"%s\", "
	       "\"nqps\": %u, \"idle_qps\": %u, \"create_s\": %.3f, \"destroy_s\": %.3f, "
	       "\"mem_kib\": {\"avail\": [%lld, %lld, %lld], \"slab\": [%lld, %lld, %lld], "
	       "\"vmalloc\": [%lld, %lld, %lld], \"pagetables\": [%lld, %lld, %lld]}, "
	       "\"paused_cpu\": [%.3f, %.3f, %.3f]",
	       driver, place_name(how), n, idle, (t1 - t0) / 1e9, t2 / 1e9,
	       m0.avail, m1.avail, m2.avail, m0.slab, m1.slab, m2.slab,
	       m0.vmalloc, m1.vmalloc, m2.vmalloc, m0.pagetables, m1.pagetables,
	       m2.pagetables, paused[0], paused[1], paused[2]);
	print_phase("alone", &a0, &a1);
	print_phase("beside_idle", &b0, &b1);
	print_phase("alone_after", &c0, &c1);
	printf("}\n");
	free(qps);
}

int main(int argc, char **argv)
{
	const char *mode = NULL, *size_opt = NULL;
	uint32_t sizes[MAX_BULK];
	enum place how = PLACE_NONE;
	unsigned int nqps = 0, idle = 4096, nsizes;
	int32_t poll_us = 0;
	char name[32];
	int c;

	while ((c = getopt(argc, argv, "Bm:p:q:s:i:P:D:w:W:r:")) != -1) {
		switch (c) {
		case 'm': mode = optarg; break;
		case 'p': how = parse_place(optarg); break;
		case 'q': nqps = strtoul(optarg, NULL, 0); break;
		case 's': size_opt = optarg; break;
		case 'i': idle = strtoul(optarg, NULL, 0); break;
		case 'P': poll_us = strtol(optarg, NULL, 0); break;
		case 'D': driver = optarg; break;
		case 'w': window = atof(optarg); break;
		case 'W': warmup = atof(optarg); break;
		case 'B': busy_poll = true; break;
		case 'r': list_rate = atof(optarg); break;
		default: die("usage: see the comment at the top of bench/ocu-bench.c");
		}
	}
	if (!mode || window <= 0 || warmup < 0)
		die("-m MODE, and -w and -W positive");
	xrxe = !strcmp(driver, "xrxe");
	if (xrxe) {
		num_ocus = module_param("ocus");
		ocu_set0 = module_param("ocu_set");
		/* Class 0's, which every QP here is in. */
		byte_shift = module_param("ocu_byte_shift");
		if (num_ocus > MAX_OCUS)
			die("%u OCUs", num_ocus);
	} else {
		how = PLACE_NONE;
	}
	snprintf(name, sizeof(name), "%s0", driver);
	open_dev(&tx, name, false);
	snprintf(name, sizeof(name), "%s1", driver);
	open_dev(&rx, name, false);
	if (!busy_poll) {
		bulk_channel = ibv_create_comp_channel(tx.ctx);
		if (!bulk_channel)
			die("completion channel: %s", strerror(errno));
		/* Non-blocking: bulk_wait() sleeps in poll(), bounded. */
		if (fcntl(bulk_channel->fd, F_SETFL,
			  fcntl(bulk_channel->fd, F_GETFL) | O_NONBLOCK))
			die("completion channel: %s", strerror(errno));
	}
	/* One completion vector per engine. */
	num_engines = tx.ctx->num_comp_vectors;
	if (xrxe && how != PLACE_NONE && read_engines().n != num_engines)
		die("%u engines in debugfs, %u completion vectors",
		    read_engines().n, num_engines);

	if (!strcmp(mode, "balance")) {
		nsizes = parse_list(size_opt ?: "64,256,1024,2048,4096,16384,32768,65536",
				    sizes, MAX_BULK, "sizes", "a size must be positive");
		run_bulk_mode("balance", sizes, nsizes, how);
	} else if (!strcmp(mode, "throughput") && nqps) {
		for (c = 0; c < (int)nqps && c < MAX_BULK; c++)
			sizes[c] = size_opt ? strtoul(size_opt, NULL, 0) : 4096;
		run_bulk_mode("throughput", sizes, nqps, how);
	} else if (!strcmp(mode, "isolation")) {
		run_isolation(nqps ?: 3, size_opt ? strtoul(size_opt, NULL, 0) : 4096,
			      how, poll_us);
	} else if (!strcmp(mode, "scale") && nqps) {
		run_scale(nqps, idle, size_opt ? strtoul(size_opt, NULL, 0) : 4096, how);
	} else {
		die("-m balance|isolation|throughput -q N|scale -q N");
	}
	return 0;
}
