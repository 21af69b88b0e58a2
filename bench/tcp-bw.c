// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * TCP throughput in the guest: what a user compares soft RoCE's bandwidth
 * with. STREAMS connections each write SIZE-byte messages for SECS seconds
 * to a server forked from this process, in network namespace NETNS where
 * one is given (bench/perftest.py puts one end of a veth pair there, so that
 * the bytes cross a veth as RoCE's do: two addresses of one namespace would
 * route through lo). The server end counts what it read and sends the count
 * back once its stream ends, so what was written but still queued at the
 * end is not counted as moved. Prints "tcp SIZE STREAMS MBPS" (MB: 10^6
 * bytes, as xrxe-memcpy-bw).
 *
 * usage: xrxe-tcp-bw [-n NETNS] [-s SIZE] [-P STREAMS] [-t SECS] [-p PORT] ADDRESS
 */
#include "xrxe_test_util.h"
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_STREAMS	64

static size_t size = 65536;
static int streams = 1;
static double secs = 2;
static struct sockaddr_in addr = { .sin_family = AF_INET };

struct stream {
	pthread_t thread;
	int fd;
	uint64_t received;	/* what its server end read */
	double end;		/* when that count came back */
};

static pthread_barrier_t start_line;
static double deadline;

static void full_write(int fd, const void *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("write: %s", n ? strerror(errno) : "nothing written");
		buf = (const char *)buf + n;
		len -= n;
	}
}

/* The server end of a stream: read until the client's EOF, answer the count. */
static void *serve(void *arg)
{
	int fd = (int)(intptr_t)arg;
	char *buf = malloc(size);
	uint64_t count = 0;
	ssize_t n;

	if (!buf)
		die("out of memory for %zu bytes", size);
	while ((n = read(fd, buf, size)) != 0) {
		if (n < 0 && errno != EINTR)
			die("server read: %s", strerror(errno));
		if (n > 0)
			count += n;
	}
	full_write(fd, &count, sizeof(count));
	close(fd);
	free(buf);
	return NULL;
}

/* The forked server: enter netns, listen, say so on ready, serve each stream. */
static void __attribute__((noreturn)) server(const char *netns, int ready, pid_t parent)
{
	pthread_t threads[MAX_STREAMS];
	int lfd, one = 1, i;

	/* Gone with the client: a client killed at its time limit leaves no
	 * server behind in the namespace it is to be deleted with. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		exit(1);
	if (netns) {
		char path[256];
		int nfd;

		snprintf(path, sizeof(path), "/run/netns/%s", netns);
		nfd = open(path, O_RDONLY | O_CLOEXEC);
		if (nfd < 0 || setns(nfd, CLONE_NEWNET))
			die("entering network namespace %s: %s", netns, strerror(errno));
		close(nfd);
	}
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) || listen(lfd, streams))
		die("listening on %s:%d: %s", inet_ntoa(addr.sin_addr), ntohs(addr.sin_port),
		    strerror(errno));
	full_write(ready, "", 1);
	close(ready);
	for (i = 0; i < streams; i++) {
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0)
			die("accept: %s", strerror(errno));
		if (pthread_create(&threads[i], NULL, serve, (void *)(intptr_t)fd))
			die("pthread_create failed");
	}
	for (i = 0; i < streams; i++)
		pthread_join(threads[i], NULL);
	exit(0);
}

/* A client stream: messages until the deadline, then EOF and the server's count. */
static void *send_stream(void *arg)
{
	struct stream *s = arg;
	/* Small messages read the clock every few: it would cost more than they. */
	size_t between = size < 65536 ? 65536 / size : 1, k = 0;
	char *buf = malloc(size);
	size_t got = 0;

	if (!buf)
		die("out of memory for %zu bytes", size);
	memset(buf, 0x5a, size);
	pthread_barrier_wait(&start_line);
	do {
		for (k = 0; k < between; k++)
			full_write(s->fd, buf, size);
	} while (now() < deadline);
	if (shutdown(s->fd, SHUT_WR))
		die("shutdown: %s", strerror(errno));
	while (got < sizeof(s->received)) {
		ssize_t n = read(s->fd, (char *)&s->received + got, sizeof(s->received) - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("no count from the server: %s", n ? strerror(errno) : "EOF");
		got += n;
	}
	s->end = now();
	close(s->fd);
	free(buf);
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: xrxe-tcp-bw [-n NETNS] [-s SIZE] [-P STREAMS] [-t SECS] "
		"[-p PORT] ADDRESS\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static struct stream s[MAX_STREAMS];
	const char *netns = NULL;
	int ready[2], c, i, status, port = 5201;
	double start, end = 0;
	uint64_t total = 0;
	pid_t pid;
	char byte;

	while ((c = getopt(argc, argv, "n:s:P:t:p:")) != -1) {
		switch (c) {
		case 'n': netns = optarg; break;
		case 's': size = strtoul(optarg, NULL, 0); break;
		case 'P': streams = atoi(optarg); break;
		case 't': secs = atof(optarg); break;
		case 'p': port = atoi(optarg); break;
		default: usage();
		}
	}
	if (optind != argc - 1 || !size || streams < 1 || streams > MAX_STREAMS ||
	    !(secs > 0 && secs < 600) || port < 1 || port > 65535 ||
	    inet_pton(AF_INET, argv[optind], &addr.sin_addr) != 1)
		usage();
	addr.sin_port = htons(port);
	/* A write to a stream the server dropped fails instead of killing us. */
	signal(SIGPIPE, SIG_IGN);
	/* Bounded: a stream that stops moving ends the run, a failure. */
	alarm((unsigned int)secs + 60);

	if (pipe2(ready, O_CLOEXEC))
		die("pipe: %s", strerror(errno));
	pid = getpid();
	c = fork();
	if (c < 0)
		die("fork: %s", strerror(errno));
	if (!c) {
		close(ready[0]);
		server(netns, ready[1], pid);
	}
	close(ready[1]);
	if (read(ready[0], &byte, 1) != 1)
		die("the server did not start (see above)");
	close(ready[0]);

	/* Every stream connected before the clock starts: no handshake in it. */
	if (pthread_barrier_init(&start_line, NULL, streams + 1))
		die("pthread_barrier_init failed");
	for (i = 0; i < streams; i++) {
		s[i].fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (s[i].fd < 0 || connect(s[i].fd, (struct sockaddr *)&addr, sizeof(addr)))
			die("connecting to %s: %s", argv[optind], strerror(errno));
		if (pthread_create(&s[i].thread, NULL, send_stream, &s[i]))
			die("pthread_create failed");
	}
	start = now();
	deadline = start + secs;
	pthread_barrier_wait(&start_line);
	for (i = 0; i < streams; i++) {
		pthread_join(s[i].thread, NULL);
		total += s[i].received;
		if (s[i].end > end)
			end = s[i].end;
	}
	if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		die("the server failed (see above)");
	printf("tcp %zu %d %.1f\n", size, streams, total / (end - start) / 1e6);
	return 0;
}
