// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Wire fuzzer: malformed and hostile RoCEv2 packets at one device while
 * connections on it keep passing checked traffic. Run in the testbed, which
 * puts DEV0 (xrxe0) on veth0 and DEV1 (xrxe1) on veth1 and fails the run on
 * a kernel splat.
 *
 *   xrxe-wire-fuzz [-d DEV0] [-D DEV1] [-S SEED] [-n PACKETS] [-s SECONDS]
 *                  [-c CHECK_EVERY] [-t POLL_SECS] [-m MIN_LEN] [-k]
 *                  [-C CLASS,...] [-l LOG [-L PER_FILE]]
 *                  [-r LOG [-R FIRST:LAST]] [-v] [-V]
 *
 * Packets leave an ordinary UDP socket bound to DEV1's link-local address
 * for DEV0's, port 4791: the kernel writes the IPv6 and UDP headers, the
 * fuzzer everything from the BTH on, ICRC included. Most packets carry a
 * correct ICRC so that they pass rxe's ICRC check and reach its transport
 * state machines.
 *
 * On DEV0 live a victim RC QP (its peer on DEV1, a remote-accessible MR), a
 * UD QP and a bystander RC pair in a PD of its own. Packets are aimed at
 * the victim, the UD QP, QP1, former and never-existing QPNs, never at the
 * bystander. Every CHECK_EVERY packets each connection passes traffic with
 * checked payloads (send, RDMA write, read, fetch-and-add both ways); then
 * the victim sends its peer a "bait" no receive waits for, which stays
 * outstanding (RNR, retried) so that responses aimed at the victim meet a
 * requester waiting for an ACK. The victim (or the UD QP) may break when a
 * packet hit it: it is then made again and counted, at the check or, found
 * in the error state between checks, at once. The bystander must never
 * break, memory outside the MRs must stay untouched, a packet with a bad ICRC must never land, and
 * neither victim nor UD QP may break in a stretch where nothing was aimed
 * at it (one in four stretches aims nothing at the victim).
 *
 * -V holds the model of rxe's receive filter (model_accept()) against DEV0's
 * rcvd_pkts counter packet by packet, with the bait off so that nothing
 * else reaches DEV0 between checks, and prints every packet they disagree
 * on. -C keeps only the named packet classes (those of the table printed
 * at the end). -m MIN_LEN sends no UDP payload shorter than MIN_LEN bytes.
 *
 * The fuzzer found four bugs that the stock rxe of Linux 6.12 still has
 * and xrxe's series fixes first: a packet shorter than a BTH (0 to 11
 * bytes) puts a stale pkt->qp in rxe_rcv(), an Oops; a response that does
 * not answer the outstanding WQE completes it as a success (with a WARN in
 * the completer); an RDMA WRITE whose RETH length is 0 but which carries a
 * payload is copied through a NULL MR (a WARN in rxe_mr_copy()); a request
 * that fails in the responder while the QP enters the error state from
 * elsewhere is executed again for ever. -k steps around them to fuzz a
 * stock rxe past them: it implies -m 12, aims only requests at the victim
 * in one stretch and only responses in the next, and sends no zero-length
 * RDMA WRITE with a payload (the WARN_ON slow enough to widen the endless
 * loop's window to most of a millisecond).
 *
 * Every run is seeded (-S). With -l, each batch of packets is written to
 * LOG.0 or LOG.1 (alternately, PER_FILE packets each) before it is sent, so
 * that the packets that preceded a crash survive it; -r sends a log's
 * packets again, with QPNs, PSNs and keys that referred to the victim or the
 * UD QP moved to the ones of this run.
 *
 * Exit status 0 when every check held.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "xrxe_test_dev.h"
#include "xrxe_test_rc.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define PORT		1
#define GID_INDEX	0
#define ROCE_PORT	4791
#define PKT_MAX		65000
#define BATCH		16
#define MTU		1024
#define PSN_MASK	0xffffffu
#define QPN_MASK	0xffffffu
#define MCAST_QPN	0xffffffu
/*
 * rxe's GSI QP (QP1) is the first QP a device makes, when ib_mad opens it:
 * the first index of rxe's QP pool.
 */
#define GSI_INDEX	16
#define UD_QKEY		0x11111111u
#define GSI_QKEY	0x80010000u

#define RMR_SIZE	(64 * 1024)	/* remote-accessible MR */
#define GUARD		4096		/* unregistered pages around it */
#define GUARD_BYTE	0xa5
#define LMR_SIZE	(16 * 1024)	/* local MR: send and receive slots */
#define SLOT		512
#define UD_SLOTS	32
#define UD_SLOT		4096
#define UD_RECV		(2048 + 40)	/* a UD receive: payload and GRH */
#define CANARY_OFF	(RMR_SIZE / 2)	/* a bystander MR's untouched half */
#define CANARY_LEN	(RMR_SIZE / 2 - 64)
/* MRs at fixed I/O virtual addresses: a logged packet's VA stays valid */
#define VICTIM_IOVA	0x5a0000000000ull
#define BYST_IOVA	0x5b0000000000ull
#define PEER_IOVA	0x5c0000000000ull

/* A payload that may only reach memory if a bad ICRC got through. */
static const char bad_magic[16] = "BadIcrcMustDrop!";

/* IBA opcodes: transport in the top 3 bits, operation in the low 5. */
enum {
	T_RC = 0x00, T_UC = 0x20, T_RD = 0x40, T_UD = 0x60, T_XRC = 0xa0,
	O_SEND_FIRST = 0x00, O_SEND_MIDDLE, O_SEND_LAST, O_SEND_LAST_IMM,
	O_SEND_ONLY, O_SEND_ONLY_IMM, O_WRITE_FIRST, O_WRITE_MIDDLE,
	O_WRITE_LAST, O_WRITE_LAST_IMM, O_WRITE_ONLY, O_WRITE_ONLY_IMM,
	O_READ_REQ, O_READ_RESP_FIRST, O_READ_RESP_MIDDLE, O_READ_RESP_LAST,
	O_READ_RESP_ONLY, O_ACK, O_ATOMIC_ACK, O_CMP_SWAP, O_FETCH_ADD,
	O_SEND_LAST_INV = 0x16, O_SEND_ONLY_INV = 0x17, O_FLUSH = 0x1c,
	O_ATOMIC_WRITE = 0x1d,
};

/* Extension headers, in the order they follow the BTH. */
enum {
	E_RDETH = 1 << 0, E_DETH = 1 << 1, E_XRCETH = 1 << 2, E_FETH = 1 << 3,
	E_RETH = 1 << 4, E_ATMETH = 1 << 5, E_AETH = 1 << 6, E_ATMACK = 1 << 7,
	E_IMMDT = 1 << 8, E_IETH = 1 << 9,
};

enum {
	C_TRUNC, C_BADICRC, C_OPCODE, C_PSN, C_RETH, C_ATOMIC, C_AETH,
	C_OVERSIZE, C_RANDOM, C_UD, C_GSI, C_PROOF, NCLASS
};
static const char *const cls_name[NCLASS] = {
	"truncated", "bad-icrc", "opcode-sweep", "psn-window", "reth",
	"atomic", "aeth", "oversize", "random", "ud", "qp1", "proof",
};
/* Shares of the packet mix, in percent (the proof packets are extra). */
static unsigned int cls_weight[NCLASS] = {
	8, 5, 20, 10, 14, 8, 10, 3, 8, 7, 7, 0,
};

/* splitmix64: one seeded stream decides every packet. */
static uint64_t rng_state;

static uint64_t rnd64(void)
{
	return splitmix64(&rng_state);
}

static uint32_t rnd(uint32_t n)
{
	return n ? rnd64() % n : 0;
}

static bool chance(unsigned int pct)
{
	return rnd(100) < pct;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put24(uint8_t *p, uint32_t v)
{
	p[0] = v >> 16;
	p[1] = v >> 8;
	p[2] = v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, v >> 32);
	put32(p + 4, v);
}

static uint32_t get24(const uint8_t *p)
{
	return p[0] << 16 | p[1] << 8 | p[2];
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

/*
 * The ICRC: CRC-32 (reflected, polynomial 0xedb88320) over 8 bytes of 0xff
 * standing for the LRH a RoCEv2 packet lacks, the IPv6 header with traffic
 * class, flow label and hop limit all ones, the UDP header with checksum
 * 0xffff, the BTH with its reserved byte 4 all ones, then the rest of the
 * packet up to the ICRC; inverted, stored little-endian after the payload.
 */
static uint32_t crc_table[256];
static uint32_t icrc_seed;

static uint32_t crc32_le(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

static void crc_init(void)
{
	static const uint8_t lrh[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint32_t c, i, k;

	for (i = 0; i < 256; i++) {
		for (c = i, k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320 ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
	icrc_seed = crc32_le(~0u, lrh, sizeof(lrh));
	/* rxe starts from the same constant */
	if (icrc_seed != 0xdebb20e3)
		die("CRC seed %#x, expected 0xdebb20e3", icrc_seed);
}

/* The addresses and ports the packets travel with. */
static struct {
	struct in6_addr src, dst;
	uint16_t sport;
	int fd;
	struct sockaddr_in6 to;
} wire;

/* The CRC over the masked headers up to the BTH, of a body-byte packet. */
static uint32_t icrc_start(const uint8_t *p, size_t body)
{
	uint16_t udp_len = body + 4 + 8;
	uint8_t ph[60];
	uint32_t crc;

	ph[0] = 0x6f;
	ph[1] = ph[2] = ph[3] = 0xff;
	put16(ph + 4, udp_len);
	ph[6] = IPPROTO_UDP;
	ph[7] = 0xff;
	memcpy(ph + 8, &wire.src, 16);
	memcpy(ph + 24, &wire.dst, 16);
	put16(ph + 40, wire.sport);
	put16(ph + 42, ROCE_PORT);
	put16(ph + 44, udp_len);
	ph[46] = ph[47] = 0xff;
	memcpy(ph + 48, p, 12);
	ph[48 + 4] = 0xff;
	crc = crc32_le(icrc_seed, ph, sizeof(ph));
	return crc;
}

/* ICRC of a packet whose ICRC starts at offset body (at least 12). */
static uint32_t icrc_of(const uint8_t *p, size_t body)
{
	return ~crc32_le(icrc_start(p, body), p + 12, body - 12);
}

static size_t ext_len(unsigned int e);
static unsigned int ext_of(uint8_t op);

/*
 * rxe's opcode table gives RC FLUSH, RD ACKNOWLEDGE and RD ATOMIC
 * ACKNOWLEDGE no payload offset, so its ICRC for them covers the headers
 * after the BTH, then the whole packet again from the (unmasked) BTH on.
 * rxe drops these opcodes with the standard ICRC, and sends FLUSH with its
 * own; the fuzzer sends both.
 */
static bool rxe_icrc_quirk(uint8_t op)
{
	return op == 0x1c || op == 0x51 || op == 0x52;
}

static uint32_t icrc_quirk_of(const uint8_t *p, size_t body)
{
	size_t hdr = 12 + ext_len(ext_of(p[0]));
	uint32_t c = crc32_le(icrc_start(p, body), p + 12, (hdr < body ? hdr : body) - 12);

	return ~crc32_le(c, p, body);
}

static bool icrc_is(const uint8_t *p, size_t len, bool quirk)
{
	uint32_t c;

	if (len < 16)
		return false;
	c = quirk ? icrc_quirk_of(p, len - 4) : icrc_of(p, len - 4);
	return p[len - 4] == (uint8_t)c && p[len - 3] == (uint8_t)(c >> 8) &&
	       p[len - 2] == (uint8_t)(c >> 16) && p[len - 1] == (uint8_t)(c >> 24);
}

/* The standard ICRC */
static bool icrc_ok(const uint8_t *p, size_t len)
{
	return icrc_is(p, len, false);
}

/* The ICRC rxe checks */
static bool icrc_rxe_ok(const uint8_t *p, size_t len)
{
	return len >= 16 && icrc_is(p, len, rxe_icrc_quirk(p[0]));
}

/* The extension headers of an opcode, as the IBA lays them out. */
static unsigned int ext_of(uint8_t op)
{
	unsigned int t = op & 0xe0, c = op & 0x1f, e = 0;

	if (t == T_RD)
		e = c >= O_READ_RESP_FIRST && c <= O_ATOMIC_ACK ? E_RDETH : E_RDETH | E_DETH;
	else if (t == T_UD)
		e = E_DETH;
	else if (t == T_XRC)
		e = E_XRCETH;
	else if (t != T_RC && t != T_UC)
		return 0;
	switch (c) {
	case O_SEND_LAST_IMM: case O_SEND_ONLY_IMM: case O_WRITE_LAST_IMM:
		return e | E_IMMDT;
	case O_WRITE_FIRST: case O_WRITE_ONLY: case O_READ_REQ: case O_ATOMIC_WRITE:
		return e | E_RETH;
	case O_WRITE_ONLY_IMM:
		return e | E_RETH | E_IMMDT;
	case O_READ_RESP_FIRST: case O_READ_RESP_LAST: case O_READ_RESP_ONLY: case O_ACK:
		return e | E_AETH;
	case O_ATOMIC_ACK:
		return e | E_AETH | E_ATMACK;
	case O_CMP_SWAP: case O_FETCH_ADD:
		return e | E_ATMETH;
	case O_SEND_LAST_INV: case O_SEND_ONLY_INV:
		return e | E_IETH;
	case O_FLUSH:
		return e | E_FETH | E_RETH;
	}
	return e;
}

static size_t ext_len(unsigned int e)
{
	return (e & E_RDETH ? 4 : 0) + (e & E_DETH ? 8 : 0) + (e & E_XRCETH ? 4 : 0) +
	       (e & E_FETH ? 4 : 0) + (e & E_RETH ? 16 : 0) + (e & E_ATMETH ? 28 : 0) +
	       (e & E_AETH ? 4 : 0) + (e & E_ATMACK ? 8 : 0) + (e & E_IMMDT ? 4 : 0) +
	       (e & E_IETH ? 4 : 0);
}

/* The opcodes rxe's receive path knows (its rxe_opcode[] table). */
static bool rxe_knows(uint8_t op)
{
	unsigned int c = op & 0x1f;

	switch (op & 0xe0) {
	case T_RC:
		return c <= O_FETCH_ADD || c == O_SEND_LAST_INV || c == O_SEND_ONLY_INV ||
		       c == O_FLUSH || c == O_ATOMIC_WRITE;
	case T_UC:
		return c <= O_WRITE_ONLY_IMM;
	case T_RD:
		return c <= O_FETCH_ADD;
	case T_UD:
		return c == O_SEND_ONLY || c == O_SEND_ONLY_IMM;
	}
	return false;
}

static bool is_response(uint8_t op)
{
	unsigned int c = op & 0x1f;

	return c >= O_READ_RESP_FIRST && c <= O_ATOMIC_ACK;
}

/* No UDP payload shorter than this (-m) */
static size_t min_len;
/* -k: no zero-length RDMA WRITE with a payload either */
static bool known_off;

/* What the packets aim at, as of now. */
static struct {
	uint32_t victim_qpn, ud_qpn, byst_qpn;
	uint32_t rq_psn;		/* the victim's expected PSN */
	uint32_t sq_psn;		/* its last request's (the bait's) */
	uint32_t vrkey, vlkey, brkey;
	uint32_t dead[32];		/* QPNs of victims made again */
	unsigned int ndead;
	bool victim_off;		/* this stretch aims nothing at the victim */
	int victim_only;		/* -k: 1 only requests at it, 2 only responses */
	bool victim_hit, ud_hit;	/* since the last check */
	uint32_t op_next, trunc_next;
	bool flush;			/* the victim allows FLUSH */
} st;

struct pkt {
	uint8_t b[PKT_MAX];
	size_t len;
	uint64_t idx;
	int cls;
	char qk;	/* BTH QPN: v victim's, u the UD QP's, n as written */
	char pk;	/* BTH PSN: r victim's expected + prel, s its last request's + prel, n as written */
	int32_t prel;
	char rk;	/* key at rkoff: v victim MR, b bystander MR, l victim's local MR (xor rkx), - none */
	int rkoff;
	uint32_t rkx;
	bool raw;	/* the last 4 bytes are what was written, no ICRC computed */
	bool quirk;	/* else rxe's ICRC for a FLUSH (icrc_quirk_of()), */
	uint32_t icx;	/* or the standard one, xor this */
};

/* Choices for one packet's headers, before they are laid out. */
struct hdr {
	uint8_t op, b1, resv8a, b8;	/* b1: SE, M, TVer; b8: AckReq, reserved */
	uint16_t pkey;
	int pad, padbytes;
	uint32_t qpn, psn;
	char qk, pk, rk;
	int32_t prel;
	uint32_t rkx, rkey, dlen;
	uint64_t va, swap, cmp, orig;
	uint32_t aeth, qkey, srcqp, imm, ieth, feth, rdeth, xrc;
	size_t paylen;
	int fill;	/* payload: 0 random, 1 bad_magic */
};

static uint32_t key_of(char rk)
{
	return rk == 'v' ? st.vrkey : rk == 'b' ? st.brkey : st.vlkey;
}

/* A payload length: mostly small, often around the path MTU. */
static size_t pick_paylen(void)
{
	switch (rnd(10)) {
	case 0: case 1: case 2: case 3: case 4:
		return rnd(65);
	case 5: case 6:
		return MTU - 1 + rnd(3);
	case 7:
		return rnd(MTU + 1);
	case 8:
		return rnd(4097);
	}
	return 0;
}

/* A QPN nothing of ours has: former victims, small, random, 0, multicast. */
static uint32_t other_qpn(void)
{
	uint32_t q;

	do {
		switch (rnd(20)) {
		case 0: case 1: case 2: case 3: case 4:
			q = st.ndead ? st.dead[rnd(st.ndead)] : rnd(300);
			break;
		case 5: case 6: case 7: case 8: case 9: case 10: case 11: case 12:
			q = 2 + rnd(300);
			break;
		case 13:
			q = 0;
			break;
		case 14:
			q = MCAST_QPN;
			break;
		default:
			q = rnd64() & QPN_MASK;
		}
	} while (q == st.victim_qpn || q == st.ud_qpn || q == st.byst_qpn || q == 1 ||
		 q == GSI_INDEX);
	return q;
}

static void aim_other(struct hdr *h)
{
	h->qk = 'n';
	h->qpn = other_qpn();
}

/* At the victim, unless this stretch spares it. */
static void aim_victim(struct hdr *h)
{
	if (st.victim_off)
		aim_other(h);
	else
		h->qk = 'v';
}

static void aim_ud(struct hdr *h)
{
	h->qk = 'u';
	h->qkey = chance(85) ? UD_QKEY : (uint32_t)rnd64();
}

static void aim_gsi(struct hdr *h)
{
	h->qk = 'n';
	h->qpn = chance(90) ? 1 : GSI_INDEX;
	h->qkey = chance(85) ? GSI_QKEY : (uint32_t)rnd64();
}

/* The victim's expected PSN, or for a response its last request's. */
static void psn_at(struct hdr *h, int32_t rel)
{
	h->pk = is_response(h->op) ? 's' : 'r';
	h->prel = rel;
}

/* A PSN outside the victim's window: behind (duplicate) or ahead. */
static int32_t psn_off_window(void)
{
	switch (rnd(12)) {
	case 0: return -1;
	case 1: return -2;
	case 2: return -(int32_t)(1 + rnd(8));
	case 3: return -(int32_t)(1 + rnd(1000));
	case 4: return -(1 << 23) + 1;
	case 5: return 1;
	case 6: return 2;
	case 7: return 1 + rnd(8);
	case 8: return 1 + rnd(1000);
	case 9: return (1 << 23) - 1;
	case 10: return 1 << 23;
	}
	return 1 + rnd(PSN_MASK);
}

static uint32_t pick_dlen(void)
{
	static const uint32_t lens[] = {
		0, 1, 8, MTU, MTU + 1, RMR_SIZE, RMR_SIZE + 1, 0x7fffffff,
		0x80000000, 0x80000001, 0xffffffff,
	};

	if (chance(25))
		return rnd(4097);
	if (chance(10))
		return (uint32_t)rnd64();
	return lens[rnd(ARRAY_SIZE(lens))];
}

/* A key for the victim: its own, near misses, another PD's, or junk. */
static void pick_rkey(struct hdr *h, unsigned int good_pct)
{
	h->rk = 'v';
	h->rkx = 0;
	if (chance(good_pct))
		return;
	switch (rnd(7)) {
	case 0: h->rkx = 1 + rnd(255); break;	/* the key byte */
	case 1: h->rkx = (1 + rnd(4)) << 8; break;	/* another index */
	case 2: h->rk = 'b'; break;
	case 3: h->rk = 'l'; break;
	case 4: h->rk = '-'; h->rkey = 0; break;
	case 5: h->rk = '-'; h->rkey = 0xffffffff; break;
	default: h->rk = '-'; h->rkey = (uint32_t)rnd64();
	}
}

static uint64_t pick_va(uint32_t dlen)
{
	switch (rnd(12)) {
	case 0: return VICTIM_IOVA;
	case 1: return VICTIM_IOVA + RMR_SIZE - (dlen < RMR_SIZE ? dlen : 0);
	case 2: return VICTIM_IOVA + RMR_SIZE;
	case 3: return VICTIM_IOVA + RMR_SIZE - 1;
	case 4: return VICTIM_IOVA - 1;
	case 5: return VICTIM_IOVA - GUARD;
	case 6: return 0;
	case 7: return ~0ull - rnd(4096);
	case 8: return rnd64();
	case 9: return BYST_IOVA + rnd(RMR_SIZE);
	}
	return VICTIM_IOVA + rnd(RMR_SIZE);
}

/* Plausible headers for op, aimed at nothing yet. */
static void hdr_init(struct hdr *h, uint8_t op)
{
	memset(h, 0, sizeof(*h));
	h->op = op;
	h->b1 = chance(20) ? 0x80 : 0;		/* solicited event */
	h->b8 = chance(70) ? 0x80 : 0;		/* ack request */
	h->pkey = 0xffff;
	h->qk = 'n';
	h->qpn = other_qpn();
	h->pk = 'n';
	h->psn = rnd(PSN_MASK + 1);
	h->rk = 'v';
	h->va = VICTIM_IOVA + 8 * rnd(RMR_SIZE / 8);
	h->dlen = rnd(257);
	h->swap = rnd64();
	h->cmp = rnd64();
	h->orig = rnd64();
	h->aeth = (uint32_t)rnd64();
	h->qkey = chance(50) ? UD_QKEY : (uint32_t)rnd64();
	h->srcqp = rnd(PSN_MASK + 1);
	h->imm = (uint32_t)rnd64();
	h->feth = rnd(64);
	h->rdeth = (uint32_t)rnd64();
	h->xrc = (uint32_t)rnd64();
	h->paylen = pick_paylen();
}

/* Small header damage any class may carry. */
static void perturb(struct hdr *h)
{
	if (chance(3))
		h->pkey = (uint16_t)rnd64();
	if (chance(2))
		h->b1 |= 1 + rnd(15);		/* transport version */
	if (chance(5))
		h->resv8a = (uint8_t)rnd64();	/* outside the ICRC */
	if (chance(3))
		h->b1 |= 0x40;			/* migration request */
	if (chance(3))
		h->b8 |= rnd(128);		/* reserved bits */
	if (chance(4))
		h->pad = rnd(4);		/* pad count that lies */
}

/* Lay the headers and payload out in p; the ICRC comes in finish(). */
static void emit(struct pkt *p, struct hdr *h)
{
	unsigned int e = ext_of(h->op);
	uint8_t *q = p->b;
	size_t off = 12, i, max;

	if (known_off && (h->op & 0xc0) == 0 && h->paylen && !h->dlen &&
	    ((h->op & 0x1f) == O_WRITE_FIRST || (h->op & 0x1f) == O_WRITE_ONLY ||
	     (h->op & 0x1f) == O_WRITE_ONLY_IMM))
		h->dlen = h->paylen;
	if (!h->pad && !h->padbytes)
		h->pad = h->padbytes = (4 - (h->paylen & 3)) & 3;
	max = PKT_MAX - 12 - ext_len(e) - 4 - 3;
	if (h->paylen > max)
		h->paylen = max;
	q[0] = h->op;
	q[1] = (h->b1 & 0xcf) | (h->pad & 3) << 4;
	put16(q + 2, h->pkey);
	q[4] = h->resv8a;
	put24(q + 5, h->qpn);
	q[8] = h->b8;
	put24(q + 9, h->psn);
	p->rkoff = -1;
	if (e & E_RDETH) {
		put32(q + off, h->rdeth);
		off += 4;
	}
	if (e & E_DETH) {
		put32(q + off, h->qkey);
		put32(q + off + 4, h->srcqp & QPN_MASK);
		off += 8;
	}
	if (e & E_XRCETH) {
		put32(q + off, h->xrc);
		off += 4;
	}
	if (e & E_FETH) {
		put32(q + off, h->feth);
		off += 4;
	}
	if (e & E_RETH) {
		put64(q + off, h->va);
		p->rkoff = off + 8;
		put32(q + off + 8, h->rkey);
		put32(q + off + 12, h->dlen);
		off += 16;
	}
	if (e & E_ATMETH) {
		put64(q + off, h->va);
		p->rkoff = off + 8;
		put32(q + off + 8, h->rkey);
		put64(q + off + 12, h->swap);
		put64(q + off + 20, h->cmp);
		off += 28;
	}
	if (e & E_AETH) {
		put32(q + off, h->aeth);
		off += 4;
	}
	if (e & E_ATMACK) {
		put64(q + off, h->orig);
		off += 8;
	}
	if (e & E_IMMDT) {
		put32(q + off, h->imm);
		off += 4;
	}
	if (e & E_IETH) {
		p->rkoff = off;
		put32(q + off, h->ieth);
		off += 4;
	}
	for (i = 0; i < h->paylen; i++) {
		if (h->fill == 1)
			q[off + i] = bad_magic[i % sizeof(bad_magic)];
		else if (!(i & 7))
			put64(q + off + i, rnd64());	/* the rest of it too */
	}
	off += h->paylen;
	memset(q + off, 0, h->padbytes);
	off += h->padbytes;
	p->len = off + 4;
	p->qk = h->qk;
	p->pk = h->pk;
	p->prel = h->prel;
	p->rk = p->rkoff >= 0 ? h->rk : '-';
	p->rkx = h->rkx;
	p->raw = false;
	p->icx = 0;
	/* half the FLUSHes get through to rxe's responder */
	p->quirk = rxe_icrc_quirk(h->op) && chance(50);
}

/*
 * Fill in what refers to this run's QPs (QPN, PSN, key) and the ICRC. Only
 * fields wholly before the ICRC are touched: a truncated packet keeps its
 * bytes.
 */
static void finish(struct pkt *p)
{
	size_t body = p->raw ? p->len : p->len - 4;
	uint32_t base;

	if (!p->raw && p->len < 16)
		die("packet %" PRIu64 ": %zu bytes cannot hold an ICRC", p->idx, p->len);
	if (body >= 8 && p->qk != 'n')
		put24(p->b + 5, p->qk == 'v' ? st.victim_qpn : st.ud_qpn);
	if (body >= 12 && p->pk != 'n') {
		base = p->pk == 'r' ? st.rq_psn : st.sq_psn;
		put24(p->b + 9, (base + p->prel) & PSN_MASK);
	}
	if (p->rk != '-' && p->rkoff >= 0 && (size_t)p->rkoff + 4 <= body)
		put32(p->b + p->rkoff, key_of(p->rk) ^ p->rkx);
	/* -k: not both kinds at the victim in one stretch */
	if (st.victim_only && body >= 8 && get24(p->b + 5) == st.victim_qpn &&
	    (p->b[0] & 0xe0) == T_RC && is_response(p->b[0]) == (st.victim_only == 1))
		p->b[5] ^= 0x80;
	/* never at the bystander, not even by chance */
	if (body >= 8 && get24(p->b + 5) == st.byst_qpn)
		p->b[5] ^= 0x80;
	if (!p->raw) {
		uint32_t c = (p->quirk ? icrc_quirk_of(p->b, body) : icrc_of(p->b, body)) ^ p->icx;

		p->b[body] = c;
		p->b[body + 1] = c >> 8;
		p->b[body + 2] = c >> 16;
		p->b[body + 3] = c >> 24;
	}
}

static const uint8_t rc_requests[] = {
	O_SEND_FIRST, O_SEND_MIDDLE, O_SEND_LAST, O_SEND_LAST_IMM, O_SEND_ONLY,
	O_SEND_ONLY_IMM, O_WRITE_FIRST, O_WRITE_MIDDLE, O_WRITE_LAST,
	O_WRITE_LAST_IMM, O_WRITE_ONLY, O_WRITE_ONLY_IMM, O_READ_REQ,
	O_CMP_SWAP, O_FETCH_ADD, O_SEND_LAST_INV, O_SEND_ONLY_INV, O_FLUSH,
	O_ATOMIC_WRITE,
};
static const uint8_t rc_responses[] = {
	O_READ_RESP_FIRST, O_READ_RESP_MIDDLE, O_READ_RESP_LAST,
	O_READ_RESP_ONLY, O_ACK, O_ATOMIC_ACK,
};

#define PICK(a) ((a)[rnd(ARRAY_SIZE(a))])

/* Every opcode in turn, at the victim, elsewhere, QP1 and the UD QP. */
static void gen_opcode(struct pkt *p)
{
	uint8_t op = st.op_next & 0xff;
	unsigned int aim = (st.op_next >> 8) & 3;
	struct hdr h;

	st.op_next++;
	hdr_init(&h, op);
	if (aim == 0) {
		aim_victim(&h);
		psn_at(&h, chance(70) ? 0 : psn_off_window());
	} else if (aim == 1) {
		aim_other(&h);
	} else if (aim == 2) {
		aim_gsi(&h);
	} else {
		aim_ud(&h);
	}
	pick_rkey(&h, 70);
	h.ieth = (uint32_t)rnd64();
	if ((op & 0x1f) == O_ATOMIC_WRITE && chance(70))
		h.paylen = h.dlen = 8;
	perturb(&h);
	emit(p, &h);
	if (chance(5))
		p->icx = 1u << rnd(32);
}

/* The victim, a PSN outside its window: duplicates and the far side. */
static void gen_psn(struct pkt *p)
{
	struct hdr h;

	hdr_init(&h, chance(75) ? PICK(rc_requests) : PICK(rc_responses));
	aim_victim(&h);
	psn_at(&h, psn_off_window());
	pick_rkey(&h, 90);
	h.dlen = rnd(4) ? rnd(513) : pick_dlen();
	if ((h.op & 0x1f) == O_READ_REQ)
		h.paylen = 0;
	perturb(&h);
	emit(p, &h);
}

/* RDMA headers: lengths past the MR, huge, zero; wrong keys; wild VAs. */
static void gen_reth(struct pkt *p)
{
	static const uint8_t ops[] = {
		O_WRITE_ONLY, O_WRITE_FIRST, O_WRITE_ONLY_IMM, O_READ_REQ,
		O_ATOMIC_WRITE, O_FLUSH, O_WRITE_MIDDLE, O_WRITE_LAST,
	};
	unsigned int c;
	struct hdr h;

	hdr_init(&h, PICK(ops));
	c = h.op & 0x1f;
	aim_victim(&h);
	psn_at(&h, chance(80) ? 0 : chance(60) ? -(int32_t)(1 + rnd(4)) : psn_off_window());
	h.dlen = pick_dlen();
	pick_rkey(&h, 50);
	h.va = pick_va(h.dlen);
	if (c == O_READ_REQ || c == O_FLUSH)
		h.paylen = chance(85) ? 0 : pick_paylen();
	else if (c == O_ATOMIC_WRITE)
		h.paylen = chance(60) ? 8 : pick_paylen();
	else if (chance(50))
		h.paylen = h.dlen < MTU ? h.dlen : MTU;
	if (c == O_FLUSH)
		h.feth = rnd(4) ? (1 + rnd(3)) | rnd(4) << 4 : rnd(64);
	perturb(&h);
	emit(p, &h);
}

/* Atomics: misaligned, at the MR's edges, with wrong keys. */
static void gen_atomic(struct pkt *p)
{
	static const uint8_t ops[] = { O_CMP_SWAP, O_FETCH_ADD, O_CMP_SWAP,
				       O_FETCH_ADD, O_ATOMIC_WRITE };
	struct hdr h;

	hdr_init(&h, PICK(ops));
	aim_victim(&h);
	psn_at(&h, chance(85) ? 0 : chance(60) ? -(int32_t)(1 + rnd(4)) : psn_off_window());
	pick_rkey(&h, 80);
	switch (rnd(6)) {
	case 0: case 1:
		h.va = VICTIM_IOVA + 8 * rnd(RMR_SIZE / 8) + 1 + rnd(7);
		break;
	case 2:
		h.va = VICTIM_IOVA + RMR_SIZE - 8 + rnd(9);
		break;
	case 3:
		h.va = pick_va(8);
		break;
	default:
		h.va = VICTIM_IOVA + 8 * rnd(RMR_SIZE / 8);
	}
	if ((h.op & 0x1f) == O_ATOMIC_WRITE) {
		h.dlen = chance(70) ? 8 : pick_dlen();
		h.paylen = chance(70) ? 8 : pick_paylen();
	} else {
		h.paylen = chance(85) ? 0 : pick_paylen();
	}
	perturb(&h);
	emit(p, &h);
}

/* Responses at the victim's requester: ACK/NAK codes, MSNs, read data. */
static void gen_aeth(struct pkt *p)
{
	static const uint8_t naks[] = { 0, 1, 2, 3, 4 };
	unsigned int c;
	uint8_t syn;
	struct hdr h;

	hdr_init(&h, PICK(rc_responses));
	c = h.op & 0x1f;
	aim_victim(&h);
	psn_at(&h, chance(60) ? 0 : chance(50) ? (int32_t)rnd(3) - 1 : psn_off_window());
	switch (rnd(6)) {
	case 0: syn = rnd(32); break;			/* ACK, credits */
	case 1: syn = 0x20 | rnd(32); break;		/* RNR NAK, timer */
	case 2: syn = 0x60 | PICK(naks); break;		/* NAK codes */
	case 3: syn = 0x60 | rnd(32); break;
	case 4: syn = 0x40 | rnd(32); break;		/* reserved */
	default: syn = rnd64();
	}
	h.aeth = (uint32_t)syn << 24 | (chance(50) ? rnd(16) : rnd(PSN_MASK + 1));
	if (c == O_READ_RESP_FIRST || c == O_READ_RESP_MIDDLE)
		h.paylen = chance(70) ? MTU : pick_paylen();
	else if (c == O_ACK || c == O_ATOMIC_ACK)
		h.paylen = chance(85) ? 0 : pick_paylen();
	perturb(&h);
	emit(p, &h);
}

/* A correct write the victim would take, with a bad ICRC: it must not land. */
static void gen_badicrc(struct pkt *p)
{
	struct hdr h;

	hdr_init(&h, chance(70) ? O_WRITE_ONLY : chance(50) ? O_SEND_ONLY : O_WRITE_FIRST);
	aim_victim(&h);
	psn_at(&h, 0);
	h.rk = 'v';
	h.rkx = 0;
	h.paylen = 16 * (1 + rnd(16));
	if ((h.op & 0x1f) == O_WRITE_FIRST)
		h.paylen = MTU;
	h.dlen = h.paylen;
	h.va = VICTIM_IOVA + 16 * rnd((RMR_SIZE - h.paylen) / 16);
	h.fill = 1;
	emit(p, &h);
	p->icx = chance(50) ? 1u << rnd(32) : (uint32_t)rnd64() | 1;
}

/* Every length from 0 to 84 bytes of a packet that was whole. */
static void gen_trunc(struct pkt *p)
{
	size_t len = st.trunc_next++ % 85;
	struct hdr h;
	uint8_t op;

	if (len < min_len)
		len = min_len + rnd(85 - min_len);

	do
		op = rnd(256);
	while (!rxe_knows(op));
	hdr_init(&h, op);
	switch (rnd(4)) {
	case 0:
		aim_victim(&h);
		psn_at(&h, 0);
		break;
	case 1:
		aim_ud(&h);
		break;
	case 2:
		aim_gsi(&h);
		break;
	default:
		aim_other(&h);
	}
	h.paylen = rnd(65);
	emit(p, &h);
	if (len < p->len)
		p->len = len;
	p->raw = len < 16 || chance(40);
}

/* Payloads past the path MTU, some past the link's (IPv6 fragments). */
static void gen_oversize(struct pkt *p)
{
	static const uint8_t vops[] = { O_SEND_ONLY, O_WRITE_ONLY, O_WRITE_MIDDLE,
					O_SEND_MIDDLE, O_READ_RESP_ONLY, O_ATOMIC_WRITE };
	struct hdr h;

	switch (rnd(8)) {
	case 0: case 1: case 2: case 3:
		hdr_init(&h, PICK(vops));
		aim_victim(&h);
		psn_at(&h, 0);
		h.dlen = chance(50) ? RMR_SIZE / 2 : pick_dlen();
		break;
	case 4: case 5:
		hdr_init(&h, T_UD | O_SEND_ONLY);
		aim_ud(&h);
		break;
	case 6:
		hdr_init(&h, T_UD | O_SEND_ONLY);
		aim_gsi(&h);
		break;
	default:
		hdr_init(&h, PICK(vops));
		aim_other(&h);
	}
	h.paylen = chance(97) ? MTU + 1 + rnd(8000) : 9000 + rnd(PKT_MAX - 9100);
	emit(p, &h);
}

/* Random bytes, some behind a header prefix that gets them further. */
static void gen_random(struct pkt *p)
{
	size_t i;

	p->len = chance(95) ? rnd(1501) : rnd(4001);
	if (p->len < min_len)
		p->len = min_len;
	for (i = 0; i < p->len; i++)
		p->b[i] = rnd64();
	p->qk = p->pk = 'n';
	p->rk = '-';
	p->rkoff = -1;
	p->prel = 0;
	p->rkx = 0;
	p->icx = 0;
	p->quirk = false;
	if (p->len >= 12 && chance(40)) {
		do
			p->b[0] = rnd(256);
		while (!rxe_knows(p->b[0]));
		p->b[1] &= 0xf0;
		p->b[2] = p->b[3] = 0xff;
		p->qk = (p->b[0] & 0xe0) == T_UD ? 'u' : chance(50) ? 'v' : 'n';
		if (p->qk == 'v' && st.victim_off)
			p->qk = 'n';
	}
	p->raw = p->len < 16 || chance(50);
}

/* The UD QP: right and wrong Q_Keys, sizes around its receive buffers. */
static void gen_ud(struct pkt *p)
{
	struct hdr h;

	hdr_init(&h, chance(90) ? T_UD | (chance(80) ? O_SEND_ONLY : O_SEND_ONLY_IMM) :
		 rnd(256));
	aim_ud(&h);
	switch (rnd(4)) {
	case 0:
		h.paylen = 2048 - 4 + rnd(9);
		break;
	case 1:
		h.paylen = rnd(2101);
		break;
	default:
		h.paylen = rnd(257);
	}
	perturb(&h);
	emit(p, &h);
}

/* QP1: MADs with random classes, methods and attributes (ib_mad, ib_cm). */
static void gen_gsi(struct pkt *p)
{
	static const uint8_t classes[] = { 0x01, 0x03, 0x04, 0x05, 0x06, 0x07,
					   0x07, 0x07, 0x08, 0x09, 0x10, 0x30, 0x81 };
	static const uint8_t methods[] = { 0x01, 0x02, 0x03, 0x05, 0x06, 0x07,
					   0x81, 0x82, 0x86, 0x12, 0x13, 0x14 };
	struct hdr h;
	size_t off;
	uint8_t *m;

	hdr_init(&h, T_UD | (chance(90) ? O_SEND_ONLY : O_SEND_ONLY_IMM));
	aim_gsi(&h);
	h.srcqp = chance(50) ? 1 : rnd(PSN_MASK + 1);
	h.paylen = chance(80) ? 256 : rnd(400);
	perturb(&h);
	emit(p, &h);
	off = 12 + ext_len(ext_of(h.op));
	if (h.paylen < 24)
		return;
	m = p->b + off;
	m[0] = chance(90) ? 1 : rnd(256);		/* base version */
	m[1] = PICK(classes);				/* management class */
	m[2] = chance(80) ? (m[1] == 0x07 ? 2 : 1) : rnd(256);
	m[3] = PICK(methods);
	if (chance(70))
		m[4] = m[5] = 0;			/* status */
	/* attribute: the CM's REQ..ClassPortInfo, or anything */
	put16(m + 16, chance(70) ? 0x0010 + rnd(16) : chance(30) ? 1 : rnd(65536));
}

static void (*const gen[NCLASS])(struct pkt *) = {
	gen_trunc, gen_badicrc, gen_opcode, gen_psn, gen_reth, gen_atomic,
	gen_aeth, gen_oversize, gen_random, gen_ud, gen_gsi, NULL,
};

/*
 * Whether rxe_rcv() would count p as received: a known opcode, a length
 * that holds its headers, TVer 0, an existing QP of the opcode's transport
 * in a state that takes it, the default P_Key, for UD the Q_Key, then the
 * ICRC. The oracle the device's rcvd_pkts counter is held against.
 */
static bool model_accept(const uint8_t *b, size_t len)
{
	uint32_t qpn, qkey, want;
	uint8_t op;

	if (len < 12)
		return false;
	op = b[0];
	if (!rxe_knows(op))
		return false;
	if (len < 12 + ext_len(ext_of(op)) + ((b[1] >> 4) & 3) + 4)
		return false;
	if (b[1] & 0x0f)
		return false;
	qpn = get24(b + 5);
	if (!qpn)
		return false;
	if (qpn != MCAST_QPN) {
		if (qpn == st.victim_qpn || qpn == st.byst_qpn) {
			if ((op & 0xe0) != T_RC)
				return false;
		} else if (qpn == st.ud_qpn || qpn == 1 || qpn == GSI_INDEX) {
			if ((op & 0xe0) != T_UD)
				return false;
			qkey = get32(b + 12);
			want = qpn == st.ud_qpn ? UD_QKEY : GSI_QKEY;
			if (qkey != want)
				return false;
		} else {
			return false;
		}
		if (((b[2] << 8 | b[3]) & 0x7fff) != 0x7fff)
			return false;
	}
	return icrc_rxe_ok(b, len);
}

/* Statistics */
static struct {
	uint64_t sent[NCLASS], icrc[NCLASS], model[NCLASS];
	uint64_t total, bytes, checks, victim_remade, ud_remade, ud_foreign;
	uint64_t victim_state, victim_desync, victim_traffic, victim_early;
	double send_secs;
} stats;

/* The packet log: written ahead of each batch, for replays. */
static struct {
	const char *prefix;
	uint64_t per_file, in_file;
	int fd, which;
	char *buf;
	size_t len, cap;
} plog = { .fd = -1 };

static void log_open(void)
{
	char path[4096];

	if (plog.fd >= 0)
		close(plog.fd);
	snprintf(path, sizeof(path), "%s.%d", plog.prefix, plog.which);
	plog.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (plog.fd < 0)
		die("open %s: %m", path);
	plog.in_file = 0;
}

static void log_add(const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(plog.buf + plog.len, plog.cap - plog.len, fmt, ap);
		va_end(ap);
		if (plog.len + n < plog.cap)
			break;
		plog.cap = 2 * plog.cap + n + 1;
		plog.buf = realloc(plog.buf, plog.cap);
		if (!plog.buf)
			die("log buffer");
	}
	plog.len += n;
}

static void log_flush(void)
{
	size_t done = 0;
	ssize_t r;

	while (done < plog.len) {
		r = write(plog.fd, plog.buf + done, plog.len - done);
		if (r <= 0)
			die("writing the packet log: %m");
		done += r;
	}
	plog.len = 0;
}

static void log_batch(struct pkt *ps, int n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;
	int k;

	if (!plog.prefix)
		return;
	if (plog.in_file >= plog.per_file) {
		plog.which ^= 1;
		log_open();
	}
	log_add("S %" PRIu64 " victim=%#x ud=%#x byst=%#x rq_psn=%#x sq_psn=%#x "
		"vrkey=%#x brkey=%#x vlkey=%#x off=%d\n", ps[0].idx, st.victim_qpn,
		st.ud_qpn, st.byst_qpn, st.rq_psn, st.sq_psn, st.vrkey, st.brkey,
		st.vlkey, st.victim_off);
	for (k = 0; k < n; k++) {
		struct pkt *p = &ps[k];
		char *o;

		log_add("P %" PRIu64 " %s %c %c %d %c %d %#x %s%x %zu ", p->idx,
			cls_name[p->cls], p->qk, p->pk, p->prel, p->rk, p->rkoff,
			p->rkx, p->raw ? "-" : p->quirk ? "q" : "", p->raw ? 0 : p->icx,
			p->len);
		if (plog.cap - plog.len < 2 * p->len + 2) {
			plog.cap += 2 * p->len + 2;
			plog.buf = realloc(plog.buf, plog.cap);
			if (!plog.buf)
				die("log buffer");
		}
		o = plog.buf + plog.len;
		for (i = 0; i < p->len; i++) {
			*o++ = hex[p->b[i] >> 4];
			*o++ = hex[p->b[i] & 15];
		}
		*o++ = '\n';
		plog.len = o - plog.buf;
	}
	plog.in_file += n;
	log_flush();
}

static int verbose;

/* -V: DEV0's rcvd_pkts, read uncached after each packet */
static struct {
	bool on;
	int fd;
	uint64_t last, agree, disagree;
} vfy = { .fd = -1 };

static uint64_t read_rcvd(void)
{
	char buf[32];
	ssize_t n = pread(vfy.fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		die("reading rcvd_pkts: %m");
	buf[n] = 0;
	return strtoull(buf, NULL, 10);
}

static void show_pkt(const struct pkt *p)
{
	size_t i;

	printf("packet %" PRIu64 " %s len %zu qpn %#x psn %#x op %#x icrc %s:",
	       p->idx, cls_name[p->cls], p->len, p->len >= 8 ? get24(p->b + 5) : 0,
	       p->len >= 12 ? get24(p->b + 9) : 0, p->len ? p->b[0] : 0,
	       icrc_ok(p->b, p->len) ? "ok" : icrc_rxe_ok(p->b, p->len) ? "rxe" : "bad");
	for (i = 0; i < p->len && i < 64; i++)
		printf(" %02x", p->b[i]);
	printf("%s\n", p->len > 64 ? " ..." : "");
}

static void verify_pkt(const struct pkt *p)
{
	bool want = model_accept(p->b, p->len);
	uint64_t now_rcvd = read_rcvd();
	int tries;

	/* a packet's receive normally runs inside its sendto() */
	for (tries = 0; now_rcvd - vfy.last != want && tries < 5; tries++) {
		usleep(20000);
		now_rcvd = read_rcvd();
	}
	if (now_rcvd - vfy.last == want) {
		vfy.agree++;
	} else {
		vfy.disagree++;
		printf("model: %s, device counted %" PRIu64 ": ", want ? "taken" : "dropped",
		       now_rcvd - vfy.last);
		show_pkt(p);
	}
	vfy.last = now_rcvd;
}

static void send_pkt(struct pkt *p)
{
	ssize_t r;

	for (;;) {
		r = sendto(wire.fd, p->b, p->len, 0, (struct sockaddr *)&wire.to,
			   sizeof(wire.to));
		if (r == (ssize_t)p->len)
			break;
		if (r < 0 && (errno == ENOBUFS || errno == EAGAIN || errno == EINTR)) {
			usleep(200);
			continue;
		}
		die("sendto of packet %" PRIu64 " (%zu bytes): %m", p->idx, p->len);
	}
	stats.sent[p->cls]++;
	stats.total++;
	stats.bytes += p->len;
	if (icrc_rxe_ok(p->b, p->len))
		stats.icrc[p->cls]++;
	if (model_accept(p->b, p->len))
		stats.model[p->cls]++;
	if (vfy.on)
		verify_pkt(p);
	if (p->len >= 8) {
		uint32_t q = get24(p->b + 5);

		if (q == st.victim_qpn)
			st.victim_hit = true;
		if (q == st.ud_qpn)
			st.ud_hit = true;
	}
}

/* Verbs side */

struct dev {
	const char *name;
	struct ibv_context *ctx;
	union ibv_gid gid;
	unsigned int ifindex;
	char ifname[IF_NAMESIZE];
};

static struct dev dev0, dev1;
static double poll_secs = 5;
static char why[512];

static bool fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return false;
}

static void open_dev(struct dev *d)
{
	struct ibv_gid_entry ge;

	d->ctx = xrxe_open_device(d->name);
	if (ibv_query_gid_ex(d->ctx, PORT, GID_INDEX, &ge, 0))
		die("GID %d of %s: %m", GID_INDEX, d->name);
	d->gid = ge.gid;
	d->ifindex = ge.ndev_ifindex;
	if (!if_indextoname(d->ifindex, d->ifname))
		die("interface %u of %s: %m", d->ifindex, d->name);
}

/* One end of a connection: QP, CQ, a local MR and a remote-accessible one. */
struct end {
	struct dev *dev;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *lmr, *rmr;
	uint8_t *lbuf, *rall, *rbuf;
	size_t lsize;
	uint64_t iova;
};

static bool end_init(struct end *e, struct dev *d, struct ibv_pd *pd, size_t lsize,
		     uint64_t iova, int flush)
{
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

	e->dev = d;
	e->pd = pd;
	e->lsize = lsize;
	e->iova = iova;
	e->lbuf = aligned_alloc(4096, lsize);
	e->rall = aligned_alloc(4096, RMR_SIZE + 2 * GUARD);
	if (!e->lbuf || !e->rall)
		die("buffers");
	memset(e->lbuf, 0, lsize);
	memset(e->rall, GUARD_BYTE, RMR_SIZE + 2 * GUARD);
	e->rbuf = e->rall + GUARD;
	memset(e->rbuf, 0, RMR_SIZE);
	e->lmr = ibv_reg_mr(pd, e->lbuf, lsize, IBV_ACCESS_LOCAL_WRITE);
	e->rmr = NULL;
	/* FLUSH with global visibility (IB_UVERBS_ACCESS_FLUSH_GLOBAL), if allowed */
	if (flush)
		e->rmr = ibv_reg_mr_iova(pd, e->rbuf, RMR_SIZE, iova, access | flush);
	if (e->rmr)
		return true;
	e->rmr = ibv_reg_mr_iova(pd, e->rbuf, RMR_SIZE, iova, access);
	if (!e->lmr || !e->rmr)
		die("MRs on %s: %m", d->name);
	return false;
}

static bool guards_intact(const struct end *e)
{
	size_t i;

	for (i = 0; i < GUARD; i++)
		if (e->rall[i] != GUARD_BYTE || e->rbuf[RMR_SIZE + i] != GUARD_BYTE)
			return false;
	return true;
}

#define CANARY(i) ((uint8_t)((i) * 7 + 3))

static void qp_make(struct end *e, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = 32, .max_recv_wr = 64, .max_send_sge = 1,
			 .max_recv_sge = 1, .max_inline_data = 64 },
		.qp_type = type,
	};

	e->cq = ibv_create_cq(e->dev->ctx, 256, NULL, NULL, 0);
	if (!e->cq)
		die("CQ on %s: %m", e->dev->name);
	attr.send_cq = attr.recv_cq = e->cq;
	e->qp = ibv_create_qp(e->pd, &attr);
	if (!e->qp)
		die("QP on %s: %m", e->dev->name);
}

static void qp_unmake(struct end *e)
{
	if (ibv_destroy_qp(e->qp) || ibv_destroy_cq(e->cq))
		die("destroying a QP or CQ on %s: %m", e->dev->name);
	e->qp = NULL;
	e->cq = NULL;
}

static int rc_access(void)
{
	return IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
	       IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
}

static void rc_connect(struct end *e, const struct end *peer, uint32_t rq_psn,
		       uint32_t sq_psn, int flush)
{
	const struct xrxe_rc_peer conn = {
		.qpn = peer->qp->qp_num, .gid = peer->dev->gid, .port = PORT,
		.sgid_index = GID_INDEX, .rq_psn = rq_psn, .sq_psn = sq_psn,
		.rd_atomic = 4,
		/* 2.56 ms: the bait SEND comes back often while it waits */
		.min_rnr_timer = 16, .timeout = 14,
	};
	const char *step;
	int ret;
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = PORT,
		.qp_access_flags = rc_access() | flush,
	};

	if (ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) {
		a.qp_access_flags = rc_access();
		if (!flush || ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
			die("RC QP to INIT: %m");
		st.flush = false;
	}
	ret = xrxe_rc_rtr_rts(e->qp, &conn, &step);
	if (ret)
		die("RC QP to %s: %s", step, strerror(ret));
}

/*
 * An RC connection: a on DEV0 (the side packets are aimed at), b on DEV1.
 * After each check, a sends b a "bait" no receive waits for: it stays
 * outstanding (RNR, retried for ever) so that responses aimed at a find its
 * requester waiting for an ACK.
 */
struct rc_pair {
	const char *name;
	struct end a, b;
	uint64_t seq, bait_seq;
	uint32_t bait_psn;
	bool bait;
	int flush;
};

static uint32_t start_psn(void)
{
	/* now and then just before the PSN wraps */
	return chance(25) ? (PSN_MASK - rnd(8)) : rnd(PSN_MASK + 1);
}

static void rc_make(struct rc_pair *p)
{
	uint32_t ab = start_psn(), ba = start_psn();

	qp_make(&p->a, IBV_QPT_RC);
	qp_make(&p->b, IBV_QPT_RC);
	rc_connect(&p->a, &p->b, ba, ab, p->flush);
	rc_connect(&p->b, &p->a, ab, ba, 0);
	p->bait = false;
}

static void rc_unmake(struct rc_pair *p)
{
	qp_unmake(&p->a);
	qp_unmake(&p->b);
}

static bool post_send(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t wr_id,
		      void *addr, uint32_t len, uint32_t lkey, uint64_t raddr,
		      uint32_t rkey, uint64_t add)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = len, .lkey = lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = add;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	if (ibv_post_send(qp, &wr, &bad))
		return fail("post_send opcode %d: %m", op);
	return true;
}

static bool post_recv(struct ibv_qp *qp, uint64_t wr_id, void *addr, uint32_t len,
		      uint32_t lkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = len, .lkey = lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 }, *bad;

	if (ibv_post_recv(qp, &wr, &bad))
		return fail("post_recv: %m");
	return true;
}

/* The next completion on cq, within poll_secs; 0 when none came. */
static int next_wc(struct ibv_cq *cq, struct ibv_wc *wc)
{
	double deadline = now() + poll_secs;
	int r;

	while ((r = ibv_poll_cq(cq, 1, wc)) == 0 && now() < deadline)
		;
	if (r < 0)
		die("poll_cq: %d", r);
	return r;
}

/* The completion of wr_id, successful, next on cq. */
static bool await(struct ibv_cq *cq, uint64_t wr_id, const char *what)
{
	struct ibv_wc wc;

	if (!next_wc(cq, &wc))
		return fail("%s: no completion in %.0f s", what, poll_secs);
	if (wc.wr_id != wr_id)
		return fail("%s: completion of wr_id %#" PRIx64 " (status %s), expected %#"
			    PRIx64, what, wc.wr_id, ibv_wc_status_str(wc.status), wr_id);
	if (wc.status != IBV_WC_SUCCESS)
		return fail("%s: status %s", what, ibv_wc_status_str(wc.status));
	return true;
}

static void pattern(uint8_t *buf, size_t len, uint64_t seq, int step)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)(seq * 31 + step * 7 + i * 13 + (i >> 8));
	if (len >= 8)
		memcpy(buf, &seq, 8);
}

static bool same(const uint8_t *got, size_t len, uint64_t seq, int step, const char *what)
{
	uint8_t want[SLOT];
	size_t i;

	pattern(want, len, seq, step);
	for (i = 0; i < len; i++)
		if (got[i] != want[i])
			return fail("%s: byte %zu is %#x, expected %#x", what, i, got[i], want[i]);
	return true;
}

static bool bait_off;

enum { S_SEND = 1, S_WRITE, S_READ, S_ATOMIC, S_BACK, S_BACK_READ, S_BAIT };
#define WR(seq, step) ((seq) << 8 | (step))
#define LSLOT(e, i) ((e)->lbuf + (i) * SLOT)

static bool qp_query(struct ibv_qp *qp, struct ibv_qp_attr *a)
{
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp, a, IBV_QP_STATE | IBV_QP_RQ_PSN | IBV_QP_SQ_PSN, &ia))
		return fail("query_qp: %m");
	return true;
}

/* a sends b a message no receive waits for, unless the run is over. */
static bool post_bait(struct rc_pair *p)
{
	struct end *a = &p->a;
	struct ibv_qp_attr qa;
	uint64_t s = p->seq;

	if (bait_off)
		return true;
	if (!qp_query(a->qp, &qa))
		return false;
	p->bait_psn = qa.sq_psn;
	pattern(LSLOT(a, 3), 64, s, S_BAIT);
	if (!post_send(a->qp, IBV_WR_SEND, WR(s, S_BAIT), LSLOT(a, 3), 64,
		       a->lmr->lkey, 0, 0, 0))
		return false;
	p->bait = true;
	p->bait_seq = s;
	return true;
}

/*
 * The connection works: states and PSNs agree, the bait arrives once a
 * receive waits for it, then b sends, writes, reads and adds on a, and a
 * sends to and reads from b, every byte checked.
 */
static bool check_rc(struct rc_pair *p)
{
	struct end *a = &p->a, *b = &p->b;
	struct ibv_qp_attr qa, qb;
	volatile uint64_t *slot;
	struct ibv_wc wc;
	uint64_t s, v, got;
	size_t off;

	if (!qp_query(a->qp, &qa) || !qp_query(b->qp, &qb))
		return false;
	if (qa.qp_state != IBV_QPS_RTS || qb.qp_state != IBV_QPS_RTS) {
		if (!strcmp(p->name, "victim"))
			stats.victim_state++;
		/* how a's last WQE ended says what broke it */
		if (ibv_poll_cq(a->cq, 1, &wc) > 0)
			return fail("%s: states %d (DEV0) and %d (DEV1), not RTS; DEV0's "
				    "first completion: wr_id %#" PRIx64 " status %s", p->name,
				    qa.qp_state, qb.qp_state, wc.wr_id,
				    ibv_wc_status_str(wc.status));
		return fail("%s: states %d (DEV0) and %d (DEV1), not RTS", p->name,
			    qa.qp_state, qb.qp_state);
	}
	/*
	 * While the bait waits, b still expects it, and a's next PSN is after
	 * it or, between an RNR NAK and the retry, the bait's own.
	 */
	if (qa.rq_psn != qb.sq_psn ||
	    (p->bait ? qb.rq_psn != p->bait_psn ||
		       (qa.sq_psn != p->bait_psn &&
			qa.sq_psn != ((p->bait_psn + 1) & PSN_MASK)) :
		       qa.sq_psn != qb.rq_psn)) {
		if (!strcmp(p->name, "victim"))
			stats.victim_desync++;
		return fail("%s: PSNs apart: DEV0 expects %#x, DEV1 sends %#x; DEV0 sends "
			    "%#x, DEV1 expects %#x (bait %s %#x)", p->name, qa.rq_psn,
			    qb.sq_psn, qa.sq_psn, qb.rq_psn, p->bait ? "at" : "was",
			    p->bait_psn);
	}
	if (p->bait) {
		if (ibv_poll_cq(a->cq, 1, &wc) > 0)
			return fail("%s: the bait completed (%s) with no receive for it",
				    p->name, ibv_wc_status_str(wc.status));
		memset(LSLOT(b, 6), 0, SLOT);
		if (!post_recv(b->qp, WR(p->bait_seq, S_BAIT), LSLOT(b, 6), SLOT,
			       b->lmr->lkey) ||
		    !await(a->cq, WR(p->bait_seq, S_BAIT), "bait send") ||
		    !await(b->cq, WR(p->bait_seq, S_BAIT), "bait receive") ||
		    !same(LSLOT(b, 6), 64, p->bait_seq, S_BAIT, "bait payload"))
			return false;
		p->bait = false;
	}
	s = ++p->seq;

	/* b sends to a */
	memset(LSLOT(a, 0), 0, SLOT);
	pattern(LSLOT(b, 0), 64, s, S_SEND);
	if (!post_recv(a->qp, WR(s, S_SEND), LSLOT(a, 0), SLOT, a->lmr->lkey) ||
	    !post_send(b->qp, IBV_WR_SEND, WR(s, S_SEND), LSLOT(b, 0), 64,
		       b->lmr->lkey, 0, 0, 0) ||
	    !await(b->cq, WR(s, S_SEND), "send b->a") ||
	    !await(a->cq, WR(s, S_SEND), "receive at a") ||
	    !same(LSLOT(a, 0), 64, s, S_SEND, "send payload"))
		return false;

	/* b writes into a's MR, then reads it back */
	off = (s * 256) % (RMR_SIZE / 2);
	memset(a->rbuf + off, 0, 256);
	pattern(LSLOT(b, 1), 256, s, S_WRITE);
	if (!post_send(b->qp, IBV_WR_RDMA_WRITE, WR(s, S_WRITE), LSLOT(b, 1), 256,
		       b->lmr->lkey, a->iova + off, a->rmr->rkey, 0) ||
	    !await(b->cq, WR(s, S_WRITE), "write b->a") ||
	    !same(a->rbuf + off, 256, s, S_WRITE, "written bytes"))
		return false;
	memset(LSLOT(b, 2), 0, SLOT);
	if (!post_send(b->qp, IBV_WR_RDMA_READ, WR(s, S_READ), LSLOT(b, 2), 256,
		       b->lmr->lkey, a->iova + off, a->rmr->rkey, 0) ||
	    !await(b->cq, WR(s, S_READ), "read b<-a") ||
	    !same(LSLOT(b, 2), 256, s, S_WRITE, "read bytes"))
		return false;

	/* b adds to a word of a's MR */
	slot = (volatile uint64_t *)(a->rbuf + RMR_SIZE - 8);
	v = s * 1000003;
	*slot = v;
	memset(LSLOT(b, 3), 0, 8);
	if (!post_send(b->qp, IBV_WR_ATOMIC_FETCH_AND_ADD, WR(s, S_ATOMIC), LSLOT(b, 3),
		       8, b->lmr->lkey, a->iova + RMR_SIZE - 8, a->rmr->rkey, 5) ||
	    !await(b->cq, WR(s, S_ATOMIC), "fetch-add b->a"))
		return false;
	memcpy(&got, LSLOT(b, 3), 8);
	if (got != v || *slot != v + 5)
		return fail("%s: fetch-add returned %#" PRIx64 " leaving %#" PRIx64
			    ", expected %#" PRIx64 " and %#" PRIx64, p->name, got,
			    (uint64_t)*slot, v, v + 5);

	/* a sends to b and reads b's MR: a's requester and completer */
	memset(LSLOT(b, 4), 0, SLOT);
	pattern(LSLOT(a, 1), 64, s, S_BACK);
	if (!post_recv(b->qp, WR(s, S_BACK), LSLOT(b, 4), SLOT, b->lmr->lkey) ||
	    !post_send(a->qp, IBV_WR_SEND, WR(s, S_BACK), LSLOT(a, 1), 64,
		       a->lmr->lkey, 0, 0, 0) ||
	    !await(a->cq, WR(s, S_BACK), "send a->b") ||
	    !await(b->cq, WR(s, S_BACK), "receive at b") ||
	    !same(LSLOT(b, 4), 64, s, S_BACK, "send a->b payload"))
		return false;
	pattern(b->rbuf, 128, s, S_BACK_READ);
	memset(LSLOT(a, 2), 0, SLOT);
	if (!post_send(a->qp, IBV_WR_RDMA_READ, WR(s, S_BACK_READ), LSLOT(a, 2), 128,
		       a->lmr->lkey, b->iova, b->rmr->rkey, 0) ||
	    !await(a->cq, WR(s, S_BACK_READ), "read a<-b") ||
	    !same(LSLOT(a, 2), 128, s, S_BACK_READ, "read a<-b bytes"))
		return false;

	return post_bait(p);
}

/* UD: a on DEV0 keeps UD_SLOTS receives posted; b on DEV1. */
struct ud_pair {
	struct end a, b;
	struct ibv_ah *to_a, *to_b;
	uint64_t seq;
};

#define UD_MAGIC 0x5544434b3a585258ull	/* sent by the check, not a fuzzer */
#define UD_RECV_WR (1ull << 60)

static void ud_to_rts(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = PORT, .qkey = UD_QKEY,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_QKEY))
		die("UD QP to INIT: %m");
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		die("UD QP to RTR: %m");
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = rnd(PSN_MASK + 1);
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		die("UD QP to RTS: %m");
}

static struct ibv_ah *ah_to(struct ibv_pd *pd, const struct dev *d)
{
	struct ibv_ah_attr a = {
		.is_global = 1, .port_num = PORT,
		.grh = { .dgid = d->gid, .sgid_index = GID_INDEX, .hop_limit = 1 },
	};
	struct ibv_ah *ah = ibv_create_ah(pd, &a);

	if (!ah)
		die("AH to %s: %m", d->name);
	return ah;
}

static void ud_make(struct ud_pair *u)
{
	int i;

	qp_make(&u->a, IBV_QPT_UD);
	qp_make(&u->b, IBV_QPT_UD);
	ud_to_rts(u->a.qp);
	ud_to_rts(u->b.qp);
	for (i = 0; i < UD_SLOTS; i++)
		if (!post_recv(u->a.qp, UD_RECV_WR | i, u->a.lbuf + i * UD_SLOT, UD_RECV,
			       u->a.lmr->lkey))
			die("UD receives: %s", why);
}

static bool ud_post(struct end *e, struct ibv_ah *ah, uint32_t qpn, uint64_t seq,
		    uint8_t *buf)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 128, .lkey = e->lmr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = seq, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { .ah = ah, .remote_qpn = qpn, .remote_qkey = UD_QKEY },
	}, *bad;
	uint64_t magic = UD_MAGIC;

	pattern(buf, 128, seq, S_SEND);
	memcpy(buf + 8, &magic, 8);
	if (ibv_post_send(e->qp, &wr, &bad))
		return fail("UD post_send: %m");
	return true;
}

static bool ud_payload_is(const uint8_t *buf, uint64_t seq)
{
	uint8_t want[128];
	uint64_t magic = UD_MAGIC;

	pattern(want, 128, seq, S_SEND);
	memcpy(want + 8, &magic, 8);
	return !memcmp(buf, want, 128);
}

/*
 * b sends a two messages and a sends b one. Whatever else the fuzzer
 * delivered to a's receives is counted and skipped (a's CQ has its sends
 * too); the three messages must arrive whole.
 */
static bool check_ud(struct ud_pair *u)
{
	struct end *a = &u->a, *b = &u->b;
	uint64_t s1 = ++u->seq, s2 = ++u->seq, s3 = ++u->seq;
	bool got1 = false, got2 = false, sent3 = false;
	uint8_t *abuf = a->lbuf + UD_SLOTS * UD_SLOT, *buf;
	struct ibv_qp_attr qa;
	struct ibv_wc wc;
	double deadline;
	unsigned int i;

	if (!qp_query(a->qp, &qa))
		return false;
	if (qa.qp_state != IBV_QPS_RTS)
		return fail("UD QP in state %d", qa.qp_state);
	/* the fuzzer's deliveries may have used every receive: give them back */
	while (ibv_poll_cq(a->cq, 1, &wc) > 0) {
		if (!(wc.wr_id & UD_RECV_WR))
			return fail("UD: stray send completion %#" PRIx64, wc.wr_id);
		stats.ud_foreign++;
		i = wc.wr_id & 0xff;
		if (!post_recv(a->qp, wc.wr_id, a->lbuf + i * UD_SLOT, UD_RECV,
			       a->lmr->lkey))
			return false;
	}
	memset(LSLOT(b, 4), 0, SLOT);
	if (!ud_post(b, u->to_a, a->qp->qp_num, s1, LSLOT(b, 0)) ||
	    !await(b->cq, s1, "UD send 1") ||
	    !ud_post(b, u->to_a, a->qp->qp_num, s2, LSLOT(b, 1)) ||
	    !await(b->cq, s2, "UD send 2") ||
	    !post_recv(b->qp, WR(s3, 0), LSLOT(b, 4), SLOT, b->lmr->lkey) ||
	    !ud_post(a, u->to_b, b->qp->qp_num, s3, abuf))
		return false;
	deadline = now() + poll_secs;
	while (!(got1 && got2 && sent3)) {
		int r = ibv_poll_cq(a->cq, 1, &wc);

		if (r < 0)
			die("poll_cq");
		if (!r) {
			if (now() > deadline)
				return fail("UD: %s missing", !got1 ? "message 1" :
					    !got2 ? "message 2" : "send completion");
			continue;
		}
		if (!(wc.wr_id & UD_RECV_WR)) {
			if (wc.wr_id != s3 || wc.status != IBV_WC_SUCCESS)
				return fail("UD: send completion %#" PRIx64 " status %s",
					    wc.wr_id, ibv_wc_status_str(wc.status));
			sent3 = true;
			continue;
		}
		i = wc.wr_id & 0xff;
		buf = a->lbuf + i * UD_SLOT;
		if (wc.status == IBV_WC_SUCCESS && wc.byte_len == 128 + 40 &&
		    wc.src_qp == b->qp->qp_num && ud_payload_is(buf + 40, s1))
			got1 = true;
		else if (wc.status == IBV_WC_SUCCESS && wc.byte_len == 128 + 40 &&
			 wc.src_qp == b->qp->qp_num && ud_payload_is(buf + 40, s2))
			got2 = true;
		else
			stats.ud_foreign++;
		memset(buf, 0, UD_SLOT);
		if (!post_recv(a->qp, UD_RECV_WR | i, buf, UD_RECV, a->lmr->lkey))
			return false;
	}
	if (!await(b->cq, WR(s3, 0), "UD receive at b"))
		return false;
	if (!ud_payload_is(LSLOT(b, 4) + 40, s3))
		return fail("UD a->b payload differs");
	return true;
}

static struct rc_pair victim = { .name = "victim" }, byst = { .name = "bystander" };
static struct ud_pair ud;
static struct ibv_pd *pd_victim, *pd_byst, *pd_peer;

/* The victim's PSNs for the next packets; its state. */
static enum ibv_qp_state refresh_victim(void)
{
	struct ibv_qp_attr a;

	if (!qp_query(victim.a.qp, &a))
		die("%s", why);
	st.rq_psn = a.rq_psn;
	st.sq_psn = victim.bait ? victim.bait_psn : (a.sq_psn - 1) & PSN_MASK;
	return a.qp_state;
}

static void victim_remake(void)
{
	if (st.ndead < ARRAY_SIZE(st.dead))
		st.dead[st.ndead++] = st.victim_qpn;
	else
		st.dead[rnd(st.ndead)] = st.victim_qpn;
	rc_unmake(&victim);
	rc_make(&victim);
	st.victim_qpn = victim.a.qp->qp_num;
	refresh_victim();
}

static bool memory_intact(void)
{
	size_t i;

	if (!guards_intact(&victim.a))
		return fail("bytes around the victim's MR changed");
	if (!guards_intact(&byst.a))
		return fail("bytes around the bystander's MR changed");
	for (i = 0; i < CANARY_LEN; i++)
		if (byst.a.rbuf[CANARY_OFF + i] != CANARY(i))
			return fail("the bystander's MR changed at offset %zu", CANARY_OFF + i);
	if (memmem(victim.a.rbuf, RMR_SIZE, bad_magic, sizeof(bad_magic)) ||
	    memmem(victim.a.lbuf, victim.a.lsize, bad_magic, sizeof(bad_magic)))
		return fail("a packet with a bad ICRC landed in the victim's memory");
	return true;
}

static void check_all(void)
{
	stats.checks++;
	if (!memory_intact())
		die("after packet %" PRIu64 ": %s", stats.total, why);
	if (!check_rc(&byst))
		die("after packet %" PRIu64 ": the bystander broke: %s", stats.total, why);
	if (!check_rc(&victim)) {
		if (!st.victim_hit)
			die("after packet %" PRIu64 ": the victim broke with nothing aimed at it: %s",
			    stats.total, why);
		if (verbose)
			printf("check %" PRIu64 ": victim made again: %s\n", stats.checks, why);
		/* check_rc() counted the state and PSN failures */
		if (strncmp(why, "victim: states", 14) && strncmp(why, "victim: PSNs", 12))
			stats.victim_traffic++;
		stats.victim_remade++;
		victim_remake();
		if (!check_rc(&victim))
			die("a new victim pair fails: %s", why);
	}
	if (!check_ud(&ud)) {
		if (!st.ud_hit)
			die("after packet %" PRIu64 ": the UD QP broke with nothing aimed at it: %s",
			    stats.total, why);
		printf("check %" PRIu64 ": UD pair made again: %s\n", stats.checks, why);
		stats.ud_remade++;
		qp_unmake(&ud.a);
		qp_unmake(&ud.b);
		ud_make(&ud);
		st.ud_qpn = ud.a.qp->qp_num;
		if (!check_ud(&ud))
			die("a new UD pair fails: %s", why);
	}
	/* check the traffic's own writes did not leave the MR either */
	if (!memory_intact())
		die("after check %" PRIu64 ": %s", stats.checks, why);
	st.victim_hit = st.ud_hit = false;
	st.victim_off = stats.checks % 4 == 3;
	if (known_off)
		st.victim_only = 1 + stats.checks % 2;
	refresh_victim();
	if (vfy.on)
		vfy.last = read_rcvd();
}

/* Counters of a device, from sysfs (what `rdma statistic` shows). */
#define NCNT 64
struct counters {
	int n;
	char name[NCNT][48];
	uint64_t v[NCNT];
};

static void read_counters(const struct dev *d, struct counters *c)
{
	char dir[256], path[512];
	struct dirent *de;
	DIR *dp;
	FILE *f;

	snprintf(dir, sizeof(dir), "/sys/class/infiniband/%s/ports/%d/hw_counters",
		 d->name, PORT);
	c->n = 0;
	dp = opendir(dir);
	if (!dp)
		die("%s: %m", dir);
	while ((de = readdir(dp)) && c->n < NCNT) {
		unsigned long long v;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "lifespan"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%llu", &v) == 1) {
			snprintf(c->name[c->n], sizeof(c->name[0]), "%.47s", de->d_name);
			c->v[c->n++] = v;
		}
		fclose(f);
	}
	closedir(dp);
}

static uint64_t counter(const struct counters *c, const char *name)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->name[i], name))
			return c->v[i];
	return 0;
}

static void print_deltas(const struct dev *d, const struct counters *before,
			 const struct counters *after)
{
	int i;

	printf("hw counters %s (change over the run):", d->name);
	for (i = 0; i < after->n; i++) {
		uint64_t delta = after->v[i] - counter(before, after->name[i]);

		if (delta)
			printf(" %s %" PRIu64, after->name[i], delta);
	}
	printf("\n");
}

/* Packets the kernel's per-CPU input backlogs dropped (softnet_stat). */
static uint64_t backlog_drops(void)
{
	unsigned int processed, dropped;
	uint64_t sum = 0;
	char line[512];
	FILE *f = fopen("/proc/net/softnet_stat", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%x %x", &processed, &dropped) == 2)
			sum += dropped;
	fclose(f);
	return sum;
}

static void open_wire(void)
{
	struct sockaddr_in6 me = { .sin6_family = AF_INET6 };
	socklen_t len = sizeof(me);

	wire.fd = socket(AF_INET6, SOCK_DGRAM, 0);
	if (wire.fd < 0)
		die("socket: %m");
	if (setsockopt(wire.fd, SOL_SOCKET, SO_BINDTODEVICE, dev1.ifname,
		       strlen(dev1.ifname)))
		die("SO_BINDTODEVICE %s: %m", dev1.ifname);
	memcpy(&me.sin6_addr, &dev1.gid, 16);
	me.sin6_scope_id = dev1.ifindex;
	if (bind(wire.fd, (struct sockaddr *)&me, sizeof(me)))
		die("bind to %s's address: %m", dev1.ifname);
	if (getsockname(wire.fd, (struct sockaddr *)&me, &len))
		die("getsockname: %m");
	wire.sport = ntohs(me.sin6_port);
	memcpy(&wire.src, &dev1.gid, 16);
	memcpy(&wire.dst, &dev0.gid, 16);
	wire.to = (struct sockaddr_in6){
		.sin6_family = AF_INET6, .sin6_port = htons(ROCE_PORT),
		.sin6_scope_id = dev1.ifindex,
	};
	memcpy(&wire.to.sin6_addr, &dev0.gid, 16);
}

static struct pkt batch[BATCH];

static void send_one(struct pkt *p, int cls)
{
	p->cls = cls;
	p->idx = stats.total;
	finish(p);
	log_batch(p, 1);
	if (verbose)
		show_pkt(p);
	send_pkt(p);
}

static bool wait_bytes(const uint8_t *at, const uint8_t *want, size_t len, double secs)
{
	double deadline = now() + secs;

	do {
		if (!memcmp(at, want, len))
			return true;
		usleep(1000);
	} while (now() < deadline);
	return false;
}

/*
 * The crafted packets are what the device takes: a write with a bad ICRC
 * does not land, the same with the right one does, and a UD send arrives
 * from the source QP its DETH names. rcvd_pkts counts exactly the two.
 */
static void proof(void)
{
	struct pkt *p = &batch[0];
	struct counters c0, c1, d0, d1;
	struct hdr h;
	struct ibv_wc wc;
	uint8_t want[64];
	size_t off = RMR_SIZE / 2 + 512, i;
	uint64_t rcvd;

	read_counters(&dev0, &c0);
	read_counters(&dev1, &d0);
	refresh_victim();
	for (i = 0; i < 64; i++)
		want[i] = "xrxe-wire-fuzz proof: a crafted RDMA WRITE landed.  "[i % 52] ^ (i >> 6);
	memset(victim.a.rbuf + off, 0, 64);
	hdr_init(&h, T_RC | O_WRITE_ONLY);
	h.qk = 'v';
	h.pk = 'r';
	h.prel = 0;
	h.rk = 'v';
	h.rkx = 0;
	h.va = VICTIM_IOVA + off;
	h.dlen = h.paylen = 64;
	h.b8 = 0x80;
	h.b1 = 0;
	emit(p, &h);
	memcpy(p->b + 28, want, 64);
	p->icx = 0x80;
	send_one(p, C_PROOF);
	if (wait_bytes(victim.a.rbuf + off, want, 64, 0.5))
		die("proof: an RDMA WRITE with a bad ICRC landed");
	p->icx = 0;
	send_one(p, C_PROOF);
	if (!wait_bytes(victim.a.rbuf + off, want, 64, 5))
		die("proof: a crafted RDMA WRITE (QPN %#x PSN %#x rkey %#x) did not land: "
		    "the header or ICRC code is wrong", st.victim_qpn, st.rq_psn, st.vrkey);
	printf("proof: a crafted RDMA WRITE landed in the victim's MR (QPN %#x, PSN %#x); "
	       "with a bad ICRC it did not\n", st.victim_qpn, st.rq_psn);

	hdr_init(&h, T_UD | O_SEND_ONLY);
	h.qk = 'u';
	h.qkey = UD_QKEY;
	h.srcqp = 0x123456;
	h.paylen = 64;
	h.b1 = 0;
	h.pkey = 0xffff;
	emit(p, &h);
	memcpy(p->b + 20, want, 64);
	send_one(p, C_PROOF);
	if (!next_wc(ud.a.cq, &wc))
		die("proof: a crafted UD send did not arrive");
	if (wc.status != IBV_WC_SUCCESS || wc.src_qp != 0x123456 || wc.byte_len != 64 + 40 ||
	    memcmp(ud.a.lbuf + (wc.wr_id & 0xff) * UD_SLOT + 40, want, 64))
		die("proof: the crafted UD send arrived as status %s, source QP %#x, %u bytes",
		    ibv_wc_status_str(wc.status), wc.src_qp, wc.byte_len);
	if (!post_recv(ud.a.qp, wc.wr_id, ud.a.lbuf + (wc.wr_id & 0xff) * UD_SLOT,
		       UD_RECV, ud.a.lmr->lkey))
		die("%s", why);
	printf("proof: a crafted UD send arrived from source QP 0x123456\n");
	usleep(50000);	/* hw counters are cached for 10 ms */
	read_counters(&dev0, &c1);
	read_counters(&dev1, &d1);
	/* what DEV1 sent meanwhile (ACKs of the write) is not ours */
	rcvd = counter(&c1, "rcvd_pkts") - counter(&c0, "rcvd_pkts") -
	       (counter(&d1, "sent_pkts") - counter(&d0, "sent_pkts"));
	if (rcvd != 2)
		die("proof: %s's rcvd_pkts counted %" PRIu64 " of the 3 crafted packets, "
		    "expected 2", dev0.name, rcvd);
	/* the victim's expected PSN moved on: a new pair */
	victim_remake();
}

static void fuzz_batch(void)
{
	unsigned int total = 0, r, c;
	double t0 = now();
	int k;

	for (c = 0; c < NCLASS; c++)
		total += cls_weight[c];
	/*
	 * A victim in the error state drops everything: make it again at
	 * once, so that the rest of the stretch meets a working one.
	 */
	if (refresh_victim() == IBV_QPS_ERR) {
		if (!st.victim_hit)
			die("after packet %" PRIu64 ": the victim went to the error state "
			    "with nothing aimed at it", stats.total);
		stats.victim_remade++;
		stats.victim_early++;
		victim_remake();
		if (!post_bait(&victim))
			die("bait: %s", why);
		refresh_victim();
	}
	for (k = 0; k < BATCH; k++) {
		struct pkt *p = &batch[k];

		r = rnd(total);
		for (c = 0; r >= cls_weight[c]; c++)
			r -= cls_weight[c];
		p->idx = stats.total + k;
		p->cls = c;
		gen[c](p);
		finish(p);
	}
	log_batch(batch, BATCH);
	for (k = 0; k < BATCH; k++) {
		if (verbose > 1)
			show_pkt(&batch[k]);
		send_pkt(&batch[k]);
	}
	stats.send_secs += now() - t0;
}

static int unhex(int c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* Send a log's packets again, those numbered first to last. */
static void replay(const char *path, uint64_t first, uint64_t last, uint64_t every)
{
	size_t cap = 2 * PKT_MAX + 256, i;
	char *line = malloc(cap), cls[32], icx[16], *hex;
	struct pkt *p = &batch[0];
	uint64_t since = 0;
	FILE *f = fopen(path, "r");
	int n;

	if (!f || !line)
		die("%s: %m", path);
	while (fgets(line, cap, f)) {
		if (line[0] != 'P')
			continue;
		if (sscanf(line, "P %" SCNu64 " %31s %c %c %d %c %d %x %15s %zu %n", &p->idx,
			   cls, &p->qk, &p->pk, &p->prel, &p->rk, &p->rkoff, &p->rkx, icx,
			   &p->len, &n) != 10)
			die("%s: cannot read: %.80s", path, line);
		if (p->idx < first || p->idx > last)
			continue;
		hex = line + n;
		for (i = 0; i < p->len; i++)
			p->b[i] = unhex(hex[2 * i]) << 4 | unhex(hex[2 * i + 1]);
		p->raw = icx[0] == '-';
		p->quirk = icx[0] == 'q';
		p->icx = p->raw ? 0 : strtoul(icx + p->quirk, NULL, 16);
		for (p->cls = 0; p->cls < NCLASS - 1 && strcmp(cls_name[p->cls], cls); p->cls++)
			;
		refresh_victim();
		finish(p);
		if (verbose)
			show_pkt(p);
		send_pkt(p);
		if (++since >= every) {
			check_all();
			since = 0;
		}
	}
	fclose(f);
	free(line);
}

static const char *auto_dev(const char *a, const char *b)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	const char *found = b;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), a))
			found = a;
	ibv_free_device_list(list);
	return found;
}

/* -C: only these classes, in their usual proportions. */
static void keep_classes(char *list)
{
	unsigned int keep[NCLASS] = { 0 }, c, any = 0;
	char *name;

	for (name = strtok(list, ","); name; name = strtok(NULL, ",")) {
		for (c = 0; c < NCLASS - 1 && strcmp(cls_name[c], name); c++)
			;
		if (c == NCLASS - 1)
			die("-C: no class '%s'", name);
		keep[c] = 1;
	}
	for (c = 0; c < NCLASS; c++) {
		cls_weight[c] *= keep[c];
		any += cls_weight[c];
	}
	if (!any)
		die("-C: no class left");
}

static void usage(void)
{
	die("usage: xrxe-wire-fuzz [-d DEV0] [-D DEV1] [-S SEED] [-n PACKETS] "
	    "[-s SECONDS] [-c CHECK_EVERY] [-t POLL_SECS] [-m MIN_LEN] [-k] [-C CLASS,...] "
	    "[-l LOG [-L PER_FILE]] [-V] "
	    "[-r LOG [-R FIRST:LAST]] [-v]");
}

int main(int argc, char **argv)
{
	uint64_t packets = 0, every = 250, seed = 0, first = 0, last = UINT64_MAX;
	struct counters b0, b1, a0, a1;
	const char *replay_path = NULL;
	double secs = 0, t0, t1;
	bool seeded = false;
	uint64_t since = 0, model = 0, measured, c, drops;
	int opt, flush;

	setvbuf(stdout, NULL, _IOLBF, 0);
	plog.per_file = 50000;
	while ((opt = getopt(argc, argv, "d:D:S:n:s:c:t:m:kC:l:L:r:R:vV")) != -1) {
		switch (opt) {
		case 'd': dev0.name = optarg; break;
		case 'D': dev1.name = optarg; break;
		case 'S': seed = strtoull(optarg, NULL, 0); seeded = true; break;
		case 'n': packets = strtoull(optarg, NULL, 0); break;
		case 's': secs = atof(optarg); break;
		case 'c': every = strtoull(optarg, NULL, 0); break;
		case 't': poll_secs = atof(optarg); break;
		case 'm': min_len = strtoul(optarg, NULL, 0); break;
		case 'k': known_off = true; break;
		case 'C': keep_classes(optarg); break;
		case 'l': plog.prefix = optarg; break;
		case 'L': plog.per_file = strtoull(optarg, NULL, 0); break;
		case 'r': replay_path = optarg; break;
		case 'R':
			if (sscanf(optarg, "%" SCNu64 ":%" SCNu64, &first, &last) != 2)
				usage();
			break;
		case 'v': verbose++; break;
		case 'V': vfy.on = true; break;
		default: usage();
		}
	}
	if (known_off && min_len < 12)
		min_len = 12;
	if (optind != argc || !every || !plog.per_file || min_len > 84)
		usage();
	if (!packets && !secs)
		packets = 20000;
	if (!seeded)
		seed = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
	rng_state = seed;
	printf("xrxe-wire-fuzz: seed %#" PRIx64 "\n", seed);
	crc_init();
	if (plog.prefix) {
		log_open();
		log_add("# xrxe-wire-fuzz seed %#" PRIx64 "\n", seed);
		log_flush();
	}

	if (!dev0.name)
		dev0.name = auto_dev("xrxe0", "rxe0");
	if (!dev1.name)
		dev1.name = auto_dev("xrxe1", "rxe1");
	open_dev(&dev0);
	open_dev(&dev1);
	open_wire();
	printf("xrxe-wire-fuzz: %s (%s) <- UDP from %s (%s) port %u\n", dev0.name,
	       dev0.ifname, dev1.name, dev1.ifname, wire.sport);

	pd_victim = ibv_alloc_pd(dev0.ctx);
	pd_byst = ibv_alloc_pd(dev0.ctx);
	pd_peer = ibv_alloc_pd(dev1.ctx);
	if (!pd_victim || !pd_byst || !pd_peer)
		die("PDs: %m");
	/* IB_UVERBS_ACCESS_FLUSH_GLOBAL: libibverbs 44 has no name for it */
	flush = 1 << 8;
	st.flush = end_init(&victim.a, &dev0, pd_victim, LMR_SIZE, VICTIM_IOVA, flush);
	victim.flush = st.flush ? flush : 0;
	end_init(&victim.b, &dev1, pd_peer, LMR_SIZE, PEER_IOVA, 0);
	end_init(&byst.a, &dev0, pd_byst, LMR_SIZE, BYST_IOVA, 0);
	end_init(&byst.b, &dev1, pd_peer, LMR_SIZE, PEER_IOVA + RMR_SIZE, 0);
	for (c = 0; c < CANARY_LEN; c++)
		byst.a.rbuf[CANARY_OFF + c] = CANARY(c);
	/* UD_SLOTS receive slots, then one to send from */
	end_init(&ud.a, &dev0, pd_victim, (UD_SLOTS + 1) * UD_SLOT, VICTIM_IOVA + (1ull << 32), 0);
	end_init(&ud.b, &dev1, pd_peer, LMR_SIZE, PEER_IOVA + 2 * RMR_SIZE, 0);
	ud.to_a = ah_to(pd_peer, &dev0);
	ud.to_b = ah_to(pd_victim, &dev1);
	rc_make(&byst);
	rc_make(&victim);
	ud_make(&ud);
	st.victim_qpn = victim.a.qp->qp_num;
	st.byst_qpn = byst.a.qp->qp_num;
	st.ud_qpn = ud.a.qp->qp_num;
	st.vrkey = victim.a.rmr->rkey;
	st.vlkey = victim.a.lmr->lkey;
	st.brkey = byst.a.rmr->rkey;
	printf("xrxe-wire-fuzz: victim QPN %#x (MR rkey %#x%s), UD QPN %#x, bystander QPN %#x "
	       "(never aimed at)\n", st.victim_qpn, st.vrkey, st.flush ? ", FLUSH allowed" : "",
	       st.ud_qpn, st.byst_qpn);

	if (vfy.on) {
		char path[256];
		int fd;

		/* no bait: nothing else reaches DEV0 between checks */
		bait_off = true;
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/hw_counters/",
			 dev0.name, PORT);
		strcat(path, "lifespan");
		fd = open(path, O_WRONLY);
		if (fd < 0 || write(fd, "0", 1) != 1)
			die("%s: %m", path);
		close(fd);
		*strrchr(path, '/') = 0;
		strcat(path, "/rcvd_pkts");
		vfy.fd = open(path, O_RDONLY);
		if (vfy.fd < 0)
			die("%s: %m", path);
		vfy.last = read_rcvd();
	}
	read_counters(&dev0, &b0);
	read_counters(&dev1, &b1);
	drops = backlog_drops();
	t0 = now();
	if (!replay_path)
		proof();
	/* the connections work before the fuzzing starts */
	st.victim_hit = st.ud_hit = false;
	check_all();
	if (replay_path) {
		replay(replay_path, first, last, every);
	} else {
		while ((!packets || stats.total < packets) && (!secs || now() - t0 < secs)) {
			if (since >= every) {
				check_all();
				since = 0;
			}
			fuzz_batch();
			since += BATCH;
			/* a sign of life in long runs */
			if (stats.total / 100000 != (stats.total - BATCH) / 100000)
				printf("progress: %" PRIu64 " packets in %.0f s, victim made "
				       "again %" PRIu64 " times\n", stats.total, now() - t0,
				       stats.victim_remade);
		}
	}
	bait_off = true;
	check_all();
	t1 = now();
	usleep(300000);	/* let queued packets drain; hw counters are cached 10 ms */
	read_counters(&dev0, &a0);
	read_counters(&dev1, &a1);

	printf("%-13s %9s %9s %9s\n", "class", "sent", "icrc-ok", "model-acc");
	for (c = 0; c < NCLASS; c++) {
		printf("%-13s %9" PRIu64 " %9" PRIu64 " %9" PRIu64 "\n", cls_name[c],
		       stats.sent[c], stats.icrc[c], stats.model[c]);
		model += stats.model[c];
	}
	printf("packets: %" PRIu64 " (%" PRIu64 " bytes) in %.1f s, %.0f packets/s overall, "
	       "%.0f packets/s while sending\n", stats.total, stats.bytes, t1 - t0,
	       stats.total / (t1 - t0), stats.send_secs ? stats.total / stats.send_secs : 0);
	printf("checks: %" PRIu64 " (every %" PRIu64 " packets); victim made again %" PRIu64
	       " times (%" PRIu64 " found in the error state between checks; at checks: "
	       "state %" PRIu64 ", PSNs %" PRIu64 ", traffic %" PRIu64 "); UD made again %"
	       PRIu64 " times; %" PRIu64 " fuzzed UD receives\n", stats.checks, every,
	       stats.victim_remade, stats.victim_early, stats.victim_state,
	       stats.victim_desync, stats.victim_traffic, stats.ud_remade, stats.ud_foreign);
	drops = backlog_drops() - drops;
	print_deltas(&dev0, &b0, &a0);
	print_deltas(&dev1, &b1, &a1);
	/* DEV0 receives what DEV1 sends and the fuzzer's packets */
	measured = (counter(&a0, "rcvd_pkts") - counter(&b0, "rcvd_pkts")) -
		   (counter(&a1, "sent_pkts") - counter(&b1, "sent_pkts"));
	printf("rx filter: %" PRIu64 " fuzzed packets taken by %s (rcvd_pkts less %s's "
	       "sent_pkts), the model predicts %" PRIu64 "; %" PRIu64 " dropped before "
	       "the transport\n", measured, dev0.name, dev1.name, model,
	       stats.total - measured);
	printf("input backlogs dropped %" PRIu64 " packets (of both directions)\n", drops);
	if (vfy.on)
		printf("model checked per packet: %" PRIu64 " agreed, %" PRIu64 " disagreed\n",
		       vfy.agree, vfy.disagree);
	/*
	 * A race can only lose packets of DEV1's (sent to a QP just destroyed),
	 * never add any: more taken than the model allows is a filter that let
	 * something through.
	 */
	if (measured > model)
		die("%s took %" PRIu64 " packets its receive checks should have dropped",
		    dev0.name, measured - model);
	if (measured < model)
		printf("note: %" PRIu64 " of DEV1's packets were not taken (a QP destroyed "
		       "under them)\n", model - measured);
	if (!measured && model)
		die("%s's rcvd_pkts did not move", dev0.name);
	/* PSNs ahead of the window are NAKed once, behind it are duplicates */
	if (stats.sent[C_PSN] >= 100 &&
	    (counter(&a0, "out_of_seq_request") == counter(&b0, "out_of_seq_request") ||
	     counter(&a0, "duplicate_request") == counter(&b0, "duplicate_request")))
		die("%s counted no out-of-sequence or no duplicate requests", dev0.name);
	printf("ok: %s kept its bystander, its guards and its checks through %" PRIu64
	       " fuzzed packets\n", dev0.name, stats.total);
	return 0;
}
