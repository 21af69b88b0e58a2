/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Opening a verbs device by name, for the testbed's C programs and the
 * benchmark tools.
 */
#ifndef XRXE_TEST_DEV_H
#define XRXE_TEST_DEV_H

/* First: it defines _GNU_SOURCE before any system header. */
#include "xrxe_test_util.h"

#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

/* A context on the device called name; dies if none opens. */
static inline struct ibv_context *xrxe_open_device(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i] && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!ctx)
		die("cannot open %s", name);
	return ctx;
}

/*
 * The access to register a data buffer with: access, plus on-demand
 * paging when the test runs with XRXE_TEST_ODP=1 (not for an MR that
 * needs persistent flushes: those need pinned pages).
 */
static inline unsigned int xrxe_test_mr_access(unsigned int access)
{
	const char *odp = getenv("XRXE_TEST_ODP");

	if (odp && !strcmp(odp, "1"))
		access |= IBV_ACCESS_ON_DEMAND;
	return access;
}

#endif /* XRXE_TEST_DEV_H */
