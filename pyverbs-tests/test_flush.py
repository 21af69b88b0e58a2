# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""RDMA FLUSH through xrxedv_wr_flush(), and flush domains: pyverbs has no
ibv_wr_flush() with this libibverbs, nor the xrxedv calls, so C programs
(tests/flush/) post the flushes and check the data, completions, counters
and errnos; this runs them in every mode of the pyverbs runs
(doorbell-less, classic, low-latency modes, OCU placements)."""
import os
import unittest

from xrxe_base import XrxeTestCase, run_test_tool


class Flush(unittest.TestCase):
    def test_flush_data_completions_and_errors(self):
        r = run_test_tool(self, 'xrxe-flush-test', XrxeTestCase.dev_name)
        self.assertIn('flush: all checks passed', r.stdout)

    def test_domain_flush_tag_after_records_and_errors(self):
        # The stress target asks for thousands of rounds. The program also
        # has two threads move one QP between two domains, for
        # XRXE_FDOM_RACE_SECS (default 5 s) in each doorbell-less mode.
        rounds = os.environ.get('XRXE_DOMAIN_FLUSH_ROUNDS', '100')
        r = run_test_tool(self, 'xrxe-domain-flush-test', XrxeTestCase.dev_name,
                          rounds, timeout=300 + int(rounds) // 10)
        self.assertIn('domain flush: all checks passed', r.stdout)
