#!/usr/bin/env bash
# make standalone-check: the series the way a reviewer takes it, with nothing of this
# repository but the patches.  A fresh extraction of linux-source-$KERNEL, `git am` of series/
# (the $KERNEL variant where there is one), then, in that tree, the in-tree commands only:
#
#   ./tools/testing/kunit/kunit.py run --arch=x86_64 --kunitconfig=net/core
#   make headers && make -k -C tools/testing/selftests TARGETS=net
#
# It passes when kunit.py passes with the suites of net/core/.kunitconfig in its output
# (sock_reuseport, sock_reuseport_model, sock_reuseport_decision), and the selftests build
# with the series' programs among them.  No ccache, no build cache: it costs a cold build.
# The extraction lives in $CACHE/$KERNEL/standalone and is replaced on every run.
. "$(dirname "$0")/common.sh"
need git git
need xz xz-utils
need python3 python3
need qemu-system-x86_64 qemu-system-x86
need clang clang
need_pkg "$PKG"
[ -f "$TARBALL" ] || die "$TARBALL not found although $PKG is installed: reinstall it with 'apt-get install --reinstall -y $PKG'"

dir=$CACHE/$KERNEL/standalone
start=$(date +%s)
rm -rf "$dir"
mkdir -p "$dir"
log "extracting $TARBALL into $dir"
tar -xJf "$TARBALL" -C "$dir" --strip-components=1
cd "$dir"
git init -q
git add -A -f
git commit -q -m "linux-source-$KERNEL $(pkg_version "$PKG")"

n=0
while read -r p; do
	f=$(series_file "$p")
	git am -q "$f" || { git am --abort; die "patch $p ($f) does not apply to a fresh $PKG (reason above)"; }
	n=$((n + 1))
done < <(series_patches)
log "applied $n patches with git am"

passed=0 failed=0
# report OK LINE: print LINE after PASS (OK=1) or FAIL, and count it
report() {
	if [ "$1" = 1 ]; then
		echo "PASS $2"
		passed=$((passed + 1))
	else
		echo "FAIL $2"
		failed=$((failed + 1))
	fi
}
out=$CACHE/$KERNEL/standalone-kunit.log
log "kunit.py run --arch=x86_64 --kunitconfig=net/core (cold build)"
if python3 tools/testing/kunit/kunit.py run --arch=x86_64 --kunitconfig=net/core \
	--jobs="$JOBS" >"$out" 2>&1; then
	summary=$(sed 's/\x1b\[[0-9;]*m//g' "$out" | grep -a 'Testing complete\.' | tail -n 1)
	echo "kunit.py: $summary"
	missing=()
	for s in sock_reuseport sock_reuseport_model sock_reuseport_decision; do
		sed 's/\x1b\[[0-9;]*m//g' "$out" | grep -aqE "\[PASSED\] $s( |\$)" || missing+=("$s")
	done
	report "$([ "${#missing[@]}" = 0 ] && echo 1)" "kunit.py --kunitconfig=net/core (${missing[*]:+suites not run or not passed: ${missing[*]}; }$summary; log $out)"
else
	tail -n 30 "$out"
	report 0 "kunit.py --kunitconfig=net/core exited non-zero (log $out)"
fi

out=$CACHE/$KERNEL/standalone-selftests.log
log "make headers && make -k -C tools/testing/selftests TARGETS=net"
progs=(reuseport_migrate reuseport_migrate_bpf reuseport_migrate_fault reuseport_migrate_churn)
# -k: a program of the base tree that does not build must not hide ours.  Such failures are
# reported, and pass only when the series does not touch the program's directory entry
# (6.1.192's own tls.c does not build against its UAPI headers, with or without the series).
if make -j"$JOBS" headers >"$out" 2>&1; then
	make -k -j"$JOBS" -C tools/testing/selftests TARGETS=net >>"$out" 2>&1 || true
	missing=()
	for p in "${progs[@]}"; do
		[ -x "tools/testing/selftests/net/$p" ] || missing+=("$p")
	done
	broken=() ours=()
	while read -r t; do
		[ -n "$t" ] || continue
		t=${t##*/}
		if git diff --name-only HEAD~"$n" HEAD -- "tools/testing/selftests/net/$t"* | grep -q .; then
			ours+=("$t")
		else
			broken+=("$t")
		fi
	done < <(sed -n 's/.*\*\*\* \[[^]]*lib\.mk:[0-9]*: \([^]]*\)\] Error.*/\1/p' "$out" | sort -u)
	[ "${#broken[@]}" = 0 ] ||
		echo "note: base-tree selftests that do not build, untouched by the series: ${broken[*]}"
	detail="${missing[*]:+not built: ${missing[*]} }${ours[*]:+failed: ${ours[*]}}"
	report "$([ -z "$detail" ] && echo 1)" \
		"make -C tools/testing/selftests TARGETS=net (${progs[*]}: ${detail:-built}; log $out)"
else
	tail -n 20 "$out"
	report 0 "make headers (log $out)"
fi

echo "standalone-check ($KERNEL, $n patches): $passed passed, $failed failed in $(( $(date +%s) - start )) s"
[ "$failed" = 0 ]
