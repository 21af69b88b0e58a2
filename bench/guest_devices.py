# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""What the guest halves of the benchmarks (ocu_guest.py, pace_guest.py,
coalesce_guest.py) share: the testbed's device functions, run from Python."""
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
