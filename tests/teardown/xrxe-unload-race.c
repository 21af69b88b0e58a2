// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xrxe-unload-race: kill -9 the given processes and unload a module as soon
 * as their exits let go of it, for teardown.sh's rmmod cycles.
 *
 *   xrxe-unload-race MODULE TIMEOUT_MS PID...
 *
 * Sends SIGKILL to every PID, then calls delete_module(MODULE, O_NONBLOCK)
 * in a loop until it succeeds: the unload then runs while the killed
 * processes are still finishing their exits, and while their last packets
 * and deferred work may still be in flight. rmmod(8) cannot race like this
 * in the testbed, where starting a program takes most of a second.
 *
 * Prints the number of refusals (EBUSY or EWOULDBLOCK: still in use) and
 * the time to the unload. Exit status 0 when the module was unloaded, 1 on
 * another error or when TIMEOUT_MS passed.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

int main(int argc, char **argv)
{
	long start, limit;
	unsigned long refusals = 0;
	int i;

	if (argc < 4) {
		fprintf(stderr, "usage: xrxe-unload-race MODULE TIMEOUT_MS PID...\n");
		return 2;
	}
	limit = atol(argv[2]) * 1000L;
	for (i = 3; i < argc; i++)
		kill(atoi(argv[i]), SIGKILL);
	start = now_us();
	while (syscall(SYS_delete_module, argv[1], O_NONBLOCK)) {
		if (errno != EBUSY && errno != EWOULDBLOCK) {
			fprintf(stderr, "xrxe-unload-race: delete_module %s: %s\n", argv[1],
				strerror(errno));
			return 1;
		}
		refusals++;
		if (now_us() - start > limit) {
			fprintf(stderr, "xrxe-unload-race: %s still in use %s ms after the kill\n",
				argv[1], argv[2]);
			return 1;
		}
		/* Let the exits run on this CPU too. */
		sched_yield();
	}
	printf("unloaded %s %ld us after the kill, %lu refusals\n", argv[1],
	       now_us() - start, refusals);
	return 0;
}
