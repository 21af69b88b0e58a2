/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The private libibverbs provider interface, for the rdma-core releases
 * from 44 (Debian 12) to 65 (Debian sid), Debian 13's 56 among them.
 *
 * Distributions ship only the public verbs headers, but a provider plugin
 * is loaded by libibverbs and talks to it through private structures and
 * helpers. This header restates that interface from the facts of the
 * rdma-core ABI (layouts, field order, prototypes) of each release it
 * knows, so the provider builds against an installed libibverbs-dev. Every
 * name matches the one in rdma-core's <infiniband/driver.h> and
 * <infiniband/kern-abi.h>, so an in-tree rdma-core build can use those
 * instead without touching provider code.
 *
 * The private interface is not stable: releases add operations, grow the
 * structures the library reads and change helpers' arguments, and bump the
 * private symbol version only now and then. So the build names the
 * release it builds against (XRXE_RDMA_CORE_VERSION, below), every
 * declaration that differs between releases follows it, and a library
 * built for one release range is only for that range.
 *
 * libibverbs reads several of these structures by layout, and a mismatch
 * is silent memory corruption at run time, so the end of this file pins
 * the x86_64 layout of each release range with static assertions. The
 * numbers come from compiling against the real headers of each range's
 * releases.
 *
 * Only what this provider uses is declared, and all of it is exported by
 * libibverbs.so.1: helpers that rdma-core declares but does not export
 * (for example verbs_init_context and ibv_cmd_alloc_async_fd) cannot be
 * used by a plugin. A structure the library reads is declared whole.
 */
#ifndef XRXE_DRIVER_ABI_H
#define XRXE_DRIVER_ABI_H

#ifdef INFINIBAND_DRIVER_H
#error "driver_abi.h replaces <infiniband/driver.h>; include only one of them"
#endif

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#define __verbs_abi_str(x)	#x
#define __verbs_abi_xstr(x)	__verbs_abi_str(x)

/* -------------------------------------------------------------------------
 * Which rdma-core
 *
 * XRXE_RDMA_CORE_VERSION is the major version of the rdma-core release
 * whose headers and libibverbs the build uses (CMake takes it from
 * pkg-config's libibverbs version, 1.<minor>.<release>.<patch>).
 * IBVERBS_PABI_VERSION is the private ABI generation of that libibverbs
 * (CMake's XRXE_IBVERBS_PRIVATE_ABI, read from its symbol versions): it
 * dlopen()s providers as lib<name>-rdmav<N>.so with its own N, and the
 * registration entry point carries the same number (see
 * verbs_register_driver below).
 *
 * What changed, by the first release that has it; a release between two
 * of them has the declarations of the older one:
 *
 *   45  struct ibv_qp_ex gains wr_flush, so verbs_qp's own fields move by 8
 *   49  struct ibv_port_attr gains active_speed_ex (52 to 56 bytes)
 *   57  IBVERBS_PRIVATE_57; ibv_cmd_get_context() takes an fd array
 *   59  IBVERBS_PRIVATE_59; DMA handle operations and reg_mr_ex (3 in
 *       verbs_context, 3 in verbs_context_ops); ibv_cmd_create_cq_ex()
 *       takes provider attributes
 *   62  dm_export_dmabuf_fd and query_port_speed (1 in verbs_context,
 *       2 in verbs_context_ops), with the private ABI unchanged
 *   64  IBVERBS_PRIVATE_64; the buffer operations (2 more in each, and
 *       free_buf in verbs_context_ops); ibv_cmd_create_qp_ex2() takes a
 *       command buffer
 *   65  IBVERBS_PRIVATE_65; completion counter operations (10 in
 *       verbs_context_ops)
 *
 * So the private ABI is 34 for 44 to 56, 57 for 57 and 58, 59 for 59 to
 * 63, 64 for 64 and 65 for 65. verbs_context_ops is sorted by name, so an
 * added operation moves the ones after it, and verbs_context's own fields
 * move with its size: a provider built for one range misreads, or is
 * misread by, the libibverbs of another even where the private ABI number
 * stayed (44 under 45 to 56; 59 to 61 under 62 and 63). A build is for
 * the range it was built in, and what installs it must say so.
 */
#define XRXE_RDMA_CORE_MIN		44
#define XRXE_RDMA_CORE_MAX		65

#define XRXE_RDMA_CORE_QP_EX_FLUSH	45
#define XRXE_RDMA_CORE_PORT_SPEED_EX	49
#define XRXE_RDMA_CORE_CTX_FD_ARR	57
#define XRXE_RDMA_CORE_DMAH		59
#define XRXE_RDMA_CORE_DMABUF_EXPORT	62
#define XRXE_RDMA_CORE_BUF		64
#define XRXE_RDMA_CORE_COMP_CNTR	65

/* Whether the release built against has change c (a name above). */
#define XRXE_RDMA_CORE_SINCE(c)						\
	(XRXE_RDMA_CORE_VERSION >= XRXE_RDMA_CORE_##c)

/* A compile error whose words are macro expanded, as #error's are not. */
#define __verbs_abi_error(words)					\
	_Pragma(__verbs_abi_xstr(GCC error __verbs_abi_xstr(words)))

#if !defined(XRXE_RDMA_CORE_VERSION)
#error "XRXE_RDMA_CORE_VERSION (the rdma-core release) comes from the build"
#elif XRXE_RDMA_CORE_VERSION < XRXE_RDMA_CORE_MIN || \
	XRXE_RDMA_CORE_VERSION > XRXE_RDMA_CORE_MAX
__verbs_abi_error(rdma-core XRXE_RDMA_CORE_VERSION is not a release driver_abi.h knows)
#error "driver_abi.h knows rdma-core 44 to 65: add the layouts of this release first"
#elif XRXE_RDMA_CORE_VERSION < 57
#define XRXE_RDMA_CORE_PABI		34
#elif XRXE_RDMA_CORE_VERSION < 59
#define XRXE_RDMA_CORE_PABI		57
#elif XRXE_RDMA_CORE_VERSION < 64
#define XRXE_RDMA_CORE_PABI		59
#elif XRXE_RDMA_CORE_VERSION < 65
#define XRXE_RDMA_CORE_PABI		64
#else
#define XRXE_RDMA_CORE_PABI		65
#endif

#ifndef IBVERBS_PABI_VERSION
#error "IBVERBS_PABI_VERSION comes from the build (XRXE_IBVERBS_PRIVATE_ABI)"
#elif defined(XRXE_RDMA_CORE_PABI) && IBVERBS_PABI_VERSION != XRXE_RDMA_CORE_PABI
__verbs_abi_error(libibverbs private ABI IBVERBS_PABI_VERSION is not XRXE_RDMA_CORE_PABI
		  of rdma-core XRXE_RDMA_CORE_VERSION)
#error "the private ABI the build found does not match the rdma-core release"
#endif

/*
 * Small helpers rdma-core takes from ccan. They are defined only if the
 * provider did not already pull in an equivalent.
 */
#ifndef container_of
#define container_of(ptr, type, member)					\
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

/* A node of rdma-core's intrusive list; two pointers, next then prev. */
#ifndef CCAN_LIST_H
struct list_node {
	struct list_node *next;
	struct list_node *prev;
};
#endif

/* -------------------------------------------------------------------------
 * Logging through libibverbs. __verbs_log() prints a message of a level up
 * to VERBS_LOG_LEVEL into the file VERBS_LOG_FILE; libibverbs 44 logs
 * nothing unless both are set.
 */
enum {
	VERBS_LOG_LEVEL_NONE,
	VERBS_LOG_ERR,
	VERBS_LOG_WARN,
	VERBS_LOG_INFO,
	VERBS_LOG_DEBUG,
};

void __verbs_log(struct verbs_context *ctx, uint32_t level,
		 const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Prefixes device, function and line; logging must not clobber errno. */
#define verbs_log(ctx, level, format, arg...)				\
	do {								\
		int __saved_errno = errno;				\
									\
		__verbs_log(ctx, level, "%s: %s:%d: " format,		\
			    (ctx)->context.device->name, __func__,	\
			    __LINE__, ##arg);				\
		errno = __saved_errno;					\
	} while (0)

#define verbs_err(ctx, format, arg...)					\
	verbs_log(ctx, VERBS_LOG_ERR, format, ##arg)
#define verbs_warn(ctx, format, arg...)					\
	verbs_log(ctx, VERBS_LOG_WARN, format, ##arg)

/* -------------------------------------------------------------------------
 * Objects the provider allocates and libibverbs reads back.
 *
 * The provider embeds these in its own objects; the library fills in or
 * reads the fields after the public ibv_* part (for example the xrcd handle,
 * the MR type that ibv_dereg_mr checks), so their layout is ABI.
 */
struct verbs_xrcd {
	struct ibv_xrcd		xrcd;
	uint32_t		comp_mask;
	uint32_t		handle;
};

struct verbs_srq {
	struct ibv_srq		srq;
	enum ibv_srq_type	srq_type;
	struct verbs_xrcd	*xrcd;
	struct ibv_cq		*cq;
	uint32_t		srq_num;
};

enum verbs_qp_mask {
	VERBS_QP_XRCD		= 1 << 0,
	VERBS_QP_EX		= 1 << 1,
};

/* ibv_qp_ex starts with the plain ibv_qp, so both views share offset 0. */
struct verbs_qp {
	union {
		struct ibv_qp		qp;
		struct ibv_qp_ex	qp_ex;
	};
	uint32_t		comp_mask;
	struct verbs_xrcd	*xrcd;
};

/* Same trick for CQs: ibv_cq_ex is a superset of ibv_cq. */
struct verbs_cq {
	union {
		struct ibv_cq		cq;
		struct ibv_cq_ex	cq_ex;
	};
};

enum ibv_mr_type {
	IBV_MR_TYPE_MR,
	IBV_MR_TYPE_NULL_MR,
	IBV_MR_TYPE_IMPORTED_MR,
	IBV_MR_TYPE_DMABUF_MR,
};

struct verbs_mr {
	struct ibv_mr		ibv_mr;
	enum ibv_mr_type	mr_type;
	int			access;
};

/* -------------------------------------------------------------------------
 * Matching a provider to the devices found in sysfs
 */
enum {
	VERBS_MATCH_SENTINEL	= 0,
	VERBS_MATCH_PCI		= 1,
	VERBS_MATCH_MODALIAS	= 2,
	VERBS_MATCH_DRIVER_ID	= 3,
};

/* One entry of verbs_device_ops.match_table; a zeroed entry ends it. */
struct verbs_match_ent {
	void			*driver_data;
	union {
		const char	*modalias;
		uint64_t	driver_id;
	} u;
	uint16_t		vendor;
	uint16_t		device;
	uint8_t			kind;
};

/* Match on enum rdma_driver_id as reported over netlink: the preferred way. */
#define VERBS_DRIVER_ID(_id)						\
	{								\
		.u.driver_id = (_id),					\
		.kind = VERBS_MATCH_DRIVER_ID,				\
	}

/* verbs_sysfs_dev.flags: which optional attributes were read */
enum {
	VSYSFS_READ_MODALIAS	= 1 << 0,
	VSYSFS_READ_NODE_GUID	= 1 << 1,
};

/*
 * What libibverbs found out about one uverbs device; handed to
 * match_device() and alloc_device().
 */
struct verbs_sysfs_dev {
	struct list_node	entry;
	void			*provider_data;
	const struct verbs_match_ent *match;
	unsigned int		flags;
	char			sysfs_name[IBV_SYSFS_NAME_MAX];
	dev_t			sysfs_cdev;
	char			ibdev_name[IBV_SYSFS_NAME_MAX];
	char			ibdev_path[IBV_SYSFS_PATH_MAX];
	char			modalias[512];
	uint64_t		node_guid;
	uint32_t		driver_id;
	enum ibv_node_type	node_type;
	int			ibdev_idx;
	uint32_t		num_ports;
	uint32_t		abi_ver;
	struct timespec		time_created;
};

/* The provider's entry points; registered once per loaded provider. */
struct verbs_device_ops {
	const char		*name;

	/* Inclusive range of the kernel driver's uverbs ABI version. */
	uint32_t		match_min_abi_version;
	uint32_t		match_max_abi_version;
	const struct verbs_match_ent *match_table;
	const struct verbs_device_ops **static_providers;

	/*
	 * Optional. Called after the match_table lookup, whose result (maybe
	 * NULL) is in sysfs_dev->match, and has the final say.
	 */
	bool (*match_device)(struct verbs_sysfs_dev *sysfs_dev);

	struct verbs_context *(*alloc_context)(struct ibv_device *device,
					       int cmd_fd,
					       void *private_data);
	struct verbs_context *(*import_context)(struct ibv_device *device,
						int cmd_fd);

	struct verbs_device *(*alloc_device)(struct verbs_sysfs_dev *sysfs_dev);
	void (*uninit_device)(struct verbs_device *device);
};

/* Allocated by alloc_device(); libibverbs owns the fields after device. */
struct verbs_device {
	struct ibv_device	device;	/* first: cast to and from ibv_device */
	const struct verbs_device_ops *ops;
	atomic_int		refcount;
	struct list_node	entry;
	struct verbs_sysfs_dev	*sysfs;
	uint64_t		core_support;
};

/* -------------------------------------------------------------------------
 * The provider's operations.
 *
 * verbs_set_ops() reads this table at the offsets libibverbs was compiled
 * with and copies every non-NULL entry into the context, so the order and
 * the types below are the ABI. rdma-core keeps the members sorted by name,
 * so the operations a release added sit among the others, each under the
 * release that has it. A provider fills in what it supports; the library
 * keeps its stubs, which fail with EOPNOTSUPP, for the rest.
 */
struct verbs_context_ops {
	int (*advise_mr)(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			 uint32_t flags, struct ibv_sge *sg_list,
			 uint32_t num_sges);
#if XRXE_RDMA_CORE_SINCE(BUF)
	void *(*alloc_buf)(struct ibv_pd *pd, size_t size, struct ibv_buf **buf);
#endif
	struct ibv_dm *(*alloc_dm)(struct ibv_context *context,
				   struct ibv_alloc_dm_attr *attr);
#if XRXE_RDMA_CORE_SINCE(DMAH)
	struct ibv_dmah *(*alloc_dmah)(struct ibv_context *context,
				       struct ibv_dmah_init_attr *attr);
#endif
	struct ibv_mw *(*alloc_mw)(struct ibv_pd *pd, enum ibv_mw_type type);
	struct ibv_mr *(*alloc_null_mr)(struct ibv_pd *pd);
	struct ibv_pd *(*alloc_parent_domain)(struct ibv_context *context,
					      struct ibv_parent_domain_init_attr *attr);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	struct ibv_td *(*alloc_td)(struct ibv_context *context,
				   struct ibv_td_init_attr *init_attr);
	void (*async_event)(struct ibv_context *context,
			    struct ibv_async_event *event);
	int (*attach_counters_point_flow)(struct ibv_counters *counters,
					  struct ibv_counter_attach_attr *attr,
					  struct ibv_flow *flow);
	int (*attach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	int (*bind_mw)(struct ibv_qp *qp, struct ibv_mw *mw,
		       struct ibv_mw_bind *mw_bind);
	int (*close_xrcd)(struct ibv_xrcd *xrcd);
	void (*cq_event)(struct ibv_cq *cq);
	struct ibv_ah *(*create_ah)(struct ibv_pd *pd, struct ibv_ah_attr *attr);
#if XRXE_RDMA_CORE_SINCE(COMP_CNTR)
	struct ibv_comp_cntr *(*create_comp_cntr)(struct ibv_context *context,
						  struct ibv_comp_cntr_init_attr *attr);
#endif
	struct ibv_counters *(*create_counters)(struct ibv_context *context,
						struct ibv_counters_init_attr *init_attr);
	struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector);
	struct ibv_cq_ex *(*create_cq_ex)(struct ibv_context *context,
					  struct ibv_cq_init_attr_ex *init_attr);
	struct ibv_flow *(*create_flow)(struct ibv_qp *qp,
					struct ibv_flow_attr *flow_attr);
	struct ibv_flow_action *(*create_flow_action_esp)(struct ibv_context *context,
							  struct ibv_flow_action_esp_attr *attr);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr);
	struct ibv_qp *(*create_qp_ex)(struct ibv_context *context,
				       struct ibv_qp_init_attr_ex *qp_init_attr_ex);
	struct ibv_rwq_ind_table *(*create_rwq_ind_table)(struct ibv_context *context,
							  struct ibv_rwq_ind_table_init_attr *init_attr);
	struct ibv_srq *(*create_srq)(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *srq_init_attr);
	struct ibv_srq *(*create_srq_ex)(struct ibv_context *context,
					 struct ibv_srq_init_attr_ex *srq_init_attr_ex);
	struct ibv_wq *(*create_wq)(struct ibv_context *context,
				    struct ibv_wq_init_attr *wq_init_attr);
#if XRXE_RDMA_CORE_SINCE(DMAH)
	int (*dealloc_dmah)(struct ibv_dmah *dmah);
#endif
	int (*dealloc_mw)(struct ibv_mw *mw);
	int (*dealloc_pd)(struct ibv_pd *pd);
	int (*dealloc_td)(struct ibv_td *td);
	int (*dereg_mr)(struct verbs_mr *vmr);
	int (*destroy_ah)(struct ibv_ah *ah);
#if XRXE_RDMA_CORE_SINCE(COMP_CNTR)
	int (*destroy_comp_cntr)(struct ibv_comp_cntr *comp_cntr);
#endif
	int (*destroy_counters)(struct ibv_counters *counters);
	int (*destroy_cq)(struct ibv_cq *cq);
	int (*destroy_flow)(struct ibv_flow *flow);
	int (*destroy_flow_action)(struct ibv_flow_action *action);
	int (*destroy_qp)(struct ibv_qp *qp);
	int (*destroy_rwq_ind_table)(struct ibv_rwq_ind_table *rwq_ind_table);
	int (*destroy_srq)(struct ibv_srq *srq);
	int (*destroy_wq)(struct ibv_wq *wq);
	int (*detach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
#if XRXE_RDMA_CORE_SINCE(DMABUF_EXPORT)
	int (*dm_export_dmabuf_fd)(struct ibv_dm *dm);
#endif
#if XRXE_RDMA_CORE_SINCE(BUF)
	void (*free_buf)(struct ibv_buf *buf);
#endif
	void (*free_context)(struct ibv_context *context);
	int (*free_dm)(struct ibv_dm *dm);
	int (*get_srq_num)(struct ibv_srq *srq, uint32_t *srq_num);
	struct ibv_dm *(*import_dm)(struct ibv_context *context,
				    uint32_t dm_handle);
	struct ibv_mr *(*import_mr)(struct ibv_pd *pd, uint32_t mr_handle);
	struct ibv_pd *(*import_pd)(struct ibv_context *context,
				    uint32_t pd_handle);
#if XRXE_RDMA_CORE_SINCE(COMP_CNTR)
	int (*inc_comp_cntr)(struct ibv_comp_cntr *comp_cntr, uint64_t amount);
	int (*inc_err_comp_cntr)(struct ibv_comp_cntr *comp_cntr,
				 uint64_t amount);
#endif
	int (*modify_cq)(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr);
	int (*modify_flow_action_esp)(struct ibv_flow_action *action,
				      struct ibv_flow_action_esp_attr *attr);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask);
	int (*modify_qp_rate_limit)(struct ibv_qp *qp,
				    struct ibv_qp_rate_limit_attr *attr);
	int (*modify_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
			  int srq_attr_mask);
	int (*modify_wq)(struct ibv_wq *wq, struct ibv_wq_attr *wq_attr);
	struct ibv_qp *(*open_qp)(struct ibv_context *context,
				  struct ibv_qp_open_attr *attr);
	struct ibv_xrcd *(*open_xrcd)(struct ibv_context *context,
				      struct ibv_xrcd_init_attr *xrcd_init_attr);
	int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr);
	int (*post_srq_ops)(struct ibv_srq *srq, struct ibv_ops_wr *op,
			    struct ibv_ops_wr **bad_op);
	int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *recv_wr,
			     struct ibv_recv_wr **bad_recv_wr);
#if XRXE_RDMA_CORE_SINCE(COMP_CNTR)
	int (*qp_attach_comp_cntr)(struct ibv_qp *qp,
				   struct ibv_comp_cntr *comp_cntr,
				   struct ibv_qp_attach_comp_cntr_attr *attr);
	int (*query_comp_cntr_caps)(struct ibv_context *context,
				    struct ibv_comp_cntr_caps *caps,
				    size_t caps_size);
#endif
	int (*query_device_ex)(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr,
			       size_t attr_size);
	int (*query_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *port_attr);
#if XRXE_RDMA_CORE_SINCE(DMABUF_EXPORT)
	int (*query_port_speed)(struct ibv_context *context, uint32_t port_num,
				uint64_t *speed);
#endif
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			int attr_mask, struct ibv_qp_init_attr *init_attr);
	int (*query_qp_data_in_order)(struct ibv_qp *qp, enum ibv_wr_opcode op,
				      uint32_t flags);
	int (*query_rt_values)(struct ibv_context *context,
			       struct ibv_values_ex *values);
	int (*query_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr);
#if XRXE_RDMA_CORE_SINCE(COMP_CNTR)
	int (*read_comp_cntr)(struct ibv_comp_cntr *comp_cntr, uint64_t *value);
#endif
	int (*read_counters)(struct ibv_counters *counters,
			     uint64_t *counters_value, uint32_t ncounters,
			     uint32_t flags);
#if XRXE_RDMA_CORE_SINCE(COMP_CNTR)
	int (*read_err_comp_cntr)(struct ibv_comp_cntr *comp_cntr,
				  uint64_t *value);
#endif
	struct ibv_mr *(*reg_dm_mr)(struct ibv_pd *pd, struct ibv_dm *dm,
				    uint64_t dm_offset, size_t length,
				    unsigned int access);
	struct ibv_mr *(*reg_dmabuf_mr)(struct ibv_pd *pd, uint64_t offset,
					size_t length, uint64_t iova, int fd,
					int access);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t hca_va, int access);
#if XRXE_RDMA_CORE_SINCE(DMAH)
	struct ibv_mr *(*reg_mr_ex)(struct ibv_pd *pd,
				    struct ibv_mr_init_attr *mr_init_attr);
#endif
	int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);
	int (*rereg_mr)(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
			void *addr, size_t length, int access);
	int (*resize_cq)(struct ibv_cq *cq, int cqe);
#if XRXE_RDMA_CORE_SINCE(COMP_CNTR)
	int (*set_comp_cntr)(struct ibv_comp_cntr *comp_cntr, uint64_t value);
#endif
	int (*set_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
#if XRXE_RDMA_CORE_SINCE(COMP_CNTR)
	int (*set_err_comp_cntr)(struct ibv_comp_cntr *comp_cntr,
				 uint64_t value);
#endif
	void (*unimport_dm)(struct ibv_dm *dm);
	void (*unimport_mr)(struct ibv_mr *mr);
	void (*unimport_pd)(struct ibv_pd *pd);
};

/* -------------------------------------------------------------------------
 * Registration and context setup
 */

/*
 * The exported name carries the private ABI number, so a provider built
 * for another generation fails to load instead of misreading structures,
 * even where symbol versioning is not enforced.
 */
#define ___verbs_register_driver_name(n)	verbs_register_driver_ ## n
#define __verbs_register_driver_name(n)	___verbs_register_driver_name(n)
#define verbs_register_driver						\
	__verbs_register_driver_name(IBVERBS_PABI_VERSION)

void verbs_register_driver(const struct verbs_device_ops *ops);

/*
 * Hand the provider's ops to libibverbs when the plugin is dlopen()ed, and
 * export them as verbs_provider_<name> for the static-link machinery.
 */
#define PROVIDER_DRIVER(provider_name, drv_struct)			\
	extern const struct verbs_device_ops				\
		verbs_provider_##provider_name				\
		__attribute__((alias(__verbs_abi_xstr(drv_struct))));	\
	static __attribute__((constructor)) void			\
	__verbs_register_##provider_name(void)				\
	{								\
		verbs_register_driver(&drv_struct);			\
	}

/*
 * struct verbs_context itself is public (<infiniband/verbs.h>): the
 * provider embeds it in its own context, and its layout is pinned below.
 *
 * Allocate alloc_size zeroed bytes holding a verbs_context at the offset
 * given by context_offset (a member address relative to NULL), and set up
 * the context. Use the macro below.
 */
void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
				    size_t alloc_size,
				    struct verbs_context *context_offset,
				    uint32_t driver_id);

#define verbs_init_and_alloc_context(ibdev, cmd_fd, drv_ctx_ptr,	\
				     ctx_memb, driver_id)		\
	((typeof(drv_ctx_ptr))_verbs_init_and_alloc_context(		\
		ibdev, cmd_fd, sizeof(*(drv_ctx_ptr)),			\
		&((typeof(drv_ctx_ptr))NULL)->ctx_memb, (driver_id)))

void verbs_uninit_context(struct verbs_context *context);
void verbs_set_ops(struct verbs_context *vctx,
		   const struct verbs_context_ops *ops);

/* -------------------------------------------------------------------------
 * Write-path command buffers
 *
 * A legacy uverbs command is one write() of a header followed by the kernel
 * request struct and then the driver's private request. The response buffer
 * holds the kernel response followed by the driver's private response. The
 * ibv_cmd_* helpers fill in the core part and pass the rest through, so a
 * provider declares one struct per command with its driver data appended.
 *
 * Each core command struct exposes the kernel request both as named fields
 * (cmd.qp_handle) and as core_payload. That needs a tag-less copy of the
 * kernel struct: _STRUCT_<kernel struct name> below. rdma-core generates
 * these from the uapi headers into <kernel-abi/...>; here they are written
 * out for the commands whose helpers the provider calls.
 */

/* Header of the extended (IB_USER_VERBS_CMD_FLAG_EXTENDED) commands. */
struct ex_hdr {
	struct ib_uverbs_cmd_hdr	hdr;
	struct ib_uverbs_ex_cmd_hdr	ex_hdr;
};

/* The driver part of a command may be absent: pass 'empty'. */
struct empty {};

/* Legacy command: 4 byte aligned words after a struct ib_uverbs_cmd_hdr. */
#define DECLARE_CMDX(_enum, _name, _kabi, _kabi_resp)			\
	struct _name {							\
		struct ib_uverbs_cmd_hdr hdr;				\
		union {							\
			_STRUCT_##_kabi;				\
			struct _kabi core_payload;			\
		};							\
	};								\
	_Static_assert(sizeof(struct _name) ==				\
		       sizeof(struct ib_uverbs_cmd_hdr) +		\
		       sizeof(struct _kabi),				\
		       #_name ": tag-less copy differs from the kernel"); \
	_Static_assert(sizeof(struct _kabi_resp) % 4 == 0,		\
		       #_kabi_resp ": not a whole number of words")

#define DECLARE_CMD(_enum, _name, _kabi)				\
	DECLARE_CMDX(_enum, _name, _kabi, _kabi##_resp)

/* Extended command: struct ex_hdr, 8 byte granularity throughout. */
#define DECLARE_CMD_EXX(_enum, _name, _kabi, _kabi_resp)		\
	struct _name {							\
		struct ex_hdr hdr;					\
		union {							\
			_STRUCT_##_kabi;				\
			struct _kabi core_payload;			\
		};							\
	};								\
	_Static_assert(sizeof(struct _name) ==				\
		       sizeof(struct ex_hdr) + sizeof(struct _kabi),	\
		       #_name ": tag-less copy differs from the kernel"); \
	_Static_assert(sizeof(struct _kabi) % 8 == 0 &&			\
		       sizeof(struct _kabi_resp) % 8 == 0,		\
		       #_name ": extended ABI needs 8 byte multiples")

#define DECLARE_CMD_EX(_enum, _name, _kabi)				\
	DECLARE_CMD_EXX(_enum, _name, _kabi, _kabi##_resp)

/*
 * Tag-less copies of the kernel requests (Linux include/uapi/rdma/
 * ib_user_verbs.h). Field names and types must stay identical to the
 * kernel's; DECLARE_CMD* checks the size against the real struct.
 */
#define _STRUCT_ib_uverbs_get_context struct {				\
	__aligned_u64 response;						\
	__aligned_u64 driver_data[];					\
}

#define _STRUCT_ib_uverbs_query_port struct {				\
	__aligned_u64 response;						\
	__u8 port_num;							\
	__u8 reserved[7];						\
	__aligned_u64 driver_data[];					\
}

#define _STRUCT_ib_uverbs_alloc_pd struct {				\
	__aligned_u64 response;						\
	__aligned_u64 driver_data[];					\
}

#define _STRUCT_ib_uverbs_reg_mr struct {				\
	__aligned_u64 response;						\
	__aligned_u64 start;						\
	__aligned_u64 length;						\
	__aligned_u64 hca_va;						\
	__u32 pd_handle;						\
	__u32 access_flags;						\
	__aligned_u64 driver_data[];					\
}

#define _STRUCT_ib_uverbs_rereg_mr struct {				\
	__aligned_u64 response;						\
	__u32 mr_handle;						\
	__u32 flags;							\
	__aligned_u64 start;						\
	__aligned_u64 length;						\
	__aligned_u64 hca_va;						\
	__u32 pd_handle;						\
	__u32 access_flags;						\
	__aligned_u64 driver_data[];					\
}

#define _STRUCT_ib_uverbs_alloc_mw struct {				\
	__aligned_u64 response;						\
	__u32 pd_handle;						\
	__u8 mw_type;							\
	__u8 reserved[3];						\
	__aligned_u64 driver_data[];					\
}

#define _STRUCT_ib_uverbs_create_cq struct {				\
	__aligned_u64 response;						\
	__aligned_u64 user_handle;					\
	__u32 cqe;							\
	__u32 comp_vector;						\
	__s32 comp_channel;						\
	__u32 reserved;							\
	__aligned_u64 driver_data[];					\
}

#define _STRUCT_ib_uverbs_ex_create_cq struct {				\
	__aligned_u64 user_handle;					\
	__u32 cqe;							\
	__u32 comp_vector;						\
	__s32 comp_channel;						\
	__u32 comp_mask;						\
	__u32 flags;							\
	__u32 reserved;							\
}

#define _STRUCT_ib_uverbs_resize_cq struct {				\
	__aligned_u64 response;						\
	__u32 cq_handle;						\
	__u32 cqe;							\
	__aligned_u64 driver_data[];					\
}

#define _STRUCT_ib_uverbs_create_srq struct {				\
	__aligned_u64 response;						\
	__aligned_u64 user_handle;					\
	__u32 pd_handle;						\
	__u32 max_wr;							\
	__u32 max_sge;							\
	__u32 srq_limit;						\
	__aligned_u64 driver_data[];					\
}

#define _STRUCT_ib_uverbs_create_xsrq struct {				\
	__aligned_u64 response;						\
	__aligned_u64 user_handle;					\
	__u32 srq_type;							\
	__u32 pd_handle;						\
	__u32 max_wr;							\
	__u32 max_sge;							\
	__u32 srq_limit;						\
	__u32 max_num_tags;						\
	__u32 xrcd_handle;						\
	__u32 cq_handle;						\
	__aligned_u64 driver_data[];					\
}

#define _STRUCT_ib_uverbs_modify_srq struct {				\
	__u32 srq_handle;						\
	__u32 attr_mask;						\
	__u32 max_wr;							\
	__u32 srq_limit;						\
	__aligned_u64 driver_data[];					\
}

#define _STRUCT_ib_uverbs_query_srq struct {				\
	__aligned_u64 response;						\
	__u32 srq_handle;						\
	__u32 reserved;							\
	__aligned_u64 driver_data[];					\
}

#define _STRUCT_ib_uverbs_ex_create_qp struct {				\
	__aligned_u64 user_handle;					\
	__u32 pd_handle;						\
	__u32 send_cq_handle;						\
	__u32 recv_cq_handle;						\
	__u32 srq_handle;						\
	__u32 max_send_wr;						\
	__u32 max_recv_wr;						\
	__u32 max_send_sge;						\
	__u32 max_recv_sge;						\
	__u32 max_inline_data;						\
	__u8 sq_sig_all;						\
	__u8 qp_type;							\
	__u8 is_srq;							\
	__u8 reserved;							\
	__u32 comp_mask;						\
	__u32 create_flags;						\
	__u32 rwq_ind_tbl_handle;					\
	__u32 source_qpn;						\
}

#define _STRUCT_ib_uverbs_query_qp struct {				\
	__aligned_u64 response;						\
	__u32 qp_handle;						\
	__u32 attr_mask;						\
	__aligned_u64 driver_data[];					\
}

#define _STRUCT_ib_uverbs_modify_qp struct {				\
	struct ib_uverbs_qp_dest dest;					\
	struct ib_uverbs_qp_dest alt_dest;				\
	__u32 qp_handle;						\
	__u32 attr_mask;						\
	__u32 qkey;							\
	__u32 rq_psn;							\
	__u32 sq_psn;							\
	__u32 dest_qp_num;						\
	__u32 qp_access_flags;						\
	__u16 pkey_index;						\
	__u16 alt_pkey_index;						\
	__u8 qp_state;							\
	__u8 cur_qp_state;						\
	__u8 path_mtu;							\
	__u8 path_mig_state;						\
	__u8 en_sqd_async_notify;					\
	__u8 max_rd_atomic;						\
	__u8 max_dest_rd_atomic;					\
	__u8 min_rnr_timer;						\
	__u8 port_num;							\
	__u8 timeout;							\
	__u8 retry_cnt;							\
	__u8 rnr_retry;							\
	__u8 alt_port_num;						\
	__u8 alt_timeout;						\
	__u8 reserved[2];						\
	__aligned_u64 driver_data[0];					\
}

/* The core commands, named as in rdma-core's kern-abi.h. */
DECLARE_CMD(IB_USER_VERBS_CMD_ALLOC_MW, ibv_alloc_mw, ib_uverbs_alloc_mw);
DECLARE_CMD(IB_USER_VERBS_CMD_ALLOC_PD, ibv_alloc_pd, ib_uverbs_alloc_pd);
DECLARE_CMD(IB_USER_VERBS_CMD_CREATE_CQ, ibv_create_cq, ib_uverbs_create_cq);
DECLARE_CMD(IB_USER_VERBS_CMD_CREATE_SRQ, ibv_create_srq,
	    ib_uverbs_create_srq);
DECLARE_CMDX(IB_USER_VERBS_CMD_CREATE_XSRQ, ibv_create_xsrq,
	     ib_uverbs_create_xsrq, ib_uverbs_create_srq_resp);
DECLARE_CMD(IB_USER_VERBS_CMD_GET_CONTEXT, ibv_get_context,
	    ib_uverbs_get_context);
DECLARE_CMDX(IB_USER_VERBS_CMD_MODIFY_QP, ibv_modify_qp,
	     ib_uverbs_modify_qp, empty);
DECLARE_CMDX(IB_USER_VERBS_CMD_MODIFY_SRQ, ibv_modify_srq,
	     ib_uverbs_modify_srq, empty);
DECLARE_CMD(IB_USER_VERBS_CMD_QUERY_PORT, ibv_query_port,
	    ib_uverbs_query_port);
DECLARE_CMD(IB_USER_VERBS_CMD_QUERY_QP, ibv_query_qp, ib_uverbs_query_qp);
DECLARE_CMD(IB_USER_VERBS_CMD_QUERY_SRQ, ibv_query_srq, ib_uverbs_query_srq);
DECLARE_CMD(IB_USER_VERBS_CMD_REG_MR, ibv_reg_mr, ib_uverbs_reg_mr);
DECLARE_CMD(IB_USER_VERBS_CMD_REREG_MR, ibv_rereg_mr, ib_uverbs_rereg_mr);
DECLARE_CMD(IB_USER_VERBS_CMD_RESIZE_CQ, ibv_resize_cq, ib_uverbs_resize_cq);

DECLARE_CMD_EX(IB_USER_VERBS_EX_CMD_CREATE_CQ, ibv_create_cq_ex,
	       ib_uverbs_ex_create_cq);
DECLARE_CMD_EX(IB_USER_VERBS_EX_CMD_CREATE_QP, ibv_create_qp_ex,
	       ib_uverbs_ex_create_qp);

/* -------------------------------------------------------------------------
 * Command helpers exported by libibverbs (IBVERBS_PRIVATE_<N>).
 *
 * They return 0 or an errno value, fill in the core object, and send cmd
 * and resp with their full sizes so the driver data reaches the kernel.
 * The resp arguments point at the core response, i.e. &resp.ibv_resp.
 *
 * Three of them took an argument more in a later release, which the
 * provider passes as NULL (none of it is used): fds for the context, prov
 * (a CQ buffer the provider allocated) and driver (ioctl attributes of the
 * driver's own). Their types are only named here.
 */
struct ibv_command_buffer;
struct verbs_create_cq_prov_attr;

#if XRXE_RDMA_CORE_SINCE(CTX_FD_ARR)
int ibv_cmd_get_context(struct verbs_context *context,
			struct ibv_get_context *cmd, size_t cmd_size,
			struct ibv_fd_arr *fds,
			struct ib_uverbs_get_context_resp *resp,
			size_t resp_size);
#else
int ibv_cmd_get_context(struct verbs_context *context,
			struct ibv_get_context *cmd, size_t cmd_size,
			struct ib_uverbs_get_context_resp *resp,
			size_t resp_size);
#endif
int ibv_cmd_query_device_any(struct ibv_context *context,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size,
			     struct ib_uverbs_ex_query_device_resp *resp,
			     size_t *resp_size);
int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *port_attr,
		       struct ibv_query_port *cmd, size_t cmd_size);

int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     struct ibv_alloc_pd *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size);
int ibv_cmd_dealloc_pd(struct ibv_pd *pd);

int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		   uint64_t hca_va, int access, struct verbs_mr *vmr,
		   struct ibv_reg_mr *cmd, size_t cmd_size,
		   struct ib_uverbs_reg_mr_resp *resp, size_t resp_size);
int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags, void *addr,
		     size_t length, uint64_t hca_va, int access,
		     struct ibv_pd *pd, struct ibv_rereg_mr *cmd,
		     size_t cmd_sz, struct ib_uverbs_rereg_mr_resp *resp,
		     size_t resp_sz);
int ibv_cmd_dereg_mr(struct verbs_mr *vmr);
int ibv_cmd_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		      uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge);
int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		     struct ibv_mw *mw, struct ibv_alloc_mw *cmd,
		     size_t cmd_size, struct ib_uverbs_alloc_mw_resp *resp,
		     size_t resp_size);
int ibv_cmd_dealloc_mw(struct ibv_mw *mw);

int ibv_cmd_create_cq(struct ibv_context *context, int cqe,
		      struct ibv_comp_channel *channel, int comp_vector,
		      struct ibv_cq *cq, struct ibv_create_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_create_cq_resp *resp,
		      size_t resp_size);
#if XRXE_RDMA_CORE_SINCE(DMAH)
int ibv_cmd_create_cq_ex(struct ibv_context *context,
			 const struct ibv_cq_init_attr_ex *cq_attr,
			 struct verbs_create_cq_prov_attr *prov,
			 struct verbs_cq *cq, struct ibv_create_cq_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_create_cq_resp *resp,
			 size_t resp_size, uint32_t cmd_flags);
#else
int ibv_cmd_create_cq_ex(struct ibv_context *context,
			 const struct ibv_cq_init_attr_ex *cq_attr,
			 struct verbs_cq *cq, struct ibv_create_cq_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_create_cq_resp *resp,
			 size_t resp_size, uint32_t cmd_flags);
#endif
int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only);
int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, struct ibv_resize_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_resize_cq_resp *resp,
		      size_t resp_size);
int ibv_cmd_destroy_cq(struct ibv_cq *cq);

int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
		       struct ibv_srq_init_attr *attr,
		       struct ibv_create_srq *cmd, size_t cmd_size,
		       struct ib_uverbs_create_srq_resp *resp,
		       size_t resp_size);
int ibv_cmd_create_srq_ex(struct ibv_context *context, struct verbs_srq *srq,
			  struct ibv_srq_init_attr_ex *attr_ex,
			  struct ibv_create_xsrq *cmd, size_t cmd_size,
			  struct ib_uverbs_create_srq_resp *resp,
			  size_t resp_size);
int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		       int srq_attr_mask, struct ibv_modify_srq *cmd,
		       size_t cmd_size);
int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		      struct ibv_query_srq *cmd, size_t cmd_size);
int ibv_cmd_destroy_srq(struct ibv_srq *srq);

/* ibv_create_qp_ex() over the extended command. */
#if XRXE_RDMA_CORE_SINCE(BUF)
int ibv_cmd_create_qp_ex2(struct ibv_context *context, struct verbs_qp *qp,
			  struct ibv_qp_init_attr_ex *qp_attr,
			  struct ibv_create_qp_ex *cmd, size_t cmd_size,
			  struct ib_uverbs_ex_create_qp_resp *resp,
			  size_t resp_size,
			  struct ibv_command_buffer *driver);
#else
int ibv_cmd_create_qp_ex2(struct ibv_context *context, struct verbs_qp *qp,
			  struct ibv_qp_init_attr_ex *qp_attr,
			  struct ibv_create_qp_ex *cmd, size_t cmd_size,
			  struct ib_uverbs_ex_create_qp_resp *resp,
			  size_t resp_size);
#endif
int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr,
		     int attr_mask, struct ibv_qp_init_attr *qp_init_attr,
		     struct ibv_query_qp *cmd, size_t cmd_size);
int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask, struct ibv_modify_qp *cmd,
		      size_t cmd_size);
int ibv_cmd_destroy_qp(struct ibv_qp *qp);

/* Slow-path posting through the kernel (write() of the whole WR list). */
int ibv_cmd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		      struct ibv_send_wr **bad_wr);

int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		      struct ibv_ah_attr *attr,
		      struct ib_uverbs_create_ah_resp *resp,
		      size_t resp_size);
int ibv_cmd_destroy_ah(struct ibv_ah *ah);
int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);
int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);

/* -------------------------------------------------------------------------
 * Layout checks
 *
 * Layouts that must hold on every ABI follow first. The numbers after them
 * are those of rdma-core's own headers compiled for x86_64: of v44.0 (gcc
 * 12, glibc 2.36) for what no release changed, and of the first release of
 * each range where a release changed it (v44.0, v45.0, v49.0, v59.0,
 * v62.0, v64.0 and v65.0). They catch a wrong field order or type in this
 * file, and a public header that is not of the release the build named.
 */
#define __verbs_abi_off(type, memb, val)				\
	_Static_assert(offsetof(struct type, memb) == (val),		\
		       "offsetof(" #type ", " #memb ") != " #val)
#define __verbs_abi_size(type, val)					\
	_Static_assert(sizeof(struct type) == (val),			\
		       "sizeof(" #type ") != " #val)

_Static_assert(offsetof(struct ibv_qp_ex, qp_base) == 0,
	       "verbs_qp overlays ibv_qp on ibv_qp_ex");
_Static_assert(offsetof(struct ibv_cq_ex, context) ==
	       offsetof(struct ibv_cq, context) &&
	       offsetof(struct ibv_cq_ex, handle) ==
	       offsetof(struct ibv_cq, handle) &&
	       offsetof(struct ibv_cq_ex, cqe) == offsetof(struct ibv_cq, cqe) &&
	       offsetof(struct ibv_cq_ex, async_events_completed) ==
	       offsetof(struct ibv_cq, async_events_completed),
	       "verbs_cq overlays ibv_cq on ibv_cq_ex");
_Static_assert(offsetof(struct verbs_device, device) == 0,
	       "verbs_device must start with ibv_device");
_Static_assert(offsetof(struct verbs_context, context) +
	       sizeof(struct ibv_context) == sizeof(struct verbs_context),
	       "ibv_context must end verbs_context");

#if defined(__x86_64__) && defined(__LP64__)
__verbs_abi_size(ibv_context, 328);
__verbs_abi_off(ibv_context, device, 0);
__verbs_abi_off(ibv_context, ops, 8);
__verbs_abi_off(ibv_context, cmd_fd, 264);
__verbs_abi_off(ibv_context, async_fd, 268);
__verbs_abi_off(ibv_context, num_comp_vectors, 272);
__verbs_abi_off(ibv_context, mutex, 280);
__verbs_abi_off(ibv_context, abi_compat, 320);

/*
 * The layouts a release changed, as tables: a row gives the offset of a
 * member (-1: not there yet) in each range, and the range built for picks
 * its column.
 *
 * verbs_context, 44 to 58, 59 to 61, 62 and 63, 64 and 65: the operations
 * added at its front push its own fields further in.
 */
#if XRXE_RDMA_CORE_SINCE(BUF)
#define __verbs_abi_ctx_col(a, b, c, d)	d
#elif XRXE_RDMA_CORE_SINCE(DMABUF_EXPORT)
#define __verbs_abi_ctx_col(a, b, c, d)	c
#elif XRXE_RDMA_CORE_SINCE(DMAH)
#define __verbs_abi_ctx_col(a, b, c, d)	b
#else
#define __verbs_abi_ctx_col(a, b, c, d)	a
#endif
/* Through one more macro, so that the message names the number. */
#define __verbs_abi_pick(type, memb, val) __verbs_abi_off(type, memb, val)
#define __verbs_abi_ctx(memb, ...)					\
	__verbs_abi_pick(verbs_context, memb, __verbs_abi_ctx_col(__VA_ARGS__))

_Static_assert(sizeof(struct verbs_context) ==
	       __verbs_abi_ctx_col(648, 672, 680, 696),
	       "sizeof(verbs_context) is not the one of this rdma-core release");
#if XRXE_RDMA_CORE_SINCE(DMAH)
#if XRXE_RDMA_CORE_SINCE(BUF)
__verbs_abi_ctx(free_buf, -1, -1, -1, 0);
__verbs_abi_ctx(alloc_buf, -1, -1, -1, 8);
#endif
#if XRXE_RDMA_CORE_SINCE(DMABUF_EXPORT)
__verbs_abi_ctx(dm_export_dmabuf_fd, -1, -1, 0, 16);
#endif
__verbs_abi_ctx(reg_mr_ex, -1, 0, 8, 24);
__verbs_abi_ctx(dealloc_dmah, -1, 8, 16, 32);
__verbs_abi_ctx(alloc_dmah, -1, 16, 24, 40);
#endif
__verbs_abi_ctx(query_port, 0, 24, 32, 48);
__verbs_abi_ctx(advise_mr, 8, 32, 40, 56);
__verbs_abi_ctx(alloc_null_mr, 16, 40, 48, 64);
__verbs_abi_ctx(create_cq_ex, 200, 224, 232, 248);
__verbs_abi_ctx(priv, 208, 232, 240, 256);
__verbs_abi_ctx(query_device_ex, 216, 240, 248, 264);
__verbs_abi_ctx(ibv_destroy_flow, 224, 248, 256, 272);
__verbs_abi_ctx(ibv_create_flow, 240, 264, 272, 288);
__verbs_abi_ctx(open_qp, 256, 280, 288, 304);
__verbs_abi_ctx(create_qp_ex, 264, 288, 296, 312);
__verbs_abi_ctx(create_srq_ex, 280, 304, 312, 328);
__verbs_abi_ctx(open_xrcd, 288, 312, 320, 336);
__verbs_abi_ctx(close_xrcd, 296, 320, 328, 344);
__verbs_abi_ctx(_ABI_placeholder3, 304, 328, 336, 352);
__verbs_abi_ctx(sz, 312, 336, 344, 360);
__verbs_abi_ctx(context, 320, 344, 352, 368);

/* verbs_context_ops, 44 to 58, 59 to 61, 62 and 63, 64, 65. */
#if XRXE_RDMA_CORE_SINCE(COMP_CNTR)
#define __verbs_abi_ops_col(a, b, c, d, e)	e
#elif XRXE_RDMA_CORE_SINCE(BUF)
#define __verbs_abi_ops_col(a, b, c, d, e)	d
#elif XRXE_RDMA_CORE_SINCE(DMABUF_EXPORT)
#define __verbs_abi_ops_col(a, b, c, d, e)	c
#elif XRXE_RDMA_CORE_SINCE(DMAH)
#define __verbs_abi_ops_col(a, b, c, d, e)	b
#else
#define __verbs_abi_ops_col(a, b, c, d, e)	a
#endif
#define __verbs_abi_ops(memb, ...)					\
	__verbs_abi_pick(verbs_context_ops, memb,			\
			 __verbs_abi_ops_col(__VA_ARGS__))

_Static_assert(sizeof(struct verbs_context_ops) ==
	       __verbs_abi_ops_col(608, 632, 648, 664, 744),
	       "sizeof(verbs_context_ops) is not the one of this rdma-core release");
__verbs_abi_ops(advise_mr, 0, 0, 0, 0, 0);
__verbs_abi_ops(alloc_dm, 8, 8, 8, 16, 16);
__verbs_abi_ops(alloc_mw, 16, 24, 24, 32, 32);
__verbs_abi_ops(alloc_null_mr, 24, 32, 32, 40, 40);
__verbs_abi_ops(alloc_parent_domain, 32, 40, 40, 48, 48);
__verbs_abi_ops(alloc_pd, 40, 48, 48, 56, 56);
__verbs_abi_ops(alloc_td, 48, 56, 56, 64, 64);
__verbs_abi_ops(async_event, 56, 64, 64, 72, 72);
__verbs_abi_ops(attach_counters_point_flow, 64, 72, 72, 80, 80);
__verbs_abi_ops(attach_mcast, 72, 80, 80, 88, 88);
__verbs_abi_ops(bind_mw, 80, 88, 88, 96, 96);
__verbs_abi_ops(close_xrcd, 88, 96, 96, 104, 104);
__verbs_abi_ops(cq_event, 96, 104, 104, 112, 112);
__verbs_abi_ops(create_ah, 104, 112, 112, 120, 120);
__verbs_abi_ops(create_counters, 112, 120, 120, 128, 136);
__verbs_abi_ops(create_cq, 120, 128, 128, 136, 144);
__verbs_abi_ops(create_cq_ex, 128, 136, 136, 144, 152);
__verbs_abi_ops(create_flow, 136, 144, 144, 152, 160);
__verbs_abi_ops(create_flow_action_esp, 144, 152, 152, 160, 168);
__verbs_abi_ops(create_qp, 152, 160, 160, 168, 176);
__verbs_abi_ops(create_qp_ex, 160, 168, 168, 176, 184);
__verbs_abi_ops(create_rwq_ind_table, 168, 176, 176, 184, 192);
__verbs_abi_ops(create_srq, 176, 184, 184, 192, 200);
__verbs_abi_ops(create_srq_ex, 184, 192, 192, 200, 208);
__verbs_abi_ops(create_wq, 192, 200, 200, 208, 216);
__verbs_abi_ops(dealloc_mw, 200, 216, 216, 224, 232);
__verbs_abi_ops(dealloc_pd, 208, 224, 224, 232, 240);
__verbs_abi_ops(dealloc_td, 216, 232, 232, 240, 248);
__verbs_abi_ops(dereg_mr, 224, 240, 240, 248, 256);
__verbs_abi_ops(destroy_ah, 232, 248, 248, 256, 264);
__verbs_abi_ops(destroy_counters, 240, 256, 256, 264, 280);
__verbs_abi_ops(destroy_cq, 248, 264, 264, 272, 288);
__verbs_abi_ops(destroy_flow, 256, 272, 272, 280, 296);
__verbs_abi_ops(destroy_flow_action, 264, 280, 280, 288, 304);
__verbs_abi_ops(destroy_qp, 272, 288, 288, 296, 312);
__verbs_abi_ops(destroy_rwq_ind_table, 280, 296, 296, 304, 320);
__verbs_abi_ops(destroy_srq, 288, 304, 304, 312, 328);
__verbs_abi_ops(destroy_wq, 296, 312, 312, 320, 336);
__verbs_abi_ops(detach_mcast, 304, 320, 320, 328, 344);
__verbs_abi_ops(free_context, 312, 328, 336, 352, 368);
__verbs_abi_ops(free_dm, 320, 336, 344, 360, 376);
__verbs_abi_ops(get_srq_num, 328, 344, 352, 368, 384);
__verbs_abi_ops(import_dm, 336, 352, 360, 376, 392);
__verbs_abi_ops(import_mr, 344, 360, 368, 384, 400);
__verbs_abi_ops(import_pd, 352, 368, 376, 392, 408);
__verbs_abi_ops(modify_cq, 360, 376, 384, 400, 432);
__verbs_abi_ops(modify_flow_action_esp, 368, 384, 392, 408, 440);
__verbs_abi_ops(modify_qp, 376, 392, 400, 416, 448);
__verbs_abi_ops(modify_qp_rate_limit, 384, 400, 408, 424, 456);
__verbs_abi_ops(modify_srq, 392, 408, 416, 432, 464);
__verbs_abi_ops(modify_wq, 400, 416, 424, 440, 472);
__verbs_abi_ops(open_qp, 408, 424, 432, 448, 480);
__verbs_abi_ops(open_xrcd, 416, 432, 440, 456, 488);
__verbs_abi_ops(poll_cq, 424, 440, 448, 464, 496);
__verbs_abi_ops(post_recv, 432, 448, 456, 472, 504);
__verbs_abi_ops(post_send, 440, 456, 464, 480, 512);
__verbs_abi_ops(post_srq_ops, 448, 464, 472, 488, 520);
__verbs_abi_ops(post_srq_recv, 456, 472, 480, 496, 528);
__verbs_abi_ops(query_device_ex, 464, 480, 488, 504, 552);
__verbs_abi_ops(query_ece, 472, 488, 496, 512, 560);
__verbs_abi_ops(query_port, 480, 496, 504, 520, 568);
__verbs_abi_ops(query_qp, 488, 504, 520, 536, 584);
__verbs_abi_ops(query_qp_data_in_order, 496, 512, 528, 544, 592);
__verbs_abi_ops(query_rt_values, 504, 520, 536, 552, 600);
__verbs_abi_ops(query_srq, 512, 528, 544, 560, 608);
__verbs_abi_ops(read_counters, 520, 536, 552, 568, 624);
__verbs_abi_ops(reg_dm_mr, 528, 544, 560, 576, 640);
__verbs_abi_ops(reg_dmabuf_mr, 536, 552, 568, 584, 648);
__verbs_abi_ops(reg_mr, 544, 560, 576, 592, 656);
__verbs_abi_ops(req_notify_cq, 552, 576, 592, 608, 672);
__verbs_abi_ops(rereg_mr, 560, 584, 600, 616, 680);
__verbs_abi_ops(resize_cq, 568, 592, 608, 624, 688);
__verbs_abi_ops(set_ece, 576, 600, 616, 632, 704);
__verbs_abi_ops(unimport_dm, 584, 608, 624, 640, 720);
__verbs_abi_ops(unimport_mr, 592, 616, 632, 648, 728);
__verbs_abi_ops(unimport_pd, 600, 624, 640, 656, 736);
#if XRXE_RDMA_CORE_SINCE(DMAH)
__verbs_abi_ops(alloc_dmah, -1, 16, 16, 24, 24);
__verbs_abi_ops(dealloc_dmah, -1, 208, 208, 216, 224);
__verbs_abi_ops(reg_mr_ex, -1, 568, 584, 600, 664);
#endif
#if XRXE_RDMA_CORE_SINCE(DMABUF_EXPORT)
__verbs_abi_ops(dm_export_dmabuf_fd, -1, -1, 328, 336, 352);
__verbs_abi_ops(query_port_speed, -1, -1, 512, 528, 576);
#endif
#if XRXE_RDMA_CORE_SINCE(BUF)
__verbs_abi_ops(alloc_buf, -1, -1, -1, 8, 8);
__verbs_abi_ops(free_buf, -1, -1, -1, 344, 360);
#endif
#if XRXE_RDMA_CORE_SINCE(COMP_CNTR)
__verbs_abi_ops(create_comp_cntr, -1, -1, -1, -1, 128);
__verbs_abi_ops(destroy_comp_cntr, -1, -1, -1, -1, 272);
__verbs_abi_ops(inc_comp_cntr, -1, -1, -1, -1, 416);
__verbs_abi_ops(inc_err_comp_cntr, -1, -1, -1, -1, 424);
__verbs_abi_ops(qp_attach_comp_cntr, -1, -1, -1, -1, 536);
__verbs_abi_ops(query_comp_cntr_caps, -1, -1, -1, -1, 544);
__verbs_abi_ops(read_comp_cntr, -1, -1, -1, -1, 616);
__verbs_abi_ops(read_err_comp_cntr, -1, -1, -1, -1, 632);
__verbs_abi_ops(set_comp_cntr, -1, -1, -1, -1, 696);
__verbs_abi_ops(set_err_comp_cntr, -1, -1, -1, -1, 712);
#endif

__verbs_abi_size(verbs_device_ops, 72);
__verbs_abi_off(verbs_device_ops, name, 0);
__verbs_abi_off(verbs_device_ops, match_min_abi_version, 8);
__verbs_abi_off(verbs_device_ops, match_max_abi_version, 12);
__verbs_abi_off(verbs_device_ops, match_table, 16);
__verbs_abi_off(verbs_device_ops, static_providers, 24);
__verbs_abi_off(verbs_device_ops, match_device, 32);
__verbs_abi_off(verbs_device_ops, alloc_context, 40);
__verbs_abi_off(verbs_device_ops, import_context, 48);
__verbs_abi_off(verbs_device_ops, alloc_device, 56);
__verbs_abi_off(verbs_device_ops, uninit_device, 64);

__verbs_abi_size(verbs_device, 712);
__verbs_abi_off(verbs_device, device, 0);
__verbs_abi_off(verbs_device, ops, 664);
__verbs_abi_off(verbs_device, refcount, 672);
__verbs_abi_off(verbs_device, entry, 680);
__verbs_abi_off(verbs_device, sysfs, 696);
__verbs_abi_off(verbs_device, core_support, 704);

__verbs_abi_size(verbs_sysfs_dev, 992);
__verbs_abi_off(verbs_sysfs_dev, entry, 0);
__verbs_abi_off(verbs_sysfs_dev, provider_data, 16);
__verbs_abi_off(verbs_sysfs_dev, match, 24);
__verbs_abi_off(verbs_sysfs_dev, flags, 32);
__verbs_abi_off(verbs_sysfs_dev, sysfs_name, 36);
__verbs_abi_off(verbs_sysfs_dev, sysfs_cdev, 104);
__verbs_abi_off(verbs_sysfs_dev, ibdev_name, 112);
__verbs_abi_off(verbs_sysfs_dev, ibdev_path, 176);
__verbs_abi_off(verbs_sysfs_dev, modalias, 432);
__verbs_abi_off(verbs_sysfs_dev, node_guid, 944);
__verbs_abi_off(verbs_sysfs_dev, driver_id, 952);
__verbs_abi_off(verbs_sysfs_dev, node_type, 956);
__verbs_abi_off(verbs_sysfs_dev, ibdev_idx, 960);
__verbs_abi_off(verbs_sysfs_dev, num_ports, 964);
__verbs_abi_off(verbs_sysfs_dev, abi_ver, 968);
__verbs_abi_off(verbs_sysfs_dev, time_created, 976);

__verbs_abi_size(verbs_match_ent, 24);
__verbs_abi_off(verbs_match_ent, driver_data, 0);
__verbs_abi_off(verbs_match_ent, u.modalias, 8);
__verbs_abi_off(verbs_match_ent, u.driver_id, 8);
__verbs_abi_off(verbs_match_ent, vendor, 16);
__verbs_abi_off(verbs_match_ent, device, 18);
__verbs_abi_off(verbs_match_ent, kind, 20);

__verbs_abi_size(verbs_xrcd, 16);
__verbs_abi_off(verbs_xrcd, xrcd, 0);
__verbs_abi_off(verbs_xrcd, comp_mask, 8);
__verbs_abi_off(verbs_xrcd, handle, 12);

__verbs_abi_size(verbs_srq, 160);
__verbs_abi_off(verbs_srq, srq, 0);
__verbs_abi_off(verbs_srq, srq_type, 128);
__verbs_abi_off(verbs_srq, xrcd, 136);
__verbs_abi_off(verbs_srq, cq, 144);
__verbs_abi_off(verbs_srq, srq_num, 152);

/* From 45 ibv_qp_ex ends in wr_flush: libibverbs finds comp_mask 8 further. */
#if XRXE_RDMA_CORE_SINCE(QP_EX_FLUSH)
__verbs_abi_size(ibv_qp_ex, 360);
__verbs_abi_off(ibv_qp_ex, wr_flush, 352);
__verbs_abi_size(verbs_qp, 376);
__verbs_abi_off(verbs_qp, comp_mask, 360);
__verbs_abi_off(verbs_qp, xrcd, 368);
#else
__verbs_abi_size(ibv_qp_ex, 352);
__verbs_abi_size(verbs_qp, 368);
__verbs_abi_off(verbs_qp, comp_mask, 352);
__verbs_abi_off(verbs_qp, xrcd, 360);
#endif
__verbs_abi_off(verbs_qp, qp, 0);
__verbs_abi_off(verbs_qp, qp_ex, 0);

/* What ibv_cmd_query_port() fills in: from 49 with active_speed_ex. */
#if XRXE_RDMA_CORE_SINCE(PORT_SPEED_EX)
__verbs_abi_size(ibv_port_attr, 56);
__verbs_abi_off(ibv_port_attr, active_speed_ex, 52);
#else
__verbs_abi_size(ibv_port_attr, 52);
#endif
/* Types a release added: public headers older than the one named stop here. */
#if XRXE_RDMA_CORE_SINCE(CTX_FD_ARR)
__verbs_abi_size(ibv_fd_arr, 16);
#endif
#if XRXE_RDMA_CORE_SINCE(COMP_CNTR)
__verbs_abi_size(ibv_comp_cntr, 16);
#endif

__verbs_abi_size(verbs_cq, 288);
__verbs_abi_off(verbs_cq, cq, 0);
__verbs_abi_off(verbs_cq, cq_ex, 0);

__verbs_abi_size(verbs_mr, 56);
__verbs_abi_off(verbs_mr, ibv_mr, 0);
__verbs_abi_off(verbs_mr, mr_type, 48);
__verbs_abi_off(verbs_mr, access, 52);

__verbs_abi_size(ex_hdr, 24);
__verbs_abi_off(ex_hdr, hdr, 0);
__verbs_abi_off(ex_hdr, ex_hdr, 8);

__verbs_abi_size(ibv_alloc_mw, 24);
__verbs_abi_off(ibv_alloc_mw, core_payload, 8);
__verbs_abi_size(ibv_alloc_pd, 16);
__verbs_abi_off(ibv_alloc_pd, core_payload, 8);
__verbs_abi_size(ibv_create_cq, 40);
__verbs_abi_off(ibv_create_cq, core_payload, 8);
__verbs_abi_size(ibv_create_srq, 40);
__verbs_abi_off(ibv_create_srq, core_payload, 8);
__verbs_abi_size(ibv_create_xsrq, 56);
__verbs_abi_off(ibv_create_xsrq, core_payload, 8);
__verbs_abi_size(ibv_get_context, 16);
__verbs_abi_off(ibv_get_context, core_payload, 8);
__verbs_abi_size(ibv_modify_qp, 120);
__verbs_abi_off(ibv_modify_qp, core_payload, 8);
__verbs_abi_size(ibv_modify_srq, 24);
__verbs_abi_off(ibv_modify_srq, core_payload, 8);
__verbs_abi_size(ibv_query_port, 24);
__verbs_abi_off(ibv_query_port, core_payload, 8);
__verbs_abi_size(ibv_query_qp, 24);
__verbs_abi_off(ibv_query_qp, core_payload, 8);
__verbs_abi_size(ibv_query_srq, 24);
__verbs_abi_off(ibv_query_srq, core_payload, 8);
__verbs_abi_size(ibv_reg_mr, 48);
__verbs_abi_off(ibv_reg_mr, core_payload, 8);
__verbs_abi_size(ibv_rereg_mr, 56);
__verbs_abi_off(ibv_rereg_mr, core_payload, 8);
__verbs_abi_size(ibv_resize_cq, 24);
__verbs_abi_off(ibv_resize_cq, core_payload, 8);
__verbs_abi_size(ibv_create_cq_ex, 56);
__verbs_abi_off(ibv_create_cq_ex, core_payload, 24);
__verbs_abi_size(ibv_create_qp_ex, 88);
__verbs_abi_off(ibv_create_qp_ex, core_payload, 24);

__verbs_abi_off(ibv_create_cq, driver_data, 40);
__verbs_abi_off(ibv_modify_qp, driver_data, 120);
__verbs_abi_off(ibv_create_qp_ex, source_qpn, 84);
__verbs_abi_off(ibv_create_cq_ex, flags, 48);
#undef __verbs_abi_ops
#undef __verbs_abi_ops_col
#undef __verbs_abi_ctx
#undef __verbs_abi_ctx_col
#undef __verbs_abi_pick
#endif /* __x86_64__ */
#undef __verbs_abi_off
#undef __verbs_abi_size

#endif /* XRXE_DRIVER_ABI_H */
