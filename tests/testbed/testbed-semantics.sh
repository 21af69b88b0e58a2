#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The testbed passes a command's exit status through, stops a command at
# --timeout, and fails a run whose guest kernel warns; in a guest of its
# own and in a session's.
. "$(dirname "$0")/lib.sh"

mod=$OUT/warn-module
mkdir -p "$mod"
cp "$TOP/tests/testbed/warn-module"/* "$mod/"
# For the kernel the runs below boot (XRXE_TESTBED_KERNEL, else the default).
"$TOP/tools/xrxe-kernel" make ${XRXE_TESTBED_KERNEL:+--kernel "$XRXE_TESTBED_KERNEL"} \
	-- -s M="$mod" modules

# (Exit 100 through a guest of its own: the run from /tmp below; exit 7:
# the run beside the session; exit 0: every other test.)
expect_status 124 "$TESTBED" run --module rxe --timeout 3 -- sleep 60
expect_status 2 "$TESTBED" run --module nope -- true
expect_status 2 env XRXE_TESTBED_CPUS=two "$TESTBED" run --module rxe -- true

# A checkout (and a run directory) under /tmp works: the guest's init binds
# the entries of the host's /tmp the run needs into its own tmpfs, and no
# other entry of the host's /tmp shows there. The same run loads a module
# that warns: a command that succeeds in a guest whose kernel warned
# exits 100, with its output printed all the same.
tmp_top=$(mktemp -d /tmp/xrxe-checkout.XXXXXX)
other=$(mktemp -d /tmp/xrxe-other.XXXXXX)
# A script that is a file of /tmp itself, named in COMMAND, is that file
# in the guest too.
script=$(mktemp /tmp/xrxe-script.XXXXXX)
trap 'rm -rf "$tmp_top" "$other" "$script"' EXIT
cp -a "$TOP/tools" "$TOP/kernel-patch" "$tmp_top/"
echo "the checkout under /tmp" >"$tmp_top/marker"
echo 'cat "$1"; if [ -e "$OTHER" ]; then echo "$OTHER is visible"; fi; insmod "$2"' >"$script"
# (A path COMMAND names is bound too: the other entry goes by --env.)
rc=0
seen=$(XRXE_BUILD=$tmp_top/build XRXE_RUNDIR=$tmp_top/runs "$tmp_top/tools/xrxe-testbed" run \
	--module rxe --timeout 60 --env OTHER="$other" -- \
	bash "$script" "$tmp_top/marker" "$mod/warn_selftest.ko") || rc=$?
[ "$rc" = 100 ] || fail "a run whose guest warned exited $rc, not 100: $seen"
[ "$seen" = "the checkout under /tmp" ] ||
	fail "a run from a checkout under /tmp printed '$seen', not the marker alone"
echo "ok: a checkout, a run directory and a script file under /tmp are seen by the guest, other entries are not"
echo "ok: a command that succeeded in a guest whose kernel warned exited 100"

# A session: one guest, the commands of several runs, each with the exit
# status and the dmesg verdict a guest of its own gives, each with its
# devices as the boot made them, whatever the command before did.
session=$OUT/session
expect_status 0 "$TESTBED" session start "$session" --module rxe
in_session() {
	XRXE_TESTBED_SESSION=$session "$TESTBED" run "$@"
}
expect_status 7 in_session --module rxe -- bash -c 'exit 7'
expect_status 124 in_session --module rxe --timeout 3 -- sleep 60
expect_status 0 in_session --module rxe -- bash -c 'rdma link delete rxe1; sleep 600 &'
seen=$(in_session --module rxe -- bash -c 'rdma link show rxe1/1 | grep -o "state ACTIVE"; pgrep -c -x sleep || true')
[ "$seen" = "$(printf 'state ACTIVE\n0')" ] ||
	fail "the command after one that deleted rxe1 and left a sleep running saw '$seen'"
echo "ok: a session's command finds its devices afresh and nothing the command before left running"
expect_status 100 in_session --module rxe -- insmod "$mod/warn_selftest.ko"
expect_status 0 in_session --module rxe -- true
# Booted otherwise (addresses): a guest of its own, which passes the
# command's status through.
expect_status 7 in_session --module rxe --addrs -- \
	bash -c 'ip -o addr show veth0 | grep -q 192.0.2.1/24 && exit 7'
[ "$(ls "$session/cmds" | wc -l)" = 6 ] || fail "the session ran $(ls "$session/cmds" | wc -l) commands, not 6"
echo "ok: a run booted otherwise than the session boots a guest of its own"
# The warning was the command's own: the session itself ends clean.
expect_status 0 "$TESTBED" session stop "$session"
expect_status 2 "$TESTBED" session stop "$OUT/no-session"
