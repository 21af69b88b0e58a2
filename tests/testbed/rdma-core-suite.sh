#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# usage: rdma-core-suite.sh MODULE
# rdma-core's own test suite (installed by python3-pyverbs) on MODULE's
# first device: no failure or error beyond the known ones of
# rdma-core-known-failures-MODULE.txt. Prints the counts.
. "$(dirname "$0")/lib.sh"
module=${1:?usage: rdma-core-suite.sh rxe|xrxe}

suite=$OUT/suite
mkdir -p "$suite"
cp -r /usr/share/doc/rdma-core/tests "$suite/"
find "$suite" -name '*.gz' -exec gunzip -f {} +

# xrxe devices on virtio NICs have a parent device, through which the suite
# finds their network interface and address: its rdmacm tests run.
link=veth
[ "$module" = xrxe ] && link=virtio
"$TESTBED" run --module "$module" --link $link --addrs "${GUEST_ENV[@]}" -- bash -c "
	# 2 MiB huge pages for the tests that ask for them.
	echo 16 >/proc/sys/vm/nr_hugepages
	cd '$suite' && PYTHONPATH='$suite' python3 tests/run_tests.py -v \
		--dev ${module}0 --port 1 --gid 0 >'$OUT/log' 2>&1
	echo \"suite exit status \$?\"
"
python3 "$TOP/tests/testbed/suite_report.py" "$OUT/log" \
	"$TOP/tests/testbed/rdma-core-known-failures-$module.txt"
