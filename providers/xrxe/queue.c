// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libxrxe queue mappings: every ring the kernel shares with us (CQ, RQ,
 * SRQ, classic SQ) and the doorbell-less send queue's ring and status
 * page, each mapped and checked by one helper. The index math is queue.h's
 * and dbl.h's.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "xrxe.h"

/*
 * Map what mi describes from the uverbs file, if it holds at least
 * min_size bytes: 0 and *map, or an errno and nothing mapped.
 */
static int map_shared(struct ibv_context *ctx, const struct mminfo *mi, int prot,
		      uint64_t min_size, void **map)
{
	void *p;

	if (mi->size < min_size) {
		verbs_err(to_verbs_ctx(ctx), "kernel maps %llu bytes, at least %llu needed\n",
			  (unsigned long long)mi->size, (unsigned long long)min_size);
		return EINVAL;
	}
	p = mmap(NULL, mi->size, prot, MAP_SHARED, ctx->cmd_fd, mi->offset);
	if (p == MAP_FAILED) {
		int ret = errno;

		verbs_err(to_verbs_ctx(ctx), "mmap of %llu bytes: %s\n",
			  (unsigned long long)mi->size, strerror(ret));
		return ret;
	}
	*map = p;
	return 0;
}

int xrxe_ring_map(struct ibv_context *ctx, struct xrxe_ring *ring,
		  const struct mminfo *mi, size_t min_elem_size)
{
	struct xrxe_ring moved;
	void *map = NULL;
	int ret;

	ret = map_shared(ctx, mi, PROT_READ | PROT_WRITE,
			 sizeof(struct rxe_queue_buf), &map);
	if (ret)
		return ret;
	xrxe_ring_init(&moved, map, mi->size);
	/* Every slot must hold a whole element, and every slot must be mapped. */
	if (moved.log2_elem_size >= 32 ||
	    (1ull << moved.log2_elem_size) < min_elem_size ||
	    sizeof(struct rxe_queue_buf) +
	    ((uint64_t)moved.mask + 1) * (1ull << moved.log2_elem_size) > mi->size) {
		verbs_err(to_verbs_ctx(ctx),
			  "ring of %u slots of 2^%u bytes does not fit %llu bytes or hold %zu\n",
			  moved.mask + 1, moved.log2_elem_size,
			  (unsigned long long)mi->size, min_elem_size);
		munmap(map, mi->size);
		return EINVAL;
	}
	/* After a resize the kernel's new ring replaces the old one. */
	xrxe_ring_unmap(ring);
	*ring = moved;
	return 0;
}

void xrxe_ring_unmap(struct xrxe_ring *ring)
{
	if (ring->buf)
		munmap(ring->buf, ring->map_size);
	ring->buf = NULL;
}

int xrxe_wq_map(struct ibv_context *ctx, struct xrxe_wq *wq,
		const struct mminfo *mi, size_t min_elem_size)
{
	int ret = xrxe_ring_map(ctx, &wq->ring, mi, min_elem_size);

	if (!ret)
		wq->producer = xrxe_load_producer(&wq->ring);
	return ret;
}

int xrxe_dbl_map(struct ibv_context *ctx, struct xrxe_dbl_sq *d,
		 const struct xrxe_create_qp_resp *resp, uint64_t payload)
{
	void *p = NULL;
	int ret;

	/* Every slot large enough for the QP's SGEs or inline data. */
	if (resp->sq_log2_slots >= 31 || resp->sq_log2_slot_size >= 31 ||
	    (1ull << resp->sq_log2_slot_size) < sizeof(struct xrxe_sq_slot) + payload) {
		verbs_err(to_verbs_ctx(ctx),
			  "send ring of 2^%u slots of 2^%u bytes cannot hold %llu payload bytes\n",
			  resp->sq_log2_slots, resp->sq_log2_slot_size,
			  (unsigned long long)payload);
		return EINVAL;
	}
	ret = map_shared(ctx, &resp->sq_ring_mi, PROT_READ | PROT_WRITE,
			 1ull << (resp->sq_log2_slots + resp->sq_log2_slot_size), &p);
	if (ret)
		return ret;
	d->ring = p;
	d->ring_size = resp->sq_ring_mi.size;
	/* The status page is the kernel's to write: mapped read-only. */
	ret = map_shared(ctx, &resp->status_mi, PROT_READ,
			 sizeof(struct xrxe_qp_status), &p);
	if (ret) {
		xrxe_dbl_unmap(d);
		return ret;
	}
	d->status = p;
	d->status_size = resp->status_mi.size;
	d->log2_slots = resp->sq_log2_slots;
	d->log2_slot_size = resp->sq_log2_slot_size;
	return 0;
}

void xrxe_dbl_unmap(struct xrxe_dbl_sq *d)
{
	if (d->ring)
		munmap(d->ring, d->ring_size);
	if (d->status)
		munmap(d->status, d->status_size);
	d->ring = NULL;
	d->status = NULL;
}
