#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The testbed that travels (docs/testbed.md): 'xrxe-testbed bundle' packs a
# bundle within its size limit; its runner refuses at once a host it cannot
# use; and with the host's qemu, rdma-core, kernel cache and built module
# hidden by empty mounts, the bundle alone boots the testbed and runs a
# benchmark point on stock rxe and on xrxe's devices, profiled with the
# bundle's perf, whose raw.json and table.md compare them and say where the
# CPUs went.
. "$(dirname "$0")/lib.sh"
bundle=$OUT/bundle
"$TESTBED" bundle "$bundle"
mib=$(du -cm "$bundle"/* | tail -1 | cut -f1)
[ "$mib" -le 60 ] || fail "the bundle takes $mib MiB, more than 60"
echo "ok: the bundle takes $mib MiB"

# A benchmark script importing a module the bundle cannot carry fails the
# bundle, rather than leaving its python without a standard library.
bad_top=$OUT/bad-top
mkdir -p "$bad_top"
cp -a "$TOP/tools" "$TOP/bench" "$TOP/kernel-patch" "$TOP/kernel-headers" "$bad_top/"
echo 'import no_such_module_anywhere' >"$bad_top/bench/bad_import.py"
rc=0
out=$("$bad_top/tools/xrxe-testbed" bundle "$OUT/bad-bundle" 2>&1) || rc=$?
[ "$rc" = 2 ] && grep -q 'no_such_module_anywhere' <<<"$out" && [ ! -e "$OUT/bad-bundle/xrxe-root.tar.xz" ] ||
	fail "a bundle whose scripts import a missing module exited $rc: $out"
echo "ok: a script's missing import fails the bundle"

# refused RC MESSAGE COMMAND...: COMMAND exits RC (2) at once, saying MESSAGE.
refused() {
	local msg=$1 rc=0 out start
	shift
	start=$(date +%s)
	out=$("$@" 2>&1) || rc=$?
	[ "$rc" = 2 ] || fail "'$*' exited $rc, not 2: $out"
	grep -q -- "$msg" <<<"$out" || fail "'$*' did not say '$msg': $out"
	[ $(($(date +%s) - start)) -le 5 ] || fail "'$*' took more than 5 s to refuse"
	echo "ok: refused: $out"
}
# Another architecture: a uname that says so, first in PATH.
mkdir -p "$OUT/fake-bin"
printf '#!/bin/sh\necho aarch64\n' >"$OUT/fake-bin/uname"
chmod 755 "$OUT/fake-bin/uname"
refused 'this host is aarch64' env PATH="$OUT/fake-bin:$PATH" "$bundle/xrxe-bundle" check
# Not root: the runner alone, where any user can read it.
nobody_dir=$(mktemp -d /var/tmp/xrxe-bundle-test.XXXXXX)
trap 'rm -rf "$nobody_dir"' EXIT
cp "$bundle/xrxe-bundle" "$nobody_dir/"
chmod 755 "$nobody_dir" "$nobody_dir/xrxe-bundle"
refused 'run it as root' setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$nobody_dir/xrxe-bundle" check
refused 'holds no bundle' "$nobody_dir/xrxe-bundle" check
# Too little space where the root would be unpacked.
refused 'MiB free' unshare -m bash -c '
	mount -t tmpfs -o size=32m tmpfs "$1" && "$2/xrxe-bundle" --workdir "$1" check' _ "$nobody_dir" "$bundle"
refused 'writes into a checkout' "$bundle/xrxe-bundle" bench --docs
"$bundle/xrxe-bundle" check

# hide PATH: an empty mount over a directory, /dev/null over a file.
hidden=(/usr/bin/qemu-system-x86_64 /usr/bin/perf /usr/share/qemu /usr/lib/x86_64-linux-gnu/qemu
	/usr/lib/x86_64-linux-gnu/libibverbs /etc/libibverbs.d "${XRXE_CACHE:-/var/cache/xrxe}"
	"$XRXE_BUILD/kernel" "$XRXE_BUILD/providers" "$XRXE_BUILD/bench")
# shellcheck disable=SC2016
unshare -m bash -c '
	set -euo pipefail
	bundle=$1 out=$2
	shift 2
	for p in "$@"; do
		if [ -d "$p" ]; then
			mount -t tmpfs tmpfs "$p"
		elif [ -e "$p" ]; then
			mount --bind /dev/null "$(realpath "$p")"
		fi
	done
	! qemu-system-x86_64 --version >/dev/null 2>&1 || { echo "FAIL: the host qemu is still there"; exit 1; }
	! perf --version >/dev/null 2>&1 || { echo "FAIL: the host perf is still there"; exit 1; }
	[ -z "$(ls /usr/lib/x86_64-linux-gnu/libibverbs)" ] || { echo "FAIL: the host providers are still there"; exit 1; }
	echo "ok: the host qemu, perf, rdma-core providers, kernel cache and build are hidden"
	"$bundle/xrxe-bundle" --workdir "$out/work" --results "$out/results" bench \
		--tests ib_write_lat --sizes 2 --modes xrxe-ll --reps 1 --profile
' _ "$bundle" "$OUT" "${hidden[@]}" || fail "the bundle failed with the host's testbed hidden"
[ -s "$OUT/results/raw.json" ] && [ -s "$OUT/results/table.md" ] || fail "the benchmark wrote no raw.json or table.md"
/usr/bin/python3 - "$OUT/results/raw.json" <<'EOF' || fail "raw.json lacks a stock and an xrxe-ll run of ib_write_lat 2 B, each with its profile"
import json, sys
raw = json.load(open(sys.argv[1]))
modes = {r['mode'] for r in raw['runs'] if r['ok']}
assert {'stock', 'xrxe-ll'} <= modes, modes
assert {m['name']: m['driver'] for m in raw['modes']}['xrxe-ll'] == 'xrxe', raw['modes']
# Profiled: every run's measured phase has samples, some in the requester.
for r in raw['runs']:
    p = r['profile']
    assert p['busy_samples'] > 0 and p['stages']['requester'] > 0, (r['mode'], p)
EOF
# The headline row: the point, its figure, both medians and the ratio.
grep -E '^\| ib_write_lat 2 B \|.*\| [0-9.]+ \|$' "$OUT/results/table.md" ||
	fail "table.md has no xrxe-ll/stock ratio for ib_write_lat 2 B"
grep -q '2 guest CPUs on a host of' "$OUT/results/table.md" ||
	fail "table.md does not say the guest's vCPUs and the host's cores"
grep -q "^### Where the guest's CPUs went" "$OUT/results/table.md" ||
	fail "table.md has no profile table"

# A host whose root is not a mount point (the bundle's own root, as a
# chroot) cannot give the runner a mount namespace of its own: said at once.
inner=$OUT/work/root/bundle
mkdir -p "$inner"
ln "$bundle"/{xrxe-bundle,manifest,xrxe-root.tar.xz} "$inner/"
refused 'mount namespace of its own' unshare -m bash -c '
	mount --make-rprivate / && chroot "$1" /bundle/xrxe-bundle --workdir /bundle check' _ "$OUT/work/root"
echo "PASS: bundle"
