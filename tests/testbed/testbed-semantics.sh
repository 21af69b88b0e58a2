#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The testbed passes a command's exit status through, stops a command at
# --timeout, and fails a run whose guest kernel warns.
. "$(dirname "$0")/lib.sh"

mod=$OUT/warn-module
mkdir -p "$mod"
cp "$TOP/tests/testbed/warn-module"/* "$mod/"
make -s -C "$("$TOP/tools/xrxe-kernel" headers)" M="$mod" modules

expect_status 0 "$TESTBED" run --module rxe -- true
expect_status 7 "$TESTBED" run --module rxe -- bash -c 'exit 7'
expect_status 124 "$TESTBED" run --module rxe --timeout 3 -- sleep 60
expect_status 2 "$TESTBED" run --module nope -- true
expect_status 100 "$TESTBED" run --module rxe -- insmod "$mod/warn_selftest.ko"
