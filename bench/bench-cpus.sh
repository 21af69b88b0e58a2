# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
# What the workloads of the benchmark harness (bench/xrxe-bench) share:
# --cpus (the guest CPU counts to measure at, one testbed boot each),
# --no-build's check of the build tree, the boot, and the first words of
# their tables' headers. Sourced after tools/lib/common.sh, never run.

# The host's cores: a guest with more vCPUs than these measures the host.
bench_host_cores=$(nproc)
# The guest CPU counts of the run: the testbed's default unless --cpus.
bench_cpus=(2)

# bench_parse_cpus LIST: --cpus's "8" or "2,4,8" into bench_cpus; dies on
# anything else, before anything is built.
bench_parse_cpus() {
	local list=$1 n seen=,
	[[ $list =~ ^[0-9]+(,[0-9]+)*$ ]] ||
		die "--cpus wants one CPU count or several separated by commas (e.g. 8 or 2,4,8), not '$list'"
	bench_cpus=()
	for n in ${list//,/ }; do
		[[ $n =~ ^[1-9][0-9]*$ ]] || die "--cpus: '$n' is not a CPU count (a positive whole number, no leading zero)"
		[[ $seen != *,$n,* ]] || die "--cpus: $n is named twice in '$list'"
		seen+=$n,
		bench_cpus+=("$n")
	done
}

# bench_sweep: whether --cpus named several counts.
bench_sweep() {
	[ ${#bench_cpus[@]} -gt 1 ]
}

# bench_check_docs DOCS: dies when --docs (DOCS non-empty) cannot be
# honoured: the pages record one CPU count, and their plots need
# matplotlib (a table without its plots would replace the page's).
bench_check_docs() {
	[ -n "$1" ] || return 0
	! bench_sweep ||
		die "--docs records one CPU count: give --cpus one number, not $(IFS=,; echo "${bench_cpus[*]}")"
	/usr/bin/python3 -c 'import matplotlib' 2>/dev/null ||
		die "--docs needs python3-matplotlib for the plots of the pages it writes"
}

# bench_oversubscription N: the warning for N vCPUs when they are more than
# the host's cores, else nothing.
bench_oversubscription() {
	[ "$1" -le "$bench_host_cores" ] ||
		echo "Warning: $1 vCPUs on a host of $bench_host_cores cores: the vCPUs take turns on the cores, so these timings measure the host, not xrxe."
}

# bench_warn_oversubscribed: that warning on stderr for each count of the
# run that asks for more vCPUs than the host has cores.
bench_warn_oversubscribed() {
	local n warning
	for n in "${bench_cpus[@]}"; do
		warning=$(bench_oversubscription "$n")
		[ -z "$warning" ] || note "$warning"
	done
}

# bench_need_built FILE...: dies unless the build tree holds FILE... and
# what every workload boots with (the provider, rdma_xrxe.ko), naming
# what is missing.
bench_need_built() {
	local f missing=()
	for f in "$@" "$XRXE_BUILD/providers/xrxe/libxrxe-rdmav34.so" \
		"$XRXE_BUILD/kernel/module/rdma_xrxe.ko"; do
		[ -e "$f" ] || missing+=("$f")
	done
	[ ${#missing[@]} = 0 ] ||
		die "not built: ${missing[*]} (run tools/xrxe-build, or drop --no-build)"
}

# bench_each_cpus OUT MEASURE [AFTER]: MEASURE N DIR for each count N of
# the run, DIR being OUT itself for one count and OUT/cpus-N in a sweep;
# then, in a sweep, AFTER DIR... with the counts' directories. A count
# that fails (MEASURE returns non-zero, having said why) does not stop the
# sweep; the harness dies after the last, naming the failed counts.
bench_each_cpus() {
	local out=$1 measure=$2 after=${3:-} n dir dirs=() failed=() summary=ok
	for n in "${bench_cpus[@]}"; do
		dir=$out
		! bench_sweep || dir=$out/cpus-$n
		mkdir -p "$dir"
		# The guest writes into it by this path.
		dir=$(cd "$dir" && pwd)
		dirs+=("$dir")
		! bench_sweep || note "$n guest CPUs: into $dir"
		"$measure" "$n" "$dir" || failed+=("$n")
	done
	if bench_sweep && [ -n "$after" ]; then
		"$after" "${dirs[@]}" || summary=
	fi
	[ ${#failed[@]} = 0 ] || die "failed at $(IFS=,; echo "${failed[*]}") guest CPUs (see above)"
	[ -n "$summary" ] || die "the sweep's summary failed (see above)"
}

# bench_testbed N ARGS...: 'xrxe-testbed run ARGS...' with N vCPUs, without
# slub_debug (the tests want the allocator's checks, a benchmark the
# kernel users run), and the host's cores in the guest's environment for
# its records.
bench_testbed() {
	local cpus=$1
	shift
	"$XRXE_TOP/tools/xrxe-testbed" run --no-slub-debug --cpus "$cpus" \
		--env XRXE_HOST_CORES="$bench_host_cores" "$@"
}

# bench_header N: a table header's first words for a run at N vCPUs, and
# before them the over-subscription warning where it applies.
bench_header() {
	local warning
	warning=$(bench_oversubscription "$1")
	[ -z "$warning" ] || printf '**%s**\n\n' "$warning"
	echo "Kernel series of $(grep -c . "$XRXE_TOP/kernel-patch/series") patches, slub_debug off, $1 guest CPUs on a host of $bench_host_cores cores, $(date -u '+%Y-%m-%d %H:%M')"
}

# bench_load_header N SHORT LOAD0: bench_header N, the sweep (SHORT
# non-empty: short) and the host's load average, LOAD0 before the boot
# and now, after it: the guest's figures move with the host's load.
bench_load_header() {
	echo "$(bench_header "$1"), $([ -n "$2" ] && echo short sweep || echo full sweep), host load average $3 before the boot and $(cut -d' ' -f1 /proc/loadavg) after it."
}
