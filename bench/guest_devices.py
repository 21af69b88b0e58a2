# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""What the guest halves of the benchmarks (guest_bench.py, ocu_guest.py,
pace_guest.py, coalesce_guest.py) share: the testbed's device functions,
run from Python, and the CPUs a record was measured on."""
import os
import subprocess
import sys

DEVICES_LIB = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           'tools', 'testbed-guest', 'guest-devices.sh')


def driver(*steps):
    """Run guest-devices.sh functions, e.g. ('switch_driver rxe',); exit
    with what they said if one fails."""
    script = (f'. {DEVICES_LIB} && ' + ' && '.join(steps) +
              ' || { echo "$DEVICES_ERROR"; exit 1; }')
    res = subprocess.run(['bash', '-c', script], capture_output=True, text=True,
                         timeout=300)
    if res.returncode:
        sys.exit(f'{"; ".join(steps)}: {res.stdout.strip()} {res.stderr.strip()}')


def cpu_fields():
    """The guest's vCPUs and the host's cores (XRXE_HOST_CORES, which the
    launcher passes in; None without it), for every record: a timing from
    more vCPUs than host cores measures the host."""
    host = os.environ.get('XRXE_HOST_CORES')
    return {'vcpus': os.cpu_count(), 'host_cores': int(host) if host else None}
