/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Encoding of work requests into the rxe WQE formats of rdma_user_rxe.h,
 * with the checks ibv_post_send(3) and ibv_post_recv(3) name. Pure: no
 * device, no locks, so it is unit tested on its own.
 */
#ifndef XRXE_WQE_H
#define XRXE_WQE_H

#include <stdbool.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_user_rxe.h>

/* What one send queue accepts, from the capabilities the kernel granted. */
struct xrxe_sq_limits {
	enum ibv_qp_type qp_type;
	uint32_t max_sge;
	uint32_t max_inline;
	/* Whether XRXEDV_SEND_DOMAIN_FLUSH may be asked. */
	bool domain_flush;
};

/* True if a QP of this type may post the opcode. */
int xrxe_opcode_valid(enum ibv_qp_type qp_type, enum ibv_wr_opcode opcode);

/* The IBV_QP_EX_WITH_* flags of the opcodes a QP of this type may post. */
uint64_t xrxe_send_ops(enum ibv_qp_type qp_type);

/*
 * Fill *wqe (whose slot has room for lim->max_sge SGEs or lim->max_inline
 * bytes) from wr. ah_num is the kernel's AH number for UD sends. Returns 0,
 * or EINVAL for an opcode the QP type does not support (or atomic write and
 * flush, which only the ibv_wr_* API can express), too many SGEs,
 * inline data longer than the limit or with an opcode that carries none, a
 * UD send without an AH, an atomic operation whose local buffer is not 8
 * bytes, or XRXEDV_SEND_DOMAIN_FLUSH where lim does not allow it.
 */
int xrxe_encode_send(const struct ibv_send_wr *wr, const struct xrxe_sq_limits *lim,
		     uint32_t ah_num, struct rxe_send_wqe *wqe);

/* Fill *wqe from a receive WR; EINVAL if it has more than max_sge SGEs. */
int xrxe_encode_recv(const struct ibv_recv_wr *wr, uint32_t max_sge,
		     struct rxe_recv_wqe *wqe);

/*
 * Fields of a send WQE, one setter per part, for both post paths. Init
 * clears the WQE (the kernel's fields start at zero) and sets the header.
 */
void xrxe_wqe_init(struct rxe_send_wqe *wqe, uint64_t wr_id,
		   enum ibv_wr_opcode opcode, unsigned int send_flags);
void xrxe_wqe_set_rdma(struct rxe_send_wqe *wqe, uint32_t rkey, uint64_t remote_addr);
void xrxe_wqe_set_atomic(struct rxe_send_wqe *wqe, uint32_t rkey,
			 uint64_t remote_addr, uint64_t compare_add, uint64_t swap);
/* Atomic write: its 8 bytes travel in the WQE itself. */
void xrxe_wqe_set_atomic_write(struct rxe_send_wqe *wqe, uint32_t rkey,
			       uint64_t remote_addr, const void *data);
void xrxe_wqe_set_bind_mw(struct rxe_send_wqe *wqe, uint32_t mw_rkey, uint32_t rkey,
			  const struct ibv_mw_bind_info *info);
/* RDMA FLUSH: the range travels in wr.flush, the length in dma too. */
void xrxe_wqe_set_flush(struct rxe_send_wqe *wqe, uint32_t rkey, uint64_t remote_addr,
			uint32_t length, uint8_t type, uint8_t level);
void xrxe_wqe_set_ud(struct rxe_send_wqe *wqe, uint32_t remote_qpn,
		     uint32_t remote_qkey, uint32_t ah_num);
/* length bytes of inline data, already in dma.inline_data. */
void xrxe_wqe_set_inline(struct rxe_send_wqe *wqe, uint32_t length);

/*
 * Point dma at the n SGEs of sg (the slot has room for them): EINVAL if
 * their total length does not fit 32 bits.
 */
int xrxe_dma_set_sges(struct rxe_dma_info *dma, const struct ibv_sge *sg, size_t n);

#endif /* XRXE_WQE_H */
