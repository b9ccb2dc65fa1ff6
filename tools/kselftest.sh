#!/usr/bin/env bash
# make kselftest: build the test kernel (shared with make kunit) and the net selftests (the
# kernel's make -C tools/testing/selftests TARGETS=net install), pack them in an initramfs,
# boot it in QEMU with 2 CPUs, run the tests of kselftest/tests.txt with run_kselftest.sh and
# collect their KTAP output.
# Fails if a test fails or skips, if the guest panics, has fewer CPUs than asked, or times out.
# Writes $KSTOUT/counts ("passed failed") for make check.
. "$(dirname "$0")/common.sh"
need qemu-system-x86_64 qemu-system-x86
need cpio cpio
need gcc gcc
need clang clang
[ -x /bin/busybox ] || die "busybox is missing: install it with 'apt-get install -y busybox-static'"
[ -x /usr/sbin/xtables-legacy-multi ] || die "iptables is missing: install it with 'apt-get install -y iptables'"
need_pkg libbpf-dev
need_pkg libnuma-dev
need_pkg libcap-dev
need_pkg libmnl-dev

CPUS=${CPUS:-2}
mkdir -p "$KSTOUT"
rm -f "$KSTOUT/counts"
# KST_CMDLINE: more kernel command line for the guest (check-debug: slub_debug=A,... for
# the fault injection test).
# KST_KERNEL: boot this bzImage instead of building the tree's test kernel (e.g. to run
# selftests of another worktree on an already built kernel).
if [ -n "${KST_KERNEL:-}" ]; then
	kernel=$KST_KERNEL
	[ -f "$kernel" ] || die "KST_KERNEL=$kernel does not exist"
else
	"$REPO/tools/build-kernel.sh"
	kernel=$BUILD/arch/x86/boot/bzImage
fi

hdr=$KSTOUT/hdr
log "installing UAPI headers into $hdr/usr/include"
make -s -C "$TREE" O="$hdr" headers >&2 || die "make headers failed in $TREE"

# The list: "name timeout(s)", name as the selftests' kselftest-list.txt has it (net:<name>).
names=()
while read -r name timeout extra; do
	case $timeout in
	''|*[!0-9]*) die "$KSELFTEST_LIST: '$name $timeout' is not 'name timeout(s)'" ;;
	esac
	[ -z "$extra" ] || die "$KSELFTEST_LIST: '$name $timeout $extra': want 'name timeout(s)' only"
	names+=("$name")
done < <(grep -v '^[[:space:]]*\(#\|$\)' "$KSELFTEST_LIST")

# The kernel's own build and install of the net selftests (the whole directory, as netdev's CI
# does): run_kselftest.sh, kselftest/runner.sh, kselftest-list.txt and net/ in $inst.  The
# build directory is kept between runs, so only what changed is rebuilt.
inst=$KSTOUT/install
rm -rf "$inst"
log "building the net selftests: make -C tools/testing/selftests TARGETS=net install"
make -s -C "$TREE/tools/testing/selftests" TARGETS=net O="$KSTOUT/build" \
	KHDR_INCLUDES="-isystem $hdr/usr/include" INSTALL_PATH="$inst" -j"$JOBS" install >&2 ||
	die "building the net selftests failed (make -C tools/testing/selftests TARGETS=net install)"
for n in "${names[@]}"; do
	grep -qxF "net:$n" "$inst/kselftest-list.txt" ||
		die "$KSELFTEST_LIST: net:$n is not in the installed kselftest-list.txt"
done

"$REPO/kselftest/mkinitramfs.sh" "$KSTOUT/initramfs.cpio.gz" "$inst" "$KSELFTEST_LIST" >&2

logf=$KSTOUT/guest.log
set +e
"$REPO/tools/qemu-run.sh" "$kernel" "$KSTOUT/initramfs.cpio.gz" "$logf" \
	"${KSELFTEST_TIMEOUT:-1200}" "$CPUS" "${KST_CMDLINE:-}"
qrc=$?
set -e

planned=${#names[@]}
# run_kselftest.sh prints one "ok 1 selftests: net: <name>" (or "not ok", "# SKIP") per test;
# each test starts with the init's "rm-guest: test" line.
programs_run=$(grep -c '^\(not \)\{0,1\}ok [0-9]* selftests: ' "$logf" || true)
# A program that prints its own TAP (kselftest_harness.h) counts its cases; any other counts
# as one.  A skip, nested or not, is a failure here, and so is a failed program with no failed
# case.
read -r passed failed < <(awk '
	/^rm-guest: test / { np = 0; nf = 0; next }
	/^# +ok [0-9]+ / { if ($0 ~ /# SKIP/) nf++; else np++; next }
	/^# +not ok [0-9]+ / { nf++; next }
	/^ok [0-9]+ selftests: / { if ($0 ~ /# SKIP/) { p += np; f += (nf ? nf : 1) }
		else { p += (np + nf ? np : 1); f += nf }; np = nf = 0; next }
	/^not ok [0-9]+ selftests: / { p += np; f += (nf ? nf : 1); np = nf = 0; next }
	END { print p + 0, f + 0 }' "$logf")
programs_failed=$(grep -c -E '^(not ok [0-9]+ selftests: |ok [0-9]+ selftests: .*# SKIP)' "$logf" || true)
mapfile -t problems < <("$REPO/tools/guest-check.sh" "$logf" rm-guest "$CPUS" "$qrc")
nproc=$(sed -n 's/^rm-guest: nproc=\([0-9]*\).*/\1/p' "$logf")
missing=$(( planned - programs_run ))
[ "$missing" -le 0 ] || { problems+=("$missing planned tests never reported"); failed=$((failed + missing)); }
if [ "${#problems[@]}" -gt 0 ] && [ "$failed" = 0 ]; then failed=1; fi
echo "$passed $failed" > "$KSTOUT/counts"
grep -E '^(not ok [0-9]+ selftests: |ok [0-9]+ selftests: .*# SKIP)' "$logf" >&2 || true
for p in "${problems[@]}"; do log "FAIL: $p"; done
echo "kselftest ($KERNEL): $passed passed, $failed failed in $programs_run programs ($programs_failed failed; guest nproc=${nproc:-?}, log $logf)"
[ "$failed" = 0 ] && [ "$programs_failed" = 0 ]
