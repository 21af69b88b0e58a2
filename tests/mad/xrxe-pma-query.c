// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * usage: xrxe-pma-query DEVICE
 *
 * A performance management client speaking the kernel's user MAD ABI
 * (/dev/infiniband/umadN), as perfquery does once it has opened its port:
 * PMA Gets sent on QP1, with a GRH to the port's own GID, answered by the
 * device through the MAD layer. Checks that ClassPortInfo offers 64-bit
 * counters, that PortCountersExtended and PortCounters carry the packets
 * and octets the device counted (read from its hw counters just before
 * and just after each query), and that what the device does not answer
 * (a Set, another port, an attribute it lacks) comes back with an error
 * status and changes nothing. (perfquery itself cannot open a RoCE port:
 * it registers with the SMI class, and a RoCE port has no QP0.)
 */
#include "xrxe_test_util.h"

#include <dirent.h>
#include <endian.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <rdma/ib_user_mad.h>
#include <rdma/rdma_user_ioctl.h>

#define MAD_SIZE		256
#define PERF_CLASS		0x04
#define METHOD_GET		0x01
#define METHOD_SET		0x02
#define METHOD_GET_RESP		0x81
#define ATTR_CLASS_PORT_INFO	0x0001
#define ATTR_PORT_COUNTERS	0x0012
#define ATTR_PORT_COUNTERS_EXT	0x001D
#define ATTR_PORT_SAMPLES_CTL	0x0010
#define GSI_QKEY		0x80010000u
/* PMA attributes start 40 bytes into the MAD's data, 24 bytes in. */
#define PMA_DATA		(24 + 40)

static const char *dev;
static int fd;
static uint32_t agent;
static uint64_t tid = 1;

struct sample {
	uint64_t sent_pkts, rcvd_pkts, sent_bytes, rcvd_bytes;
};

static uint64_t hw_counter(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/%s", dev, name);
	return read_number_file(path);
}

static void sample(struct sample *s)
{
	/* The core caches hw_counters for 10 ms: read a fresh sum. */
	usleep(50 * 1000);
	s->sent_pkts = hw_counter("sent_pkts");
	s->rcvd_pkts = hw_counter("rcvd_pkts");
	s->sent_bytes = hw_counter("sent_bytes");
	s->rcvd_bytes = hw_counter("rcvd_bytes");
}

/* The umad device of dev's port 1. */
static void open_umad(void)
{
	char path[300], name[64];
	struct dirent *d;
	DIR *dir = opendir("/sys/class/infiniband_mad");
	FILE *f;
	int found = 0;

	if (!dir)
		die("no /sys/class/infiniband_mad (ib_umad not loaded?)");
	while (!found && (d = readdir(dir))) {
		if (strncmp(d->d_name, "umad", 4))
			continue;
		snprintf(path, sizeof(path), "/sys/class/infiniband_mad/%s/ibdev",
			 d->d_name);
		f = fopen(path, "r");
		if (f && fscanf(f, "%63s", name) == 1 && !strcmp(name, dev)) {
			snprintf(path, sizeof(path), "/dev/infiniband/%s", d->d_name);
			found = 1;
		}
		if (f)
			fclose(f);
	}
	closedir(dir);
	if (!found)
		die("no umad device for %s", dev);
	fd = open(path, O_RDWR);
	if (fd < 0)
		die("open %s: %s", path, strerror(errno));
	/* The header with a P_Key index: struct ib_user_mad_hdr. */
	if (ioctl(fd, IB_USER_MAD_ENABLE_PKEY))
		die("IB_USER_MAD_ENABLE_PKEY: %s", strerror(errno));
}

static void register_agent(void)
{
	struct ib_user_mad_reg_req req = {
		.qpn = 1,
		.mgmt_class = PERF_CLASS,
		.mgmt_class_version = 1,
	};

	/* No methods: a client, which receives only responses to its own. */
	if (ioctl(fd, IB_USER_MAD_REGISTER_AGENT, &req))
		die("register a PMA agent: %s", strerror(errno));
	agent = req.id;
}

static void port_gid(uint8_t gid[16])
{
	char path[256], text[64];
	unsigned int w[8];
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/gids/0", dev);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%63s", text) != 1 ||
	    sscanf(text, "%x:%x:%x:%x:%x:%x:%x:%x", &w[0], &w[1], &w[2], &w[3],
		   &w[4], &w[5], &w[6], &w[7]) != 8)
		die("read %s", path);
	fclose(f);
	for (i = 0; i < 8; i++) {
		gid[2 * i] = w[i] >> 8;
		gid[2 * i + 1] = w[i] & 0xff;
	}
}

/*
 * Send a PMA request (method, attribute, PortSelect) to our own port and
 * return its response MAD in resp; the response's MAD status.
 */
static uint16_t query(uint8_t method, uint16_t attr, uint8_t port_select,
		      uint8_t resp[MAD_SIZE])
{
	union {
		struct ib_user_mad umad;
		uint8_t bytes[sizeof(struct ib_user_mad) + MAD_SIZE];
	} req = { 0 }, got;
	uint8_t *mad = req.bytes + sizeof(struct ib_user_mad);
	uint64_t my_tid = htobe64(tid++);
	struct pollfd p = { .fd = fd, .events = POLLIN };
	double deadline = now() + 10;
	ssize_t n;
	uint16_t attr_be = htobe16(attr);

	req.umad.hdr.id = agent;
	req.umad.hdr.timeout_ms = 2000;
	req.umad.hdr.retries = 2;
	req.umad.hdr.qpn = htobe32(1);
	req.umad.hdr.qkey = htobe32(GSI_QKEY);
	req.umad.hdr.grh_present = 1;
	req.umad.hdr.hop_limit = 64;
	port_gid(req.umad.hdr.gid);

	mad[0] = 1;			/* base version */
	mad[1] = PERF_CLASS;
	mad[2] = 1;			/* class version */
	mad[3] = method;
	memcpy(mad + 8, &my_tid, 8);
	memcpy(mad + 16, &attr_be, 2);
	mad[PMA_DATA + 1] = port_select;

	if (write(fd, req.bytes, sizeof(req.bytes)) != sizeof(req.bytes))
		die("send the MAD: %s", strerror(errno));
	for (;;) {
		if (now() > deadline)
			die("no response to attribute %#x in 10 s", attr);
		if (poll(&p, 1, 1000) <= 0)
			continue;
		n = read(fd, got.bytes, sizeof(got.bytes));
		if (n < (ssize_t)sizeof(got.bytes))
			die("read a MAD: %zd, %s", n, strerror(errno));
		if (got.umad.hdr.status)
			die("attribute %#x: the MAD layer says %s", attr,
			    strerror(got.umad.hdr.status));
		/* The kernel keeps the low 32 bits of our TID. */
		if (memcmp(got.bytes + sizeof(struct ib_user_mad) + 12,
			   (uint8_t *)&my_tid + 4, 4))
			continue;
		break;
	}
	memcpy(resp, got.bytes + sizeof(struct ib_user_mad), MAD_SIZE);
	if (resp[3] != METHOD_GET_RESP)
		die("attribute %#x: method %#x in the response", attr, resp[3]);
	return be16toh(*(uint16_t *)(resp + 4)) & 0x7fff;	/* not the D bit */
}

static uint64_t be64_at(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return be64toh(v);
}

static uint32_t be32_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return be32toh(v);
}

/* low <= v <= high, or die naming what. */
static void within(const char *what, uint64_t v, uint64_t low, uint64_t high)
{
	if (v < low || v > high)
		die("%s: %llu, the device counted %llu..%llu", what,
		    (unsigned long long)v, (unsigned long long)low,
		    (unsigned long long)high);
	printf("  %-20s %llu (device %llu..%llu)\n", what, (unsigned long long)v,
	       (unsigned long long)low, (unsigned long long)high);
}

static void check_class_port_info(void)
{
	uint8_t r[MAD_SIZE];
	uint16_t status = query(METHOD_GET, ATTR_CLASS_PORT_INFO, 0, r);

	if (status)
		die("ClassPortInfo: status %#x", status);
	/* CapabilityMask bit 9: PortCountersExtended's 64-bit counters. */
	if (!(be16toh(*(uint16_t *)(r + PMA_DATA + 2)) & (1 << 9)))
		die("ClassPortInfo: no 64-bit counters");
	printf("ClassPortInfo: 64-bit counters\n");
}

static void check_counters(void)
{
	struct sample lo, hi;
	uint8_t r[MAD_SIZE];
	const uint8_t *c = r + PMA_DATA;

	sample(&lo);
	if (query(METHOD_GET, ATTR_PORT_COUNTERS_EXT, 1, r))
		die("PortCountersExtended: status set");
	sample(&hi);
	printf("PortCountersExtended:\n");
	/* PortSelect, then the data and packet counters from byte 8. */
	if (c[1] != 1)
		die("PortCountersExtended: PortSelect %u", c[1]);
	within("PortXmitData", be64_at(c + 8), lo.sent_bytes / 4, hi.sent_bytes / 4);
	within("PortRcvData", be64_at(c + 16), lo.rcvd_bytes / 4, hi.rcvd_bytes / 4);
	within("PortXmitPkts", be64_at(c + 24), lo.sent_pkts, hi.sent_pkts);
	within("PortRcvPkts", be64_at(c + 32), lo.rcvd_pkts, hi.rcvd_pkts);
	/* The query and its answer crossed the wire: both counted. */
	if (hi.sent_pkts < lo.sent_pkts + 2 || hi.rcvd_pkts < lo.rcvd_pkts + 2)
		die("the query's own packets were not counted");

	sample(&lo);
	if (query(METHOD_GET, ATTR_PORT_COUNTERS, 1, r))
		die("PortCounters: status set");
	sample(&hi);
	printf("PortCounters:\n");
	within("PortXmitData", be32_at(c + 24), lo.sent_bytes / 4, hi.sent_bytes / 4);
	within("PortRcvData", be32_at(c + 28), lo.rcvd_bytes / 4, hi.rcvd_bytes / 4);
	within("PortXmitPkts", be32_at(c + 32), lo.sent_pkts, hi.sent_pkts);
	within("PortRcvPkts", be32_at(c + 36), lo.rcvd_pkts, hi.rcvd_pkts);
}

static void check_refused(void)
{
	struct sample lo, hi;
	uint8_t r[MAD_SIZE];
	uint16_t status;

	sample(&lo);
	/* A Set would clear counters: not answered, nothing cleared. */
	status = query(METHOD_SET, ATTR_PORT_COUNTERS, 1, r);
	if (!status)
		die("a Set of PortCounters answered with success");
	printf("Set PortCounters: status %#x\n", status);
	status = query(METHOD_GET, ATTR_PORT_COUNTERS, 2, r);
	if (!status)
		die("PortCounters of port 2 answered with success");
	printf("Get PortCounters, PortSelect 2: status %#x\n", status);
	status = query(METHOD_GET, ATTR_PORT_SAMPLES_CTL, 1, r);
	if (!status)
		die("PortSamplesControl answered with success");
	printf("Get PortSamplesControl: status %#x\n", status);
	sample(&hi);
	if (hi.sent_pkts < lo.sent_pkts || hi.sent_bytes < lo.sent_bytes)
		die("counters went back after a refused Set");
}

int main(int argc, char **argv)
{
	if (argc != 2)
		die("usage: %s DEVICE", argv[0]);
	dev = argv[1];
	open_umad();
	register_agent();
	check_class_port_info();
	check_counters();
	check_refused();
	printf("pma: all checks passed\n");
	return 0;
}
