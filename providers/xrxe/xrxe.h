/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libxrxe: the userspace verbs provider of xrxe devices.
 */
#ifndef XRXE_H
#define XRXE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_user_rxe.h>

#include "dbl.h"
#include "ll.h"
#include "driver_abi.h"
#include "queue.h"
#include "wqe.h"

/* Bytes of type up to the end of member. */
#define end_of(type, member) (offsetof(type, member) + sizeof(((type *)0)->member))

struct xrxe_device {
	struct verbs_device ibv_dev;
};

struct xrxe_context {
	struct verbs_context ibv_ctx;
	/* enum xrxe_caps the kernel granted. */
	uint32_t caps;
	/* Low-latency mode of new QPs (XRXE_LL_MODE). */
	enum xrxedv_ll_mode ll_mode;
	/* OCU mode of new doorbell-less QPs (XRXE_OCU_MODE). */
	enum xrxedv_ocu_mode ocu_mode;
	/* Write coalescing of new doorbell-less QPs (XRXE_COALESCE). */
	uint32_t coalesce_max;
	/* A poll of an empty CQ yields the CPU (XRXE_EMPTY_POLL). */
	bool yield_when_empty;
	/* Flush domains (dv.c): numbers handed out, members, under the lock. */
	pthread_mutex_t fdom_lock;
	uint32_t fdom_last_id;
};

struct xrxe_parent_domain;

struct xrxe_pd {
	struct ibv_pd ibv_pd;
	/* Non-NULL for a parent domain: the one containing this PD. */
	struct xrxe_parent_domain *parent;
	/* Parent domains built on this PD, which must go first. */
	atomic_uint users;
};

/*
 * A parent domain: a PD that stands for its protection domain towards the
 * kernel and carries the application's allocator for the provider's own
 * memory of the QPs, CQs and SRQs created on it.
 */
struct xrxe_parent_domain {
	struct xrxe_pd xpd;
	struct ibv_pd *pd;
	void *pd_context;
	void *(*alloc)(struct ibv_pd *pd, void *pd_context, size_t size,
		       size_t alignment, uint64_t resource_type);
	void (*free)(struct ibv_pd *pd, void *pd_context, void *ptr,
		     uint64_t resource_type);
};

/* Provider memory taken from a parent domain's allocator, if it has one. */
struct xrxe_obj_mem {
	struct xrxe_parent_domain *parent;
	uint64_t resource_type;
	/* The application's allocator gave this memory: give it back there. */
	int custom;
};

struct xrxe_cq {
	struct verbs_cq vcq;
	struct xrxe_ring ring;
	pthread_spinlock_t lock;
	/* The context's XRXE_EMPTY_POLL choice when the CQ was created. */
	bool yield_when_empty;
	/* Entries are struct xrxe_cqe, stamped by the kernel. */
	bool timestamps;
	/* ibv_start_poll() .. ibv_end_poll(): the CQE being read, and its index. */
	struct ib_uverbs_wc *cur;
	uint32_t cur_index;
	struct xrxe_obj_mem mem;
};

/* A work queue shared with the kernel: SQ, RQ or SRQ. */
struct xrxe_wq {
	struct xrxe_ring ring;
	pthread_spinlock_t lock;
	/* Our private producer index: the shared copy is only written. */
	uint32_t producer;
	uint32_t max_sge;
	uint32_t max_inline;
};

struct xrxe_qp {
	struct verbs_qp vqp;
	struct xrxe_wq rq;
	/* Classic: sq.ring is rxe's send queue. Doorbell-less: dbl.ring, and
	 * sq.producer counts posts without wrapping.
	 */
	struct xrxe_wq sq;
	struct xrxe_dbl_sq dbl;
	/* Ring the doorbell on every post even when the engine is awake. */
	bool dbl_always_ring;
	uint64_t doorbells;
	uint64_t doorbells_avoided;
	/*
	 * Low-latency posting: NULL without; the command being sent, its
	 * length, and whether a post owns it (under sq.lock) until the
	 * command returns.
	 */
	struct xrxe_ll_cmd *ll_cmd;
	size_t ll_cmd_len;
	bool ll_cmd_busy;
	struct xrxe_ll_state ll;
	uint64_t ll_posts;
	uint64_t ll_accepted;
	uint64_t ll_dropped;
	uint64_t ll_errors;
	uint32_t ssn;
	/* ibv_wr_start() .. ibv_wr_complete(): first and next slot, error. */
	uint32_t wr_start;
	struct rxe_send_wqe *wr_cur;
	int wr_err;
	/* Created with XRXEDV_QP_EX_WITH_FLUSH: xrxedv_wr_flush() may post. */
	bool wr_flush_ok;
	/* May post XRXEDV_SEND_DOMAIN_FLUSH: doorbell-less RC, kernel cap. */
	bool domain_flush_ok;
	/* Its flush domain, under the context's fdom_lock. */
	struct xrxedv_flush_domain *fdom;
	struct xrxe_obj_mem mem;
};

struct xrxe_srq {
	struct verbs_srq vsrq;
	struct xrxe_wq rq;
	struct xrxe_obj_mem mem;
};

struct xrxe_ah {
	struct ibv_ah ibv_ah;
	uint32_t ah_num;
};

static inline struct xrxe_context *to_xrxe_ctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct xrxe_context, ibv_ctx.context);
}

/* The context libibverbs' log takes: verbs_err(to_verbs_ctx(ctx), ...). */
static inline struct verbs_context *to_verbs_ctx(struct ibv_context *ibctx)
{
	return &to_xrxe_ctx(ibctx)->ibv_ctx;
}

static inline struct xrxe_pd *to_xrxe_pd(struct ibv_pd *ibpd)
{
	return container_of(ibpd, struct xrxe_pd, ibv_pd);
}

static inline struct xrxe_cq *to_xrxe_cq(struct ibv_cq *ibcq)
{
	return container_of(ibcq, struct xrxe_cq, vcq.cq);
}

static inline struct xrxe_cq *to_xrxe_cq_ex(struct ibv_cq_ex *ibcq)
{
	return container_of(ibcq, struct xrxe_cq, vcq.cq_ex);
}

static inline struct xrxe_qp *to_xrxe_qp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct xrxe_qp, vqp.qp);
}

static inline struct xrxe_qp *to_xrxe_qp_ex(struct ibv_qp_ex *ibqp)
{
	return container_of(ibqp, struct xrxe_qp, vqp.qp_ex);
}

static inline struct xrxe_srq *to_xrxe_srq(struct ibv_srq *ibsrq)
{
	return container_of(ibsrq, struct xrxe_srq, vsrq.srq);
}

static inline struct xrxe_ah *to_xrxe_ah(struct ibv_ah *ibah)
{
	return container_of(ibah, struct xrxe_ah, ibv_ah);
}

/* The parent domain behind a PD, or NULL for a plain PD. */
static inline struct xrxe_parent_domain *xrxe_parent_of(struct ibv_pd *ibpd)
{
	return ibpd ? to_xrxe_pd(ibpd)->parent : NULL;
}

/* The protection domain the kernel knows for a PD or parent domain. */
static inline struct ibv_pd *xrxe_real_pd(struct ibv_pd *ibpd)
{
	struct xrxe_parent_domain *parent = xrxe_parent_of(ibpd);

	return parent ? parent->pd : ibpd;
}

/* The resource_type a parent domain's allocator is called with. */
enum {
	XRXE_RES_TYPE_QP = 1,
	XRXE_RES_TYPE_CQ = 2,
	XRXE_RES_TYPE_SRQ = 3,
};

/*
 * Zeroed memory for a provider object created on pd (NULL for none): from
 * its parent domain's allocator if it has one. mem records how to free it.
 */
void *xrxe_obj_alloc(struct ibv_pd *pd, size_t size, uint64_t resource_type,
		     struct xrxe_obj_mem *mem);
void xrxe_obj_free(void *ptr, const struct xrxe_obj_mem *mem);

/* queue.c: 0 or an errno, and nothing (new) mapped on failure. */
/*
 * The ring mi describes, whose elements must hold min_elem_size bytes, in
 * place of ring's current one if it has one (a resize moved it; on
 * failure the old one stays).
 */
int xrxe_ring_map(struct ibv_context *ctx, struct xrxe_ring *ring,
		  const struct mminfo *mi, size_t min_elem_size);
void xrxe_ring_unmap(struct xrxe_ring *ring);
/* The same for a work queue, whose producer index we then keep (not the lock). */
int xrxe_wq_map(struct ibv_context *ctx, struct xrxe_wq *wq,
		const struct mminfo *mi, size_t min_elem_size);
/* A doorbell-less ring whose slots hold payload bytes after the WQE. */
int xrxe_dbl_map(struct ibv_context *ctx, struct xrxe_dbl_sq *d,
		 const struct xrxe_create_qp_resp *resp, uint64_t payload);
void xrxe_dbl_unmap(struct xrxe_dbl_sq *d);

/* verbs.c */
int xrxe_query_rt_values(struct ibv_context *context, struct ibv_values_ex *values);
int xrxe_query_device(struct ibv_context *context,
		      const struct ibv_query_device_ex_input *input,
		      struct ibv_device_attr_ex *attr, size_t attr_size);
int xrxe_query_port(struct ibv_context *context, uint8_t port,
		    struct ibv_port_attr *attr);
struct ibv_pd *xrxe_alloc_pd(struct ibv_context *context);
struct ibv_pd *xrxe_alloc_parent_domain(struct ibv_context *context,
					struct ibv_parent_domain_init_attr *attr);
int xrxe_dealloc_pd(struct ibv_pd *pd);
int xrxe_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		   uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge);
struct ibv_mr *xrxe_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			   uint64_t hca_va, int access);
int xrxe_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		  void *addr, size_t length, int access);
int xrxe_dereg_mr(struct verbs_mr *vmr);
struct ibv_mw *xrxe_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int xrxe_dealloc_mw(struct ibv_mw *mw);
int xrxe_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *mw_bind);
struct ibv_ah *xrxe_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);
int xrxe_destroy_ah(struct ibv_ah *ah);
int xrxe_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid);
int xrxe_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid);

/* cq.c */
struct ibv_cq *xrxe_create_cq(struct ibv_context *context, int cqe,
			      struct ibv_comp_channel *channel, int comp_vector);
struct ibv_cq_ex *xrxe_create_cq_ex(struct ibv_context *context,
				    struct ibv_cq_init_attr_ex *attr);
int xrxe_resize_cq(struct ibv_cq *cq, int cqe);
int xrxe_destroy_cq(struct ibv_cq *cq);
int xrxe_poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc);
int xrxe_req_notify_cq(struct ibv_cq *cq, int solicited_only);
void xrxe_cq_clean(struct xrxe_cq *cq, uint32_t qpn);

/* qp.c */
struct ibv_qp *xrxe_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
struct ibv_qp *xrxe_create_qp_ex(struct ibv_context *context,
				 struct ibv_qp_init_attr_ex *attr);
int xrxe_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		  struct ibv_qp_init_attr *init_attr);
int xrxe_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask);
int xrxe_modify_qp_drv(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		       int attr_mask, const struct xrxe_modify_qp_cmd *drv);
int xrxe_modify_qp_drv_only(struct ibv_qp *qp, const struct xrxe_modify_qp_cmd *drv);
int xrxe_modify_qp_rate_limit(struct ibv_qp *qp,
			      struct ibv_qp_rate_limit_attr *attr);
int xrxe_destroy_qp(struct ibv_qp *qp);
int xrxe_qp_set_coalesce(struct xrxe_qp *qp, uint32_t max_bytes);
void xrxe_qp_left_flush_domain(struct xrxe_qp *qp);
int xrxe_qp_set_ocu(struct xrxe_qp *qp, enum xrxedv_ocu_mode mode,
		    uint32_t domain);

/* post.c */
int xrxe_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr);
int xrxe_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr);
/* Post a receive WR list to a QP's RQ or an SRQ, up to the first bad WR. */
int xrxe_post_recv_list(struct xrxe_wq *rq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr);
/* Under the SQ lock: the next free send slot, or NULL if the queue is full. */
struct rxe_send_wqe *xrxe_sq_peek(struct xrxe_qp *qp);
void xrxe_sq_advance(struct xrxe_qp *qp);
/* Publish the slots from start to the producer and ring if needed. */
enum xrxe_sq_kick {
	XRXE_SQ_KICK_NONE,
	XRXE_SQ_KICK_DOORBELL,
	XRXE_SQ_KICK_LL,
};

enum xrxe_sq_kick xrxe_sq_submit(struct xrxe_qp *qp, uint32_t start);
int xrxe_sq_kick(struct xrxe_qp *qp, enum xrxe_sq_kick kick);
int xrxe_sq_doorbell(struct xrxe_qp *qp);

/* wr.c: the ibv_wr_* builders of the send_ops_flags the QP was created with. */
void xrxe_qp_set_wr_ops(struct xrxe_qp *qp, uint64_t flags);

/* ll.c */
int xrxe_ll_post(struct xrxe_qp *qp);

/* srq.c */
struct ibv_srq *xrxe_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr);
struct ibv_srq *xrxe_create_srq_ex(struct ibv_context *context,
				   struct ibv_srq_init_attr_ex *attr);
int xrxe_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr, int attr_mask);
int xrxe_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr);
int xrxe_destroy_srq(struct ibv_srq *srq);
int xrxe_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr);

#endif /* XRXE_H */
