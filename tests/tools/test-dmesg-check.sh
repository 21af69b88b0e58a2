#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# dmesg-check finds each kind of kernel complaint after the marker, and only
# after it.
set -euo pipefail
check=$(cd "$(dirname "$0")/../.." && pwd)/tools/lib/dmesg-check
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
marker='xrxe-testbed: rdma stack setup'

# expect WANT LINE: a log with LINE after the marker exits WANT (0 clean, 1 problem).
expect() {
	local want=$1 line=$2 rc=0
	printf '[    1.0] booting\n[    2.0] %s\n[    3.0] rdma_rxe: loaded\n[    4.0] %s\n' \
		"$marker" "$line" >"$tmp/log"
	"$check" "$tmp/log" >/dev/null || rc=$?
	if [ "$rc" != "$want" ]; then
		echo "FAIL: exit $rc (want $want) for: $line"
		failures=$((failures + 1))
	fi
}

expect 1 'WARNING: CPU: 1 PID: 372 at drivers/infiniband/sw/rxe/rxe_qp.c:12 rxe_qp_do_cleanup+0x1c/0x60 [rdma_xrxe]'
expect 1 'BUG: kernel NULL pointer dereference, address: 0000000000000008'
expect 1 'BUG kmalloc-128 (Tainted: G        W  OE     ): Poison overwritten'
expect 1 'Oops: general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1] PREEMPT SMP NOPTI'
expect 1 'refcount_t: underflow; use-after-free.'
expect 1 'list_del corruption, ffff888005c1a0c8->next is LIST_POISON1 (dead000000000100)'
expect 1 'list_add corruption. prev->next should be next (ffff8880), but was 0000000000000000.'
expect 1 'INFO: task kworker/u4:1:57 blocked for more than 60 seconds.'
# Kernels that print a general protection fault without the Oops prefix
# (a use of slub-poisoned memory), and a namespace teardown stuck in D state.
expect 1 'general protection fault, probably for non-canonical address 0x6b6b6b6b6b6b6c5b: 0000 [#1] PREEMPT SMP NOPTI'
expect 1 'INFO: task kworker/u8:2:112 blocked for more than 30 seconds.'
expect 1 'watchdog: BUG: soft lockup - CPU#0 stuck for 63s! [ib_send_bw:401]'
expect 1 'Kernel panic - not syncing: Fatal exception'
expect 1 'kernel BUG at drivers/infiniband/sw/rxe/rxe_task.c:100!'
expect 0 'infiniband xrxe0: added veth0'
expect 0 'rdma_xrxe: loading out-of-tree module taints kernel.'
expect 0 'DEBUGFS: debug_level=3'
expect 0 'veth0: BUGGY_NAME link up'

# A complaint before the marker (the boot) does not count.
printf '[1.0] WARNING: CPU: 0 PID: 1 at boot\n[2.0] %s\n[3.0] fine\n' "$marker" >"$tmp/log"
if ! "$check" "$tmp/log" >/dev/null; then
	echo "FAIL: a warning before the marker was counted"
	failures=$((failures + 1))
fi
# Without a marker the whole log counts.
printf '[1.0] WARNING: CPU: 0 PID: 1 at boot\n' >"$tmp/log"
if "$check" "$tmp/log" >/dev/null; then
	echo "FAIL: a warning in a log without marker was missed"
	failures=$((failures + 1))
fi
# With an end marker only the lines between the two count: a session's
# command is judged by its own part of the log.
printf '[1.0] %s\n[2.0] cmd 1 starts\n[3.0] fine\n[4.0] cmd 1 ended\n[5.0] WARNING: CPU: 0 PID: 9 later\n' \
	"$marker" >"$tmp/log"
if ! "$check" "$tmp/log" 'cmd 1 starts' 'cmd 1 ended' >/dev/null; then
	echo "FAIL: a warning after the end marker was counted"
	failures=$((failures + 1))
fi
if "$check" "$tmp/log" 'cmd 1 starts' >/dev/null; then
	echo "FAIL: a warning after the marker was missed without an end marker"
	failures=$((failures + 1))
fi
printf '[1.0] cmd 2 starts\n[2.0] BUG: kernel NULL pointer dereference\n[3.0] cmd 2 ended\n' >"$tmp/log"
if "$check" "$tmp/log" 'cmd 2 starts' 'cmd 2 ended' >/dev/null; then
	echo "FAIL: a BUG between the markers was missed"
	failures=$((failures + 1))
fi
# A log that cannot be read, or a host without awk, must not pass.
rc=0
"$check" "$tmp/no-such-log" >/dev/null 2>&1 || rc=$?
if [ $rc != 2 ]; then
	echo "FAIL: a missing log exited $rc, not 2"
	failures=$((failures + 1))
fi
printf '[1.0] fine\n' >"$tmp/log"
mkdir -p "$tmp/no-awk"
for t in bash grep cat; do
	ln -sf "$(command -v $t)" "$tmp/no-awk/$t"
done
rc=0
PATH=$tmp/no-awk "$check" "$tmp/log" >/dev/null 2>&1 || rc=$?
if [ $rc != 2 ]; then
	echo "FAIL: without awk the check exited $rc, not 2"
	failures=$((failures + 1))
fi

[ $failures = 0 ] && echo "dmesg-check: all cases pass" || exit 1
