// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * usage: xrxe-poll-test DEVICE
 *
 * What a poll of an empty CQ does with the CPU (XRXE_EMPTY_POLL): it yields
 * once per empty poll, through ibv_poll_cq() and ibv_start_poll() alike, a
 * poll that returns completions never yields, "spin" keeps the CPU, an
 * unknown value is said on stderr and yields, and the choice is the one of
 * the context the CQ was created on. Exit 0 when all holds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "xrxe_test_dev.h"
#include "xrxe_test_rc.h"

#define EMPTY_POLLS	16
/* Polls that may pass before a flushed receive shows up in its CQ. */
#define FLUSH_POLLS	10000000

static unsigned long yields;

/*
 * The provider's sched_yield() binds to this one: the executable exports it
 * (ENABLE_EXPORTS) and comes first in the lookup scope of every library.
 */
int sched_yield(void)
{
	yields++;
	return syscall(SYS_sched_yield);
}

static const char *dev_name;

/* A context on dev_name, with XRXE_EMPTY_POLL as given (NULL: unset). */
static struct ibv_context *open_with(const char *empty_poll)
{
	if (empty_poll)
		setenv("XRXE_EMPTY_POLL", empty_poll, 1);
	else
		unsetenv("XRXE_EMPTY_POLL");
	return xrxe_open_device(dev_name);
}

/*
 * One poll through either API: 1 with the completion's wr_id and status, or
 * 0 when the CQ is empty. Each checks and counts the same way whichever it
 * goes through.
 */
struct poller {
	const char *api;
	int (*poll)(void *cq, uint64_t *wr_id, enum ibv_wc_status *status);
};

static int poll_one(void *cq, uint64_t *wr_id, enum ibv_wc_status *status)
{
	struct ibv_wc wc;
	int n = ibv_poll_cq(cq, 1, &wc);

	if (n < 0)
		die("ibv_poll_cq: %d", n);
	if (n) {
		*wr_id = wc.wr_id;
		*status = wc.status;
	}
	return n;
}

static int start_poll_one(void *cq, uint64_t *wr_id, enum ibv_wc_status *status)
{
	struct ibv_poll_cq_attr attr = {};
	struct ibv_cq_ex *cqx = cq;
	int ret = ibv_start_poll(cqx, &attr);

	if (ret == ENOENT)
		return 0;
	if (ret)
		die("ibv_start_poll: %d, neither a completion nor ENOENT", ret);
	*wr_id = cqx->wr_id;
	*status = cqx->status;
	ibv_end_poll(cqx);
	return 1;
}

static const struct poller poll_cq = { "ibv_poll_cq", poll_one };
static const struct poller start_poll = { "ibv_start_poll", start_poll_one };

/* The yields of EMPTY_POLLS polls of cq, which must all find it empty. */
static unsigned long yields_of_empty_polls(const struct poller *p, void *cq)
{
	unsigned long before = yields;
	enum ibv_wc_status status;
	uint64_t wr_id;
	int i;

	for (i = 0; i < EMPTY_POLLS; i++)
		if (p->poll(cq, &wr_id, &status))
			die("%s: an empty CQ returned a completion", p->api);
	return yields - before;
}

static void expect_yields(unsigned long got, unsigned long want, const char *what)
{
	if (got != want)
		die("%s: %lu yields, %lu expected", what, got, want);
	printf("%s: %lu yields of %d polls\n", what, got, EMPTY_POLLS);
}

/* Poll cq until the flushed receive: every empty poll yields once, the
 * poll that returns it does not.
 */
static void poll_flush(const struct poller *p, void *cq)
{
	unsigned long before, empty = 0;
	enum ibv_wc_status status;
	uint64_t wr_id;
	long i;

	for (i = 0; i < FLUSH_POLLS; i++) {
		before = yields;
		if (p->poll(cq, &wr_id, &status)) {
			if (yields != before)
				die("%s returning a completion yielded", p->api);
			if (wr_id != 7 || status != IBV_WC_WR_FLUSH_ERR)
				die("wr_id %llu status %d, not the flushed receive",
				    (unsigned long long)wr_id, status);
			printf("%s: a completion after %lu empty polls, no yield\n",
			       p->api, empty);
			return;
		}
		if (yields != before + 1)
			die("an empty %s yielded %lu times", p->api, yields - before);
		empty++;
	}
	die("the flushed receive never came");
}

int main(int argc, char **argv)
{
	struct ibv_cq_init_attr_ex cq_attr = { .cqe = 4 };
	struct ibv_context *ctx, *spin_ctx, *odd_ctx;
	struct ibv_cq *cq, *spin_cq, *odd_cq;
	struct ibv_qp *qp, *qp_ex;
	struct ibv_cq_ex *cqx;
	struct ibv_pd *pd;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DEVICE\n", argv[0]);
		return 2;
	}
	dev_name = argv[1];

	ctx = open_with(NULL);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	cqx = ibv_create_cq_ex(ctx, &cq_attr);
	if (!pd || !cq || !cqx)
		die("pd or CQs: %s", strerror(errno));
	expect_yields(yields_of_empty_polls(&poll_cq, cq), EMPTY_POLLS,
		      "default, ibv_poll_cq");
	expect_yields(yields_of_empty_polls(&start_poll, cqx), EMPTY_POLLS,
		      "default, ibv_start_poll");
	qp = xrxe_flushed_receive(pd, cq, cq, 7);
	poll_flush(&poll_cq, cq);
	qp_ex = xrxe_flushed_receive(pd, cq, ibv_cq_ex_to_cq(cqx), 7);
	poll_flush(&start_poll, cqx);

	spin_ctx = open_with("spin");
	spin_cq = ibv_create_cq(spin_ctx, 4, NULL, NULL, 0);
	if (!spin_cq)
		die("CQ: %s", strerror(errno));
	expect_yields(yields_of_empty_polls(&poll_cq, spin_cq), 0, "spin, ibv_poll_cq");
	/* The first context keeps the choice it was opened with. */
	expect_yields(yields_of_empty_polls(&poll_cq, cq), EMPTY_POLLS,
		      "default context after a spin one");

	/* Said on stderr by the provider; the caller checks it. */
	odd_ctx = open_with("sometimes");
	odd_cq = ibv_create_cq(odd_ctx, 4, NULL, NULL, 0);
	if (!odd_cq)
		die("CQ: %s", strerror(errno));
	expect_yields(yields_of_empty_polls(&poll_cq, odd_cq), EMPTY_POLLS, "unknown value");

	if (ibv_destroy_qp(qp) || ibv_destroy_qp(qp_ex) || ibv_destroy_cq(odd_cq) ||
	    ibv_destroy_cq(spin_cq) || ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)) ||
	    ibv_destroy_cq(cq) || ibv_dealloc_pd(pd) || ibv_close_device(odd_ctx) ||
	    ibv_close_device(spin_ctx) || ibv_close_device(ctx))
		die("teardown");
	printf("empty polls: all checks passed\n");
	return 0;
}
