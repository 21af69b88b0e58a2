#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# usage: pyverbs-tests.sh [UNITTEST-ARGS...]
# The project's pyverbs tests (tests/pyverbs/) on xrxe0 in the testbed.
. "$(dirname "$0")/lib.sh"
"$TESTBED" run --module xrxe "${GUEST_ENV[@]}" -- bash -c "
	cd '$TOP/tests/pyverbs' &&
	PYTHONDONTWRITEBYTECODE=1 python3 -m unittest -v $* 2>&1 | tee '$OUT/log'
	exit \${PIPESTATUS[0]}
"
