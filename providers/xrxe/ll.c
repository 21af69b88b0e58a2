// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libxrxe low-latency posting: the doorbell that carries its WQE, an ioctl
 * of the QP object (XRXE_METHOD_QP_LL_POST). See ll.h for the choice.
 */
#include <errno.h>

#include "xrxe.h"

/*
 * Send slot index's WQE, already published in the ring, as a command. The
 * kernel rings the QP's doorbell for every command it gets, taken or not;
 * only when the ioctl itself failed does a bare doorbell follow.
 */
int xrxe_ll_post(struct xrxe_qp *qp, uint32_t index)
{
	size_t len = xrxe_ll_cmd_fill(qp->ll_cmd, index,
				      &xrxe_dbl_slot(&qp->dbl, index)->wqe);
	__u32 result = XRXE_LL_DROPPED_STATE;
	int ret;

	qp->ll_posts++;
	ret = xrxe_ll_ioctl(qp->vqp.qp.context->cmd_fd, qp->vqp.qp.handle,
			    qp->ll_cmd, len, &result);
	if (ret) {
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
