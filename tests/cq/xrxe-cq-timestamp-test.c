// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * usage: xrxe-cq-timestamp-test DEVICE
 *
 * Completion timestamps survive ibv_resize_cq(), which pyverbs cannot call
 * on an extended CQ: a stamped CQ of 4 entries gets two flushed receives,
 * grows to 64 with both queued (its completion events say they are), gets
 * two more, and all four read
 * back in order with CLOCK_MONOTONIC and CLOCK_REALTIME stamps between a
 * clock read before the first flush and one after the last poll. Then it
 * shrinks back to 4. Exit 0 when all holds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

#include "xrxe_test_dev.h"
#include "xrxe_test_rc.h"

#define ENTRIES		4
#define POLLS		10000000

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

struct stamped {
	uint64_t wr_id, ts, wallclock;
};

/* The next completion of cq (it must come), with its stamps. */
static struct stamped poll_stamped(struct ibv_cq_ex *cq)
{
	struct ibv_poll_cq_attr attr = {};
	struct stamped s;
	long i;

	for (i = 0; i < POLLS && ibv_start_poll(cq, &attr) == ENOENT; i++)
		;
	if (i == POLLS)
		die("no completion after %d polls", POLLS);
	if (cq->status != IBV_WC_WR_FLUSH_ERR)
		die("wr_id %llu: status %s, expected a flush",
		    (unsigned long long)cq->wr_id, ibv_wc_status_str(cq->status));
	s.wr_id = cq->wr_id;
	s.ts = ibv_wc_read_completion_ts(cq);
	s.wallclock = ibv_wc_read_completion_wallclock_ns(cq);
	ibv_end_poll(cq);
	return s;
}

/* One completion event of channel: an entry is in its CQ. */
static void wait_event(struct ibv_comp_channel *channel)
{
	struct ibv_cq *cq;
	void *cq_ctx;

	if (ibv_get_cq_event(channel, &cq, &cq_ctx))
		die("completion event: %s", strerror(errno));
	ibv_ack_cq_events(cq, 1);
}

int main(int argc, char **argv)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = ENTRIES,
		.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK,
	};
	uint64_t mono0, wall0, mono1, wall1;
	struct ibv_comp_channel *channel;
	struct ibv_context *ctx;
	struct ibv_qp *qps[4];
	struct stamped got[4];
	struct ibv_cq_ex *cq;
	struct ibv_pd *pd;
	int i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DEVICE\n", argv[0]);
		return 2;
	}
	ctx = xrxe_open_device(argv[1]);
	pd = ibv_alloc_pd(ctx);
	channel = ibv_create_comp_channel(ctx);
	attr.channel = channel;
	cq = channel ? ibv_create_cq_ex(ctx, &attr) : NULL;
	if (!pd || !cq)
		die("pd or stamped CQ: %s", strerror(errno));

	mono0 = clock_ns(CLOCK_MONOTONIC);
	wall0 = clock_ns(CLOCK_REALTIME);
	for (i = 0; i < 2; i++) {
		if (ibv_req_notify_cq(ibv_cq_ex_to_cq(cq), 0))
			die("arm the CQ");
		qps[i] = xrxe_flushed_receive(pd, ibv_cq_ex_to_cq(cq), ibv_cq_ex_to_cq(cq), i);
		wait_event(channel);
	}
	/* The kernel moves the queued entries, stamps included, to a new ring. */
	if (ibv_resize_cq(ibv_cq_ex_to_cq(cq), 64))
		die("grow the stamped CQ: %s", strerror(errno));
	/*
	 * Each QP's flush runs in its own task: the next QP is flushed only
	 * once the last one's completion is queued, so that they come in order.
	 */
	for (i = 2; i < 4; i++) {
		if (ibv_req_notify_cq(ibv_cq_ex_to_cq(cq), 0))
			die("arm the CQ");
		qps[i] = xrxe_flushed_receive(pd, ibv_cq_ex_to_cq(cq), ibv_cq_ex_to_cq(cq), i);
		wait_event(channel);
	}
	for (i = 0; i < 4; i++)
		got[i] = poll_stamped(cq);
	mono1 = clock_ns(CLOCK_MONOTONIC);
	wall1 = clock_ns(CLOCK_REALTIME);

	for (i = 0; i < 4; i++) {
		if (got[i].wr_id != (uint64_t)i)
			die("completion %d has wr_id %llu", i,
			    (unsigned long long)got[i].wr_id);
		if (got[i].ts < mono0 || got[i].ts > mono1 ||
		    (i && got[i].ts < got[i - 1].ts))
			die("completion %d: stamp %llu outside [%llu, %llu] or before the previous one",
			    i, (unsigned long long)got[i].ts,
			    (unsigned long long)mono0, (unsigned long long)mono1);
		if (got[i].wallclock < wall0 || got[i].wallclock > wall1)
			die("completion %d: wall clock %llu outside [%llu, %llu]",
			    i, (unsigned long long)got[i].wallclock,
			    (unsigned long long)wall0, (unsigned long long)wall1);
	}
	if (ibv_resize_cq(ibv_cq_ex_to_cq(cq), ENTRIES))
		die("shrink the stamped CQ: %s", strerror(errno));

	for (i = 0; i < 4; i++)
		if (ibv_destroy_qp(qps[i]))
			die("destroy QP");
	if (ibv_destroy_cq(ibv_cq_ex_to_cq(cq)) || ibv_destroy_comp_channel(channel) ||
	    ibv_dealloc_pd(pd) || ibv_close_device(ctx))
		die("teardown");
	printf("stamped CQ resize: all checks passed\n");
	return 0;
}
