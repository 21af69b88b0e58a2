// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Send rate limit accuracy, in the testbed: one QP on xrxe0 paced with
 * ibv_modify_qp_rate_limit() sends to a QP on xrxe1 with its send queue
 * kept full; the measured rate is what xrxe0's netdev transmitted in a
 * window (IP bytes: its tx bytes less 14 Ethernet header bytes a packet),
 * the basis the limit counts. Also the largest IP bytes sent in any 10 ms
 * slice of the window, against what the limit allows in one (the rate's
 * share plus the burst). One JSON object on stdout.
 *
 *   xrxe-pace-bench -t rc|ud -s SIZE -r KBPS [-w SECONDS]
 *
 * KBPS 0 is no limit: what the testbed sustains. Nothing here asserts a
 * figure; the program fails only when it could not measure.
 */
#include "xrxe_test_util.h"
#include "xrxe_test_rc.h"
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_user_xrxe.h>

#define PORT		1
#define GID_INDEX	0
#define QKEY		0x11111111
#define DEPTH		64
#define GRH		40
#define SLICE_NS	10000000LL	/* 10 ms */
#define ETH_HDR		14

struct dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	union ibv_gid gid;
	char netdev[64];
};

static void open_dev(struct dev *d, const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	char path[256];
	FILE *f;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			d->ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!d->ctx)
		die("cannot open %s", name);
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd || ibv_query_gid(d->ctx, PORT, GID_INDEX, &d->gid))
		die("pd or gid of %s", name);
	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/%d/gid_attrs/ndevs/%d", name,
		 PORT, GID_INDEX);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%63s", d->netdev) != 1)
		die("no netdev for %s", name);
	fclose(f);
}

static uint64_t netdev_stat(const char *netdev, const char *what)
{
	char path[256];
	unsigned long long v;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/%s", netdev,
		 what);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%llu", &v) != 1)
		die("cannot read %s", path);
	fclose(f);
	return v;
}

/* IP bytes the netdev has sent. */
static uint64_t ip_bytes(const char *netdev)
{
	return netdev_stat(netdev, "tx_bytes") -
	       ETH_HDR * netdev_stat(netdev, "tx_packets");
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static struct ibv_qp *make_qp(struct dev *d, enum ibv_qp_type type,
			      struct ibv_cq *cq)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = type,
		.cap = { .max_send_wr = DEPTH, .max_recv_wr = DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(d->pd, &a);

	if (!qp)
		die("create QP: %s", strerror(errno));
	return qp;
}

static void connect_qp(struct ibv_qp *qp, const struct dev *peer,
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

int main(int argc, char **argv)
{
	const char *type_name = "rc";
	uint32_t size = 4096, kbps = 0;
	double secs = 5, warmup = 1;
	struct dev tx = { 0 }, rx = { 0 };
	struct ibv_cq *tcq, *rcq;
	struct ibv_qp *sqp, *rqp;
	struct ibv_mr *smr, *rmr;
	struct ibv_ah *ah = NULL;
	uint8_t *sbuf, *rbuf;
	uint64_t posted = 0, done = 0, msgs0 = 0, bytes0 = 0, last_bytes;
	uint64_t rposted = 0, rdone = 0;
	uint64_t max_slice = 0, slices = 0;
	int64_t start, t0 = 0, next_slice = 0, end;
	bool ud;
	int c;

	while ((c = getopt(argc, argv, "t:s:r:w:")) != -1) {
		switch (c) {
		case 't': type_name = optarg; break;
		case 's': size = strtoul(optarg, NULL, 0); break;
		case 'r': kbps = strtoul(optarg, NULL, 0); break;
		case 'w': secs = atof(optarg); break;
		default: die("usage: xrxe-pace-bench -t rc|ud -s SIZE -r KBPS [-w SECONDS]");
		}
	}
	ud = !strcmp(type_name, "ud");
	if (!ud && strcmp(type_name, "rc"))
		die("-t rc or ud");
	open_dev(&tx, "xrxe0");
	open_dev(&rx, "xrxe1");
	sbuf = calloc(1, size);
	rbuf = calloc(DEPTH, size + GRH);
	tcq = ibv_create_cq(tx.ctx, 2 * DEPTH, NULL, NULL, 0);
	rcq = ibv_create_cq(rx.ctx, 2 * DEPTH, NULL, NULL, 0);
	if (!sbuf || !rbuf || !tcq || !rcq)
		die("buffers or cqs");
	smr = ibv_reg_mr(tx.pd, sbuf, size, 0);
	rmr = ibv_reg_mr(rx.pd, rbuf, (size_t)DEPTH * (size + GRH),
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!smr || !rmr)
		die("mr: %s", strerror(errno));
	sqp = make_qp(&tx, ud ? IBV_QPT_UD : IBV_QPT_RC, tcq);
	rqp = make_qp(&rx, ud ? IBV_QPT_UD : IBV_QPT_RC, rcq);
	connect_qp(sqp, &rx, rqp->qp_num);
	connect_qp(rqp, &tx, sqp->qp_num);
	if (ud) {
		struct ibv_ah_attr a = {
			.is_global = 1, .port_num = PORT,
			.grh = { .dgid = rx.gid, .sgid_index = GID_INDEX,
				 .hop_limit = 1 },
		};

		ah = ibv_create_ah(tx.pd, &a);
		if (!ah)
			die("ah");
	}
	if (kbps) {
		struct ibv_qp_rate_limit_attr rl = { .rate_limit = kbps };
		int ret = ibv_modify_qp_rate_limit(sqp, &rl);

		if (ret)
			die("rate limit %u kbit/s: %s", kbps, strerror(ret));
	}

	start = now_ns();
	end = start + (int64_t)((warmup + secs) * 1e9);
	last_bytes = ip_bytes(tx.netdev);
	for (;;) {
		struct ibv_wc wc[32];
		int64_t t = now_ns();
		int n, i;

		/* Keep the receive queue and the send queue full. */
		while (ud && rposted - rdone < DEPTH) {
			struct ibv_sge rs = {
				(uintptr_t)rbuf + (rposted % DEPTH) * (size + GRH),
				size + GRH, rmr->lkey,
			};
			struct ibv_recv_wr rw = { .sg_list = &rs, .num_sge = 1 },
				*rbad;

			if (ibv_post_recv(rqp, &rw, &rbad))
				die("post recv");
			rposted++;
		}
		while (posted - done < DEPTH) {
			struct ibv_sge sge = { (uintptr_t)sbuf, size, smr->lkey };
			struct ibv_send_wr wr = {
				.wr_id = posted, .sg_list = &sge, .num_sge = 1,
				.opcode = ud ? IBV_WR_SEND : IBV_WR_RDMA_WRITE,
				.send_flags = IBV_SEND_SIGNALED,
			}, *bad;

			if (ud) {
				wr.wr.ud.ah = ah;
				wr.wr.ud.remote_qpn = rqp->qp_num;
				wr.wr.ud.remote_qkey = QKEY;
			} else {
				wr.wr.rdma.remote_addr = (uintptr_t)rbuf;
				wr.wr.rdma.rkey = rmr->rkey;
			}
			if (ibv_post_send(sqp, &wr, &bad))
				die("post send %" PRIu64, posted);
			posted++;
		}
		n = ibv_poll_cq(tcq, 32, wc);
		if (n < 0)
			die("poll");
		for (i = 0; i < n; i++)
			if (wc[i].status != IBV_WC_SUCCESS)
				die("message %" PRIu64 ": %s", wc[i].wr_id,
				    ibv_wc_status_str(wc[i].status));
		done += n;
		/* UD receives complete on the other CQ. */
		while (ud && (n = ibv_poll_cq(rcq, 32, wc)) > 0)
			rdone += n;
		if (!t0 && t - start >= (int64_t)(warmup * 1e9)) {
			t0 = t;
			next_slice = t + SLICE_NS;
			msgs0 = done;
			bytes0 = last_bytes = ip_bytes(tx.netdev);
		}
		if (t0 && t >= next_slice) {
			uint64_t b = ip_bytes(tx.netdev);

			/*
			 * Bytes and packets are two reads: a packet between
			 * them shifts 14 bytes into the next slice.
			 */
			if ((int64_t)(b - last_bytes) > (int64_t)max_slice)
				max_slice = b - last_bytes;
			last_bytes = b;
			next_slice += SLICE_NS;
			slices++;
		}
		if (t >= end)
			break;
	}
	{
		int64_t t1 = now_ns();
		uint64_t b = ip_bytes(tx.netdev) - bytes0;
		double window = (t1 - t0) / 1e9;
		double measured = b * 8 / window / 1000;

		if (!b || done == msgs0)
			die("nothing was sent in the window");
		printf("{\"type\": \"%s\", \"size\": %u, \"limit_kbps\": %u, "
		       "\"window_s\": %.3f, \"messages\": %" PRIu64 ", "
		       "\"ip_bytes\": %" PRIu64 ", \"measured_kbps\": %.1f, "
		       "\"error_pct\": %.2f, \"max_slice_bytes\": %" PRIu64 ", "
		       "\"slice_allowance_bytes\": %.0f, \"slices\": %" PRIu64 "}\n",
		       type_name, size, kbps, window, done - msgs0, b, measured,
		       kbps ? (measured - kbps) * 100.0 / kbps : 0.0, max_slice,
		       kbps ? kbps * 1000.0 / 8 * SLICE_NS / 1e9 +
		       XRXE_RATE_LIMIT_DEFAULT_BURST : 0.0, slices);
	}
	/* Leave the backlog to the kernel: exit tears everything down. */
	return 0;
}
