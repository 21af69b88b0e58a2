#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# usage: pyverbs-tests.sh [UNITTEST-ARGS...]
# The project's pyverbs tests (pyverbs-tests/) on xrxe0 in the testbed.

if [ "${1:-}" != --guest ]; then
	. "$(dirname "$0")/lib.sh"
	"$TESTBED" run --module xrxe "${GUEST_ENV[@]}" \
		--env PYVERBS_DIR="$TOP/pyverbs-tests" --env PYVERBS_OUT="$OUT" \
		--env XRXE_TEST_TOOLS="$XRXE_BUILD/tests" \
		-- "${GUEST_HALF[@]}" "$@"
	exit
fi

# ---- In the guest ----
# The arguments after --guest go to unittest.
shift
cd "$PYVERBS_DIR" &&
	PYTHONDONTWRITEBYTECODE=1 python3 -m unittest -v "$@" 2>&1 | tee "$PYVERBS_OUT/log"
exit "${PIPESTATUS[0]}"
