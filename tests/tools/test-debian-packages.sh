#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The Debian packages build with 'dpkg-buildpackage -us -uc -b' from a copy
# of the source tree, and each holds what it should: libxrxe1 the library,
# its link in libibverbs' provider directory, xrxe.driver and xrxe(7);
# libxrxe-dev the header, the .so link, the pkg-config file and a man page
# per direct verb; xrxe-dkms the module source (patched rxe sources, Kbuild,
# dkms.conf) in /usr/src/xrxe-<version> and the scripts that run dkms. The
# packages are only inspected, never installed here.
#
# usage: test-debian-packages.sh [OUTPUT_DIR]
# With OUTPUT_DIR, the built .debs are left there.
# The module source is assembled from Debian's linux-source package, which
# the kernel tools download once into /var/cache/xrxe (XRXE_CACHE).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-}
. "$top/tests/tools/lib.sh"
work=$scratch

# The tree to package: tracked files and files not committed yet, without
# build output (the ignored build/, and any other CMake build directory).
src=$work/xrxe
mkdir -p "$src"
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	list=$work/files
	git -C "$top" ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do
			case $f in
			build/* | obj-*/*) continue ;;
			esac
			# An untracked CMake build directory under another name.
			[ "${f%%/*}" = "$f" ] || [ ! -f "$top/${f%%/*}/CMakeCache.txt" ] || continue
			# Deleted but not committed yet.
			[ -e "$top/$f" ] || [ -L "$top/$f" ] || continue
			printf '%s\0' "$f"
		done >"$list"
	tar -C "$top" --null -T "$list" -cf - | tar -C "$src" -xf -
else
	tar -C "$top" --exclude=./build --exclude='./obj-*' -cf - . | tar -C "$src" -xf -
fi
[ -f "$src/debian/control" ] || { echo "FAIL: no debian/control in the copied tree"; exit 1; }

log=$work/dpkg-buildpackage.log
start=$(date +%s)
if ! (cd "$src" && env -u MAKEFLAGS -u MFLAGS \
	DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:-parallel=$(nproc)}" \
	dpkg-buildpackage -us -uc -b) >"$log" 2>&1; then
	tail -n 60 "$log"
	grep -q 'Unmet build dependencies' "$log" &&
		echo "(tools/xrxe-deps installs the build dependencies)"
	echo "FAIL: dpkg-buildpackage -us -uc -b"
	exit 1
fi
echo "dpkg-buildpackage took $(($(date +%s) - start)) s"

version=$(cd "$src" && dpkg-parsechangelog -S Version)
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
dkms_version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/kernel-patch/dkms.conf")
lib_deb=$work/libxrxe1_${version}_$arch.deb
dev_deb=$work/libxrxe-dev_${version}_$arch.deb
dkms_deb=$work/xrxe-dkms_${version}_all.deb
for deb in "$lib_deb" "$dev_deb" "$dkms_deb"; do
	[ -f "$deb" ] || { echo "FAIL: dpkg-buildpackage made no ${deb##*/}"; ls "$work"; exit 1; }
done

# "path" or "path -> target" for each entry of a package.
contents() {
	dpkg-deb -c "$1" | awk '{ sub(/^\.\//, "", $6); if ($7 == "->") print $6, "->", $8; else print $6 }'
}
# has DEB PATH [TARGET]: the package holds PATH (a link to TARGET).
has() {
	local deb=$1 path=$2 target=${3:-} list
	list=$(contents "$deb")
	if [ -n "$target" ]; then
		grep -qxF "$path -> $target" <<<"$list" ||
			fail "${deb##*/} has no $path -> $target"
	else
		grep -qxF "$path" <<<"$list" || fail "${deb##*/} has no $path"
	fi
}
# hasnt DEB PATH: the package holds neither PATH nor anything under it.
hasnt() {
	! contents "$1" | grep -q -e "^$2\$" -e "^$2[/ ]" || fail "${1##*/} holds $2, which belongs elsewhere"
}
field() {
	dpkg-deb -f "$1" "$2"
}

# The direct verbs, and the version node of each, from the library's map.
map=$top/providers/xrxe/libxrxe.map
symbols=$(awk '/^[A-Z][A-Z0-9_.]* *\{/ { node = $1 }
	/^[[:space:]]+xrxedv_[a-z_]+;/ { sub(/;/, ""); print $1 "@" node }' "$map")
[ -n "$symbols" ] || fail "no xrxedv_ call in ${map#"$top"/}"

# libxrxe1
libdir=usr/lib/$ma
real=$(contents "$lib_deb" | awk -v d="$libdir/" '$1 ~ "^" d "libxrxe\\.so\\.1\\.[0-9.]+$" && NF == 1 { print $1 }')
[ -n "$real" ] || fail "libxrxe1 has no $libdir/libxrxe.so.1.x.y"
has "$lib_deb" "$libdir/libxrxe.so.1" "${real##*/}"
plugin=$(contents "$lib_deb" | awk -v d="$libdir/libibverbs/" '$1 ~ "^" d "libxrxe-rdmav[0-9]+\\.so$" { print $1 }')
[ -n "$plugin" ] || fail "libxrxe1 has no $libdir/libibverbs/libxrxe-rdmavN.so"
[ -z "$plugin" ] || has "$lib_deb" "$plugin" ../libxrxe.so.1
has "$lib_deb" etc/libibverbs.d/xrxe.driver
driver=$(dpkg-deb --fsys-tarfile "$lib_deb" | tar -xOf - ./etc/libibverbs.d/xrxe.driver 2>/dev/null || true)
[ "$driver" = "driver xrxe" ] || fail "libxrxe1's xrxe.driver says '$driver', not 'driver xrxe'"
dpkg-deb -I "$lib_deb" conffiles 2>/dev/null | grep -qx /etc/libibverbs.d/xrxe.driver ||
	fail "libxrxe1 does not keep /etc/libibverbs.d/xrxe.driver as a conffile"
has "$lib_deb" usr/share/man/man7/xrxe.7.gz
for p in "$libdir/libxrxe.so" "$libdir/pkgconfig" usr/include usr/share/man/man3; do
	hasnt "$lib_deb" "$p"
done
depends=$(field "$lib_deb" Depends)
grep -q '\blibibverbs1\b' <<<"$depends" || fail "libxrxe1 does not depend on libibverbs1: $depends"
[ "$(field "$lib_deb" Architecture)" = "$arch" ] || fail "libxrxe1 is not Architecture: $arch"
dpkg-deb -I "$lib_deb" shlibs 2>/dev/null | grep -q '^libxrxe 1 libxrxe1' ||
	fail "libxrxe1 has no shlibs entry for libxrxe.so.1"
pkg_symbols=$(dpkg-deb -I "$lib_deb" symbols 2>/dev/null || true)
head -n 1 <<<"$pkg_symbols" | grep -q '^libxrxe\.so\.1 libxrxe1 ' ||
	fail "libxrxe1 has no symbols file for libxrxe.so.1"
for s in $symbols; do
	grep -q "^ $s " <<<"$pkg_symbols" || fail "libxrxe1's symbols file lacks $s"
done
for node in $(cut -d@ -f2 <<<"$symbols" | sort -u); do
	grep -q "^ $node@$node " <<<"$pkg_symbols" || fail "libxrxe1's symbols file lacks the node $node"
done
extra=$(awk 'NR > 1 && /^ / { print $1 }' <<<"$pkg_symbols" | grep -v '^XRXE_[0-9.]*@' |
	grep -vxF -f <(printf '%s\n' "$symbols") || true)
[ -z "$extra" ] || fail "libxrxe1's symbols file lists what libxrxe.map does not export: $extra"

# libxrxe-dev
has "$dev_deb" usr/include/infiniband/xrxedv.h
has "$dev_deb" usr/include/rdma/rdma_user_xrxe.h
has "$dev_deb" "$libdir/libxrxe.so" libxrxe.so.1
has "$dev_deb" "$libdir/pkgconfig/libxrxe.pc"
for s in $symbols; do
	has "$dev_deb" "usr/share/man/man3/${s%@*}.3.gz"
done
for p in "$libdir/libxrxe.so.1" etc usr/share/man/man7; do
	hasnt "$dev_deb" "$p"
done
depends=$(field "$dev_deb" Depends)
grep -qF "libxrxe1 (= $version)" <<<"$depends" ||
	fail "libxrxe-dev does not depend on libxrxe1 (= $version): $depends"
grep -q '\blibibverbs-dev\b' <<<"$depends" || fail "libxrxe-dev does not depend on libibverbs-dev: $depends"

# xrxe-dkms
[ "$(field "$dkms_deb" Architecture)" = all ] || fail "xrxe-dkms is not Architecture: all"
grep -q '\bdkms\b' <<<"$(field "$dkms_deb" Depends)" || fail "xrxe-dkms does not depend on dkms"
msrc=usr/src/xrxe-$dkms_version
for f in dkms.conf Kbuild Makefile.rxe include/uapi/rdma/rdma_user_xrxe.h; do
	has "$dkms_deb" "$msrc/$f"
done
x=$work/xrxe-dkms
dpkg-deb -x "$dkms_deb" "$x"
if [ -f "$x/$msrc/dkms.conf" ]; then
	cmp -s "$x/$msrc/dkms.conf" "$top/kernel-patch/dkms.conf" ||
		fail "xrxe-dkms's dkms.conf differs from kernel-patch/dkms.conf"
	grep -qx 'PACKAGE_NAME="xrxe"' "$x/$msrc/dkms.conf" &&
		grep -qx "PACKAGE_VERSION=\"$dkms_version\"" "$x/$msrc/dkms.conf" ||
		fail "xrxe-dkms's dkms.conf does not name xrxe $dkms_version, as its directory does"
fi
# Every object of the driver's own Makefile has its source.
if [ -f "$x/$msrc/Makefile.rxe" ]; then
	objs=$(grep -o '\brxe[a-z_]*\.o\b' "$x/$msrc/Makefile.rxe" | sort -u)
	[ -n "$objs" ] || fail "xrxe-dkms's Makefile.rxe names no object"
	for o in $objs; do
		[ -f "$x/$msrc/${o%.o}.c" ] || fail "xrxe-dkms has no $msrc/${o%.o}.c for $o"
	done
	[ -f "$x/$msrc/xrxe_sq.c" ] || fail "xrxe-dkms has no xrxe_sq.c: is the series applied?"
fi
[ ! -f "$x/$msrc/include/uapi/rdma/rdma_user_xrxe.h" ] ||
	cmp -s "$x/$msrc/include/uapi/rdma/rdma_user_xrxe.h" "$top/kernel-headers/rdma/rdma_user_xrxe.h" ||
	fail "xrxe-dkms's rdma_user_xrxe.h differs from kernel-headers/rdma/rdma_user_xrxe.h"
unexpected=$(contents "$dkms_deb" | awk '{ print $1 }' | grep -v -e '^usr/src/' -e '^usr/share/doc/' |
	grep -vx -e '' -e usr/ -e usr/share/ || true)
[ -z "$unexpected" ] || fail "xrxe-dkms holds more than the module source: $unexpected"
for script in postinst prerm; do
	body=$(dpkg-deb -I "$dkms_deb" "$script" 2>/dev/null || true)
	grep -q '^DKMS_NAME=xrxe$' <<<"$body" && grep -q "^DKMS_VERSION=$dkms_version\$" <<<"$body" ||
		fail "xrxe-dkms's $script does not run dkms for xrxe $dkms_version"
done
dpkg-deb -I "$dkms_deb" postinst 2>/dev/null | grep -q common.postinst ||
	fail "xrxe-dkms's postinst does not add, build and install the module with dkms"

if [ -n "$out" ]; then
	mkdir -p "$out"
	rm -f "$out"/libxrxe1_*.deb "$out"/libxrxe1-dbgsym_*.deb "$out"/libxrxe-dev_*.deb \
		"$out"/xrxe-dkms_*.deb
	cp "$work"/*.deb "$out/"
	echo "packages in $out: $(cd "$out" && echo *.deb)"
fi

[ $failures = 0 ] || exit 1
echo "ok: libxrxe1, libxrxe-dev and xrxe-dkms $version ($(wc -w <<<"$symbols") direct verbs, module source xrxe-$dkms_version)"
