#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The rdma-core release selection of providers/xrxe/driver_abi.h, through
# the preprocessor only (any installed rdma-core serves): each release's
# private ABI and layout changes, and the errors for a release it does not
# know or a private ABI that is not the release's.
# usage: test-rdma-core-abi.sh [CC]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cc=${1:-cc}
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

cat >"$tmp/probe.c" <<'EOF'
#include "driver_abi.h"
pabi XRXE_RDMA_CORE_PABI
#if XRXE_RDMA_CORE_SINCE(QP_EX_FLUSH)
change qp_ex_flush
#endif
#if XRXE_RDMA_CORE_SINCE(PORT_SPEED_EX)
change port_speed_ex
#endif
#if XRXE_RDMA_CORE_SINCE(CTX_FD_ARR)
change ctx_fd_arr
#endif
#if XRXE_RDMA_CORE_SINCE(DMAH)
change dmah
#endif
#if XRXE_RDMA_CORE_SINCE(DMABUF_EXPORT)
change dmabuf_export
#endif
#if XRXE_RDMA_CORE_SINCE(BUF)
change buf
#endif
#if XRXE_RDMA_CORE_SINCE(COMP_CNTR)
change comp_cntr
#endif
EOF

# probe VERSION PABI: the probe preprocessed, or its errors, into $tmp/out.
probe() {
	"$cc" -E -P -I"$top/providers/xrxe" -I"$top/kernel-headers" \
		-DXRXE_RDMA_CORE_VERSION="$1" -DIBVERBS_PABI_VERSION="$2" \
		"$tmp/probe.c" >"$tmp/out" 2>&1
}

# The facts, from rdma-core's tags: the private ABI of each release, and
# the first release of each change.
pabi_of() {
	if [ "$1" -le 56 ]; then echo 34
	elif [ "$1" -le 58 ]; then echo 57
	elif [ "$1" -le 63 ]; then echo 59
	else echo "$1"
	fi
}
changes_of() {
	local v=$1 c first out=
	for c in qp_ex_flush:45 port_speed_ex:49 ctx_fd_arr:57 dmah:59 dmabuf_export:62 buf:64 \
		comp_cntr:65; do
		first=${c#*:}
		[ "$v" -lt "$first" ] || out="$out ${c%:*}"
	done
	echo "${out# }"
}

for v in $(seq 44 65); do
	want=$(pabi_of "$v")
	if ! probe "$v" "$want"; then
		fail "rdma-core $v (private ABI $want) does not preprocess: $(head -3 "$tmp/out")"
		continue
	fi
	got=$(awk '$1 == "pabi" {print $2}' "$tmp/out")
	[ "$got" = "$want" ] || fail "rdma-core $v: private ABI $got, want $want"
	got=$(awk '$1 == "change" {print $2}' "$tmp/out" | paste -sd' ')
	[ "$got" = "$(changes_of "$v")" ] || fail "rdma-core $v: changes '$got', want '$(changes_of "$v")'"
done

# The releases Debian ships: 12, 13 and sid.
for pair in 44:34 56:34 65:65; do
	probe "${pair%:*}" "${pair#*:}" || fail "rdma-core ${pair%:*}: $(head -3 "$tmp/out")"
done

# A release it does not know stops the build with an error naming it.
for v in 0 39 43 66 70 100; do
	if probe "$v" 34; then
		fail "rdma-core $v preprocessed, as if driver_abi.h knew it"
	elif ! grep -q "error: rdma-core $v is not a release driver_abi.h knows" "$tmp/out"; then
		fail "rdma-core $v: the error does not name it: $(grep -m1 error "$tmp/out" || true)"
	fi
done

# A private ABI that is not the release's, e.g. a libibverbs of another
# rdma-core than its headers.
for pair in 56:65 65:34 59:64 44:57; do
	if probe "${pair%:*}" "${pair#*:}"; then
		fail "rdma-core ${pair%:*} with private ABI ${pair#*:} preprocessed"
	elif ! grep -q "error: libibverbs private ABI ${pair#*:} is not $(pabi_of "${pair%:*}") of rdma-core ${pair%:*}" "$tmp/out"; then
		fail "rdma-core ${pair%:*}, private ABI ${pair#*:}: $(grep -m1 error "$tmp/out" || true)"
	fi
done

# Without the release, or the private ABI, it says which is missing.
"$cc" -E -I"$top/providers/xrxe" -I"$top/kernel-headers" -DIBVERBS_PABI_VERSION=34 \
	"$tmp/probe.c" >"$tmp/out" 2>&1 && fail "no XRXE_RDMA_CORE_VERSION preprocessed"
grep -q "XRXE_RDMA_CORE_VERSION (the rdma-core release) comes from the build" "$tmp/out" ||
	fail "no XRXE_RDMA_CORE_VERSION: $(grep -m1 error "$tmp/out" || true)"
"$cc" -E -I"$top/providers/xrxe" -I"$top/kernel-headers" -DXRXE_RDMA_CORE_VERSION=44 \
	"$tmp/probe.c" >"$tmp/out" 2>&1 && fail "no IBVERBS_PABI_VERSION preprocessed"
grep -q "IBVERBS_PABI_VERSION comes from the build" "$tmp/out" ||
	fail "no IBVERBS_PABI_VERSION: $(grep -m1 error "$tmp/out" || true)"

if [ "$failures" -gt 0 ]; then
	echo "$failures failure(s)"
	exit 1
fi
echo "rdma-core releases 44 to 65: private ABIs and layout changes as expected"
