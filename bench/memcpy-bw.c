// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * memcpy bandwidth in the guest: the ceiling for moving large messages, as
 * every byte a software RoCE device sends is copied at least once.
 * Prints "memcpy BYTES MBPS" for each size: those given (the harness gives
 * its bandwidth points' sizes too, so that each has a copy of its own size
 * to be read against), else 4 KiB, 64 KiB and 4 MiB.
 */
#include "xrxe_test_util.h"
#include <string.h>

int main(int argc, char **argv)
{
	static const size_t defaults[] = { 4096, 65536, 4 << 20 };
	const double min_secs = 0.5;
	size_t i, n = argc > 1 ? (size_t)argc - 1 : sizeof(defaults) / sizeof(defaults[0]);

	for (i = 0; i < n; i++) {
		size_t size = argc > 1 ? strtoul(argv[i + 1], NULL, 0) : defaults[i], copies = 0;
		char *src = size ? malloc(size) : NULL, *dst = size ? malloc(size) : NULL;
		double start, secs;

		if (!size) {
			fprintf(stderr, "memcpy-bw: '%s' is not a size in bytes\n", argv[i + 1]);
			return 2;
		}
		if (!src || !dst) {
			fprintf(stderr, "memcpy-bw: out of memory for %zu bytes\n", size);
			return 1;
		}
		memset(src, 0x5a, size);
		memset(dst, 0, size);
		start = now();
		do {
			/* A few copies between clock reads; the compiler must keep them. */
			for (int k = 0; k < 16; k++, copies++) {
				memcpy(dst, src, size);
				__asm__ volatile("" : : "r"(dst) : "memory");
			}
			secs = now() - start;
		} while (secs < min_secs);
		printf("memcpy %zu %.1f\n", size, copies * (double)size / secs / 1e6);
		free(src);
		free(dst);
	}
	return 0;
}
