/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * An RC QP from INIT to RTS, as the testbed's C programs connect theirs:
 * a GRH to the peer's GID, path MTU 1024 unless the peer asks for another,
 * retries and RNR retries 7. What differs between the programs comes in
 * struct xrxe_rc_peer.
 */
#ifndef XRXE_TEST_RC_H
#define XRXE_TEST_RC_H

#include <errno.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "xrxe_test_util.h"

struct xrxe_rc_peer {
	uint32_t qpn;
	union ibv_gid gid;
	uint8_t port;
	uint8_t sgid_index;
	uint32_t rq_psn;	/* the peer's sq_psn */
	uint32_t sq_psn;	/* the peer's rq_psn */
	uint8_t rd_atomic;	/* reads and atomics in flight, each way */
	uint8_t min_rnr_timer;
	uint8_t timeout;	/* ACK timeout exponent */
	enum ibv_mtu path_mtu;	/* 0: IBV_MTU_1024 */
};

/*
 * RTR, then RTS. 0, or the errno of the step that failed, which *step
 * names ("RTR" or "RTS").
 */
static inline int xrxe_rc_rtr_rts(struct ibv_qp *qp, const struct xrxe_rc_peer *p,
				  const char **step)
{
	struct ibv_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = p->path_mtu ? p->path_mtu : IBV_MTU_1024;
	a.dest_qp_num = p->qpn;
	a.rq_psn = p->rq_psn;
	a.max_dest_rd_atomic = p->rd_atomic;
	a.min_rnr_timer = p->min_rnr_timer;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = p->port;
	a.ah_attr.grh.dgid = p->gid;
	a.ah_attr.grh.sgid_index = p->sgid_index;
	a.ah_attr.grh.hop_limit = 1;
	*step = "RTR";
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = p->sq_psn;
	a.timeout = p->timeout;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = p->rd_atomic;
	*step = "RTS";
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			     IBV_QP_MAX_QP_RD_ATOMIC);
}

/*
 * An RC QP of pd whose one receive, wr_id, is flushed into recv_cq by its
 * move to ERR: a completion without a peer. Dies on failure.
 */
static inline struct ibv_qp *xrxe_flushed_receive(struct ibv_pd *pd, struct ibv_cq *send_cq,
						  struct ibv_cq *recv_cq, uint64_t wr_id)
{
	struct ibv_qp_init_attr init = {
		.send_cq = send_cq,
		.recv_cq = recv_cq,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct ibv_recv_wr wr = { .wr_id = wr_id }, *bad;
	struct ibv_qp *qp = ibv_create_qp(pd, &init);

	if (!qp)
		die("create QP: %s", strerror(errno));
	if (ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("QP to INIT");
	if (ibv_post_recv(qp, &wr, &bad))
		die("post a receive");
	attr.qp_state = IBV_QPS_ERR;
	if (ibv_modify_qp(qp, &attr, IBV_QP_STATE))
		die("QP to ERR");
	return qp;
}

#endif /* XRXE_TEST_RC_H */
