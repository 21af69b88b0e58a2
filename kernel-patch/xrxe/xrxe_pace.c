// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Send rate limits (xrxe): back-pressure on the WQE.
 *
 * Before the requester builds a packet it asks its QP's token bucket for
 * the packet's bytes. If the bucket is short, the requester stops where it
 * is: the WQE keeps its progress (PSN, resid, opcode sequence) in kernel
 * memory, nothing is buffered, and an hrtimer resumes the QP when the
 * bucket will hold enough. Meanwhile the QP's send queue fills, which the
 * application sees as a full queue; other QPs are not held up.
 *
 * Tokens are kept in units of bytes * XRXE_PACE_SCALE, so that a rate of
 * r kbit/s adds exactly r units per nanosecond and no fraction is lost.
 */

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include "rxe.h"
#include "rxe_loc.h"
#include "rxe_hw_counters.h"
#include "xrxe_policy.h"

#define XRXE_PACE_SCALE		8000000ULL	/* units per byte */

/* Headers around a path-MTU payload: IPv6, UDP, BTH, RETH and ICRC. */
#define XRXE_PACE_MAX_HDR	80

/* Longest a paused QP's timer may fire late: a tenth of its wait, at most. */
#define XRXE_PACE_MAX_SLACK_NS	(50 * NSEC_PER_USEC)

/* Shortest pause unless the burst is shorter: at most 1000 wake-ups a second. */
#define XRXE_PACE_MIN_WAIT_NS	(1 * NSEC_PER_MSEC)

/*
 * Test knob (debugfs rdma_xrxe/pace_delay_us, 0 by default): fire every
 * pause's timer this many microseconds late, at most a second, so that
 * wake-ups are late.
 */
u32 xrxe_pace_delay_us;

static u32 pace_rate(u64 limit)
{
	return lower_32_bits(limit);
}

static u32 pace_burst(u64 limit)
{
	return upper_32_bits(limit);
}

/* The IP packet of a request: what the rate counts. */
u32 xrxe_pace_wire_bytes(const struct rxe_av *av, int opcode, u32 payload)
{
	u32 ip = av->network_type == RXE_NETWORK_TYPE_IPV4 ?
		 sizeof(struct iphdr) : sizeof(struct ipv6hdr);

	return ip + sizeof(struct udphdr) + rxe_opcode[opcode].length +
	       payload + (-payload & 3) + RXE_ICRC_SIZE;
}

/*
 * The timer fired: a doorbell-less QP goes back on its engine's run list,
 * whose turn runs the requester; any other QP's send task is scheduled.
 */
static void pace_resume(struct rxe_qp *qp)
{
	if (qp->dbl)
		xrxe_engine_resume(qp);
	else
		rxe_sched_task(&qp->send_task);
}

static enum hrtimer_restart pace_timer(struct hrtimer *timer)
{
	struct rxe_qp *qp = container_of(timer, struct rxe_qp, pace.timer);

	/* A QP on its way out has no one left to resume. */
	if (!rxe_get(qp))
		return HRTIMER_NORESTART;
	xrxe_count(qp, XRXE_QP_PACE_WAKEUPS, XRXE_CNT_PACE_WAKEUPS);
	/*
	 * No barrier: the requester that reads WOKEN runs after the resume
	 * below, whose engine lock or task scheduling orders the two.
	 */
	set_bit(XRXE_PACE_WOKEN, &qp->pace.flags);
	clear_bit(XRXE_PACE_PAUSED, &qp->pace.flags);
	pace_resume(qp);
	rxe_put(qp);
	return HRTIMER_NORESTART;
}

void xrxe_pace_init(struct rxe_qp *qp)
{
	hrtimer_setup(&qp->pace.timer, pace_timer, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_SOFT);
}

/*
 * A resumed QP ran late_ns after its bucket filled: the tokens the rate
 * gave it meanwhile spilled, bytes that its backlog could have sent: the
 * engine or the CPU did not run the QP in time, which the limit cannot
 * make up without exceeding its burst.
 */
static void pace_count_late(struct rxe_qp *qp, u64 late_ns, u32 rate)
{
	xrxe_count(qp, XRXE_QP_PACE_LATE_WAKEUPS, XRXE_CNT_PACE_LATE_WAKEUPS);
	xrxe_count_add(qp, XRXE_QP_PACE_LATE_BYTES, XRXE_CNT_PACE_LATE_BYTES,
		       mul_u64_u64_div_u64(late_ns, rate, XRXE_PACE_SCALE));
}

/*
 * May the requester send a packet of bytes now? If so, the bytes are taken
 * from the bucket, and *last says whether the bucket is then too short for
 * a path-MTU packet, which no packet exceeds: the packet asks for an ACK.
 * Tokens only grow between calls, so a pause always follows such a packet,
 * and no pause, however long, leaves one unacknowledged past the retry
 * timeout.
 *
 * A paused QP's timer is armed for when the bucket holds half the burst,
 * or a typical packet if that is more, or what the rate gives in
 * XRXE_PACE_MIN_WAIT_NS if that is more still, within the burst: a wake-up
 * per packet costs more than the packet, and a wake-up at a full bucket
 * lets tokens spill when it comes late. Called only by the requester.
 */
bool xrxe_pace_may_send(struct rxe_qp *qp, u32 bytes, bool *last)
{
	struct xrxe_pace *p = &qp->pace;
	u64 limit = READ_ONCE(p->limit);
	u32 rate = pace_rate(limit);
	u64 now, elapsed, full, fill_ns, need, wake, wait, slack;
	u32 burst, target, max_pkt;
	bool woken;

	*last = false;
	if (likely(!rate))
		return true;
	/*
	 * Run while paused, by an ACK or a post: the armed timer resumes it,
	 * so neither count another pause nor re-arm. A stale set bit read
	 * after the timer cleared it is harmless: the timer's resume runs the
	 * requester again.
	 */
	if (test_bit(XRXE_PACE_PAUSED, &p->flags))
		return false;

	/* At least one packet fits, whatever the burst. */
	burst = max(pace_burst(limit), bytes);
	full = burst * XRXE_PACE_SCALE;
	now = ktime_get_ns();
	elapsed = now - p->stamp_ns;
	/* A new burst (set by a modify) may be below what the bucket holds. */
	fill_ns = div_u64(full - min(p->tokens, full), rate);
	woken = test_and_clear_bit(XRXE_PACE_WOKEN, &p->flags);
	if (woken) {
		/* The stamp is the pause's: the time the limit held the QP. */
		if (p->stamp_ns)
			xrxe_count_add(qp, XRXE_QP_PACE_WAIT_US,
				       XRXE_CNT_PACE_WAIT_US,
				       div_u64(elapsed, NSEC_PER_USEC));
	}
	if (!p->stamp_ns || elapsed >= fill_ns) {
		/* Only a paused QP had a backlog all along: its spill is lost. */
		if (p->stamp_ns && woken)
			pace_count_late(qp, elapsed - fill_ns, rate);
		p->tokens = full;
	} else {
		p->tokens += elapsed * rate;
	}
	p->stamp_ns = now;

	max_pkt = min(max(qp->mtu + XRXE_PACE_MAX_HDR, bytes), burst);
	need = bytes * XRXE_PACE_SCALE;
	if (p->tokens >= need) {
		p->tokens -= need;
		*last = p->tokens < max_pkt * XRXE_PACE_SCALE;
		xrxe_count_add(qp, XRXE_QP_PACE_BYTES, XRXE_CNT_PACE_BYTES,
			       bytes);
		return true;
	}

	target = READ_ONCE(p->typical_pkt_sz) ?: max_pkt;
	target = min(max(target, bytes), burst);
	wake = clamp_t(u64, (u64)rate * XRXE_PACE_MIN_WAIT_NS,
		       max_t(u64, target * XRXE_PACE_SCALE, full / 2), full);
	wait = DIV_ROUND_UP_ULL(wake - p->tokens, rate);
	slack = min_t(u64, wait / 10, XRXE_PACE_MAX_SLACK_NS);
	wait += (u64)min(READ_ONCE(xrxe_pace_delay_us), USEC_PER_SEC) * NSEC_PER_USEC;
	/* Its engine's load drops before the timer can give it back. */
	if (qp->dbl)
		xrxe_ocu_pause(qp);
	/*
	 * PAUSED before the timer: its callback clears the bit, so it must
	 * not run before the bit is set.
	 */
	set_bit(XRXE_PACE_PAUSED, &p->flags);
	hrtimer_start_range_ns(&p->timer, ns_to_ktime(wait), slack,
			       HRTIMER_MODE_REL_SOFT);
	/*
	 * Full barrier: a modify that changes the limit now either sees
	 * PAUSED and expires the timer, or we see its limit here and do. If
	 * its expiry came before our start, our start took the timer's base
	 * lock after it, and we see its limit too. Pairs with the one in
	 * xrxe_pace_set().
	 */
	smp_mb();
	if (READ_ONCE(p->limit) != limit)
		hrtimer_start(&p->timer, 0, HRTIMER_MODE_REL_SOFT);
	xrxe_count(qp, XRXE_QP_PACE_PAUSES, XRXE_CNT_PACE_PAUSES);
	return false;
}

/* The rate fields of a modify_qp, checked before anything changes. */
int xrxe_pace_check(struct rxe_qp *qp, u32 rate_kbps, u32 max_burst_sz,
		    u32 typical_pkt_sz)
{
	switch (qp_type(qp)) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (!rate_kbps)
		return max_burst_sz || typical_pkt_sz ? -EINVAL : 0;
	if (rate_kbps < XRXE_RATE_LIMIT_MIN_KBPS ||
	    rate_kbps > XRXE_RATE_LIMIT_MAX_KBPS ||
	    max_burst_sz > XRXE_RATE_LIMIT_MAX_BURST ||
	    typical_pkt_sz > U16_MAX)
		return -EINVAL;
	return 0;
}

/*
 * Apply checked rate fields. A paused QP is resumed at once, so that a
 * new rate takes effect now, not when the old rate's wait ends.
 */
void xrxe_pace_set(struct rxe_qp *qp, u32 rate_kbps, u32 max_burst_sz,
		   u32 typical_pkt_sz)
{
	struct xrxe_pace *p = &qp->pace;
	u32 burst = max_burst_sz ?: xrxe_rate_limit_default_burst(rate_kbps);

	/* A wake-up of the old limit is no measure of the new one's. */
	clear_bit(XRXE_PACE_WOKEN, &p->flags);
	WRITE_ONCE(p->typical_pkt_sz, typical_pkt_sz);
	WRITE_ONCE(p->limit, rate_kbps ? (u64)burst << 32 | rate_kbps : 0);
	/*
	 * Full barrier: a requester pausing now must see the new limit, or
	 * we its PAUSED. Pairs with the one in xrxe_pace_may_send().
	 */
	smp_mb();
	if (test_bit(XRXE_PACE_PAUSED, &p->flags))
		hrtimer_start(&p->timer, 0, HRTIMER_MODE_REL_SOFT);
}

u32 xrxe_pace_rate(struct rxe_qp *qp)
{
	return pace_rate(READ_ONCE(qp->pace.limit));
}

bool xrxe_pace_paused(struct rxe_qp *qp)
{
	return test_bit(XRXE_PACE_PAUSED, &qp->pace.flags);
}

/*
 * Stop pacing for now: no timer left, bucket full on the next send. Called
 * by reset and destroy once the requester can no longer run.
 */
void xrxe_pace_stop(struct rxe_qp *qp)
{
	if (!qp->pace.timer.function)
		return;
	hrtimer_cancel(&qp->pace.timer);
	clear_bit(XRXE_PACE_PAUSED, &qp->pace.flags);
	clear_bit(XRXE_PACE_WOKEN, &qp->pace.flags);
	qp->pace.stamp_ns = 0;
}
