#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stock rdma_rxe in the testbed: both devices exist, rdma-core's rxe provider
# opens them, and their ports are active on the veth ends.
. "$(dirname "$0")/lib.sh"

"$TESTBED" run --module rxe -- bash -c 'ibv_devinfo -d rxe0 && rdma link' | tee "$OUT/log"
grep -q 'hca_id:[[:space:]]*rxe0' "$OUT/log" || fail "ibv_devinfo did not show rxe0"
grep -q 'state:[[:space:]]*PORT_ACTIVE' "$OUT/log" || fail "rxe0 port is not active"
grep -q '^link rxe0/1 state ACTIVE .*netdev veth0' "$OUT/log" || fail "rxe0 not on veth0"
grep -q '^link rxe1/1 state ACTIVE .*netdev veth1' "$OUT/log" || fail "rxe1 not on veth1"
