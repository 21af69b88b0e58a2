/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What pace-bench.c, ocu-bench.c and coalesce-bench.c share: options, the
 * measured window, devices, QPs, a ping-pong and CPU time. Senders are on
 * DEV0 (xrxe0 or rxe0, tx), their peers on DEV1 (rx).
 */
#ifndef BENCH_LIB_H
#define BENCH_LIB_H

#include "xrxe_test_dev.h"
#include "xrxe_test_rc.h"
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <infiniband/xrxedv.h>

#define PORT		1
#define GID_INDEX	0
#define QKEY		0x11111111	/* every UD QP's */
#define NS_PER_S	1000000000LL
#define DRAIN_SECS	30		/* the most a run's drain may take */
#define PEER_ACCESS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE)
#define HW_COUNTERS	"/sys/class/infiniband/%s/ports/1/hw_counters/%s"
#define PP_SIZE		64		/* a ping-pong message */
#define PP_DEPTH	64		/* a ping-pong QP's queues */
#define PP_MAX_SAMPLES	(1 << 20)	/* half round trips kept */

struct dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	union ibv_gid gid;
	char name[32];
	char netdev[64];	/* its netdev, where open_devs() was asked for it */
	uint32_t next_domain;	/* the next ordering domain to try */
};

static struct dev tx, rx;
/* -D: the driver whose devices are measured; xrxe: it is rdma_xrxe. */
static const char *driver = "xrxe";
static bool xrxe = true;
/* -W and -w: the warm-up, then the window measured, in seconds. */
static double warmup = 1, window = 5;
/* The measurement's clock: warm-up until t_measure, window until t_end. */
static int64_t t_measure, t_end;

static inline int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

static inline void sleep_until(int64_t t)
{
	struct timespec ts = { t / NS_PER_S, t % NS_PER_S };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
		;
}

/* The warm-up from now, then the window. */
static inline void set_window(void)
{
	t_measure = now_ns() + (int64_t)(warmup * 1e9);
	t_end = t_measure + (int64_t)(window * 1e9);
}

/* -D DRIVER, -w S and -W S, where program's getopt string has them; else usage. */
static inline void common_opt(int c, const char *program)
{
	switch (c) {
	case 'D':
		driver = optarg;
		xrxe = !strcmp(driver, "xrxe");
		break;
	case 'w':
		window = atof(optarg);
		break;
	case 'W':
		warmup = atof(optarg);
		break;
	default:
		die("usage: see the comment at the top of bench/%s", program);
	}
}

/* The number in the file fmt names, or where it is not there -1 (required: die). */
static inline __attribute__((format(printf, 2, 3)))
int64_t read_counter(bool required, const char *fmt, ...)
{
	char path[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (!required && access(path, R_OK))
		return -1;
	return read_number_file(path);
}

/* DEV0 and DEV1 of the driver: a PD on each, its GID and, with netdev, its netdev. */
static inline void open_devs(bool netdev)
{
	struct dev *devs[2] = { &tx, &rx };
	struct dev *d;
	char path[256];
	FILE *f;
	int i;

	for (i = 0; i < 2; i++) {
		d = devs[i];
		snprintf(d->name, sizeof(d->name), "%s%d", driver, i);
		d->ctx = xrxe_open_device(d->name);
		d->pd = ibv_alloc_pd(d->ctx);
		if (!d->pd || ibv_query_gid(d->ctx, PORT, GID_INDEX, &d->gid))
			die("pd or gid of %s", d->name);
		d->next_domain = 1;
		if (!netdev)
			continue;
		snprintf(path, sizeof(path),
			 "/sys/class/infiniband/%s/ports/%d/gid_attrs/ndevs/%d", d->name,
			 PORT, GID_INDEX);
		f = fopen(path, "r");
		if (!f || fscanf(f, "%63s", d->netdev) != 1)
			die("no netdev for %s", d->name);
		fclose(f);
	}
}

static inline struct ibv_cq *make_cq(struct dev *d, int cqe, struct ibv_comp_channel *channel)
{
	struct ibv_cq *cq = ibv_create_cq(d->ctx, cqe, NULL, channel, 0);

	if (!cq)
		die("cq on %s: %s", d->name, strerror(errno));
	return cq;
}

/* A zeroed buffer of len bytes registered on d with access; it is at ->addr. */
static inline struct ibv_mr *alloc_mr(struct dev *d, size_t len, int access)
{
	void *buf = calloc(1, len);
	struct ibv_mr *mr;

	if (!buf)
		die("memory");
	mr = ibv_reg_mr(d->pd, buf, len, access);
	if (!mr)
		die("mr: %s", strerror(errno));
	return mr;
}

/* A QP on d whose sends and receives complete on cq. */
static inline struct ibv_qp *make_qp(struct dev *d, enum ibv_qp_type type,
				     struct ibv_cq *cq, uint32_t send_wr,
				     uint32_t recv_wr, uint32_t inline_data)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = type,
		.cap = { .max_send_wr = send_wr, .max_recv_wr = recv_wr,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = inline_data },
	};
	struct ibv_qp *qp = ibv_create_qp(d->pd, &a);

	if (!qp)
		die("create QP: %s", strerror(errno));
	return qp;
}

/*
 * An RC or UD QP to RTS; an RC QP's peer is QP remote on peer, at path MTU
 * mtu (a merged write is capped by it), connected as the tests connect theirs.
 */
static inline void connect_qp(struct ibv_qp *qp, const struct dev *peer, uint32_t remote,
			      enum ibv_mtu mtu)
{
	const struct xrxe_rc_peer p = {
		.qpn = remote, .gid = peer->gid, .port = PORT,
		.sgid_index = GID_INDEX, .rd_atomic = 1, .min_rnr_timer = 1,
		.timeout = 14, .path_mtu = mtu,
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = PORT, .qkey = QKEY,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	const char *step = "INIT";
	int ret;

	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			    (qp->qp_type == IBV_QPT_UD ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS));
	if (!ret && qp->qp_type == IBV_QPT_RC) {
		ret = xrxe_rc_rtr_rts(qp, &p, &step);
	} else if (!ret) {
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTR;
		step = "RTR";
		ret = ibv_modify_qp(qp, &a, IBV_QP_STATE);
		a.qp_state = IBV_QPS_RTS;
		if (!ret) {
			step = "RTS";
			ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
		}
	}
	if (ret)
		die("QP %u to %s: %s", qp->qp_num, step, strerror(ret));
}

/* A sender sqp on DEV0 and its peer rqp on DEV1, each the other's. */
static inline void connect_pair(struct ibv_qp *sqp, struct ibv_qp *rqp, enum ibv_mtu mtu)
{
	connect_qp(sqp, &rx, rqp->qp_num, mtu);
	connect_qp(rqp, &tx, sqp->qp_num, mtu);
}

/* The provider's counters of qp; all 0 but on xrxe. */
static inline struct xrxedv_qp_counters counters_of(struct ibv_qp *qp)
{
	struct xrxedv_qp_counters c = { 0 };
	int ret;

	if (!xrxe)
		return c;
	ret = xrxedv_query_qp_counters(qp, &c, sizeof(c));
	if (ret)
		die("counters of QP %u: %s", qp->qp_num, strerror(ret));
	return c;
}

/* An engine or OCU number of the counters, -1 for XRXEDV_UNKNOWN. */
static inline int known(uint32_t v)
{
	return v == XRXEDV_UNKNOWN ? -1 : (int)v;
}

/* Two RC QPs, one on each device, answering each other's 64 B sends. */
struct pingpong {
	struct ibv_cq *cq[2];
	struct ibv_qp *qp[2];
	struct ibv_mr *mr[2];
	unsigned int sends_out[2];
	/* Half round trips of the window, in microseconds. */
	double *half;
	uint64_t n;
};

static inline void pp_post_recv(struct pingpong *p, int side)
{
	struct ibv_sge sge = {
		(uintptr_t)p->mr[side]->addr + PP_SIZE, PP_SIZE, p->mr[side]->lkey,
	};
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

	if (ibv_post_recv(p->qp[side], &wr, &bad))
		die("ping-pong post recv");
}

/* Both ends, side 0 on DEV0 and 1 on DEV1: buffers, CQs, QPs not connected yet. */
static inline void pingpong_open(struct pingpong *p)
{
	struct dev *d;
	int s;

	for (s = 0; s < 2; s++) {
		d = s ? &rx : &tx;
		p->cq[s] = make_cq(d, 2 * PP_DEPTH, NULL);
		p->mr[s] = alloc_mr(d, 2 * PP_SIZE, IBV_ACCESS_LOCAL_WRITE);
		p->qp[s] = make_qp(d, IBV_QPT_RC, p->cq[s], PP_DEPTH, PP_DEPTH, PP_SIZE);
	}
}

/* Connect the two ends, post their receives, make room for the samples. */
static inline void pingpong_connect(struct pingpong *p)
{
	int s;

	connect_pair(p->qp[0], p->qp[1], IBV_MTU_1024);
	for (s = 0; s < 2; s++)
		pp_post_recv(p, s);
	p->half = malloc(PP_MAX_SAMPLES * sizeof(*p->half));
	if (!p->half)
		die("memory");
}

/* Send from one side, wait until the other has received it. */
static inline void pp_hop(struct pingpong *p, int from)
{
	int to = !from;
	struct ibv_sge sge = { (uintptr_t)p->mr[from]->addr, PP_SIZE, p->mr[from]->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE,
	}, *bad;
	struct ibv_wc wc;
	bool received = false;
	int n;

	if (ibv_post_send(p->qp[from], &wr, &bad))
		die("ping-pong post send");
	p->sends_out[from]++;
	while (!received) {
		n = ibv_poll_cq(p->cq[to], 1, &wc);
		if (n < 0 || (n && wc.status != IBV_WC_SUCCESS))
			die("ping-pong completion: %s",
			    n < 0 ? "poll failed" : ibv_wc_status_str(wc.status));
		if (n && wc.opcode == IBV_WC_RECV)
			received = true;
		else if (n)
			p->sends_out[to]--;
	}
	pp_post_recv(p, to);
	/* Retire the sender's send completions before its queue fills. */
	while (p->sends_out[from] >= PP_DEPTH / 2) {
		n = ibv_poll_cq(p->cq[from], 1, &wc);
		if (n < 0 || (n && wc.status != IBV_WC_SUCCESS))
			die("ping-pong send completion");
		if (n && wc.opcode != IBV_WC_RECV)
			p->sends_out[from]--;
		else if (n)
			die("ping-pong: a receive before its send");
	}
}

/* Round trips until t_end, busy polling; the window's halves go into p->half. */
static inline void *pingpong_thread(void *arg)
{
	struct pingpong *p = arg;
	int64_t t;

	for (;;) {
		t = now_ns();
		if (t >= t_end)
			break;
		pp_hop(p, 0);
		pp_hop(p, 1);
		if (t >= t_measure && p->n < PP_MAX_SAMPLES)
			p->half[p->n++] = (now_ns() - t) / 2e3;
	}
	return NULL;
}

/* For qsort() of doubles, ascending. */
static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The window's half round trips sorted; their mean. */
static inline double pingpong_sort(struct pingpong *p)
{
	double sum = 0;
	uint64_t i;

	if (!p->n)
		die("no ping-pong in the window");
	for (i = 0; i < p->n; i++)
		sum += p->half[i];
	qsort(p->half, p->n, sizeof(*p->half), cmp_double);
	return sum / p->n;
}

/* The q quantile (0 to 1) of the n sorted values v, the nearest rank. */
static inline double quantile(const double *v, uint64_t n, double q)
{
	uint64_t i = (uint64_t)(q * (n - 1) + 0.5);

	return v[i < n ? i : n - 1];
}

/* The comma-separated numbers of s into v: at most max, none 0 (else zero_msg). */
static inline unsigned int parse_list(const char *s, uint32_t *v, unsigned int max,
				      const char *what, const char *zero_msg)
{
	char *list = strdup(s), *tok, *save = NULL;
	unsigned int n = 0;

	if (!list)
		die("memory");
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == max)
			die("at most %u %s", max, what);
		v[n] = strtoul(tok, NULL, 0);
		if (!v[n])
			die("%s", zero_msg);
		n++;
	}
	free(list);
	return n;
}

/*
 * Seconds all CPUs have been idle (idle and iowait of /proc/stat). The
 * idle clock is kept in nanoseconds by the tickless idle code; the busy
 * fields are sampled by the tick, which a vCPU the host preempts charges
 * to whichever thread it interrupted, so busy time is taken as the wall
 * clock times the CPUs less this.
 */
static inline double idle_seconds(void)
{
	unsigned long long v[5] = { 0 };
	FILE *f = fopen("/proc/stat", "r");

	if (!f || fscanf(f, "cpu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
			 &v[3], &v[4]) != 5)
		die("cannot read /proc/stat");
	fclose(f);
	return (double)(v[3] + v[4]) / sysconf(_SC_CLK_TCK);
}

/* Busy CPU seconds over wall_s seconds in which the CPUs idled idle_s. */
static inline double busy_seconds(double wall_s, double idle_s)
{
	return wall_s * sysconf(_SC_NPROCESSORS_ONLN) - idle_s;
}

#endif /* BENCH_LIB_H */
