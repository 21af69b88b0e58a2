#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The guest side of bench/xrxe-bench: one workload, on rdma_xrxe and on
stock rdma_rxe, in one testbed boot. The workloads are the entries of
WORKLOADS, each a module of bench/ whose docstring says what it measures
(--describe prints them) and which has MODES (what --modes may name: the
configurations it compares), PARTS (what --tests may name), NEEDS (those
of its modes and parts that its report cannot do without, if any),
plan(a, rep) (the runs of a repetition, in order) or count(a, ap) (how
many a repetition has; it may refuse the options with ap.error), and
run(a) (the runs, their records into --out; returns the exit status).
What they share is here: the options, the driver switches (through
tools/testbed-guest/guest-devices.sh), module parameters, the records
with the CPUs they were measured on, and the programs' runs with their
time limits and failures.
"""
import argparse
import importlib
import json
import os
import subprocess
import sys
import textwrap
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEVICES = os.path.join(TOP, 'tools', 'testbed-guest', 'guest-devices.sh')
WORKLOADS = ('perftest', 'pace', 'ocu', 'coalesce')


def driver(*steps):
    """Run guest-devices.sh functions, e.g. ('switch_driver rxe',); exit
    with what they said if one fails."""
    script = (f'. {DEVICES} && ' + ' && '.join(steps) +
              ' || { echo "$DEVICES_ERROR"; exit 1; }')
    res = subprocess.run(['bash', '-c', script], capture_output=True, text=True,
                         timeout=300)
    if res.returncode:
        sys.exit(f'{"; ".join(steps)}: {res.stdout.strip()} {res.stderr.strip()}')


class Loaded:
    """The driver loaded now (name: the one the run switched to first);
    use() switches only when a run needs the other one."""

    def __init__(self, name):
        self.name = name

    def use(self, name):
        if name != self.name:
            driver(f'switch_driver {name}')
            self.name = name


def param_path(name, drv='xrxe'):
    return f'/sys/module/rdma_{drv}/parameters/{name}'


def get_param(name):
    with open(param_path(name)) as f:
        return f.read().strip()


def set_param(name, value, drv='xrxe'):
    with open(param_path(name, drv), 'w') as f:
        f.write(f'{value}\n')


def cpu_fields():
    """The guest's vCPUs and the host's cores (XRXE_HOST_CORES, which the
    launcher passes in; None without it), for every record: a timing from
    more vCPUs than host cores measures the host."""
    host = os.environ.get('XRXE_HOST_CORES')
    return {'vcpus': os.cpu_count(), 'host_cores': int(host) if host else None}


def turn(seq, rep):
    """seq rotated by rep: each goes first in its turn."""
    k = rep % len(seq)
    return list(seq[k:]) + list(seq[:k])


class Records:
    """OUT/NAME, one JSON line a run (with cpu_fields), written as each run
    ends; run() runs a workload's program, which prints its figures as one
    JSON object."""

    def __init__(self, out, name, fatal=True, timed=False):
        self.path = os.path.join(out, name)
        self.file = None
        self.fatal = fatal
        self.timed = timed
        self.failed = 0

    def write(self, rec):
        if not self.file:
            self.file = open(self.path, 'w')
        self.file.write(json.dumps(dict(rec, **cpu_fields())) + '\n')
        self.file.flush()

    def run(self, cmd, timeout=120, env=None, record=True, **fields):
        """The program's record with fields (and its run_s, timed), written
        unless not record; a failure ends the sweep (fatal) or is written as
        a run of mode 'failed' (and None returned)."""
        cmd = [str(c) for c in cmd]
        t0 = time.monotonic()
        try:
            res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
            err = f'exit {res.returncode}: {res.stderr.strip()[-2000:]}' if res.returncode else None
        except subprocess.TimeoutExpired:
            err = f'no result after {timeout} s'
        if not err:
            try:
                rec = dict(json.loads(res.stdout), **fields)
            except ValueError:
                err = f'no JSON on stdout: {res.stdout.strip()[-2000:]}'
        if err and self.fatal:
            sys.exit(f'{" ".join(cmd)}: {err}')
        if err:
            self.failed += 1
            rec = dict({'mode': 'failed', 'command': ' '.join(cmd), 'error': err}, **fields)
            print(f'FAILED: {rec["command"]}: {err}', flush=True)
        if self.timed:
            rec['run_s'] = round(time.monotonic() - t0, 1)
        if record or err:
            self.write(rec)
        return None if err else rec


def name_list(text, known, what):
    """The comma-separated names of text, each one of known (what: the
    option, for the error)."""
    names = list(dict.fromkeys(x for x in text.split(',') if x))
    bad = [n for n in names if n not in known]
    if not names or bad:
        raise argparse.ArgumentTypeError(f"{what}: unknown {', '.join(bad) or repr(text)}; "
                                         f"known: {', '.join(known)}")
    return names


def size_list(text):
    try:
        sizes = [int(x) for x in text.split(',') if x.strip()]
    except ValueError:
        sizes = []
    if not sizes or any(s < 1 or s > 1 << 30 for s in sizes):
        raise argparse.ArgumentTypeError(f"'{text}' is not a list of sizes in bytes "
                                         '(1 B to 1 GiB, comma-separated)')
    return sizes


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--workload', choices=WORKLOADS, default='perftest')
    ap.add_argument('--out')
    ap.add_argument('--reps', type=int, default=3)
    ap.add_argument('--short', action='store_true', help='a quick look, one repetition')
    ap.add_argument('--modes', help="only these of the workload's modes (comma-separated)")
    ap.add_argument('--tests', help="only these of the workload's parts (perftest: programs)")
    ap.add_argument('--paired', action='store_true',
                    help="a point's modes back to back (perftest; the others always run so)")
    ap.add_argument('--tool', help="the workload's program (perftest: xrxe-memcpy-bw)")
    ap.add_argument('--matrix', default='full', help='perftest: full, short, small, ll or sizes')
    ap.add_argument('--sizes', type=size_list, help='perftest: the sizes of --matrix sizes')
    ap.add_argument('--mpi-tool', help='perftest: the MPI ping-pong (bench/mpi-pingpong.c)')
    ap.add_argument('--tcp-tool', help='perftest: the TCP reference (bench/tcp-bw.c; default: '
                    'xrxe-tcp-bw beside --tool)')
    ap.add_argument('--profile', action='store_true',
                    help="perftest: where the CPUs went in each perftest point's measured "
                    'phase (bench/cpu_profile.py; needs perf)')
    ap.add_argument('--check', action='store_true',
                    help='check the options, print the runs of one repetition and exit')
    ap.add_argument('--describe', action='store_true', help="print each workload's docstring")
    a = ap.parse_args()
    if a.describe:
        for name in WORKLOADS:
            doc = textwrap.indent(importlib.import_module(name).__doc__.strip(), '  ')
            print(f'{name} (bench/{name}.py)\n{doc}\n')
        return 0
    w = importlib.import_module(a.workload)
    try:
        a.modes = a.modes and name_list(a.modes, w.MODES, f'--modes of {a.workload}')
        a.tests = a.tests and name_list(a.tests, w.PARTS, f'--tests of {a.workload}')
    except argparse.ArgumentTypeError as e:
        ap.error(str(e))
    dropped = set(w.MODES) - set(a.modes or w.MODES) | set(w.PARTS) - set(a.tests or w.PARTS)
    lacks = [n for n in getattr(w, 'NEEDS', ()) if n in dropped]
    if lacks:
        ap.error(f"--modes and --tests of {a.workload}: its report needs {', '.join(lacks)}")
    if a.short:
        a.reps = 1
    runs = w.count(a, ap) if hasattr(w, 'count') else len(w.plan(a, 0))
    if a.check:
        print(runs)
        return 0
    if not a.out or not a.tool:
        ap.error('--out and --tool are needed')
    if not runs:
        ap.error('no run is left of those --modes and --tests')
    return w.run(a)


if __name__ == '__main__':
    # The workloads import this module by its name: the one already loaded.
    sys.modules['guest'] = sys.modules[__name__]
    sys.exit(main())
