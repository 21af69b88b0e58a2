// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libxrxe low-latency posting: the doorbell that carries its WQE, an ioctl
 * of the QP object (XRXE_METHOD_QP_LL_POST). See ll.h for the choice.
 */
#include <errno.h>

#include "xrxe.h"

/*
 * Send the command xrxe_sq_submit() built, without sq->lock. The kernel
 * rings the QP's doorbell for every command it gets and then succeeds,
 * whatever became of the WQE; an error means the doorbell may not have
 * rung (uverbs may have refused the call before the method ran), so a
 * bare doorbell follows. The WQE is in the ring either way.
 */
int xrxe_ll_post(struct xrxe_qp *qp)
{
	__u32 result = XRXE_LL_DROPPED_STATE;
	int ret;

	ret = xrxe_ll_ioctl(qp->vqp.qp.context->cmd_fd, qp->vqp.qp.handle,
			    qp->ll_cmd, qp->ll_cmd_len, &result);
	pthread_spin_lock(&qp->sq.lock);
	qp->ll_cmd_busy = false;
	if (ret) {
		qp->ll_errors++;
		qp->doorbells++;
		/* A kernel without the method: stop trying on this QP. */
		if (ret == EOPNOTSUPP || ret == EPROTONOSUPPORT || ret == ENOTTY)
			qp->ll.mode = XRXEDV_LL_NEVER;
	} else if (result == XRXE_LL_ACCEPTED) {
		qp->ll_accepted++;
	} else {
		qp->ll_dropped++;
	}
	xrxe_ll_outcome(&qp->ll, !ret && result == XRXE_LL_ACCEPTED);
	pthread_spin_unlock(&qp->sq.lock);
	return ret ? xrxe_sq_doorbell(qp) : 0;
}
