/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Small helpers the testbed's C programs share: failing loudly, the clock. */
#ifndef XRXE_TEST_UTIL_H
#define XRXE_TEST_UTIL_H

#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* "PROGRAM: FAIL: reason" on stderr, exit status 1. */
static inline void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "%s: FAIL: ", program_invocation_short_name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

/* Seconds on the monotonic clock. */
static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif /* XRXE_TEST_UTIL_H */
