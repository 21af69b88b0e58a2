// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Low-latency posting (xrxe): a doorbell that carries its WQE.
 *
 * When the engine of a doorbell-less send queue is idle, a post needs a
 * system call anyway. The provider then sends the WQE it has just written
 * into the ring, with its inline data, in that system call: an ioctl of
 * the QP object. The command is copied into one of the QP's few buffer
 * entries, checked, and handed to the doorbell, whose turn takes the WQE
 * from the entry instead of the ring slot if it is the next WQE in ring
 * order, and runs it at once in the caller's context. Otherwise the copy
 * is dropped and the doorbell serves the ring, which always holds the
 * WQE too. Every command on a QP with a buffer, taken, dropped or
 * malformed, rings its doorbell and then succeeds, with a result that
 * says which; so the provider needs a second system call only after an
 * error, when the doorbell may not have rung.
 */

#define UVERBS_MODULE_NAME rxe_ib
#include <rdma/uverbs_named_ioctl.h>
#include "rxe.h"
#include "rxe_loc.h"
#include "rxe_queue.h"
#include "rxe_hw_counters.h"

/* Commands one QP can hold at once: more concurrent ones are dropped. */
#define XRXE_LL_ENTRIES		2

/*
 * Test knob (debugfs rdma_xrxe/ll_drop_every, 0 by default): drop every Nth
 * low-latency command as if it had lost a race.
 */
u32 xrxe_ll_drop_every;

static atomic_t ll_commands = ATOMIC_INIT(0);

static const u8 ll_result_qp_counter[] = {
	[XRXE_LL_ACCEPTED]	 = XRXE_QP_LL_ACCEPTED,
	[XRXE_LL_DROPPED_ORDER]	 = XRXE_QP_LL_DROPPED_ORDER,
	[XRXE_LL_DROPPED_BUSY]	 = XRXE_QP_LL_DROPPED_BUSY,
	[XRXE_LL_DROPPED_FULL]	 = XRXE_QP_LL_DROPPED_FULL,
	[XRXE_LL_DROPPED_STATE]	 = XRXE_QP_LL_DROPPED_STATE,
	[XRXE_LL_DROPPED_FORCED] = XRXE_QP_LL_DROPPED_FORCED,
	[XRXE_LL_REJECTED]	 = XRXE_QP_LL_REJECTED,
	[XRXE_LL_DROPPED_PACED]	 = XRXE_QP_LL_DROPPED_PACED,
};

static const u8 ll_result_dev_counter[] = {
	[XRXE_LL_ACCEPTED]	 = XRXE_CNT_LL_ACCEPTED,
	[XRXE_LL_DROPPED_ORDER]	 = XRXE_CNT_LL_DROPPED_ORDER,
	[XRXE_LL_DROPPED_BUSY]	 = XRXE_CNT_LL_DROPPED_BUSY,
	[XRXE_LL_DROPPED_FULL]	 = XRXE_CNT_LL_DROPPED_FULL,
	[XRXE_LL_DROPPED_STATE]	 = XRXE_CNT_LL_DROPPED_STATE,
	[XRXE_LL_DROPPED_FORCED] = XRXE_CNT_LL_DROPPED_FORCED,
	[XRXE_LL_REJECTED]	 = XRXE_CNT_LL_REJECTED,
	[XRXE_LL_DROPPED_PACED]	 = XRXE_CNT_LL_DROPPED_PACED,
};

/* Claim a free buffer entry, or return -1 if all are in use. */
static int ll_claim(struct xrxe_dbl *d)
{
	int i;

	for (i = 0; i < XRXE_LL_ENTRIES; i++)
		if (!test_and_set_bit_lock(i, &d->ll_used))
			return i;
	return -1;
}

/*
 * Whether the copied command is well formed: its length is that of the
 * WQE it carries, with its SGEs or inline data, and the WQE passes the
 * checks a ring slot must pass.
 */
static bool ll_check(struct rxe_qp *qp, struct xrxe_ll_cmd *cmd, size_t len)
{
	struct rxe_send_wqe *wqe = &cmd->wqe;
	const char *why;
	u64 payload;

	payload = xrxe_wqe_payload(wqe, wr_opcode_mask(wqe->wr.opcode, qp));
	if (cmd->reserved || len != sizeof(*cmd) + payload) {
		rxe_dbg_qp(qp, "low-latency command of %zu bytes for %llu\n",
			   len, payload);
		return false;
	}
	why = xrxe_sq_validate(qp, wqe, len - offsetof(struct xrxe_ll_cmd, wqe));
	if (why) {
		rxe_dbg_qp(qp, "low-latency command rejected: %s\n", why);
		return false;
	}
	return true;
}

static int UVERBS_HANDLER(XRXE_METHOD_QP_LL_POST)(
	struct uverbs_attr_bundle *attrs)
{
	struct ib_qp *ibqp = uverbs_attr_get_obj(attrs,
						 XRXE_ATTR_LL_POST_QP_HANDLE);
	struct rxe_qp *qp = to_rqp(ibqp);
	struct xrxe_dbl *d = qp->dbl;
	struct xrxe_ll_cmd *cmd;
	int result;
	u32 every, out;
	int entry, len, err;

	if (!d || !d->ll_buf)
		return -EOPNOTSUPP;
	xrxe_count(qp, XRXE_QP_LL_POSTS, XRXE_CNT_LL_POSTS);
	/* A doorbell, whatever becomes of the WQE it carries. */
	xrxe_stage_count(qp, XRXE_STAGE_POST, XRXE_STAGE_POST);

	entry = ll_claim(d);
	if (entry < 0) {
		xrxe_engine_ring(qp, NULL, 0);
		result = XRXE_LL_DROPPED_FULL;
		goto out;
	}
	cmd = d->ll_buf + (size_t)entry * d->ll_entry_size;
	len = uverbs_attr_get_len(attrs, XRXE_ATTR_LL_POST_CMD);
	/* One copy out of user memory; from here on only the copy counts. */
	err = len < 0 ? len :
	      _uverbs_copy_from(cmd, attrs, XRXE_ATTR_LL_POST_CMD,
				d->ll_entry_size);
	if (!err && !ll_check(qp, cmd, len))
		err = -EINVAL;
	if (err) {
		clear_bit_unlock(entry, &d->ll_used);
		/* The ring still holds whatever the provider posted. */
		xrxe_engine_ring(qp, NULL, 0);
		result = XRXE_LL_REJECTED;
		goto out;
	}

	every = READ_ONCE(xrxe_ll_drop_every);
	if (every && atomic_inc_return(&ll_commands) % every == 0) {
		xrxe_engine_ring(qp, NULL, 0);
		result = XRXE_LL_DROPPED_FORCED;
	} else {
		result = xrxe_engine_ring(qp, cmd, len);
	}
	clear_bit_unlock(entry, &d->ll_used);
out:
	xrxe_count(qp, ll_result_qp_counter[result],
		   ll_result_dev_counter[result]);
	/*
	 * The doorbell has rung: success, whatever became of the WQE. An
	 * error would tell the provider to ring it again.
	 */
	out = result;
	return uverbs_copy_to(attrs, XRXE_ATTR_LL_POST_RESULT, &out,
			      sizeof(out));
}

DECLARE_UVERBS_NAMED_METHOD(
	XRXE_METHOD_QP_LL_POST,
	UVERBS_ATTR_IDR(XRXE_ATTR_LL_POST_QP_HANDLE, UVERBS_OBJECT_QP,
			UVERBS_ACCESS_READ, UA_MANDATORY),
	UVERBS_ATTR_PTR_IN(XRXE_ATTR_LL_POST_CMD,
			   UVERBS_ATTR_MIN_SIZE(sizeof(struct xrxe_ll_cmd)),
			   UA_MANDATORY),
	UVERBS_ATTR_PTR_OUT(XRXE_ATTR_LL_POST_RESULT, UVERBS_ATTR_TYPE(u32),
			    UA_MANDATORY));

ADD_UVERBS_METHODS(xrxe_qp, UVERBS_OBJECT_QP,
		   &UVERBS_METHOD(XRXE_METHOD_QP_LL_POST));

const struct uapi_definition xrxe_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_QP, &xrxe_qp),
	{},
};

/*
 * The buffer of a QP with low-latency posting: each entry holds a command
 * with the largest WQE the QP's kernel send queue holds.
 */
int xrxe_ll_init(struct rxe_qp *qp)
{
	struct xrxe_dbl *d = qp->dbl;

	d->ll_entry_size = offsetof(struct xrxe_ll_cmd, wqe) +
			   qp->sq.queue->elem_size;
	d->ll_buf = kcalloc(XRXE_LL_ENTRIES, d->ll_entry_size, GFP_KERNEL);
	return d->ll_buf ? 0 : -ENOMEM;
}

void xrxe_ll_cleanup(struct xrxe_dbl *d)
{
	kfree(d->ll_buf);
	d->ll_buf = NULL;
}
