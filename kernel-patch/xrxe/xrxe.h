/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What rxe's files call in xrxe's: the doorbell-less send queues and their
 * engines and OCUs, low-latency posting, pacing, flush domains, write
 * coalescing and the stage counts (rxe_loc.h includes this header last).
 */

#ifndef XRXE_H
#define XRXE_H

#include <rdma/uverbs_ioctl.h>

struct dentry;

/* xrxe_sq.c: doorbell-less send queues and their engines */
/* xrxe_stage.c */
int xrxe_stage_add(struct rxe_dev *rxe);
void xrxe_stage_del(struct rxe_dev *rxe);
void xrxe_stage_sum(struct rxe_dev *rxe, struct xrxe_stage_counts *sum);
void xrxe_stage_debugfs(struct dentry *dir);

int xrxe_engines_start(void);
void xrxe_engines_stop(void);
unsigned int xrxe_num_engines(void);
int xrxe_owners_alloc(struct rxe_ucontext *uc);
void xrxe_owners_free(struct rxe_ucontext *uc);
int xrxe_sq_create(struct rxe_qp *qp, struct rxe_ucontext *uc);
int xrxe_sq_init(struct rxe_qp *qp, bool ll, struct ib_udata *udata,
		  struct xrxe_create_qp_resp __user *uresp);
void xrxe_sq_cleanup(struct rxe_qp *qp);
void xrxe_count_add(struct rxe_qp *qp, enum xrxe_qp_status_counters qc,
		    enum rxe_counters dc, u64 n);
void xrxe_count(struct rxe_qp *qp, enum xrxe_qp_status_counters qc,
		enum rxe_counters dc);
u64 xrxe_wqe_payload(const struct rxe_send_wqe *wqe, u32 mask);
const char *xrxe_sq_validate(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
			      size_t copied);
int xrxe_engine_ring(struct rxe_qp *qp, const struct xrxe_ll_cmd *ll, size_t len);
void xrxe_engine_doorbell(struct rxe_qp *qp);
void xrxe_sq_detach(struct rxe_qp *qp);
int xrxe_sq_modify_check(struct rxe_qp *qp, struct ib_udata *udata, int mask,
			  struct xrxe_modify_qp_cmd *cmd);
int xrxe_sq_modify(struct rxe_qp *qp, struct rxe_ucontext *uc,
		    const struct xrxe_modify_qp_cmd *cmd,
		     int mask);
void xrxe_sq_reset_begin(struct rxe_qp *qp);
void xrxe_sq_reset_end(struct rxe_qp *qp);
void xrxe_sq_complete(struct rxe_qp *qp, u32 n, u64 cost);

/* Load a doorbell-less WQE put on its engine: dbl_take() keeps it there. */
static inline u32 xrxe_sq_wqe_cost(const struct rxe_send_wqe *wqe)
{
	return wqe->dma.reserved;
}
void xrxe_ocu_pause(struct rxe_qp *qp);
void xrxe_engine_resume(struct rxe_qp *qp);
void xrxe_engine_wake(struct rxe_qp *qp);
bool xrxe_sq_slot_posted(struct xrxe_dbl *d, u32 index);
u32 xrxe_sq_pending(struct xrxe_dbl *d, u32 index);
bool xrxe_engine_sched(struct rxe_qp *qp);
bool xrxe_in_engine(void);
bool xrxe_sq_next_posted(struct xrxe_dbl *d, u32 *opcode, u32 *send_flags);

/* xrxe_ll.c: low-latency posting into a per-QP buffer */
extern u32 xrxe_ll_drop_every;
extern const struct uapi_definition xrxe_uapi_defs[];
int xrxe_ll_init(struct rxe_qp *qp);
void xrxe_ll_cleanup(struct xrxe_dbl *d);

/* xrxe_pace.c */
extern u32 xrxe_pace_delay_us;
void xrxe_pace_init(struct rxe_qp *qp);
u32 xrxe_pace_wire_bytes(const struct rxe_av *av, int opcode, u32 payload);
bool xrxe_pace_may_send(struct rxe_qp *qp, u32 bytes, bool *last);
int xrxe_pace_check(struct rxe_qp *qp, u32 rate_kbps, u32 max_burst_sz,
		    u32 typical_pkt_sz);
void xrxe_pace_set(struct rxe_qp *qp, u32 rate_kbps, u32 max_burst_sz,
		   u32 typical_pkt_sz);
u32 xrxe_pace_rate(struct rxe_qp *qp);
bool xrxe_pace_paused(struct rxe_qp *qp);
void xrxe_pace_stop(struct rxe_qp *qp);


/* xrxe_fdom.c: flush domains of doorbell-less send queues */
void xrxe_fdom_uc_init(struct rxe_ucontext *uc);
void xrxe_fdom_uc_fini(struct rxe_ucontext *uc);
int xrxe_fdom_set(struct rxe_qp *qp, struct rxe_ucontext *uc, u32 id);
void xrxe_fdom_detach(struct rxe_qp *qp);
void xrxe_fdom_reset(struct rxe_qp *qp);
bool xrxe_fdom_must_wait(struct rxe_qp *qp, struct rxe_send_wqe *wqe);
bool xrxe_fdom_waiting(struct rxe_qp *qp);
void xrxe_fdom_completed(struct rxe_qp *qp);
extern u32 xrxe_fdom_delay_us;
void xrxe_fdom_delay(void);

/*
 * The flush-domain test knob's delay: every engine turn passes one, so
 * with the knob off it costs a load and a branch, not a call.
 */
static inline void xrxe_fdom_test_delay(void)
{
	if (unlikely(READ_ONCE(xrxe_fdom_delay_us)))
		xrxe_fdom_delay();
}

/* xrxe_coalesce.c: write coalescing of doorbell-less send queues */
u32 xrxe_coalesce_merged(struct rxe_qp *qp, struct rxe_send_wqe *wqe);
u32 xrxe_coalesce_own_length(struct rxe_qp *qp, struct rxe_send_wqe *wqe);
void xrxe_coalesce_sent(struct rxe_qp *qp);
void xrxe_coalesce(struct rxe_qp *qp, struct rxe_send_wqe *wqe);
int xrxe_coalesce_copy(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
		       u8 *dst, u32 payload);

/*
 * Count a run of stage s of qp on this CPU, as the same CPU as the last
 * run of stage before for qp (s itself for a stage compared with its own
 * last run) if it is. At most two increments of this CPU's counts, no
 * lock and no atomic on a shared line: a run preempted and moved between
 * reading its CPU's number and an increment counts it on the CPU it moved
 * to (rare, and the device's sums still hold).
 */
static inline void xrxe_stage_count(struct rxe_qp *qp, enum xrxe_stage s,
				    enum xrxe_stage before)
{
	struct xrxe_stage_counts __percpu *c;
	int cpu = raw_smp_processor_id();

	c = to_rdev(qp->ibqp.device)->stage_counts;
	this_cpu_inc(c->runs[s]);
	if (READ_ONCE(qp->xrxe_stage_cpu[before]) == cpu)
		this_cpu_inc(c->same_cpu[s]);
	WRITE_ONCE(qp->xrxe_stage_cpu[s], cpu);
}

/*
 * Stage s of task's QP did work in the task's current pass: a run, counted
 * at its first step. Only the task's runner reads or writes
 * xrxe_stages_left.
 */
static inline void xrxe_stage_pass(struct rxe_task *task, enum xrxe_stage s,
				   enum xrxe_stage before)
{
	if (!(task->xrxe_stages_left & BIT(s)))
		return;
	task->xrxe_stages_left &= ~BIT(s);
	xrxe_stage_count(task->qp, s, before);
}

#endif /* XRXE_H */
