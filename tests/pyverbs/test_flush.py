# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""RDMA FLUSH through xrxedv_wr_flush(): pyverbs has no ibv_wr_flush() with
this libibverbs, so a C program (tests/flush/xrxe-flush-test.c) posts the
flushes and checks the data, completions and errnos; this runs it in every
mode of the pyverbs runs (doorbell-less, classic, low-latency modes)."""
import unittest

from xrxe_base import XrxeTestCase, run_test_tool


class Flush(unittest.TestCase):
    def test_flush_data_completions_and_errors(self):
        r = run_test_tool(self, 'xrxe-flush-test', XrxeTestCase.dev_name)
        self.assertIn('flush: all checks passed', r.stdout)
