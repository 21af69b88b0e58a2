// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libxrxe device and context: driver registration, device matching and the
 * verbs ops table.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <rdma/rdma_user_xrxe.h>

#include "xrxe.h"

/* rxe's uverbs ABI version, which xrxe keeps. */
#define XRXE_UVERBS_ABI_VERSION 2

/*
 * Only the driver id: xrxe devices report XRXE_DRIVER_ID, and no name match,
 * so that whatever a device is called, no other provider's device is taken.
 */
static const struct verbs_match_ent xrxe_match_table[] = {
	VERBS_DRIVER_ID(XRXE_DRIVER_ID),
	{},
};

static void xrxe_free_context(struct ibv_context *ibctx);

/*
 * The index in names (n of them) of environment variable var's value: 0,
 * the default, when it is unset, or unknown (said on stderr).
 */
static unsigned int env_choice(const char *var, const char *const *names,
			       unsigned int n)
{
	const char *env = getenv(var);
	unsigned int i;

	if (!env)
		return 0;
	for (i = 0; i < n; i++)
		if (!strcmp(env, names[i]))
			return i;
	fprintf(stderr, "libxrxe: %s='%s' is not one of", var, env);
	for (i = 0; i < n; i++)
		fprintf(stderr, " %s", names[i]);
	fprintf(stderr, "; using %s\n", names[0]);
	return 0;
}

/*
 * XRXE_LL_MODE: idle (default), always or never, for every QP of the
 * process (xrxedv_qp_set_ll_mode() changes one QP's).
 */
static enum xrxedv_ll_mode ll_mode_from_env(void)
{
	static const char *const names[] = {
		[XRXEDV_LL_IDLE] = "idle",
		[XRXEDV_LL_ALWAYS] = "always",
		[XRXEDV_LL_NEVER] = "never",
	};

	return env_choice("XRXE_LL_MODE", names, sizeof(names) / sizeof(names[0]));
}

/*
 * XRXE_OCU_MODE: module (default), static, dynamic or comp_vector, for
 * every doorbell-less QP of the process (xrxedv_qp_set_ocu() changes one
 * QP's).
 */
static enum xrxedv_ocu_mode ocu_mode_from_env(void)
{
	static const char *const names[] = {
		[XRXEDV_OCU_MODULE] = "module",
		[XRXEDV_OCU_STATIC] = "static",
		[XRXEDV_OCU_DYNAMIC] = "dynamic",
		[XRXEDV_OCU_COMP_VECTOR] = "comp_vector",
	};

	return env_choice("XRXE_OCU_MODE", names, sizeof(names) / sizeof(names[0]));
}

/*
 * XRXE_EMPTY_POLL: yield (default) or spin. This device's completions are
 * made by kernel work on the host's own CPUs, often the poller's CPU: a
 * poll that finds its CQ empty gives the CPU up (sched_yield(), which
 * returns at once when nothing else is runnable there) rather than spin
 * against the work it waits for.
 */
static bool yield_when_empty_from_env(void)
{
	static const char *const names[] = { "yield", "spin" };

	return env_choice("XRXE_EMPTY_POLL", names, sizeof(names) / sizeof(names[0])) == 0;
}

/*
 * XRXE_COALESCE: the largest message, in bytes, into which the kernel may
 * coalesce adjacent RDMA WRITEs of each doorbell-less RC and UC QP of the
 * process (0, the default: none; at most XRXE_COALESCE_MAX_BYTES).
 * xrxedv_qp_set_coalesce() changes one QP's.
 */
static uint32_t coalesce_from_env(void)
{
	const char *env = getenv("XRXE_COALESCE");
	unsigned long bytes;
	char *end;

	if (!env)
		return 0;
	errno = 0;
	bytes = strtoul(env, &end, 10);
	if (errno || end == env || *end || bytes > XRXE_COALESCE_MAX_BYTES) {
		fprintf(stderr,
			"libxrxe: XRXE_COALESCE='%s' is not a number of bytes from 0 to %u; using 0 (no coalescing)\n",
			env, XRXE_COALESCE_MAX_BYTES);
		return 0;
	}
	return bytes;
}

/*
 * What the kernel granted of the asked capabilities, checked against its
 * answer: another ABI version turns the extensions off, and without
 * engines no send queue can be doorbell-less.
 */
static uint32_t granted_caps(struct xrxe_context *ctx, uint32_t asked,
			     const struct xrxe_alloc_context_resp *resp)
{
	const uint32_t dbl = XRXE_CAP_DBL_SQ | XRXE_CAP_LL_SQ | XRXE_CAP_OCU |
			     XRXE_CAP_COALESCE | XRXE_CAP_FLUSH_DOMAIN;
	uint32_t caps;

	if (!asked)
		return 0;
	if (resp->abi_version != XRXE_ABI_VERSION) {
		verbs_warn(&ctx->ibv_ctx,
			   "kernel speaks xrxe ABI %u, not %u: xrxe extensions off\n",
			   resp->abi_version, XRXE_ABI_VERSION);
		return 0;
	}
	caps = resp->caps & asked;
	if ((caps & dbl) && !resp->engines) {
		verbs_warn(&ctx->ibv_ctx,
			   "kernel has no engines: send queues are classic\n");
		caps &= ~dbl;
	}
	return caps;
}

static const struct verbs_context_ops xrxe_ctx_ops = {
	.advise_mr = xrxe_advise_mr,
	.alloc_mw = xrxe_alloc_mw,
	.alloc_parent_domain = xrxe_alloc_parent_domain,
	.alloc_pd = xrxe_alloc_pd,
	.attach_mcast = xrxe_attach_mcast,
	.bind_mw = xrxe_bind_mw,
	.create_ah = xrxe_create_ah,
	.create_cq = xrxe_create_cq,
	.create_cq_ex = xrxe_create_cq_ex,
	.create_qp = xrxe_create_qp,
	.create_qp_ex = xrxe_create_qp_ex,
	.create_srq = xrxe_create_srq,
	.create_srq_ex = xrxe_create_srq_ex,
	.dealloc_mw = xrxe_dealloc_mw,
	.dealloc_pd = xrxe_dealloc_pd,
	.dereg_mr = xrxe_dereg_mr,
	.destroy_ah = xrxe_destroy_ah,
	.destroy_cq = xrxe_destroy_cq,
	.destroy_qp = xrxe_destroy_qp,
	.destroy_srq = xrxe_destroy_srq,
	.detach_mcast = xrxe_detach_mcast,
	.free_context = xrxe_free_context,
	.modify_qp = xrxe_modify_qp,
	.modify_qp_rate_limit = xrxe_modify_qp_rate_limit,
	.modify_srq = xrxe_modify_srq,
	.poll_cq = xrxe_poll_cq,
	.post_recv = xrxe_post_recv,
	.post_send = xrxe_post_send,
	.post_srq_recv = xrxe_post_srq_recv,
	.query_device_ex = xrxe_query_device,
	.query_port = xrxe_query_port,
	.query_qp = xrxe_query_qp,
	.query_rt_values = xrxe_query_rt_values,
	.query_srq = xrxe_query_srq,
	.reg_mr = xrxe_reg_mr,
	.req_notify_cq = xrxe_req_notify_cq,
	.rereg_mr = xrxe_rereg_mr,
	.resize_cq = xrxe_resize_cq,
};

static struct verbs_context *xrxe_alloc_context(struct ibv_device *ibdev,
						int cmd_fd, void *private_data)
{
	struct {
		struct ib_uverbs_get_context_resp ibv_resp;
		struct xrxe_alloc_context_resp drv;
	} resp = {};
	struct {
		struct ibv_get_context ibv_cmd;
		struct xrxe_alloc_context_cmd drv;
	} cmd = {};
	struct xrxe_context *ctx;
	const char *env;
	int ret;

	(void)private_data;
	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, ibv_ctx,
					   XRXE_DRIVER_ID);
	if (!ctx)
		return NULL;

	/*
	 * XRXE_DOORBELL_LESS=0: every send queue of this process is classic.
	 * Rate limits and completion timestamps hold there too.
	 */
	env = getenv("XRXE_DOORBELL_LESS");
	cmd.drv.abi_version = XRXE_ABI_VERSION;
	cmd.drv.caps = (env && !strcmp(env, "0") ? 0 :
			XRXE_CAP_DBL_SQ | XRXE_CAP_LL_SQ | XRXE_CAP_OCU |
			XRXE_CAP_COALESCE | XRXE_CAP_FLUSH_DOMAIN) |
		       XRXE_CAP_RATE_LIMIT | XRXE_CAP_CQ_TIMESTAMP;
	ctx->ll_mode = ll_mode_from_env();
	ctx->ocu_mode = ocu_mode_from_env();
	ctx->coalesce_max = coalesce_from_env();
	ctx->yield_when_empty = yield_when_empty_from_env();
	pthread_mutex_init(&ctx->fdom_lock, NULL);
	ret = ibv_cmd_get_context(&ctx->ibv_ctx, &cmd.ibv_cmd, sizeof(cmd),
#if XRXE_RDMA_CORE_SINCE(CTX_FD_ARR)
				  NULL,
#endif
				  &resp.ibv_resp, sizeof(resp));
	if (ret) {
		verbs_err(&ctx->ibv_ctx, "kernel refused the context (xrxe ABI %u): %s\n",
			  XRXE_ABI_VERSION, strerror(ret));
		goto err;
	}
	ctx->caps = granted_caps(ctx, cmd.drv.caps, &resp.drv);

	verbs_set_ops(&ctx->ibv_ctx, &xrxe_ctx_ops);
	return &ctx->ibv_ctx;

err:
	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
	return NULL;
}

static void xrxe_free_context(struct ibv_context *ibctx)
{
	struct xrxe_context *ctx = to_xrxe_ctx(ibctx);

	pthread_mutex_destroy(&ctx->fdom_lock);
	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
}

static struct verbs_device *xrxe_device_alloc(struct verbs_sysfs_dev *sysfs_dev)
{
	struct xrxe_device *dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	(void)sysfs_dev;
	return &dev->ibv_dev;
}

static void xrxe_uninit_device(struct verbs_device *verbs_device)
{
	free(container_of(verbs_device, struct xrxe_device, ibv_dev));
}

static const struct verbs_device_ops xrxe_dev_ops = {
	.name = "xrxe",
	.match_min_abi_version = XRXE_UVERBS_ABI_VERSION,
	.match_max_abi_version = XRXE_UVERBS_ABI_VERSION,
	.match_table = xrxe_match_table,
	.alloc_device = xrxe_device_alloc,
	.uninit_device = xrxe_uninit_device,
	.alloc_context = xrxe_alloc_context,
};
PROVIDER_DRIVER(xrxe, xrxe_dev_ops);
