/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Low-latency posting: which posts send their WQE in the doorbell system
 * call (struct xrxe_ll_cmd) instead of a bare doorbell, and how the
 * command is built and sent. Pure but for the system call of
 * xrxe_ll_ioctl(): no device state, no locks, so it is unit tested on its
 * own and xrxe-dbl-test sends its commands with it.
 *
 * The choice is speculative: the kernel takes the command only if its WQE
 * is the next in ring order and no engine is serving the QP, and drops it
 * otherwise (the ring slot, always written too, is then used). In mode
 * idle a post sends a command when it must ring anyway (the engine asked
 * for a doorbell) and the ring held nothing else; after a drop the next
 * posts back off, doubling up to XRXE_LL_MAX_BACKOFF, until one is taken.
 */
#ifndef XRXE_LL_H
#define XRXE_LL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <infiniband/verbs.h>
#include <infiniband/xrxedv.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include <rdma/rdma_user_xrxe.h>

/* Payload of a non-inline WQE small enough to qualify, in one SGE. */
#define XRXE_LL_MAX_SGE_BYTES	256
#define XRXE_LL_MAX_BACKOFF	64

struct xrxe_ll_state {
	enum xrxedv_ll_mode mode;
	uint32_t backoff;	/* posts to skip after the next drop */
	uint32_t skip;		/* posts left to skip */
};

/*
 * Whether a WQE may travel in a command: sends, RDMA writes and reads,
 * with inline data or at most one SGE of at most XRXE_LL_MAX_SGE_BYTES.
 */
static inline bool xrxe_ll_qualifies(const struct rxe_send_wqe *wqe)
{
	switch (wqe->wr.opcode) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
		break;
	default:
		return false;
	}
	if (wqe->wr.send_flags & IBV_SEND_INLINE)
		return true;
	return wqe->dma.num_sge <= 1 && wqe->dma.length <= XRXE_LL_MAX_SGE_BYTES;
}

/* Bytes of SGEs or inline data that follow the WQE in its command. */
static inline uint32_t xrxe_ll_payload(const struct rxe_send_wqe *wqe)
{
	if (wqe->wr.send_flags & IBV_SEND_INLINE)
		return wqe->dma.length;
	return wqe->dma.num_sge * sizeof(struct rxe_sge);
}

/*
 * Fill cmd with ring slot index's WQE and the SGEs or inline data after
 * it (cmd has room for them): the command's length.
 */
static inline size_t xrxe_ll_cmd_fill(struct xrxe_ll_cmd *cmd, uint32_t index,
				      const struct rxe_send_wqe *wqe)
{
	size_t len = sizeof(*cmd) + xrxe_ll_payload(wqe);

	cmd->index = index;
	cmd->reserved = 0;
	memcpy(&cmd->wqe, wqe, len - offsetof(struct xrxe_ll_cmd, wqe));
	return len;
}

/* The ioctl that carries a command: XRXE_METHOD_QP_LL_POST on the QP object. */
struct xrxe_ll_req {
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attrs[3];
};

static inline void xrxe_ll_req_init(struct xrxe_ll_req *req, uint32_t qp_handle,
				    const void *cmd, size_t len, uint32_t *result)
{
	memset(req, 0, sizeof(*req));
	req->hdr.length = sizeof(*req);
	req->hdr.object_id = UVERBS_OBJECT_QP;
	req->hdr.method_id = XRXE_METHOD_QP_LL_POST;
	req->hdr.num_attrs = 3;
	req->hdr.driver_id = XRXE_DRIVER_ID;
	req->attrs[0].attr_id = XRXE_ATTR_LL_POST_QP_HANDLE;
	req->attrs[0].flags = UVERBS_ATTR_F_MANDATORY;
	req->attrs[0].data = qp_handle;
	req->attrs[1].attr_id = XRXE_ATTR_LL_POST_CMD;
	req->attrs[1].flags = UVERBS_ATTR_F_MANDATORY;
	req->attrs[1].len = len;
	req->attrs[1].data = (uintptr_t)cmd;
	req->attrs[2].attr_id = XRXE_ATTR_LL_POST_RESULT;
	req->attrs[2].flags = UVERBS_ATTR_F_MANDATORY;
	req->attrs[2].len = sizeof(*result);
	req->attrs[2].data = (uintptr_t)result;
}

/*
 * Send the len bytes of cmd for the QP with handle qp_handle on the uverbs
 * file cmd_fd: 0 and the kernel's enum xrxe_ll_result in *result, or an
 * errno.
 */
static inline int xrxe_ll_ioctl(int cmd_fd, uint32_t qp_handle, const void *cmd,
				size_t len, uint32_t *result)
{
	struct xrxe_ll_req req;

	xrxe_ll_req_init(&req, qp_handle, cmd, len, result);
	return ioctl(cmd_fd, RDMA_VERBS_IOCTL, &req) ? errno : 0;
}

/*
 * For a post of one qualifying WQE: send it as a command? need_doorbell:
 * the engine asked for a doorbell; ring_empty: the kernel had taken every
 * earlier WQE, so this one is next in ring order.
 */
static inline bool xrxe_ll_choose(struct xrxe_ll_state *s, bool need_doorbell,
				  bool ring_empty)
{
	switch (s->mode) {
	case XRXEDV_LL_ALWAYS:
		return true;
	case XRXEDV_LL_IDLE:
		if (!need_doorbell || !ring_empty)
			return false;
		if (s->skip) {
			s->skip--;
			return false;
		}
		return true;
	default:
		return false;
	}
}

/* What the kernel did with a command: taken, or dropped (or refused). */
static inline void xrxe_ll_outcome(struct xrxe_ll_state *s, bool accepted)
{
	if (accepted) {
		s->backoff = 0;
		s->skip = 0;
		return;
	}
	s->backoff = s->backoff ? s->backoff * 2 : 1;
	if (s->backoff > XRXE_LL_MAX_BACKOFF)
		s->backoff = XRXE_LL_MAX_BACKOFF;
	s->skip = s->backoff;
}

#endif /* XRXE_LL_H */
