/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Encoding of work requests into the rxe WQE formats of rdma_user_rxe.h,
 * with the checks ibv_post_send(3) and ibv_post_recv(3) name. Pure: no
 * device, no locks, so it is unit tested on its own.
 */
#ifndef XRXE_WQE_H
#define XRXE_WQE_H

#include <stdint.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_user_rxe.h>

/* What one send queue accepts, from the capabilities the kernel granted. */
struct xrxe_sq_limits {
	enum ibv_qp_type qp_type;
	uint32_t max_sge;
	uint32_t max_inline;
};

/* True if a QP of this type may post the opcode. */
int xrxe_opcode_valid(enum ibv_qp_type qp_type, enum ibv_wr_opcode opcode);

/*
 * Fill *wqe (whose slot has room for lim->max_sge SGEs or lim->max_inline
 * bytes) from wr. ah_num is the kernel's AH number for UD sends. Returns 0,
 * or EINVAL for an opcode the QP type does not support (or atomic write,
 * which only the ibv_wr_* API can express), too many SGEs,
 * inline data longer than the limit or with an opcode that carries none, a
 * UD send without an AH, or an atomic operation whose local buffer is not 8
 * bytes.
 */
int xrxe_encode_send(const struct ibv_send_wr *wr, const struct xrxe_sq_limits *lim,
		     uint32_t ah_num, struct rxe_send_wqe *wqe);

/* Fill *wqe from a receive WR; EINVAL if it has more than max_sge SGEs. */
int xrxe_encode_recv(const struct ibv_recv_wr *wr, uint32_t max_sge,
		     struct rxe_recv_wqe *wqe);

/*
 * Point dma at the n SGEs of sg (the slot has room for them): EINVAL if
 * their total length does not fit 32 bits.
 */
int xrxe_dma_set_sges(struct rxe_dma_info *dma, const struct ibv_sge *sg, size_t n);

#endif /* XRXE_WQE_H */
