#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The matrix (docs/benchmarks.md): perftest, ucx_perftest over rc_verbs
and an MPI ping-pong over UCX, against stock rdma_rxe with rdma-core's
librxe and against rdma_xrxe in each of its modes (MODES; --modes: only
those beside stock, at the points the matrix measures them). The full
matrix: ib_write_lat, ib_send_lat and ib_read_lat from 2 B to 1 MiB,
ib_write_bw and ib_send_bw from 64 B to 1 MiB with 1 and 4 QPs, every mode
up to 256 B and stock against the defaults (xrxe-ll) and xrxe-ll-spin
above; ucx_perftest am_lat, tag_lat and tag_bw and the MPI ping-pong at a
few sizes, the same three modes. --tests: only these programs or families
(perftest, ucx, mpi, ib_write_lat, ..., ucx_am_lat, ucx_tag_lat,
ucx_tag_bw, mpi_pingpong).

Each repetition runs mode after mode, each mode's driver loaded (the other
unloaded) for every point it measures, so that drift of a noisy host
spreads over all modes alike; --paired: each point in every mode back to
back instead (a driver switch a run), each ratio the median of the
repetitions' own ratios against the stock run just before (by default
median over median): on a host whose speed drifts within minutes, the
ratios to read. Writes raw.json (every run: command, figures, guest CPU
time, failure reasons; the guest's vCPUs and the host's cores), table.md
(medians with spreads and the ratios xrxe/stock), the plots (*.png) and
logs/ (every server and client output); default directory
build/bench-results. Every run is written as soon as it ends; exits 1 if
any run failed.
"""
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time

from guest import cpu_fields, driver, set_param

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAIR = os.path.join(TOP, 'tools', 'testbed-guest', 'pair.sh')

# name, driver, environment of the programs, rdma_xrxe module parameters,
# what it is. xrxe modes get the provider from the build tree
# (RDMAV_DRIVERS); each feature adds its modes here as it lands.
MODE_TABLE = [
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
]
MODES = tuple(m[0] for m in MODE_TABLE)

LAT_PROGS = ('ib_write_lat', 'ib_send_lat', 'ib_read_lat')
BW_PROGS = ('ib_write_bw', 'ib_send_bw')
# The points of the full matrix: latency from 2 B to 1 MiB and bandwidth
# from 64 B to 1 MiB, a few sizes per decade.
LAT_SIZES = (2, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576)
BW_SIZES = (64, 256, 1024, 4096, 16384, 65536, 262144, 1048576)
# perftest sends inline (-I) up to this size: the largest that both
# drivers' max_inline_data take.
INLINE_MAX = 256
# Messages per bandwidth run, whatever the number of QPs (perftest's -n is
# per QP), so that a run lasts about two seconds under TCG and perftest's
# clock calibration is a small part of the measured phase. Sizes not listed
# (--sizes) move about 40 MB, at most 20000 messages.
BW_MESSAGES = {64: 20000, 256: 16000, 1024: 12000, 4096: 8000, 16384: 2400,
               65536: 600, 262144: 150, 1048576: 40}
# Iterations of a latency run: long enough that the CPU time of the measured
# phase spans many clock ticks; above 256 B (where a ping-pong often waits a
# scheduler tick, 4 ms) at most 1000 and 16 MiB in each direction, so that
# a run of 1 MiB stays a few seconds.
LAT_ITERS = 3000
LAT_SMALL_MAX = 256
LAT_LARGE_ITERS = 1000
LAT_BYTES = 16 << 20
# The fewest iterations (per QP) of any run.
MIN_ITERS = 8

# ucx_perftest over rc_verbs, at the protocol layer (UCP, which wires up
# over ud_verbs): active message latency, tag matching latency and
# bandwidth. Not the transport layer's am_lat: its server takes all the
# client's parameters, the device included, so both ends would sit on one
# device. UCP takes its device from UCX_NET_DEVICES, which each end sets.
# The MPI ping-pong: Open MPI over UCX (pml ucx), one rank per device.
UCX_TESTS = ('ucx_am_lat', 'ucx_tag_lat', 'ucx_tag_bw')
UCX_PERFTEST = {'ucx_am_lat': 'ucp_am_lat', 'ucx_tag_lat': 'tag_lat',
                'ucx_tag_bw': 'tag_bw'}
UCX_SIZES = (8, 4096, 65536, 1048576)
UCX_AM_SIZES = (8, 4096)
UCX_ENV = {'UCX_TLS': 'rc_verbs,ud_verbs,self',
           # Its own choice is an IPv4 GID, which routes through loopback.
           'UCX_IB_GID_INDEX': '0'}
UCX_PORT = 13337
MPI_TEST = 'mpi_pingpong'
MPI_SIZES = (8, 4096, 65536, 1048576)
# UCX and MPI ping-pongs wait for the scheduler's tick now and then (4 ms):
# fewer iterations than perftest's; bandwidth runs move about 10 MB.
UCX_LAT_ITERS = 1000
UCX_BW_MESSAGES = 5000
UCX_BW_BYTES = 10_000_000
# The MPI ping-pong's pause around each timed phase, so that the harness,
# polling every 20 ms, reads CPU time and counters at its edges.
MPI_PAUSE_MS = 300

# The full matrix measures every mode where the modes differ: perftest's
# latency up to 256 B and bandwidth at 64 B; elsewhere, and for UCX and MPI,
# only stock, the defaults and the defaults with spinning polls (what a
# poller does with its CPU matters at every size).
LAT_ALL_MODES_MAX = 256
BW_ALL_MODES_MAX = 64
LARGE_MODES = ('stock', 'xrxe-ll', 'xrxe-ll-spin')


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


# Modes that only bandwidth points measure: a ping-pong has nothing queued
# to coalesce.
BW_ONLY_MODES = ('xrxe-ll-coalesce',)


def modes_of(pt):
    return pt.get('modes') or [m[0] for m in MODE_TABLE
                               if pt['kind'] == 'bw' or m[0] not in BW_ONLY_MODES]


# The matrices: 'full' (the published one), 'short' (the demo's),
# 'small' (small messages only: the points doorbell-less send queues are
# measured by) and 'll' (the points low-latency posting is measured by).
# 'sizes' is the full matrix's programs at the sizes given instead.
MATRICES = ('full', 'short', 'small', 'll', 'sizes')
# What --tests may name: a family or a program.
TEST_NAMES = ('perftest', 'ucx', 'mpi') + LAT_PROGS + BW_PROGS + UCX_TESTS + (MPI_TEST,)


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
    """The points of a matrix, for sizes with 'sizes', only those of tests
    (families or programs) if given, measured only in modes (and stock,
    which every ratio needs) if given: a point left with stock alone goes."""
    if name == 'short':
        pts = [point('ib_write_lat', 2), point('ib_send_lat', 2),
               point('ib_write_bw', 64), point('ib_write_bw', 65536),
               point('ib_send_bw', 4096, 4)]
    elif name == 'small':
        pts = [point('ib_write_lat', 2), point('ib_send_lat', 2)] + [
            point(p, 64, q) for p in BW_PROGS for q in (1, 4)]
    elif name == 'll':
        pts = [point(p, s) for p in ('ib_send_lat', 'ib_write_lat')
               for s in (2, 64, 256)] + [point('ib_send_bw', 64)]
    elif name == 'sizes':
        sizes = sorted(set(sizes))
        # Bandwidth from 64 B, as in the full matrix.
        pts = sized_points(sizes, [s for s in sizes if s >= 64], sizes,
                           [s for s in sizes if s <= max(UCX_AM_SIZES)], sizes)
    else:
        pts = sized_points(LAT_SIZES, BW_SIZES, UCX_SIZES, UCX_AM_SIZES, MPI_SIZES)
    if tests:
        pts = [p for p in pts if p['test'] in tests or family(p['test']) in tests]
    if modes:
        keep = set(modes) | {'stock'}
        for p in pts:
            p['modes'] = [m for m in modes_of(p) if m in keep]
        pts = [p for p in pts if len(p['modes']) > 1]
    return pts


def run_order(points, paired):
    """The (mode, group of points) runs of one repetition, in order: mode
    after mode, each over its points (a driver switch per mode), or paired:
    group after group, each in every mode that measures it, so that the
    modes of a point run minutes apart at most and the host's drift falls
    on all of them alike (a switch per run)."""
    def mine(mode, pts):
        return [pt for pt in pts if mode[0] in modes_of(pt)]
    if not paired:
        return [(mode, group) for mode in MODE_TABLE for group in run_groups(mine(mode, points))]
    return [(mode, sub) for group in run_groups(points) for mode in MODE_TABLE
            for sub in [mine(mode, group)] if sub]


def runs_per_rep(points):
    return sum(len(modes_of(p)) for p in points)


def iterations(pt, short):
    size = max(pt['size'], 1)
    if family(pt['test']) != 'perftest':
        if pt['kind'] == 'lat':
            n = min(UCX_LAT_ITERS, LAT_BYTES // size)
        else:
            n = min(UCX_BW_MESSAGES, UCX_BW_BYTES // size)
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
    return args


def ucx_name(pt):
    """A UCX point's name in a batch file and in ucx_perftest's output."""
    return f"{UCX_PERFTEST[pt['test']]}_{pt['size']}"


def ucx_batch(pts, ns):
    """ucx_perftest's batch file for points: a line per test."""
    return ''.join(f"{ucx_name(pt)} -t {UCX_PERFTEST[pt['test']]} -s {pt['size']} "
                   f"-n {n} -w {warmup(n)}\n" for pt, n in zip(pts, ns))


def ucx_commands(batch, driver):
    """Server and client of a ucx_perftest pair that runs the tests of a
    batch file: server on device 1, client on device 0. Both read the batch
    file and run its tests in step."""
    return (f'env UCX_NET_DEVICES={driver}1:1 ucx_perftest -b {batch}',
            f'env UCX_NET_DEVICES={driver}0:1 ucx_perftest -b {batch} 127.0.0.1')


def mpi_command(pts, ns, driver, tool, env_names):
    """mpirun of the MPI ping-pong over points: two ranks over pml ucx,
    rank R on device R (UCX_NET_DEVICES set by a wrapper from
    OMPI_COMM_WORLD_RANK), the mode's variables passed on."""
    cmd = ['mpirun', '--allow-run-as-root', '-np', '2', '--mca', 'pml', 'ucx',
           '--mca', 'btl', '^openib,vader,tcp']
    for name, value in UCX_ENV.items():
        cmd += ['-x', f'{name}={value}']
    for name in env_names:
        cmd += ['-x', name]
    return cmd + ['bash', '-c', f'export UCX_NET_DEVICES={driver}$OMPI_COMM_WORLD_RANK:1; '
                  'exec "$0" "$@"', tool, '-p', str(MPI_PAUSE_MS)] + [
                      f"{pt['size']}:{n}:{warmup(n)}" for pt, n in zip(pts, ns)]


def cpu_seconds():
    """Guest CPU time over all CPUs from /proc/stat: (user, kernel), kernel
    being system, irq and softirq time (where rxe's work runs)."""
    with open('/proc/stat') as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    user, nice, system, idle, iowait, irq, softirq = fields[:7]
    hz = os.sysconf('SC_CLK_TCK')
    return (user + nice) / hz, (system + irq + softirq) / hz


def measured_phases(proc, client_out, pts, ns, driver=None):
    """Per point, in order: guest CPU seconds (user, kernel) between the
    client printing its k-th result header, '#bytes' (perftest and the MPI
    ping-pong start measuring right after it) and the point's result line, and, with
    driver, the hw counters' deltas over the same window; watched every
    20 ms while proc runs. None for a point whose window was not seen.
    Setup and teardown stay outside; perftest's clock calibration before
    the result line (about 0.2 s of one CPU) is inside."""
    found = [None] * len(pts)
    k, start = 0, None
    while k < len(pts):
        done = proc.poll() is not None
        text = read(client_out)
        while k < len(pts):
            if start is None:
                if text.count('#bytes') <= k:
                    break
                start = (cpu_seconds(), hw_counters(driver) if driver else None)
            if parse_result(text, pts[k], ns[k]) is None:
                break
            end = (cpu_seconds(), hw_counters(driver) if driver else None)
            cpu = (end[0][0] - start[0][0], end[0][1] - start[0][1])
            found[k] = (cpu, {c: end[1][c] - start[1][c] for c in end[1]} if driver else None)
            k, start = k + 1, None
        if done:
            break
        time.sleep(0.02)
    return found


LAT_FIELDS = ('t_min_us', 't_max_us', 't_typical_us', 't_avg_us',
              't_stdev_us', 't_p99_us', 't_p999_us')
BW_FIELDS = ('bw_peak_MBps', 'bw_avg_MBps', 'msg_rate_Mpps')
# Figures a result line may lack: perftest's latency tests print a standard
# deviation of -nan now and then over a few slow iterations (large
# messages), with every other figure sound; such a figure is left out.
OPTIONAL_FIELDS = ('t_stdev_us',)


def finite(vals):
    # perftest prints inf or nan when its clock calibration failed.
    return all(math.isfinite(v) for v in vals)


def ucx_section(text, pt):
    """The part of ucx_perftest's output that belongs to a point's test: in
    batch mode each test's rows follow a separator that carries its name."""
    # The name is padded with '-' to the first column's width; a name as
    # wide as the column ends at its '+'.
    head = re.compile(rf'^\+{re.escape(ucx_name(pt))}[-+]', re.M)
    found = head.search(text)
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


def parse_ucx(text, pt, n):
    """The figures of ucx_perftest's final line of a point's test:
    iterations, then latency (for bandwidth tests: overhead) in us as its
    percentile, the last interval's average and the whole run's, bandwidth
    in MB/s and message rate in messages/s, each as the last interval's and
    the whole run's average. Latency tests: the percentile (the median) is
    t_typical_us, the run's average t_avg_us; bandwidth tests: the run's
    averages, the one of bandwidth and message rate that ucx_perftest
    rounds less giving the other."""
    for line in ucx_section(text, pt).splitlines():
        f = line.split()
        if len(f) >= 9 and f[0] == 'Final:' and f[1] == str(n):
            try:
                v = [float(x) for x in f[2:9]]
            except ValueError:
                return None
            # The last interval's figures go unused: it may have been empty
            # (inf).
            if pt['kind'] == 'lat':
                figures = {'t_typical_us': v[0], 't_avg_us': v[2]}
            else:
                figures = dict(overhead_us=v[2], **ucx_rates(v[4], v[6], pt['size']))
            return figures if finite(figures.values()) else None
    return None


def parse_result(text, pt, n):
    """The figures of perftest's result line: the one that starts with the
    message size and the iteration count of this run (the MPI ping-pong
    prints the same line as perftest's latency tests); ucx_perftest's
    final line."""
    if family(pt['test']) == 'ucx':
        return parse_ucx(text, pt, n)
    names = LAT_FIELDS if pt['kind'] == 'lat' else BW_FIELDS
    # Bandwidth tests count the iterations of all QPs together.
    counts = (str(n), str(n * pt['qps']))
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 2 + len(names) and f[0] == str(pt['size']) and f[1] in counts:
            try:
                figures = dict(zip(names, (float(x) for x in f[2:2 + len(names)])))
            except ValueError:
                return None
            figures = {k: v for k, v in figures.items()
                       if k not in OPTIONAL_FIELDS or math.isfinite(v)}
            if not finite(figures.values()):
                return None
            return figures
    return None


def read(path):
    try:
        with open(path, errors='replace') as f:
            return f.read()
    except OSError:
        return ''


# The hw counters a run records (both devices, summed): packets sent, the
# events that cost extra packets (RNR NAKs sent and received, duplicate and
# out-of-sequence requests, NAKs for a sequence error, retries), and
# on xrxe the doorbell-less send queue's doorbells rung and avoided, engine
# wake-ups and busy-poll hits, low-latency commands with their fates,
# received requests handled in the receive softirq, posts a stream's
# rule left to an engine or the workqueue, and WQEs and messages coalesced.
COUNTERS = ('sent_pkts', 'send_rnr_err', 'rcvd_rnr_err', 'duplicate_request',
            'out_of_seq_request', 'rcvd_seq_err', 'completer_retry_err')
LL_DROP_REASONS = ('order', 'busy', 'full', 'state', 'forced')
XRXE_COUNTERS = ('xrxe_doorbells', 'xrxe_doorbells_avoided',
                 'xrxe_engine_wakeups', 'xrxe_busy_poll_hits',
                 'xrxe_ll_posts', 'xrxe_ll_accepted', 'xrxe_ll_rejected',
                 'xrxe_rx_inline_requests', 'xrxe_posts_deferred',
                 'xrxe_wqes_coalesced', 'xrxe_msgs_coalesced') + tuple(
                     f'xrxe_ll_dropped_{r}' for r in LL_DROP_REASONS)


def hw_counters(driver):
    names = COUNTERS + (XRXE_COUNTERS if driver == 'xrxe' else ())
    total = dict.fromkeys(names, 0)
    for dev in (f'{driver}0', f'{driver}1'):
        for c in names:
            with open(f'/sys/class/infiniband/{dev}/ports/1/hw_counters/{c}') as f:
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


def program_env(mode):
    _, driver, env_add, _, _ = mode
    env = dict(os.environ, **env_add)
    if driver == 'xrxe':
        env['RDMAV_DRIVERS'] = os.environ['XRXE_PROVIDER']
    else:
        env.pop('RDMAV_DRIVERS', None)
    return env


def start_run(mode, pts, ns, prefix, tools):
    """Start the run of a group of points: its process (which leaves the
    client's output in prefix-client, and for pairs the server's in
    prefix-server and their exit statuses in prefix-status) and the
    commands that describe it."""
    _, driver, env_add, _, _ = mode
    env = program_env(mode)
    fam = family(pts[0]['test'])
    for f in ('-server', '-client', '-status', '-retries'):
        if os.path.exists(prefix + f):
            os.remove(prefix + f)
    # Each UCX test or MPI size takes up to a minute under TCG.
    limit = str(120 + 60 * len(pts))
    if fam == 'mpi':
        env.update(UCX_ENV)
        names = sorted(env_add) + (['RDMAV_DRIVERS'] if driver == 'xrxe' else [])
        cmd = mpi_command(pts, ns, driver, tools['mpi'], names)
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
        proc = subprocess.Popen(['bash', '-c', '. "$0"; run_pair "$1" "$2" "$3" "$4"',
                                 PAIR, prefix, server, client, str(UCX_PORT)], env=env)
        return proc, {'server': server, 'client': client}
    args = perftest_args(pts[0], ns[0])
    server = f"{pts[0]['test']} -d {driver}0 {args}"
    client = f"{pts[0]['test']} -d {driver}1 {args} 127.0.0.1"
    proc = subprocess.Popen(['bash', '-c', '. "$0"; run_perftest "$1" "$2" "$3"',
                             PAIR, prefix, server, client], env=env)
    return proc, {'server': server, 'client': client}


def run_group(mode, pts, prefix, short, tools=None):
    """Run a group of points (run_groups) in one go: a record per point.
    perftest: CPU time of the measured phase, counters of the whole run.
    MPI: CPU time and counters of each size's timed phase. UCX: figures
    only (ucx_perftest prints nothing between starting UCP, which costs
    seconds of CPU, and its timed phase)."""
    name, driver, _, _, _ = mode
    fam = family(pts[0]['test'])
    ns = [iterations(pt, short) for pt in pts]
    before = hw_counters(driver)
    t0 = time.monotonic()
    proc, commands = start_run(mode, pts, ns, prefix, tools or {})
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
        rec.update(commands, mode=name, iterations=n, wall_s=round(wall, 3),
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
    return recs


def switch_mode(mode):
    """The mode's driver loaded, with its devices, and its module
    parameters set."""
    name, drv, _, params, _ = mode
    driver(f'switch_driver {drv}')
    for param, value in params.items():
        set_param(param, value, drv)


def series_patches():
    """How many patches of kernel-patch/series the module was built from."""
    with open(os.path.join(TOP, 'kernel-patch', 'series')) as f:
        return sum(1 for line in f if line.strip() and not line.startswith('#'))


def memcpy_reference(tool):
    out = subprocess.run([tool], capture_output=True, text=True, check=True).stdout
    return [{'size': int(m[1]), 'MBps': float(m[2])}
            for m in re.finditer(r'^memcpy (\d+) ([\d.]+)$', out, re.M)]


def unavailable(points, tools):
    """Why a family of points cannot run here: {family: reason}."""
    why = {}
    if any(family(p['test']) == 'ucx' for p in points) and not shutil.which('ucx_perftest'):
        why['ucx'] = 'ucx_perftest is not installed (Debian package ucx-utils)'
    if any(family(p['test']) == 'mpi' for p in points):
        if not shutil.which('mpirun'):
            why['mpi'] = 'mpirun is not installed (Debian package openmpi-bin)'
        elif not tools.get('mpi') or not os.access(tools['mpi'], os.X_OK):
            why['mpi'] = (f"the MPI ping-pong {tools.get('mpi') or ''} was not built "
                          '(mpicc not found at build time: Debian package libopenmpi-dev)')
    return why


def figure_text(pt, f):
    if pt['kind'] == 'lat':
        return f"{f['t_typical_us']} us"
    return f"{f['msg_rate_Mpps']} Mpps {f['bw_avg_MBps']} MB/s"


PARTS = TEST_NAMES


def count(a, ap):
    """Runs of one repetition; checks --matrix and --sizes."""
    if a.matrix not in MATRICES:
        ap.error(f"--matrix: one of {', '.join(MATRICES)}, not '{a.matrix}'")
    if (a.matrix == 'sizes') != (a.sizes is not None):
        ap.error('--sizes goes with --matrix sizes, and only with it')
    return runs_per_rep(matrix(a.matrix, a.sizes, a.tests, a.modes))


def run(a):
    points = matrix(a.matrix, a.sizes, a.tests, a.modes)
    logs = os.path.join(a.out, 'logs')
    os.makedirs(logs, exist_ok=True)
    with open('/proc/cmdline') as f:
        slub_debug = 'slub_debug' in f.read().split()
    tools = {'mpi': a.mpi_tool}
    missing = unavailable(points, tools)
    for fam, why in missing.items():
        print(f'bench: no {fam} points: {why}', flush=True)
    points = [p for p in points if family(p['test']) not in missing]
    raw = {'kernel': os.uname().release, 'started': time.strftime('%Y-%m-%d %H:%M:%S'),
           'slub_debug': slub_debug,
           'matrix': a.matrix, 'reps': a.reps,
           'order': 'paired' if a.paired else 'modes',
           'cpus': os.cpu_count(), **cpu_fields(), 'series': series_patches(),
           'modes': [{'name': m[0], 'driver': m[1], 'env': m[2], 'params': m[3],
                      'about': m[4]} for m in MODE_TABLE
                     if any(m[0] in modes_of(p) for p in points)],
           # What each mode was to measure: the report tells a point a mode
           # does not measure from one whose runs are missing.
           'points': [dict(p, modes=modes_of(p)) for p in points],
           'memcpy': [], 'runs': []}
    if a.sizes:
        raw['sizes'] = sorted(set(a.sizes))
    if a.tests:
        raw['tests'] = a.tests
    if a.modes:
        raw['chosen_modes'] = a.modes
    if missing:
        raw['skipped'] = [f'{fam}: {why}' for fam, why in missing.items()]

    def save():
        with open(os.path.join(a.out, 'raw.json.tmp'), 'w') as f:
            json.dump(raw, f, indent=1)
        os.replace(os.path.join(a.out, 'raw.json.tmp'), os.path.join(a.out, 'raw.json'))

    failed = 0
    current = None
    for rep in range(a.reps):
        raw['memcpy'] += [dict(m, rep=rep) for m in memcpy_reference(a.tool)]
        for mode, group in run_order(points, a.paired):
            if mode is not current:
                switch_mode(mode)
                current = mode
            i = points.index(group[0])
            prefix = os.path.join(logs, f'{mode[0]}-r{rep}-{i:02d}')
            recs = run_group(mode, group, prefix, a.matrix == 'short', tools)
            for pt, rec in zip(group, recs):
                rec['rep'] = rep
                raw['runs'].append(rec)
                label = f"{mode[0]:6} rep {rep} {pt['test']} {pt['size']} B x{pt['qps']}"
                if rec['ok']:
                    print(f"{label}: {figure_text(pt, rec['figures'])}", flush=True)
                else:
                    failed += 1
                    print(f"{label}: FAILED ({rec['error']})\n"
                          f"  server: {rec['server_tail'][-300:]!r}\n"
                          f"  client: {rec['client_tail'][-300:]!r}", flush=True)
            save()
    raw['ended'] = time.strftime('%Y-%m-%d %H:%M:%S')
    save()
    if failed:
        print(f'bench: {failed} run(s) failed', file=sys.stderr)
    return 1 if failed else 0

