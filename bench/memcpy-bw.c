// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * memcpy bandwidth in the guest: the ceiling for moving large messages, as
 * every byte a software RoCE device sends is copied at least once.
 * Prints "memcpy BYTES MBPS" for each size.
 */
#include "xrxe_test_util.h"
#include <string.h>

int main(void)
{
	static const size_t sizes[] = { 4096, 65536, 4 << 20 };
	const double min_secs = 0.5;
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t size = sizes[i], copies = 0;
		char *src = malloc(size), *dst = malloc(size);
		double start, secs;

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
