// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MPI over xrxe, checked: every rank's payloads of point-to-point
 * exchanges (eager and rendezvous sizes), a broadcast, an allreduce and an
 * alltoall are compared with what they must be. Prints one line per
 * operation and size; exits 1 if any byte was wrong, after all ran.
 *
 * usage: mpirun -np N xrxe-mpi-check [ROUNDS]
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int sizes[] = { 8, 4096, 65536, 1048576 };
#define NSIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))

/* The byte at offset i of what rank r sends in round k. */
static unsigned char pattern(int r, int k, size_t i)
{
	return (unsigned char)((i * 131u) ^ (unsigned int)(r * 7 + k * 13 + 1));
}

static void fill(unsigned char *buf, size_t size, int r, int k)
{
	for (size_t i = 0; i < size; i++)
		buf[i] = pattern(r, k, i);
}

/* The first offset where buf is not rank r's round k, or -1. */
static long first_bad(const unsigned char *buf, size_t size, int r, int k)
{
	for (size_t i = 0; i < size; i++)
		if (buf[i] != pattern(r, k, i))
			return (long)i;
	return -1;
}

static int report(int rank, const char *op, int size, long bad_rounds, int rounds)
{
	long all = 0;

	MPI_Reduce(&bad_rounds, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("%-10s %8d B: %s (%d rounds%s)\n", op, size, all ? "WRONG" : "ok", rounds,
		       all ? ", some payload differed" : "");
	return all != 0;
}

int main(int argc, char **argv)
{
	int rank, nranks, rounds = argc > 1 ? atoi(argv[1]) : 10, failed = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if (rounds < 1 || nranks < 2) {
		if (rank == 0)
			fprintf(stderr, "xrxe-mpi-check: needs ROUNDS >= 1 and 2 or more ranks\n");
		MPI_Finalize();
		return 2;
	}

	int max = sizes[NSIZES - 1];
	unsigned char *sbuf = malloc((size_t)max * nranks);
	unsigned char *rbuf = malloc((size_t)max * nranks);

	if (!sbuf || !rbuf) {
		fprintf(stderr, "xrxe-mpi-check: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	for (int s = 0; s < NSIZES; s++) {
		size_t size = (size_t)sizes[s];
		int peer = rank ^ 1;
		long bad = 0;

		/* Point to point: pairs (0,1), (2,3), ... swap their rounds. */
		for (int k = 0; k < rounds && peer < nranks; k++) {
			fill(sbuf, size, rank, k);
			memset(rbuf, 0, size);
			MPI_Sendrecv(sbuf, (int)size, MPI_BYTE, peer, k, rbuf, (int)size, MPI_BYTE,
				     peer, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			bad += first_bad(rbuf, size, peer, k) >= 0;
		}
		failed |= report(rank, "sendrecv", sizes[s], bad, rounds);

		/* Broadcast from a root that changes every round. */
		bad = 0;
		for (int k = 0; k < rounds; k++) {
			int root = k % nranks;

			if (rank == root)
				fill(rbuf, size, root, k);
			else
				memset(rbuf, 0, size);
			MPI_Bcast(rbuf, (int)size, MPI_BYTE, root, MPI_COMM_WORLD);
			bad += first_bad(rbuf, size, root, k) >= 0;
		}
		failed |= report(rank, "bcast", sizes[s], bad, rounds);

		/* Allreduce of 64-bit sums: element i of rank r is r * i + k. */
		size_t n = size / sizeof(int64_t) ? size / sizeof(int64_t) : 1;
		int64_t *in = (int64_t *)sbuf, *out = (int64_t *)rbuf;

		bad = 0;
		for (int k = 0; k < rounds; k++) {
			for (size_t i = 0; i < n; i++)
				in[i] = (int64_t)rank * (int64_t)i + k;
			MPI_Allreduce(in, out, (int)n, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
			int64_t ranksum = (int64_t)nranks * (nranks - 1) / 2;

			for (size_t i = 0; i < n; i++)
				if (out[i] != ranksum * (int64_t)i + (int64_t)nranks * k) {
					bad++;
					break;
				}
		}
		failed |= report(rank, "allreduce", (int)(n * sizeof(int64_t)), bad, rounds);

		/* Alltoall: block j of rank r's send buffer goes to rank j. */
		bad = 0;
		for (int k = 0; k < rounds; k++) {
			for (int j = 0; j < nranks; j++)
				fill(sbuf + (size_t)j * size, size, rank * nranks + j, k);
			memset(rbuf, 0, size * nranks);
			MPI_Alltoall(sbuf, (int)size, MPI_BYTE, rbuf, (int)size, MPI_BYTE,
				     MPI_COMM_WORLD);
			for (int j = 0; j < nranks; j++)
				if (first_bad(rbuf + (size_t)j * size, size, j * nranks + rank, k) >= 0) {
					bad++;
					break;
				}
		}
		failed |= report(rank, "alltoall", sizes[s], bad, rounds);
	}
	free(sbuf);
	free(rbuf);
	MPI_Finalize();
	return failed;
}
