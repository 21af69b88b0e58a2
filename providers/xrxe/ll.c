// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libxrxe low-latency posting: the doorbell that carries its WQE, an ioctl
 * of the QP object (XRXE_METHOD_QP_LL_POST). See ll.h for the choice.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "xrxe.h"

/*
 * Send slot index's WQE, already published in the ring, as a command. The
 * kernel rings the QP's doorbell for every command it gets, taken or not;
 * only when the ioctl itself failed does a bare doorbell follow.
 */
int xrxe_ll_post(struct xrxe_qp *qp, uint32_t index)
{
	const struct rxe_send_wqe *wqe = &xrxe_dbl_slot(&qp->dbl, index)->wqe;
	struct xrxe_ll_cmd *cmd = qp->ll_cmd;
	size_t len = sizeof(*cmd) + xrxe_ll_payload(wqe);
	__u32 result = XRXE_LL_DROPPED_STATE;
	struct {
		struct ib_uverbs_ioctl_hdr hdr;
		struct ib_uverbs_attr attrs[3];
	} req = {
		.hdr = {
			.length = sizeof(req),
			.object_id = UVERBS_OBJECT_QP,
			.method_id = XRXE_METHOD_QP_LL_POST,
			.num_attrs = 3,
			.driver_id = XRXE_DRIVER_ID,
		},
		.attrs = {
			{ .attr_id = XRXE_ATTR_LL_POST_QP_HANDLE,
			  .flags = UVERBS_ATTR_F_MANDATORY,
			  .data = qp->vqp.qp.handle },
			{ .attr_id = XRXE_ATTR_LL_POST_CMD,
			  .flags = UVERBS_ATTR_F_MANDATORY,
			  .len = len, .data = (uintptr_t)cmd },
			{ .attr_id = XRXE_ATTR_LL_POST_RESULT,
			  .flags = UVERBS_ATTR_F_MANDATORY,
			  .len = sizeof(result), .data = (uintptr_t)&result },
		},
	};
	int ret;

	cmd->index = index;
	cmd->reserved = 0;
	memcpy(&cmd->wqe, wqe, len - offsetof(struct xrxe_ll_cmd, wqe));
	qp->ll_posts++;
	if (ioctl(qp->vqp.qp.context->cmd_fd, RDMA_VERBS_IOCTL, &req)) {
		ret = errno;
		qp->ll_errors++;
		xrxe_ll_outcome(&qp->ll, false);
		/* A kernel without the method: stop trying on this QP. */
		if (ret == EOPNOTSUPP || ret == EPROTONOSUPPORT || ret == ENOTTY)
			qp->ll.mode = XRXEDV_LL_NEVER;
		/* EINVAL came from the handler, which rang; anything else may not have. */
		if (ret != EINVAL)
			return xrxe_sq_doorbell(qp);
		/* The WQE is in the ring and completes from there. */
		return 0;
	}
	if (result == XRXE_LL_ACCEPTED)
		qp->ll_accepted++;
	else
		qp->ll_dropped++;
	xrxe_ll_outcome(&qp->ll, result == XRXE_LL_ACCEPTED);
	return 0;
}
