/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * xrxe's policies as pure functions of their inputs: the default burst of
 * a rate limit, whether a WRITE joins a coalesced message, and where an
 * OCU places a QP and which engine takes an OCU. Kernel-private, not ABI:
 * the unit tests, and the tests and benchmarks that predict a placement,
 * include it too, so it needs nothing but the uapi header.
 */

#ifndef XRXE_POLICY_H
#define XRXE_POLICY_H

#include <linux/types.h>
#include <rdma/rdma_user_xrxe.h>

/*
 * The burst of a limit whose max_burst_sz is 0: what the rate sends in
 * XRXE_RATE_LIMIT_DEFAULT_BURST_MS, within XRXE_RATE_LIMIT_DEFAULT_BURST
 * and XRXE_RATE_LIMIT_MAX_BURST. Tokens spill whenever the QP cannot run
 * for longer than the bucket takes to fill, late after its timer or held
 * up while it is not paused: the depth must cover the scheduling delays of
 * a loaded host, which reach several milliseconds, not only a timer's.
 */
static inline __u32 xrxe_rate_limit_default_burst(__u32 rate_kbps)
{
	/* A kbit/s is a bit a millisecond. */
	__u64 bytes = (__u64)rate_kbps * XRXE_RATE_LIMIT_DEFAULT_BURST_MS / 8;

	if (bytes < XRXE_RATE_LIMIT_DEFAULT_BURST)
		return XRXE_RATE_LIMIT_DEFAULT_BURST;
	if (bytes > XRXE_RATE_LIMIT_MAX_BURST)
		return XRXE_RATE_LIMIT_MAX_BURST;
	return bytes;
}

/*
 * Whether an RDMA WRITE of len bytes to addr under rkey may join a message
 * that writes msg_len bytes from msg_addr under msg_rkey for msg_wqes
 * WQEs, into at most max bytes (coalesce_max, at most the path MTU: the
 * message stays one packet). It must continue the message's remote range
 * exactly, under the same key, and carry data. barrier: it asks for a
 * fence or a solicited event, which a merged message could not keep (a
 * fence would let it start before earlier reads and atomics complete, and
 * a solicited event belongs to a message of its own). Immediate data,
 * other opcodes and WQEs the kernel refused never join; the caller checks
 * those.
 */
static inline int xrxe_coalesce_joins(__u64 msg_addr, __u32 msg_len,
				      __u32 msg_rkey, __u32 msg_wqes,
				      __u64 addr, __u32 len, __u32 rkey,
				      int barrier, __u32 max)
{
	if (barrier || !len || !msg_len || rkey != msg_rkey ||
	    msg_wqes >= XRXE_COALESCE_MAX_WQES)
		return 0;
	/* Contiguous, and not across the end of the address space. */
	if (addr != msg_addr + msg_len || addr < msg_addr)
		return 0;
	return max >= len && max - len >= msg_len;
}

/*
 * Mix v into the hash h: two multiplicative rounds, each folding its high
 * bits down. The OCU is picked by the high bits, which one round leaves
 * correlated for consecutive values (QP numbers, domains): the second
 * makes them depend on every bit of v.
 */
static inline __u32 xrxe_ocu_hash_step(__u32 h, __u32 v)
{
	h = (h ^ v) * 0x9e3779b1U;
	h = (h ^ (h >> 15)) * 0x85ebca6bU;
	return h ^ (h >> 13);
}

/* Hash of a QP of its own: the device's index and the QP number. */
static inline __u32 xrxe_ocu_qp_hash(__u32 dev_index, __u32 qp_num)
{
	return xrxe_ocu_hash_step(xrxe_ocu_hash_step(0, dev_index), qp_num);
}

static inline __u32 xrxe_ocu_slice_size(__u32 num_ocus)
{
	return num_ocus / (2 * XRXE_OCU_TCS);
}

static inline __u32 xrxe_ocu_slice_first(__u32 num_ocus, __u32 tc,
					 __u32 mode)
{
	return (tc % XRXE_OCU_TCS * 2 + (mode != XRXE_OCU_STATIC)) *
	       xrxe_ocu_slice_size(num_ocus);
}

/*
 * Hash of a connected QP's flow: the destination GID and QP number, as
 * Cassini hashes the destination, so that every QP reaching one remote QP
 * would share an OCU.
 */
static inline __u32 xrxe_ocu_flow_hash(const __u8 dgid[16], __u32 dest_qp_num)
{
	__u32 h = 0, i;

	for (i = 0; i < 16; i += 4)
		h = xrxe_ocu_hash_step(h, (__u32)dgid[i] << 24 |
					  (__u32)dgid[i + 1] << 16 |
					  (__u32)dgid[i + 2] << 8 | dgid[i + 3]);
	return xrxe_ocu_hash_step(h, dest_qp_num);
}

/*
 * Hash of an ordering domain: a number a context gives some of its QPs, so
 * that they share one OCU. The context's device and index keep the domains
 * of different contexts apart.
 */
static inline __u32 xrxe_ocu_domain_hash(__u32 dev_index, __u32 ctx_index,
					 __u32 domain)
{
	return xrxe_ocu_hash_step(xrxe_ocu_hash_step(xrxe_ocu_hash_step(
			0x646f6d00U, dev_index), ctx_index), domain);
}

/* Traffic class of a GRH's traffic class octet: its DSCP class selector. */
static inline __u32 xrxe_ocu_tc(__u8 traffic_class)
{
	return traffic_class >> 5;
}

/* OCU of hash among the size OCUs from first: by its high bits. */
static inline __u32 xrxe_ocu_index(__u32 hash, __u32 first, __u32 size)
{
	return first + (__u32)(((__u64)hash * size) >> 32);
}

/*
 * The engines an OCU set allows: one bit per engine; engines past
 * num_engines are ignored, and a set with none left means every engine.
 */
static inline __u32 xrxe_ocu_set_engines(__u32 set, __u32 num_engines)
{
	__u32 all = num_engines >= 32 ? ~0U : (1U << num_engines) - 1;

	return set & all ? set & all : all;
}

/* The number of engines in a set (as xrxe_ocu_set_engines() gives it). */
static inline __u32 xrxe_ocu_set_count(__u32 set)
{
	__u32 n = 0, i;

	for (i = 0; i < 32; i++)
		n += (set >> i) & 1;
	return n;
}

/*
 * Engine of an OCU under static mapping: the (ocu mod n)-th engine of the
 * set, n being the number of engines in it, as Cassini's static OCU sets
 * do.
 */
static inline __u32 xrxe_ocu_static_engine(__u32 ocu, __u32 set,
					   __u32 num_engines)
{
	__u32 n, i, k;

	if (!num_engines)
		return 0;
	set = xrxe_ocu_set_engines(set, num_engines);
	n = xrxe_ocu_set_count(set);
	k = ocu % n;
	for (i = 0; i < 32; i++)
		if (((set >> i) & 1) && !k--)
			break;
	return i;
}

/*
 * OCU of hash among the size static OCUs from first that reach the
 * (vector mod n)-th engine of a set of n: under static mapping these are
 * the offsets vector mod n, n more, and so on. A slice smaller than n
 * cannot reach every engine: then the offset is (vector mod n) mod size.
 */
static inline __u32 xrxe_ocu_steered_index(__u32 hash, __u32 first,
					   __u32 size, __u32 vector, __u32 n)
{
	__u32 j, count;

	if (!n || !size)
		return first;
	j = vector % n;
	if (j >= size)
		return first + j % size;
	count = (size - j + n - 1) / n;
	return first + j + n * (__u32)(((__u64)hash * count) >> 32);
}

/*
 * Load a WQE of bytes puts on its engine until the completer retires it:
 * a fixed cost per WQE, which a 0-byte WQE pays in full, plus its bytes
 * scaled down by byte_shift (the cost of a byte relative to the fixed one).
 */
static inline __u32 xrxe_ocu_wqe_cost(__u32 bytes, __u32 hdr_cost,
				      __u32 byte_shift)
{
	__u64 cost = (__u64)hdr_cost +
		     (byte_shift >= 32 ? 0 : bytes >> byte_shift);

	return cost > 0xffffffffU ? 0xffffffffU : cost;
}

/*
 * An engine's recent work, value, decayed by halves whole half-lives and
 * frac / 1024 of one more: halved per half-life, and within the last one
 * along a straight line from 1 to 1/2 (at most 6% above the exponential).
 */
static inline __u64 xrxe_ocu_decay(__u64 value, __u32 halves, __u32 frac)
{
	if (halves >= 64)
		return 0;
	value >>= halves;
	if (frac > 1024)
		frac = 1024;
	/* value * frac / 2048, without overflow */
	return value - ((value >> 11) * frac + (((value & 2047) * frac) >> 11));
}

/*
 * Engine for a dynamic OCU that starts work again: of the engines of set
 * (as for xrxe_ocu_static_engine()), the one with the least load, then the
 * fewest busy OCUs; among equals the OCU's previous engine, so that a
 * ping-pong does not move for nothing, else the first from rotate on, so
 * that OCUs starting together spread. A load below 0 counts as 0.
 */
static inline __u32 xrxe_ocu_pick(const __s64 *load, const __u32 *busy,
				  __u32 set, __u32 num_engines, __u32 prev,
				  __u32 rotate)
{
	__u32 best = num_engines, i, k;
	__s64 best_load = 0, l;

	if (!num_engines)
		return 0;
	set = xrxe_ocu_set_engines(set, num_engines);
	for (k = 0; k < num_engines; k++) {
		i = (rotate + k) % num_engines;
		if (!((set >> i) & 1))
			continue;
		l = load[i] < 0 ? 0 : load[i];
		if (best == num_engines || l < best_load ||
		    (l == best_load && busy[i] < busy[best])) {
			best = i;
			best_load = l;
		}
	}
	if (prev < num_engines && ((set >> prev) & 1) &&
	    (load[prev] < 0 ? 0 : load[prev]) == best_load &&
	    busy[prev] == busy[best])
		return prev;
	return best;
}

#endif /* XRXE_POLICY_H */
