/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The module's sources are Linux 7.3's rxe with xrxe's hooks and files.
 * This header, included before every source file, lets the same sources
 * build against Linux 6.12's headers: it supplies, in 6.12's terms, the
 * kernel interfaces that 7.3's rxe uses and 6.12 lacks. What cannot be
 * said as a definition here (a member of an ops table, a parameter of a
 * callback) is an #if in the hook "Build against Linux 6.12's headers"
 * on XRXE_KERNEL_6_12.
 *
 * kernel-patch/Kbuild builds for those two kernels only.
 */

#ifndef XRXE_COMPAT_H
#define XRXE_COMPAT_H

/* Set by kernel-patch/Kbuild from the kernel it builds for: 6.12 or 7.3. */
#ifndef XRXE_KERNEL_6_12
#error "rdma_xrxe builds with kernel-patch/Kbuild"
#endif

#if XRXE_KERNEL_6_12

#include <linux/slab.h>
#include <linux/timer.h>
#include <linux/hrtimer.h>
#include <linux/udp.h>
#include <linux/netdevice.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_umem_odp.h>

/*
 * The typed allocators (7.0), the size from the type, in the form rxe
 * uses them: GFP_KERNEL, no gfp argument (a call with one fails to build
 * here rather than allocate with other flags).
 */
#define kmalloc_obj(P)	kmalloc(sizeof(typeof(P)), GFP_KERNEL)
#define kzalloc_obj(P)	kzalloc(sizeof(typeof(P)), GFP_KERNEL)
#define kzalloc_objs(P, COUNT) \
	kcalloc((COUNT), sizeof(typeof(P)), GFP_KERNEL)
#define kvzalloc_flex(P, FAM, COUNT) \
	kvzalloc(struct_size_t(typeof(P), FAM, (COUNT)), GFP_KERNEL)

/* A timer's owner (6.16 renamed from_timer()). */
#define timer_container_of(var, timer, field) \
	container_of(timer, typeof(*(var)), field)

/* reg_user_mr()'s DMA handle (6.17), never given on 6.12. */
struct ib_dmah;

/* An hrtimer set up with its callback in one call (6.13). */
static inline void
hrtimer_setup(struct hrtimer *timer,
	      enum hrtimer_restart (*function)(struct hrtimer *),
	      clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}

/* A UDP header's length, never a GSO super-packet's (7.1). */
static inline unsigned int udp_get_len_short(const struct udphdr *uh)
{
	return ntohs(uh->len);
}

static inline void udp_set_len_short(struct udphdr *uh, unsigned int len)
{
	uh->len = htons(len);
}

/*
 * 7.3's tunnel helpers take the socket's struct sock; 6.12's its struct
 * socket, which a kernel socket's sock always has. The macros name the
 * functions they wrap, which the preprocessor does not expand again.
 */
#define setup_udp_tunnel_sock(net, sk, cfg) \
	setup_udp_tunnel_sock(net, (sk)->sk_socket, cfg)
#define udp_tunnel_sock_release(sk) \
	udp_tunnel_sock_release((sk)->sk_socket)

static inline enum ib_port_state ib_get_curr_port_state(struct net_device *ndev)
{
	return netif_running(ndev) && netif_carrier_ok(ndev) ?
		IB_PORT_ACTIVE : IB_PORT_DOWN;
}

static inline unsigned int netif_get_flags(const struct net_device *ndev)
{
	return dev_get_flags(ndev);
}

/* A user MR's pages at a virtual address, without a dma-buf (7.2). */
static inline struct ib_umem *ib_umem_get_va(struct ib_device *device,
					     unsigned long addr, size_t size,
					     int access)
{
	return ib_umem_get(device, addr, size, access);
}

/*
 * The udata checks of 7.1, as ib_core does them there: a request shorter
 * than its first version is refused, one longer than the kernel's must
 * end in zeros; a verb that takes no data refuses any and zeroes the
 * caller's response.
 */
static inline int xrxe_copy_validate_udata_in(struct ib_udata *udata,
					      void *req, size_t kernel_size,
					      size_t minimum_size)
{
	int err;

	if (udata->inlen < minimum_size)
		return -EINVAL;
	err = copy_struct_from_user(req, kernel_size, udata->inbuf,
				    udata->inlen);
	return err == -E2BIG ? -EOPNOTSUPP : err;
}

#define ib_copy_validate_udata_in(udata, req, end_member)		\
	xrxe_copy_validate_udata_in(udata, &(req), sizeof(req),		\
				    offsetofend(typeof(req), end_member))

static inline int ib_no_udata_io(struct ib_udata *udata)
{
	int err;

	if (!udata)
		return 0;
	if (udata->inlen) {
		err = xrxe_copy_validate_udata_in(udata, NULL, 0, 0);
		if (err)
			return err;
	}
	if (udata->outlen && clear_user(udata->outbuf, udata->outlen))
		return -EFAULT;
	return 0;
}

/* ODP capabilities 6.12 cannot advertise: none of its users ask for them. */
#define IB_ODP_SUPPORT_FLUSH		0
#define IB_ODP_SUPPORT_ATOMIC_WRITE	0

/*
 * An ODP umem's pages: their HMM pfns (umem_odp->map.pfn_list since
 * 6.16), and what says a page is mapped for an access. 6.12 keeps that in
 * dma_list as ODP_*_ALLOWED_BIT, cleared when the page is invalidated (its
 * pfn_list is not), and its faults are asked for with those bits.
 */
#define xrxe_odp_pfns(umem_odp)	((umem_odp)->pfn_list)
#define xrxe_odp_state(umem_odp)	((umem_odp)->dma_list)
#define XRXE_ODP_MAPPED		ODP_READ_ALLOWED_BIT
#define XRXE_ODP_FAULT_READ	ODP_READ_ALLOWED_BIT
#define XRXE_ODP_WRITE		ODP_WRITE_ALLOWED_BIT

#else /* Linux 7.3 */

#include <linux/hmm.h>

#define xrxe_odp_pfns(umem_odp)	((umem_odp)->map.pfn_list)
#define xrxe_odp_state(umem_odp)	((umem_odp)->map.pfn_list)
#define XRXE_ODP_MAPPED		HMM_PFN_VALID
#define XRXE_ODP_FAULT_READ	0
#define XRXE_ODP_WRITE		HMM_PFN_WRITE

#endif

#endif /* XRXE_COMPAT_H */
