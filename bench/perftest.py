#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The matrix (docs/benchmarks.md): perftest, ucx_perftest over rc_verbs
and an MPI ping-pong over UCX, against stock rdma_rxe with rdma-core's
librxe and against rdma_xrxe in each of its modes (MODES). The full
matrix: ib_write_lat, ib_send_lat and ib_read_lat from 2 B to 1 MiB,
ib_write_bw, ib_send_bw and ib_read_bw from 64 B to 1 MiB with 1 and 4
QPs, every mode up to 256 B (bandwidth: 64 B) and above that stock, the
classic path (xrxe), the defaults (xrxe-ll) and xrxe-ll-spin;
ucx_perftest am_lat, tag_lat and tag_bw and the MPI ping-pong at a few
sizes, the same four modes. --modes: only those beside stock, each at
every point of the matrix (the bandwidth-only xrxe-ll-coalesce at its
bandwidth points). --tests: only these programs or families (perftest,
ucx, mpi, ib_write_lat, ..., ib_read_bw, ucx_am_lat, ucx_tag_lat,
ucx_tag_bw, mpi_pingpong).

Once a boot, beside xrxe-memcpy-bw (each repetition), the TCP reference:
xrxe-tcp-bw over a veth pair of its own (the testbed veth's MTU, one end
in a network namespace of its own) at the bandwidth points' sizes with 1
and 4 streams, what the report reads each bandwidth figure against.

Each repetition runs mode after mode, each mode's driver loaded for every
point it measures, so that a noisy host's drift spreads over all modes
alike; --paired: each point in every mode back to back (a driver switch a
run), each ratio the median of the repetitions' own ratios against the
stock run just before (by default median over median): the ratios to
read on a host whose speed drifts within minutes. Writes raw.json (every
run: command, figures, guest CPU time, failure reasons; the guest's vCPUs
and the host's cores), table.md (medians with spreads and the ratios
xrxe/stock), the plots (*.png) and logs/ (every server and client
output); default directory build/bench-results. Every run is written as
soon as it ends; exits 1 if any run failed.
"""
import collections
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time

import cpu_profile
from guest import TOP, cpu_fields, driver, set_param

PAIR = os.path.join(TOP, 'tools', 'testbed-guest', 'pair.sh')

# The modes (docs/benchmarks.md, Modes): their drivers, environment of the
# programs and rdma_xrxe module parameters.
Mode = collections.namedtuple('Mode', 'name driver env params about')
MODE_TABLE = [Mode(*m) for m in [
    ('stock', 'rxe', {}, {}, 'rdma_rxe of the kernel with rdma-core\'s librxe'),
    ('xrxe', 'xrxe', {'XRXE_DOORBELL_LESS': '0'}, {'rx_inline': 0},
     'rdma_xrxe with libxrxe, every xrxe feature off (classic doorbell, '
     'receive work on the workqueue)'),
    ('xrxe-dbl', 'xrxe', {'XRXE_LL_MODE': 'never'}, {'engine_idle_us': 0, 'rx_inline': 0},
     'doorbell-less send queue alone, engines idle at once'),
    ('xrxe-dbl-poll', 'xrxe', {'XRXE_LL_MODE': 'never'},
     {'engine_idle_us': 200, 'rx_inline': 0},
     'doorbell-less send queue alone, engines busy-poll 200 us before idling'),
    ('xrxe-ll-rxwq', 'xrxe', {'XRXE_LL_MODE': 'idle'}, {'engine_idle_us': 0, 'rx_inline': 0},
     'doorbell-less send queue with low-latency posting (mode idle), engines '
     'idle at once, receive work on the workqueue'),
    ('xrxe-ll', 'xrxe', {'XRXE_LL_MODE': 'idle'}, {'engine_idle_us': 0, 'rx_inline': 1},
     'the defaults: low-latency posting in mode idle (a lone post to an idle '
     'engine carries its WQE) and a ping-pong\'s lone request handled in '
     'the receive softirq (rx_inline), engines idle at once'),
    ('xrxe-ll-spin', 'xrxe', {'XRXE_LL_MODE': 'idle', 'XRXE_EMPTY_POLL': 'spin'},
     {'engine_idle_us': 0, 'rx_inline': 1},
     'as xrxe-ll, a poll of an empty CQ keeps its CPU (spins) instead of '
     'yielding it (the defaults before polls yielded)'),
    ('xrxe-ll-always', 'xrxe', {'XRXE_LL_MODE': 'always'},
     {'engine_idle_us': 0, 'rx_inline': 1},
     'as xrxe-ll, low-latency posting in mode always (every lone qualifying '
     'post is a command)'),
    ('xrxe-ll-coalesce', 'xrxe', {'XRXE_LL_MODE': 'idle', 'XRXE_COALESCE': '1024'},
     {'engine_idle_us': 0, 'rx_inline': 1},
     'as xrxe-ll, with write coalescing on (XRXE_COALESCE=1024: adjacent '
     'RDMA WRITEs queued behind one that starts go in its message, up to '
     '1 KiB; opt-in)'),
]]
MODES = tuple(m.name for m in MODE_TABLE)

LAT_PROGS = ('ib_write_lat', 'ib_send_lat', 'ib_read_lat')
BW_PROGS = ('ib_write_bw', 'ib_send_bw', 'ib_read_bw')
UCX_TESTS = ('ucx_am_lat', 'ucx_tag_lat', 'ucx_tag_bw')
MPI_TEST = 'mpi_pingpong'
# The full matrix's sizes and the iterations of a run (docs/benchmarks.md,
# Matrix, UCX and MPI); bandwidth: messages a run whatever its QPs, at
# other sizes (--sizes) about 40 MB, at most 20000.
LAT_SIZES = (2, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576)
BW_SIZES = LAT_SIZES[1:]
UCX_SIZES = (8, 4096, 65536, 1048576)
UCX_AM_SIZES = (8, 4096)
MPI_SIZES = UCX_SIZES
BW_MESSAGES = {64: 20000, 256: 16000, 1024: 12000, 4096: 8000, 16384: 2400,
               65536: 600, 262144: 150, 1048576: 40}
LAT_ITERS = 3000
LAT_SMALL_MAX = 256
LAT_LARGE_ITERS = 1000
LAT_BYTES = 16 << 20
UCX_LAT_ITERS = 1000
UCX_BW_MESSAGES = 5000
UCX_BW_BYTES = 10_000_000
MIN_ITERS = 8           # per QP
INLINE_MAX = 256        # perftest's -I, what both drivers take
# ib_read_bw's reads in flight a QP (-o; perftest's default is the device's
# max_qp_rd_atom, whatever each driver says): rxe's maximum and perftest's
# send queue depth (-t 128), so that a read point keeps as many messages in
# flight as a write point, on either driver.
READ_OUTSTANDING = 128
# Without --modes every mode measures perftest's latency up to
# LAT_ALL_MODES_MAX and its bandwidth up to BW_ALL_MODES_MAX; the rest,
# LARGE_MODES only: stock, the classic path (what a user compares with),
# the defaults and their spinning polls. Modes named with --modes measure
# every point.
LAT_ALL_MODES_MAX = 256
BW_ALL_MODES_MAX = 64
LARGE_MODES = ('stock', 'xrxe', 'xrxe-ll', 'xrxe-ll-spin')
# Modes that only bandwidth points measure: a ping-pong has nothing queued
# to coalesce.
BW_ONLY_MODES = ('xrxe-ll-coalesce',)
# The other matrices, every mode at each point: (program, size, QPs).
SMALL_MATRICES = {
    'short': (('ib_write_lat', 2, 1), ('ib_send_lat', 2, 1), ('ib_write_bw', 64, 1),
              ('ib_write_bw', 65536, 1), ('ib_send_bw', 4096, 4)),
    'small': (('ib_write_lat', 2, 1), ('ib_send_lat', 2, 1), ('ib_write_bw', 64, 1),
              ('ib_write_bw', 64, 4), ('ib_send_bw', 64, 1), ('ib_send_bw', 64, 4)),
    'll': (('ib_send_lat', 2, 1), ('ib_send_lat', 64, 1), ('ib_send_lat', 256, 1),
           ('ib_write_lat', 2, 1), ('ib_write_lat', 64, 1), ('ib_write_lat', 256, 1),
           ('ib_send_bw', 64, 1)),
}
MATRICES = ('full',) + tuple(SMALL_MATRICES) + ('sizes',)
# What --tests may name: a family or a program.
PARTS = ('perftest', 'ucx', 'mpi') + LAT_PROGS + BW_PROGS + UCX_TESTS + (MPI_TEST,)

# The references of a boot: xrxe-memcpy-bw at these sizes and the bandwidth
# points'; xrxe-tcp-bw at the bandwidth points' sizes and TCP_SIZE, with
# each of TCP_STREAMS streams (a 1-QP point is read against 1 stream, a
# 4-QP point against 4) for TCP_SECONDS. TCP runs over a veth pair of its
# own with one end in a namespace of its own (two addresses of one
# namespace would route through lo), as wide as the devices' veth
# (RDMA_NETDEV's MTU), its addresses of the documentation range (RFC 5737).
MEMCPY_SIZES = (4096, 65536, 4 << 20)
TCP_SIZE = 65536
TCP_STREAMS = (1, 4)
TCP_SECONDS = 2
TCP_NETNS = 'xrxe-tcp'
TCP_LINKS = ('xrxe-tcp0', 'xrxe-tcp1')
TCP_ADDRS = ('198.51.100.1', '198.51.100.2')
RDMA_NETDEV = 'veth0'

# ucx_perftest at the protocol layer (UCP): each end takes its device from
# UCX_NET_DEVICES (the transport layer's server takes the client's).
UCX_PERFTEST = {'ucx_am_lat': 'ucp_am_lat', 'ucx_tag_lat': 'tag_lat',
                'ucx_tag_bw': 'tag_bw'}
UCX_ENV = {'UCX_TLS': 'rc_verbs,ud_verbs,self', 'UCX_IB_GID_INDEX': '0'}
UCX_PORT = 13337
# The MPI ping-pong's pause around each timed phase, so that the harness,
# polling every 20 ms, reads CPU time and counters at its edges.
MPI_PAUSE_MS = 300


def family(test):
    return 'ucx' if test.startswith('ucx_') else 'mpi' if test == MPI_TEST else 'perftest'


def point(prog, size, qps=1, modes=None):
    """A point of a matrix; modes: the names of the modes that measure it
    (None: all)."""
    kind = 'lat' if prog.endswith('_lat') or prog == MPI_TEST else 'bw'
    fam = family(prog)
    # perftest's latency runs send inline where the opcode carries a payload.
    inline = (fam == 'perftest' and kind == 'lat' and prog != 'ib_read_lat' and
              size <= INLINE_MAX)
    pt = {'test': prog, 'kind': kind, 'size': size, 'qps': qps, 'inline': inline}
    if fam != 'perftest':
        pt['family'] = fam
    if modes is not None:
        pt['modes'] = list(modes)
    return pt


def modes_of(pt):
    return pt.get('modes') or [m.name for m in MODE_TABLE
                               if pt['kind'] == 'bw' or m.name not in BW_ONLY_MODES]


def sized_points(lat_sizes, bw_sizes, ucx_sizes, am_sizes, mpi_sizes):
    def modes(size, most):
        return None if size <= most else LARGE_MODES
    return ([point(p, s, modes=modes(s, LAT_ALL_MODES_MAX)) for p in LAT_PROGS
             for s in lat_sizes] +
            [point(p, s, q, modes(s, BW_ALL_MODES_MAX)) for p in BW_PROGS for s in bw_sizes
             for q in (1, 4)] +
            [point(t, s, modes=LARGE_MODES) for t in UCX_TESTS for s in ucx_sizes
             if t != 'ucx_am_lat' or s in am_sizes] +
            [point(MPI_TEST, s, modes=LARGE_MODES) for s in mpi_sizes])


def matrix(name, sizes=None, tests=None, modes=None):
    """The points of a matrix ('sizes': the full one's programs at sizes,
    bandwidth from 64 B, am_lat up to 4 KiB), only those of tests (families
    or programs) if given, measured in modes (and stock, which every ratio
    needs) if given, at every point whatever its size or family (a
    bandwidth-only mode at bandwidth points only): a point left with stock
    alone goes."""
    if name in SMALL_MATRICES:
        pts = [point(*p) for p in SMALL_MATRICES[name]]
    elif name == 'sizes':
        sizes = sorted(set(sizes))
        pts = sized_points(sizes, [s for s in sizes if s >= min(BW_SIZES)], sizes,
                           [s for s in sizes if s <= max(UCX_AM_SIZES)], sizes)
    else:
        pts = sized_points(LAT_SIZES, BW_SIZES, UCX_SIZES, UCX_AM_SIZES, MPI_SIZES)
    if tests:
        pts = [p for p in pts if p['test'] in tests or family(p['test']) in tests]
    if modes:
        keep = set(modes) | {'stock'}
        for p in pts:
            p['modes'] = [m for m in modes_of(point(p['test'], p['size'], p['qps']))
                          if m in keep]
        pts = [p for p in pts if len(p['modes']) > 1]
    return pts


def run_order(points, paired):
    """The (mode, group of points) runs of one repetition, in order: mode
    after mode, each over its points, or paired: group after group, each
    in every mode that measures it (a driver switch a run)."""
    def mine(mode, pts):
        return [pt for pt in pts if mode.name in modes_of(pt)]
    if not paired:
        return [(mode, group) for mode in MODE_TABLE for group in run_groups(mine(mode, points))]
    return [(mode, sub) for group in run_groups(points) for mode in MODE_TABLE
            for sub in [mine(mode, group)] if sub]


def runs_per_rep(points):
    return sum(len(modes_of(p)) for p in points)


def iterations(pt, short):
    size = pt['size']
    if family(pt['test']) != 'perftest':
        n = (min(UCX_LAT_ITERS, LAT_BYTES // size) if pt['kind'] == 'lat' else
             min(UCX_BW_MESSAGES, UCX_BW_BYTES // size))
    elif pt['kind'] == 'lat':
        n = LAT_ITERS if size <= LAT_SMALL_MAX else min(LAT_LARGE_ITERS, LAT_BYTES // size)
    else:
        n = BW_MESSAGES.get(size, min(20000, 40_000_000 // size)) // pt['qps']
    return max(n // 2 if short else n, MIN_ITERS)


def warmup(n):
    """Warm-up iterations of a UCX or MPI run (perftest has its own)."""
    return max(2, min(50, n // 20))


def perftest_args(pt, n):
    args = f"-x 0 -s {pt['size']} -n {n}"
    if pt['inline']:
        args += f" -I {pt['size']}"
    if pt['qps'] > 1:
        args += f" -q {pt['qps']}"
    if pt['test'] == 'ib_read_bw':
        args += f' -o {READ_OUTSTANDING}'
    return args


def ucx_name(pt):
    """A UCX point's name in a batch file and in ucx_perftest's output."""
    return f"{UCX_PERFTEST[pt['test']]}_{pt['size']}"


def ucx_batch(pts, ns):
    """ucx_perftest's batch file for points: a line per test."""
    return ''.join(f"{ucx_name(pt)} -t {UCX_PERFTEST[pt['test']]} -s {pt['size']} "
                   f"-n {n} -w {warmup(n)}\n" for pt, n in zip(pts, ns))


def ucx_commands(batch, driver):
    """Server (device 1) and client (device 0) of a ucx_perftest pair that
    run the tests of a batch file in step."""
    return (f'env UCX_NET_DEVICES={driver}1:1 ucx_perftest -b {batch}',
            f'env UCX_NET_DEVICES={driver}0:1 ucx_perftest -b {batch} 127.0.0.1')


def mpi_command(pts, ns, driver, tool, env_names):
    """mpirun of the MPI ping-pong over points: two ranks over pml ucx,
    rank R on device R (UCX_NET_DEVICES set by a wrapper from
    OMPI_COMM_WORLD_RANK), the mode's variables passed on."""
    passed = [f'{name}={value}' for name, value in UCX_ENV.items()] + list(env_names)
    return (['mpirun', '--allow-run-as-root', '-np', '2', '--mca', 'pml', 'ucx',
             '--mca', 'btl', '^openib,vader,tcp'] + [x for n in passed for x in ('-x', n)] +
            ['bash', '-c', f'export UCX_NET_DEVICES={driver}$OMPI_COMM_WORLD_RANK:1; '
             'exec "$0" "$@"', tool, '-p', str(MPI_PAUSE_MS)] +
            [f"{pt['size']}:{n}:{warmup(n)}" for pt, n in zip(pts, ns)])


def cpu_seconds():
    """Guest CPU time over all CPUs from /proc/stat: (user, kernel), kernel
    being system, irq and softirq time (where rxe's work runs)."""
    user, nice, system, idle, iowait, irq, softirq = map(int, read('/proc/stat').split()[1:8])
    hz = os.sysconf('SC_CLK_TCK')
    return (user + nice) / hz, (system + irq + softirq) / hz


def measured_phases(proc, client_out, pts, ns, driver=None):
    """Per point, in order: guest CPU seconds (user, kernel) from the
    client's k-th result header, '#bytes', after which perftest and the MPI
    ping-pong measure, to the point's result line (perftest's clock
    calibration, about 0.2 s of one CPU, inside), with driver the hw
    counters' deltas (else None), and the phase's time.monotonic() window;
    None for a window not seen. Watched every 20 ms."""
    def reading():
        return cpu_seconds(), hw_counters(driver) if driver else None, time.monotonic()

    found = [None] * len(pts)
    k, start = 0, None
    while k < len(pts):
        done = proc.poll() is not None
        text = read(client_out)
        while k < len(pts):
            if start is None:
                if text.count('#bytes') <= k:
                    break
                start = reading()
            if parse_result(text, pts[k], ns[k]) is None:
                break
            end = reading()
            cpu = (end[0][0] - start[0][0], end[0][1] - start[0][1])
            found[k] = (cpu, {c: end[1][c] - start[1][c] for c in end[1]} if driver else None,
                        (start[2], end[2]))
            k, start = k + 1, None
        if done:
            break
        time.sleep(0.02)
    return found


LAT_FIELDS = ('t_min_us', 't_max_us', 't_typical_us', 't_avg_us',
              't_stdev_us', 't_p99_us', 't_p999_us')
BW_FIELDS = ('bw_peak_MBps', 'bw_avg_MBps', 'msg_rate_Mpps')
# A standard deviation perftest prints as -nan (a few slow iterations, the
# other figures sound) is left out.
OPTIONAL_FIELDS = ('t_stdev_us',)


def ucx_section(text, pt):
    """The part of ucx_perftest's output that belongs to a point's test: in
    batch mode, the rows after a separator that carries its name (padded
    with '-' to the first column's width, or ending at its '+')."""
    found = re.search(rf'^\+{re.escape(ucx_name(pt))}[-+]', text, re.M)
    if not found:
        # A lone test's output has no separator with a name.
        return '' if re.search(r'^\+[A-Za-z]', text, re.M) else text
    rest = text[found.end():].split('\n', 1)[-1]
    return re.split(r'^\+[A-Za-z]', rest, maxsplit=1, flags=re.M)[0]


def ucx_rates(mbps, msgs, size):
    """Bandwidth (MB/s) and message rate (Mpps) from ucx_perftest's
    figures, which it rounds: bandwidth to 0.01 MB/s (MiB/s), message rate
    to a message a second. The one less rounded gives the other."""
    mib = 1 << 20
    if mbps and (not msgs or 0.005 / mbps < 0.5 / msgs):
        return {'bw_avg_MBps': mbps, 'msg_rate_Mpps': mbps * mib / size / 1e6}
    return {'bw_avg_MBps': msgs * size / mib, 'msg_rate_Mpps': msgs / 1e6}


def parse_result(text, pt, n):
    """The figures of a run's result line. perftest's (and the MPI
    ping-pong's, the same as perftest's latency tests) starts with the
    message size and the run's iterations (bandwidth tests: all QPs'
    together). ucx_perftest's, the final line of the point's test, has its
    iterations, latency (bandwidth tests: overhead) in us as its percentile
    (the median: t_typical_us), the last interval's average and the run's
    (t_avg_us), then bandwidth (MB/s) and message rate, each as the last
    interval's (which may have been empty, inf) and the run's."""
    ucx = family(pt['test']) == 'ucx'
    names = LAT_FIELDS if pt['kind'] == 'lat' else BW_FIELDS
    if ucx:
        text, first, counts, width = ucx_section(text, pt), 'Final:', (str(n),), 7
    else:
        first, counts, width = str(pt['size']), (str(n), str(n * pt['qps'])), len(names)
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 2 + width and f[0] == first and f[1] in counts:
            try:
                v = [float(x) for x in f[2:2 + width]]
            except ValueError:
                return None
            if not ucx:
                figures = {k: x for k, x in zip(names, v)
                           if k not in OPTIONAL_FIELDS or math.isfinite(x)}
            elif pt['kind'] == 'lat':
                figures = {'t_typical_us': v[0], 't_avg_us': v[2]}
            else:
                figures = dict(overhead_us=v[2], **ucx_rates(v[4], v[6], pt['size']))
            # perftest prints inf or nan when its clock calibration failed.
            return figures if all(map(math.isfinite, figures.values())) else None
    return None


def read(path):
    try:
        with open(path, errors='replace') as f:
            return f.read()
    except OSError:
        return ''


# The hw counters a run records, both devices summed (docs/benchmarks.md,
# Figures).
COUNTERS = ('sent_pkts', 'send_rnr_err', 'rcvd_rnr_err', 'duplicate_request',
            'out_of_seq_request', 'rcvd_seq_err', 'completer_retry_err')
XRXE_COUNTERS = ('xrxe_doorbells', 'xrxe_doorbells_avoided',
                 'xrxe_engine_wakeups', 'xrxe_busy_poll_hits',
                 'xrxe_ll_posts', 'xrxe_ll_accepted', 'xrxe_ll_rejected',
                 'xrxe_rx_inline_requests', 'xrxe_posts_deferred',
                 'xrxe_wqes_coalesced', 'xrxe_msgs_coalesced') + tuple(
                     f'xrxe_ll_dropped_{r}' for r in ('order', 'busy', 'full', 'state', 'forced'))


def hw_counters(driver):
    names = COUNTERS + (XRXE_COUNTERS if driver == 'xrxe' else ())
    total = dict.fromkeys(names, 0)
    for c in names:
        for i in (0, 1):
            # open(), not read(): a missing counter fails naming its file.
            with open(f'/sys/class/infiniband/{driver}{i}/ports/1/hw_counters/{c}') as f:
                total[c] += int(f.read())
    return total


def run_groups(pts):
    """The runs that measure a mode's points, in order: each perftest point
    on its own, the UCX points in one ucx_perftest pair (a batch file), the
    MPI points in one mpirun (each start of UCX or MPI takes 10-40 s under
    TCG)."""
    runs, shared = [], {}
    for pt in pts:
        fam = family(pt['test'])
        if fam == 'perftest':
            runs.append([pt])
        elif fam in shared:
            shared[fam].append(pt)
        else:
            shared[fam] = [pt]
            runs.append(shared[fam])
    return runs


def start_run(mode, pts, ns, prefix, mpi_tool, profiled=False):
    """Start the run of a group of points: its process (which leaves the
    outputs in prefix-client and, for pairs, prefix-server, their exit
    statuses in prefix-status) and the commands that describe it; profiled:
    a perftest client under perf record, into prefix-perf.data."""
    driver = mode.driver
    env = dict(os.environ, **mode.env)
    env.pop('RDMAV_DRIVERS', None)
    if driver == 'xrxe':  # the provider of the build tree
        env['RDMAV_DRIVERS'] = os.environ['XRXE_PROVIDER']
    fam = family(pts[0]['test'])
    for f in ('-server', '-client', '-status', '-retries'):
        if os.path.exists(prefix + f):
            os.remove(prefix + f)
    # Each UCX test or MPI size takes up to a minute under TCG.
    limit = str(120 + 60 * len(pts))
    if fam == 'mpi':
        env.update(UCX_ENV)
        names = sorted(mode.env) + (['RDMAV_DRIVERS'] if driver == 'xrxe' else [])
        cmd = mpi_command(pts, ns, driver, mpi_tool, names)
        with open(prefix + '-client', 'w') as out:
            proc = subprocess.Popen(['timeout', limit] + cmd, stdin=subprocess.DEVNULL,
                                    stdout=out, stderr=subprocess.STDOUT, env=env)
        return proc, {'command': ' '.join(cmd)}
    if fam == 'ucx':
        env.update(UCX_ENV, PAIR_TIMEOUT=limit)
        batch = prefix + '-batch'
        with open(batch, 'w') as f:
            f.write(ucx_batch(pts, ns))
        server, client = ucx_commands(batch, driver)
        pair = ['run_pair', server, client, str(UCX_PORT)]
    else:
        args = perftest_args(pts[0], ns[0])
        server = f"{pts[0]['test']} -d {driver}0 {args}"
        client = f"{pts[0]['test']} -d {driver}1 {args} 127.0.0.1"
        if profiled:
            client = f"{cpu_profile.record_command(prefix + '-perf.data')} {client}"
        pair = ['run_perftest', server, client]
    proc = subprocess.Popen(['bash', '-c', f'. "$0"; {pair[0]} "$@"', PAIR, prefix] + pair[1:],
                            env=env)
    return proc, {'server': server, 'client': client}


def run_group(mode, pts, prefix, short, mpi_tool=None, profiled=False):
    """Run a group of points (run_groups) in one go: a record per point.
    perftest: CPU time of the measured phase, counters of the whole run.
    MPI: CPU time and counters of each size's timed phase. UCX: figures
    only (ucx_perftest prints nothing between starting UCP, which costs
    seconds of CPU, and its timed phase). profiled: perftest points also
    get the profile of their measured phase (bench/cpu_profile.py)."""
    driver = mode.driver
    fam = family(pts[0]['test'])
    ns = [iterations(pt, short) for pt in pts]
    before = hw_counters(driver)
    t0 = time.monotonic()
    profiled = profiled and fam == 'perftest'
    proc, commands = start_run(mode, pts, ns, prefix, mpi_tool, profiled)
    if fam == 'ucx':
        proc.wait()
        phases = [None] * len(pts)
    else:
        phases = measured_phases(proc, prefix + '-client', pts, ns,
                                 driver if fam == 'mpi' else None)
    rc = proc.wait()
    wall = time.monotonic() - t0
    after = hw_counters(driver)
    text = read(prefix + '-client')
    recs = []
    for pt, n, phase in zip(pts, ns, phases):
        rec = {k: v for k, v in pt.items() if k != 'modes'}
        rec.update(commands, mode=mode.name, iterations=n, wall_s=round(wall, 3),
                   retries=read(prefix + '-retries').count('try'))
        if len(pts) > 1:
            rec['group_points'] = len(pts)
        if fam == 'perftest':
            # The whole run, connection setup and retries included.
            rec['counters'] = {c: after[c] - before[c] for c in after}
        elif fam == 'mpi' and phase:
            rec['counters'] = phase[1]
        recs.append(rec)
        figures = parse_result(text, pt, n)
        if rc != 0 or figures is None:
            why = read(prefix + '-status').strip() or f'exit {rc}'
            rec.update(ok=False, error=f"{why}; no result line with finite figures"
                       if figures is None else why,
                       server_tail=read(prefix + '-server')[-600:], client_tail=text[-600:])
            continue
        messages = n * pt['qps']
        rec.update(ok=True, figures=figures, messages=messages)
        if fam == 'ucx':
            continue
        if phase is None:
            rec.update(ok=False, error='the measured phase was not seen in the '
                       'client output', server_tail='', client_tail=text[-600:])
            continue
        cpu = phase[0]
        rec.update(cpu_user_s=round(cpu[0], 3), cpu_kernel_s=round(cpu[1], 3),
                   cpu_us_per_msg=round(sum(cpu) * 1e6 / messages, 3),
                   kernel_cpu_us_per_msg=round(cpu[1] * 1e6 / messages, 3))
        if profiled:
            prof, why = cpu_profile.read(prefix + '-perf.data', phase[2], pt['test'],
                                        os.cpu_count())
            rec.update({'profile': prof} if prof else {'ok': False, 'error': why})
    return recs


def unavailable(points, mpi_tool):
    """Why a family of points cannot run here: {family: reason}."""
    why = {}
    if any(family(p['test']) == 'ucx' for p in points) and not shutil.which('ucx_perftest'):
        why['ucx'] = 'ucx_perftest is not installed (Debian package ucx-utils)'
    if any(family(p['test']) == 'mpi' for p in points):
        if not shutil.which('mpirun'):
            why['mpi'] = 'mpirun is not installed (Debian package openmpi-bin)'
        elif not mpi_tool or not os.access(mpi_tool, os.X_OK):
            why['mpi'] = (f"the MPI ping-pong {mpi_tool or ''} was not built "
                          '(mpicc not found at build time: Debian package libopenmpi-dev)')
    return why


def bw_sizes(points):
    """The sizes of the perftest bandwidth points."""
    return sorted({p['size'] for p in points if p['kind'] == 'bw' and
                   family(p['test']) == 'perftest'})


def memcpy_command(tool, points):
    return [tool] + [str(s) for s in sorted(set(MEMCPY_SIZES) | set(bw_sizes(points)))]


def parse_memcpy(text):
    """xrxe-memcpy-bw's lines 'memcpy SIZE MBPS' (MB: 10^6 bytes)."""
    return [{'size': int(m[1]), 'MBps': float(m[2])}
            for m in re.finditer(r'^memcpy (\d+) ([\d.]+)$', text, re.M)]


def tcp_sizes(points):
    """The sizes the TCP reference measures: the bandwidth points' and
    TCP_SIZE; none without a bandwidth point (no table reads it)."""
    sizes = bw_sizes(points)
    return sorted(set(sizes) | {TCP_SIZE}) if sizes else []


def tcp_command(tool, size, streams):
    """xrxe-tcp-bw: its server forked into TCP_NETNS, the client here."""
    return [tool, '-n', TCP_NETNS, '-s', str(size), '-P', str(streams),
            '-t', str(TCP_SECONDS), TCP_ADDRS[1]]


def parse_tcp(text):
    """xrxe-tcp-bw's lines 'tcp SIZE STREAMS MBPS' (MB: 10^6 bytes)."""
    return [{'size': int(m[1]), 'streams': int(m[2]), 'MBps': float(m[3])}
            for m in re.finditer(r'^tcp (\d+) (\d+) ([\d.]+)$', text, re.M)]


def ip(*args, check=True):
    res = subprocess.run(['ip'] + [str(a) for a in args], capture_output=True, text=True,
                         timeout=30)
    if check and res.returncode:
        raise RuntimeError(f"ip {' '.join(map(str, args))}: {res.stderr.strip()}")


def tcp_link_down():
    """The TCP reference's pair and namespace gone (deleting one end of a
    veth pair deletes the other), where they are."""
    ip('link', 'del', TCP_LINKS[0], check=False)
    ip('netns', 'del', TCP_NETNS, check=False)


def tcp_link_up(mtu):
    tcp_link_down()  # what a run killed before its cleanup left
    ip('netns', 'add', TCP_NETNS)
    ip('link', 'add', TCP_LINKS[0], 'mtu', mtu, 'type', 'veth', 'peer', 'name', TCP_LINKS[1],
       'mtu', mtu)
    ip('link', 'set', TCP_LINKS[1], 'netns', TCP_NETNS)
    ip('addr', 'add', f'{TCP_ADDRS[0]}/24', 'dev', TCP_LINKS[0])
    ip('link', 'set', TCP_LINKS[0], 'up')
    ip('-n', TCP_NETNS, 'addr', 'add', f'{TCP_ADDRS[1]}/24', 'dev', TCP_LINKS[1])
    ip('-n', TCP_NETNS, 'link', 'set', TCP_LINKS[1], 'up')


def tcp_reference(tool, sizes, netdev=RDMA_NETDEV):
    """The TCP reference at sizes with each of TCP_STREAMS: its records
    (size, streams, MBps), the link it ran over (its MTU, netdev's) and a
    reason for each run that failed. The pair and the namespace are
    deleted afterwards, whatever happened."""
    recs, failed = [], []
    link = {'mtu': None, 'of': netdev, 'seconds': TCP_SECONDS}
    if not sizes:
        return recs, link, failed
    if not tool or not os.access(tool, os.X_OK):
        return recs, link, [f"{tool or 'xrxe-tcp-bw'} was not built"]
    mtu = read(f'/sys/class/net/{netdev}/mtu').strip()
    if not mtu.isdigit():
        return recs, link, [f"no MTU of {netdev} to give the TCP reference's veth pair"]
    link['mtu'] = int(mtu)
    try:
        tcp_link_up(mtu)
        for size in sizes:
            for streams in TCP_STREAMS:
                cmd = tcp_command(tool, size, streams)
                try:
                    res = subprocess.run(cmd, capture_output=True, text=True,
                                         timeout=TCP_SECONDS + 60)
                except subprocess.TimeoutExpired:
                    failed.append(f'{size} B, {streams} stream(s): no result after '
                                  f'{TCP_SECONDS + 60} s')
                    continue
                got = [r for r in parse_tcp(res.stdout)
                       if (r['size'], r['streams']) == (size, streams) and r['MBps'] > 0]
                if res.returncode or not got:
                    failed.append(f"{size} B, {streams} stream(s): `{' '.join(cmd)}`: exit "
                                  f"{res.returncode}: {(res.stderr or res.stdout).strip()[-300:]}")
                else:
                    recs.append(got[0])
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
        failed.append(f'the veth pair: {e}')
    finally:
        tcp_link_down()
    return recs, link, failed


def figure_text(pt, f):
    if pt['kind'] == 'lat':
        return f"{f['t_typical_us']} us"
    return f"{f['msg_rate_Mpps']} Mpps {f['bw_avg_MBps']} MB/s"


def count(a, ap):
    """Runs of one repetition; checks --matrix, --sizes and --profile."""
    if a.matrix not in MATRICES:
        ap.error(f"--matrix: one of {', '.join(MATRICES)}, not '{a.matrix}'")
    if (a.matrix == 'sizes') != (a.sizes is not None):
        ap.error('--sizes goes with --matrix sizes, and only with it')
    if a.profile and not shutil.which('perf'):
        ap.error('--profile needs perf (Debian package linux-perf)')
    return runs_per_rep(matrix(a.matrix, a.sizes, a.tests, a.modes))


def run(a):
    points = matrix(a.matrix, a.sizes, a.tests, a.modes)
    logs = os.path.join(a.out, 'logs')
    os.makedirs(logs, exist_ok=True)
    missing = unavailable(points, a.mpi_tool)
    for fam, why in missing.items():
        print(f'bench: no {fam} points: {why}', flush=True)
    points = [p for p in points if family(p['test']) not in missing]
    series = read(os.path.join(TOP, 'kernel-patch', 'hooks', 'series')).splitlines()
    raw = {'kernel': os.uname().release, 'started': time.strftime('%Y-%m-%d %H:%M:%S'),
           'slub_debug': 'slub_debug' in read('/proc/cmdline').split(),
           'matrix': a.matrix, 'reps': a.reps, 'order': 'paired' if a.paired else 'modes',
           'profiled': a.profile,
           'cpus': os.cpu_count(), **cpu_fields(),
           # The patches the module was built from.
           'series': sum(1 for line in series if line.strip() and not line.startswith('#')),
           'modes': [m._asdict() for m in MODE_TABLE
                     if any(m.name in modes_of(p) for p in points)],
           # What each mode was to measure: the report tells a point a mode
           # does not measure from one whose runs are missing.
           'points': [dict(p, modes=modes_of(p)) for p in points],
           'memcpy': [], 'tcp': [], 'runs': []}
    # What the options chose, and what could not run, where there is any.
    chosen = {'sizes': a.sizes and sorted(set(a.sizes)), 'tests': a.tests, 'chosen_modes': a.modes,
              'skipped': [f'{fam}: {why}' for fam, why in missing.items()]}
    raw.update((k, v) for k, v in chosen.items() if v)

    def save():
        with open(os.path.join(a.out, 'raw.json.tmp'), 'w') as f:
            json.dump(raw, f, indent=1)
        os.replace(os.path.join(a.out, 'raw.json.tmp'), os.path.join(a.out, 'raw.json'))

    current = None
    for rep in range(a.reps):
        out = subprocess.run(memcpy_command(a.tool, points), capture_output=True, text=True,
                             check=True).stdout
        raw['memcpy'] += [dict(m, rep=rep) for m in parse_memcpy(out)]
        if rep == 0:
            # Once a boot: TCP's figures move less than the host does.
            tcp, raw['tcp_link'], failed = tcp_reference(
                a.tcp_tool or os.path.join(os.path.dirname(a.tool), 'xrxe-tcp-bw'),
                tcp_sizes(points))
            raw['tcp'] = [dict(t, rep=rep) for t in tcp]
            if failed:
                raw['tcp_failed'] = failed
            for t in tcp:
                print(f"tcp    {t['size']} B, {t['streams']} stream(s): {t['MBps']} MB/s",
                      flush=True)
            for why in failed:
                print(f'tcp reference FAILED: {why}', flush=True)
            save()
        for mode, group in run_order(points, a.paired):
            if mode is not current:
                # Its driver loaded, with its devices, and its parameters set.
                driver(f'switch_driver {mode.driver}')
                for param, value in mode.params.items():
                    set_param(param, value, mode.driver)
                current = mode
            i = points.index(group[0])
            prefix = os.path.join(logs, f'{mode.name}-r{rep}-{i:02d}')
            recs = run_group(mode, group, prefix, a.matrix == 'short', a.mpi_tool, a.profile)
            for pt, rec in zip(group, recs):
                rec['rep'] = rep
                raw['runs'].append(rec)
                label = f"{mode.name:6} rep {rep} {pt['test']} {pt['size']} B x{pt['qps']}"
                if rec['ok']:
                    print(f"{label}: {figure_text(pt, rec['figures'])}", flush=True)
                else:
                    print(f"{label}: FAILED ({rec['error']})\n"
                          f"  server: {rec['server_tail'][-300:]!r}\n"
                          f"  client: {rec['client_tail'][-300:]!r}", flush=True)
            save()
    raw['ended'] = time.strftime('%Y-%m-%d %H:%M:%S')
    save()
    failed = sum(not rec['ok'] for rec in raw['runs'])
    if failed:
        print(f'bench: {failed} run(s) failed', file=sys.stderr)
    return 1 if failed else 0
