// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Send rate limit tests that need C: the errnos of
 * ibv_modify_qp_rate_limit(), which pyverbs lacks, in every state of
 * every QP type; teardown of QPs their limit paused mid-message (destroy,
 * modify to ERR or RESET, kill -9); and a hostile process whose limits
 * cannot stall another process's traffic. Run in the testbed on one xrxe
 * device; QPs are connected to each other on it.
 *
 *   xrxe-pace-test verbs
 *   xrxe-pace-test teardown [CYCLES]
 *   xrxe-pace-test lift [ROUNDS]
 *   xrxe-pace-test hostile [SECONDS]
 *   xrxe-pace-test hold
 *
 * hold paces a backlog until its QPs have paused, prints "held" and
 * waits to be killed: the testbed deletes the device or unloads the
 * module under it.
 * Exit status 0 when every check held.
 */
#include "xrxe_test_dev.h"
#include "xrxe_test_rc.h"
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_user_xrxe.h>

#define PORT		1
#define GID_INDEX	0
#define QKEY		0x11111111
#define POLL_SECS	30

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static union ibv_gid gid;
static const char *dev_name = "xrxe0";

static void open_device(void)
{
	ctx = xrxe_open_device(dev_name);
	pd = ibv_alloc_pd(ctx);
	if (!pd || ibv_query_gid(ctx, PORT, GID_INDEX, &gid))
		die("pd or gid of %s", dev_name);
}

/* A device hw counter, as rdma statistic shows it. */
static uint64_t hw_counter(const char *name)
{
	char path[256];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/%d/hw_counters/%s",
		 dev_name, PORT, name);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%llu", &v) != 1)
		die("cannot read %s", path);
	fclose(f);
	return v;
}

static struct ibv_qp *make_qp(enum ibv_qp_type type, struct ibv_cq *cq,
			      uint32_t depth)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = depth, .max_recv_wr = depth,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = type,
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &attr);

	if (!qp)
		die("create QP of type %d: %s", type, strerror(errno));
	return qp;
}

/* Move qp (RC, UC or UD) from RESET up to target, connected to remote. */
static void move_to(struct ibv_qp *qp, enum ibv_qp_state target,
		    uint32_t remote)
{
	const struct xrxe_rc_peer peer = {
		.qpn = remote, .gid = gid, .port = PORT,
		.sgid_index = GID_INDEX, .rd_atomic = 1, .min_rnr_timer = 1,
		.timeout = 14,
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = PORT, .qkey = QKEY,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	enum ibv_qp_type type = qp->qp_type;
	const char *step = "INIT";
	int ret;

	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | (type == IBV_QPT_UD ? IBV_QP_QKEY :
					   IBV_QP_ACCESS_FLAGS));
	if (ret || target == IBV_QPS_INIT)
		goto out;
	if (type == IBV_QPT_RC) {
		ret = xrxe_rc_rtr_rts(qp, &peer, &step);
		goto out;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = remote;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = PORT;
	a.ah_attr.grh.dgid = gid;
	a.ah_attr.grh.sgid_index = GID_INDEX;
	a.ah_attr.grh.hop_limit = 1;
	step = "RTR";
	ret = ibv_modify_qp(qp, &a, type == IBV_QPT_UD ? IBV_QP_STATE :
			    IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN);
	if (ret)
		goto out;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	step = "RTS";
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
out:
	if (ret)
		die("QP %u to %s: %s", qp->qp_num, step, strerror(ret));
}

static int set_rate(struct ibv_qp *qp, uint32_t kbps, uint32_t burst,
		    uint16_t typical)
{
	struct ibv_qp_rate_limit_attr a = {
		.rate_limit = kbps, .max_burst_sz = burst,
		.typical_pkt_sz = typical,
	};

	return ibv_modify_qp_rate_limit(qp, &a);
}

static const struct rate_case {
	struct ibv_qp_rate_limit_attr attr;
	int want;
	const char *what;
} rate_cases[] = {
	{ { .rate_limit = 1000, .comp_mask = 1 }, EINVAL, "a comp_mask bit" },
	{ { .max_burst_sz = 4096 }, EINVAL, "a burst without a rate" },
	{ { .typical_pkt_sz = 1024 }, EINVAL, "a packet size without a rate" },
	{ { .rate_limit = XRXE_RATE_LIMIT_MAX_KBPS + 1 }, EINVAL,
	  "a rate above the device's" },
	{ { .rate_limit = 1000,
	    .max_burst_sz = XRXE_RATE_LIMIT_MAX_BURST + 1 }, EINVAL,
	  "a burst above the device's" },
	{ { .rate_limit = 1000, .max_burst_sz = 8192,
	    .typical_pkt_sz = 1024 }, 0, "a rate, a burst and a packet size" },
	{ { .rate_limit = XRXE_RATE_LIMIT_MIN_KBPS }, 0, "the slowest rate" },
	{ { .rate_limit = XRXE_RATE_LIMIT_MAX_KBPS,
	    .max_burst_sz = XRXE_RATE_LIMIT_MAX_BURST }, 0,
	  "the fastest rate and the largest burst" },
	{ { 0 }, 0, "no limit" },
};

static int cmd_verbs(void)
{
	static const enum ibv_qp_type types[] = {
		IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD };
	static const enum ibv_qp_state states[] = {
		IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPS_RTS };
	struct ibv_device_attr_ex dev;
	struct ibv_cq *cq;
	unsigned int t, s, c, checks = 0;

	if (ibv_query_device_ex(ctx, NULL, &dev))
		die("query_device_ex");
	if (dev.packet_pacing_caps.qp_rate_limit_min != XRXE_RATE_LIMIT_MIN_KBPS ||
	    dev.packet_pacing_caps.qp_rate_limit_max != XRXE_RATE_LIMIT_MAX_KBPS ||
	    dev.packet_pacing_caps.supported_qpts !=
	    (1U << IBV_QPT_RC | 1U << IBV_QPT_UC | 1U << IBV_QPT_UD))
		die("packet_pacing_caps %u-%u kbit/s, QP types %#x",
		    dev.packet_pacing_caps.qp_rate_limit_min,
		    dev.packet_pacing_caps.qp_rate_limit_max,
		    dev.packet_pacing_caps.supported_qpts);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!cq)
		die("cq");
	for (t = 0; t < 3; t++) {
		for (s = 0; s < 3; s++) {
			struct ibv_qp *qp = make_qp(types[t], cq, 4);

			if (states[s] != IBV_QPS_RESET)
				move_to(qp, states[s], qp->qp_num);
			for (c = 0; c < sizeof(rate_cases) / sizeof(rate_cases[0]); c++) {
				struct ibv_qp_rate_limit_attr a = rate_cases[c].attr;
				int ret = ibv_modify_qp_rate_limit(qp, &a);

				if (ret != rate_cases[c].want)
					die("QP type %d in state %d, %s: %s, expected %s",
					    types[t], states[s], rate_cases[c].what,
					    strerror(ret), strerror(rate_cases[c].want));
				checks++;
			}
			ibv_destroy_qp(qp);
		}
	}
	ibv_destroy_cq(cq);
	printf("verbs: %u checks held; packet_pacing_caps %u-%u kbit/s\n",
	       checks, dev.packet_pacing_caps.qp_rate_limit_min,
	       dev.packet_pacing_caps.qp_rate_limit_max);
	return 0;
}

/* Paced RC senders with a backlog of writes to their receivers. */
#define TD_QPS		8
#define TD_DEPTH	16
#define TD_MSG		65536

struct backlog {
	unsigned int qps, depth;	/* at most TD_QPS senders, depth writes each */
	struct ibv_cq *cq;
	struct ibv_qp *tx[TD_QPS], *rx[TD_QPS];
	struct ibv_mr *src, *dst;
	uint8_t *buf;
};

/*
 * qps paced senders (kbps, burst; 0: the default burst), each with depth
 * signalled writes of msg bytes posted (wr_id: sender << 8 | index).
 */
static void make_backlog_of(struct backlog *b, unsigned int qps, unsigned int depth,
			    size_t msg, uint32_t kbps, uint32_t burst)
{
	size_t size = (size_t)depth * msg;
	unsigned int q, i;

	b->qps = qps;
	b->depth = depth;
	b->cq = ibv_create_cq(ctx, 2 * qps * depth, NULL, NULL, 0);
	b->buf = calloc(2, size);
	if (!b->cq || !b->buf)
		die("cq or buffer");
	b->src = ibv_reg_mr(pd, b->buf, size, 0);
	b->dst = ibv_reg_mr(pd, b->buf + size, size,
			    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!b->src || !b->dst)
		die("mr: %s", strerror(errno));
	for (q = 0; q < qps; q++) {
		b->tx[q] = make_qp(IBV_QPT_RC, b->cq, depth);
		b->rx[q] = make_qp(IBV_QPT_RC, b->cq, depth);
		move_to(b->tx[q], IBV_QPS_RTS, b->rx[q]->qp_num);
		move_to(b->rx[q], IBV_QPS_RTS, b->tx[q]->qp_num);
		if (set_rate(b->tx[q], kbps, burst, 0))
			die("set rate");
		for (i = 0; i < depth; i++) {
			struct ibv_sge sge = {
				.addr = (uintptr_t)b->src->addr + (size_t)i * msg,
				.length = msg, .lkey = b->src->lkey,
			};
			struct ibv_send_wr wr = {
				.wr_id = q << 8 | i, .sg_list = &sge, .num_sge = 1,
				.opcode = IBV_WR_RDMA_WRITE,
				.send_flags = IBV_SEND_SIGNALED,
				.wr.rdma = {
					.remote_addr = (uintptr_t)b->dst->addr +
						       (size_t)i * msg,
					.rkey = b->dst->rkey,
				},
			}, *bad;

			if (ibv_post_send(b->tx[q], &wr, &bad))
				die("post write %u on QP %u", i, q);
		}
	}
}

static void make_backlog(struct backlog *b, uint32_t kbps)
{
	make_backlog_of(b, TD_QPS, TD_DEPTH, TD_MSG, kbps, 0);
}

/* Wait until the device has paused a requester pauses times more. */
static void wait_paused(uint64_t before, uint64_t pauses)
{
	double end = now() + POLL_SECS;

	while (hw_counter("xrxe_pace_pauses") < before + pauses)
		if (now() > end)
			die("no paced QP paused in %d s", POLL_SECS);
}

/*
 * Every posted write of b completes within secs: successfully, or also
 * flushed if flushed_ok. what says after what, in the failure.
 */
static void await_writes(struct backlog *b, bool flushed_ok, int secs, const char *what)
{
	unsigned int got = 0, want = b->qps * b->depth;
	double end = now() + secs;
	struct ibv_wc wc[32];
	int n, i;

	while (got < want) {
		n = ibv_poll_cq(b->cq, 32, wc);
		if (n < 0)
			die("poll");
		for (i = 0; i < n; i++)
			if (wc[i].status != IBV_WC_SUCCESS &&
			    (!flushed_ok || wc[i].status != IBV_WC_WR_FLUSH_ERR))
				die("write %#" PRIx64 ": status %s", wc[i].wr_id,
				    ibv_wc_status_str(wc[i].status));
		got += n;
		if (!n && now() > end)
			die("%u of %u writes completed %d s after %s", got, want,
			    secs, what);
	}
}

/* Every posted write completes, flushed or not, once the QPs are in ERR. */
static void flush_all(struct backlog *b)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	unsigned int q;

	for (q = 0; q < b->qps; q++)
		if (ibv_modify_qp(b->tx[q], &a, IBV_QP_STATE))
			die("modify to ERR");
	await_writes(b, true, POLL_SECS, "ERR");
}

static void reset_all(struct backlog *b)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	unsigned int q;

	for (q = 0; q < b->qps; q++)
		if (ibv_modify_qp(b->tx[q], &a, IBV_QP_STATE))
			die("modify to RESET");
}

static void destroy_all(struct backlog *b)
{
	unsigned int q;

	for (q = 0; q < b->qps; q++)
		if (ibv_destroy_qp(b->tx[q]) || ibv_destroy_qp(b->rx[q]))
			die("destroy QP");
	if (ibv_dereg_mr(b->src) || ibv_dereg_mr(b->dst) ||
	    ibv_destroy_cq(b->cq))
		die("dereg or destroy cq");
	free(b->buf);
}

enum teardown_how { TD_DESTROY, TD_ERR, TD_RESET, TD_KILL, TD_HOWS };
static const char *const td_names[] = {
	"destroy", "modify to ERR", "modify to RESET", "kill -9" };

/* One cycle in a child process of its own, which the kill ends. */
static void teardown_cycle(enum teardown_how how)
{
	int ready[2], status;
	struct backlog b;
	pid_t pid;
	char c;

	if (pipe(ready))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		uint64_t before;

		close(ready[0]);
		open_device();
		before = hw_counter("xrxe_pace_pauses");
		/* 100 kbit/s: each 64 KiB write takes 5 s, paused many times. */
		make_backlog(&b, 100);
		wait_paused(before, TD_QPS);
		if (write(ready[1], "r", 1) != 1)
			die("ready");
		switch (how) {
		case TD_ERR:
			flush_all(&b);
			break;
		case TD_RESET:
			reset_all(&b);
			break;
		case TD_KILL:
			pause();
			break;
		default:
			break;
		}
		destroy_all(&b);
		exit(0);
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1)
		c = 0;
	close(ready[0]);
	if (c && how == TD_KILL)
		kill(pid, SIGKILL);
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	if (!c)
		die("%s: the child failed before its QPs paused", td_names[how]);
	if (how == TD_KILL ? !WIFSIGNALED(status) :
	    !WIFEXITED(status) || WEXITSTATUS(status))
		die("%s: child status %#x", td_names[how], status);
}

static int cmd_teardown(int cycles)
{
	int i;

	for (i = 0; i < cycles; i++)
		teardown_cycle(i % TD_HOWS);
	printf("teardown: %d cycles of %d paused QPs, each way in turn (%s, %s, %s, %s)\n",
	       cycles, TD_QPS, td_names[0], td_names[1], td_names[2],
	       td_names[3]);
	return 0;
}

/*
 * The hostile process: a backlog on many paced QPs, whose rates, bursts
 * and packet sizes it changes as fast as it can, valid or not, until
 * killed. Only EINVAL may come back, and only for what is invalid.
 */
static void hostile_rates(int ready_fd)
{
	static const uint32_t rates[] = {
		0, 1, 2, 1000, XRXE_RATE_LIMIT_MAX_KBPS,
		XRXE_RATE_LIMIT_MAX_KBPS + 1, UINT32_MAX };
	struct backlog b[4];
	uint64_t seed = 42, changes = 0;
	unsigned int k;

	open_device();
	for (k = 0; k < 4; k++)
		make_backlog(&b[k], 1);
	if (write(ready_fd, "r", 1) != 1)
		die("ready");
	for (;;) {
		uint64_t r = splitmix64(&seed);
		struct ibv_qp *qp = b[r % 4].tx[(r >> 8) % TD_QPS];
		uint32_t kbps = r >> 63 ? rates[(r >> 16) % 7] :
				(uint32_t)(r >> 20);
		uint32_t burst = (r >> 40) & 1 ? (uint32_t)(r >> 24) % (32U << 20) : 0;
		uint16_t typical = (r >> 41) & 1 ? (uint16_t)(r >> 48) : 0;
		bool valid = (!kbps && !burst && !typical) ||
			     (kbps && kbps <= XRXE_RATE_LIMIT_MAX_KBPS &&
			      burst <= XRXE_RATE_LIMIT_MAX_BURST);
		int ret = set_rate(qp, kbps, burst, typical);

		if (ret != (valid ? 0 : EINVAL))
			die("rate %u burst %u size %u: %s", kbps, burst,
			    typical, strerror(ret));
		changes++;
	}
}

/* Round trips of one unpaced RC pair: sends each way, checked. */
static double ping_pong(unsigned int trips)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	static uint8_t buf[128];
	struct ibv_qp *a, *b;
	struct ibv_mr *mr;
	double start;
	unsigned int i;

	if (!cq)
		die("cq");
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	a = make_qp(IBV_QPT_RC, cq, 4);
	b = make_qp(IBV_QPT_RC, cq, 4);
	if (!mr)
		die("mr");
	move_to(a, IBV_QPS_RTS, b->qp_num);
	move_to(b, IBV_QPS_RTS, a->qp_num);
	start = now();
	for (i = 0; i < 2 * trips; i++) {
		struct ibv_qp *from = i & 1 ? b : a, *to = i & 1 ? a : b;
		struct ibv_sge tx = { (uintptr_t)buf, 64, mr->lkey };
		struct ibv_sge rx = { (uintptr_t)buf + 64, 64, mr->lkey };
		struct ibv_recv_wr rwr = { .sg_list = &rx, .num_sge = 1 }, *rbad;
		struct ibv_send_wr swr = {
			.sg_list = &tx, .num_sge = 1, .opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED,
		}, *sbad;
		struct ibv_wc wc;
		int got = 0, n;
		double end = now() + POLL_SECS;

		memset(buf, i & 0xff, 64);
		if (ibv_post_recv(to, &rwr, &rbad) ||
		    ibv_post_send(from, &swr, &sbad))
			die("post round trip %u", i);
		while (got < 2) {
			n = ibv_poll_cq(cq, 1, &wc);
			if (n < 0 || (n && wc.status != IBV_WC_SUCCESS))
				die("round trip %u: completion status %s", i,
				    n < 0 ? "poll failed" :
				    ibv_wc_status_str(wc.status));
			got += n;
			if (!n && now() > end)
				die("round trip %u stalled for %d s beside the hostile process",
				    i, POLL_SECS);
		}
		if (buf[64] != (uint8_t)(i & 0xff) || buf[127] != (uint8_t)(i & 0xff))
			die("round trip %u: payload", i);
	}
	start = now() - start;
	if (ibv_destroy_qp(a) || ibv_destroy_qp(b) || ibv_dereg_mr(mr) ||
	    ibv_destroy_cq(cq))
		die("ping-pong teardown");
	return start;
}

/* MemAvailable of /proc/meminfo, in KiB. */
static long mem_available_kib(void)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %ld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	if (kib < 0)
		die("no MemAvailable in /proc/meminfo");
	return kib;
}

/* What the guest may lose while the hostile process keeps at it: noise. */
#define HOSTILE_MEM_SLACK_KIB	(32 << 10)

static int cmd_hostile(int secs)
{
	long mem_start, mem_end;
	double alone, beside, end;
	unsigned int trips = 0;
	int ready[2], status;
	pid_t pid;
	char c;

	alone = ping_pong(200);
	if (pipe(ready))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		close(ready[0]);
		hostile_rates(ready[1]);
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1)
		die("the hostile process failed before its QPs were paced");
	/* From here its backlog is all posted: the kernel may not grow. */
	mem_start = mem_available_kib();
	beside = 0;
	end = now() + secs;
	while (now() < end) {
		beside += ping_pong(200);
		trips += 200;
	}
	mem_end = mem_available_kib();
	kill(pid, SIGKILL);
	if (waitpid(pid, &status, 0) != pid || !WIFSIGNALED(status))
		die("the hostile process failed (status %#x)", status);
	if (mem_start - mem_end > HOSTILE_MEM_SLACK_KIB)
		die("available memory fell by %ld KiB while the hostile process changed rates",
		    mem_start - mem_end);
	printf("hostile: %u round trips beside %d paced QPs changing rates: %.0f us each (%.0f us alone); available memory %+ld KiB\n",
	       trips, 4 * TD_QPS, beside / trips * 1e6, alone / 200 * 1e6,
	       mem_end - mem_start);
	return 0;
}

/*
 * A limit lifted or raised while its QP pauses, at a random moment of the
 * pause: right after the posts (the requester may be deciding to pause),
 * or after the pause (its ACK may be in a turn on the engine). Writes
 * still in the ring must then go: a lost resume leaves them there, and at
 * the slowest rate the next timer is more than a minute away.
 */
#define LIFT_QPS	4
#define LIFT_DEPTH	16
#define LIFT_MSG	8192
#define LIFT_BURST	16384
#define LIFT_SECS	10

static void spin_us(unsigned int us)
{
	double end = now() + us / 1e6;

	while (now() < end)
		;
}

static void lift_round(int round, uint64_t *seed)
{
	uint64_t r = splitmix64(seed), pauses;
	bool after_pause = r & 1, to_zero = r & 2;
	struct backlog b;
	char what[128];
	unsigned int q;

	pauses = hw_counter("xrxe_pace_pauses");
	make_backlog_of(&b, LIFT_QPS, LIFT_DEPTH, LIFT_MSG,
			XRXE_RATE_LIMIT_MIN_KBPS, LIFT_BURST);
	if (after_pause)
		wait_paused(pauses, 1);
	spin_us((r >> 8) % 3000);
	for (q = 0; q < b.qps; q++)
		if (to_zero ? set_rate(b.tx[q], 0, 0, 0) :
		    set_rate(b.tx[q], XRXE_RATE_LIMIT_MAX_KBPS,
			     XRXE_RATE_LIMIT_MAX_BURST, 0))
			die("lift the limit");
	snprintf(what, sizeof(what), "round %d's limit was %s %s", round,
		 to_zero ? "lifted" : "raised",
		 after_pause ? "after a pause" : "right after the posts");
	await_writes(&b, false, LIFT_SECS, what);
	destroy_all(&b);
}

static int cmd_lift(int rounds)
{
	uint64_t seed = (uint64_t)getpid() << 32 ^ (uint64_t)(now() * 1e6);
	int i;

	for (i = 0; i < rounds; i++)
		lift_round(i, &seed);
	printf("lift: %d rounds of %d paced QPs lifted or raised mid-pause, every write completed\n",
	       rounds, LIFT_QPS);
	return 0;
}

int main(int argc, char **argv)
{
	if (getenv("XRXE_DEV"))
		dev_name = getenv("XRXE_DEV");
	if (argc < 2)
		die("usage: xrxe-pace-test verbs | teardown [CYCLES] | lift [ROUNDS] | hostile [SECONDS] | hold");
	if (!strcmp(argv[1], "verbs")) {
		open_device();
		return cmd_verbs();
	}
	if (!strcmp(argv[1], "lift")) {
		open_device();
		return cmd_lift(argc > 2 ? atoi(argv[2]) : 100);
	}
	if (!strcmp(argv[1], "teardown"))
		return cmd_teardown(argc > 2 ? atoi(argv[2]) : 8);
	if (!strcmp(argv[1], "hold")) {
		struct backlog b;
		uint64_t before;

		open_device();
		before = hw_counter("xrxe_pace_pauses");
		make_backlog(&b, 100);
		wait_paused(before, TD_QPS);
		printf("held\n");
		fflush(stdout);
		for (;;)
			pause();
	}
	if (!strcmp(argv[1], "hostile")) {
		open_device();
		return cmd_hostile(argc > 2 ? atoi(argv[2]) : 10);
	}
	die("unknown test %s", argv[1]);
	return 1;
}
