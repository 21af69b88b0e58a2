# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Write coalescing (the hook "Coalesce adjacent RDMA WRITEs of a
doorbell-less send queue", xrxedv_qp_set_coalesce(3)): RDMA
WRITEs queued behind one that starts, continuing its remote range under the
same rkey, go in its message. Every rule and boundary, with the remote
buffer, the completions and the counters checked.

Each case posts one list: an RDMA READ, then WRITEs whose first carries a
fence. The fence holds the first WRITE until the READ has completed, by
which time the engine has taken the whole list (one turn takes up to
engine_quantum, 16, WQEs): what merges is then exactly what the rules
allow, and the counters say so."""
import os
import time

import pyverbs.enums as e
from pyverbs.mr import MR

from xrxe_base import (XrxeTestCase, POLL_TIMEOUT, poll, sge, send_wr,
                       recv_wr, pattern)

SIZE = 64
WRITES = 15                 # with the READ, one engine turn's worth
COALESCE = 1024             # bytes: the tests' path MTU (connect_attr)


class CoalesceCase(XrxeTestCase):
    """QPs made with XRXE_COALESCE=coalesce, and the helpers of the tests."""
    needs_doorbell_less = True
    counter_names = ('xrxe_wqes_coalesced', 'xrxe_msgs_coalesced',
                     'sent_pkts')
    coalesce = COALESCE
    qp_type = e.IBV_QPT_RC

    def setUp(self):
        # The provider reads XRXE_COALESCE when a context is opened.
        saved = os.environ.get('XRXE_COALESCE')
        self.addCleanup(self.restore_env, saved)
        if self.coalesce is None:
            os.environ.pop('XRXE_COALESCE', None)
        else:
            os.environ['XRXE_COALESCE'] = str(self.coalesce)
        super().setUp()
        # Writes wait in the ring while the fenced one waits for the READ.
        (self.qp, self.cq), (self.peer, self.peer_cq) = self.connected_pair(
            qp_type=self.qp_type, max_send_wr=32, max_inline_data=SIZE,
            sq_sig_all=0)
        self.local = self.mr(SIZE * 2 * WRITES)
        self.remote = self.mr(SIZE * 2 * WRITES)
        self.back = self.mr(SIZE)
        self.remote.write(bytes(SIZE * 2 * WRITES), SIZE * 2 * WRITES)

    @staticmethod
    def restore_env(saved):
        if saved is None:
            os.environ.pop('XRXE_COALESCE', None)
        else:
            os.environ['XRXE_COALESCE'] = saved

    def write(self, i, offset=None, size=SIZE, flags=e.IBV_SEND_SIGNALED,
              rkey=None, opcode=e.IBV_WR_RDMA_WRITE, inline=False):
        """WRITE i: size bytes of pattern i from local slot i to remote
        offset (slot i)."""
        offset = size * i if offset is None else offset
        self.local.write(pattern(size, i), size, size * i)
        if inline:
            flags |= e.IBV_SEND_INLINE
        wr = send_wr([sge(self.local, size, size * i)], opcode=opcode,
                     wr_id=i, flags=flags, imm_data=i)
        wr.set_wr_rdma(self.remote.rkey if rkey is None else rkey,
                       self.remote.buf + offset)
        return wr

    def blocker(self):
        """The unsignalled READ the fenced first WRITE waits for."""
        wr = send_wr([sge(self.back, 8)], opcode=e.IBV_WR_RDMA_READ,
                     wr_id=1000, flags=0)
        wr.set_wr_rdma(self.remote.rkey, self.remote.buf + SIZE * 2 * WRITES - 8)
        return wr

    def run_list(self, writes, expect=e.IBV_WC_SUCCESS):
        """Post READ + writes (the first fenced) in one list; return the
        completions of the signalled ones, in order."""
        writes[0].send_flags |= e.IBV_SEND_FENCE
        wrs = [self.blocker()] + writes
        for wr, nxt in zip(wrs, wrs[1:]):
            wr.next_wr = nxt
        self.qp.post_send(wrs[0])
        signalled = [w.wr_id for w in writes
                     if w.send_flags & e.IBV_SEND_SIGNALED]
        wcs = poll(self.cq, len(signalled), expect=expect)
        self.assertEqual([wc.wr_id for wc in wcs], signalled)
        return wcs

    def check_remote(self, offsets, size=SIZE):
        """Remote slot i holds pattern i at offsets[i]; nothing else written."""
        want = bytearray(SIZE * 2 * WRITES - 8)
        for i, off in enumerate(offsets):
            want[off:off + size] = pattern(size, i)
        self.assertEqual(self.remote.read(len(want), 0), bytes(want))

    def check_merged(self, before, wqes, msgs, writes=WRITES):
        d = self.delta(before)
        self.assertEqual((d['xrxe_wqes_coalesced'], d['xrxe_msgs_coalesced']),
                         (wqes, msgs), 'WQEs coalesced, messages coalesced')
        # Both ends are on this device: the READ and its response, the
        # WRITE messages, and one or two ACKs.
        messages = writes - wqes
        self.assertGreaterEqual(d['sent_pkts'], messages + 3)
        self.assertLessEqual(d['sent_pkts'], messages + 4,
                             f'{d["sent_pkts"]} packets for {messages} '
                             'WRITE messages and a READ')

    def wait_for_remote(self, offsets, size=SIZE):
        """Wait (POLL_TIMEOUT at most) until the last WRITE's data landed."""
        last = len(offsets) - 1
        want = pattern(size, last)
        deadline = time.monotonic() + POLL_TIMEOUT
        while (self.remote.read(size, offsets[last]) != want and
               time.monotonic() < deadline):
            time.sleep(0.01)

    def check_remote_except(self, offsets, skip):
        """As check_remote(), but WQE skip wrote nothing there."""
        want = bytearray(SIZE * 2 * WRITES - 8)
        for i, off in enumerate(offsets):
            if i != skip:
                want[off:off + SIZE] = pattern(SIZE, i)
        self.assertEqual(self.remote.read(len(want), 0), bytes(want))


class Coalesce(CoalesceCase):
    """The rules, at XRXE_COALESCE=1024 (the path MTU)."""

    def test_adjacent_writes_make_one_message(self):
        before = self.counters()
        wcs = self.run_list([self.write(i) for i in range(WRITES)])
        self.check_remote([SIZE * i for i in range(WRITES)])
        self.check_merged(before, WRITES - 1, 1)
        # Each completion reports its own WQE's length.
        self.assertEqual({wc.byte_len for wc in wcs}, {SIZE})
        self.assertEqual({wc.opcode for wc in wcs}, {e.IBV_WC_RDMA_WRITE})

    def test_inline_and_gathered_writes_mix(self):
        before = self.counters()
        self.run_list([self.write(i, inline=i % 2 == 1)
                       for i in range(WRITES)])
        self.check_remote([SIZE * i for i in range(WRITES)])
        self.check_merged(before, WRITES - 1, 1)

    def test_unsignalled_writes_complete_with_the_signalled(self):
        before = self.counters()
        writes = [self.write(i, flags=e.IBV_SEND_SIGNALED if i % 4 == 3 else 0)
                  for i in range(WRITES)]
        writes[-1].send_flags = e.IBV_SEND_SIGNALED
        self.run_list(writes)
        self.check_remote([SIZE * i for i in range(WRITES)])
        self.check_merged(before, WRITES - 1, 1)

    def shifted_from_7(self, shift):
        """WRITEs 7 on land shift bytes off adjacency: two messages."""
        before = self.counters()
        offsets = [SIZE * i + (shift if i >= 7 else 0) for i in range(WRITES)]
        self.run_list([self.write(i, offset=offsets[i])
                       for i in range(WRITES)])
        self.check_remote(offsets)
        self.check_merged(before, WRITES - 2, 2)

    def test_a_gap_of_one_byte_splits(self):
        self.shifted_from_7(1)

    def test_an_overlap_of_one_byte_splits(self):
        self.shifted_from_7(-1)

    def test_another_rkey_splits(self):
        # The same buffer under a second key: contiguous, but not one key.
        alias = self.mr_alias()
        before = self.counters()
        self.run_list([self.write(i, rkey=alias.rkey if i >= 7 else None)
                       for i in range(WRITES)])
        self.check_remote([SIZE * i for i in range(WRITES)])
        self.check_merged(before, WRITES - 2, 2)

    def mr_alias(self):
        """A second MR over the remote buffer's memory."""
        return MR(self.pd, self.remote.length, e.IBV_ACCESS_LOCAL_WRITE |
                  e.IBV_ACCESS_REMOTE_WRITE, address=self.remote.buf)

    def split_at_7(self, change, coalesced, skip=False):
        """Adjacent WRITEs, but change(writes) alters WQE 7 (skip: so that
        it writes nothing to the remote buffer); the run splits there, into
        two merged messages holding coalesced WQEs besides their firsts."""
        before = self.counters()
        writes = [self.write(i) for i in range(WRITES)]
        change(writes)
        self.run_list(writes)
        offsets = [SIZE * i for i in range(WRITES)]
        if skip:
            self.check_remote_except(offsets, skip=7)
        else:
            self.check_remote(offsets)
        self.check_merged(before, coalesced, 2)

    def test_immediate_data_stands_alone(self):
        self.peer.post_recv(recv_wr([sge(self.back, 8)], wr_id=7))

        def with_imm(writes):
            writes[7] = self.write(7, opcode=e.IBV_WR_RDMA_WRITE_WITH_IMM)
        # 0 takes 1-6; 7 goes alone; 8 takes 9-14.
        self.split_at_7(with_imm, WRITES - 3)
        poll(self.peer_cq)

    def test_a_fence_starts_a_new_message(self):
        def fenced(writes):
            writes[7].send_flags |= e.IBV_SEND_FENCE
        # A fenced WRITE may start a message, not join one.
        self.split_at_7(fenced, WRITES - 2)

    def test_a_solicited_write_stands_alone(self):
        def solicited(writes):
            writes[7].send_flags |= e.IBV_SEND_SOLICITED
        self.split_at_7(solicited, WRITES - 3)

    def test_zero_length_writes_stand_alone(self):
        def empty(writes):
            writes[7] = send_wr([sge(self.local, 0)],
                                opcode=e.IBV_WR_RDMA_WRITE, wr_id=7)
            writes[7].set_wr_rdma(self.remote.rkey, self.remote.buf + SIZE * 7)
        # 7 goes alone (no data to join to): 0 takes 1-6, 8 takes 9-14.
        self.split_at_7(empty, WRITES - 3, skip=True)

    def test_a_send_between_splits(self):
        self.peer.post_recv(recv_wr([sge(self.back, SIZE)], wr_id=7))

        def send(writes):
            writes[7] = send_wr([sge(self.local, SIZE, SIZE * 7)], wr_id=7)
        self.split_at_7(send, WRITES - 3, skip=True)
        poll(self.peer_cq)

    def test_a_remote_access_error_fails_the_first_and_flushes_the_rest(self):
        # The last WRITE runs past the remote MR: the merged message is
        # refused whole, reported on its first WQE.
        end = SIZE * 2 * WRITES
        offsets = [end - SIZE * (WRITES - i) + 1 for i in range(WRITES)]
        writes = [self.write(i, offset=offsets[i]) for i in range(WRITES)]
        writes[0].send_flags |= e.IBV_SEND_FENCE
        wrs = [self.blocker()] + writes
        for wr, nxt in zip(wrs, wrs[1:]):
            wr.next_wr = nxt
        before = self.counters()
        self.qp.post_send(wrs[0])
        wcs = poll(self.cq, WRITES, expect=None)
        self.assertEqual([wc.wr_id for wc in wcs], list(range(WRITES)))
        self.assertEqual(wcs[0].status, e.IBV_WC_REM_ACCESS_ERR)
        self.assertEqual({wc.status for wc in wcs[1:]}, {e.IBV_WC_WR_FLUSH_ERR})
        d = self.delta(before)
        self.assertEqual((d['xrxe_wqes_coalesced'], d['xrxe_msgs_coalesced']),
                         (WRITES - 1, 1))
        # Nothing of the message landed.
        self.assertEqual(self.remote.read(end - offsets[0], offsets[0]),
                         bytes(end - offsets[0]))

    def test_the_ring_wraps_inside_a_message(self):
        # A 32-entry send queue: lists of 16 WQEs start at 0, 16, 0, ... of
        # the kernel queue; shifted by one WQE first, every later list
        # crosses the end.
        self.run_list([self.write(0)])
        for rnd in range(4):
            self.remote.write(bytes(SIZE * 2 * WRITES), SIZE * 2 * WRITES)
            before = self.counters()
            self.run_list([self.write(i) for i in range(WRITES)])
            self.check_remote([SIZE * i for i in range(WRITES)])
            self.check_merged(before, WRITES - 1, 1)


class CoalesceSizeCap(CoalesceCase):
    """XRXE_COALESCE=256: four 64-byte WRITEs a message."""
    coalesce = 256

    def test_the_cap_splits_a_run(self):
        before = self.counters()
        self.run_list([self.write(i) for i in range(WRITES)])
        self.check_remote([SIZE * i for i in range(WRITES)])
        # 0-3, 4-7, 8-11, 12-14.
        self.check_merged(before, 11, 4)


class CoalescePathMtu(CoalesceCase):
    """XRXE_COALESCE=4096 on a 1 KiB path MTU: the MTU caps a message."""
    coalesce = 4096

    def test_the_path_mtu_splits_a_run(self):
        # 15 WRITEs of 128 B: 8, then 7, a message.
        before = self.counters()
        writes = [self.write(i, offset=128 * i, size=128)
                  for i in range(WRITES)]
        self.run_list(writes)
        self.check_remote([128 * i for i in range(WRITES)], size=128)
        self.check_merged(before, WRITES - 2, 2)


class CoalesceUc(CoalesceCase):
    """UC coalesces too. UC has no READ to hold a list back: how much
    merges depends on when the engine takes the WQEs, so the data and the
    completions are what is checked."""
    qp_type = e.IBV_QPT_UC

    def test_uc_writes_land_whole_and_in_order(self):
        for rnd in range(4):
            self.remote.write(bytes(SIZE * 2 * WRITES), SIZE * 2 * WRITES)
            before = self.counters()
            writes = [self.write(i, inline=i % 3 == 0) for i in range(WRITES)]
            for wr, nxt in zip(writes, writes[1:]):
                wr.next_wr = nxt
            self.qp.post_send(writes[0])
            wcs = poll(self.cq, WRITES)
            self.assertEqual([wc.wr_id for wc in wcs], list(range(WRITES)))
            # A UC WRITE completes once sent: its data may still be on
            # its way.
            self.wait_for_remote([SIZE * i for i in range(WRITES)])
            self.check_remote([SIZE * i for i in range(WRITES)])
            d = self.delta(before)
            self.assertLessEqual(d['xrxe_msgs_coalesced'],
                                 d['xrxe_wqes_coalesced'])
            self.assertLess(d['xrxe_wqes_coalesced'], WRITES)


class CoalesceOff(XrxeTestCase):
    """Without XRXE_COALESCE nothing merges."""
    needs_doorbell_less = True
    counter_names = ('xrxe_wqes_coalesced', 'xrxe_msgs_coalesced')

    def setUp(self):
        saved = os.environ.pop('XRXE_COALESCE', None)
        if saved is not None:
            self.addCleanup(os.environ.__setitem__, 'XRXE_COALESCE', saved)
        super().setUp()

    def test_nothing_merges_by_default(self):
        (qp, cq), _ = self.connected_pair(max_send_wr=32, sq_sig_all=1)
        local, remote = self.mr(SIZE * WRITES), self.mr(SIZE * WRITES)
        wrs = []
        for i in range(WRITES):
            local.write(pattern(SIZE, i), SIZE, SIZE * i)
            wr = send_wr([sge(local, SIZE, SIZE * i)],
                         opcode=e.IBV_WR_RDMA_WRITE, wr_id=i)
            wr.set_wr_rdma(remote.rkey, remote.buf + SIZE * i)
            wrs.append(wr)
        for wr, nxt in zip(wrs, wrs[1:]):
            wr.next_wr = nxt
        before = self.counters()
        qp.post_send(wrs[0])
        poll(cq, WRITES)
        self.assertEqual(self.delta(before),
                         {'xrxe_wqes_coalesced': 0, 'xrxe_msgs_coalesced': 0})
        for i in range(WRITES):
            self.assertEqual(remote.read(SIZE, SIZE * i), pattern(SIZE, i))
