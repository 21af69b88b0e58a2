// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Send rate limits measured in the testbed (bench/xrxe-bench --workload pace
 * runs it; docs/rate-limit.md shows the figures). Senders are QPs on DEV0, receivers
 * QPs on DEV1 (xrxe0 and xrxe1, or rxe0 and rxe1 with -D rxe). A "flow" is
 * one sender with its send queue kept full, paced or not, and its receiver.
 * One JSON object on stdout per run.
 *
 *   -m accuracy -t rc|ud -s SIZE -r KBPS [-w S] [-T FILE] [-b BURST]
 *	one flow; its rate is what DEV0's netdev transmitted in the window
 *	(IP bytes: tx bytes less 14 Ethernet header bytes a packet), the basis
 *	the limit counts, sampled every 10 ms by a thread of its own; also
 *	the most any slice sent above the rate's share of its own length,
 *	which the limit keeps within the burst. -T writes every slice (time,
 *	length, bytes): the time series. KBPS 0: no limit. Also the device's
 *	wake-ups in the window, the late ones (the QP ran after its bucket
 *	filled), the bytes the rate gave while they were late, and the time
 *	the QP waited on its limit.
 *   -m mix -c [s][l][p|q] -s SIZE -r KBPS [-a MSGS] [-w S]
 *	workloads run together, each in its own thread: s an unpaced stream of
 *	RDMA writes of SIZE (busy polling, as perftest does), l a ping-pong of
 *	64 B sends (busy polling), p a flow paced at KBPS with a backlog (its
 *	thread refills every 10 ms), q an unlimited flow the program paces
 *	itself at MSGS messages a second (the same traffic without a limit;
 *	KBPS then names the limit it stands beside).
 *	Gives the stream's messages a second and the ping-pong's half round
 *	trip: the isolation a limit must keep.
 *   -m multi -s SIZE -r K1,K2,...
 *	one backlogged RC flow per limit; each flow's rate is its completed
 *	messages times the IP bytes a message took on the netdev.
 *   -m cost -s SIZE -r KBPS [-a MSGS] [-D DRIVER] [-w S]
 *	guest CPU (/proc/stat) over the window while one RC flow is
 *	backlogged at KBPS and the program sleeps between refills; KBPS 0 is
 *	the idle guest. -a MSGS (with -r 0): the program paces an unlimited
 *	flow itself, posting one message every 1/MSGS s and sleeping between,
 *	so that the same traffic's cost without a limit (or on stock rxe,
 *	-D rxe) stands beside the limit's.
 *
 * Nothing here asserts a figure; the program fails only when it could not
 * measure.
 */
#include "xrxe_test_util.h"
#include "bench_lib.h"
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_user_xrxe.h>

#define DEPTH		64
#define GRH		40
#define SLICE_NS	10000000LL	/* 10 ms */
#define ETH_HDR		14
#define MAX_FLOWS	8
#define REFILL_US	10000		/* a paced flow's thread sleeps between refills */

/* One sender on DEV0 with its receiver on DEV1. */
struct flow {
	bool ud;
	uint32_t size;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *sqp, *rqp;
	struct ibv_mr *smr, *rmr;
	struct ibv_ah *ah;
	uint8_t *sbuf, *rbuf;
	uint64_t posted, done, rposted, rdone;
	uint64_t post_cap;	/* the program's own pacing: post no more */
};

static struct dev tx, rx;

/* The measurement's clock: warm-up until t_measure, window until t_end. */
static int64_t t_measure, t_end;

/* A counter file of sysfs; false if it does not exist. */
static bool read_counter(const char *path, uint64_t *out)
{
	unsigned long long v;
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	if (fscanf(f, "%llu", &v) != 1)
		die("cannot read %s", path);
	fclose(f);
	*out = v;
	return true;
}

static uint64_t netdev_stat(const char *netdev, const char *what)
{
	char path[256];
	uint64_t v;

	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/%s", netdev,
		 what);
	if (!read_counter(path, &v))
		die("cannot read %s", path);
	return v;
}

/* Rate limit counters of DEV0 (hw_counters), all 0 where it has none. */
struct pace_counters {
	uint64_t wakeups, late_wakeups, late_bytes, wait_us;
};

static struct pace_counters pace_counters(void)
{
	static const char *const names[] = {
		"xrxe_pace_wakeups", "xrxe_pace_late_wakeups", "xrxe_pace_late_bytes",
		"xrxe_pace_wait_us",
	};
	uint64_t v[sizeof(names) / sizeof(names[0])] = { 0 };
	char path[256];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path),
			 "/sys/class/infiniband/%s/ports/%d/hw_counters/%s",
			 ibv_get_device_name(tx.ctx->device), PORT, names[i]);
		read_counter(path, &v[i]);
	}
	return (struct pace_counters){ v[0], v[1], v[2], v[3] };
}

/*
 * IP bytes DEV0's netdev has sent. Bytes and packets are two files: read
 * the packets on both sides of the bytes until no packet went between.
 */
static uint64_t ip_bytes(void)
{
	uint64_t pkts, bytes;

	do {
		pkts = netdev_stat(tx.netdev, "tx_packets");
		bytes = netdev_stat(tx.netdev, "tx_bytes");
	} while (netdev_stat(tx.netdev, "tx_packets") != pkts);
	return bytes - ETH_HDR * pkts;
}

/* -b: the max_burst_sz of every limit set (0: the device's default). */
static uint32_t burst_opt;

static void flow_init(struct flow *f, bool ud, uint32_t size, uint32_t kbps)
{
	enum ibv_qp_type type = ud ? IBV_QPT_UD : IBV_QPT_RC;

	f->ud = ud;
	f->size = size;
	f->post_cap = UINT64_MAX;
	f->sbuf = calloc(1, size);
	f->rbuf = calloc(DEPTH, size + GRH);
	f->scq = ibv_create_cq(tx.ctx, DEPTH, NULL, NULL, 0);
	f->rcq = ibv_create_cq(rx.ctx, DEPTH, NULL, NULL, 0);
	if (!f->sbuf || !f->rbuf || !f->scq || !f->rcq)
		die("buffers or cqs");
	f->smr = ibv_reg_mr(tx.pd, f->sbuf, size, 0);
	f->rmr = ibv_reg_mr(rx.pd, f->rbuf, (size_t)DEPTH * (size + GRH),
			    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!f->smr || !f->rmr)
		die("mr: %s", strerror(errno));
	f->sqp = make_qp(&tx, type, f->scq, DEPTH, DEPTH, PP_SIZE);
	f->rqp = make_qp(&rx, type, f->rcq, DEPTH, DEPTH, PP_SIZE);
	connect_qp(f->sqp, &rx, f->rqp->qp_num);
	connect_qp(f->rqp, &tx, f->sqp->qp_num);
	if (ud) {
		struct ibv_ah_attr a = {
			.is_global = 1, .port_num = PORT,
			.grh = { .dgid = rx.gid, .sgid_index = GID_INDEX,
				 .hop_limit = 1 },
		};

		f->ah = ibv_create_ah(tx.pd, &a);
		if (!f->ah)
			die("ah");
	}
	if (kbps) {
		struct ibv_qp_rate_limit_attr rl = {
			.rate_limit = kbps, .max_burst_sz = burst_opt,
		};
		int ret = ibv_modify_qp_rate_limit(f->sqp, &rl);

		if (ret)
			die("rate limit %u kbit/s: %s", kbps, strerror(ret));
	}
}

/* Keep the flow's queues full and count what completed. */
static void flow_pump(struct flow *f)
{
	struct ibv_wc wc[32];
	int n, i;

	while (f->ud && f->rposted - f->rdone < DEPTH) {
		struct ibv_sge rs = {
			(uintptr_t)f->rbuf + (f->rposted % DEPTH) * (f->size + GRH),
			f->size + GRH, f->rmr->lkey,
		};
		struct ibv_recv_wr rw = { .sg_list = &rs, .num_sge = 1 }, *rbad;

		if (ibv_post_recv(f->rqp, &rw, &rbad))
			die("post recv");
		f->rposted++;
	}
	while (f->posted - f->done < DEPTH && f->posted < f->post_cap) {
		struct ibv_sge sge = { (uintptr_t)f->sbuf, f->size, f->smr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = f->posted, .sg_list = &sge, .num_sge = 1,
			.opcode = f->ud ? IBV_WR_SEND : IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
		}, *bad;

		if (f->ud) {
			wr.wr.ud.ah = f->ah;
			wr.wr.ud.remote_qpn = f->rqp->qp_num;
			wr.wr.ud.remote_qkey = QKEY;
		} else {
			wr.wr.rdma.remote_addr = (uintptr_t)f->rbuf;
			wr.wr.rdma.rkey = f->rmr->rkey;
		}
		if (ibv_post_send(f->sqp, &wr, &bad))
			die("post send %" PRIu64, f->posted);
		f->posted++;
	}
	n = ibv_poll_cq(f->scq, 32, wc);
	if (n < 0)
		die("poll");
	for (i = 0; i < n; i++)
		if (wc[i].status != IBV_WC_SUCCESS)
			die("message %" PRIu64 ": %s", wc[i].wr_id,
			    ibv_wc_status_str(wc[i].status));
	f->done += n;
	/* UD receives complete on the other CQ. */
	while (f->ud && (n = ibv_poll_cq(f->rcq, 32, wc)) > 0)
		f->rdone += n;
}

static void pingpong_init(struct pingpong *p)
{
	pingpong_open(p, 0, &tx);
	pingpong_open(p, 1, &rx);
	pingpong_connect(p);
}

/* The workloads of -m mix, each in its own thread. */
struct stream_result { uint64_t msgs; double secs; };
struct pp_result { double typical_us, mean_us; uint64_t iters; };

static void *stream_thread(void *arg)
{
	struct flow *f = arg;
	struct stream_result *r = calloc(1, sizeof(*r));
	uint64_t done0 = 0;
	int64_t t, t0 = 0;

	if (!r)
		die("memory");
	for (;;) {
		flow_pump(f);
		t = now_ns();
		if (!t0 && t >= t_measure) {
			t0 = t;
			done0 = f->done;
		}
		if (t >= t_end)
			break;
	}
	r->msgs = f->done - done0;
	r->secs = (t - t0) / 1e9;
	return r;
}

static void *paced_thread(void *arg)
{
	struct flow *f = arg;

	while (now_ns() < t_end) {
		flow_pump(f);
		usleep(REFILL_US);
	}
	return NULL;
}

/* -a: the message rate at which the program paces an unlimited flow. */
static double own_rate;

/*
 * Pace an unlimited flow by the program: post only the messages due since
 * start at own_rate, one at a time. Returns when the next one is due.
 */
static int64_t program_pace(struct flow *f, int64_t start)
{
	f->post_cap = (now_ns() - start) * own_rate / 1e9 + 1;
	flow_pump(f);
	return start + (int64_t)(f->posted * 1e9 / own_rate);
}

static void *program_paced_thread(void *arg)
{
	struct flow *f = arg;
	int64_t start = now_ns(), t, next;

	while ((t = now_ns()) < t_end) {
		next = program_pace(f, start);
		if (next > t + REFILL_US * 1000LL)
			next = t + REFILL_US * 1000LL;
		if (next > t)
			usleep((next - t) / 1000);
	}
	return NULL;
}

static void *pingpong_thread(void *arg)
{
	struct pingpong *p = arg;
	struct pp_result *r = calloc(1, sizeof(*r));
	double sum = 0;
	uint64_t i;

	if (!r)
		die("memory");
	pingpong_run(p, t_measure, t_end);
	if (!p->n)
		die("no ping-pong in the window");
	for (i = 0; i < p->n; i++)
		sum += p->half[i];
	qsort(p->half, p->n, sizeof(*p->half), cmp_double);
	r->typical_us = p->half[p->n / 2];
	r->mean_us = sum / p->n;
	r->iters = p->n;
	return r;
}

static void set_window(double warmup, double secs)
{
	int64_t start = now_ns();

	t_measure = start + (int64_t)(warmup * 1e9);
	t_end = t_measure + (int64_t)(secs * 1e9);
}

/*
 * The netdev's IP bytes every SLICE_NS from t_measure to t_end, sampled by
 * a thread of its own on absolute deadlines, so that the sender's loop
 * does not stretch a slice; each sample keeps its own time.
 */
struct sampler {
	size_t n, max;
	int64_t *t, *t_after;	/* before and after the read */
	uint64_t *bytes;
};

static void *sampler_thread(void *arg)
{
	struct sampler *s = arg;
	struct timespec ts;
	int64_t next = t_measure;

	while (next <= t_end && s->n < s->max) {
		ts.tv_sec = next / 1000000000LL;
		ts.tv_nsec = next % 1000000000LL;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		s->t[s->n] = now_ns();
		s->bytes[s->n] = ip_bytes();
		s->t_after[s->n++] = now_ns();
		next += SLICE_NS;
	}
	return NULL;
}

static void run_accuracy(bool ud, const char *type_name, uint32_t size,
			 uint32_t kbps, double secs, const char *series)
{
	struct flow f = { 0 };
	struct sampler smp = { 0 };
	uint64_t msgs0 = 0, max_slice = 0, b;
	struct pace_counters pc0 = { 0 }, pc1;
	double max_excess = -1e18, window, measured, bps = kbps * 1000.0 / 8;
	pthread_t ts_thread;
	bool counted = false;
	FILE *ts = NULL;
	size_t i;

	flow_init(&f, ud, size, kbps);
	set_window(1, secs);
	smp.max = (size_t)(secs * 1e9 / SLICE_NS) + 2;
	smp.t = calloc(smp.max, sizeof(*smp.t));
	smp.t_after = calloc(smp.max, sizeof(*smp.t_after));
	smp.bytes = calloc(smp.max, sizeof(*smp.bytes));
	if (!smp.t || !smp.t_after || !smp.bytes || pthread_create(&ts_thread, NULL, sampler_thread, &smp))
		die("sampler");
	for (;;) {
		int64_t t;

		flow_pump(&f);
		t = now_ns();
		if (!counted && t >= t_measure) {
			counted = true;
			msgs0 = f.done;
			pc0 = pace_counters();
		}
		if (t >= t_end)
			break;
	}
	pc1 = pace_counters();
	pthread_join(ts_thread, NULL);
	if (smp.n < 2)
		die("the sampler took %zu samples", smp.n);
	if (series) {
		ts = fopen(series, "w");
		if (!ts)
			die("cannot write %s", series);
	}
	/*
	 * The limit allows at most the burst above the rate's share of any
	 * stretch of time: judge each slice by its own length, from before
	 * the read that opens it to after the one that closes it (a sampler
	 * preempted between its clock and its read must not make a burst).
	 */
	for (i = 1; i < smp.n; i++) {
		double dt = (smp.t_after[i] - smp.t[i - 1]) / 1e9;

		b = smp.bytes[i] - smp.bytes[i - 1];
		if (b > max_slice)
			max_slice = b;
		if (kbps && b - bps * dt > max_excess)
			max_excess = b - bps * dt;
		if (ts)
			fprintf(ts, "%.3f %.3f %" PRIu64 "\n",
				(smp.t[i] - smp.t[0]) / 1e6, dt * 1e3, b);
	}
	if (ts)
		fclose(ts);
	window = (smp.t[smp.n - 1] - smp.t[0]) / 1e9;
	b = smp.bytes[smp.n - 1] - smp.bytes[0];
	measured = b * 8 / window / 1000;
	if (!b || f.done == msgs0)
		die("nothing was sent in the window");
	printf("{\"mode\": \"accuracy\", \"type\": \"%s\", \"size\": %u, "
	       "\"limit_kbps\": %u, "
	       "\"window_s\": %.3f, \"messages\": %" PRIu64 ", "
	       "\"ip_bytes\": %" PRIu64 ", \"measured_kbps\": %.1f, "
	       "\"error_pct\": %.2f, \"max_slice_bytes\": %" PRIu64 ", "
	       "\"max_excess_bytes\": %.0f, \"burst_bytes\": %u, "
	       "\"slices\": %zu, \"wakeups\": %" PRIu64 ", "
	       "\"late_wakeups\": %" PRIu64 ", \"late_bytes\": %" PRIu64 ", "
	       "\"wait_us\": %" PRIu64 "}\n",
	       type_name, size, kbps, window, f.done - msgs0, b, measured,
	       kbps ? (measured - kbps) * 100.0 / kbps : 0.0, max_slice,
	       kbps ? max_excess : 0.0,
	       burst_opt ?: xrxe_rate_limit_default_burst(kbps), smp.n - 1,
	       pc1.wakeups - pc0.wakeups, pc1.late_wakeups - pc0.late_wakeups,
	       pc1.late_bytes - pc0.late_bytes, pc1.wait_us - pc0.wait_us);
	free(smp.t);
	free(smp.t_after);
	free(smp.bytes);
}

static void run_mix(const char *config, uint32_t size, uint32_t kbps,
		    double secs, const char *driver)
{
	bool with_stream = strchr(config, 's'), with_pp = strchr(config, 'l');
	bool with_paced = strchr(config, 'p'), with_program = strchr(config, 'q');
	struct flow stream = { 0 }, paced = { 0 };
	struct pingpong pp = { 0 };
	pthread_t ts, tl, tp;
	struct stream_result *sr = NULL;
	struct pp_result *lr = NULL;

	if (!with_stream && !with_pp)
		die("-c needs s (stream) or l (ping-pong)");
	if (with_paced && !kbps)
		die("a paced flow (p) needs -r KBPS");
	if (with_program && (with_paced || own_rate <= 0))
		die("a flow paced by the program (q) needs -a MSGS, and no p");
	if (with_stream)
		flow_init(&stream, false, size, 0);
	if (with_paced || with_program)
		flow_init(&paced, false, size, with_paced ? kbps : 0);
	if (with_pp)
		pingpong_init(&pp);
	set_window(1, secs);
	if ((with_stream && pthread_create(&ts, NULL, stream_thread, &stream)) ||
	    (with_paced && pthread_create(&tp, NULL, paced_thread, &paced)) ||
	    (with_program &&
	     pthread_create(&tp, NULL, program_paced_thread, &paced)) ||
	    (with_pp && pthread_create(&tl, NULL, pingpong_thread, &pp)))
		die("threads");
	if (with_stream)
		pthread_join(ts, (void **)&sr);
	if (with_paced || with_program)
		pthread_join(tp, NULL);
	if (with_pp)
		pthread_join(tl, (void **)&lr);
	printf("{\"mode\": \"mix\", \"driver\": \"%s\", \"config\": \"%s\", "
	       "\"size\": %u, \"paced_kbps\": %u, \"program_msgs_per_s\": %.1f",
	       driver, config, size, with_paced || with_program ? kbps : 0,
	       with_program ? own_rate : 0);
	if (sr)
		printf(", \"stream_msgs_per_s\": %.1f", sr->msgs / sr->secs);
	if (lr)
		printf(", \"pp_typical_us\": %.2f, \"pp_mean_us\": %.2f, "
		       "\"pp_iters\": %" PRIu64, lr->typical_us, lr->mean_us,
		       lr->iters);
	if (with_paced || with_program)
		printf(", \"paced_msgs\": %" PRIu64, paced.done);
	printf("}\n");
}

static void run_multi(const char *rates, uint32_t size, double secs)
{
	struct flow f[MAX_FLOWS] = { 0 };
	uint32_t kbps[MAX_FLOWS];
	uint64_t done0[MAX_FLOWS], bytes0 = 0, msgs = 0;
	int64_t t, t0 = 0;
	double window, per_msg;
	int n, i;

	n = parse_list(rates, kbps, MAX_FLOWS, "limits", "-m multi needs non-zero limits");
	if (!n)
		die("-m multi needs -r K1,K2,...");
	for (i = 0; i < n; i++)
		flow_init(&f[i], false, size, kbps[i]);
	set_window(1, secs);
	for (;;) {
		for (i = 0; i < n; i++)
			flow_pump(&f[i]);
		t = now_ns();
		if (!t0 && t >= t_measure) {
			t0 = t;
			bytes0 = ip_bytes();
			for (i = 0; i < n; i++)
				done0[i] = f[i].done;
		}
		if (t >= t_end)
			break;
		usleep(REFILL_US / 2);
	}
	window = (now_ns() - t0) / 1e9;
	for (i = 0; i < n; i++)
		msgs += f[i].done - done0[i];
	if (!msgs)
		die("nothing completed in the window");
	/* Every flow sends the same messages: each costs the same IP bytes. */
	per_msg = (double)(ip_bytes() - bytes0) / msgs;
	printf("{\"mode\": \"multi\", \"size\": %u, \"window_s\": %.3f, "
	       "\"ip_bytes_per_msg\": %.1f, \"flows\": [", size, window, per_msg);
	for (i = 0; i < n; i++) {
		double measured = (f[i].done - done0[i]) * per_msg * 8 / window / 1000;

		printf("%s{\"limit_kbps\": %u, \"messages\": %" PRIu64
		       ", \"measured_kbps\": %.1f, \"error_pct\": %.2f}",
		       i ? ", " : "", kbps[i], f[i].done - done0[i], measured,
		       (measured - kbps[i]) * 100.0 / kbps[i]);
	}
	printf("]}\n");
}

static void run_cost(uint32_t size, uint32_t kbps, double secs,
		     const char *driver)
{
	struct flow f = { 0 };
	bool traffic = kbps || own_rate > 0;
	uint64_t done0 = 0;
	int64_t t, t0 = 0, start, next;
	double idle0 = 0, wall, busy;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (kbps && own_rate > 0)
		die("-a paces an unlimited flow: use it with -r 0");
	if (traffic)
		flow_init(&f, false, size, kbps);
	set_window(1, secs);
	start = now_ns();
	for (;;) {
		next = 0;
		if (own_rate > 0)
			next = program_pace(&f, start);
		else if (traffic)
			flow_pump(&f);
		t = now_ns();
		if (!t0 && t >= t_measure) {
			t0 = t;
			done0 = f.done;
			idle0 = idle_seconds();
		}
		if (t >= t_end)
			break;
		/*
		 * A kernel-paced backlog lasts far longer than 20 ms at any limit
		 * measured; a self-paced flow wakes when its next message is due.
		 */
		if (!next || next > t + 20000000LL)
			next = t + 20000000LL;
		if (next > t)
			usleep((next - t) / 1000);
	}
	wall = (now_ns() - t0) / 1e9;
	busy = wall * cpus - (idle_seconds() - idle0);
	if (busy < 0)
		busy = 0;
	printf("{\"mode\": \"cost\", \"driver\": \"%s\", \"size\": %u, "
	       "\"limit_kbps\": %u, \"program_msgs_per_s\": %.1f, "
	       "\"window_s\": %.3f, \"cpus\": %ld, \"messages\": %" PRIu64 ", "
	       "\"cpu_busy_pct\": %.2f, \"cpu_busy_s\": %.3f}\n",
	       driver, size, kbps, own_rate, wall, cpus, f.done - done0,
	       busy * 100 / (wall * cpus), busy);
}

int main(int argc, char **argv)
{
	const char *type_name = "rc", *mode = "accuracy", *config = NULL;
	const char *series = NULL, *rates = "0", *driver = "xrxe";
	char name[32];
	uint32_t size = 4096;
	double secs = 5;
	bool ud;
	int c;

	while ((c = getopt(argc, argv, "a:m:c:D:t:s:r:w:T:b:")) != -1) {
		switch (c) {
		case 'a': own_rate = atof(optarg); break;
		case 'b': burst_opt = strtoul(optarg, NULL, 0); break;
		case 'm': mode = optarg; break;
		case 'c': config = optarg; break;
		case 'D': driver = optarg; break;
		case 't': type_name = optarg; break;
		case 's': size = strtoul(optarg, NULL, 0); break;
		case 'r': rates = optarg; break;
		case 'w': secs = atof(optarg); break;
		case 'T': series = optarg; break;
		default: die("usage: see the comment at the top of bench/pace-bench.c");
		}
	}
	ud = !strcmp(type_name, "ud");
	if (!ud && strcmp(type_name, "rc"))
		die("-t rc or ud");
	if (!size || secs <= 0)
		die("-s and -w must be positive");
	snprintf(name, sizeof(name), "%s0", driver);
	open_dev(&tx, name, true);
	snprintf(name, sizeof(name), "%s1", driver);
	open_dev(&rx, name, true);
	if (!strcmp(mode, "accuracy"))
		run_accuracy(ud, type_name, size, strtoul(rates, NULL, 0), secs,
			     series);
	else if (!strcmp(mode, "mix") && config)
		run_mix(config, size, strtoul(rates, NULL, 0), secs, driver);
	else if (!strcmp(mode, "multi"))
		run_multi(rates, size, secs);
	else if (!strcmp(mode, "cost"))
		run_cost(size, strtoul(rates, NULL, 0), secs, driver);
	else
		die("-m accuracy|mix -c CONFIG|multi|cost");
	/* Leave any backlog to the kernel: exit tears everything down. */
	return 0;
}
