// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libxrxe verbs without a data path: device and port queries, protection
 * and parent domains, memory regions and windows, address handles and
 * multicast.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "xrxe.h"

int xrxe_query_device(struct ibv_context *context,
		      const struct ibv_query_device_ex_input *input,
		      struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	uint64_t fw;
	int ret;

	ret = ibv_cmd_query_device_any(context, input, attr, attr_size, &resp,
				       &resp_size);
	if (ret)
		return ret;

	fw = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u.%u", (unsigned int)(fw >> 32) & 0xffff,
		 (unsigned int)(fw >> 16) & 0xffff, (unsigned int)fw & 0xffff);

	/* The kernel's response has no pacing caps: they are the ABI's. */
	if (attr_size >= end_of(struct ibv_device_attr_ex, packet_pacing_caps) &&
	    (to_xrxe_ctx(context)->caps & XRXE_CAP_RATE_LIMIT)) {
		attr->packet_pacing_caps.qp_rate_limit_min = XRXE_RATE_LIMIT_MIN_KBPS;
		attr->packet_pacing_caps.qp_rate_limit_max = XRXE_RATE_LIMIT_MAX_KBPS;
		attr->packet_pacing_caps.supported_qpts = 1 << IBV_QPT_RC |
			1 << IBV_QPT_UC | 1 << IBV_QPT_UD;
	}
	return 0;
}

/*
 * The device's clock is the kernel's CLOCK_MONOTONIC, ticking at 1 GHz
 * (hca_core_clock): its raw value is nanoseconds, in tv_nsec as
 * ibv_query_rt_values_ex() carries a clock's ticks.
 */
int xrxe_query_rt_values(struct ibv_context *context, struct ibv_values_ex *values)
{
	struct timespec now;
	uint32_t asked = values->comp_mask;

	if (!(to_xrxe_ctx(context)->caps & XRXE_CAP_CQ_TIMESTAMP))
		return EOPNOTSUPP;
	values->comp_mask = 0;
	if (asked & IBV_VALUES_MASK_RAW_CLOCK) {
		if (clock_gettime(CLOCK_MONOTONIC, &now))
			return errno;
		values->raw_clock.tv_sec = 0;
		values->raw_clock.tv_nsec = now.tv_sec * 1000000000L + now.tv_nsec;
		values->comp_mask |= IBV_VALUES_MASK_RAW_CLOCK;
	}
	return 0;
}

int xrxe_query_port(struct ibv_context *context, uint8_t port,
		    struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd;

	return ibv_cmd_query_port(context, port, attr, &cmd, sizeof(cmd));
}

struct ibv_pd *xrxe_alloc_pd(struct ibv_context *context)
{
	struct ib_uverbs_alloc_pd_resp resp;
	struct ibv_alloc_pd cmd;
	struct xrxe_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_alloc_pd(context, &pd->ibv_pd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}
	return &pd->ibv_pd;
}

/*
 * A parent domain exists only in userspace: it stands for its protection
 * domain towards the kernel and lends its allocator to our objects.
 */
struct ibv_pd *xrxe_alloc_parent_domain(struct ibv_context *context,
					struct ibv_parent_domain_init_attr *attr)
{
	struct xrxe_parent_domain *parent;

	if (!attr->pd || xrxe_parent_of(attr->pd) ||
	    attr->comp_mask & ~(IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
				IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)) {
		verbs_err(to_verbs_ctx(context),
			  "a parent domain needs a plain PD and known comp_mask bits (%#x)\n",
			  attr->comp_mask);
		errno = EINVAL;
		return NULL;
	}
	if ((attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) &&
	    (!attr->alloc || !attr->free)) {
		verbs_err(to_verbs_ctx(context), "allocators need both alloc and free\n");
		errno = EINVAL;
		return NULL;
	}

	parent = calloc(1, sizeof(*parent));
	if (!parent) {
		errno = ENOMEM;
		return NULL;
	}
	parent->xpd.parent = parent;
	parent->xpd.ibv_pd.context = context;
	parent->xpd.ibv_pd.handle = attr->pd->handle;
	parent->pd = attr->pd;
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) {
		parent->alloc = attr->alloc;
		parent->free = attr->free;
	}
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)
		parent->pd_context = attr->pd_context;
	/* A count only (dealloc_pd's EBUSY): it publishes no other memory. */
	atomic_fetch_add(&to_xrxe_pd(attr->pd)->users, 1);
	return &parent->xpd.ibv_pd;
}

int xrxe_dealloc_pd(struct ibv_pd *ibpd)
{
	struct xrxe_pd *pd = to_xrxe_pd(ibpd);
	int ret;

	if (pd->parent) {
		atomic_fetch_sub(&to_xrxe_pd(pd->parent->pd)->users, 1);
		free(pd->parent);
		return 0;
	}
	/* The kernel cannot see the parent domains that still use this PD. */
	if (atomic_load(&pd->users))
		return EBUSY;
	ret = ibv_cmd_dealloc_pd(ibpd);
	if (!ret)
		free(pd);
	return ret;
}

void *xrxe_obj_alloc(struct ibv_pd *pd, size_t size, uint64_t resource_type,
		     struct xrxe_obj_mem *mem)
{
	struct xrxe_parent_domain *parent = xrxe_parent_of(pd);
	void *p = IBV_ALLOCATOR_USE_DEFAULT;

	mem->parent = parent;
	mem->resource_type = resource_type;
	mem->custom = 0;
	if (parent && parent->alloc)
		p = parent->alloc(&parent->xpd.ibv_pd, parent->pd_context, size,
				  64, resource_type);
	if (p == IBV_ALLOCATOR_USE_DEFAULT) {
		p = calloc(1, size);
	} else if (p) {
		mem->custom = 1;
		memset(p, 0, size);
	}
	if (!p)
		errno = ENOMEM;
	return p;
}

void xrxe_obj_free(void *ptr, const struct xrxe_obj_mem *mem)
{
	struct xrxe_parent_domain *parent = mem->parent;

	if (mem->custom)
		parent->free(&parent->xpd.ibv_pd, parent->pd_context, ptr,
			     mem->resource_type);
	else
		free(ptr);
}

struct ibv_mr *xrxe_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			   uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ibv_reg_mr cmd;
	struct verbs_mr *vmr;
	int ret;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_reg_mr(xrxe_real_pd(pd), addr, length, hca_va, access, vmr,
			     &cmd, sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}

int xrxe_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		  void *addr, size_t length, int access)
{
	struct ib_uverbs_rereg_mr_resp resp;
	struct ibv_rereg_mr cmd;

	/* pd means something only with IBV_REREG_MR_CHANGE_PD. */
	if (flags & IBV_REREG_MR_CHANGE_PD)
		pd = xrxe_real_pd(pd);
	return ibv_cmd_rereg_mr(vmr, flags, addr, length, (uintptr_t)addr, access,
				pd, &cmd, sizeof(cmd), &resp, sizeof(resp));
}

/*
 * Prefetch of an on-demand paging MR's pages. The kernel does the work in
 * the caller's time, whether it asked to wait (IBV_ADVISE_MR_FLAG_FLUSH)
 * or not.
 */
int xrxe_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		   uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge)
{
	return ibv_cmd_advise_mr(xrxe_real_pd(pd), advice, flags, sg_list,
				 num_sge);
}

int xrxe_dereg_mr(struct verbs_mr *vmr)
{
	int ret;

	ret = ibv_cmd_dereg_mr(vmr);
	if (!ret)
		free(vmr);
	return ret;
}

struct ibv_mw *xrxe_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_alloc_mw cmd;
	struct ibv_mw *mw;
	int ret;

	mw = calloc(1, sizeof(*mw));
	if (!mw) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_alloc_mw(xrxe_real_pd(pd), type, mw, &cmd, sizeof(cmd),
			       &resp, sizeof(resp));
	if (ret) {
		free(mw);
		errno = ret;
		return NULL;
	}
	return mw;
}

int xrxe_dealloc_mw(struct ibv_mw *mw)
{
	int ret;

	ret = ibv_cmd_dealloc_mw(mw);
	if (!ret)
		free(mw);
	return ret;
}

/* The key of a type 1 window after a bind: same index, next 8-bit tag. */
static uint32_t next_rkey(uint32_t rkey)
{
	return (rkey & 0xffffff00) | ((rkey + 1) & 0xff);
}

/* ibv_bind_mw(3): a BIND_MW work request on qp; the new rkey goes into mw. */
int xrxe_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_mw_bind_info *info = &mw_bind->bind_info;
	int ret;

	if (mw->type != IBV_MW_TYPE_1)
		return EINVAL;
	if (info->length && (!info->mr || mw->pd != info->mr->pd))
		return EINVAL;
	/* The access flags are the kernel's to judge, as it binds the window. */
	wr.opcode = IBV_WR_BIND_MW;
	wr.wr_id = mw_bind->wr_id;
	wr.send_flags = mw_bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = next_rkey(mw->rkey);
	wr.bind_mw.bind_info = *info;
	ret = xrxe_post_send(qp, &wr, &bad);
	if (ret)
		return ret;
	mw->rkey = wr.bind_mw.rkey;
	return 0;
}

struct ibv_ah *xrxe_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct {
		struct ib_uverbs_create_ah_resp ibv_resp;
		struct rxe_create_ah_resp drv;
	} resp = {};
	struct xrxe_ah *ah;
	int ret;

	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_create_ah(xrxe_real_pd(pd), &ah->ibv_ah, attr,
				&resp.ibv_resp, sizeof(resp));
	if (ret || !resp.drv.ah_num) {
		/* Every kernel xrxe runs on gives UD sends an AH number. */
		if (!ret) {
			verbs_err(to_verbs_ctx(pd->context),
				  "the kernel gave the AH no number for UD sends\n");
			ibv_cmd_destroy_ah(&ah->ibv_ah);
		}
		free(ah);
		errno = ret ? ret : EOPNOTSUPP;
		return NULL;
	}
	ah->ah_num = resp.drv.ah_num;
	return &ah->ibv_ah;
}

int xrxe_destroy_ah(struct ibv_ah *ibah)
{
	struct xrxe_ah *ah = to_xrxe_ah(ibah);
	int ret;

	ret = ibv_cmd_destroy_ah(ibah);
	if (!ret)
		free(ah);
	return ret;
}

int xrxe_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	return ibv_cmd_attach_mcast(qp, gid, lid);
}

int xrxe_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	return ibv_cmd_detach_mcast(qp, gid, lid);
}
