#!/usr/bin/env bash
# Pack the demo guest's initramfs: busybox-static, the statically linked load program(s),
# the command list and the init script (tools/demo/init).  Programs are static (no libraries),
# except those given with --dynamic: a binary of the host (e.g. /usr/sbin/nginx) copied to the
# same path with the shared libraries ldd lists for it and the dynamic loader.  --file copies
# a host file to a path of the guest (configuration, /etc/passwd, ...).
# Usage: mkinitramfs-demo.sh OUT.cpio.gz CMDS_FILE [STATIC_PROGRAM...]
#                            [--dynamic BINARY]... [--file SRC=GUEST_PATH]...
set -euo pipefail
die() { echo "mkinitramfs-demo: error: $*" >&2; exit 1; }
[ $# -ge 2 ] || die "usage: mkinitramfs-demo.sh OUT.cpio.gz CMDS_FILE [PROGRAM...] [--dynamic BIN]... [--file SRC=DEST]..."
out=$1 cmds=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
[ -x /bin/busybox ] || die "/bin/busybox missing (apt-get install busybox-static)"
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,etc,root,demo}
cp /bin/busybox "$root/bin/busybox"
for a in $("$root/bin/busybox" --list); do
	[ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"
done

# copy_host PATH: the file at PATH (symlinks followed) to the same path in the guest
copy_host() {
	mkdir -p "$root$(dirname "$1")"
	cp -L "$1" "$root$1"
}
while [ $# -gt 0 ]; do
	case $1 in
	--dynamic)
		[ $# -ge 2 ] && [ -x "$2" ] || die "--dynamic needs an executable (got '${2:-}')"
		copy_host "$2"
		# "libfoo.so => /lib/.../libfoo.so (0x...)" and "/lib64/ld-linux-x86-64.so.2 (0x...)"
		libs=$(ldd "$2" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }') ||
			die "ldd $2 failed"
		grep -q 'not found' < <(ldd "$2") && die "ldd $2: a library is missing: $(ldd "$2" | grep 'not found')"
		for l in $libs; do
			[ -e "$root$l" ] || copy_host "$l"
		done
		shift 2
		;;
	--file)
		[ $# -ge 2 ] && [[ $2 == *=/* ]] || die "--file needs SRC=/GUEST/PATH (got '${2:-}')"
		src=${2%%=*} dst=${2#*=}
		[ -f "$src" ] || die "--file: no file $src"
		mkdir -p "$root$(dirname "$dst")"
		cp -L "$src" "$root$dst"
		shift 2
		;;
	*)
		p=$1
		if ldd "$p" >/dev/null 2>&1; then
			die "$p is not statically linked"
		fi
		install -m 0755 "$p" "$root/bin/"
		shift
		;;
	esac
done
cp "$cmds" "$root/demo/cmds"
install -m 0755 "$here/init" "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$out.tmp"
mv "$out.tmp" "$out"
echo "initramfs: $out ($(du -h "$out" | cut -f1))"
