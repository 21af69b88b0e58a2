/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * uverbs commands written by hand to a context's command file, for what
 * libibverbs and the provider never send (or send only one at a time).
 */
#ifndef XRXE_TEST_UVERBS_H
#define XRXE_TEST_UVERBS_H

/* First: it defines _GNU_SOURCE before any system header. */
#include "xrxe_test_util.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>

/*
 * A modify-QP command by hand on cmd_fd (a context's cmd_fd), with drv_len
 * bytes of driver data (a multiple of 8): 0 or an errno. Only the extended
 * command carries driver data: the legacy one counts trailing bytes as its
 * own, and the core refuses them unless they are zero, before the driver
 * sees anything.
 */
static inline int xrxe_raw_modify_qp(int cmd_fd, uint32_t qp_handle,
				     struct ib_uverbs_modify_qp *m,
				     const void *drv, size_t drv_len)
{
	struct ib_uverbs_ex_modify_qp_resp resp;
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_ex_cmd_hdr ex;
		struct ib_uverbs_ex_modify_qp m;
		uint8_t drv[64];
	} req = { .m = { .base = *m } };
	size_t len = offsetof(typeof(req), drv) + drv_len;

	if (drv_len % 8 || drv_len > sizeof(req.drv))
		die("xrxe_raw_modify_qp: %zu bytes of driver data", drv_len);
	req.m.base.qp_handle = qp_handle;
	if (drv_len)
		memcpy(req.drv, drv, drv_len);
	req.hdr.command = IB_USER_VERBS_CMD_FLAG_EXTENDED |
			  IB_USER_VERBS_EX_CMD_MODIFY_QP;
	req.hdr.in_words = sizeof(req.m) / 8;
	req.hdr.out_words = sizeof(resp) / 8;
	req.ex.response = (uintptr_t)&resp;
	req.ex.provider_in_words = drv_len / 8;
	return write(cmd_fd, &req, len) == (ssize_t)len ? 0 : errno;
}

#endif /* XRXE_TEST_UVERBS_H */
