// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Ordered load balancing (bench/xrxe-bench --workload ocu runs it; the
 * method: docs/bench/ocu.md). Bulk QPs on DEV0 write into peers on DEV1 in
 * lists of LIST WRs, the last one signalled, LISTS lists outstanding, one
 * thread serving them all; each on an OCU of its own (no other QP of the
 * run has it). One JSON object on stdout; it fails only when it could not
 * measure.
 *
 *   -m MODE	balance, isolation, throughput -q N or scale -q N
 *   -p PLACE	static, dynamic, collide (all on engine 0) or spread (QP i on engine i mod n)
 *   -q N	bulk QPs (isolation: default 3)
 *   -s SIZE	the writes' size (default 4096); balance: S1,S2,... (8, 64 B to 64 KiB)
 *   -i IDLE	scale: idle RC QPs beside them (default 4096)
 *   -P US	isolation: the ping-pong QPs' engine polls their empty ring US us
 *   -r LISTS	lists a second each bulk QP posts (default: as many as it can)
 *   -B		busy poll (default: sleep on completion events)
 *   -w S	the window (default 3)
 *   -W S	the warm-up before it (default 0.5)
 *   -D DRIVER	xrxe (default) or rxe: no placement, no engines
 */
#include "bench_lib.h"
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <rdma/rdma_user_xrxe.h>
#include "xrxe_policy.h"

#define LIST		32	/* WRs a post: twice the default engine_quantum */
#define LISTS		4	/* lists outstanding a QP */
#define DEPTH		(LIST * LISTS)
#define MAX_BULK	16
#define MAX_ENGINES	XRXE_OCU_MAX_ENGINES
#define MAX_OCUS	65536	/* the module's limit of its ocus parameter */
#define SETTLE_SECS	2	/* a pause with no traffic, in the scale runs */
#define PARAMS		"/sys/module/rdma_xrxe/parameters/"
#define ENGINES_FILE	"/sys/kernel/debug/rdma_xrxe/engines"

/* A sender on DEV0 writing into its peer on DEV1. */
struct bulk {
	uint32_t size;
	struct ibv_qp *sqp, *rqp;
	struct ibv_mr *smr, *rmr;	/* the buffers written from and into */
	unsigned int lists_out;
	int64_t next_due;	/* with -r, when its next list is due */
	uint64_t done, done0;
};

/* What the engines did, from debugfs; n 0 without it (stock rxe). */
enum { ENG_BUSY_NS, ENG_TURNS, ENG_WQES, ENG_BYTES, ENG_COUNTERS };
static const char *const engine_counters[] = { "busy_ns", "turns", "wqes", "bytes" };
struct engines {
	unsigned int n;
	long long v[ENG_COUNTERS][MAX_ENGINES];
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

static struct engines read_engines(void)
{
	struct engines e = { 0 };
	long long load, busy;
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
		      &e.v[ENG_WQES][e.n], &e.v[ENG_BYTES][e.n], &e.v[ENG_TURNS][e.n],
		      &e.v[ENG_BUSY_NS][e.n]) == 7)
		e.n++;
	fclose(f);
	if (!e.n)
		die("no engine in %s", ENGINES_FILE);
	return e;
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

/* The window between two snapshots, as JSON fields (no braces). */
static void print_window(const struct snap *a, const struct snap *b)
{
	double secs = (b->t - a->t) / 1e9;
	double busy = busy_seconds(secs, b->idle_s - a->idle_s);
	int64_t turns = 0, busy_ns = 0;
	unsigned int i, k;

	if (busy < 0)
		busy = 0;
	printf("\"window_s\": %.3f, \"cpus\": %ld, \"cpu_busy_s\": %.3f, "
	       "\"busy_poll\": %s, \"list_rate\": %.1f", secs,
	       sysconf(_SC_NPROCESSORS_ONLN), busy, busy_poll ? "true" : "false", list_rate);
	if (!a->e.n)
		return;
	printf(", \"engines\": {");
	for (k = 0; k < ENG_COUNTERS; k++) {
		printf("%s\"%s\": [", k ? ", " : "", engine_counters[k]);
		for (i = 0; i < a->e.n; i++)
			printf("%s%lld", i ? ", " : "", b->e.v[k][i] - a->e.v[k][i]);
		printf("]");
	}
	printf("}");
	for (i = 0; i < a->e.n; i++) {
		turns += b->e.v[ENG_TURNS][i] - a->e.v[ENG_TURNS][i];
		busy_ns += b->e.v[ENG_BUSY_NS][i] - a->e.v[ENG_BUSY_NS][i];
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

/* Where a QP's sends ran: its OCU and engine, how often it was mapped, as JSON fields. */
static void print_placement(const struct xrxedv_qp_counters *c)
{
	printf("\"ocu\": %u, \"engine\": %d, \"ocu_maps\": %" PRIu64 ", \"ocu_remaps\": %" PRIu64,
	       c->ocu, known(c->engine), c->ocu_maps, c->ocu_remaps);
}

/* Placements a QP may be given before it is connected. */
enum place {
	PLACE_NONE,	/* as the module's ocu_mode and its flow say */
	PLACE_STATIC,	/* an OCU of its own in the static slice */
	PLACE_DYNAMIC,	/* an OCU of its own in the dynamic slice */
	PLACE_ENGINE0,	/* an OCU of its own, static, on engine 0 */
	PLACE_SPREAD,	/* an OCU of its own, static, the i-th QP on engine i mod n */
};

/* -p's names of the placements, and the placement a JSON record names. */
static const char *const place_names[] = {
	"module", "static", "dynamic", "collide", "spread",
};

static enum place parse_place(const char *s)
{
	enum place p;

	for (p = PLACE_STATIC; p <= PLACE_SPREAD; p++)
		if (!strcmp(s, place_names[p]))
			return p;
	die("-p static, dynamic, collide or spread");
	return PLACE_NONE;
}

/* The engine static mapping gives an OCU of the static slice. */
static unsigned int static_engine(uint32_t ocu)
{
	return xrxe_ocu_static_engine(ocu - xrxe_ocu_slice_first(num_ocus, 0, XRXE_OCU_STATIC),
				      ocu_set0, num_engines);
}

/*
 * Give qp, not yet connected, an OCU of its own, under static mapping on
 * engine (any if negative): a domain's OCU is a hash of the context and the
 * number, so try domains until the OCU the QP reports back fits.
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

/* n bulk QPs of size sizes[i], or of size alone (sizes NULL). */
static void bulks_init(const uint32_t *sizes, uint32_t size, unsigned int n, enum place how)
{
	struct bulk *b;
	unsigned int i;

	if (n > MAX_BULK)
		die("at most %d bulk QPs", MAX_BULK);
	bulk_scq = make_cq(&tx, MAX_BULK * LISTS * 2, bulk_channel);
	bulk_rcq = make_cq(&rx, 16, NULL);
	for (i = 0; i < n; i++) {
		b = &bulks[i];
		b->size = sizes ? sizes[i] : size;
		b->smr = alloc_mr(&tx, b->size, 0);
		b->rmr = alloc_mr(&rx, b->size, PEER_ACCESS);
		b->sqp = make_qp(&tx, IBV_QPT_RC, bulk_scq, DEPTH, 1, 0);
		b->rqp = make_qp(&rx, IBV_QPT_RC, bulk_rcq, 1, 1, 0);
		place_qp(&tx, b->sqp, how, how == PLACE_ENGINE0 ? 0 :
			 how == PLACE_SPREAD ? (int)(i % num_engines) : -1);
		connect_pair(b->sqp, b->rqp, IBV_MTU_1024);
		senders[nsenders++] = b->sqp;
	}
	nbulk = n;
}

/* One list of LIST writes, the last one signalled. */
static void bulk_post(struct bulk *b, unsigned int index)
{
	struct ibv_sge sge = { (uintptr_t)b->smr->addr, b->size, b->smr->lkey };
	struct ibv_send_wr wr[LIST], *bad;
	unsigned int i;
	int ret;

	for (i = 0; i < LIST; i++)
		wr[i] = (struct ibv_send_wr){
			.wr_id = index, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = i + 1 < LIST ? 0 : IBV_SEND_SIGNALED,
			.wr.rdma.remote_addr = (uintptr_t)b->rmr->addr,
			.wr.rdma.rkey = b->rmr->rkey,
			.next = i + 1 < LIST ? &wr[i + 1] : NULL,
		};
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
 * Keep the bulk QPs' lists going until t_end, snapping the machine at
 * t_measure (*s0) and t_end (*s1); then drain, so that the next window
 * starts with every OCU empty.
 */
static void bulk_run(struct snap *s0, struct snap *s1)
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
		if (now_ns() > t_end + DRAIN_SECS * NS_PER_S)
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

			printf(", ");
			print_placement(&c);
		}
		printf("}");
	}
	printf("]");
}

/* The record's mode, driver and placement, and its QPs; the rest follows. */
static void print_head(const char *mode, enum place how, unsigned int n)
{
	printf("{\"mode\": \"%s\", \"driver\": \"%s\", \"placement\": \"%s\", \"nqps\": %u, ",
	       mode, driver, xrxe ? place_names[how] : "stock", n);
}

static void run_bulk_mode(const char *mode, const uint32_t *sizes, uint32_t size,
			  unsigned int n, enum place how)
{
	struct snap s0, s1;

	bulks_init(sizes, size, n, how);
	set_window();
	bulk_run(&s0, &s1);
	print_head(mode, how, n);
	printf("\"byte_shift\": %u, ", byte_shift);
	print_window(&s0, &s1);
	print_bulks((s1.t - s0.t) / 1e9);
	printf("}\n");
}

static void run_isolation(unsigned int n, uint32_t size, enum place how, int32_t poll_us)
{
	struct pingpong pp = { 0 };
	struct xrxedv_qp_counters c;
	struct snap s0, s1;
	pthread_t thread;
	double mean;
	int s, ret;

	/* The ping-pong first: its OCUs must exist at both ends. */
	pingpong_open(&pp);
	for (s = 0; s < 2; s++) {
		place_qp(s ? &rx : &tx, pp.qp[s], how, how == PLACE_ENGINE0 ? 0 : -1);
		if (xrxe && poll_us) {
			ret = xrxedv_qp_set_engine_idle(pp.qp[s], poll_us);
			if (ret)
				die("engine busy-poll window of %d us: %s", poll_us,
				    strerror(ret));
		}
		senders[nsenders++] = pp.qp[s];
	}
	pingpong_connect(&pp);
	bulks_init(NULL, size, n, how);
	set_window();
	if (pthread_create(&thread, NULL, pingpong_thread, &pp))
		die("thread");
	if (n) {
		bulk_run(&s0, &s1);
	} else {
		sleep_until(t_measure);
		s0 = take_snap();
		sleep_until(t_end);
		s1 = take_snap();
	}
	pthread_join(thread, NULL);
	mean = pingpong_sort(&pp);
	print_head("isolation", how, n);
	printf("\"pp_poll_us\": %d, ", poll_us);
	print_window(&s0, &s1);
	printf(", \"pp_iters\": %" PRIu64 ", \"pp_p50_us\": %.2f, \"pp_p90_us\": %.2f, "
	       "\"pp_p99_us\": %.2f, \"pp_max_us\": %.2f, \"pp_mean_us\": %.2f",
	       pp.n, quantile(pp.half, pp.n, 0.5), quantile(pp.half, pp.n, 0.9),
	       quantile(pp.half, pp.n, 0.99), pp.half[pp.n - 1], mean);
	if (xrxe) {
		printf(", \"pp\": [");
		for (s = 0; s < 2; s++) {
			c = counters_of(pp.qp[s]);
			printf("%s{", s ? ", " : "");
			print_placement(&c);
			printf(", \"turns\": %" PRIu64 ", \"doorbells\": %" PRIu64
			       ", \"ll_taken\": %" PRIu64 ", \"wqes\": %" PRIu64 "}",
			       c.engine_turns, c.kernel_doorbells, c.kernel_ll_accepted,
			       c.wqes_fetched);
		}
		printf("]");
	}
	if (n)
		print_bulks((s1.t - s0.t) / 1e9);
	printf("}\n");
}

/* The fields of /proc/meminfo the scale run reports, in KiB, and their JSON names. */
static const char *const mem_fields[][2] = {
	{ "MemAvailable", "avail" }, { "Slab", "slab" }, { "VmallocUsed", "vmalloc" },
	{ "PageTables", "pagetables" },
};
#define NMEM	(sizeof(mem_fields) / sizeof(mem_fields[0]))

static void read_meminfo(long long m[NMEM])
{
	char line[256], name[64];
	unsigned int i;
	long long v;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		die("cannot read /proc/meminfo");
	for (i = 0; i < NMEM; i++)
		m[i] = -1;
	while (fgets(line, sizeof(line), f))
		for (i = 0; i < NMEM; i++)
			if (sscanf(line, "%63[^:]: %lld", name, &v) == 2 &&
			    !strcmp(name, mem_fields[i][0]))
				m[i] = v;
	fclose(f);
	for (i = 0; i < NMEM; i++)
		if (m[i] < 0)
			die("/proc/meminfo lacks a field");
}

/*
 * The bulk QPs alone, beside idle QPs, and alone again. Each window follows
 * a pause of SETTLE_SECS that keeps work the last step deferred (a destroy's
 * freeing) out of it; the pause's CPU is reported. The idle QPs are in RTS
 * towards made-up QP numbers, as a big application's idle RC QPs are.
 */
static void run_scale(unsigned int n, unsigned int idle, uint32_t size, enum place how)
{
	static const char *const phases[] = { "alone", "beside_idle", "alone_after" };
	struct ibv_qp **qps = calloc(idle, sizeof(*qps));
	struct ibv_cq *cq = make_cq(&tx, 16, NULL);
	double paused[3], took[3], idle0, wall;
	long long mem[3][NMEM];
	struct snap s[3][2];
	unsigned int p, i;
	int64_t t;

	if (!qps)
		die("memory");
	bulks_init(NULL, size, n, how);
	for (p = 0; p < 3; p++) {
		/* Phase 1 creates the idle QPs, phase 2 destroys them. */
		if (p == 1)
			read_meminfo(mem[0]);
		t = now_ns();
		for (i = 0; p == 1 && i < idle; i++) {
			qps[i] = make_qp(&tx, IBV_QPT_RC, cq, DEPTH, 1, 0);
			connect_qp(qps[i], &rx, 0x100000 + i, IBV_MTU_1024);
		}
		for (i = 0; p == 2 && i < idle; i++)
			if (ibv_destroy_qp(qps[i]))
				die("destroy an idle QP");
		took[p] = (now_ns() - t) / 1e9;
		if (p)
			read_meminfo(mem[p]);
		idle0 = idle_seconds();
		t = now_ns();
		sleep_until(t + SETTLE_SECS * NS_PER_S);
		wall = (now_ns() - t) / 1e9;
		paused[p] = busy_seconds(wall, idle_seconds() - idle0) / wall;
		set_window();
		bulk_run(&s[p][0], &s[p][1]);
	}
	print_head("scale", how, n);
	printf("\"idle_qps\": %u, \"create_s\": %.3f, \"destroy_s\": %.3f, \"mem_kib\": {",
	       idle, took[1], took[2]);
	for (i = 0; i < NMEM; i++)
		printf("%s\"%s\": [%lld, %lld, %lld]", i ? ", " : "", mem_fields[i][1],
		       mem[0][i], mem[1][i], mem[2][i]);
	printf("}, \"paused_cpu\": [%.3f, %.3f, %.3f]", paused[0], paused[1], paused[2]);
	for (p = 0; p < 3; p++) {
		printf(", \"%s\": {", phases[p]);
		print_window(&s[p][0], &s[p][1]);
		print_bulks((s[p][1].t - s[p][0].t) / 1e9);
		printf("}");
	}
	printf("}\n");
	free(qps);
}

int main(int argc, char **argv)
{
	const char *mode = NULL, *size_opt = NULL;
	uint32_t sizes[MAX_BULK], size;
	enum place how = PLACE_NONE;
	unsigned int nqps = 0, idle = 4096, nsizes;
	int32_t poll_us = 0;
	int c;

	warmup = 0.5;
	window = 3;
	while ((c = getopt(argc, argv, "Bm:p:q:s:i:P:D:w:W:r:")) != -1) {
		switch (c) {
		case 'm': mode = optarg; break;
		case 'p': how = parse_place(optarg); break;
		case 'q': nqps = strtoul(optarg, NULL, 0); break;
		case 's': size_opt = optarg; break;
		case 'i': idle = strtoul(optarg, NULL, 0); break;
		case 'P': poll_us = strtol(optarg, NULL, 0); break;
		case 'B': busy_poll = true; break;
		case 'r': list_rate = atof(optarg); break;
		default: common_opt(c, "ocu-bench.c");
		}
	}
	if (!mode || window <= 0 || warmup < 0)
		die("-m MODE, and -w and -W positive");
	if (xrxe) {
		num_ocus = read_counter(true, PARAMS "ocus");
		ocu_set0 = read_counter(true, PARAMS "ocu_set");
		/* Class 0's, which every QP here is in. */
		byte_shift = read_counter(true, PARAMS "ocu_byte_shift");
		if (num_ocus > MAX_OCUS)
			die("%u OCUs", num_ocus);
	} else {
		how = PLACE_NONE;
	}
	open_devs(false);
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

	size = size_opt ? strtoul(size_opt, NULL, 0) : 4096;
	if (!strcmp(mode, "balance")) {
		nsizes = parse_list(size_opt ?: "64,256,1024,2048,4096,16384,32768,65536",
				    sizes, MAX_BULK, "sizes", "a size must be positive");
		run_bulk_mode("balance", sizes, 0, nsizes, how);
	} else if (!strcmp(mode, "throughput") && nqps) {
		run_bulk_mode("throughput", NULL, size, nqps, how);
	} else if (!strcmp(mode, "isolation")) {
		run_isolation(nqps ?: 3, size, how, poll_us);
	} else if (!strcmp(mode, "scale") && nqps) {
		run_scale(nqps, idle, size, how);
	} else {
		die("-m balance|isolation|throughput -q N|scale -q N");
	}
	return 0;
}
