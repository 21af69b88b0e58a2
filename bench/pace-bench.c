// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Send rate limits (bench/xrxe-bench --workload pace runs it; the method:
 * docs/bench/pace.md). A flow is a sender on DEV0 with its send queue kept
 * full, paced or not, and its receiver on DEV1. One JSON object on stdout;
 * it fails only when it could not measure.
 *
 *   -m MODE	accuracy (default), mix, multi or cost
 *   -t TYPE	accuracy's flow: rc (default) or ud
 *   -s SIZE	the messages' size (default 4096)
 *   -r KBPS	the limit (0, the default: none); multi: K1,K2,..., a flow each
 *   -b BURST	every limit's max_burst_sz (default: the device's)
 *   -T FILE	accuracy: write every 10 ms slice (time and length in ms, bytes)
 *   -c CONFIG	mix: [s][l][p|q], a stream, a ping-pong, a flow paced at -r or by us
 *   -a MSGS	mix q and cost -r 0: the program paces an unlimited flow at MSGS/s
 *   -w S	the window (default 5, after 1 s of warm-up)
 *   -D DRIVER	xrxe (default) or rxe
 */
#include "bench_lib.h"
#include <pthread.h>
#include <rdma/rdma_user_xrxe.h>
#include "xrxe_policy.h"

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
	struct ibv_mr *smr, *rmr;	/* the buffers written from and into */
	struct ibv_ah *ah;
	uint64_t posted, done, rposted, rdone;
	uint64_t done0;		/* done when the window opened */
	uint64_t post_cap;	/* the program's own pacing: post no more */
	bool self_paced;	/* the program paces it (-a), not a limit */
};

static uint64_t netdev_stat(const char *what)
{
	return read_counter(true, "/sys/class/net/%s/statistics/%s", tx.netdev, what);
}

/* Rate limit counters of DEV0 (hw_counters xrxe_pace_*), all 0 where it has none. */
static const char *const pace_names[] = { "wakeups", "late_wakeups", "late_bytes", "wait_us" };
#define NPACE	(sizeof(pace_names) / sizeof(pace_names[0]))

static void pace_counters(int64_t v[NPACE])
{
	size_t i;

	for (i = 0; i < NPACE; i++) {
		v[i] = read_counter(false, "/sys/class/infiniband/%s/ports/%d/hw_counters/"
				    "xrxe_pace_%s", tx.name, PORT, pace_names[i]);
		if (v[i] < 0)
			v[i] = 0;
	}
}

/*
 * IP bytes DEV0's netdev has sent. Bytes and packets are two files: read
 * the packets on both sides of the bytes until no packet went between.
 */
static uint64_t ip_bytes(void)
{
	uint64_t pkts, bytes;

	do {
		pkts = netdev_stat("tx_packets");
		bytes = netdev_stat("tx_bytes");
	} while (netdev_stat("tx_packets") != pkts);
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
	f->scq = make_cq(&tx, DEPTH, NULL);
	f->rcq = make_cq(&rx, DEPTH, NULL);
	f->smr = alloc_mr(&tx, size, 0);
	f->rmr = alloc_mr(&rx, (size_t)DEPTH * (size + GRH), PEER_ACCESS);
	f->sqp = make_qp(&tx, type, f->scq, DEPTH, DEPTH, PP_SIZE);
	f->rqp = make_qp(&rx, type, f->rcq, DEPTH, DEPTH, PP_SIZE);
	connect_pair(f->sqp, f->rqp, IBV_MTU_1024);
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
			(uintptr_t)f->rmr->addr + (f->rposted % DEPTH) * (f->size + GRH),
			f->size + GRH, f->rmr->lkey,
		};
		struct ibv_recv_wr rw = { .sg_list = &rs, .num_sge = 1 }, *rbad;

		if (ibv_post_recv(f->rqp, &rw, &rbad))
			die("post recv");
		f->rposted++;
	}
	while (f->posted - f->done < DEPTH && f->posted < f->post_cap) {
		struct ibv_sge sge = { (uintptr_t)f->smr->addr, f->size, f->smr->lkey };
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
			wr.wr.rdma.remote_addr = (uintptr_t)f->rmr->addr;
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

/* -a: the message rate at which the program paces an unlimited flow. */
static double own_rate;

/*
 * Keep the n flows going until t_end, a self_paced one posting only what
 * own_rate made due; with sleep_ns, sleep between turns up to the next due
 * message, sleep_ns at most (a kernel-paced backlog lasts far longer). At
 * t_measure: every done0, then opened(). Returns the window's start.
 */
static int64_t run_flows(struct flow *f, int n, int64_t sleep_ns, void (*opened)(void))
{
	int64_t start = now_ns(), t, t0 = 0, next;
	int i;

	for (;;) {
		next = 0;
		for (i = 0; i < n; i++) {
			if (f[i].self_paced)
				f[i].post_cap = (now_ns() - start) * own_rate / 1e9 + 1;
			flow_pump(&f[i]);
			if (f[i].self_paced)
				next = start + (int64_t)(f[i].posted * 1e9 / own_rate);
		}
		t = now_ns();
		if (!t0 && t >= t_measure) {
			t0 = t;
			for (i = 0; i < n; i++)
				f[i].done0 = f[i].done;
			if (opened)
				opened();
		}
		if (t >= t_end)
			return t0;
		if (!sleep_ns)
			continue;
		if (!next || next > t + sleep_ns)
			next = t + sleep_ns;
		if (next > t)
			usleep((next - t) / 1000);
	}
}

/* What run_flows() reads when the window opens, for accuracy, multi and cost. */
static int64_t pace0[NPACE];
static uint64_t ip_bytes0;
static double idle0;

static void pace_opened(void)
{
	pace_counters(pace0);
}

static void multi_opened(void)
{
	ip_bytes0 = ip_bytes();
}

static void cost_opened(void)
{
	idle0 = idle_seconds();
}

/* The workloads of -m mix, each in its own thread. */
static double stream_msgs_per_s;

static void *stream_thread(void *arg)
{
	struct flow *f = arg;
	int64_t t0 = run_flows(f, 1, 0, NULL);

	stream_msgs_per_s = (f->done - f->done0) / ((now_ns() - t0) / 1e9);
	return NULL;
}

/* A flow paced by its limit, or by the program: refilled every REFILL_US. */
static void *paced_thread(void *arg)
{
	run_flows(arg, 1, REFILL_US * 1000LL, NULL);
	return NULL;
}

/*
 * The netdev's IP bytes every SLICE_NS of the window, sampled by a thread
 * of its own on absolute deadlines: the sender's loop cannot stretch a slice.
 */
struct sampler {
	size_t n, max;
	struct sample {
		int64_t t, t_after;	/* before and after the read */
		uint64_t bytes;
	} *s;
};

static void *sampler_thread(void *arg)
{
	struct sampler *s = arg;
	int64_t next = t_measure;

	while (next <= t_end && s->n < s->max) {
		sleep_until(next);
		s->s[s->n].t = now_ns();
		s->s[s->n].bytes = ip_bytes();
		s->s[s->n++].t_after = now_ns();
		next += SLICE_NS;
	}
	return NULL;
}

static void run_accuracy(bool ud, const char *type_name, uint32_t size,
			 uint32_t kbps, const char *series)
{
	struct flow f = { 0 };
	struct sampler smp = { 0 };
	uint64_t max_slice = 0, b;
	int64_t pc1[NPACE];
	double max_excess = -1e18, secs, measured, bps = kbps * 1000.0 / 8;
	pthread_t ts_thread;
	FILE *ts = NULL;
	size_t i;

	flow_init(&f, ud, size, kbps);
	set_window();
	smp.max = (size_t)(window * 1e9 / SLICE_NS) + 2;
	smp.s = calloc(smp.max, sizeof(*smp.s));
	if (!smp.s || pthread_create(&ts_thread, NULL, sampler_thread, &smp))
		die("sampler");
	run_flows(&f, 1, 0, pace_opened);
	pace_counters(pc1);
	pthread_join(ts_thread, NULL);
	if (smp.n < 2)
		die("the sampler took %zu samples", smp.n);
	if (series) {
		ts = fopen(series, "w");
		if (!ts)
			die("cannot write %s", series);
	}
	/*
	 * A slice runs from before the read that opens it to after the one that
	 * closes it: a sampler preempted between clock and read makes no burst.
	 */
	for (i = 1; i < smp.n; i++) {
		double dt = (smp.s[i].t_after - smp.s[i - 1].t) / 1e9;

		b = smp.s[i].bytes - smp.s[i - 1].bytes;
		if (b > max_slice)
			max_slice = b;
		if (kbps && b - bps * dt > max_excess)
			max_excess = b - bps * dt;
		if (ts)
			fprintf(ts, "%.3f %.3f %" PRIu64 "\n",
				(smp.s[i].t - smp.s[0].t) / 1e6, dt * 1e3, b);
	}
	if (ts)
		fclose(ts);
	secs = (smp.s[smp.n - 1].t - smp.s[0].t) / 1e9;
	b = smp.s[smp.n - 1].bytes - smp.s[0].bytes;
	measured = b * 8 / secs / 1000;
	if (!b || f.done == f.done0)
		die("nothing was sent in the window");
	printf("{\"mode\": \"accuracy\", \"type\": \"%s\", \"size\": %u, "
	       "\"limit_kbps\": %u, "
	       "\"window_s\": %.3f, \"messages\": %" PRIu64 ", "
	       "\"ip_bytes\": %" PRIu64 ", \"measured_kbps\": %.1f, "
	       "\"error_pct\": %.2f, \"max_slice_bytes\": %" PRIu64 ", "
	       "\"max_excess_bytes\": %.0f, \"burst_bytes\": %u, \"slices\": %zu",
	       type_name, size, kbps, secs, f.done - f.done0, b, measured,
	       kbps ? (measured - kbps) * 100.0 / kbps : 0.0, max_slice,
	       kbps ? max_excess : 0.0,
	       burst_opt ?: xrxe_rate_limit_default_burst(kbps), smp.n - 1);
	for (i = 0; i < NPACE; i++)
		printf(", \"%s\": %" PRId64, pace_names[i], pc1[i] - pace0[i]);
	printf("}\n");
}

static void run_mix(const char *config, uint32_t size, uint32_t kbps)
{
	bool with_stream = strchr(config, 's'), with_pp = strchr(config, 'l');
	bool with_paced = strchr(config, 'p'), with_program = strchr(config, 'q');
	struct flow stream = { 0 }, paced = { 0 };
	struct pingpong pp = { 0 };
	pthread_t ts, tl, tp;
	double pp_mean = 0;

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
	paced.self_paced = with_program;
	if (with_pp) {
		pingpong_open(&pp);
		pingpong_connect(&pp);
	}
	set_window();
	if ((with_stream && pthread_create(&ts, NULL, stream_thread, &stream)) ||
	    ((with_paced || with_program) && pthread_create(&tp, NULL, paced_thread, &paced)) ||
	    (with_pp && pthread_create(&tl, NULL, pingpong_thread, &pp)))
		die("threads");
	if (with_stream)
		pthread_join(ts, NULL);
	if (with_paced || with_program)
		pthread_join(tp, NULL);
	if (with_pp) {
		pthread_join(tl, NULL);
		pp_mean = pingpong_sort(&pp);
	}
	printf("{\"mode\": \"mix\", \"driver\": \"%s\", \"config\": \"%s\", "
	       "\"size\": %u, \"paced_kbps\": %u, \"program_msgs_per_s\": %.1f",
	       driver, config, size, with_paced || with_program ? kbps : 0,
	       with_program ? own_rate : 0);
	if (with_stream)
		printf(", \"stream_msgs_per_s\": %.1f", stream_msgs_per_s);
	if (with_pp)
		printf(", \"pp_typical_us\": %.2f, \"pp_mean_us\": %.2f, "
		       "\"pp_iters\": %" PRIu64, pp.half[pp.n / 2], pp_mean, pp.n);
	if (with_paced || with_program)
		printf(", \"paced_msgs\": %" PRIu64, paced.done);
	printf("}\n");
}

static void run_multi(const char *rates, uint32_t size)
{
	struct flow f[MAX_FLOWS] = { 0 };
	uint32_t kbps[MAX_FLOWS];
	uint64_t msgs = 0;
	int64_t t0;
	double secs, per_msg;
	int n, i;

	n = parse_list(rates, kbps, MAX_FLOWS, "limits", "-m multi needs non-zero limits");
	if (!n)
		die("-m multi needs -r K1,K2,...");
	for (i = 0; i < n; i++)
		flow_init(&f[i], false, size, kbps[i]);
	set_window();
	t0 = run_flows(f, n, REFILL_US / 2 * 1000LL, multi_opened);
	secs = (now_ns() - t0) / 1e9;
	for (i = 0; i < n; i++)
		msgs += f[i].done - f[i].done0;
	if (!msgs)
		die("nothing completed in the window");
	/* Every flow sends the same messages: each costs the same IP bytes. */
	per_msg = (double)(ip_bytes() - ip_bytes0) / msgs;
	printf("{\"mode\": \"multi\", \"size\": %u, \"window_s\": %.3f, "
	       "\"ip_bytes_per_msg\": %.1f, \"flows\": [", size, secs, per_msg);
	for (i = 0; i < n; i++) {
		double measured = (f[i].done - f[i].done0) * per_msg * 8 / secs / 1000;

		printf("%s{\"limit_kbps\": %u, \"messages\": %" PRIu64
		       ", \"measured_kbps\": %.1f, \"error_pct\": %.2f}",
		       i ? ", " : "", kbps[i], f[i].done - f[i].done0, measured,
		       (measured - kbps[i]) * 100.0 / kbps[i]);
	}
	printf("]}\n");
}

static void run_cost(uint32_t size, uint32_t kbps)
{
	struct flow f = { 0 };
	bool traffic = kbps || own_rate > 0;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	double wall, busy;
	int64_t t0;

	if (kbps && own_rate > 0)
		die("-a paces an unlimited flow: use it with -r 0");
	if (traffic)
		flow_init(&f, false, size, kbps);
	f.self_paced = own_rate > 0;
	set_window();
	t0 = run_flows(&f, traffic, 20000000LL, cost_opened);
	wall = (now_ns() - t0) / 1e9;
	busy = busy_seconds(wall, idle_seconds() - idle0);
	if (busy < 0)
		busy = 0;
	printf("{\"mode\": \"cost\", \"driver\": \"%s\", \"size\": %u, "
	       "\"limit_kbps\": %u, \"program_msgs_per_s\": %.1f, "
	       "\"window_s\": %.3f, \"cpus\": %ld, \"messages\": %" PRIu64 ", "
	       "\"cpu_busy_pct\": %.2f, \"cpu_busy_s\": %.3f}\n",
	       driver, size, kbps, own_rate, wall, cpus, f.done - f.done0,
	       busy * 100 / (wall * cpus), busy);
}

int main(int argc, char **argv)
{
	const char *type_name = "rc", *mode = "accuracy", *config = NULL;
	const char *series = NULL, *rates = "0";
	uint32_t size = 4096;
	bool ud;
	int c;

	while ((c = getopt(argc, argv, "a:m:c:D:t:s:r:w:T:b:")) != -1) {
		switch (c) {
		case 'a': own_rate = atof(optarg); break;
		case 'b': burst_opt = strtoul(optarg, NULL, 0); break;
		case 'm': mode = optarg; break;
		case 'c': config = optarg; break;
		case 't': type_name = optarg; break;
		case 's': size = strtoul(optarg, NULL, 0); break;
		case 'r': rates = optarg; break;
		case 'T': series = optarg; break;
		default: common_opt(c, "pace-bench.c");
		}
	}
	ud = !strcmp(type_name, "ud");
	if (!ud && strcmp(type_name, "rc"))
		die("-t rc or ud");
	if (!size || window <= 0)
		die("-s and -w must be positive");
	open_devs(true);
	if (!strcmp(mode, "accuracy"))
		run_accuracy(ud, type_name, size, strtoul(rates, NULL, 0), series);
	else if (!strcmp(mode, "mix") && config)
		run_mix(config, size, strtoul(rates, NULL, 0));
	else if (!strcmp(mode, "multi"))
		run_multi(rates, size);
	else if (!strcmp(mode, "cost"))
		run_cost(size, strtoul(rates, NULL, 0));
	else
		die("-m accuracy|mix -c CONFIG|multi|cost");
	/* Leave any backlog to the kernel: exit tears everything down. */
	return 0;
}
