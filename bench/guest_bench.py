#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The benchmark matrix, run inside one testbed boot.

For each repetition, each mode in turn gets its driver loaded (the other one
unloaded) and runs every point of the matrix, so that drift of a noisy host
spreads over all modes alike. Every run is appended to OUT/raw.json as soon
as it ends: its figures, or why it failed. Exits 1 if any run failed.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAIR = os.path.join(TOP, 'tools', 'testbed-guest', 'pair.sh')
DEVICES = os.path.join(TOP, 'tools', 'testbed-guest', 'guest-devices.sh')

# name, driver, environment of the programs, rdma_xrxe module parameters,
# what it is. xrxe modes get the provider from the build tree
# (RDMAV_DRIVERS); each feature adds its modes here as it lands.
MODES = [
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
    ('xrxe-ll-always', 'xrxe', {'XRXE_LL_MODE': 'always'},
     {'engine_idle_us': 0, 'rx_inline': 1},
     'as xrxe-ll, low-latency posting in mode always (every lone qualifying '
     'post is a command)'),
]

LAT_PROGS = ('ib_write_lat', 'ib_send_lat', 'ib_read_lat')
BW_PROGS = ('ib_write_bw', 'ib_send_bw')
# Messages per bandwidth run, whatever the number of QPs (perftest's -n is
# per QP), so that a run lasts about two seconds under TCG and perftest's
# clock calibration is a small part of the measured phase.
BW_MESSAGES = {64: 20000, 4096: 8000, 65536: 600}
# Long enough that the CPU time of the measured phase spans many clock ticks.
LAT_ITERS = 3000


def point(prog, size, qps=1):
    kind = 'lat' if prog.endswith('_lat') else 'bw'
    # Latency runs send inline where the opcode carries a payload.
    inline = kind == 'lat' and prog != 'ib_read_lat'
    return {'test': prog, 'kind': kind, 'size': size, 'qps': qps,
            'inline': inline}


# The matrices: 'full' (the published one), 'short' (the demo's),
# 'small' (small messages only: the points doorbell-less send queues are
# measured by) and 'll' (the points low-latency posting is measured by).
MATRICES = ('full', 'short', 'small', 'll')


def matrix(name):
    if name == 'short':
        return [point('ib_write_lat', 2), point('ib_send_lat', 2),
                point('ib_write_bw', 64), point('ib_write_bw', 65536),
                point('ib_send_bw', 4096, 4)]
    if name == 'small':
        return [point('ib_write_lat', 2), point('ib_send_lat', 2)] + [
            point(p, 64, q) for p in BW_PROGS for q in (1, 4)]
    if name == 'll':
        return [point(p, s) for p in ('ib_send_lat', 'ib_write_lat')
                for s in (2, 64, 256)] + [point('ib_send_bw', 64)]
    return ([point(p, s) for p in LAT_PROGS for s in (2, 64, 256)] +
            [point(p, s, q) for p in BW_PROGS for s in (64, 4096, 65536)
             for q in (1, 4)])


def iterations(pt, short):
    if pt['kind'] == 'lat':
        n = LAT_ITERS
    else:
        n = BW_MESSAGES[pt['size']] // pt['qps']
    return max(n // 2 if short else n, 50)


def perftest_args(pt, n):
    args = f"-x 0 -s {pt['size']} -n {n}"
    if pt['inline']:
        args += f" -I {pt['size']}"
    if pt['qps'] > 1:
        args += f" -q {pt['qps']}"
    return args


def cpu_seconds():
    """Guest CPU time over all CPUs from /proc/stat: (user, kernel), kernel
    being system, irq and softirq time (where rxe's work runs)."""
    with open('/proc/stat') as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    user, nice, system, idle, iowait, irq, softirq = fields[:7]
    hz = os.sysconf('SC_CLK_TCK')
    return (user + nice) / hz, (system + irq + softirq) / hz


def measured_phase_cpu(proc, client_out, pt, n):
    """Guest CPU seconds (user, kernel) between the client printing its
    result header (perftest starts measuring right after it) and its result
    line, watched every 20 ms while proc runs; None if either was not seen.
    Setup and teardown stay outside; perftest's clock calibration before the
    result line (about 0.2 s of one CPU) is inside."""
    start = None
    while True:
        done = proc.poll() is not None
        text = read(client_out)
        if start is None and '#bytes' in text:
            start = cpu_seconds()
        if start is not None and parse_result(text, pt, n):
            end = cpu_seconds()
            return end[0] - start[0], end[1] - start[1]
        if done:
            return None
        time.sleep(0.02)


LAT_FIELDS = ('t_min_us', 't_max_us', 't_typical_us', 't_avg_us',
              't_stdev_us', 't_p99_us', 't_p999_us')
BW_FIELDS = ('bw_peak_MBps', 'bw_avg_MBps', 'msg_rate_Mpps')


def parse_result(text, pt, n):
    """The figures of perftest's result line: the one that starts with the
    message size and the iteration count of this run."""
    names = LAT_FIELDS if pt['kind'] == 'lat' else BW_FIELDS
    # Bandwidth tests count the iterations of all QPs together.
    counts = (str(n), str(n * pt['qps']))
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 2 + len(names) and f[0] == str(pt['size']) and f[1] in counts:
            try:
                vals = [float(x) for x in f[2:2 + len(names)]]
            except ValueError:
                return None
            # perftest prints inf or nan when its clock calibration failed.
            if not all(math.isfinite(v) for v in vals):
                return None
            return dict(zip(names, vals))
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
# wake-ups and busy-poll hits, low-latency commands with their fates, and
# received requests handled in the receive softirq.
COUNTERS = ('sent_pkts', 'send_rnr_err', 'rcvd_rnr_err', 'duplicate_request',
            'out_of_seq_request', 'rcvd_seq_err', 'completer_retry_err')
LL_DROP_REASONS = ('order', 'busy', 'full', 'state', 'forced')
XRXE_COUNTERS = ('xrxe_doorbells', 'xrxe_doorbells_avoided',
                 'xrxe_engine_wakeups', 'xrxe_busy_poll_hits',
                 'xrxe_ll_posts', 'xrxe_ll_accepted', 'xrxe_ll_rejected',
                 'xrxe_rx_inline_requests') + tuple(
                     f'xrxe_ll_dropped_{r}' for r in LL_DROP_REASONS)


def hw_counters(driver):
    names = COUNTERS + (XRXE_COUNTERS if driver == 'xrxe' else ())
    total = dict.fromkeys(names, 0)
    for dev in (f'{driver}0', f'{driver}1'):
        for c in names:
            with open(f'/sys/class/infiniband/{dev}/ports/1/hw_counters/{c}') as f:
                total[c] += int(f.read())
    return total


def run_point(mode, pt, prefix, short):
    name, driver, env_add, _, _ = mode
    n = iterations(pt, short)
    args = perftest_args(pt, n)
    server = f"{pt['test']} -d {driver}0 {args}"
    client = f"{pt['test']} -d {driver}1 {args} 127.0.0.1"
    env = dict(os.environ, **env_add)
    if driver == 'xrxe':
        env['RDMAV_DRIVERS'] = os.environ['XRXE_PROVIDER']
    else:
        env.pop('RDMAV_DRIVERS', None)
    before = hw_counters(driver)
    t0 = time.monotonic()
    proc = subprocess.Popen(['bash', '-c', '. "$0"; run_perftest "$1" "$2" "$3"',
                             PAIR, prefix, server, client], env=env)
    cpu = measured_phase_cpu(proc, prefix + '-client', pt, n)
    rc = proc.wait()
    wall = time.monotonic() - t0
    after = hw_counters(driver)
    rec = dict(pt, mode=name, iterations=n, server=server, client=client,
               wall_s=round(wall, 3), retries=read(prefix + '-retries').count('try'))
    # The whole run, connection setup and retries included.
    rec['counters'] = {c: after[c] - before[c] for c in after}
    figures = parse_result(read(prefix + '-client'), pt, n)
    if rc != 0 or figures is None:
        why = read(prefix + '-status').strip() or f'exit {rc}'
        tail = (read(prefix + '-server')[-600:], read(prefix + '-client')[-600:])
        rec.update(ok=False, error=f"{why}; no result line with finite figures" if figures is None
                   else why, server_tail=tail[0], client_tail=tail[1])
        return rec
    if cpu is None:
        rec.update(ok=False, error='the measured phase was not seen in the '
                   'client output', server_tail='', client_tail=read(prefix + '-client')[-600:])
        return rec
    messages = n * pt['qps']
    rec.update(ok=True, figures=figures, messages=messages,
               cpu_user_s=round(cpu[0], 3), cpu_kernel_s=round(cpu[1], 3),
               cpu_us_per_msg=round(sum(cpu) * 1e6 / messages, 3),
               kernel_cpu_us_per_msg=round(cpu[1] * 1e6 / messages, 3))
    return rec


def switch_mode(mode):
    """The mode's driver loaded, with its devices, and its module
    parameters set."""
    name, driver, _, params, _ = mode
    r = subprocess.run(['bash', '-c', '. "$0"; switch_driver "$1" || '
                        '{ echo "$DEVICES_ERROR"; exit 1; }', DEVICES, driver],
                       capture_output=True, text=True)
    if r.returncode:
        raise SystemExit(f'bench: cannot switch to {driver}: '
                         f'{(r.stdout + r.stderr).strip()}')
    for param, value in params.items():
        with open(f'/sys/module/rdma_{driver}/parameters/{param}', 'w') as f:
            f.write(str(value))


def series_patches():
    """How many patches of kernel-patch/series the module was built from."""
    with open(os.path.join(TOP, 'kernel-patch', 'series')) as f:
        return sum(1 for line in f if line.strip() and not line.startswith('#'))


def memcpy_reference(tool):
    out = subprocess.run([tool], capture_output=True, text=True, check=True).stdout
    return [{'size': int(m[1]), 'MBps': float(m[2])}
            for m in re.finditer(r'^memcpy (\d+) ([\d.]+)$', out, re.M)]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--out', required=True)
    ap.add_argument('--reps', type=int, default=3)
    ap.add_argument('--matrix', choices=MATRICES, default='full')
    ap.add_argument('--memcpy-tool', required=True)
    a = ap.parse_args()
    logs = os.path.join(a.out, 'logs')
    os.makedirs(logs, exist_ok=True)
    with open('/proc/cmdline') as f:
        slub_debug = 'slub_debug' in f.read().split()
    raw = {'kernel': os.uname().release, 'started': time.strftime('%Y-%m-%d %H:%M:%S'),
           'slub_debug': slub_debug,
           'matrix': a.matrix, 'reps': a.reps,
           'cpus': os.cpu_count(), 'series': series_patches(),
           'modes': [{'name': m[0], 'driver': m[1], 'env': m[2], 'params': m[3],
                      'about': m[4]} for m in MODES],
           'memcpy': [], 'runs': []}

    def save():
        with open(os.path.join(a.out, 'raw.json.tmp'), 'w') as f:
            json.dump(raw, f, indent=1)
        os.replace(os.path.join(a.out, 'raw.json.tmp'), os.path.join(a.out, 'raw.json'))

    points = matrix(a.matrix)
    failed = 0
    for rep in range(a.reps):
        raw['memcpy'] += [dict(m, rep=rep) for m in memcpy_reference(a.memcpy_tool)]
        for mode in MODES:
            switch_mode(mode)
            for i, pt in enumerate(points):
                prefix = os.path.join(logs, f'{mode[0]}-r{rep}-{i:02d}')
                rec = run_point(mode, pt, prefix, a.matrix == 'short')
                rec['rep'] = rep
                raw['runs'].append(rec)
                save()
                label = f"{mode[0]:6} rep {rep} {pt['test']} {pt['size']} B x{pt['qps']}"
                if rec['ok']:
                    f = rec['figures']
                    fig = (f"{f['t_typical_us']} us" if pt['kind'] == 'lat' else
                           f"{f['msg_rate_Mpps']} Mpps {f['bw_avg_MBps']} MB/s")
                    print(f'{label}: {fig}', flush=True)
                else:
                    failed += 1
                    print(f"{label}: FAILED ({rec['error']})\n"
                          f"  server: {rec['server_tail'][-300:]!r}\n"
                          f"  client: {rec['client_tail'][-300:]!r}", flush=True)
    raw['ended'] = time.strftime('%Y-%m-%d %H:%M:%S')
    save()
    if failed:
        print(f'bench: {failed} run(s) failed', file=sys.stderr)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
