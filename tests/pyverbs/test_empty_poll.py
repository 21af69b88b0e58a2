# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""What a poll of an empty CQ does with the CPU (XRXE_EMPTY_POLL). Counting
the provider's sched_yield() calls takes a C program that defines its own
(tests/cq/xrxe-poll-test.c); this runs it in every mode of the pyverbs
runs."""
import os
import subprocess
import unittest

from xrxe_base import XrxeTestCase


class EmptyPoll(unittest.TestCase):
    def test_an_empty_poll_yields_unless_the_process_asks_to_spin(self):
        tool = os.path.join(os.environ['XRXE_TEST_TOOLS'], 'xrxe-poll-test')
        r = subprocess.run([tool, XrxeTestCase.dev_name], capture_output=True,
                           text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn('empty polls: all checks passed', r.stdout)
        # The unknown value is named, with the choices and the one taken.
        self.assertIn("XRXE_EMPTY_POLL='sometimes' is not one of yield spin; "
                      "using yield", r.stderr)
