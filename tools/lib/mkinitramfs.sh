#!/usr/bin/env bash
# Pack a guest's initramfs (the kselftest guest's and the demo's): busybox-static with its
# applets, the init script, and what the options add.
#   --init FILE          the guest's PID 1 (/init)
#   --static PROG        a statically linked program, to /bin/
#   --dynamic BIN        a binary of the host, at its real path (and a link at BIN when that is
#                        another path), with the shared libraries ldd lists and the loader
#   --libs BIN           only the shared libraries ldd lists for BIN and the loader (BIN is
#                        a program another option puts in the guest)
#   --file SRC=/DEST     a host file to a path of the guest
#   --dir SRC=/DEST      a host directory's contents to a directory of the guest
#   --link TARGET=/PATH  a symbolic link (replacing a busybox applet of that name)
# Usage: mkinitramfs.sh OUT.cpio.gz --init FILE [OPTION...]
set -euo pipefail
die() { echo "mkinitramfs: error: $*" >&2; exit 1; }
[ $# -ge 3 ] && [ "$2" = --init ] || die "usage: mkinitramfs.sh OUT.cpio.gz --init FILE [OPTION...]"
out=$1 init=$3
shift 3
[ -f "$init" ] || die "--init: no file $init"
[ -x /bin/busybox ] || die "/bin/busybox is missing: install it with 'apt-get install -y busybox-static'"
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,etc,root,lib64}
cp /bin/busybox "$root/bin/busybox"
for a in $("$root/bin/busybox" --list); do
	[ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"
done
printf 'root:x:0:0:root:/root:/bin/sh\n' > "$root/etc/passwd"
printf 'root:x:0:\n' > "$root/etc/group"

# copy_real PATH: the file PATH resolves to, at its real path in the guest.
copy_real() {
	local real
	real=$(readlink -f "$1")
	mkdir -p "$root$(dirname "$real")"
	[ -e "$root$real" ] || cp -L "$real" "$root$real"
	echo "$real"
}
# add_libs OPTION BIN: the shared libraries ldd lists for BIN, and the loader.
add_libs() {
	local lib
	[ -f "$2" ] || die "$1 needs a binary or library (got '$2')"
	[[ $(ldd "$2" 2>/dev/null) != *'not found'* ]] ||
		die "ldd $2: a library is missing: $(ldd "$2" | grep 'not found')"
	# "libfoo.so => /lib/.../libfoo.so (0x...)" and "/lib64/ld-linux-x86-64.so.2 (0x...)"
	for lib in $(ldd "$2" 2>/dev/null | grep -o '/[^ ]*' || true); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}
# add_dynamic BIN: BIN (a link at its own path if that is not the real one) and its libraries.
add_dynamic() {
	local real
	add_libs --dynamic "$1"
	real=$(copy_real "$1")
	if [ "$1" != "$real" ]; then
		mkdir -p "$root$(dirname "$1")"
		ln -sfn "$real" "$root$1"
	fi
}
# split OPTION ARG: the SRC=/DEST pair of ARG in $src and $dst.
split() {
	[[ $2 == *=/* ]] || die "$1 needs SRC=/GUEST/PATH (got '$2')"
	src=${2%%=*} dst=${2#*=}
}

while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || die "$1 needs an argument"
	case $1 in
	--static)
		! ldd "$2" >/dev/null 2>&1 || die "$2 is not statically linked"
		install -m 0755 "$2" "$root/bin/"
		;;
	--dynamic) add_dynamic "$2" ;;
	--libs) add_libs "$1" "$2" ;;
	--file)
		split "$1" "$2"
		[ -f "$src" ] || die "--file: no file $src"
		mkdir -p "$root$(dirname "$dst")"
		cp -L "$src" "$root$dst"
		;;
	--dir)
		split "$1" "$2"
		[ -d "$src" ] || die "--dir: no directory $src"
		mkdir -p "$root$dst"
		cp -a "$src"/. "$root$dst"/
		;;
	--link)
		split "$1" "$2"
		mkdir -p "$root$(dirname "$dst")"
		ln -sfn "$src" "$root$dst"
		;;
	*) die "unknown option '$1'" ;;
	esac
	shift 2
done
install -m 0755 "$init" "$root/init"

(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$out.tmp"
mv "$out.tmp" "$out"
echo "initramfs: $out ($(du -h "$out" | cut -f1))"
