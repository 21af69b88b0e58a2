# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""PMA counters (mainline's rxe_mad.c, with the hook "Answer a PMA request
with a reply the requester can match"): the port's sysfs counters, which
the core reads with performance management MADs through process_mad()
(ClassPortInfo, PortCounters, PortCountersExtended), carry the device's own
packet and byte counts (mainline's, bytes from the IP header on)."""
import os
import time

from xrxe_base import (XrxeTestCase, poll, sge, send_wr, recv_wr, pattern,
                       run_test_tool, e)

# The counters the core shows from PortCountersExtended, and the device's
# counters each must equal (data: 4-octet words).
SYSFS = {'port_xmit_packets': ('sent_pkts', 1),
         'port_rcv_packets': ('rcvd_pkts', 1),
         'port_xmit_data': ('sent_bytes', 4),
         'port_rcv_data': ('rcvd_bytes', 4)}


class Pma(XrxeTestCase):
    counter_names = tuple(name for name, _ in SYSFS.values())

    def sysfs(self):
        path = f'/sys/class/infiniband/{self.dev_name}/ports/1/counters/'
        values = {}
        for name in SYSFS:
            with open(path + name) as f:
                values[name] = int(f.read())
        return values

    def traffic(self):
        (a, acq), (b, bcq) = self.connected_pair()
        src, dst = self.mr(4096), self.mr(4096)
        for i in range(10):
            src.write(pattern(4096, i), 4096)
            b.post_recv(recv_wr([sge(dst)]))
            a.post_send(send_wr([sge(src)]))
            poll(acq)
            poll(bcq)
            wr = send_wr([sge(src, 100)], opcode=e.IBV_WR_RDMA_WRITE)
            wr.set_wr_rdma(dst.rkey, dst.buf)
            a.post_send(wr)
            poll(acq)
        # The last ACKs are in before the counters are read.
        time.sleep(0.2)

    def test_extended_counters_are_the_devices(self):
        self.assertTrue(os.path.exists(
            f'/sys/class/infiniband/{self.dev_name}/ports/1/counters/port_xmit_data'))
        start, dev_start = self.sysfs(), self.counters()
        self.traffic()
        low = self.counters()
        pma = self.sysfs()
        high = self.counters()
        for name, (counter, unit) in SYSFS.items():
            self.assertGreater(pma[name], start[name], name)
            self.assertLessEqual(low[counter] // unit, pma[name], name)
            self.assertLessEqual(pma[name], high[counter] // unit, name)
        # Both ends are on this device: it received all it sent.
        moved = {n: low[n] - dev_start[n] for n in self.counter_names}
        self.assertEqual(moved['sent_pkts'], moved['rcvd_pkts'])
        self.assertEqual(moved['sent_bytes'], moved['rcvd_bytes'])
        # A 4 KiB send is more than 4 KiB of packets (IP, UDP and RoCE
        # headers, ICRC).
        self.assertGreater(pma['port_xmit_data'] - start['port_xmit_data'],
                           10 * 4096 // 4)

    def test_queries_on_qp1(self):
        """PMA Gets sent on QP1 to the port itself, as perfquery sends them
        once its port is open, and the requests the device refuses (C:
        tests/mad/xrxe-pma-query.c)."""
        r = run_test_tool(self, 'xrxe-pma-query', self.dev_name)
        self.assertIn('pma: all checks passed', r.stdout)
