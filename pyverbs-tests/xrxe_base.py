# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Base of the xrxe pyverbs tests: one device, QPs connected on it.

The device comes from XRXE_DEV (default xrxe0), port 1, GID index 0: the
link-local GID the testbed guarantees. Both ends of a connection live on the
same device, as in rdma-core's own tests.
"""
import errno
import os
import subprocess
import time
import unittest

import pyverbs.enums as e
from pyverbs.addr import AH, AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

PORT = 1
GID_INDEX = 0
QKEY = 0x11111111
GRH_SIZE = 40
POLL_TIMEOUT = 10.0
MODULE_PARAMS = '/sys/module/rdma_xrxe/parameters/'
# rdma_xrxe's debugfs directory, where its test knobs are.
DEBUGFS = '/sys/kernel/debug'
XRXE_DEBUGFS = DEBUGFS + '/rdma_xrxe/'
RW_ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
             e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC)


class XrxeTestCase(unittest.TestCase):
    """Opens the device; gives helpers to build and connect QPs."""

    dev_name = os.environ.get('XRXE_DEV', 'xrxe0')
    # The hw counters counters() reads and delta() compares.
    counter_names = ()
    # Whether the tests are about doorbell-less send queues: skipped in a
    # run that turns them off.
    needs_doorbell_less = False

    def setUp(self):
        if self.needs_doorbell_less and os.environ.get('XRXE_DOORBELL_LESS') == '0':
            self.skipTest('doorbell-less send queues are off in this run '
                          '(XRXE_DOORBELL_LESS=0); the default run tests them')
        self.ctx = Context(name=self.dev_name)
        self.pd = PD(self.ctx)
        self.gid = self.ctx.query_gid(port_num=PORT, index=GID_INDEX)

    def tearDown(self):
        self.ctx.close()

    def counters(self):
        every = link_counters(self.dev_name)
        return {n: every[n] for n in self.counter_names}

    def delta(self, before):
        """How far each of counter_names moved since counters() gave before."""
        after = self.counters()
        return {n: after[n] - before[n] for n in self.counter_names}

    def set_param(self, name, value):
        """Set rdma_xrxe's module parameter name to value until the test
        ends (cleanups run last first: the first value is restored)."""
        self.set_until_end(MODULE_PARAMS + name, value)

    def set_knob(self, name, value):
        """Set rdma_xrxe's debugfs test knob name to value until the test
        ends, debugfs mounted where it is not."""
        if not os.path.ismount(DEBUGFS):
            subprocess.run(['mount', '-t', 'debugfs', 'none', DEBUGFS],
                           check=True)
        self.set_until_end(XRXE_DEBUGFS + name, value)

    def set_until_end(self, path, value):
        """Write value into the file path until the test ends."""
        with open(path) as f:
            saved = f.read().strip()
        self.addCleanup(write_file, path, saved)
        write_file(path, str(value))

    def assertErrno(self, err, fn, *args, **kwargs):
        """fn(*args) must fail with PyverbsRDMAError carrying errno err."""
        with self.assertRaises(PyverbsRDMAError) as ex:
            fn(*args, **kwargs)
        self.assertEqual(ex.exception.error_code, err,
                         f'{fn.__name__}: errno {ex.exception.error_code} '
                         f'({os.strerror(ex.exception.error_code)}), '
                         f'expected {err} ({os.strerror(err)})')

    @staticmethod
    def send_cap(qp):
        """The capabilities the kernel granted qp (it may round requests up)."""
        _, init_attr = qp.query(e.IBV_QP_CAP)
        return init_attr.cap

    def ah_attr(self):
        gr = GlobalRoute(dgid=self.gid, sgid_index=GID_INDEX)
        return AHAttr(port_num=PORT, is_global=1, gr=gr)

    def create_qp(self, qp_type=e.IBV_QPT_RC, cq=None, srq=None, pd=None,
                  max_send_wr=16, max_recv_wr=16, max_send_sge=4,
                  max_recv_sge=4, max_inline_data=0, sq_sig_all=1):
        cq = cq or CQ(self.ctx, 64)
        cap = QPCap(max_send_wr=max_send_wr, max_recv_wr=max_recv_wr,
                    max_send_sge=max_send_sge, max_recv_sge=max_recv_sge,
                    max_inline_data=max_inline_data)
        attr = QPInitAttr(qp_type=qp_type, scq=cq, rcq=cq, srq=srq, cap=cap,
                          sq_sig_all=sq_sig_all)
        return QP(pd or self.pd, attr), cq

    def to_rts(self, qp, remote_qpn, retry_cnt=7, timeout=14,
               min_rnr_timer=12):
        """Connect qp to remote_qpn on this device (or make a UD QP ready);
        an RC QP retries a lost packet retry_cnt times (7: for ever), and
        its RNR NAKs ask the sender to wait min_rnr_timer (IBTA code)."""
        if qp.qp_type == e.IBV_QPT_UD:
            attr = QPAttr(port_num=PORT)
            attr.qkey = QKEY
        else:
            attr = connect_attr(remote_qpn, self.ah_attr(), retry_cnt,
                                timeout, min_rnr_timer)
        qp.to_rts(attr)

    def connect(self, a, b, min_rnr_timer=12):
        """QPs a and b (made on this device) connected to each other, in
        RTS (UD QPs: ready)."""
        self.to_rts(a, b.qp_num, min_rnr_timer=min_rnr_timer)
        self.to_rts(b, a.qp_num, min_rnr_timer=min_rnr_timer)

    def connected_pair(self, qp_type=e.IBV_QPT_RC, min_rnr_timer=12,
                       **kwargs):
        """Two QPs on the device, connected to each other, in RTS."""
        a, acq = self.create_qp(qp_type, **kwargs)
        b, bcq = self.create_qp(qp_type, **kwargs)
        self.connect(a, b, min_rnr_timer)
        return (a, acq), (b, bcq)

    def setup_connected_pair(self, mr_size, **kwargs):
        """connected_pair(**kwargs) as self.a/acq and self.b/bcq, and an MR
        of mr_size bytes for each, self.amr and self.bmr."""
        (self.a, self.acq), (self.b, self.bcq) = self.connected_pair(**kwargs)
        self.amr = self.mr(mr_size)
        self.bmr = self.mr(mr_size)

    def ud_ah(self):
        return AH(self.pd, attr=self.ah_attr())

    def mr(self, size, access=RW_ACCESS, pd=None):
        return MR(pd or self.pd, size, access)


def connect_attr(remote_qpn, ah_attr, retry_cnt=7, timeout=14,
                 min_rnr_timer=12):
    """What takes an RC or UC QP to RTS towards remote_qpn at ah_attr:
    1 KiB MTU, PSNs 0, every access, 4 reads or atomics in flight, RNR
    retries for ever (XrxeTestCase.to_rts() says what the others mean)."""
    attr = QPAttr(port_num=PORT)
    attr.dest_qp_num = remote_qpn
    attr.ah_attr = ah_attr
    attr.path_mtu = e.IBV_MTU_1024
    attr.rq_psn = 0
    attr.sq_psn = 0
    attr.qp_access_flags = RW_ACCESS
    attr.max_dest_rd_atomic = 4
    attr.max_rd_atomic = 4
    attr.min_rnr_timer = min_rnr_timer
    attr.timeout = timeout
    attr.retry_cnt = retry_cnt
    attr.rnr_retry = 7
    return attr


def write_file(path, text):
    with open(path, 'w') as f:
        f.write(text)


def run_test_tool(testcase, name, *args, timeout=120):
    """Run the C test program name (built in XRXE_TEST_TOOLS) with args;
    testcase fails unless it exits 0. Returns its CompletedProcess."""
    tool = os.path.join(os.environ['XRXE_TEST_TOOLS'], name)
    r = subprocess.run([tool, *args], capture_output=True, text=True,
                       timeout=timeout)
    testcase.assertEqual(r.returncode, 0, r.stdout + r.stderr)
    return r


def link_counters(dev):
    """The port's hw counters, as `rdma statistic show` prints them."""
    out = subprocess.run(['rdma', 'statistic', 'show', 'link', f'{dev}/1'],
                         capture_output=True, text=True, check=True).stdout
    words = out.split()
    return {words[i]: int(words[i + 1]) for i in range(len(words) - 1)
            if words[i + 1].isdigit()}


def poll(cq, count=1, expect=e.IBV_WC_SUCCESS, timeout=POLL_TIMEOUT):
    """Poll count completions within timeout; check their status."""
    wcs = []
    deadline = time.monotonic() + timeout
    while len(wcs) < count:
        n, got = cq.poll(count - len(wcs))
        wcs.extend(got[:n])
        if not n and time.monotonic() > deadline:
            raise AssertionError(f'{count - len(wcs)} of {count} completions '
                                 f'missing after {timeout} s')
    for wc in wcs:
        if expect is not None and wc.status != expect:
            raise AssertionError(f'completion {wc.wr_id}: status {wc.status}, '
                                 f'expected {expect}')
    return wcs


def drain(cq, quiet=1.0):
    """Every completion until none has arrived for quiet seconds."""
    wcs = []
    last = time.monotonic()
    while time.monotonic() - last < quiet:
        n, got = cq.poll(16)
        if n:
            wcs.extend(got[:n])
            last = time.monotonic()
    return wcs


def sge(mr, length=None, offset=0):
    return SGE(mr.buf + offset, mr.length - offset if length is None else length,
               mr.lkey)


def send_wr(sges, opcode=e.IBV_WR_SEND, wr_id=0, flags=e.IBV_SEND_SIGNALED,
            imm_data=0):
    return SendWR(wr_id=wr_id, opcode=opcode, num_sge=len(sges), sg=sges,
                  send_flags=flags, imm_data=imm_data)


def recv_wr(sges, wr_id=0):
    return RecvWR(wr_id=wr_id, num_sge=len(sges), sg=sges)


def pattern(size, seed):
    return bytes((seed + i * 7) & 0xff for i in range(size))


__all__ = ['XrxeTestCase', 'connect_attr', 'drain', 'link_counters', 'poll', 'sge', 'send_wr', 'recv_wr',
           'pattern', 'GRH_SIZE', 'QKEY', 'RW_ACCESS', 'PORT', 'errno', 'e']
