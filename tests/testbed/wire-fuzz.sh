#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# usage: wire-fuzz.sh [rxe|xrxe]
# The wire fuzzer (tests/wire/xrxe-wire-fuzz.c) at MODULE's device 0 (default
# xrxe): malformed RoCEv2 packets, most with a correct ICRC, while the
# device's connections keep passing checked traffic, a bystander connection
# never breaks and the packets its receive checks must drop are dropped.
# The testbed fails the run on a kernel splat.
#
# XRXE_WIRE_FUZZ_PACKETS  packets to send (default 20000; the stress target
#                         sends 1000000)
# XRXE_WIRE_FUZZ_SEED     the run's seed (default: from the clock; printed)
# XRXE_WIRE_FUZZ_LOG=1    write every packet ahead of sending it to
#                         $OUT/packets.{0,1}, for xrxe-wire-fuzz -r after a
#                         crash (slower: 9p writes)
# XRXE_WIRE_FUZZ_SKIP_KNOWN=1  step around the bugs of the stock rxe of
#                         Linux 6.12 that the fuzzer found and xrxe fixes
#                         (xrxe-wire-fuzz -k), to fuzz `rxe` past them; the
#                         WARNs of the completer (an error without a status)
#                         and of rxe_mr_copy() (a NULL MR) then pass

if [ "${1:-}" != --guest ]; then
	. "$(dirname "$0")/lib.sh"
	module=${1:-xrxe}
	packets=${XRXE_WIRE_FUZZ_PACKETS:-20000}
	seed=${XRXE_WIRE_FUZZ_SEED:-$(( ($(date +%s%N) / 1000 + $$) % 4294967296 ))}
	skip_known=${XRXE_WIRE_FUZZ_SKIP_KNOWN:-0}
	tool=$XRXE_BUILD/tests/xrxe-wire-fuzz
	[ -x "$tool" ] || fail "$tool is not built"

	args=(-d "${module}0" -D "${module}1" -S "$seed" -n "$packets")
	[ "${XRXE_WIRE_FUZZ_LOG:-0}" = 0 ] || args+=(-l "$OUT/packets")
	[ "$skip_known" = 0 ] || args+=(-k)
	# TCG sends about 1000 packets a second with the checks, 300 with the log
	timeout=$((300 + packets / 100))
	[ "${XRXE_WIRE_FUZZ_LOG:-0}" = 0 ] || timeout=$((300 + packets / 30))
	echo "wire-fuzz: $module, $packets packets, seed $seed"

	rc=0
	"$TESTBED" run --module "$module" --timeout "$timeout" \
		--env WIRE_FUZZ_TOOL="$tool" --env WIRE_FUZZ_MODULE="$module" \
		-- "${GUEST_HALF[@]}" "${args[@]}" 2>"$OUT/stderr" | tee "$OUT/log" || rc=$?
	cat "$OUT/stderr" >&2

	# The testbed lists the kernel log lines that made it exit 100.
	if [ "$rc" = 100 ] && [ "$skip_known" != 0 ] &&
		! grep '^\[' "$OUT/stderr" |
			grep -vqE 'WARNING: .* at .*(rxe_comp\.c:[0-9]+ rxe_completer|rxe_mr\.c:[0-9]+ rxe_mr_copy)'; then
		echo "note: only the known WARNs in dmesg, let pass"
		rc=0
	fi
	again="XRXE_WIRE_FUZZ_SEED=$seed XRXE_WIRE_FUZZ_PACKETS=$packets XRXE_WIRE_FUZZ_SKIP_KNOWN=$skip_known XRXE_WIRE_FUZZ_LOG=1 $0 $module"
	[ "$rc" = 0 ] || fail "the wire fuzz exited $rc (seed $seed; '$again' runs it again with the packet log)"
	grep -q '^proof: a crafted RDMA WRITE landed' "$OUT/log" || fail "no proof that the crafted packets reach $module"
	grep -q '^ok: ' "$OUT/log" || fail "the fuzzer did not finish"
	echo "ok: wire fuzz at ${module}0"
	exit 0
fi

# ---- In the guest ----
# The arguments after --guest are the fuzzer's.
shift
"$WIRE_FUZZ_TOOL" "$@" || exit
rdma statistic show link "${WIRE_FUZZ_MODULE}0/1"
rdma statistic show link "${WIRE_FUZZ_MODULE}1/1"
