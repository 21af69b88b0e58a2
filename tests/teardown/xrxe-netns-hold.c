// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xrxe-netns-hold: a hostile process that keeps a device's verbs context
 * open while the network namespace the device belongs to is deleted, for
 * netns-hold.sh (rdma's exclusive namespace mode).
 *
 *   xrxe-netns-hold DEVICE READY_FILE GO_FILE [WAIT_SECS]
 *
 * Started inside the device's namespace, it opens DEVICE and makes a PD,
 * an MR, a CQ and an RC QP (doorbell-less by default on xrxe: its ring and
 * status page are mapped, as are the CQ's and the receive queue's rings),
 * connects the QP to itself and checks one RDMA WRITE through it. Then it
 * reads every page of its uverbs mappings, leaves for a namespace of its
 * own (unshare(CLONE_NEWNET)) with the context still open, writes
 * READY_FILE, and waits for GO_FILE to appear or for SIGUSR1, at most
 * WAIT_SECS (default 60) seconds. Meanwhile the test deletes the device's
 * namespace: the kernel must take the device away from the context
 * (disassociate it) rather than wait for this process.
 *
 * After the go it tries, each under alarm() so that none can hang:
 * ibv_post_send (another RDMA WRITE), ibv_poll_cq, ibv_query_qp, a read of
 * every mapped page again (SIGSEGV and SIGBUS caught and counted), then
 * ibv_destroy_qp, ibv_destroy_cq, ibv_dereg_mr, ibv_dealloc_pd and
 * ibv_close_device, printing what each returned. Clean means the context
 * was disassociated and nothing worked on it: ibv_query_qp failed (the
 * core answers EIO for a disassociated context), the WRITE posted after
 * the go never completed successfully, every call returned, and every
 * mapped page could still be read (the kernel backs it with a page of the
 * mapping's own). The kernel's own health is the testbed's dmesg check.
 *
 * Exit status: 0 when clean, 1 when a call worked on the context (it was
 * not disassociated) or the setup failed, 2 when no go came within
 * WAIT_SECS, 3 when a call hung past its alarm.
 */
#include "xrxe_test_dev.h"
#include "xrxe_test_rc.h"
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#define PORT		1
#define GID_INDEX	0
#define BUF_SIZE	4096
#define CALL_SECS	10
#define WRID_BEFORE	1
#define WRID_AFTER	2

static volatile sig_atomic_t go_signal;
static const char *volatile current_call = "setup";
static sigjmp_buf fault_jmp;
static volatile sig_atomic_t fault_armed;

static void on_usr1(int sig)
{
	(void)sig;
	go_signal = 1;
}

/* A call that did not return within CALL_SECS: say which, and go. */
static void on_alarm(int sig)
{
	static const char msg[] = "xrxe-netns-hold: FAIL: hung in ";
	const char *call = current_call;

	(void)sig;
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0 ||
	    write(STDOUT_FILENO, call, strlen(call)) < 0 ||
	    write(STDOUT_FILENO, "\n", 1) < 0)
		_exit(3);
	_exit(3);
}

static void on_fault(int sig)
{
	if (!fault_armed)
		_exit(128 + sig);
	fault_armed = 0;
	siglongjmp(fault_jmp, sig);
}

static void handle(int sig, void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL))
		die("sigaction %d: %s", sig, strerror(errno));
}

/* Start the bound on one call, named in the output should it hang. */
static void begin(const char *call)
{
	current_call = call;
	alarm(CALL_SECS);
}

static void end(void)
{
	alarm(0);
}

/* A teardown call under the bound, and what it returned. */
#define BOUNDED_CALL(call) do {						\
	int rc_;							\
									\
	begin(#call);							\
	rc_ = (call);							\
	end();								\
	printf("%s: %d (%s)\n", #call, rc_, strerror(rc_));		\
} while (0)

/*
 * Read one byte of every page of every uverbs mapping of this process
 * (the provider's queues and status pages): the mappings and pages seen,
 * and the reads that faulted.
 */
static unsigned long read_mappings(const char *when, bool *any)
{
	/* volatile: kept across the siglongjmp() out of a faulting read */
	volatile unsigned long maps = 0, pages = 0, faults = 0, sum = 0;
	unsigned long start, stop;
	volatile unsigned long a;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		die("open /proc/self/maps: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "/dev/infiniband/uverbs") ||
		    sscanf(line, "%lx-%lx", &start, &stop) != 2)
			continue;
		maps++;
		for (a = start; a < stop; a += 4096) {
			pages++;
			fault_armed = 1;
			if (sigsetjmp(fault_jmp, 1)) {
				faults++;
				continue;
			}
			sum += *(volatile unsigned char *)a;
			fault_armed = 0;
		}
	}
	fclose(f);
	printf("read mappings %s: %lu mappings, %lu pages, %lu faulted (sum %lu)\n",
	       when, maps, pages, faults, sum);
	if (any)
		*any = maps > 0;
	return faults;
}

static void show_netns(const char *when)
{
	char link[64];
	ssize_t n = readlink("/proc/self/ns/net", link, sizeof(link) - 1);

	if (n < 0)
		die("readlink /proc/self/ns/net: %s", strerror(errno));
	link[n] = '\0';
	printf("netns %s: %s\n", when, link);
}

static int post_write(struct ibv_qp *qp, struct ibv_mr *mr, char *buf, uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf,
		.length = BUF_SIZE / 2,
		.lkey = mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = {
			.remote_addr = (uintptr_t)buf + BUF_SIZE / 2,
			.rkey = mr->rkey,
		},
	}, *bad;

	return ibv_post_send(qp, &wr, &bad);
}

/* Until a completion comes, at most secs: 1 and *wc, 0, or poll's error. */
static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc, double secs)
{
	double limit = now() + secs;
	int n;

	do {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n;
		usleep(1000);
	} while (now() < limit);
	return 0;
}

static void write_ready(const char *path)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%d\n", getpid()) < 0 || fclose(f) || rename(tmp, path))
		die("writing %s: %s", path, strerror(errno));
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr init = {
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.port_num = PORT,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
	};
	struct xrxe_rc_peer self = {
		.port = PORT, .sgid_index = GID_INDEX, .rd_atomic = 1,
		.min_rnr_timer = 12, .timeout = 14,
	};
	struct ibv_qp_init_attr qinit;
	struct ibv_qp_attr qattr;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_wc wc;
	struct stat st;
	const char *step;
	bool clean = true, mapped;
	double limit;
	char *buf;
	int ret, n, wait_secs;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: xrxe-netns-hold DEVICE READY_FILE GO_FILE [WAIT_SECS]\n");
		return 2;
	}
	wait_secs = argc == 5 ? atoi(argv[4]) : 60;
	setvbuf(stdout, NULL, _IOLBF, 0);
	handle(SIGALRM, on_alarm);
	handle(SIGUSR1, on_usr1);
	handle(SIGSEGV, on_fault);
	handle(SIGBUS, on_fault);

	/* The context and its objects, in the device's namespace. */
	begin("setup");
	ctx = xrxe_open_device(argv[1]);
	if (ibv_query_gid(ctx, PORT, GID_INDEX, &self.gid))
		die("query GID %d", GID_INDEX);
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		die("alloc PD: %s", strerror(errno));
	buf = calloc(1, BUF_SIZE);
	if (!buf)
		die("out of memory");
	mr = ibv_reg_mr(pd, buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!mr)
		die("reg MR: %s", strerror(errno));
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!cq)
		die("create CQ: %s", strerror(errno));
	init.send_cq = cq;
	init.recv_cq = cq;
	qp = ibv_create_qp(pd, &init);
	if (!qp)
		die("create QP: %s", strerror(errno));
	if (ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("QP to INIT");
	self.qpn = qp->qp_num;
	ret = xrxe_rc_rtr_rts(qp, &self, &step);
	if (ret)
		die("QP to %s: %s", step, strerror(ret));
	/* One WRITE to itself: the mapped queues work. */
	memset(buf, 0x5a, BUF_SIZE / 2);
	ret = post_write(qp, mr, buf, WRID_BEFORE);
	if (ret)
		die("post a WRITE: %s", strerror(ret));
	n = poll_one(cq, &wc, 5);
	if (n != 1 || wc.status != IBV_WC_SUCCESS || wc.wr_id != WRID_BEFORE ||
	    memcmp(buf, buf + BUF_SIZE / 2, BUF_SIZE / 2))
		die("the WRITE to itself: poll %d, status %s", n,
		    n == 1 ? ibv_wc_status_str(wc.status) : "-");
	end();
	printf("QP %u of %s: a WRITE to itself completed\n", qp->qp_num, argv[1]);
	read_mappings("before", &mapped);
	if (!mapped)
		die("no uverbs mapping: the queues are not mapped");

	/* Away from the device's namespace, the context kept open. */
	show_netns("before");
	if (unshare(CLONE_NEWNET))
		die("unshare(CLONE_NEWNET): %s", strerror(errno));
	show_netns("after");
	write_ready(argv[2]);
	printf("ready: holding the context, waiting at most %d s for %s or SIGUSR1\n",
	       wait_secs, argv[3]);
	limit = now() + wait_secs;
	while (!go_signal && stat(argv[3], &st)) {
		if (now() > limit) {
			printf("xrxe-netns-hold: FAIL: no go within %d s\n", wait_secs);
			return 2;
		}
		usleep(100000);
	}
	printf("go\n");

	/* Every call on the context now, each bounded. */
	memset(buf + BUF_SIZE / 2, 0, BUF_SIZE / 2);
	begin("ibv_post_send");
	ret = post_write(qp, mr, buf, WRID_AFTER);
	end();
	printf("ibv_post_send: %d (%s)\n", ret, ret ? strerror(ret) : "accepted");

	begin("ibv_poll_cq");
	n = poll_one(cq, &wc, 1);
	end();
	if (n == 1)
		printf("ibv_poll_cq: 1: wr_id %llu status %s\n",
		       (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status));
	else
		printf("ibv_poll_cq: %d\n", n);
	if (!memcmp(buf, buf + BUF_SIZE / 2, BUF_SIZE / 2) ||
	    (!ret && n == 1 && wc.wr_id == WRID_AFTER && wc.status == IBV_WC_SUCCESS)) {
		printf("not clean: the WRITE posted after the go was executed\n");
		clean = false;
	}

	begin("ibv_query_qp");
	ret = ibv_query_qp(qp, &qattr, IBV_QP_STATE, &qinit);
	end();
	if (ret)
		printf("ibv_query_qp: %d (%s)\n", ret, strerror(ret));
	else
		printf("ibv_query_qp: 0 (state %d)\n", qattr.qp_state);
	if (!ret) {
		printf("not clean: ibv_query_qp worked: the context was not disassociated\n");
		clean = false;
	} else if (ret != EIO) {
		printf("not clean: ibv_query_qp failed with %s, not EIO\n", strerror(ret));
		clean = false;
	}

	/* The kernel backs a disassociated mapping with a page of its own. */
	begin("reading the mappings");
	if (read_mappings("after", NULL)) {
		printf("not clean: a read of a disassociated mapping faulted\n");
		clean = false;
	}
	end();

	BOUNDED_CALL(ibv_destroy_qp(qp));
	BOUNDED_CALL(ibv_destroy_cq(cq));
	BOUNDED_CALL(ibv_dereg_mr(mr));
	BOUNDED_CALL(ibv_dealloc_pd(pd));
	BOUNDED_CALL(ibv_close_device(ctx));
	free(buf);

	printf("%s\n", clean ? "clean: every call on the disassociated context failed or did nothing" :
	       "xrxe-netns-hold: FAIL: calls worked on a context that should be disassociated");
	return clean ? 0 : 1;
}
