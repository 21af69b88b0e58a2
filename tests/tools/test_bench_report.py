#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The benchmark harness's pure parts: perftest result parsing, the
report's refusal to make ratios from failed or incomplete points, its
doorbell shares, low-latency command fates and receive work in the softirq,
which perftest outputs the testbed reruns, and the rate limit report's
judgement of accuracy against the unlimited rate next to each limit."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, 'bench'))
import guest_bench  # noqa: E402
import pace_report  # noqa: E402
import report  # noqa: E402

BW_OUT = '''---------------------------------------------------------------------------------------
 #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
 4096       2000             17.37              17.36  \t\t   0.004444
---------------------------------------------------------------------------------------
'''
LAT_OUT = ''' #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]
 2       1500          97.45          3666.77      149.62   \t       255.29      \t407.37 \t\t2386.37 \t\t3060.84
'''


def run(mode, test, size, qps, rep, ok=True, rate=0.01, lat=100.0):
    kind = 'lat' if test.endswith('_lat') else 'bw'
    r = {'mode': mode, 'test': test, 'kind': kind, 'size': size, 'qps': qps,
         'rep': rep, 'ok': ok}
    if not ok:
        r['error'] = 'server exit 1, client exit 1'
        return r
    r['figures'] = ({'t_typical_us': lat} if kind == 'lat' else
                    {'msg_rate_Mpps': rate, 'bw_avg_MBps': rate * size})
    r.update(cpu_us_per_msg=10.0, kernel_cpu_us_per_msg=5.0)
    return r


def raw(runs, reps=3):
    return {'kernel': 'k', 'started': 't', 'matrix': 'full', 'reps': reps, 'cpus': 2,
            'modes': [{'name': 'stock', 'about': 'a'}, {'name': 'xrxe', 'about': 'b'}],
            'memcpy': [{'size': 65536, 'MBps': 500.0, 'rep': 0}], 'runs': runs}


class Parse(unittest.TestCase):
    def test_bandwidth_line_counts_iterations_of_all_qps(self):
        pt = guest_bench.point('ib_send_bw', 4096, 4)
        f = guest_bench.parse_result(BW_OUT, pt, 500)
        self.assertEqual(f['msg_rate_Mpps'], 0.004444)
        self.assertEqual(f['bw_avg_MBps'], 17.36)

    def test_latency_line(self):
        pt = guest_bench.point('ib_write_lat', 2)
        self.assertEqual(guest_bench.parse_result(LAT_OUT, pt, 1500)['t_typical_us'], 149.62)

    def test_other_size_or_count_is_no_result(self):
        pt = guest_bench.point('ib_write_lat', 64)
        self.assertIsNone(guest_bench.parse_result(LAT_OUT, pt, 1500))
        pt = guest_bench.point('ib_write_lat', 2)
        self.assertIsNone(guest_bench.parse_result(LAT_OUT, pt, 1000))

    def test_non_finite_figure_is_no_result(self):
        pt = guest_bench.point('ib_write_lat', 2)
        self.assertIsNone(guest_bench.parse_result(LAT_OUT.replace('149.62', 'inf'), pt, 1500))

    def test_inline_only_where_the_opcode_has_a_payload(self):
        self.assertIn('-I 64', guest_bench.perftest_args(guest_bench.point('ib_send_lat', 64), 10))
        self.assertNotIn('-I', guest_bench.perftest_args(guest_bench.point('ib_read_lat', 64), 10))
        self.assertIn('-q 4', guest_bench.perftest_args(guest_bench.point('ib_write_bw', 64, 4), 10))


class Report(unittest.TestCase):
    def write_and_report(self, data):
        d = tempfile.mkdtemp()
        with open(os.path.join(d, 'raw.json'), 'w') as f:
            json.dump(data, f)
        p = subprocess.run([sys.executable, os.path.join(TOP, 'bench', 'report.py'), d],
                           capture_output=True, text=True)
        return p.returncode, p.stdout

    def test_ratio_is_median_over_median(self):
        runs = [run(m, 'ib_write_bw', 64, 1, i, rate=r)
                for m, rates in (('stock', (0.01, 0.02, 0.03)), ('xrxe', (0.03, 0.04, 0.09)))
                for i, r in enumerate(rates)]
        res = report.Results(raw(runs))
        self.assertEqual(report.ratio(res, 'xrxe', ('ib_write_bw', 64, 1), 'msg_rate_Mpps'), '2.00')
        rc, out = self.write_and_report(raw(runs))
        self.assertEqual(rc, 0)
        self.assertIn('| 2.00 |', out)

    def test_header_says_whether_slub_debug_was_on(self):
        runs = [run(m, 'ib_write_bw', 64, 1, i) for m in ('stock', 'xrxe') for i in range(3)]
        for on, words in ((False, 'slub_debug off'), (True, 'slub_debug on')):
            res = report.Results(dict(raw(runs), slub_debug=on))
            self.assertIn(words, report.table(res))
        self.assertNotIn('slub_debug', report.table(report.Results(raw(runs))))

    def test_failed_run_gives_no_ratio_and_fails(self):
        runs = [run('stock', 'ib_write_lat', 2, 1, i) for i in range(3)]
        runs += [run('xrxe', 'ib_write_lat', 2, 1, 0), run('xrxe', 'ib_write_lat', 2, 1, 1),
                 run('xrxe', 'ib_write_lat', 2, 1, 2, ok=False)]
        res = report.Results(raw(runs))
        self.assertEqual(report.ratio(res, 'xrxe', ('ib_write_lat', 2, 1), 't_typical_us'), 'n/a')
        rc, out = self.write_and_report(raw(runs))
        self.assertEqual(rc, 1)
        self.assertIn('FAILED', out)
        self.assertIn('xrxe ib_write_lat 2 B rep 2: server exit 1', out)

    def test_missing_repetition_fails(self):
        runs = [run('stock', 'ib_write_lat', 2, 1, i) for i in range(3)]
        runs += [run('xrxe', 'ib_write_lat', 2, 1, i) for i in range(2)]
        rc, out = self.write_and_report(raw(runs))
        self.assertEqual(rc, 1)
        self.assertIn('2 of 3 repetitions ran', out)

    def test_missing_figure_gives_no_ratio(self):
        runs = [run(m, 'ib_write_bw', 64, 1, i) for m in ('stock', 'xrxe') for i in range(3)]
        del runs[4]['figures']['bw_avg_MBps']
        res = report.Results(raw(runs))
        self.assertEqual(report.ratio(res, 'xrxe', ('ib_write_bw', 64, 1), 'bw_avg_MBps'), 'n/a')
        self.assertEqual(report.ratio(res, 'xrxe', ('ib_write_bw', 64, 1), 'msg_rate_Mpps'), '1.00')
        rc, out = self.write_and_report(raw(runs))
        self.assertEqual(rc, 1)
        self.assertIn('xrxe ib_write_bw 64 B rep 1: missing bw_avg_MBps', out)

    def test_doorbells_avoided_share_per_point(self):
        runs = [run(m, 'ib_write_bw', 64, 1, i) for m in ('stock', 'xrxe') for i in range(3)]
        for r, (rung, avoided) in zip(runs[3:], ((10, 90), (20, 80), (50, 150))):
            r['counters'] = {'xrxe_doorbells': rung, 'xrxe_doorbells_avoided': avoided}
        out = report.table(report.Results(raw(runs)))
        self.assertIn('| ib_write_bw 64 B | 80% (75-90), 20 rung |', out)

    def test_a_command_counts_as_a_doorbell_rung(self):
        runs = [run(m, 'ib_write_bw', 64, 1, i) for m in ('stock', 'xrxe') for i in range(3)]
        for r in runs[3:]:
            r['counters'] = {'xrxe_doorbells': 5, 'xrxe_ll_posts': 15,
                             'xrxe_doorbells_avoided': 80}
        out = report.table(report.Results(raw(runs)))
        self.assertIn('| ib_write_bw 64 B | 80% (80-80), 20 rung |', out)

    def test_packets_per_message(self):
        runs = [run(m, 'ib_write_bw', 64, 1, i) for m in ('stock', 'xrxe') for i in range(3)]
        for r, pkts in zip(runs, (200, 220, 240, 110, 120, 130)):
            r.update(messages=100, counters={'sent_pkts': pkts})
        out = report.table(report.Results(raw(runs)))
        self.assertIn('| ib_write_bw 64 B | 2.20 | 1.20 |', out)

    def test_a_retried_run_counts_per_try(self):
        runs = [run(m, 'ib_write_bw', 64, 1, i) for m in ('stock', 'xrxe') for i in range(3)]
        for r in runs:
            r.update(messages=100, counters={'sent_pkts': 200, 'xrxe_doorbells': 10,
                                             'xrxe_doorbells_avoided': 90})
        for r in (runs[3], runs[4]):
            r.update(retries=1, counters={'sent_pkts': 400, 'xrxe_doorbells': 20,
                                          'xrxe_doorbells_avoided': 180})
        out = report.table(report.Results(raw(runs)))
        self.assertIn('| ib_write_bw 64 B | 2.00 | 2.00 |', out)
        self.assertIn('| ib_write_bw 64 B | 90% (90-90), 10 rung | 90% (90-90), 10 rung |', out)

    def test_low_latency_commands_per_point(self):
        runs = [run(m, 'ib_write_lat', 2, 1, i) for m in ('stock', 'xrxe') for i in range(3)]
        for r, (posts, taken, busy) in zip(runs[3:], ((200, 150, 50), (200, 200, 0),
                                                     (100, 90, 10))):
            r.update(messages=100, counters={'xrxe_ll_posts': posts,
                                             'xrxe_ll_accepted': taken,
                                             'xrxe_ll_dropped_busy': busy})
        out = report.table(report.Results(raw(runs)))
        self.assertIn('| ib_write_lat 2 B | 2.00/msg, 90% taken; dropped: busy 10% |', out)

    def test_extra_packet_events_per_thousand_messages(self):
        runs = [run(m, 'ib_send_bw', 64, 1, i) for m in ('stock', 'xrxe') for i in range(3)]
        quiet = dict.fromkeys((c for c, _ in report.EXTRA_PACKET_EVENTS), 0) | {'sent_pkts': 200}
        for r in runs:
            r.update(messages=1000, counters=dict(quiet))
        for r, rnr in zip(runs[3:], (30, 50, 40)):
            r['counters'].update(send_rnr_err=rnr, duplicate_request=2)
        out = report.table(report.Results(raw(runs)))
        self.assertIn('| ib_send_bw 64 B | none | RNR NAKs 40, duplicates 2 |', out)
        for r in runs:
            r['counters'] = dict(quiet)
        self.assertNotIn('extra packets', report.table(report.Results(raw(runs))))

    def test_requests_in_the_softirq_per_message(self):
        runs = [run(m, 'ib_write_lat', 2, 1, i) for m in ('stock', 'xrxe') for i in range(3)]
        for r, req in zip(runs[3:], (190, 196, 180)):
            r.update(messages=100, counters={'xrxe_rx_inline_requests': req})
        out = report.table(report.Results(raw(runs)))
        self.assertIn('| ib_write_lat 2 B | 1.90 |', out)
        for r in runs[3:]:
            r['counters'] = {'xrxe_rx_inline_requests': 0}
        self.assertNotIn('receive softirq', report.table(report.Results(raw(runs))))

    def test_no_command_table_without_commands(self):
        runs = [run(m, 'ib_write_lat', 2, 1, i) for m in ('stock', 'xrxe') for i in range(3)]
        for r in runs[3:]:
            r.update(messages=100, counters={'xrxe_ll_posts': 0})
        self.assertNotIn('Low-latency commands', report.table(report.Results(raw(runs))))

    def test_no_doorbell_share_from_a_failed_point(self):
        runs = [run(m, 'ib_write_bw', 64, 1, i) for m in ('stock', 'xrxe') for i in range(3)]
        runs[5] = run('xrxe', 'ib_write_bw', 64, 1, 2, ok=False)
        for r in runs[3:5]:
            r['counters'] = {'xrxe_doorbells': 1, 'xrxe_doorbells_avoided': 1}
        out = report.table(report.Results(raw(runs)))
        self.assertIn('| ib_write_bw 64 B | n/a |', out)


class Calibration(unittest.TestCase):
    """pair.sh's calibration_failed: which perftest outputs are rerun."""

    def failed(self, client):
        d = tempfile.mkdtemp()
        with open(os.path.join(d, 'p-server'), 'w') as f:
            f.write(LAT_OUT)
        with open(os.path.join(d, 'p-client'), 'w') as f:
            f.write(client)
        pair = os.path.join(TOP, 'tools', 'testbed-guest', 'pair.sh')
        return subprocess.run(['bash', '-c', '. "$0"; calibration_failed "$1"',
                               pair, os.path.join(d, 'p')]).returncode == 0

    def test_good_output_is_kept(self):
        self.assertFalse(self.failed(LAT_OUT))

    def test_no_report_is_rerun(self):
        self.assertTrue(self.failed("Can't produce a report\n"))

    def test_inf_figures_after_a_bad_fit_are_rerun(self):
        bad = ('Correlation coefficient r^2: 0.88 < 0.9\n'
               ' 2       3000          inf            inf          inf \t inf \t-nan\n')
        self.assertTrue(self.failed(bad))

    def test_a_bad_fit_with_finite_figures_is_kept(self):
        self.assertFalse(self.failed('Correlation coefficient r^2: 0.88 < 0.9\n' + LAT_OUT))


def acc(limit, measured, **near):
    return dict(mode='accuracy', type='rc', size=4096, limit_kbps=limit,
                measured_kbps=measured,
                error_pct=(measured - limit) * 100 / limit if limit else 0,
                max_excess_bytes=0, burst_bytes=16384, **near)


class PaceAccuracy(unittest.TestCase):
    def summary(self, runs):
        return '\n'.join(pace_report.accuracy_table(runs)[-2:])

    def test_low_limit_is_judged_against_the_first_unlimited_run(self):
        lines = pace_report.accuracy_table([acc(0, 100000), acc(1000, 990)])
        self.assertIn('| 100000 / 100000 | 1% |', lines[-3])
        self.assertIn('largest error 1.00% over 1 runs', lines[-1])

    def test_share_is_of_the_lower_unlimited_run_beside_it(self):
        runs = [acc(0, 130000),
                acc(80000, 79000, unlimited_before_kbps=100000, unlimited_after_kbps=110000),
                acc(90000, 70000, unlimited_before_kbps=100000, unlimited_after_kbps=95000)]
        text = '\n'.join(pace_report.accuracy_table(runs))
        self.assertIn('| 100000 / 110000 | 80% |', text)
        self.assertIn('| 100000 / 95000 | 95% |', text)
        # Within the goal: only the 80% point; the other is counted apart.
        self.assertIn('largest error 1.25% over 1 runs', text)
        self.assertIn('above 80% of it (the unlimited rate fell between the first run '
                      'and theirs): 1, largest error 22.22%', text)

    def test_late_bytes_are_a_share_of_the_limit_and_added_back(self):
        # 5 s at 100 Mbit/s: 62.5 MB allowed; 3.125 MB late is 5%.
        late = acc(100000, 94000, unlimited_before_kbps=200000,
                   unlimited_after_kbps=210000, window_s=5.0, wakeups=2000,
                   late_wakeups=150, late_bytes=3125000, wait_us=4000000)
        text = '\n'.join(pace_report.accuracy_table([acc(0, 200000), late]))
        self.assertIn('| 50% | 80% | 150 of 2000 | 5.00% |', text)
        self.assertIn('largest error 6.00% over 1 runs', text)
        self.assertIn('with their late bytes counted as sent: largest error 1.00%; '
                      '1 of 1 within 1%', text)

    def test_runs_without_late_counters_show_dashes(self):
        lines = pace_report.accuracy_table([acc(0, 100000), acc(1000, 990)])
        self.assertIn('| 1% | - | - | - |', lines[-3])
        self.assertNotIn('late bytes counted', '\n'.join(lines))

    def test_no_beyond_line_when_every_limit_is_within_the_goal(self):
        self.assertNotIn('above 80%', self.summary([acc(0, 100000), acc(10000, 10010)]))


class PaceIsolation(unittest.TestCase):
    def test_program_paced_column_beside_the_limit(self):
        runs = []
        for config, msgs in (('s', 1000.0), ('sp', 900.0), ('sq', 950.0)):
            runs.append(dict(mode='mix', driver='xrxe', config=config, size=4096,
                             paced_kbps=10000 if config != 's' else 0,
                             program_msgs_per_s=286.0 if 'q' in config else 0,
                             stream_msgs_per_s=msgs))
        lines = pace_report.isolation_table(runs)
        self.assertIn('Paced QP at 10000 kbit/s; the program sends 286.0 messages a second:',
                      lines)
        row = [line for line in lines if line.startswith('| stream alone')][0]
        self.assertEqual(row, '| stream alone: messages/s | 1000.0 (1000.0-1000.0) | '
                         '900.0 (900.0-900.0) | 0.900 (0.900-0.900) | 950.0 (950.0-950.0) | '
                         '0.950 (0.950-0.950) | >= 0.95 |')

    def test_ratios_pair_the_runs_of_one_repetition(self):
        # The host ran twice as fast in the second repetition: each pair
        # shows 0.9, the medians of the columns would not.
        runs = []
        for alone, beside in ((1000.0, 900.0), (2000.0, 1800.0), (1100.0, 990.0)):
            for config, msgs in (('s', alone), ('sp', beside), ('sq', beside)):
                runs.append(dict(mode='mix', driver='xrxe', config=config, size=4096,
                                 paced_kbps=10000 if config != 's' else 0,
                                 program_msgs_per_s=286.0 if 'q' in config else 0,
                                 stream_msgs_per_s=msgs))
        row = [line for line in pace_report.isolation_table(runs)
               if line.startswith('| stream alone')][0]
        self.assertIn('| 1100.0 (1000.0-2000.0) | 990.0 (900.0-1800.0) | 0.900 (0.900-0.900) |',
                      row)


if __name__ == '__main__':
    unittest.main()
