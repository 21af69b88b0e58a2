#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The coalesce workload's report (bench/report.py --workload coalesce):
for the append workload, ratios made per repetition against stock and
against xrxe without coalescing, packets per message from both devices
and from the requester's, what merged messages carried, the goal's
verdict, counters out of place, and its refusal of runs it cannot use;
for records then a tag, the paired ratios of the modes, packets per
record, the tag's wait a round, the engines, the verdict and the
refusals."""
import os
import sys
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, 'bench'))
import report as cr  # noqa: E402


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
        idx = cr.append_index(runs)
        at = idx[('adjacent', 1)]
        med, lo, hi, n = cr.paired_ratio(at['xrxe-c1024'], at['stock'])
        self.assertEqual((med, lo, hi, n), (3.0, 3.0, 3.0, 3))

    def test_a_repetition_without_its_stock_run_makes_no_ratio(self):
        idx = cr.append_index([run('stock', 1000, 0), run('xrxe', 2000, 1)])
        at = idx[('adjacent', 1)]
        self.assertIsNone(cr.paired_ratio(at['xrxe'], at['stock']))
        table = '\n'.join(cr.rate_table(idx, ['stock', 'xrxe']))
        self.assertIn('n/a', table)

    def test_points_are_kept_apart(self):
        runs = [run('stock', 1000), run('xrxe', 2000),
                run('stock', 500, stream='gapped'), run('xrxe', 400, stream='gapped'),
                run('stock', 4000, qps=4), run('xrxe', 2000, qps=4)]
        idx = cr.append_index(runs)
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
        self.assertAlmostEqual(cr.pkts_per(r), 200 / 1600)
        self.assertAlmostEqual(cr.pkts_per(r, requester=True), 100 / 1600)
        self.assertAlmostEqual(cr.wqes_per_merged_msg(r), 16)
        self.assertAlmostEqual(cr.coalesced_share(r), 1500 / 1600)

    def test_stock_has_no_merge_figures(self):
        r = run('stock', 1000)
        self.assertIsNone(cr.wqes_per_merged_msg(r))
        self.assertIsNone(cr.coalesced_share(r))
        self.assertEqual(cr.pkts_per(r), 2)


class Goal(unittest.TestCase):
    def test_reached_only_with_both_rate_and_packets(self):
        runs = [run('stock', 1000), run('xrxe', 1100),
                run('xrxe-c1024', 4500, req_pkts=300, ack_pkts=300, merged=(300, 4200)),
                run('xrxe-c4096', 3900, req_pkts=70, ack_pkts=70, merged=(70, 3830))]
        idx = cr.append_index(runs)
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
        idx = cr.append_index(runs)
        lines = cr.goal_lines(idx, cr.modes_of(idx))
        self.assertIn('adjacent, 1 QP: reached', lines[0])
        self.assertIn('by xrxe-c4096, 4.40x at 0.027', lines[0])
        self.assertNotIn('xrxe-c1024', lines[0])

    def test_gapped_is_judged_against_xrxe_without_coalescing(self):
        runs = [run('stock', 1000, stream='gapped'), run('xrxe', 1000, stream='gapped'),
                run('xrxe-c1024', 950, stream='gapped')]
        idx = cr.append_index(runs)
        lines = cr.goal_lines(idx, cr.modes_of(idx))
        self.assertEqual(lines, ['- gapped, 1 QP: against xrxe without coalescing, '
                                 'xrxe-c1024 0.95 (lowest 0.95).'])


class Refusals(unittest.TestCase):
    def test_a_run_without_messages(self):
        r = run('xrxe', 1000)
        r['messages'] = 0
        with self.assertRaises(cr.ReportError):
            cr.append_index([r])

    def test_a_run_without_both_devices_counters(self):
        r = run('xrxe', 1000)
        del r['devices']['xrxe1']
        with self.assertRaises(cr.ReportError):
            cr.append_index([r])

    def test_a_repetition_twice(self):
        with self.assertRaises(cr.ReportError):
            cr.append_index([run('xrxe', 1000), run('xrxe', 1200)])

    def test_no_runs(self):
        with self.assertRaises(cr.ReportError):
            cr.append_report([], '')


class Anomalies(unittest.TestCase):
    def test_a_gapped_merge_and_a_coalescing_run_that_merged_nothing(self):
        runs = [run('xrxe-c1024', 1000, stream='gapped', merged=(10, 20)),
                run('xrxe-c4096', 1000), run('xrxe', 1000)]
        bad = cr.anomalies(cr.append_index(runs))
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
        md = cr.append_report(runs, 'HEADER')
        self.assertTrue(md.startswith('HEADER\n'))
        for text in ('adjacent, 1 QP', 'adjacent, 4 QPs', 'gapped, 1 QP', 'gapped, 4 QPs',
                     '`xrxe-c1024`', '**2.40 (2.40-2.40)**', '3 repetitions', '### Against the goal'):
            self.assertIn(text, md)
        self.assertNotIn('Counters out of place', md)


def tag_run(mode, rate, rep=0, size=1024, req_pkts=None, ack_pkts=None, wait_us=0,
            engines=None):
    """A records-then-tag run of rate records a second over 1 s, 16 records
    a round; req_pkts and ack_pkts what each device sent (default: a
    packet a record, an ACK a round); wait_us the tag QP's domain_wait_us
    over its rounds in the domain modes; engines those of its QPs."""
    drv = 'rxe' if mode == 'stock' else 'xrxe'
    qps = 4 if mode in ('domain', 'wait') else 1
    rounds = rate // 16
    r = {'workload': 'tag', 'driver': drv, 'mode': mode, 'tag_mode': mode, 'qps': qps,
         'size': size, 'rep': rep, 'records_per_round': 16, 'outstanding_rounds': 2,
         'path_mtu': 4096, 'window_s': 1.0, 'rounds': rounds, 'records': rounds * 16,
         'records_per_s': rate, 'rounds_per_s': rate / 16, 'rounds_posted': rounds + 2,
         'tag_checks': rounds,
         'devices': {f'{drv}0': {'sent_pkts': rounds * 17 if req_pkts is None else req_pkts},
                     f'{drv}1': {'sent_pkts': rounds if ack_pkts is None else ack_pkts}}}
    if drv == 'xrxe':
        flagged = mode in ('domain', 'domain1')
        engines = engines or [0] * qps
        r['qp_counters'] = [{'engine': engines[k], 'ocu': 1, 'ocu_remaps': 0,
                             'wqes_fetched': 0, 'wqes_coalesced': 0,
                             'domain_flushes': rounds if flagged and not k else 0,
                             'domain_wait_us': wait_us if flagged and not k else 0}
                            for k in range(qps)]
    return r


class TagRatios(unittest.TestCase):
    def test_each_asked_for_ratio_is_paired_per_repetition(self):
        # The host doubles its speed between repetitions; within each the
        # domain is 2x one QP, waiting 1.6x, stock half of one QP.
        runs = []
        for rep, speed in enumerate((1, 2, 1)):
            runs += [tag_run('stock', 800 * speed, rep), tag_run('one', 1600 * speed, rep),
                     tag_run('domain', 3200 * speed, rep, wait_us=1600),
                     tag_run('wait', 2560 * speed, rep)]
        idx = cr.tag_index(runs)
        at = idx[1024]
        self.assertEqual(cr.paired_ratio(at['domain'], at['one'], 'records_per_s')[0], 2.0)
        self.assertEqual(cr.paired_ratio(at['wait'], at['one'], 'records_per_s')[0], 1.6)
        self.assertEqual(cr.paired_ratio(at['domain'], at['wait'], 'records_per_s')[0], 1.25)
        table = '\n'.join(cr.tag_ratio_table(idx))
        self.assertIn('| domain / one | wait / one | domain / wait | one / stock |', table)
        self.assertIn('| 1 KiB | 2.00 (2.00-2.00) | 1.60 (1.60-1.60) | '
                      '1.25 (1.25-1.25) | 2.00 (2.00-2.00) |', table)

    def test_sizes_are_kept_apart_and_a_missing_mode_makes_no_ratio(self):
        runs = [tag_run('one', 1600), tag_run('domain', 800, wait_us=50),
                tag_run('one', 3200, size=64), tag_run('wait', 6400, size=64)]
        idx = cr.tag_index(runs)
        self.assertEqual(sorted(idx), [64, 1024])
        rows = cr.tag_ratio_table(idx)
        self.assertIn('| 1 KiB | 0.50 | n/a |', rows[2])
        self.assertIn('| 64 B | n/a | 2.00 |', rows[3])


class TagFigures(unittest.TestCase):
    def test_packets_wait_and_engines(self):
        # 100 rounds of 16 records: 1600 requests, 400 ACKs; the tag waited
        # 25 ms over 100 flushes.
        r = tag_run('domain', 1600, req_pkts=1700, ack_pkts=400, wait_us=25000,
                    engines=[1, 0, 0, 1])
        self.assertAlmostEqual(cr.pkts_per(r, 'records'), 2100 / 1600)
        self.assertAlmostEqual(cr.pkts_per(r, 'records', requester=True), 1700 / 1600)
        self.assertEqual(cr.tag_wait_us(r), 250)
        self.assertEqual(cr.engines_of(r), '1,0,0,1')

    def test_stock_and_unflagged_modes_have_no_wait_nor_engines(self):
        self.assertIsNone(cr.tag_wait_us(tag_run('stock', 1600)))
        self.assertIsNone(cr.engines_of(tag_run('stock', 1600)))
        self.assertIsNone(cr.tag_wait_us(tag_run('wait', 1600)))
        self.assertIsNone(cr.tag_wait_us(tag_run('one', 1600)))

    def test_detail_table_lists_each_repetitions_engines_once(self):
        runs = [tag_run('domain', 1600, 0, wait_us=800, engines=[0, 1, 0, 1]),
                tag_run('domain', 1600, 1, wait_us=1200, engines=[0, 1, 0, 1]),
                tag_run('domain', 1600, 2, wait_us=1000, engines=[1, 1, 0, 0])]
        table = '\n'.join(cr.tag_detail_table(cr.tag_index(runs), ['domain']))
        self.assertIn('| 1 KiB | domain | 1.125 / 1.062 | 10 | 0,1,0,1; 1,1,0,0 | 300 |',
                      table)


class TagVerdict(unittest.TestCase):
    def test_faster_slower_and_not_apart(self):
        runs = []
        for rep, (one, domain, wait) in enumerate(((1000, 1500, 1600), (1000, 1400, 1300),
                                                   (1000, 1200, 1300))):
            runs += [tag_run('one', one, rep), tag_run('domain', domain, rep, wait_us=10),
                     tag_run('wait', wait, rep)]
        lines = cr.tag_verdicts(cr.tag_index(runs))
        self.assertEqual(lines, ['- 1 KiB records: 4 QPs with the domain flush are faster '
                                 'than one QP (1.40 (1.20-1.50)) and not clearly apart '
                                 'from waiting for the completions (0.94 (0.92-1.08)).'])
        runs = [tag_run('one', 1000), tag_run('domain', 500, wait_us=10),
                tag_run('wait', 1000)]
        lines = cr.tag_verdicts(cr.tag_index(runs))
        self.assertIn('slower than one QP (0.50)', lines[0])
        self.assertIn('slower than waiting for the completions (0.50)', lines[0])


class TagRefusals(unittest.TestCase):
    def test_a_run_without_rounds(self):
        r = tag_run('one', 1600)
        r['rounds'] = 0
        with self.assertRaises(cr.ReportError):
            cr.tag_index([r])

    def test_a_run_whose_tag_was_never_checked(self):
        r = tag_run('one', 1600)
        r['tag_checks'] = 0
        with self.assertRaises(cr.ReportError):
            cr.tag_index([r])

    def test_a_domain_run_without_domain_flushes(self):
        r = tag_run('domain', 1600, wait_us=10)
        r['qp_counters'][0]['domain_flushes'] = 0
        with self.assertRaises(cr.ReportError):
            cr.tag_index([r])

    def test_a_repetition_twice_and_no_runs(self):
        with self.assertRaises(cr.ReportError):
            cr.tag_index([tag_run('one', 1600), tag_run('one', 1700)])
        with self.assertRaises(cr.ReportError):
            cr.tag_report([], '')


class TagWhole(unittest.TestCase):
    def test_report_names_every_mode_size_and_table(self):
        runs = []
        for rep in range(3):
            for size in (1024, 64):
                runs += [tag_run('stock', 800, rep, size), tag_run('one', 1600, rep, size),
                         tag_run('domain', 3200, rep, size, wait_us=2000,
                                 engines=[0, 1, 0, 1]),
                         tag_run('wait', 2400, rep, size),
                         tag_run('domain1', 1500, rep, size, wait_us=500)]
        md = cr.tag_report(runs, 'HEADER')
        self.assertTrue(md.startswith('HEADER\n'))
        for text in ('1 KiB and 64 B each', '3 repetitions', '`domain1`', '### Ratios',
                     '| 1 KiB | 800 (50) | 1600 (100) | 3200 (200) | 2400 (150) | 1500 (94) |',
                     '### Verdict', 'faster than one QP (2.00 (2.00-2.00))',
                     'faster than waiting for the completions (1.33 (1.33-1.33))'):
            self.assertIn(text, md)


if __name__ == '__main__':
    unittest.main()
