# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Sourced by the testbed tests: paths and small assertions.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TESTBED=$TOP/tools/xrxe-testbed
export XRXE_BUILD=${XRXE_BUILD:-$TOP/build}
# Files the guest writes must not be under /tmp (the guest's own tmpfs).
OUT=$XRXE_BUILD/testbed-out/$(basename "$0" .sh)${1:+-$1}${XRXE_DOORBELL_LESS:+-dbl$XRXE_DOORBELL_LESS}${XRXE_LL_MODE:+-ll-$XRXE_LL_MODE}${XRXE_OCU_MODE:+-ocu-$XRXE_OCU_MODE}
# XRXE_DOORBELL_LESS, XRXE_LL_MODE and XRXE_OCU_MODE from the caller reach
# the guest's programs: with XRXE_DOORBELL_LESS=0 every send queue is
# classic, to test xrxe with the feature off; XRXE_LL_MODE picks the
# low-latency mode, XRXE_OCU_MODE every QP's OCU mode.
GUEST_ENV=(${XRXE_DOORBELL_LESS:+--env XRXE_DOORBELL_LESS=$XRXE_DOORBELL_LESS}
	${XRXE_LL_MODE:+--env XRXE_LL_MODE=$XRXE_LL_MODE}
	${XRXE_OCU_MODE:+--env XRXE_OCU_MODE=$XRXE_OCU_MODE}
	${XRXE_DOMAIN_FLUSH_ROUNDS:+--env XRXE_DOMAIN_FLUSH_ROUNDS=$XRXE_DOMAIN_FLUSH_ROUNDS}
	${XRXE_FDOM_RACE_SECS:+--env XRXE_FDOM_RACE_SECS=$XRXE_FDOM_RACE_SECS})
rm -rf "$OUT"
mkdir -p "$OUT"

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# rdma_core_suite DIR: a copy of rdma-core's test suite (installed by
# python3-pyverbs, gzipped) in DIR/tests, for a guest to run.
rdma_core_suite() {
	mkdir -p "$1"
	cp -r /usr/share/doc/rdma-core/tests "$1/"
	find "$1" -name '*.gz' -exec gunzip -f {} +
}

# Guest-side libraries of the testbed, for a guest half to source:
# server/client program pairs (run_pair), and the devices (switch_driver).
PAIR_LIB=$TOP/tools/testbed-guest/pair.sh
DEVICES_LIB=$TOP/tools/testbed-guest/guest-devices.sh

# The command that runs this test's guest half in the testbed: the same
# script again, with --guest. Values reach it through xrxe-testbed's --env.
GUEST_HALF=(bash "$TOP/tests/testbed/$(basename "$0")" --guest)

# expect_status WANT COMMAND...: run COMMAND, fail unless it exits WANT.
expect_status() {
	local want=$1 rc=0
	shift
	"$@" || rc=$?
	[ "$rc" = "$want" ] || fail "'$*' exited $rc, expected $want"
	echo "ok: '$*' exited $rc as expected"
}
