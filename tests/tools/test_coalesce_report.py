#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The append benchmark's report (bench/coalesce_report.py): ratios made
per repetition against stock and against xrxe without coalescing, packets
per message from both devices and from the requester's, what merged
messages carried, the goal's verdict, counters out of place, and its
refusal of runs it cannot use."""
import os
import sys
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, 'bench'))
import coalesce_report as cr  # noqa: E402


def run(mode, rate, rep=0, stream='adjacent', qps=1, req_pkts=None, ack_pkts=None,
        merged=None):
    """A run of rate messages a second over 1 s; req_pkts and ack_pkts are
    what each device sent (default: one packet a message and one ACK);
    merged: (merged messages, WQEs they took in) on xrxe."""
    drv = 'rxe' if mode == 'stock' else 'xrxe'
    msgs = rate
    r = {'driver': drv, 'mode': mode, 'stream': stream, 'qps': qps, 'rep': rep,
         'size': 64, 'gap': 0 if stream == 'adjacent' else 64, 'depth': 256,
         'signal_every': 16, 'ring_bytes': 1 << 20, 'path_mtu': 4096, 'window_s': 1.0,
         'messages': msgs, 'msgs_per_s': rate, 'bytes_per_s': rate * 64,
         'devices': {f'{drv}0': {'sent_pkts': msgs if req_pkts is None else req_pkts,
                                 'rcvd_pkts': 0},
                     f'{drv}1': {'sent_pkts': msgs if ack_pkts is None else ack_pkts,
                                 'rcvd_pkts': 0}}}
    if drv == 'xrxe':
        m, w = merged or (0, 0)
        r['qp_counters'] = [{'messages': msgs, 'wqes_fetched': msgs, 'wqes_coalesced': w,
                             'msgs_coalesced': m}]
    return r


class Ratios(unittest.TestCase):
    def test_ratio_is_the_median_of_each_repetitions_own(self):
        # Stock drifts 1000 -> 2000 between repetitions; xrxe is 3x stock in
        # each: the pooled medians would say 2.0, the paired ratios 3.
        runs = [run('stock', 1000, 0), run('xrxe-c1024', 3000, 0),
                run('stock', 2000, 1), run('xrxe-c1024', 6000, 1),
                run('stock', 1000, 2), run('xrxe-c1024', 3000, 2)]
        idx = cr.index(runs)
        at = idx[('adjacent', 1)]
        med, lo, hi, n = cr.paired_ratio(at['xrxe-c1024'], at['stock'])
        self.assertEqual((med, lo, hi, n), (3.0, 3.0, 3.0, 3))

    def test_a_repetition_without_its_stock_run_makes_no_ratio(self):
        idx = cr.index([run('stock', 1000, 0), run('xrxe', 2000, 1)])
        at = idx[('adjacent', 1)]
        self.assertIsNone(cr.paired_ratio(at['xrxe'], at['stock']))
        table = '\n'.join(cr.rate_table(idx, ['stock', 'xrxe']))
        self.assertIn('n/a', table)

    def test_points_are_kept_apart(self):
        runs = [run('stock', 1000), run('xrxe', 2000),
                run('stock', 500, stream='gapped'), run('xrxe', 400, stream='gapped'),
                run('stock', 4000, qps=4), run('xrxe', 2000, qps=4)]
        idx = cr.index(runs)
        self.assertEqual(cr.points_of(idx),
                         [('adjacent', 1), ('adjacent', 4), ('gapped', 1)])
        self.assertEqual(cr.paired_ratio(idx[('gapped', 1)]['xrxe'],
                                         idx[('gapped', 1)]['stock'])[0], 0.8)
        self.assertEqual(cr.paired_ratio(idx[('adjacent', 4)]['xrxe'],
                                         idx[('adjacent', 4)]['stock'])[0], 0.5)


class Packets(unittest.TestCase):
    def test_both_devices_and_the_requester(self):
        # 1600 writes in 100 messages, each drawing one ACK.
        r = run('xrxe-c1024', 1600, req_pkts=100, ack_pkts=100, merged=(100, 1500))
        self.assertAlmostEqual(cr.pkts_per_msg(r), 200 / 1600)
        self.assertAlmostEqual(cr.req_pkts_per_msg(r), 100 / 1600)
        self.assertAlmostEqual(cr.wqes_per_merged_msg(r), 16)
        self.assertAlmostEqual(cr.coalesced_share(r), 1500 / 1600)

    def test_stock_has_no_merge_figures(self):
        r = run('stock', 1000)
        self.assertIsNone(cr.wqes_per_merged_msg(r))
        self.assertIsNone(cr.coalesced_share(r))
        self.assertEqual(cr.pkts_per_msg(r), 2)


class Goal(unittest.TestCase):
    def test_reached_only_with_both_rate_and_packets(self):
        runs = [run('stock', 1000), run('xrxe', 1100),
                run('xrxe-c1024', 4500, req_pkts=300, ack_pkts=300, merged=(300, 4200)),
                run('xrxe-c4096', 3900, req_pkts=70, ack_pkts=70, merged=(70, 3830))]
        idx = cr.index(runs)
        lines = cr.goal_lines(idx, cr.modes_of(idx))
        # Neither reaches it (one misses the packets, the other the rate):
        # the fastest is named.
        self.assertEqual(len(lines), 1)
        self.assertIn('adjacent, 1 QP: not reached', lines[0])
        self.assertIn('fastest: xrxe-c1024, 4.50x at 0.133', lines[0])
        # The faster mode misses the packets, the slower reaches both: it
        # is the one that counts.
        runs[2] = run('xrxe-c1024', 4800, req_pkts=300, ack_pkts=300, merged=(300, 4500))
        runs[3] = run('xrxe-c4096', 4400, req_pkts=60, ack_pkts=60, merged=(60, 4340))
        idx = cr.index(runs)
        lines = cr.goal_lines(idx, cr.modes_of(idx))
        self.assertIn('adjacent, 1 QP: reached', lines[0])
        self.assertIn('by xrxe-c4096, 4.40x at 0.027', lines[0])
        self.assertNotIn('xrxe-c1024', lines[0])

    def test_gapped_is_judged_against_xrxe_without_coalescing(self):
        runs = [run('stock', 1000, stream='gapped'), run('xrxe', 1000, stream='gapped'),
                run('xrxe-c1024', 950, stream='gapped')]
        idx = cr.index(runs)
        lines = cr.goal_lines(idx, cr.modes_of(idx))
        self.assertEqual(lines, ['- gapped, 1 QP: against xrxe without coalescing, '
                                 'xrxe-c1024 0.95 (lowest 0.95).'])


class Refusals(unittest.TestCase):
    def test_a_run_without_messages(self):
        r = run('xrxe', 1000)
        r['messages'] = 0
        with self.assertRaises(cr.ReportError):
            cr.index([r])

    def test_a_run_without_both_devices_counters(self):
        r = run('xrxe', 1000)
        del r['devices']['xrxe1']
        with self.assertRaises(cr.ReportError):
            cr.index([r])

    def test_a_repetition_twice(self):
        with self.assertRaises(cr.ReportError):
            cr.index([run('xrxe', 1000), run('xrxe', 1200)])

    def test_no_runs(self):
        with self.assertRaises(cr.ReportError):
            cr.report([], '')


class Anomalies(unittest.TestCase):
    def test_a_gapped_merge_and_a_coalescing_run_that_merged_nothing(self):
        runs = [run('xrxe-c1024', 1000, stream='gapped', merged=(10, 20)),
                run('xrxe-c4096', 1000), run('xrxe', 1000)]
        bad = cr.anomalies(cr.index(runs))
        self.assertEqual(len(bad), 2)
        self.assertIn('xrxe-c4096 adjacent, 1 QP rep 0: coalescing on, nothing merged', bad)
        self.assertTrue(any('gapped' in b and 'merged 2.0%' in b for b in bad))


class Whole(unittest.TestCase):
    def test_report_names_every_mode_and_point(self):
        runs = []
        for rep in range(3):
            for stream in ('adjacent', 'gapped'):
                for qps in (1, 4):
                    merged = (100, 1500) if stream == 'adjacent' else (0, 0)
                    runs += [run('stock', 1000, rep, stream, qps),
                             run('xrxe', 1200, rep, stream, qps),
                             run('xrxe-c1024', 2400, rep, stream, qps, merged=merged)]
        md = cr.report(runs, 'HEADER')
        self.assertTrue(md.startswith('HEADER\n'))
        for text in ('adjacent, 1 QP', 'adjacent, 4 QPs', 'gapped, 1 QP', 'gapped, 4 QPs',
                     '`xrxe-c1024`', '**2.40 (2.40-2.40)**', '3 repetitions', '### Against the goal'):
            self.assertIn(text, md)
        self.assertNotIn('Counters out of place', md)


if __name__ == '__main__':
    unittest.main()
