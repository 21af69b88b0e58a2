#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# usage: rdma-core-suite.sh MODULE
# rdma-core's own test suite (installed by python3-pyverbs) on MODULE's
# first device: no failure or error beyond the known ones of
# rdma-core-known-failures-MODULE.txt. Prints the counts.

if [ "${1:-}" != --guest ]; then
	. "$(dirname "$0")/lib.sh"
	module=${1:?usage: rdma-core-suite.sh rxe|xrxe}

	suite=$OUT/suite
	rdma_core_suite "$suite"

	# xrxe devices on virtio NICs have a parent device, through which the
	# suite finds their network interface and address: its rdmacm tests run.
	link=veth
	[ "$module" = xrxe ] && link=virtio
	"$TESTBED" run --module "$module" --link $link --addrs "${GUEST_ENV[@]}" \
		--env SUITE_DIR="$suite" --env SUITE_MODULE="$module" --env SUITE_OUT="$OUT" \
		-- "${GUEST_HALF[@]}"
	python3 "$TOP/tests/testbed/suite_report.py" "$OUT/log" \
		"$TOP/tests/testbed/rdma-core-known-failures-$module.txt"
	exit
fi

# ---- In the guest ----
# No set -e: the suite's exit status is printed, and the host side judges
# its log.
# 2 MiB huge pages for the tests that ask for them.
echo 16 >/proc/sys/vm/nr_hugepages
cd "$SUITE_DIR" && PYTHONPATH="$SUITE_DIR" python3 tests/run_tests.py -v \
	--dev "${SUITE_MODULE}0" --port 1 --gid 0 >"$SUITE_OUT/log" 2>&1
echo "suite exit status $?"
