# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
# The testbed that travels: 'xrxe-testbed bundle DIR' packs a root holding
# exactly what a testbed run and the benchmarks use (qemu with its libraries
# and firmware, the kernel and its modules, rdma-core, perftest, perf, the
# part of python3's standard library the benchmark scripts import, the build
# and the tools) into one compressed archive, beside a runner that unpacks it
# once and runs the testbed or a benchmark chrooted into it
# (tools/testbed-bundle/xrxe-bundle). Sourced by xrxe-testbed.

# What the testbed's host side, its guest and the benchmarks run, by Debian
# package: their programs and libraries are copied, with every library
# those load (ldd); documentation and translations are not.
BUNDLE_PACKAGES="bash dash coreutils grep sed mawk findutils util-linux kmod
iproute2 procps hostname cpio gzip busybox-static qemu-system-x86
libibverbs1 ibverbs-providers librdmacm1 ibverbs-utils rdmacm-utils perftest"
# qemu's firmware for a -kernel boot with virtio NICs (from the data
# directories 'qemu-system-x86_64 -L help' lists), and its TCG module.
BUNDLE_QEMU_FILES="/usr/share/seabios/bios-256k.bin /usr/share/qemu/linuxboot_dma.bin
/usr/share/qemu/kvmvapic.bin /usr/lib/ipxe/qemu/efi-virtio.rom
/usr/lib/x86_64-linux-gnu/qemu/accel-tcg-x86_64.so"
# What the packages hold that no run reads: documentation, translations,
# completions, udev rules, qemu's other programs and its firmware (what a
# boot needs of it is listed above).
BUNDLE_SKIP='^/usr/(share/(doc|man|info|locale|lintian|bug|bash-completion|qemu|zsh)|lib/udev)/|/qemu-system-(i386|x86_64-microvm)$'
# The checkout's parts that a run reads (the guest runs the tools' guest
# scripts and the benchmarks' python from it).
BUNDLE_CHECKOUT="tools bench kernel-patch kernel-headers"
# Everything the limit in the issue of record allows, with room for the
# build's growth: a bundle above it is an error.
BUNDLE_MAX_MIB=60

bundle_usage() {
	cat <<EOF2
usage: ${0##*/} bundle DIR [--kernel VERSION]

Packs the testbed into DIR so that it runs on any x86-64 Linux host as
root, with nothing installed there but bash and its base tools (tar, xz,
unshare, chroot): DIR/xrxe-bundle (the runner), DIR/xrxe-root.tar.xz (the
root it unpacks and chroots into), DIR/manifest and DIR/README. Needs a
built tree (tools/xrxe-build, tools/xrxe-series build). DIR is made, or
replaced when it holds an earlier bundle; anything else there is refused.
See docs/testbed.md, "A testbed that travels".
EOF2
}

# bundle_copy ROOT PATH...: each PATH into ROOT at the same place, symlinks
# as symlinks (with what they point to), through the host's merged /usr: a
# path under /bin or /lib is stored under /usr, where the root's own /bin
# and /lib links lead.
bundle_copy() {
	local root=$1 p dir real target
	shift
	for p in "$@"; do
		[ -e "$p" ] || [ -L "$p" ] || continue
		dir=$(realpath -- "$(dirname -- "$p")")
		real=$dir/$(basename -- "$p")
		[ ! -e "$root$real" ] && [ ! -L "$root$real" ] || continue
		[ ! -d "$real" ] || [ -L "$real" ] || continue
		mkdir -p "$root$dir"
		cp -P --preserve=mode,timestamps -- "$real" "$root$real"
		if [ -L "$real" ]; then
			target=$(readlink -- "$real")
			[[ $target = /* ]] || target=$dir/$target
			bundle_copy "$root" "$target"
		fi
	done
}

# bundle_libs ROOT: copy into ROOT every shared library that its ELF files
# load (ldd lists a file's whole closure, so one pass is enough).
bundle_libs() {
	local root=$1 f
	# shellcheck disable=SC2046
	bundle_copy "$root" $(find "$root" -type f \( -perm -u+x -o -name '*.so*' \) |
		while read -r f; do
			[ "$(head -c4 -- "$f" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
			ldd -- "$f" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}'
		done | sort -u)
}

bundle_main() {
	local dir=${1:-} kernel_args=() stage root kdir kimage moddir f pkg size sum files
	case $dir in
	'') bundle_usage >&2; exit 2 ;;
	-h | --help) bundle_usage; exit 0 ;;
	esac
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		--kernel) [ $# -ge 2 ] || die "--kernel needs a VERSION"; kernel_args=(--kernel "$2"); shift 2 ;;
		*) bundle_usage >&2; die "unknown option '$1'" ;;
		esac
	done
	if [ -e "$dir" ]; then
		[ -d "$dir" ] || die "$dir is not a directory"
		for f in "$dir"/* "$dir"/.[!.]*; do
			[ -e "$f" ] || continue
			case ${f##*/} in
			xrxe-bundle | xrxe-root.tar.xz | manifest | README | root | results) ;;
			*) die "$dir holds '${f##*/}', which no bundle has: give an empty or new directory" ;;
			esac
		done
	fi
	for f in providers/xrxe/libxrxe-rdmav34.so bench/xrxe-ocu-bench bench/xrxe-pace-bench \
		bench/xrxe-coalesce-bench bench/xrxe-memcpy-bw; do
		[ -f "$XRXE_BUILD/$f" ] ||
			die "$XRXE_BUILD/$f is missing: build with tools/xrxe-build and tools/xrxe-series build first"
	done
	kdir=$("$XRXE_TOP/tools/xrxe-kernel" fetch "${kernel_args[@]}")
	load_kernel_info "$kdir" || die "kernel cache $kdir has no info file"
	# The module built for that kernel, at its place in the bundle's build
	# tree too (module_dir).
	moddir=$(module_dir "$KINFO_VERSION")
	for f in "$moddir"/{rdma_xrxe.ko,kernel-version}; do
		[ -f "$f" ] || die "$f is missing: build with tools/xrxe-series build ${kernel_args[*]} first"
	done
	[ "$(cat "$moddir/kernel-version")" = "$KINFO_VERSION" ] ||
		die "rdma_xrxe.ko was not built for kernel $KINFO_VERSION; run tools/xrxe-series build ${kernel_args[*]}"
	for pkg in $BUNDLE_PACKAGES; do
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' ||
			die "package $pkg is not installed; run tools/xrxe-deps"
	done

	stage=$(mktemp -d "${XRXE_RUNDIR:-/var/tmp}/xrxe-bundle.XXXXXX")
	# shellcheck disable=SC2064
	trap "rm -rf '$stage'" EXIT
	root=$stage/root
	mkdir -p "$root"/usr/{bin,sbin,lib,lib64} "$root"/{etc,proc,sys,dev,tmp,run,root,results,xrxe} \
		"$root"/var/{tmp,cache/xrxe/kernel}
	for f in bin sbin lib lib64; do
		ln -s "usr/$f" "$root/$f"
	done

	note "bundle: collecting programs and libraries"
	# The lists are made before they are copied: a command substitution's
	# failure inside bundle_copy's arguments would go unnoticed.
	files=$(for pkg in $BUNDLE_PACKAGES; do dpkg-query -L "$pkg" || exit; done) ||
		die "cannot list the files of the packages"
	# shellcheck disable=SC2046
	bundle_copy "$root" $(grep -vE "$BUNDLE_SKIP" <<<"$files" |
		grep -E '^/(usr/|bin/|sbin/|lib|etc/libibverbs.d/)')
	# awk is mawk through an alternatives link that no package lists; of
	# linux-perf, the program alone (the benchmark's --profile).
	# shellcheck disable=SC2086
	bundle_copy "$root" $BUNDLE_QEMU_FILES /usr/bin/awk /usr/bin/python3 "$(readlink -f /usr/bin/python3)" \
		/usr/bin/perf
	files=$(/usr/bin/python3 "$XRXE_TOP/tools/lib/python-closure.py" "$XRXE_TOP"/bench/*.py) ||
		die "cannot list the python modules the benchmarks need"
	# shellcheck disable=SC2086
	bundle_copy "$root" $files
	bundle_copy "$root" /etc/ld.so.conf /etc/ld.so.conf.d/* /etc/nsswitch.conf /etc/passwd /etc/group \
		/etc/protocols /etc/services
	# The checkout's files as they are now, committed or not; the build's
	# products only.
	(cd "$XRXE_TOP" && git ls-files -co --exclude-standard -- $BUNDLE_CHECKOUT |
		while read -r f; do [ ! -f "$f" ] || printf '%s\0' "$f"; done |
		xargs -0 cp --parents -P --preserve=mode,timestamps -t "$root/xrxe") ||
		die "cannot copy the checkout"
	f=$root/xrxe/build/${moddir#"$XRXE_BUILD"/}
	mkdir -p "$root/xrxe/build"/{providers/xrxe,bench} "$f"
	cp -P "$XRXE_BUILD"/providers/xrxe/libxrxe*.so* "$root/xrxe/build/providers/xrxe/"
	cp "$moddir"/{rdma_xrxe.ko,kernel-version} "$f/"
	# Its debug information is most of the module's size; the symbols that
	# a kernel trace names stay.
	strip --strip-debug "$f/rdma_xrxe.ko"
	# Not the MPI ping-pong: without mpirun its points are left out anyway,
	# and it would bring Open MPI's libraries.
	find "$XRXE_BUILD/bench" -maxdepth 1 -type f -name 'xrxe-*' ! -name xrxe-mpi-pingpong -perm -u+x \
		-exec cp -t "$root/xrxe/build/bench/" {} +
	# The kernel as the cache holds it, without what only builds need: its
	# image at its place (/boot, or /usr/lib/modules for 7.x's split packages).
	f=$root/var/cache/xrxe/kernel/$KINFO_VERSION
	kimage=$(kernel_image "$kdir" "$KINFO_RELEASE") || die "kernel cache $kdir has no kernel image"
	mkdir -p "$f/root/$(dirname "${kimage#"$kdir"/root/}")"
	cp -a "$kdir"/{info,.complete,modroot} "$f/"
	cp "$kimage" "$f/root/${kimage#"$kdir"/root/}"
	echo "$KINFO_VERSION" >"$root/var/cache/xrxe/kernel/last-used"
	bundle_libs "$root"
	ldconfig -r "$root"

	note "bundle: compressing"
	size=$(du -sm "$root" | cut -f1)
	mkdir -p "$dir"
	rm -rf "${dir:?}/root" "$dir/results"
	(cd "$root" && tar --numeric-owner --owner=0 --group=0 -cf - .) | xz -T0 -3 >"$dir/xrxe-root.tar.xz.tmp"
	mv "$dir/xrxe-root.tar.xz.tmp" "$dir/xrxe-root.tar.xz"
	sum=$(sha256sum "$dir/xrxe-root.tar.xz" | cut -d' ' -f1)
	cat >"$dir/manifest" <<EOF2
ARCHIVE_SHA256=$sum
ROOT_MIB=$size
KERNEL=$KINFO_VERSION
SERIES_PATCHES=$(grep -c . "$XRXE_TOP/kernel-patch/hooks/series")
COMMIT=$(git -C "$XRXE_TOP" describe --always --dirty 2>/dev/null || echo unknown)
CREATED=$(date -u '+%Y-%m-%d %H:%M')
EOF2
	install -m 755 "$XRXE_TOP/tools/testbed-bundle/xrxe-bundle" "$dir/xrxe-bundle"
	"$dir/xrxe-bundle" --help >"$dir/README"
	size=$(du -cm "$dir/xrxe-root.tar.xz" "$dir/xrxe-bundle" "$dir/manifest" "$dir/README" | tail -1 | cut -f1)
	note "bundle: $dir, $size MiB ($(sed -n 's/^ROOT_MIB=//p' "$dir/manifest") MiB unpacked)"
	[ "$size" -le $BUNDLE_MAX_MIB ] || die "the bundle takes $size MiB, more than $BUNDLE_MAX_MIB"
}
