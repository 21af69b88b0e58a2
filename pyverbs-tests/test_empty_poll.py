# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""What a poll of an empty CQ does with the CPU (XRXE_EMPTY_POLL). Counting
the provider's sched_yield() calls takes a C program that defines its own
(tests/cq/xrxe-poll-test.c); this runs it in every mode of the pyverbs
runs."""
import unittest

from xrxe_base import XrxeTestCase, run_test_tool


class EmptyPoll(unittest.TestCase):
    def test_an_empty_poll_yields_unless_the_process_asks_to_spin(self):
        r = run_test_tool(self, 'xrxe-poll-test', XrxeTestCase.dev_name)
        self.assertIn('empty polls: all checks passed', r.stdout)
        # The unknown value is named, with the choices and the one taken.
        self.assertIn("XRXE_EMPTY_POLL='sometimes' is not one of yield spin; "
                      "using yield", r.stderr)
