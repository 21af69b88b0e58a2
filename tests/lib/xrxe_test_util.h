/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Small helpers the testbed's C programs share: failing loudly, the clock,
 * a seeded random stream.
 */
#ifndef XRXE_TEST_UTIL_H
#define XRXE_TEST_UTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* "PROGRAM: FAIL: reason" on stderr, exit status 1. */
static inline void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fflush(stdout);	/* what the program printed comes first */
	fprintf(stderr, "%s: FAIL: ", program_invocation_short_name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

/* The unsigned number the file at path holds (a sysfs value); dies if none. */
static inline unsigned long long read_number_file(const char *path)
{
	unsigned long long v;
	FILE *f = fopen(path, "r");

	if (!f || fscanf(f, "%llu", &v) != 1)
		die("cannot read a number from %s", path);
	fclose(f);
	return v;
}

/* Seconds on the monotonic clock. */
static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* splitmix64: the next number of the seeded stream *state. */
static inline uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

#endif /* XRXE_TEST_UTIL_H */
