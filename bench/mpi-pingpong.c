// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MPI ping-pong between two ranks (docs/benchmarks.md): per size, rank 0
 * sends, rank 1 echoes, half the round trip is a sample. Both ranks check
 * every payload outside the timed part; a mismatch exits 1.
 *
 * usage: mpi-pingpong [-n ITERATIONS] [-w WARMUP] [-p PAUSE_MS]
 *                     SIZE[:ITERATIONS[:WARMUP]]...
 *
 * Rank 0 prints perftest's latency header before a size's timed iterations
 * and a line in the shape of its results after them (t_typical: the
 * median). -p: both ranks sleep PAUSE_MS after each of the two lines, so
 * that the harness sees the timed phase's edges with nothing in flight.
 */
#include <mpi.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TAG 17

static uint64_t word_of(long iter, size_t size, size_t i)
{
	uint64_t x = (uint64_t)iter * 0x9e3779b97f4a7c15ULL ^ (uint64_t)size << 32 ^ i;

	x ^= x >> 29;
	return x * 0xbf58476d1ce4e5b9ULL;
}

/* The payload of one iteration: a different byte pattern every time, so
 * that a stale buffer never passes for a fresh one. */
static void fill(unsigned char *buf, size_t size, long iter)
{
	size_t i;

	for (i = 0; i + 8 <= size; i += 8) {
		uint64_t w = word_of(iter, size, i);

		memcpy(buf + i, &w, 8);
	}
	for (; i < size; i++)
		buf[i] = (unsigned char)word_of(iter, size, i);
}

/* The offset of the first wrong 8-byte word (or tail byte), or -1. */
static long check(const unsigned char *buf, size_t size, long iter)
{
	size_t i;

	for (i = 0; i + 8 <= size; i += 8) {
		uint64_t w = word_of(iter, size, i);

		if (memcmp(buf + i, &w, 8))
			return (long)i;
	}
	for (; i < size; i++)
		if (buf[i] != (unsigned char)word_of(iter, size, i))
			return (long)i;
	return -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The value below which a share q of the sorted samples lie. */
static double percentile(const double *s, long n, double q)
{
	long i = (long)ceil(q * n) - 1;

	return s[i < 0 ? 0 : i >= n ? n - 1 : i];
}

static void usage(void)
{
	fprintf(stderr, "usage: mpi-pingpong [-n ITERATIONS] [-w WARMUP] [-p PAUSE_MS] "
		"SIZE[:ITERATIONS[:WARMUP]]...\n");
}

/* Both ranks idle for a while, then meet. */
static void pause_ranks(long ms)
{
	if (ms > 0) {
		fflush(stdout);
		usleep(ms * 1000);
	}
	MPI_Barrier(MPI_COMM_WORLD);
}

/* One iteration: rank 0 sends the iteration's pattern and checks the echo,
 * rank 1 checks what came and sends it back. Returns the half round trip
 * in us seen by rank 0 (0 on rank 1), or -1 after a mismatch (reported on
 * stderr). */
static double iteration(int rank, unsigned char *sbuf, unsigned char *rbuf, size_t size,
			long it)
{
	double t0 = 0, t1 = 0;
	long bad;

	if (rank == 0) {
		fill(sbuf, size, it);
		t0 = MPI_Wtime();
		MPI_Send(sbuf, (int)size, MPI_BYTE, 1, TAG, MPI_COMM_WORLD);
		MPI_Recv(rbuf, (int)size, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		t1 = MPI_Wtime();
	} else {
		MPI_Recv(rbuf, (int)size, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Send(rbuf, (int)size, MPI_BYTE, 0, TAG, MPI_COMM_WORLD);
	}
	/* After the clock, and on rank 1 after the echo left: no check is timed. */
	bad = check(rbuf, size, it);
	if (bad >= 0) {
		fprintf(stderr, "mpi-pingpong: rank %d: %s of %zu B, iteration %ld, "
			"wrong at byte %ld\n", rank, rank ? "message" : "echo", size, it, bad);
		return -1;
	}
	return (t1 - t0) * 1e6 / 2;
}

/* One size: warm-up, header, the timed iterations, result line. Returns 0,
 * or 1 after a mismatch (the caller aborts the job). */
static int pingpong(int rank, size_t size, long iters, long warmup, long pause_ms)
{
	unsigned char *sbuf = malloc(size ? size : 1), *rbuf = malloc(size ? size : 1);
	double *t = calloc(iters, sizeof(*t)), sum = 0, sq = 0, mean, v;
	long it;

	if (!sbuf || !rbuf || !t) {
		fprintf(stderr, "mpi-pingpong: out of memory for %zu B\n", size);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	memset(rbuf, 0xa5, size);
	MPI_Barrier(MPI_COMM_WORLD);
	/* Warm-up iterations carry patterns of their own (negative numbers). */
	for (it = -warmup; it < 0; it++)
		if (iteration(rank, sbuf, rbuf, size, it) < 0)
			return 1;
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
		       "t_avg[usec]    t_stdev[usec]   99%% percentile[usec]   "
		       "99.9%% percentile[usec]\n");
	pause_ranks(pause_ms);
	for (it = 0; it < iters; it++) {
		v = iteration(rank, sbuf, rbuf, size, it);
		if (v < 0)
			return 1;
		t[it] = v;
	}
	if (rank == 0) {
		for (it = 0; it < iters; it++)
			sum += t[it];
		mean = sum / iters;
		for (it = 0; it < iters; it++)
			sq += (t[it] - mean) * (t[it] - mean);
		qsort(t, iters, sizeof(*t), cmp_double);
		printf(" %-7zu %-10ld %-13.2f %-13.2f %-13.2f %-13.2f %-13.2f %-13.2f %.2f\n",
		       size, iters, t[0], t[iters - 1], percentile(t, iters, 0.5), mean,
		       sqrt(sq / iters), percentile(t, iters, 0.99), percentile(t, iters, 0.999));
	}
	pause_ranks(pause_ms);
	free(sbuf);
	free(rbuf);
	free(t);
	return 0;
}

/* SIZE[:ITERATIONS[:WARMUP]]: 0, or -1 for a bad one. */
static int parse_size(const char *arg, long iters, long warmup, size_t *size, long *n,
		      long *w)
{
	char *end;
	long s = strtol(arg, &end, 0);

	*n = iters;
	*w = warmup;
	if (end != arg && *end == ':')
		*n = strtol(end + 1, &end, 0);
	if (end != arg && *end == ':')
		*w = strtol(end + 1, &end, 0);
	if (end == arg || *end || s < 0 || s > 1L << 30 || *n < 1 || *w < 0)
		return -1;
	*size = (size_t)s;
	return 0;
}

int main(int argc, char **argv)
{
	long iters = 1000, warmup = 10, pause_ms = 0, n, w;
	size_t size;
	char devices[64], *all = NULL;
	int rank, ranks, opt, i, rc = 0;
	const char *env;

	while ((opt = getopt(argc, argv, "n:w:p:h")) != -1) {
		switch (opt) {
		case 'n':
			iters = atol(optarg);
			break;
		case 'w':
			warmup = atol(optarg);
			break;
		case 'p':
			pause_ms = atol(optarg);
			break;
		default:
			usage();
			return 2;
		}
	}
	if (optind >= argc || iters < 1 || warmup < 0 || pause_ms < 0) {
		usage();
		return 2;
	}
	for (i = optind; i < argc; i++)
		if (parse_size(argv[i], iters, warmup, &size, &n, &w)) {
			fprintf(stderr, "mpi-pingpong: bad size '%s'\n", argv[i]);
			return 2;
		}

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &ranks);
	if (ranks != 2) {
		if (rank == 0)
			fprintf(stderr, "mpi-pingpong: needs exactly 2 ranks, not %d\n", ranks);
		MPI_Finalize();
		return 2;
	}
	/* Which device each rank was given, for the log. */
	env = getenv("UCX_NET_DEVICES");
	snprintf(devices, sizeof(devices), "%s", env ? env : "(any)");
	if (rank == 0)
		all = malloc(2 * sizeof(devices));
	MPI_Gather(devices, sizeof(devices), MPI_CHAR, all, sizeof(devices), MPI_CHAR, 0,
		   MPI_COMM_WORLD);
	if (rank == 0) {
		printf("# mpi-pingpong: rank 0 on %s, rank 1 on %s\n", all,
		       all + sizeof(devices));
		free(all);
	}
	for (i = optind; i < argc && !rc; i++) {
		parse_size(argv[i], iters, warmup, &size, &n, &w);
		rc = pingpong(rank, size, n, w, pause_ms);
	}
	if (rc)
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Finalize();
	return 0;
}
