#!/usr/bin/env bash
# Pack the demo guest's initramfs: busybox-static, the statically linked load program(s),
# the command list and the init script (demo-wip/init).  Everything is static: no libraries.
# Usage: mkinitramfs-demo.sh OUT.cpio.gz CMDS_FILE PROGRAM...
set -euo pipefail
out=$1 cmds=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
[ -x /bin/busybox ] || { echo "mkinitramfs-demo: /bin/busybox missing (apt-get install busybox-static)" >&2; exit 1; }
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,etc,root,demo}
cp /bin/busybox "$root/bin/busybox"
for a in $("$root/bin/busybox" --list); do
	[ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"
done
for p in "$@"; do
	if ldd "$p" >/dev/null 2>&1; then
		echo "mkinitramfs-demo: $p is not statically linked" >&2; exit 1
	fi
	install -m 0755 "$p" "$root/bin/"
done
cp "$cmds" "$root/demo/cmds"
install -m 0755 "$here/init" "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$out.tmp"
mv "$out.tmp" "$out"
echo "initramfs: $out ($(du -h "$out" | cut -f1))"
