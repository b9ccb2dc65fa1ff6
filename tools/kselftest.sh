#!/usr/bin/env bash
# make kselftest: build the test kernel (shared with make kunit), the net selftests listed in
# kselftest/tests.txt, an initramfs, boot it in QEMU with 2 CPUs, and collect the TAP output.
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

# Build only what tests.txt runs: the whole TARGETS=net does not compile in Debian's trees
# (tools/testing/selftests/net/tls.c, see docs/testing.md).  Programs are make goals of the net
# selftest Makefile, scripts are copied with their helpers.
progs=() scripts=(in_netns.sh)
while read -r name timeout cmd; do
	case $timeout in
	''|*[!0-9]*) die "$KSELFTEST_LIST: '$name $timeout $cmd' is not 'name timeout(s) command'" ;;
	esac
	[ -n "$cmd" ] || die "$KSELFTEST_LIST: '$name $timeout' has no command"
	f=${cmd%% *}; f=${f#./}
	case $f in
	*.sh) scripts+=("$f"); [ -f "$TREE/tools/testing/selftests/net/${f%.sh}.c" ] && progs+=("${f%.sh}") ;;
	*) progs+=("$f") ;;
	esac
done < <(grep -v '^[[:space:]]*\(#\|$\)' "$KSELFTEST_LIST")
# A program's BPF object (<prog>.bpf.c -> <prog>.bpf.o) is loaded at run time from its directory.
for p in "${progs[@]}"; do
	if [ -f "$TREE/tools/testing/selftests/net/$p.bpf.c" ]; then progs+=("$p.bpf.o"); fi
done
out=$KSTOUT/net
rm -rf "$out" && mkdir -p "$out"
log "building selftests: ${progs[*]}"
make -s -C "$TREE/tools/testing/selftests/net" OUTPUT="$out" \
	KHDR_INCLUDES="-isystem $hdr/usr/include" \
	$(printf "$out/%s " "${progs[@]}") >&2 || die "building the net selftests failed"
# Scripts with the helpers they source (lib.sh exists in 6.12, not in 6.1).
for s in "${scripts[@]}" lib.sh; do
	if [ -f "$TREE/tools/testing/selftests/net/$s" ]; then
		cp "$TREE/tools/testing/selftests/net/$s" "$out/"
	fi
done

"$REPO/kselftest/mkinitramfs.sh" "$KSTOUT/initramfs.cpio.gz" "$out" "$KSELFTEST_LIST" >&2

logf=$KSTOUT/guest.log
set +e
"$REPO/tools/qemu-run.sh" "$kernel" "$KSTOUT/initramfs.cpio.gz" "$logf" \
	"${KSELFTEST_TIMEOUT:-1200}" "$CPUS" "${KST_CMDLINE:-}"
qrc=$?
set -e

planned=$(grep -c -v '^[[:space:]]*\(#\|$\)' "$KSELFTEST_LIST")
programs_run=$(grep -c '^\(not \)\{0,1\}ok [0-9]' "$logf" || true)
# A program that prints its own TAP (kselftest_harness.h) counts its cases; any other counts
# as one.  A nested "# SKIP" is a failure here, and so is a failed program with no failed case.
read -r passed failed < <(awk '
	/^# running / { np = 0; nf = 0; next }
	/^# +ok [0-9]+ / { if ($0 ~ /# SKIP/) nf++; else np++; next }
	/^# +not ok [0-9]+ / { nf++; next }
	/^ok [0-9]+ / { p += (np + nf ? np : 1); f += nf; np = nf = 0; next }
	/^not ok [0-9]+ / { p += np; f += (nf ? nf : 1); np = nf = 0; next }
	END { print p + 0, f + 0 }' "$logf")
programs_failed=$(grep -c '^not ok [0-9]' "$logf" || true)
problems=()
grep -q '^rm-guest: done' "$logf" || problems+=("the guest did not finish its test list (qemu exit $qrc)")
grep -q 'Kernel panic' "$logf" && problems+=("the guest panicked")
nproc=$(sed -n 's/^rm-guest: nproc=\([0-9]*\).*/\1/p' "$logf")
[ "${nproc:-0}" -ge "$CPUS" ] || problems+=("the guest has ${nproc:-?} CPUs, $CPUS were asked")
missing=$(( planned - programs_run ))
[ "$missing" -le 0 ] || { problems+=("$missing planned tests never reported"); failed=$((failed + missing)); }
if [ "${#problems[@]}" -gt 0 ] && [ "$failed" = 0 ]; then failed=1; fi
echo "$passed $failed" > "$KSTOUT/counts"
grep '^not ok' "$logf" >&2 || true
for p in "${problems[@]}"; do log "FAIL: $p"; done
echo "kselftest ($KERNEL): $passed passed, $failed failed in $programs_run programs ($programs_failed failed; guest nproc=${nproc:-?}, log $logf)"
[ "$failed" = 0 ] && [ "$programs_failed" = 0 ]
