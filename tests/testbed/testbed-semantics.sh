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

# A checkout (and a run directory) under /tmp works: the guest's init binds
# the entries of the host's /tmp the run needs into its own tmpfs, and no
# other entry of the host's /tmp shows there.
tmp_top=$(mktemp -d /tmp/xrxe-checkout.XXXXXX)
other=$(mktemp -d /tmp/xrxe-other.XXXXXX)
trap 'rm -rf "$tmp_top" "$other"' EXIT
cp -a "$TOP/tools" "$TOP/kernel-patch" "$tmp_top/"
echo "the checkout under /tmp" >"$tmp_top/marker"
# (A path COMMAND names is bound too: the other entry goes by --env.)
seen=$(XRXE_BUILD=$tmp_top/build XRXE_RUNDIR=$tmp_top/runs "$tmp_top/tools/xrxe-testbed" run \
	--module rxe --timeout 60 --env OTHER="$other" -- \
	bash -c 'cat "$1"; if [ -e "$OTHER" ]; then echo "$OTHER is visible"; fi' \
	_ "$tmp_top/marker") || fail "a run from a checkout under /tmp failed: $seen"
[ "$seen" = "the checkout under /tmp" ] ||
	fail "a run from a checkout under /tmp printed '$seen', not the marker alone"
echo "ok: a checkout and a run directory under /tmp are seen by the guest, other entries are not"
