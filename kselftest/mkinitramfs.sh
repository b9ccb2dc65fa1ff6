#!/usr/bin/env bash
# Pack the kselftest guest's initramfs: busybox-static, bash, coreutils' timeout (the
# kernel's runner wants /usr/bin/timeout --foreground), iproute2's ip, iptables and ip6tables
# (legacy and nft backends, with the libraries ldd names and the dlopen()ed xtables
# extensions), the installed selftests (make install: run_kselftest.sh, kselftest/, net/),
# tests.txt and the init script.
# Usage: mkinitramfs.sh OUT.cpio.gz INSTALLDIR [TESTS_TXT]
set -euo pipefail
out=$1 testdir=$2 list=${3:-$(dirname "$0")/tests.txt}
here=$(cd "$(dirname "$0")" && pwd)
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,etc,root,tests,lib64}
cp /bin/busybox "$root/bin/busybox"
for a in $("$root/bin/busybox" --list); do
	[ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"
done

# add_bin PATH...: copy each binary with the shared libraries ldd lists, keeping paths.
add_bin() {
	local f lib real
	for f in "$@"; do
		real=$(readlink -f "$f")
		mkdir -p "$root$(dirname "$real")" "$root$(dirname "$f")"
		cp -L "$real" "$root$real"
		[ "$f" = "$real" ] || ln -sf "$real" "$root$f"
		f=$real
		for lib in $(ldd "$f" 2>/dev/null | grep -o '/[^ ]*' || true); do
			[ -e "$root$lib" ] && continue
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
	done
}
rm -f "$root/bin/sh" "$root/bin/ip"   # bash for the scripts, iproute2 for ip netns
add_bin /bin/bash /sbin/ip /usr/bin/timeout /usr/sbin/xtables-legacy-multi /usr/sbin/xtables-nft-multi
ln -s "$(readlink -f /bin/bash)" "$root/bin/sh"
ln -sf "$(readlink -f /sbin/ip)" "$root/bin/ip"
for t in iptables ip6tables; do
	ln -s "$(readlink -f /usr/sbin/xtables-legacy-multi)" "$root/sbin/$t-legacy"
	ln -s "$(readlink -f /usr/sbin/xtables-nft-multi)" "$root/sbin/$t-nft"
	ln -s "$t-legacy" "$root/sbin/$t"
done
xt=/usr/lib/x86_64-linux-gnu/xtables
mkdir -p "$root$xt" && cp -a "$xt"/. "$root$xt"/
add_bin "$xt"/*.so
printf 'root:x:0:0:root:/root:/bin/sh\n' > "$root/etc/passwd"
printf 'root:x:0:\n' > "$root/etc/group"
: > "$root/etc/protocols"
[ -f /etc/protocols ] && cp /etc/protocols "$root/etc/protocols"

cp -a "$testdir"/. "$root/tests/"
cp "$list" "$root/tests/tests.txt"
install -m 0755 "$here/init" "$root/init"

(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$out.tmp"
mv "$out.tmp" "$out"
echo "initramfs: $out ($(du -h "$out" | cut -f1))"
