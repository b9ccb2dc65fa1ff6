#!/usr/bin/env bash
# make standalone-check: the series the way a reviewer takes it, with nothing of this
# repository but the patches.  A fresh extraction of linux-source-$KERNEL, `git am` of series/
# (the $KERNEL variant where there is one), then, in that tree, the in-tree commands only:
#
#   ./tools/testing/kunit/kunit.py run --arch=x86_64 --kunitconfig=net/core
#   make headers && make -C tools/testing/selftests TARGETS=net
#
# It passes when kunit.py passes with the suites of net/core/.kunitconfig in its output
# (sock_reuseport, sock_reuseport_model, sock_reuseport_decision), and the whole net selftest
# directory builds (exit 0) with the series' programs among them.  No ccache, no build cache: it costs a cold build.
# The extraction lives in $CACHE/$KERNEL/standalone and is replaced on every run.
. "$(dirname "$0")/../lib/common.sh"
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
out=$CACHE/$KERNEL/standalone-kunit.log json=$CACHE/$KERNEL/standalone-kunit.json
log "kunit.py run --arch=x86_64 --kunitconfig=net/core (cold build)"
rm -f "$json"
if tcg_only python3 tools/testing/kunit/kunit.py run --arch=x86_64 --kunitconfig=net/core \
	--jobs="$JOBS" --json="$json" >"$out" 2>&1; then
	read -r p b < <(python3 "$REPO/tools/lib/ktap.py" kunit-count "$json")
	echo "kunit.py: $p passed, $b not passed"
	missing=()
	for s in sock_reuseport sock_reuseport_model sock_reuseport_decision; do
		cases=$(python3 "$REPO/tools/lib/ktap.py" kunit-cases "$json" "$s") || cases=
		[ -n "$cases" ] && ! grep -qv "	PASS$" <<<"$cases" || missing+=("$s")
	done
	report "$([ "${#missing[@]}" = 0 ] && [ "$b" = 0 ] && echo 1)" \
		"kunit.py --kunitconfig=net/core (${missing[*]:+suites not run or not passed: ${missing[*]}; }$p passed, $b not; log $out)"
else
	tail -n 30 "$out"
	report 0 "kunit.py --kunitconfig=net/core exited non-zero (log $out)"
fi

out=$CACHE/$KERNEL/standalone-selftests.log
log "make headers && make -C tools/testing/selftests TARGETS=net"
progs=(reuseport_migrate reuseport_migrate_bpf reuseport_migrate_fault reuseport_migrate_churn)
# The whole directory must build: the base-fixups layer repairs what Debian's tree breaks.
if make -j"$JOBS" headers >"$out" 2>&1 &&
   make -j"$JOBS" -C tools/testing/selftests TARGETS=net >>"$out" 2>&1; then
	missing=()
	for p in "${progs[@]}"; do
		[ -x "tools/testing/selftests/net/$p" ] || missing+=("$p")
	done
	report "$([ "${#missing[@]}" = 0 ] && echo 1)" \
		"make -C tools/testing/selftests TARGETS=net exits 0 (${missing[*]:+not built: ${missing[*]}; }log $out)"
else
	grep -a -E 'error|Error [0-9]' "$out" | head -n 20
	report 0 "make headers && make -C tools/testing/selftests TARGETS=net failed (log $out)"
fi

echo "standalone-check ($KERNEL, $n patches): $passed passed, $failed failed in $(( $(date +%s) - start )) s"
[ "$failed" = 0 ]
