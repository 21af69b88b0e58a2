# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Where the guest's CPUs went while a perftest point ran (--profile;
docs/benchmarks.md, Method, Profiles): perf samples every CPU (cpu-clock,
HZ a second, with call chains) while the client runs; each sample of the
measured phase counts for the stage of the innermost rxe function on its
stack and for the thread it interrupted. The stages' shares say what a
message costs where (what pipelining the stages across CPUs could take off
one CPU); the share spent spinning on contended spinlocks, by who took
them, says whether posts meet on a lock; the busiest kernel thread's CPUs
(an engine, a workqueue worker, a softirq thread) say whether one thread
serialises the stream (near 1: it is the limit, whatever the other CPUs
do; the program's own thread polls and is busy anyway)."""
import re
import subprocess

HZ = 999
# A sample's stage: the first of these met from the sampled function
# outwards (rxe's and rdma_xrxe's function names are the same). A
# responder or completer that runs nested in a requester's transmit (the
# peer device's receive softirq) counts as itself, not as the requester.
STAGES = (
    ('responder', ('rxe_receiver',)),
    ('completer', ('rxe_completer',)),
    ('receive', ('rxe_udp_encap_recv', 'rxe_rcv')),
    ('requester', ('rxe_requester',)),
    ('network', ('net_rx_action', '__dev_queue_xmit', 'ip_finish_output2',
                 'udp_queue_rcv_skb')),
    ('post', ('ib_uverbs_post_send', 'XRXE_METHOD_QP_LL_POST', 'xrxe_engine_ring')),
    ('poll', ('ib_uverbs_poll_cq', 'rxe_poll_cq')),
)
# Samples outside every stage: the program's own code (user space), its
# other system calls (a poll that yields the CPU, the entry and exit of
# every call), the idle loop and the rest of the kernel (scheduling, the
# threads' own loops).
PROGRAM, SYSCALL, IDLE, KERNEL = 'program', 'syscall', 'idle', 'kernel'
ORDER = tuple(s for s, _ in STAGES) + (PROGRAM, SYSCALL, KERNEL)
IDLE_LEAVES = ('pv_native_safe_halt', 'default_idle', 'cpuidle_enter', 'mwait_idle',
               'acpi_safe_halt', 'native_safe_halt')
# The threads, by kind; perf's own samples are what measuring cost. A
# worker the workqueue starts during the run keeps kthreadd's name in the
# samples.
KINDS = (('engine', r'xrxe_engine'), ('workqueue', r'kworker/|kthreadd$'),
         ('softirq', r'ksoftirqd/'), ('idle', r'swapper'), ('perf', r'perf$'))
# The threads that do rxe's deferred work: the busiest of them is named.
KERNEL_THREADS = ('engine', 'workqueue', 'softirq')
# A sample spinning on a contended spinlock: its innermost frame is the
# queued spinlock's slow path. The lock's site is the first frame outwards
# that is not a lock function (who took the lock).
LOCK_SLOWPATH = re.compile(r'(native_|__pv_|pv_)?queued_spin_lock_slowpath$')
LOCK_FUNCTION = re.compile(r'^(_raw_|__raw_|do_raw_)?(spin|read|write)_(try)?lock|'
                           r'queued_(spin|read|write)_lock_slowpath$|^lock_acquire$')


def record_command(data):
    """The prefix of a client command that samples the whole guest into
    data, with timestamps on time.monotonic()'s clock."""
    return f'perf record -q -a -g -F {HZ} -k CLOCK_MONOTONIC -o {data} --'


def stage(frames):
    """A sample's stage from its call chain, innermost first; user-space
    frames are marked with a leading '@'."""
    if not frames:
        return KERNEL
    if frames[0].split('+')[0] in IDLE_LEAVES:
        return IDLE
    for f in frames:
        name = f.split('+')[0]
        for st, names in STAGES:
            if any(name == n or name.endswith('_' + n) for n in names):
                return st
    if frames[0].startswith('@'):
        return PROGRAM
    return SYSCALL if frames[-1].startswith('@') else KERNEL


def thread_kind(comm, program):
    if comm == program:
        return PROGRAM
    for kind, pattern in KINDS:
        if re.match(pattern, comm):
            return kind
    return 'other'


def samples(text):
    """(time, cpu, comm, tid, frames) of each sample of `perf script -F
    comm,tid,cpu,time,ip,sym` output."""
    head, frames = None, []
    for line in text.splitlines() + ['']:
        if line.startswith('\t'):
            p = line.split()
            if len(p) >= 2:
                frames.append(p[1] if p[0].startswith('ffff') else '@' + p[1])
            continue
        if head:
            yield head + (frames,)
        head, frames = None, []
        m = re.match(r'\s*(.+?)\s+(\d+)\s+\[(\d+)\]\s+([\d.]+):', line)
        if m:
            head = (float(m[4]), int(m[3]), m[1], int(m[2]))


def lock_site(frames):
    """Who waits for a contended spinlock in this sample's call chain; None
    when it spins on none."""
    if not frames or not LOCK_SLOWPATH.search(frames[0].split('+')[0]):
        return None
    for f in frames[1:]:
        name = f.split('+')[0]
        if not LOCK_FUNCTION.search(name):
            return name
    return '?'


def summarise(text, window, program, cpus):
    """The profile of the samples in window (t0, t1): the stages' shares of
    the busy samples (perf's own excepted), the share spent spinning on
    contended spinlocks and its three largest sites, CPUs used by each kind
    of thread (perf's own among them) and by the busiest kernel thread."""
    t0, t1 = window
    by_stage, by_kind, by_thread, by_site = {}, {}, {}, {}
    busy = 0
    for t, _, comm, tid, frames in samples(text):
        if not t0 <= t <= t1:
            continue
        kind = thread_kind(comm, program)
        st = stage(frames)
        if st == IDLE or kind == IDLE:
            continue
        by_kind[kind] = by_kind.get(kind, 0) + 1
        if kind == 'perf':
            continue
        busy += 1
        by_stage[st] = by_stage.get(st, 0) + 1
        site = lock_site(frames)
        if site:
            by_site[site] = by_site.get(site, 0) + 1
        if kind in KERNEL_THREADS:
            by_thread[(comm, tid)] = by_thread.get((comm, tid), 0) + 1
    span = max(t1 - t0, 1e-9) * HZ
    top = max(by_thread.items(), key=lambda kv: kv[1], default=(('', 0), 0))
    return {'hz': HZ, 'window_s': round(t1 - t0, 3), 'cpus': cpus,
            'busy_samples': busy, 'cpus_busy': round(busy / span, 3),
            'stages': {s: round(by_stage.get(s, 0) / max(busy, 1), 3) for s in ORDER},
            'lock_wait': round(sum(by_site.values()) / max(busy, 1), 3),
            'lock_sites': {k: round(n / max(busy, 1), 3) for k, n in
                           sorted(by_site.items(), key=lambda kv: -kv[1])[:3]},
            'threads': {k: round(n / span, 3) for k, n in sorted(by_kind.items())},
            'busiest_kernel_thread': {'name': top[0][0], 'cpus': round(top[1] / span, 3)}}


def read(data, window, program, cpus):
    """summarise() of a perf.data file; None with why if perf could not
    read it."""
    res = subprocess.run(['perf', 'script', '-F', 'comm,tid,cpu,time,ip,sym', '-i', data],
                         capture_output=True, text=True, timeout=600)
    if res.returncode:
        return None, f'perf script: {res.stderr.strip()[-300:]}'
    return summarise(res.stdout, window, program, cpus), None
