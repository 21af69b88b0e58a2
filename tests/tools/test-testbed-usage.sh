#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The usage of xrxe-testbed and xrxe-kernel: --help prints it and exits 0,
# a usage error exits 2, and neither boots, fetches or asks the package
# sources anything (the cache is an empty scratch directory).
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/tools/lib.sh"
unset XRXE_TESTBED_CPUS XRXE_TESTBED_SESSION
export XRXE_CACHE=$scratch/cache

# expect WANT WHAT COMMAND...: COMMAND exits WANT; its output in $scratch/out.
expect() {
	local want=$1 what=$2 rc=0
	shift 2
	timeout 30 "$@" >"$scratch/out" 2>&1 </dev/null || rc=$?
	[ "$rc" = "$want" ] || fail "$what: exit $rc (want $want): $(head -3 "$scratch/out")"
}

testbed=$src/tools/xrxe-testbed
expect 0 "testbed --help" "$testbed" --help
grep -q '^usage: xrxe-testbed run' "$scratch/out" || fail "testbed --help prints no usage"
grep -q 'default: \$XRXE_TESTBED_CPUS, else 2' "$scratch/out" ||
	fail "testbed --help does not name XRXE_TESTBED_CPUS"
grep -q 'or a release (6.12' "$scratch/out" || fail "testbed --help does not tell of --kernel's releases"
expect 0 "testbed run --help" "$testbed" run --help
grep -q '^usage: xrxe-testbed run' "$scratch/out" || fail "testbed run --help prints no usage"
expect 2 "testbed without arguments" "$testbed"
grep -q '^usage: xrxe-testbed run' "$scratch/out" || fail "testbed without arguments prints no usage"
expect 2 "testbed --bogus" "$testbed" --bogus
expect 2 "testbed run --bogus" "$testbed" run --bogus -- true
expect 2 "testbed run without a command" "$testbed" run --module rxe
expect 2 "testbed run --module bogus" "$testbed" run --module bogus -- true
expect 0 "testbed session --help" "$testbed" session --help
expect 0 "testbed bundle --help" "$testbed" bundle --help

kernel=$src/tools/xrxe-kernel
expect 0 "kernel --help" "$kernel" --help
grep -q 'make \[--kernel VERSION\] -- MAKE-ARG' "$scratch/out" || fail "kernel --help does not show make"
expect 0 "kernel fetch --help" "$kernel" fetch --help
expect 2 "kernel without arguments" "$kernel"
expect 2 "kernel bogus" "$kernel" bogus
expect 2 "kernel fetch --bogus" "$kernel" fetch --bogus
expect 2 "kernel resolve --kernel latest" "$kernel" resolve --kernel latest
grep -q 'nor a release' "$scratch/out" || fail "kernel resolve does not say what --kernel takes"
expect 2 "kernel make without --" "$kernel" make --kernel 7.3
expect 2 "kernel fetch --" "$kernel" fetch -- x
# The pinned kernel, cached, resolves without the package sources.
pinned=$(tr -d ' \n' <"$src/kernel-patch/KERNEL_VERSION")
mkdir -p "$XRXE_CACHE/kernel/$pinned"
touch "$XRXE_CACHE/kernel/$pinned/.complete"
expect 0 "kernel resolve" "$kernel" resolve
[ "$(cat "$scratch/out")" = "$pinned" ] || fail "kernel resolve printed '$(cat "$scratch/out")', not $pinned"
[ ! -e "$XRXE_CACHE/apt" ] || fail "a usage case read the package sources"

[ $failures = 0 ] && echo "testbed and kernel usage: all cases pass" || exit 1
