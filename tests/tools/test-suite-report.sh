#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# suite_report.py counts a unittest log right and fails on unknown failures,
# errors and unfinished runs.
set -euo pipefail
report=$(cd "$(dirname "$0")/../.." && pwd)/tests/testbed/suite_report.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
printf '# known\ntest_resize_cq\n' >"$tmp/known"

log() {
	cat <<LOG
test_a (tests.test_x.X.test_a) ... ok
test_b (tests.test_x.X.test_b) ... skipped 'Device memory is not supported'
test_c (tests.test_x.X.test_c) ... skipped "Device rxe0 doesn't have net interface"
test_resize_cq (tests.test_cq.CQTest.test_resize_cq) ... FAIL
$1
======================================================================
FAIL: test_resize_cq (tests.test_cq.CQTest.test_resize_cq)
$2
----------------------------------------------------------------------
Ran 5 tests in 1.0s

$3
LOG
}

# expect WANT_RC WANT_TEXT LOG-ARGS...
expect() {
	local want=$1 text=$2 rc=0
	shift 2
	log "$@" >"$tmp/log"
	python3 "$report" "$tmp/log" "$tmp/known" >"$tmp/out" || rc=$?
	if [ "$rc" != "$want" ] || ! grep -qF "$text" "$tmp/out"; then
		echo "FAIL: rc $rc (want $want), output:"; cat "$tmp/out"
		failures=$((failures + 1))
	fi
}

expect 0 'ran 5, executed 3, passed 2, failed 1, errors 0, skipped 2' \
	'test_d (tests.test_x.X.test_d) ... ok' '' 'FAILED (failures=1, skipped=2)'
expect 1 '1 unexpected failures or errors' \
	'test_e (tests.test_x.X.test_e) ... ERROR' 'ERROR: test_e (tests.test_x.X.test_e)' \
	'FAILED (failures=1, errors=1, skipped=2)'
expect 0 'skipped   1: Device memory is not supported' '' '' 'FAILED (failures=1, skipped=2)'
expect 0 'test_resize_cq (known)' '' '' 'FAILED (failures=1, skipped=2)'
expect 1 'the log has no result' '' '' ''

[ $failures = 0 ] && echo "suite_report: all cases pass" || exit 1
