/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the testbed's benchmark programs (pace-bench.c, ocu-bench.c) share:
 * the clock, the devices, QPs from one device to the other, a ping-pong of
 * 64 B inline sends between two RC QPs and its half round trips, lists of
 * numbers on the command line and the guest's idle CPU time. Senders are
 * on DEV0 (xrxe0 or rxe0), their peers on DEV1.
 */
#ifndef BENCH_LIB_H
#define BENCH_LIB_H

#include "xrxe_test_dev.h"
#include "xrxe_test_rc.h"
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#define PORT		1
#define GID_INDEX	0
#define QKEY		0x11111111	/* every UD QP's */
#define PP_SIZE		64		/* a ping-pong message */
#define PP_DEPTH	64		/* a ping-pong QP's queues */
#define PP_MAX_SAMPLES	(1 << 20)	/* half round trips kept */

struct dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	union ibv_gid gid;
	char netdev[64];	/* its netdev, where open_dev() was asked for it */
	uint32_t next_domain;	/* the next ordering domain to try */
};

static inline int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The device called name, a PD on it, its GID and, with netdev, its netdev. */
static inline void open_dev(struct dev *d, const char *name, bool netdev)
{
	char path[256];
	FILE *f;

	d->ctx = xrxe_open_device(name);
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd || ibv_query_gid(d->ctx, PORT, GID_INDEX, &d->gid))
		die("pd or gid of %s", name);
	d->next_domain = 1;
	if (!netdev)
		return;
	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/%d/gid_attrs/ndevs/%d", name,
		 PORT, GID_INDEX);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%63s", d->netdev) != 1)
		die("no netdev for %s", name);
	fclose(f);
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

/* An RC or UD QP to RTS; an RC QP's peer is QP remote on peer. */
static inline void connect_qp(struct ibv_qp *qp, const struct dev *peer,
			      uint32_t remote)
{
	const struct xrxe_rc_peer p = {
		.qpn = remote, .gid = peer->gid, .port = PORT,
		.sgid_index = GID_INDEX, .rd_atomic = 1, .min_rnr_timer = 1,
		.timeout = 14,
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = PORT, .qkey = QKEY,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	const char *step = "INIT";
	int ret;

	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			    (qp->qp_type == IBV_QPT_UD ? IBV_QP_QKEY :
			     IBV_QP_ACCESS_FLAGS));
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

/*
 * Two RC QPs, one on each device, answering each other's 64 B sends: made
 * by pingpong_open() for each side, then pingpong_connect().
 */
struct pingpong {
	struct dev *dev[2];
	struct ibv_cq *cq[2];
	struct ibv_qp *qp[2];
	struct ibv_mr *mr[2];
	uint8_t *buf[2];
	unsigned int sends_out[2];
	/* Half round trips of the window, in microseconds. */
	double *half;
	uint64_t n;
};

static inline void pp_post_recv(struct pingpong *p, int side)
{
	struct ibv_sge sge = {
		(uintptr_t)p->buf[side] + PP_SIZE, PP_SIZE, p->mr[side]->lkey,
	};
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

	if (ibv_post_recv(p->qp[side], &wr, &bad))
		die("ping-pong post recv");
}

/* One end (side 0 or 1) on d: its buffer, CQ and QP, not connected yet. */
static inline void pingpong_open(struct pingpong *p, int side, struct dev *d)
{
	p->dev[side] = d;
	p->buf[side] = calloc(2, PP_SIZE);
	p->cq[side] = ibv_create_cq(d->ctx, 2 * PP_DEPTH, NULL, NULL, 0);
	if (!p->buf[side] || !p->cq[side])
		die("ping-pong buffers or cqs");
	p->mr[side] = ibv_reg_mr(d->pd, p->buf[side], 2 * PP_SIZE,
				 IBV_ACCESS_LOCAL_WRITE);
	if (!p->mr[side])
		die("ping-pong mr: %s", strerror(errno));
	p->qp[side] = make_qp(d, IBV_QPT_RC, p->cq[side], PP_DEPTH, PP_DEPTH,
			      PP_SIZE);
}

/* Connect the two ends, post their receives, make room for the samples. */
static inline void pingpong_connect(struct pingpong *p)
{
	int s;

	connect_qp(p->qp[0], p->dev[1], p->qp[1]->qp_num);
	connect_qp(p->qp[1], p->dev[0], p->qp[0]->qp_num);
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
	struct ibv_sge sge = { (uintptr_t)p->buf[from], PP_SIZE, p->mr[from]->lkey };
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

/*
 * Round trips until t_end (busy polling); the half of each one that starts
 * from t_measure on goes into p->half, up to PP_MAX_SAMPLES of them.
 */
static inline void pingpong_run(struct pingpong *p, int64_t t_measure,
				int64_t t_end)
{
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
}

/* For qsort() of doubles, ascending. */
static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The q quantile (0 to 1) of the n sorted values v, the nearest rank. */
static inline double quantile(const double *v, uint64_t n, double q)
{
	uint64_t i = (uint64_t)(q * (n - 1) + 0.5);

	return v[i < n ? i : n - 1];
}

/*
 * The comma-separated numbers of s into v, at most max of them (else "at
 * most MAX what"), none 0 (else zero_msg); how many there were.
 */
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

#endif /* BENCH_LIB_H */
