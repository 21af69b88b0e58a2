#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The benchmark harness's pure parts: perftest, ucx_perftest and MPI
ping-pong result parsing, the matrices (sizes, modes by size, modes named
with --modes at every point, ib_read_bw beside the other bandwidth
programs, --sizes and --tests) and how their points are grouped into
runs, the memcpy and TCP references (their lines, the TCP reference's
veth pair and namespace, made and deleted with a stand-in ip), each
bandwidth figure as fractions of TCP's and memcpy's, the report's refusal
to make ratios from failed or incomplete points, its tables for points
measured by fewer modes and for UCX and MPI, the page its --docs
rewrites (docs/bench/matrix.md, the plots beside it), its doorbell shares,
low-latency command fates and receive work in the softirq, which perftest
outputs the testbed reruns, the CPU profile of --profile (perf's
samples to stages and threads, its table), and the rate limit report's judgement of
accuracy against the unlimited rate next to each limit. The launcher,
bench/xrxe-bench, run in a copy of the tree whose build and testbed are
stubs: each workload's boot, runner, header and report, the options a
workload does not take, --cpus (its checks, the host's cores and the
over-subscription warning, a sweep's directories and sweep.md),
--no-build, --docs and --brief; the bundle's shorthands for its workloads;
and every report without matplotlib."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, 'bench'))
import cpu_profile  # noqa: E402
import guest  # noqa: E402
import perftest  # noqa: E402
import report  # noqa: E402
from test_coalesce_report import run as append_run, tag_run  # noqa: E402

BW_OUT = '''---------------------------------------------------------------------------------------
 #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
 4096       2000             17.37              17.36  \t\t   0.004444
---------------------------------------------------------------------------------------
'''
LAT_OUT = ''' #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]
 2       1500          97.45          3666.77      149.62   \t       255.29      \t407.37 \t\t2386.37 \t\t3060.84
'''
# ucx_perftest -b: each test's rows after a separator with its name; the
# last interval of a test may be empty (inf).
UCX_OUT = '''+--------------+--------------+------------------------------+---------------------+-----------------------+
|    Stage     | # iterations | 50.0%ile | average | overall |  average |  overall |  average  |  overall  |
+--------------+--------------+----------+---------+---------+----------+----------+-----------+-----------+
+tag_lat_8-----+--------------+----------+---------+---------+----------+----------+-----------+-----------+
[thread 0]               489    117.000  1029.536  1029.536        0.01       0.01         971         971
Final:                   500    118.500  3830.541  1091.158        0.00       0.01         261         916
+tag_lat_65536-+--------------+----------+---------+---------+----------+----------+-----------+-----------+
[thread 0]               256  14427.500 13545.999 15954.131        4.61       3.92          74          63
Final:                   256  14427.500       inf 15962.154        0.00       3.92           0          63
+tag_bw_65536--+--------------+----------+---------+---------+----------+----------+-----------+-----------+
Final:                   300      1.000  9582.205  7257.380        6.52       8.61         104         138
+tag_bw_1048576+--------------+----------+---------+---------+----------+----------+-----------+-----------+
Final:                     9     21.000 72732.766 72732.766       13.75      13.75          14          14
'''
# The MPI ping-pong: perftest's latency header and line per size.
MPI_OUT = '''# mpi-pingpong: rank 0 on xrxe0:1, rank 1 on xrxe1:1
 #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]
 8       1000       54.54         18367.71      141.29        1065.92       2089.98       9445.52       13646.65
 #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]
 65536   256        4032.49       570889.06     16061.90      24656.90      44099.45      197160.65     570889.06
'''


def run(mode, test, size, qps, rep, ok=True, rate=0.01, lat=100.0):
    kind = 'lat' if test.endswith('_lat') or test == 'mpi_pingpong' else 'bw'
    r = {'mode': mode, 'test': test, 'kind': kind, 'size': size, 'qps': qps,
         'rep': rep, 'ok': ok}
    if not ok:
        r['error'] = 'server exit 1, client exit 1'
        return r
    r['figures'] = ({'t_typical_us': lat} if kind == 'lat' else
                    {'msg_rate_Mpps': rate, 'bw_avg_MBps': rate * size})
    r.update(cpu_us_per_msg=10.0, kernel_cpu_us_per_msg=5.0)
    return r


def raw(runs, reps=3, points=None, modes=('stock', 'xrxe')):
    r = {'kernel': 'k', 'started': 't', 'matrix': 'full', 'reps': reps, 'cpus': 2,
         'modes': [{'name': m, 'about': m.upper()} for m in modes],
         'memcpy': [{'size': 65536, 'MBps': 500.0, 'rep': 0}], 'runs': runs}
    if points is not None:
        r['points'] = points
    return r


def planned(test, size, qps, modes):
    kind = 'lat' if test.endswith('_lat') or test == 'mpi_pingpong' else 'bw'
    p = {'test': test, 'kind': kind, 'size': size, 'qps': qps, 'modes': list(modes)}
    if test.startswith('ucx_') or test == 'mpi_pingpong':
        p['family'] = 'ucx' if test.startswith('ucx_') else 'mpi'
    return p


def ucx_run(mode, test, size, rep, **kw):
    r = run(mode, test, size, 1, rep, **kw)
    r['family'] = 'ucx'
    for f in ('cpu_us_per_msg', 'kernel_cpu_us_per_msg'):
        r.pop(f, None)
    return r


class Parse(unittest.TestCase):
    def test_bandwidth_line_counts_iterations_of_all_qps(self):
        pt = perftest.point('ib_send_bw', 4096, 4)
        f = perftest.parse_result(BW_OUT, pt, 500)
        self.assertEqual(f['msg_rate_Mpps'], 0.004444)
        self.assertEqual(f['bw_avg_MBps'], 17.36)

    def test_latency_line(self):
        pt = perftest.point('ib_write_lat', 2)
        self.assertEqual(perftest.parse_result(LAT_OUT, pt, 1500)['t_typical_us'], 149.62)

    def test_other_size_or_count_is_no_result(self):
        pt = perftest.point('ib_write_lat', 64)
        self.assertIsNone(perftest.parse_result(LAT_OUT, pt, 1500))
        pt = perftest.point('ib_write_lat', 2)
        self.assertIsNone(perftest.parse_result(LAT_OUT, pt, 1000))

    def test_non_finite_figure_is_no_result(self):
        pt = perftest.point('ib_write_lat', 2)
        self.assertIsNone(perftest.parse_result(LAT_OUT.replace('149.62', 'inf'), pt, 1500))

    def test_a_nan_standard_deviation_alone_is_left_out(self):
        pt = perftest.point('ib_write_lat', 2)
        f = perftest.parse_result(LAT_OUT.replace('407.37', '-nan'), pt, 1500)
        self.assertEqual(f['t_typical_us'], 149.62)
        self.assertNotIn('t_stdev_us', f)

    def test_inline_only_up_to_256_bytes(self):
        def args(*pt):
            return perftest.perftest_args(perftest.point(*pt), 9)
        self.assertIn('-I 256', args('ib_write_lat', 256))
        self.assertNotIn('-I', args('ib_write_lat', 1024))
        self.assertNotIn('-I', args('ib_write_bw', 64))

    def test_ucx_figures_of_each_batch_test(self):
        lat = perftest.point('ucx_tag_lat', 8)
        self.assertEqual(perftest.parse_result(UCX_OUT, lat, 500),
                         {'t_typical_us': 118.5, 't_avg_us': 1091.158})
        # An empty last interval (inf) does not spoil the run's figures.
        big = perftest.point('ucx_tag_lat', 65536)
        self.assertEqual(perftest.parse_result(UCX_OUT, big, 256)['t_typical_us'], 14427.5)
        bw = perftest.point('ucx_tag_bw', 65536)
        f = perftest.parse_result(UCX_OUT, bw, 300)
        self.assertEqual(f['bw_avg_MBps'], 8.61)
        self.assertAlmostEqual(f['msg_rate_Mpps'], 8.61 * 16 / 1e6)
        # A name as wide as the first column: its separator ends in '+'.
        mib = perftest.parse_result(UCX_OUT, perftest.point('ucx_tag_bw', 1 << 20), 9)
        self.assertEqual(mib['bw_avg_MBps'], 13.75)
        # A name that another one begins with is not that one.
        self.assertIsNone(perftest.parse_result(UCX_OUT, perftest.point('ucx_tag_bw', 1048),
                                                   9))
        # Another test's final line is not this one's.
        self.assertIsNone(perftest.parse_result(UCX_OUT, perftest.point('ucx_tag_bw', 8),
                                                   500))
        self.assertIsNone(perftest.parse_result(UCX_OUT, lat, 300))

    def test_ucx_rates_from_the_figure_rounded_less(self):
        # 8 B at 9562 messages a second: ucx_perftest prints 0.07 MB/s.
        small = perftest.ucx_rates(0.07, 9562, 8)
        self.assertEqual(small['msg_rate_Mpps'], 0.009562)
        self.assertAlmostEqual(small['bw_avg_MBps'], 9562 * 8 / 2 ** 20)
        # 1 MiB at 7.18 MB/s: it prints 7 messages a second.
        big = perftest.ucx_rates(7.18, 7, 1 << 20)
        self.assertEqual(big['bw_avg_MBps'], 7.18)
        self.assertAlmostEqual(big['msg_rate_Mpps'], 7.18e-6)

    def test_mpi_pingpong_line_per_size(self):
        f = perftest.parse_result(MPI_OUT, perftest.point('mpi_pingpong', 65536), 256)
        self.assertEqual(f['t_typical_us'], 16061.9)
        self.assertIsNone(perftest.parse_result(MPI_OUT, perftest.point('mpi_pingpong', 8),
                                                   256))

    def test_inline_only_where_the_opcode_has_a_payload(self):
        self.assertIn('-I 64', perftest.perftest_args(perftest.point('ib_send_lat', 64), 10))
        self.assertNotIn('-I', perftest.perftest_args(perftest.point('ib_read_lat', 64), 10))
        self.assertIn('-q 4', perftest.perftest_args(perftest.point('ib_write_bw', 64, 4), 10))


class Matrix(unittest.TestCase):
    def sizes(self, test, qps=1, name='full'):
        return [p['size'] for p in perftest.matrix(name)
                if p['test'] == test and p['qps'] == qps]

    def test_full_matrix_from_2_bytes_to_1_mib(self):
        for t in perftest.LAT_PROGS:
            self.assertEqual(self.sizes(t), [2, 64, 256, 1024, 4096, 16384, 65536,
                                             262144, 1048576])
        for t in perftest.BW_PROGS:
            for q in (1, 4):
                self.assertEqual(self.sizes(t, q), [64, 256, 1024, 4096, 16384, 65536,
                                                    262144, 1048576])
        self.assertEqual(self.sizes('mpi_pingpong'), [8, 4096, 65536, 1048576])
        self.assertEqual(self.sizes('ucx_tag_bw'), [8, 4096, 65536, 1048576])
        self.assertEqual(self.sizes('ucx_am_lat'), [8, 4096])

    @staticmethod
    def every(p):
        """Every mode, but the bandwidth-only ones at a latency point."""
        return [m for m in perftest.MODES if p['kind'] == 'bw' or m not in perftest.BW_ONLY_MODES]

    def test_every_mode_only_where_the_modes_differ(self):
        for p in perftest.matrix('full'):
            small = p['size'] <= (256 if p['kind'] == 'lat' else 64)
            if 'family' not in p and small:
                self.assertEqual(perftest.modes_of(p), self.every(p), p)
            else:
                # The classic path too: what a user compares the defaults with.
                self.assertEqual(perftest.modes_of(p),
                                 ['stock', 'xrxe', 'xrxe-ll', 'xrxe-ll-spin'], p)

    def test_modes_named_measure_every_point(self):
        pts = perftest.matrix('sizes', [65536], ['ib_write_bw', 'ib_read_bw'],
                              ['xrxe', 'xrxe-ll'])
        self.assertEqual([(p['test'], p['qps'], p['modes']) for p in pts],
                         [(t, q, ['stock', 'xrxe', 'xrxe-ll'])
                          for t in ('ib_write_bw', 'ib_read_bw') for q in (1, 4)])
        # A mode that the full matrix measures only up to 256 B, named:
        # every size, every family, in the order of MODE_TABLE.
        for name, sizes in (('full', None), ('sizes', [8, 4096, 65536, 1 << 20])):
            full = perftest.matrix(name, sizes)
            pts = perftest.matrix(name, sizes, modes=['xrxe-dbl', 'xrxe'])
            self.assertEqual([(p['test'], p['size'], p['qps']) for p in pts],
                             [(p['test'], p['size'], p['qps']) for p in full])
            self.assertTrue(all(p['modes'] == ['stock', 'xrxe', 'xrxe-dbl'] for p in pts))
            self.assertIn('ucx', {p.get('family') for p in pts})
            self.assertIn('mpi', {p.get('family') for p in pts})
        # The bandwidth-only mode stays so: latency points keep stock alone and go.
        pts = perftest.matrix('full', modes=['xrxe-ll-coalesce'])
        self.assertTrue(pts)
        self.assertEqual({p['kind'] for p in pts}, {'bw'})
        self.assertIn('ucx_tag_bw', {p['test'] for p in pts})
        self.assertEqual(perftest.matrix('sizes', [65536], ['ib_write_lat'],
                                         ['xrxe-ll-coalesce']), [])
        # Without --modes the small matrices still measure every mode.
        for name in ('short', 'small', 'll'):
            for p in perftest.matrix(name, modes=['xrxe']):
                self.assertEqual(p['modes'], ['stock', 'xrxe'])

    def test_the_other_matrices_are_unchanged(self):
        short = perftest.matrix('short')
        self.assertEqual([(p['test'], p['size'], p['qps']) for p in short],
                         [('ib_write_lat', 2, 1), ('ib_send_lat', 2, 1), ('ib_write_bw', 64, 1),
                          ('ib_write_bw', 65536, 1), ('ib_send_bw', 4096, 4)])
        self.assertEqual([perftest.iterations(p, True) for p in short],
                         [1500, 1500, 10000, 300, 1000])
        for name in ('short', 'small', 'll'):
            for p in perftest.matrix(name):
                self.assertEqual(perftest.modes_of(p), self.every(p))
                self.assertEqual(perftest.iterations(p, name == 'short'),
                                 (3000 if p['kind'] == 'lat' else
                                  {64: 20000, 4096: 8000, 65536: 600}[p['size']] // p['qps'])
                                 // (2 if name == 'short' else 1))

    def test_coalescing_is_measured_by_bandwidth_points_only(self):
        for name in ('full', 'short', 'small', 'll'):
            for p in perftest.matrix(name):
                self.assertEqual('xrxe-ll-coalesce' in perftest.modes_of(p),
                                 p['kind'] == 'bw' and 'family' not in p and
                                 p['size'] <= (64 if name == 'full' else 1 << 20), p)

    def test_read_bandwidth_where_write_and_send_bandwidth_are(self):
        self.assertIn('ib_read_bw', perftest.BW_PROGS)
        self.assertIn('ib_read_bw', perftest.PARTS)
        for q in (1, 4):
            self.assertEqual(self.sizes('ib_read_bw', q), self.sizes('ib_write_bw', q))
        full = perftest.matrix('full')
        self.assertEqual([perftest.modes_of(p) for p in full if p['test'] == 'ib_read_bw'],
                         [perftest.modes_of(p) for p in full if p['test'] == 'ib_write_bw'])
        pts = perftest.matrix('sizes', [64, 65536], ['ib_read_bw'])
        self.assertEqual([(p['test'], p['size'], p['qps'], p['kind']) for p in pts],
                         [('ib_read_bw', s, q, 'bw') for s in (64, 65536) for q in (1, 4)])
        self.assertEqual([perftest.iterations(p, False) for p in pts], [20000, 5000, 600, 150])
        self.assertEqual(perftest.matrix('sizes', [65536], ['perftest']),
                         [p for p in perftest.matrix('sizes', [65536])
                          if 'family' not in p])
        self.assertIn(('ib_read_bw', 65536, 4),
                      [(p['test'], p['size'], p['qps']) for p in perftest.matrix('sizes',
                                                                                 [65536])])
        # The short matrix keeps its five points.
        self.assertNotIn('ib_read_bw', {p['test'] for p in perftest.matrix('short')})
        self.assertEqual(perftest.matrix('short', tests=['ib_read_bw']), [])

    def test_read_bandwidth_command_and_result(self):
        args = perftest.perftest_args(perftest.point('ib_read_bw', 65536, 4), 150)
        self.assertEqual(args, '-x 0 -s 65536 -n 150 -q 4 -o 128')
        for test in ('ib_write_bw', 'ib_send_bw', 'ib_read_lat'):
            self.assertNotIn('-o', perftest.perftest_args(perftest.point(test, 65536), 9))
        pt = perftest.point('ib_read_bw', 4096, 4)
        self.assertEqual(pt['inline'], False)
        f = perftest.parse_result(BW_OUT, pt, 500)
        self.assertEqual((f['msg_rate_Mpps'], f['bw_avg_MBps']), (0.004444, 17.36))

    def test_iterations_shrink_with_size(self):
        it = {p['size']: perftest.iterations(p, False) for p in perftest.matrix('full')
              if p['test'] == 'ib_write_lat'}
        self.assertEqual((it[256], it[4096], it[65536], it[1048576]), (3000, 1000, 256, 16))
        big = perftest.point('ib_send_bw', 1048576, 4)
        self.assertEqual(perftest.iterations(big, False), 10)

    def test_sizes_and_tests_select(self):
        pts = perftest.matrix('sizes', [65536, 4096], ['ib_write_bw', 'mpi'])
        self.assertEqual([(p['test'], p['size'], p['qps']) for p in pts],
                         [('ib_write_bw', 4096, 1), ('ib_write_bw', 4096, 4),
                          ('ib_write_bw', 65536, 1), ('ib_write_bw', 65536, 4),
                          ('mpi_pingpong', 4096, 1), ('mpi_pingpong', 65536, 1)])
        # No bandwidth below 64 B, no ucp_am_lat above 4 KiB.
        tests = {p['test'] for p in perftest.matrix('sizes', [8])}
        self.assertNotIn('ib_write_bw', tests)
        self.assertIn('ucx_am_lat', tests)
        tests = {p['test'] for p in perftest.matrix('sizes', [65536])}
        self.assertNotIn('ucx_am_lat', tests)
        self.assertEqual(perftest.matrix('short', tests=['ucx']), [])

    def test_modes_select_beside_stock(self):
        full = perftest.matrix('full')
        pts = perftest.matrix('full', modes=['xrxe-ll'])
        # Every point of the full matrix, in stock and the defaults alone.
        self.assertEqual([(p['test'], p['size'], p['qps']) for p in pts],
                         [(p['test'], p['size'], p['qps']) for p in full])
        self.assertTrue(all(p['modes'] == ['stock', 'xrxe-ll'] for p in pts))
        self.assertEqual(perftest.runs_per_rep(pts), 2 * len(full))
        # A mode the full matrix measures only at small sizes, named, is
        # measured at the large ones too.
        pts = perftest.matrix('sizes', [64, 4096], ['ib_write_lat'], ['xrxe-dbl'])
        self.assertEqual([(p['size'], p['modes']) for p in pts],
                         [(64, ['stock', 'xrxe-dbl']), (4096, ['stock', 'xrxe-dbl'])])
        self.assertEqual(perftest.matrix('sizes', [4096], modes=['stock']), [])
        for bad in ('', 'nope', 'xrxe-ll,nope'):
            with self.assertRaises(Exception):
                guest.name_list(bad, perftest.MODES, '--modes')
        self.assertEqual(guest.name_list('xrxe-ll,xrxe', perftest.MODES, '--modes'),
                         ['xrxe-ll', 'xrxe'])

    def test_chosen_modes_named_in_the_header(self):
        runs = [run(m, 'ib_write_bw', 64, 1, i) for m in ('stock', 'xrxe') for i in range(3)]
        res = report.Results(dict(raw(runs), chosen_modes=['xrxe']))
        self.assertIn('stock and xrxe only', report.table(res))

    def test_paired_order_runs_each_point_in_every_mode_in_turn(self):
        pts = perftest.matrix('sizes', [4096], ['ib_write_lat', 'ucx'])
        names = list(perftest.MODES)
        by_modes = perftest.run_order(pts, False)
        paired = perftest.run_order(pts, True)
        # The same runs, in another order.
        key = lambda r: (r[0][0], tuple(p['test'] for p in r[1]))
        self.assertEqual(sorted(map(key, by_modes)), sorted(map(key, paired)))
        self.assertEqual([m[0] for m, _ in by_modes],
                         sorted((m[0] for m, _ in by_modes), key=names.index))
        self.assertEqual([(m[0], [p['test'] for p in g]) for m, g in paired],
                         [(m, ['ib_write_lat']) for m in perftest.LARGE_MODES] +
                         [(m, ['ucx_am_lat', 'ucx_tag_lat', 'ucx_tag_bw'])
                          for m in perftest.LARGE_MODES])

    def test_ucx_and_mpi_points_share_a_run(self):
        pts = perftest.matrix('sizes', [8, 4096])
        groups = perftest.run_groups(pts)
        fams = [perftest.family(g[0]['test']) for g in groups]
        self.assertEqual(fams.count('ucx'), 1)
        self.assertEqual(fams.count('mpi'), 1)
        self.assertTrue(all(len(g) == 1 for g in groups if g[0].get('family') is None))
        self.assertEqual(sum(len(g) for g in groups), len(pts))

    def test_ucx_batch_and_mpi_command(self):
        pts = [perftest.point('ucx_am_lat', 8), perftest.point('ucx_tag_bw', 4096)]
        self.assertEqual(perftest.ucx_batch(pts, [1000, 2000]),
                         'ucp_am_lat_8 -t ucp_am_lat -s 8 -n 1000 -w 50\n'
                         'tag_bw_4096 -t tag_bw -s 4096 -n 2000 -w 50\n')
        server, client = perftest.ucx_commands('/b', 'xrxe')
        self.assertIn('UCX_NET_DEVICES=xrxe1:1', server)
        self.assertIn('UCX_NET_DEVICES=xrxe0:1', client)
        cmd = perftest.mpi_command([perftest.point('mpi_pingpong', 8),
                                       perftest.point('mpi_pingpong', 65536)], [1000, 256],
                                      'rxe', '/pp', ['XRXE_LL_MODE'])
        for want in ('--allow-run-as-root', 'UCX_TLS=rc_verbs,ud_verbs,self',
                     'UCX_IB_GID_INDEX=0', 'XRXE_LL_MODE', '8:1000:50', '65536:256:12'):
            self.assertIn(want, cmd)
        self.assertIn('export UCX_NET_DEVICES=rxe$OMPI_COMM_WORLD_RANK:1', ' '.join(cmd))


# perf script -F comm,tid,cpu,time,ip,sym: a sample is a header line and
# its call chain, innermost first, kernel addresses from ffff.
PERF_SCRIPT = '''\
         swapper     0 [000]    10.000100: 
\tffffffff852d1e9f pv_native_safe_halt
\tffffffff852d3b69 default_idle

   xrxe_engine/1   123 [001]    10.100000: 
\tffffffffc064ceee __dev_queue_xmit+0x1e
\tffffffffc064ceee rxe_requester+0x113e
\tffffffffc064d192 rxe_sender+0x12

   xrxe_engine/1   123 [001]    10.200000: 
\tffffffffc064ceee rxe_completer+0x20
\tffffffffc064ceee rxe_receiver+0x20
\tffffffffc064ceee rxe_requester+0x113e

   xrxe_engine/1   123 [001]    10.300000: 
\tffffffffc064ceee rxe_requester+0x10

 kthreadd   214 [000]    10.400000: 
\tffffffffc064ceee rxe_receiver+0x30
\tffffffffc064ceee do_work+0x30

     ib_write_bw   300 [000]    10.500000: 
\t           28712 xrxe_poll_cq+0x12 (/usr/lib/libxrxe.so)

     ib_write_bw   300 [000]    10.600000: 
\tffffffffbc4ccef7 do_sched_yield+0x87
\t           fdd6b __sched_yield+0x3b

     ib_write_bw   300 [000]    10.700000: 
\tffffffffbc4ccef7 native_queued_spin_lock_slowpath+0x20
\tffffffffbc4ccef7 _raw_spin_lock+0x20
\tffffffffc0661097 xrxe_engine_ring+0x20
\tffffffffc0661097 rxe_ib_handler_XRXE_METHOD_QP_LL_POST+0x317
\t           fdd6b __GI___ioctl+0x3b

            perf   400 [001]    10.800000: 
\tffffffffbc4ccef7 do_syscall_64+0x87

    kworker/u8:1   50 [001]    10.900000: 
\tffffffffbc4ccef7 __schedule+0x87

         python3   500 [001]    10.910000: 
\tffffffffbc4ccef7 native_queued_spin_lock_slowpath+0x20
\tffffffffbc4ccef7 _raw_spin_lock_irqsave+0x20
\tffffffffbc4ccef7 ep_poll_callback+0x20
\tffffffffbc4ccef7 vfs_read+0x87
\t           fdd6b __GI___read+0x3b

         python3   500 [001]    10.920000: 
\tffffffffbc4ccef7 vfs_read+0x87
\t           fdd6b __GI___read+0x3b

         python3   500 [001]    10.930000: 
\tffffffffbc4ccef7 vfs_read+0x87
\t           fdd6b __GI___read+0x3b

         python3   500 [001]    10.940000: 
\tffffffffbc4ccef7 vfs_read+0x87
\t           fdd6b __GI___read+0x3b

   xrxe_engine/1   123 [001]    12.000000: 
\tffffffffc064ceee rxe_requester+0x113e
'''


# A stand-in for ip(8): logs its arguments; the command FAIL_IP fails.
STUB_IP = """#!/bin/sh
echo "$*" >>"$IP_LOG"
[ "$*" != "$FAIL_IP" ] || { echo "ip: refused" >&2; exit 1; }
"""
# A stand-in for xrxe-tcp-bw: its line, or a failure at 4 streams of 4 KiB.
STUB_TCP = """#!/bin/sh
echo "$*" >>"$IP_LOG"
[ "$6" = 4 ] && [ "$4" = 4096 ] && { echo "xrxe-tcp-bw: FAIL: no" >&2; exit 1; }
echo "tcp $4 $6 $(($4 / 100 + $6)).5"
"""


class References(unittest.TestCase):
    def test_memcpy_and_tcp_lines(self):
        text = 'noise\nmemcpy 64 1234.5\ntcp 65536 4 812.3\ntcp 65536 1 700\nmemcpy x 1\n'
        self.assertEqual(perftest.parse_memcpy(text), [{'size': 64, 'MBps': 1234.5}])
        self.assertEqual(perftest.parse_tcp(text), [{'size': 65536, 'streams': 4, 'MBps': 812.3},
                                                    {'size': 65536, 'streams': 1, 'MBps': 700.0}])

    def test_the_sizes_of_the_bandwidth_points(self):
        pts = perftest.matrix('sizes', [2, 4096], ['ib_write_lat', 'ib_read_bw', 'ucx'])
        self.assertEqual(perftest.tcp_sizes(pts), [4096, 65536])
        self.assertEqual(perftest.memcpy_command('/m', pts), ['/m', '4096', '65536', '4194304'])
        self.assertEqual(perftest.tcp_sizes(perftest.matrix('sizes', [2], ['ib_write_lat'])), [])
        self.assertEqual(perftest.tcp_sizes(perftest.matrix('short')), [64, 4096, 65536])
        self.assertEqual(perftest.tcp_command('/t', 64, 4),
                         ['/t', '-n', 'xrxe-tcp', '-s', '64', '-P', '4', '-t', '2',
                          '198.51.100.2'])

    def reference(self, fail_ip=''):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        for name, text in (('ip', STUB_IP), ('tcp-bw', STUB_TCP)):
            with open(os.path.join(d, name), 'w') as f:
                f.write(text)
            os.chmod(os.path.join(d, name), 0o755)
        log = os.path.join(d, 'log')
        env = dict(os.environ, PATH=d + os.pathsep + os.environ['PATH'], IP_LOG=log,
                   FAIL_IP=fail_ip)
        old = os.environ.copy()
        os.environ.update(env)
        try:
            # lo: a netdev every host has, of a known MTU.
            got = perftest.tcp_reference(os.path.join(d, 'tcp-bw'), [4096, 65536], 'lo')
        finally:
            os.environ.clear()
            os.environ.update(old)
        with open(log) as f:
            return got, f.read().splitlines()

    def test_the_reference_runs_over_a_veth_pair_of_its_own(self):
        (recs, link, failed), log = self.reference()
        with open('/sys/class/net/lo/mtu') as f:
            mtu = f.read().strip()
        self.assertEqual(link, {'mtu': int(mtu), 'of': 'lo', 'seconds': 2})
        self.assertEqual(recs, [{'size': 4096, 'streams': 1, 'MBps': 41.5},
                                {'size': 65536, 'streams': 1, 'MBps': 656.5},
                                {'size': 65536, 'streams': 4, 'MBps': 659.5}])
        self.assertEqual(len(failed), 1)
        self.assertIn('4096 B, 4 stream(s)', failed[0])
        self.assertIn('xrxe-tcp-bw: FAIL: no', failed[0])
        # Leftovers gone, then the pair, one end in the namespace, as wide as
        # the devices' netdev, documentation addresses; gone at the end.
        self.assertEqual(log[:9], [
            'link del xrxe-tcp0', 'netns del xrxe-tcp', 'netns add xrxe-tcp',
            f'link add xrxe-tcp0 mtu {mtu} type veth peer name xrxe-tcp1 mtu {mtu}',
            'link set xrxe-tcp1 netns xrxe-tcp', 'addr add 198.51.100.1/24 dev xrxe-tcp0',
            'link set xrxe-tcp0 up', '-n xrxe-tcp addr add 198.51.100.2/24 dev xrxe-tcp1',
            '-n xrxe-tcp link set xrxe-tcp1 up'])
        self.assertEqual(len([x for x in log if x.startswith('-n xrxe-tcp -s')]), 4)
        self.assertEqual(log[-2:], ['link del xrxe-tcp0', 'netns del xrxe-tcp'])

    def test_a_pair_that_cannot_be_made_is_deleted_all_the_same(self):
        (recs, _, failed), log = self.reference(fail_ip='link set xrxe-tcp1 netns xrxe-tcp')
        self.assertEqual(recs, [])
        self.assertEqual(len(failed), 1)
        self.assertIn('the veth pair: ip link set xrxe-tcp1 netns xrxe-tcp: ip: refused',
                      failed[0])
        self.assertFalse([x for x in log if x.startswith('-n xrxe-tcp -s')])
        self.assertEqual(log[-2:], ['link del xrxe-tcp0', 'netns del xrxe-tcp'])

    def test_no_bandwidth_point_no_reference(self):
        self.assertEqual(perftest.tcp_reference('/nonexistent', []),
                         ([], {'mtu': None, 'of': 'veth0', 'seconds': 2}, []))
        self.assertEqual(perftest.tcp_reference('/nonexistent', [65536])[2],
                         ['/nonexistent was not built'])


class CpuProfile(unittest.TestCase):
    def test_a_sample_counts_for_its_innermost_stage(self):
        st = {t: cpu_profile.stage(f) for t, _, _, _, f in cpu_profile.samples(PERF_SCRIPT)}
        self.assertEqual(st, {10.0001: 'idle', 10.1: 'network', 10.2: 'completer',
                              10.3: 'requester', 10.4: 'responder', 10.5: 'program',
                              10.6: 'syscall', 10.7: 'post', 10.8: 'kernel',
                              10.9: 'kernel', 10.91: 'syscall', 10.92: 'syscall',
                              10.93: 'syscall', 10.94: 'syscall', 12.0: 'requester'})
        self.assertEqual(cpu_profile.stage([]), 'kernel')

    def test_threads_by_kind(self):
        kinds = {c: cpu_profile.thread_kind(c, 'ib_write_bw') for c in (
            'xrxe_engine/3', 'kworker/u8:1-gi', 'kthreadd', 'ksoftirqd/2', 'swapper',
            'perf', 'ib_write_bw', 'ib_send_bw', 'perfect')}
        self.assertEqual(kinds, {
            'xrxe_engine/3': 'engine', 'kworker/u8:1-gi': 'workqueue', 'kthreadd': 'workqueue',
            'ksoftirqd/2': 'softirq', 'swapper': 'idle', 'perf': 'perf',
            'ib_write_bw': 'program', 'ib_send_bw': 'other', 'perfect': 'other'})

    def test_summary_of_the_measured_window(self):
        # The sample at 12 s is outside the window; idle and perf's own
        # samples are not busy. The busiest kernel thread is the engine, not
        # the harness's python3, busier but no kernel thread.
        p = cpu_profile.summarise(PERF_SCRIPT, (10.0, 11.0), 'ib_write_bw', 2)
        self.assertEqual(p['busy_samples'], 12)
        self.assertEqual(p['cpus_busy'], round(12 / cpu_profile.HZ, 3))
        self.assertEqual(p['stages']['requester'], 0.083)
        self.assertEqual(p['stages']['completer'], 0.083)
        self.assertEqual(p['stages']['responder'], 0.083)
        self.assertEqual(p['stages']['syscall'], 0.417)
        self.assertEqual(p['stages']['poll'], 0)
        self.assertAlmostEqual(sum(p['stages'].values()), 1.0, places=2)
        self.assertEqual(list(p['stages']), list(cpu_profile.ORDER))
        self.assertEqual(p['busiest_kernel_thread'],
                         {'name': 'xrxe_engine/1', 'cpus': round(3 / cpu_profile.HZ, 3)})
        self.assertEqual(p['threads']['perf'], round(1 / cpu_profile.HZ, 3))
        self.assertEqual(p['threads']['program'], round(3 / cpu_profile.HZ, 3))
        self.assertEqual(p['threads']['other'], round(4 / cpu_profile.HZ, 3))
        self.assertNotIn('idle', p['threads'])
        # Two of the 12 spun on a contended lock, one taken by xrxe_engine_ring.
        self.assertEqual(p['lock_wait'], 0.167)
        self.assertEqual(p['lock_sites'], {'xrxe_engine_ring': 0.083, 'ep_poll_callback': 0.083})
        # Nothing in the window: shares of nothing are 0, no thread named.
        p = cpu_profile.summarise(PERF_SCRIPT, (20.0, 21.0), 'ib_write_bw', 2)
        self.assertEqual((p['busy_samples'], p['busiest_kernel_thread']['name']), (0, ''))
        self.assertEqual(set(p['stages'].values()), {0})
        self.assertEqual((p['lock_wait'], p['lock_sites']), (0, {}))

    def test_a_lock_site_is_who_took_the_lock(self):
        site = cpu_profile.lock_site
        self.assertEqual(site(['native_queued_spin_lock_slowpath+0x1', '_raw_spin_lock_irqsave+0x2',
                               'xrxe_engine_run+0x3', 'kthread']), 'xrxe_engine_run')
        self.assertEqual(site(['__pv_queued_spin_lock_slowpath', 'do_raw_spin_lock',
                               '_raw_spin_lock_bh', 'rxe_requester']), 'rxe_requester')
        self.assertIsNone(site(['_raw_spin_lock_irqsave+0x2', 'xrxe_engine_run+0x3']))
        self.assertIsNone(site([]))
        self.assertEqual(site(['native_queued_spin_lock_slowpath']), '?')
        # An rwlock's slow path waits on its spinlock.
        self.assertEqual(site(['native_queued_spin_lock_slowpath', 'queued_write_lock_slowpath',
                               '_raw_write_lock_bh', 'ip_finish_output2']), 'ip_finish_output2')

    def test_the_client_runs_under_perf_record_on_the_monotonic_clock(self):
        cmd = cpu_profile.record_command('/x/p-perf.data')
        self.assertIn('-a -g', cmd)
        self.assertIn('-k CLOCK_MONOTONIC -o /x/p-perf.data --', cmd)

    def test_profile_needs_perf(self):
        env = dict(os.environ, PATH=tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, env['PATH'])
        args = [sys.executable, os.path.join(TOP, 'bench', 'guest.py'), '--check',
                '--matrix', 'short']
        p = subprocess.run(args + ['--profile'], capture_output=True, text=True, env=env)
        self.assertEqual(p.returncode, 2)
        self.assertIn('--profile needs perf (Debian package linux-perf)', p.stderr)
        with open(os.path.join(env['PATH'], 'perf'), 'w') as f:
            f.write('#!/bin/sh\n')
        os.chmod(os.path.join(env['PATH'], 'perf'), 0o755)
        p = subprocess.run(args + ['--profile'], capture_output=True, text=True, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, subprocess.run(args, capture_output=True, text=True).stdout)


class Report(unittest.TestCase):
    def write_and_report(self, data, *args):
        d = tempfile.mkdtemp()
        with open(os.path.join(d, 'raw.json'), 'w') as f:
            json.dump(data, f)
        p = subprocess.run([sys.executable, os.path.join(TOP, 'bench', 'report.py'), d]
                           + list(args), capture_output=True, text=True)
        return p.returncode, p.stdout

    def test_brief_prints_the_summary_last_and_leaves_the_tables_to_the_file(self):
        modes = ('stock', 'xrxe-ll')
        runs = [run(m, 'ib_write_lat', 2, 1, i, lat=100.0 if m == 'stock' else 40.0)
                for m in modes for i in range(3)]
        rc, out = self.write_and_report(raw(runs, modes=modes), '--brief')
        self.assertEqual(rc, 0)
        self.assertNotIn('###', out)
        lines = out.strip().splitlines()
        self.assertTrue(lines[0].startswith('In short: xrxe with its defaults'), lines[0])
        self.assertTrue(lines[-1].startswith('The full table: '), lines[-1])
        path = lines[-1][len('The full table: '):].split(';')[0]
        with open(path) as f:
            self.assertIn('### Headline', f.read())
        # Without the defaults' mode there is no summary: the path alone.
        rc, out = self.write_and_report(raw([r for r in runs if r['mode'] == 'stock'],
                                            modes=('stock',)), '--brief')
        self.assertEqual(rc, 0)
        self.assertTrue(out.strip().startswith('The table: '), out)

    def test_profile_table_has_the_medians_of_the_profiled_runs(self):
        def prof(busy, req, name, cpus):
            stages = dict.fromkeys(cpu_profile.ORDER, 0.0)
            stages.update(requester=req, program=1 - req)
            return {'cpus_busy': busy, 'stages': stages, 'threads': {'perf': 0.1},
                    'busiest_kernel_thread': {'name': name, 'cpus': cpus},
                    'lock_wait': cpus / 100, 'lock_sites': {'site_' + name[-1]: cpus / 100}}
        runs = [run(m, 'ib_write_bw', 64, 1, i) for m in ('stock', 'xrxe') for i in range(3)]
        rc, out = self.write_and_report(raw(runs))
        self.assertEqual(rc, 0)
        self.assertNotIn("Where the guest's CPUs went", out)
        self.assertNotIn('Profiled', out)
        for r, (busy, req, name, cpus) in zip(runs[3:], ((1.5, 0.2, 'xrxe_engine/0', 0.4),
                                                        (1.7, 0.3, 'xrxe_engine/1', 0.9),
                                                        (1.6, 0.25, 'kworker/u8:1', 0.5))):
            r['profile'] = prof(busy, req, name, cpus)
        data = raw(runs)
        data['profiled'] = True
        rc, out = self.write_and_report(data)
        self.assertEqual(rc, 0)
        self.assertIn("### Where the guest's CPUs went", out)
        self.assertIn("Profiled (--profile): perf sampled every guest CPU", out)
        self.assertIn('| Point | Mode | CPUs busy | responder % | completer % |', out)
        # Medians; the busiest thread of the repetition in the middle.
        self.assertIn('| ib_write_bw 64 B | xrxe | 1.60 | 0 | 0 | 0 | 25 | 0 | 0 | 0 | 75 | 0 | 0 '
                      '| 0.5 (site_1) | kworker/u8:1 0.50 | 0.10 |', out)
        self.assertNotIn('| ib_write_bw 64 B | stock |', out)

    def test_ratio_is_median_over_median(self):
        runs = [run(m, 'ib_write_bw', 64, 1, i, rate=r)
                for m, rates in (('stock', (0.01, 0.02, 0.03)), ('xrxe', (0.03, 0.04, 0.09)))
                for i, r in enumerate(rates)]
        res = report.Results(raw(runs))
        self.assertEqual(report.ratio(res, 'xrxe', ('ib_write_bw', 64, 1), 'msg_rate_Mpps'), '2.00')
        rc, out = self.write_and_report(raw(runs))
        self.assertEqual(rc, 0)
        self.assertIn('| 2.00 |', out)

    def test_paired_ratio_is_the_median_of_each_repetitions_ratio(self):
        # The host's speed drifted between repetitions: paired, two of the
        # three repetitions say 0.9; median over median says 1.25.
        runs = [run(m, 'ib_write_lat', 2, 1, i, lat=lat)
                for m, lats in (('stock', (100.0, 300.0, 200.0)),
                                ('xrxe', (250.0, 270.0, 180.0)))
                for i, lat in enumerate(lats)]
        k = ('ib_write_lat', 2, 1)
        res = report.Results(raw(runs))
        self.assertEqual(report.ratio(res, 'xrxe', k, 't_typical_us'), '1.25')
        self.assertIn('median over median', report.table(res))
        paired = report.Results(dict(raw(runs), order='paired'))
        self.assertEqual(report.ratio(paired, 'xrxe', k, 't_typical_us'), '0.90')
        self.assertAlmostEqual(report.ratio_value(paired, 'xrxe', k), 0.9)
        self.assertIn("median of the repetitions' own ratios", report.table(paired))
        # A failed repetition leaves the point without a ratio, paired or not.
        runs[4] = run('xrxe', 'ib_write_lat', 2, 1, 1, ok=False)
        self.assertEqual(report.ratio(report.Results(dict(raw(runs), order='paired')),
                                      'xrxe', k, 't_typical_us'), 'n/a')

    def test_summary_says_each_kind_against_stock_in_a_line(self):
        modes = ('stock', 'xrxe-ll')
        runs = [run(m, 'ib_write_lat', 2, 1, i, lat=100.0 if m == 'stock' else 40.0)
                for m in modes for i in range(3)]
        runs += [run(m, 'ib_write_bw', 64, 1, i, rate=0.01 if m == 'stock' else 0.02)
                 for m in modes for i in range(3)]
        for size, rate in ((4096, 0.5), (16384, 1.5), (65536, 2.0), (1048576, 1.2)):
            runs += [run(m, 'ib_send_bw', size, 1, i, rate=0.01 if m == 'stock' else 0.01 * rate)
                     for m in modes for i in range(3)]
        text = report.summary(report.Results(raw(runs, modes=modes)), 'out/table.md')
        lines = text.splitlines()
        self.assertIn('xrxe with its defaults (xrxe-ll) against stock rxe', lines[0])
        self.assertEqual(lines[1], "- Latency: 0.40x (ib_write_lat 2 B) of stock's time: "
                         'faster at every point.')
        self.assertEqual(lines[2], "- Message rate: 2.00x (ib_write_bw 64 B) of stock's "
                         'messages per second: higher at every point.')
        self.assertEqual(lines[3], "- Bandwidth: 0.50x to 2.00x, median 1.35x over 4 points "
                         "(weakest: ib_send_bw 4096 B 0.50x) of stock's bytes per second: "
                         'higher at 3 of 4 points.')
        self.assertIn('out/table.md', lines[4])
        # Without the defaults' mode there is nothing to say.
        self.assertEqual(report.summary(report.Results(raw(runs[:6])), 'x'), '')

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

    def assert_per_message_table(self, point, name, counts, row, title):
        """A counter's table: counts (xrxe's three runs of 100 messages)
        give row; all zero, no table titled title."""
        runs = [run(m, *point, i) for m in ('stock', 'xrxe') for i in range(3)]
        for r, n in zip(runs[3:], counts):
            r.update(messages=100, counters={name: n})
        self.assertIn(row, report.table(report.Results(raw(runs))))
        for r in runs[3:]:
            r['counters'] = {name: 0}
        self.assertNotIn(title, report.table(report.Results(raw(runs))))

    def test_requests_in_the_softirq_per_message(self):
        self.assert_per_message_table(('ib_write_lat', 2, 1), 'xrxe_rx_inline_requests',
                                      (190, 196, 180), '| ib_write_lat 2 B | 1.90 |',
                                      'receive softirq')

    def test_deferred_posts_per_message(self):
        self.assert_per_message_table(('ib_send_bw', 64, 4), 'xrxe_posts_deferred',
                                      (12, 15, 30), '| ib_send_bw 64 B x4 QPs | 0.15 |',
                                      'Posts left to an engine')

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


class Fractions(unittest.TestCase):
    """Each bandwidth point's figure against TCP's and memcpy's."""
    MIB = 1 << 20

    def data(self):
        # 50 MiB/s at each point in stock, 100 in xrxe (three repetitions:
        # 90, 100, 110).
        runs = []
        for test, size, qps in (('ib_write_bw', 65536, 1), ('ib_write_bw', 65536, 4),
                                ('ib_read_bw', 4096, 4)):
            for i, mib in enumerate((90, 100, 110)):
                runs.append(run('stock', test, size, qps, i, rate=50 / size))
                runs.append(run('xrxe', test, size, qps, i, rate=mib / size))
        data = raw(runs)
        data['memcpy'] = [{'size': 65536, 'MBps': 1000 * self.MIB / 1e6, 'rep': i}
                          for i in range(3)] + [{'size': 4 << 20, 'MBps': 1.0, 'rep': 0}]
        data['tcp'] = [{'size': 65536, 'streams': 1, 'MBps': 200 * self.MIB / 1e6, 'rep': 0},
                       {'size': 65536, 'streams': 4, 'MBps': 400 * self.MIB / 1e6, 'rep': 0}]
        data['tcp_link'] = {'mtu': 1500, 'of': 'veth0', 'seconds': 2}
        return data

    def bandwidth(self, data):
        out = report.table(report.Results(data))
        return out, out.split("### Bandwidth, and as fractions of TCP's and memcpy's")[1] \
            .split('###')[0]

    def test_each_mode_as_a_fraction_of_tcp_with_as_many_streams_as_qps(self):
        out, bw = self.bandwidth(self.data())
        self.assertIn('| ib_write_bw 65536 B | bw_avg_MBps as a fraction of TCP\'s (65536 B, '
                      '1 stream: 210 MB/s) | 0.25 (0.25-0.25) | 0.50 (0.45-0.55) |  |', bw)
        self.assertIn('| ib_write_bw 65536 B x4 QPs | bw_avg_MBps as a fraction of TCP\'s '
                      '(65536 B, 4 streams: 419 MB/s) | 0.12 (0.12-0.12) | 0.25 (0.23-0.28) |  |',
                      bw)
        # Bytes over bytes: perftest's MiB/s over memcpy's 10^6 bytes a second.
        self.assertIn('| ib_write_bw 65536 B | bw_avg_MBps as a fraction of memcpy\'s (65536 B: '
                      '1049 MB/s) | 0.05 (0.05-0.05) | 0.10 (0.09-0.11) |  |', bw)
        # Each point's figure first, then its fractions.
        rows = [line.split(' | ')[1] for line in bw.splitlines() if 'ib_write_bw 65536 B |' in line]
        self.assertEqual([r.split(' ')[:4] for r in rows],
                         [['bw_avg_MBps', '[MiB/s],', 'higher', 'is'],
                          ['bw_avg_MBps', 'as', 'a', 'fraction'],
                          ['bw_avg_MBps', 'as', 'a', 'fraction']])
        # Not in the headline table, nor in the CPU's.
        self.assertEqual(out.count('as a fraction of'), 6)

    def test_the_nearest_figure_where_the_size_was_not_measured(self):
        _, bw = self.bandwidth(self.data())
        self.assertIn("| ib_read_bw 4096 B x4 QPs | bw_avg_MBps as a fraction of TCP's (65536 B, "
                      '4 streams: 419 MB/s) |', bw)
        self.assertIn("| ib_read_bw 4096 B x4 QPs | bw_avg_MBps as a fraction of memcpy's "
                      '(65536 B: 1049 MB/s) |', bw)
        entries = [{'size': 4096, 'streams': 1, 'MBps': 1}, {'size': 65536, 'streams': 4,
                                                             'MBps': 2},
                   {'size': 65536, 'streams': 1, 'MBps': 3}, {'size': 65536, 'streams': 1,
                                                              'MBps': 5}]
        self.assertEqual(report.reference(entries, 65536, 4), (65536, 4, [2]))
        self.assertEqual(report.reference(entries, 65536, 1), (65536, 1, [3, 5]))
        # The same size before the same streams; of two sizes as near, the larger.
        self.assertEqual(report.reference(entries[:3], 65536, 8), (65536, 1, [3]))
        self.assertEqual(report.reference(entries[1:], 4096, 4), (65536, 4, [2]))
        self.assertEqual(report.reference(entries, 16384, 1), (65536, 1, [3, 5]))
        self.assertIsNone(report.reference([], 64))

    def test_the_tcp_reference_section(self):
        out, _ = self.bandwidth(self.data())
        section = out.split('### TCP reference (same guest)\n')[1].split('###')[0]
        self.assertIn('xrxe-tcp-bw over a veth pair of MTU 1500 (veth0\'s), one end in a '
                      'network namespace of its own, 2 s a run, once a boot', section)
        self.assertIn('- 65536 B messages, 1 stream: 210 MB/s\n', section)
        self.assertIn('- 65536 B messages, 4 streams: 419 MB/s\n', section)
        self.assertLess(out.index('### memcpy reference'), out.index('### TCP reference'))

    def test_without_tcp_figures_no_tcp_rows(self):
        data = self.data()
        del data['tcp'], data['tcp_link']
        out, bw = self.bandwidth(data)
        self.assertNotIn("TCP's", bw)
        self.assertIn("fraction of memcpy's", bw)
        self.assertNotIn('### TCP reference', out)
        self.assertEqual(report.Results(data).problems, [])

    def test_a_failed_tcp_run_is_a_problem(self):
        data = self.data()
        data['tcp_failed'] = ['4096 B x4 streams: exit 1: no']
        res = report.Results(data)
        self.assertEqual(res.problems, ['TCP reference 4096 B x4 streams: exit 1: no'])
        out = report.table(res)
        self.assertIn('- failed: 4096 B x4 streams: exit 1: no', out)
        self.assertIn('- TCP reference 4096 B x4 streams: exit 1: no', out.split(
            '### Failed or missing runs')[1])

    def test_a_point_measured_by_fewer_modes_keeps_its_fractions(self):
        data = self.data()
        data['points'] = [planned('ib_write_bw', 65536, 1, ('stock', 'xrxe')),
                          planned('ib_write_bw', 65536, 4, ('stock',)),
                          planned('ib_read_bw', 4096, 4, ('stock', 'xrxe'))]
        data['runs'] = [r for r in data['runs'] if not (r['qps'] == 4 and r['size'] == 65536
                                                        and r['mode'] == 'xrxe')]
        out = report.table(report.Results(data))
        self.assertIn("### Bandwidth, and as fractions of TCP's and memcpy's (same guest): "
                      'stock only', out)
        self.assertIn("| ib_write_bw 65536 B x4 QPs | bw_avg_MBps as a fraction of TCP's "
                      '(65536 B, 4 streams: 419 MB/s) | 0.12 (0.12-0.12) |', out)

    def test_read_bandwidth_in_the_tables_and_the_plot(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        with open(os.path.join(d, 'raw.json'), 'w') as f:
            json.dump(self.data(), f)
        p = subprocess.run([sys.executable, os.path.join(TOP, 'bench', 'report.py'), d],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn('| ib_read_bw 4096 B x4 QPs | msg_rate_Mpps [Mpps], higher is better |',
                      p.stdout)
        if report.pyplot():
            self.assertTrue(os.path.exists(os.path.join(d, 'bandwidth-by-size.png')))


class ReportByModes(unittest.TestCase):
    MODES = ('stock', 'xrxe', 'xrxe-ll')

    def data(self):
        points = [planned('ib_write_lat', 2, 1, self.MODES),
                  planned('ib_write_lat', 65536, 1, ('stock', 'xrxe-ll')),
                  planned('ucx_tag_lat', 8, 1, ('stock', 'xrxe-ll')),
                  planned('ucx_tag_bw', 65536, 1, ('stock', 'xrxe-ll')),
                  planned('mpi_pingpong', 8, 1, ('stock', 'xrxe-ll'))]
        runs = []
        for i in range(3):
            for m in self.MODES:
                lat = 100.0 if m == 'stock' else 50.0
                runs.append(run(m, 'ib_write_lat', 2, 1, i, lat=lat))
                if m == 'xrxe':
                    continue
                runs.append(run(m, 'ib_write_lat', 65536, 1, i, lat=lat * 40))
                runs.append(ucx_run(m, 'ucx_tag_lat', 8, i, lat=lat * 2))
                runs.append(ucx_run(m, 'ucx_tag_bw', 65536, i,
                                    rate=0.001 if m == 'stock' else 0.003))
                r = run(m, 'mpi_pingpong', 8, 1, i, lat=lat)
                r['family'] = 'mpi'
                runs.append(r)
        return raw(runs, points=points, modes=self.MODES)

    def test_a_mode_that_does_not_measure_a_point_is_no_failure(self):
        res = report.Results(self.data())
        self.assertEqual(res.problems, [])
        out = report.table(res)
        self.assertNotIn('FAILED', out)
        self.assertIn('| ib_write_lat 2 B | t_typical_us [us], lower is better | '
                      '100 (100-100) | 50.00 (50.00-50.00) | 50.00 (50.00-50.00) | 0.50 | 0.50 |',
                      out)
        # Points measured by fewer modes: a table of their own, no columns
        # of the others.
        self.assertIn('### Headline: latency and message rate: stock, xrxe-ll only', out)
        self.assertIn('| ib_write_lat 65536 B | t_typical_us [us], lower is better | '
                      '4000 (4000-4000) | 2000 (2000-2000) | 0.50 |', out)
        self.assertEqual(report.ratio(res, 'xrxe', ('ib_write_lat', 65536, 1), 't_typical_us'),
                         '-')

    def test_ucx_and_mpi_ratios(self):
        out = report.table(report.Results(self.data()))
        section = out.split('### UCX and MPI')[1].split('###')[0]
        self.assertIn('| UCX tag_lat 8 B | t_typical_us [us], lower is better | '
                      '200 (200-200) | 100 (100-100) | 0.50 |', section)
        self.assertIn('| UCX tag_bw 65536 B | msg_rate_Mpps [Mpps], higher is better | '
                      '0.0010 (0.0010-0.0010) | 0.0030 (0.0030-0.0030) | 3.00 |', section)
        self.assertIn('| MPI ping-pong 8 B | t_typical_us [us], lower is better | '
                      '100 (100-100) | 50.00 (50.00-50.00) | 0.50 |', section)
        # UCX runs have no CPU time, and need none.
        cpu = out.split('### Guest CPU time', 1)[1].split('### Packets')[0]
        self.assertNotIn('UCX', cpu)
        self.assertIn('MPI ping-pong 8 B', cpu)

    def test_a_planned_mode_without_runs_fails(self):
        data = self.data()
        data['runs'] = [r for r in data['runs']
                        if not (r['mode'] == 'xrxe-ll' and r['test'] == 'ucx_tag_lat')]
        res = report.Results(data)
        self.assertIn('xrxe-ll UCX tag_lat 8 B: 0 of 3 repetitions ran', res.problems)
        self.assertEqual(len(res.problems), 1)

    def test_skipped_families_are_said(self):
        data = self.data()
        data['skipped'] = ['mpi: the MPI ping-pong was not built']
        out = report.table(report.Results(data))
        self.assertIn('### Not measured here', out)
        self.assertIn('- mpi: the MPI ping-pong was not built', out)

    def test_header_names_the_sizes(self):
        data = self.data()
        data.update(matrix='sizes', sizes=[4096, 65536], tests=['ucx'])
        self.assertIn('full matrix at 4096 B, 65536 B (ucx only)',
                      report.table(report.Results(data)))

    def test_report_writes_the_ratio_plot(self):
        d = tempfile.mkdtemp()
        with open(os.path.join(d, 'raw.json'), 'w') as f:
            json.dump(self.data(), f)
        p = subprocess.run([sys.executable, os.path.join(TOP, 'bench', 'report.py'), d],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        for name in ('ratio-by-size.png', 'ucx-mpi-by-size.png', 'latency-by-size.png'):
            self.assertTrue(os.path.exists(os.path.join(d, name)), name)

    def test_docs_rewrites_the_matrix_page_and_puts_its_plots_beside_it(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        out, docs = os.path.join(d, 'out'), os.path.join(d, 'docs')
        os.makedirs(out)
        os.makedirs(os.path.join(docs, 'bench'))
        with open(os.path.join(out, 'raw.json'), 'w') as f:
            json.dump(self.data(), f)
        page = os.path.join(docs, 'bench', 'matrix.md')
        with open(page, 'w') as f:
            f.write('# Matrix\n\nabove\n\n<!-- bench:begin -->\nold\n<!-- bench:end -->\nbelow\n')
        human = os.path.join(docs, 'benchmarks.md')
        with open(human, 'w') as f:
            f.write('# Benchmarks\n')
        p = subprocess.run([sys.executable, os.path.join(TOP, 'bench', 'report.py'), out,
                            '--docs', docs], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(page) as f:
            text = f.read()
        self.assertTrue(text.startswith('# Matrix\n\nabove\n\n<!-- bench:begin -->\n'), text)
        self.assertTrue(text.endswith('<!-- bench:end -->\nbelow\n'), text)
        self.assertNotIn('\nold\n', text)
        self.assertIn('| ib_write_lat 2 B |', text)
        # The plots lie beside the page and are named relative to it.
        self.assertIn('![ratio-by-size](ratio-by-size.png)', text)
        self.assertNotIn('](bench/', text)
        self.assertTrue(os.path.exists(os.path.join(docs, 'bench', 'ratio-by-size.png')))
        with open(human) as f:
            self.assertEqual(f.read(), '# Benchmarks\n')


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
        return '\n'.join(report.accuracy_table(runs)[-2:])

    def test_low_limit_is_judged_against_the_first_unlimited_run(self):
        lines = report.accuracy_table([acc(0, 100000), acc(1000, 990)])
        self.assertIn('| 100000 / 100000 | 1% |', lines[-3])
        self.assertIn('largest error 1.00% over 1 runs', lines[-1])

    def test_share_is_of_the_lower_unlimited_run_beside_it(self):
        runs = [acc(0, 130000),
                acc(80000, 79000, unlimited_before_kbps=100000, unlimited_after_kbps=110000),
                acc(90000, 70000, unlimited_before_kbps=100000, unlimited_after_kbps=95000)]
        text = '\n'.join(report.accuracy_table(runs))
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
        text = '\n'.join(report.accuracy_table([acc(0, 200000), late]))
        self.assertIn('| 50% | 80% | 150 of 2000 | 5.00% |', text)
        self.assertIn('largest error 6.00% over 1 runs', text)
        self.assertIn('with their late bytes counted as sent: largest error 1.00%; '
                      '1 of 1 within 1%', text)

    def test_runs_without_late_counters_show_dashes(self):
        lines = report.accuracy_table([acc(0, 100000), acc(1000, 990)])
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
        lines = report.pace_isolation_table(runs)
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
        row = [line for line in report.pace_isolation_table(runs)
               if line.startswith('| stream alone')][0]
        self.assertIn('| 1100.0 (1000.0-2000.0) | 990.0 (900.0-1800.0) | 0.900 (0.900-0.900) |',
                      row)


# bench/xrxe-bench's workloads: (name, the build's program it measures
# with, its tables); bench/guest.py --workload NAME runs each.
WORKLOADS = (('perftest', 'xrxe-memcpy-bw', ['table.md']),
             ('pace', 'xrxe-pace-bench', ['pace.md']),
             ('ocu', 'xrxe-ocu-bench', ['ocu.md']),
             ('coalesce', 'xrxe-coalesce-bench', ['coalesce.md', 'tag.md']))
# The other programs a workload's boot needs built (perftest: the TCP
# reference).
MORE_PROGRAMS = {'perftest': ['xrxe-tcp-bw']}
# The testbed's stand-in: records its arguments, and writes into the
# guest's --out the files the test left for the guest CPU count it was
# asked for (raw/cpus-N/; none there: it fails), a raw.json with the host's
# cores it was given.
STUB_TESTBED = """#!/usr/bin/python3
import json, os, sys
args = sys.argv[1:]
with open(os.environ['STUB_LOG'], 'a') as f:
    f.write(json.dumps(args) + '\\n')
cpus = args[args.index('--cpus') + 1]
env = dict(args[i + 1].split('=', 1) for i, a in enumerate(args) if a == '--env')
cmd = args[args.index('--') + 1:]
src = os.path.join(os.environ['STUB_RAW'], f'cpus-{cpus}')
for name in os.listdir(src):
    with open(os.path.join(src, name)) as f:
        text = f.read()
    if name == 'raw.json':
        raw = json.loads(text)
        raw['host_cores'] = int(env['XRXE_HOST_CORES'])
        text = json.dumps(raw)
    with open(os.path.join(cmd[cmd.index('--out') + 1], name), 'w') as f:
        f.write(text)
"""


class Launchers(unittest.TestCase):
    """bench/xrxe-bench and its workloads in a copy of the tree whose
    tools/xrxe-build and tools/xrxe-testbed are stubs and whose host has
    HOST_CORES cores (a stub nproc), so that nothing can be built or booted
    by mistake."""
    HOST_CORES = 1

    def setUp(self):
        self.tree = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tree)
        t = self.tree
        for d in ('bench', 'tools/lib', 'bin', 'build', 'raw'):
            os.makedirs(os.path.join(t, d))
        for name in os.listdir(os.path.join(TOP, 'bench')):
            os.symlink(os.path.join(TOP, 'bench', name), os.path.join(t, 'bench', name))
        os.symlink(os.path.join(TOP, 'tools', 'lib', 'common.sh'),
                   os.path.join(t, 'tools', 'lib', 'common.sh'))
        for d in ('kernel-patch', 'kernel-headers'):
            os.symlink(os.path.join(TOP, d), os.path.join(t, d))
        self.stub('tools/xrxe-build', '#!/bin/sh\ntouch "$(dirname "$0")/../built"\n')
        # resolve: the version --kernel names, else the pinned one (whose
        # module is build/kernel/module/), without the package sources.
        self.stub('tools/xrxe-kernel', '#!/bin/sh\n[ "$1" = resolve ] || exit 2\n'
                  '[ "${2:-}" = --kernel ] && { echo "$3"; exit; }\n'
                  'tr -d " \\n" <"$(dirname "$0")/../kernel-patch/KERNEL_VERSION"; echo\n')
        self.stub('tools/xrxe-series', '#!/bin/sh\nexit 0\n')
        self.stub('tools/xrxe-testbed', STUB_TESTBED)
        self.stub('bin/nproc', f'#!/bin/sh\necho {self.HOST_CORES}\n')
        self.log = os.path.join(t, 'testbed.log')

    def stub(self, path, text):
        path = os.path.join(self.tree, path)
        with open(path, 'w') as f:
            f.write(text)
        os.chmod(path, 0o755)

    def built(self):
        """The files --no-build wants, as a build leaves them."""
        b = os.path.join(self.tree, 'build')
        for f in ['providers/xrxe/libxrxe-rdmav34.so', 'kernel/module/rdma_xrxe.ko'] + \
                [f'bench/{w[1]}' for w in WORKLOADS] + \
                [f'bench/{p}' for ps in MORE_PROGRAMS.values() for p in ps]:
            os.makedirs(os.path.dirname(os.path.join(b, f)), exist_ok=True)
            open(os.path.join(b, f), 'w').close()

    def launch(self, *args):
        env = dict(os.environ, XRXE_BUILD=os.path.join(self.tree, 'build'),
                   STUB_LOG=self.log, STUB_RAW=os.path.join(self.tree, 'raw'),
                   PATH=os.path.join(self.tree, 'bin') + os.pathsep + os.environ['PATH'])
        return subprocess.run([os.path.join(self.tree, 'bench', 'xrxe-bench')] + list(args),
                              capture_output=True, text=True, env=env, timeout=120)

    def assert_refused(self, args, message):
        p = self.launch(*args)
        self.assertEqual(p.returncode, 2, (args, p.stderr))
        self.assertIn(message, p.stderr, args)
        self.assertFalse(os.path.exists(os.path.join(self.tree, 'built')), 'it built')
        self.assertFalse(os.path.exists(self.log), 'it booted')

    def boots(self):
        """The testbed's arguments, a list a boot."""
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return [json.loads(line) for line in f]

    def guest_files(self, cpus, files):
        """What the guest at cpus CPUs writes: files, a name's text."""
        d = os.path.join(self.tree, 'raw', f'cpus-{cpus}')
        os.makedirs(d, exist_ok=True)
        for name, text in files.items():
            with open(os.path.join(d, name), 'w') as f:
                f.write(text)

    def test_a_bad_cpu_list_fails_before_anything_is_built(self):
        bad = (('', "not ''"), ('0', "'0' is not a CPU count"),
               ('2,0', "'0' is not a CPU count"), ('04', "'04' is not a CPU count"),
               ('2,,4', "not '2,,4'"), ('2,x', "not '2,x'"), ('-2', "not '-2'"),
               ('2, 4', "not '2, 4'"), ('2,4,2', "2 is named twice in '2,4,2'"))
        for w, *_ in WORKLOADS:
            for cpus, message in bad:
                self.assert_refused(['--workload', w, '--cpus', cpus], message)

    def test_docs_is_refused_with_a_sweep(self):
        for w, *_ in WORKLOADS:
            self.assert_refused(['--workload', w, '--docs', '--cpus', '2,4'],
                                '--docs records one CPU count: give --cpus one number, '
                                'not 2,4')

    def test_docs_is_refused_for_less_than_the_full_run(self):
        for w, *_ in WORKLOADS:
            self.assert_refused(['--workload', w, '--docs', '--short'],
                                '--docs records the full run only; drop --short')
            self.assert_refused(['--docs', '--reps', '2', '--workload', w],
                                '--docs needs --reps 3 or more')
        for args in (['--tests', 'mpi'], ['--small'], ['--sizes', '64']):
            self.assert_refused(['--docs'] + args, '--docs records the full matrix only: '
                                'no --small, --ll, --sizes or --tests')

    def test_no_build_names_what_is_missing(self):
        for w, program, _ in WORKLOADS:
            self.assert_refused(['--workload', w, '--no-build', '--short'], 'rdma_xrxe.ko')
            for name in [program] + MORE_PROGRAMS.get(w, []):
                self.assert_refused(['--workload', w, '--no-build', '--short'],
                                    f'bench/{name}')

    def test_an_option_a_workload_does_not_take_is_refused(self):
        for w, args in (('pace', ['--small']), ('ocu', ['--sizes', '64']),
                        ('coalesce', ['--sizes', '64']), ('pace', ['--ll']),
                        ('ocu', ['--small']), ('coalesce', ['--ll']),
                        ('pace', ['--profile']), ('ocu', ['--profile']),
                        ('coalesce', ['--profile'])):
            # Before --workload or after it, and before anything else is checked.
            for order in (['--workload', w] + args, args + ['--workload', w, '--reps', 'x']):
                self.assert_refused(order, f'{args[0]} does not apply to --workload {w}')

    def test_a_workload_is_one_of_the_table(self):
        self.assert_refused(['--workload', 'nope'],
                            "--workload: perftest, pace, ocu or coalesce, not 'nope'")
        self.assert_refused(['--workload', 'pace', '--workload', 'ocu'],
                            '--workload is given twice, as pace and as \'ocu\'')
        for w, args, message in (
                ('coalesce', ['--tests', 'append,nope'],
                 '--tests of coalesce: unknown nope; known: append, tag'),
                ('pace', ['--modes', 'xrxe-ll'], '--modes of pace: unknown xrxe-ll; known: xrxe, '
                 'stock'),
                ('ocu', ['--tests', 'append'], '--tests of ocu: unknown append; known: balance'),
                ('coalesce', ['--modes', 'xrxe-c1024', '--tests', 'tag'],
                 'nothing of that workload is measured in those modes'),
                ('pace', ['--modes', 'stock', '--tests', 'multi'],
                 'nothing of that workload is measured in those modes')):
            self.assert_refused(['--workload', w] + args, message)
        self.assert_refused(['--short', '--small'], 'different matrices: choose one')

    def workload(self, w, files, *args):
        """bench/xrxe-bench --workload w --no-build --cpus 1 into out-w, its
        guest writing files alone: its process, its one boot and its output
        directory."""
        self.built()
        shutil.rmtree(os.path.join(self.tree, 'raw', 'cpus-1'), ignore_errors=True)
        if os.path.exists(self.log):
            os.remove(self.log)
        self.guest_files(1, files)
        out = os.path.join(self.tree, f'out-{w}')
        p = self.launch('--workload', w, '--no-build', '--cpus', '1', '--out', out, *args)
        boots = self.boots()
        self.assertEqual(len(boots), 1, (w, boots, p.stderr))
        return p, boots[0], out

    def test_each_workload_boots_its_runner_and_reports(self):
        # (workload, its guest's files, its boot's time limit, its header)
        cases = (('pace', {'pace.json': json_lines(pace_runs())}, '1800',
                  'Accuracy: one run a point; the unit is IP bytes'),
                 ('ocu', {'ocu.json': json_lines(ocu_runs())}, '1740',
                  'full sweep, host load average '),
                 ('coalesce', {'coalesce.json': json_lines(append_runs()),
                               'tag.json': json_lines(tag_runs())}, '1740',
                  'full sweep, host load average '))
        tables = {w: t for w, _, t in WORKLOADS}
        for w, files, limit, header in cases:
            with self.subTest(w):
                p, boot, out = self.workload(w, files)
                self.assertEqual(p.returncode, 0, (w, p.stderr))
                self.assertFalse(os.path.exists(os.path.join(self.tree, 'built')))
                self.assertEqual(boot[boot.index('--module') + 1], 'xrxe')
                self.assertEqual(boot[boot.index('--timeout') + 1], limit)
                guest = boot[boot.index('--') + 1:]
                program = [g for n, g, _ in WORKLOADS if n == w][0]
                self.assertEqual(guest[1], os.path.join(self.tree, 'bench', 'guest.py'))
                self.assertEqual(guest[guest.index('--workload') + 1], w)
                self.assertEqual(guest[guest.index('--tool') + 1],
                                 os.path.join(self.tree, 'build', 'bench', program))
                self.assertEqual(guest[guest.index('--reps') + 1], '3')
                self.assertEqual(guest[guest.index('--out') + 1], out)
                self.assertNotIn('--short', guest)
                for t in tables[w]:
                    with open(os.path.join(out, t)) as f:
                        table = f.read()
                    self.assertIn('1 guest CPUs on a host of 1 cores', table)
                    self.assertIn(header, table)
                    # Not --brief: the tables themselves.
                    self.assertIn(table.strip().splitlines()[0], p.stdout)
        with open(os.path.join(self.tree, 'out-pace', 'pace.md')) as f:
            self.assertIn('at least 16384 bytes.', f.read())

    def test_short_is_one_repetition_of_the_short_sweep(self):
        p, boot, out = self.workload('ocu', {'ocu.json': json_lines(ocu_runs())}, '--short')
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(boot[boot.index('--timeout') + 1], '900')
        guest = boot[boot.index('--') + 1:]
        self.assertIn('--short', guest)
        self.assertEqual(guest[guest.index('--reps') + 1], '1')
        with open(os.path.join(out, 'ocu.md')) as f:
            self.assertIn('short sweep, host load average ', f.read())

    def test_coalesce_tests_and_brief(self):
        p, boot, out = self.workload('coalesce', {'tag.json': json_lines(tag_runs())},
                                     '--tests', 'tag', '--brief')
        self.assertEqual(p.returncode, 0, p.stderr)
        guest = boot[boot.index('--') + 1:]
        self.assertEqual(guest[guest.index('--tests') + 1], 'tag')
        # Only the table it wrote, and where it is instead of what it says.
        self.assertEqual(p.stdout, f"The table: {os.path.join(out, 'tag.md')}\n")
        self.assertTrue(os.path.getsize(os.path.join(out, 'tag.md')))
        self.assertFalse(os.path.exists(os.path.join(out, 'coalesce.md')))

    def test_a_run_without_results_fails(self):
        for w, name in (('pace', 'rate limit'), ('ocu', 'load balancing'),
                        ('coalesce', 'coalescing')):
            with self.subTest(w):
                p, _, _ = self.workload(w, {f'{w}.json': ''})
                self.assertNotEqual(p.returncode, 0)
                self.assertIn(f'the {name} benchmark produced no results (testbed exit 0)',
                              p.stderr)
                self.assertIn('failed at 1 guest CPUs', p.stderr)

    def test_a_run_replaces_what_an_earlier_one_left(self):
        out = os.path.join(self.tree, 'out-pace')
        os.makedirs(out)
        for name in ('pace.json', 'pace.md', 'pace-accuracy.png', 'pace-series.txt',
                     'other.txt'):
            with open(os.path.join(out, name), 'w') as f:
                f.write('earlier\n')
        p, _, _ = self.workload('pace', {'pace.json': ''})
        self.assertNotEqual(p.returncode, 0)
        # The guest's empty pace.json and what no run writes.
        self.assertEqual(sorted(os.listdir(out)), ['other.txt', 'pace.json'])
        self.assertEqual(os.path.getsize(os.path.join(out, 'pace.json')), 0)

    def raw_for(self, cpus, xrxe_lat):
        data = raw([run(m, 'ib_write_lat', 2, 1, 0, lat=lat)
                    for m, lat in (('stock', 100.0), ('xrxe-ll', xrxe_lat))], reps=1,
                   points=[planned('ib_write_lat', 2, 1, ('stock', 'xrxe-ll'))],
                   modes=('stock', 'xrxe-ll'))
        data['vcpus'] = cpus
        self.guest_files(cpus, {'raw.json': json.dumps(data)})

    def small_bench(self, cpus, xrxe_lat):
        """xrxe-bench --no-build at ib_write_lat 2 B and --cpus cpus, the guest
        at N CPUs finding xrxe's latency xrxe_lat[N] (a count without one
        fails): its process and output directory."""
        self.built()
        for n, lat in xrxe_lat.items():
            self.raw_for(n, lat)
        out = os.path.join(self.tree, 'out')
        return self.launch('--no-build', '--sizes', '2', '--tests',
                           'ib_write_lat', '--modes', 'xrxe-ll', '--reps', '1',
                           '--cpus', cpus, '--out', out), out

    def test_a_sweep_boots_once_a_count_into_its_own_directory(self):
        p, out = self.small_bench('1,2', {1: 50.0, 2: 25.0})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tree, 'built')))
        with open(self.log) as f:
            boots = [json.loads(line) for line in f]
        self.assertEqual([b[b.index('--cpus') + 1] for b in boots], ['1', '2'])
        for b in boots:
            self.assertIn('XRXE_HOST_CORES=1', b)
            self.assertIn('--no-slub-debug', b)
        # Two guest CPUs on one host core: said on stderr, once.
        warning = 'Warning: 2 vCPUs on a host of 1 cores'
        self.assertEqual(p.stderr.count(warning), 1, p.stderr)
        self.assertNotIn('1 vCPUs on', p.stderr)
        for n, ratio in ((1, '0.50'), (2, '0.25')):
            with open(os.path.join(out, f'cpus-{n}', 'table.md')) as f:
                table = f.read()
            self.assertIn(f'{n} guest CPUs on a host of 1 cores', table)
            self.assertEqual(warning in table, n == 2)
            self.assertIn(f'| {ratio} |', table)
        self.assertFalse(os.path.exists(os.path.join(out, 'raw.json')))
        with open(os.path.join(out, 'sweep.md')) as f:
            sweep = f.read()
        self.assertTrue(sweep.startswith(f'**{warning}'), sweep)
        self.assertIn('| Point | Ratio | 1 vCPUs (cpus-1) | 2 vCPUs (cpus-2) |', sweep)
        self.assertIn('| ib_write_lat 2 B | xrxe-ll/stock | 0.50 | 0.25 |', sweep)

    def test_one_count_writes_where_a_run_always_did(self):
        p, out = self.small_bench('1', {1: 50.0})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn('Warning', p.stderr)
        self.assertEqual(sorted(n for n in os.listdir(out) if not n.endswith('.png')),
                         ['raw.json', 'table.md'])

    def test_a_count_that_fails_does_not_stop_the_sweep(self):
        p, out = self.small_bench('1,2', {2: 25.0})
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn('failed at 1 guest CPUs', p.stderr)
        self.assertTrue(os.path.exists(os.path.join(out, 'cpus-2', 'table.md')))
        with open(os.path.join(out, 'sweep.md')) as f:
            sweep = f.read()
        self.assertIn('- No results: cpus-1', sweep)
        self.assertIn('| ib_write_lat 2 B | xrxe-ll/stock | 0.25 |', sweep)

    def test_a_count_above_the_host_cores_is_warned_about_first(self):
        self.built()
        for n in (2, 1):
            self.guest_files(n, {'ocu.json': json_lines(ocu_runs())})
        out = os.path.join(self.tree, 'out')
        p = self.launch('--workload', 'ocu', '--no-build', '--cpus', '2,1', '--out', out)
        self.assertEqual(p.returncode, 0, p.stderr)
        # The counts in the order given, the warning on stderr once.
        self.assertEqual([b[b.index('--cpus') + 1] for b in self.boots()], ['2', '1'])
        warning = ('Warning: 2 vCPUs on a host of 1 cores: the vCPUs take turns on the '
                   'cores, so these timings measure the host, not xrxe.')
        self.assertEqual(p.stderr.count(warning), 1, p.stderr)
        self.assertNotIn('1 vCPUs on', p.stderr)
        for n in (2, 1):
            with open(os.path.join(out, f'cpus-{n}', 'ocu.md')) as f:
                table = f.read()
            self.assertEqual(table.startswith(f'**{warning}**\n\nKernel hooks: '), n == 2)
            self.assertIn(f', {n} guest CPUs on a host of 1 cores, ', table)


class BundleShorthands(unittest.TestCase):
    """The bundle's pace-bench, ocu-bench and coalesce-bench are
    bench/xrxe-bench's workloads, their options checked as its own; what
    they refuse, they refuse before the host is looked at."""
    def bundle(self, *args):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        p = subprocess.run([os.path.join(TOP, 'tools', 'testbed-bundle', 'xrxe-bundle')] +
                           list(args), capture_output=True, text=True, cwd=d, timeout=60)
        self.assertEqual(os.listdir(d), [], args)
        return p

    def test_each_is_its_workload(self):
        for w in ('pace', 'ocu', 'coalesce'):
            p = self.bundle(f'{w}-bench', '--short', '--workload', 'perftest')
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn(f"{w}-bench is 'bench --workload {w}': give it no --workload",
                          p.stderr)
            p = self.bundle(f'{w}-bench', '--docs')
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("--docs writes into a checkout's docs/", p.stderr)

    def test_bench_takes_a_workload(self):
        p = self.bundle('bench', '--workload', 'pace', '--docs')
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("--docs writes into a checkout's docs/", p.stderr)
        p = self.bundle('perftest-bench')
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("unknown command 'perftest-bench'", p.stderr)


class HostCores(unittest.TestCase):
    def test_the_report_header(self):
        data = raw([run(m, 'ib_write_lat', 2, 1, i) for m in ('stock', 'xrxe')
                    for i in range(3)])
        # A raw.json from before the host's cores were recorded.
        self.assertIn(', 2 guest CPUs, full matrix', report.table(report.Results(data)))
        data.update(vcpus=4, host_cores=4)
        out = report.table(report.Results(data))
        self.assertTrue(out.startswith('Kernel k, 4 guest CPUs on a host of 4 cores, '), out)
        data.update(vcpus=8)
        out = report.table(report.Results(data))
        self.assertTrue(out.startswith('**Warning: 8 vCPUs on a host of 4 cores: the vCPUs '
                                       'take turns on the cores, so these timings measure '
                                       'the host, not xrxe.**\n\nKernel k, 8 guest CPUs'),
                        out)


class Sweep(unittest.TestCase):
    def results(self, vcpus, lat, points=(2, 64), modes=('stock', 'xrxe', 'xrxe-ll')):
        runs = [run(m, 'ib_write_lat', size, 1, i, lat=100.0 if m == 'stock' else lat)
                for m in modes for size in points for i in range(3)]
        data = raw(runs, modes=modes)
        data.update(vcpus=vcpus, host_cores=4)
        return report.Results(data)

    def test_ratios_side_by_side(self):
        out = report.sweep_table([('cpus-2', self.results(2, 50.0)),
                                  ('cpus-8', self.results(8, 80.0, points=(2,)))])
        self.assertTrue(out.startswith('**Warning: 8 vCPUs on a host of 4 cores'), out)
        self.assertNotIn('Warning: 2 vCPUs', out)
        self.assertIn('| Point | Ratio | 2 vCPUs (cpus-2) | 8 vCPUs (cpus-8) |', out)
        self.assertIn('| ib_write_lat 2 B | xrxe/stock | 0.50 | 0.80 |', out)
        self.assertIn('| ib_write_lat 2 B | xrxe-ll/stock | 0.50 | 0.80 |', out)
        # A point one count did not measure.
        self.assertIn('| ib_write_lat 64 B | xrxe/stock | 0.50 | - |', out)

    def test_an_incomplete_point_makes_no_ratio(self):
        res = self.results(4, 50.0, points=(2,))
        res.raw['runs'][-1] = run('xrxe-ll', 'ib_write_lat', 2, 1, 2, ok=False)
        out = report.sweep_table([('cpus-2', self.results(2, 50.0, points=(2,))),
                                  ('cpus-4', report.Results(res.raw))])
        self.assertIn('| ib_write_lat 2 B | xrxe-ll/stock | 0.50 | n/a |', out)
        self.assertNotIn('Warning', out)

    def test_report_writes_sweep_md_from_the_directories(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        for n, lat in ((2, 50.0), (4, 60.0)):
            os.makedirs(os.path.join(d, f'cpus-{n}'))
            with open(os.path.join(d, f'cpus-{n}', 'raw.json'), 'w') as f:
                json.dump(self.results(n, lat).raw, f)
        p = subprocess.run([sys.executable, os.path.join(TOP, 'bench', 'report.py'), d,
                            '--sweep', os.path.join(d, 'cpus-2'), os.path.join(d, 'cpus-4')],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(d, 'sweep.md')) as f:
            self.assertIn('| ib_write_lat 64 B | xrxe-ll/stock | 0.50 | 0.60 |', f.read())
        self.assertEqual(os.listdir(os.path.join(d, 'cpus-2')), ['raw.json'])


def ocu_runs():
    """ocu.json of one repetition: every table and plot has its runs."""
    def bulk(placement, busy_ns, rate, **kw):
        return dict({'mode': 'balance', 'driver': 'xrxe', 'placement': placement, 'rep': 0,
                     'nqps': 2, 'qps': [{'size': 64, 'engine': 0}, {'size': 4096, 'engine': 1}],
                     'engines': {'busy_ns': busy_ns, 'wqes': [10, 10], 'bytes': [640, 40960]},
                     'bulk_msgs_per_s': rate}, **kw)
    iso = {'pp_p50_us': 50.0, 'pp_p99_us': 200.0, 'pp_iters': 1000, 'pp_poll_us': 0}
    return [{'mode': 'meta', 'params': {'engine_threads': 2, 'ocus': 256}, 'reps': 1,
             'window_s': 3, 'short': True},
            bulk('static', [2e9, 1e9], 1000.0), bulk('spread', [1.5e9, 1.5e9], 1100.0),
            bulk('dynamic', [1.5e9, 1.4e9], 1200.0),
            bulk('collide', [2e9, 0], 900.0, mode='isolation', **iso),
            bulk('dynamic', [1e9, 1e9], 950.0, mode='isolation', **dict(iso, pp_p99_us=90.0)),
            bulk('static', [1e9, 1e9], 800.0, mode='throughput'),
            bulk('dynamic', [1e9, 1e9], 850.0, mode='throughput'),
            dict(bulk(None, [0, 0], 700.0, mode='throughput'), driver='rxe')]


def json_lines(runs):
    return ''.join(json.dumps(r) + '\n' for r in runs)


def pace_runs():
    """pace.json's accuracy at two limits, and the unlimited rate."""
    return [acc(0, 100000), acc(1000, 990), acc(10000, 10010)]


def append_runs():
    """coalesce.json of two repetitions, stock and xrxe."""
    return [append_run(m, rate, rep, stream, qps)
            for rep in range(2) for stream in ('adjacent', 'gapped') for qps in (1, 4)
            for m, rate in (('stock', 1000), ('xrxe', 1200))]


def tag_runs():
    """tag.json of two repetitions, stock and one QP."""
    return [tag_run(m, rate, rep) for rep in range(2)
            for m, rate in (('stock', 800), ('one', 1600))]


class WithoutMatplotlib(unittest.TestCase):
    """Every report writes its tables where matplotlib cannot be imported,
    says so in one line and draws nothing; with it, the same input draws
    its plots; and a plotting error of another kind still fails."""
    # (workload, its tables, its plots)
    REPORTS = (
        ('perftest', ['table.md'], ['latency-by-size.png']),
        ('pace', ['pace.md'], ['pace-accuracy.png']),
        ('ocu', ['ocu.md'],
         ['ocu-balance.png', 'ocu-isolation.png', 'ocu-throughput.png']),
        ('coalesce', ['coalesce.md', 'tag.md'],
         ['coalesce-append.png', 'coalesce-tag.png']))

    def inputs(self, name, d):
        def lines(path, runs):
            with open(os.path.join(d, path), 'w') as f:
                f.write(json_lines(runs))
        if name == 'perftest':
            with open(os.path.join(d, 'raw.json'), 'w') as f:
                json.dump(ReportByModes().data(), f)
        elif name == 'pace':
            lines('pace.json', pace_runs())
        elif name == 'ocu':
            lines('ocu.json', ocu_runs())
        else:
            lines('coalesce.json', append_runs())
            lines('tag.json', tag_runs())

    def stub_matplotlib(self, init, pyplot=''):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        os.makedirs(os.path.join(d, 'matplotlib'))
        with open(os.path.join(d, 'matplotlib', '__init__.py'), 'w') as f:
            f.write(init)
        with open(os.path.join(d, 'matplotlib', 'pyplot.py'), 'w') as f:
            f.write(pyplot)
        return d

    def report(self, name, pythonpath=None):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        self.inputs(name, d)
        env = dict(os.environ)
        if pythonpath:
            env['PYTHONPATH'] = pythonpath
        p = subprocess.run([sys.executable, os.path.join(TOP, 'bench', 'report.py'),
                            '--workload', name, d], capture_output=True, text=True, env=env)
        return p, d

    def test_tables_without_plots(self):
        stub = self.stub_matplotlib('raise ImportError("no matplotlib here")\n')
        for name, tables, _ in self.REPORTS:
            p, d = self.report(name, stub)
            self.assertEqual(p.returncode, 0, (name, p.stderr))
            self.assertEqual(p.stderr.count('no plots: matplotlib cannot be imported '
                                            '(no matplotlib here)'), 1, (name, p.stderr))
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, (name, p.stderr))
            for t in tables:
                self.assertTrue(os.path.getsize(os.path.join(d, t)), (name, t))
            self.assertEqual([f for f in os.listdir(d) if f.endswith('.png')], [], name)

    def test_the_same_input_plots_with_matplotlib(self):
        for name, tables, plots in self.REPORTS:
            p, d = self.report(name)
            self.assertEqual(p.returncode, 0, (name, p.stderr))
            for f in tables + plots:
                self.assertTrue(os.path.exists(os.path.join(d, f)), (name, f))

    def test_another_plotting_error_fails(self):
        stub = self.stub_matplotlib('def use(backend):\n    pass\n',
                                    'raise RuntimeError("a broken backend")\n')
        for name, _, _ in self.REPORTS:
            p, _ = self.report(name, stub)
            self.assertNotEqual(p.returncode, 0, name)
            self.assertIn('RuntimeError: a broken backend', p.stderr, name)


if __name__ == '__main__':
    unittest.main()
