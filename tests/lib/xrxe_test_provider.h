/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The provider library libibverbs loads from the build tree
 * (RDMAV_DRIVERS=<dir>/libxrxe), opened by the testbed's C programs to
 * reach its xrxedv functions. The build defines IBVERBS_PABI_VERSION.
 */
#ifndef XRXE_TEST_PROVIDER_H
#define XRXE_TEST_PROVIDER_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#define XRXE_TEST_STR(x)	#x
#define XRXE_TEST_XSTR(x)	XRXE_TEST_STR(x)

/* Its dlopen() handle, or NULL with the reason in why. */
static inline void *xrxe_test_provider(char *why, size_t why_len)
{
	const char *drivers = getenv("RDMAV_DRIVERS");
	char path[4096];
	void *h;

	if (!drivers) {
		snprintf(why, why_len, "RDMAV_DRIVERS does not name libxrxe");
		return NULL;
	}
	snprintf(path, sizeof(path), "%s-rdmav" XRXE_TEST_XSTR(IBVERBS_PABI_VERSION) ".so",
		 drivers);
	/* The copy libibverbs already loaded, if it did. */
	h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
	if (!h)
		h = dlopen(path, RTLD_NOW);
	if (!h)
		snprintf(why, why_len, "dlopen %s: %s", path, dlerror());
	return h;
}

#endif /* XRXE_TEST_PROVIDER_H */
