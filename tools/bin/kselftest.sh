#!/usr/bin/env bash
# make kselftest: build the FLAVOUR kernel of the tree (shared with make kunit; IMAGE boots a
# given bzImage instead) and the net selftests (the kernel's make -C tools/testing/selftests
# TARGETS=net install), pack them in an initramfs, boot it in QEMU with 2 CPUs, run the tests
# of the flavour's lists (tools/data/flavours; KSELFTEST_LIST names another list) with
# run_kselftest.sh and count their KTAP output (tools/lib/ktap.py).
# Fails if a test fails or skips, if the guest panics, has fewer CPUs than asked, or times out.
# Writes $KSTOUT/counts ("passed failed") for make check.
#
# KST_CMDLINE: more kernel command line for the guest, after the flavour's (make soak, make
# stress-proof: rm.env=NAME=VALUE for the tests).  KSELFTEST_TIMEOUT: the guest's time limit
# (default: the flavour's).  KST_WITHOUT: what the guest is packed without, to see the tests
# skip (make skip-proof): "iptables" (the iptables and ip6tables commands), "bpf-objects" (the
# selftests' *.bpf.o).
. "$(dirname "$0")/../lib/common.sh"
need qemu-system-x86_64 qemu-system-x86
need cpio cpio
need gcc gcc
need clang clang
[ -x /bin/busybox ] || die "busybox is missing: install it with 'apt-get install -y busybox-static'"
[ -x /usr/sbin/xtables-legacy-multi ] || die "iptables is missing: install it with 'apt-get install -y iptables'"
need_pkg libelf-dev
need_pkg libnuma-dev
need_pkg libcap-dev
need_pkg libmnl-dev
need_tree

CPUS=${CPUS:-2}
mkdir -p "$KSTOUT"
rm -f "$KSTOUT/counts"
[ -n "${IMAGE:-}" ] || "$REPO/tools/lib/build-kernel.sh"
kernel=$(image)
list=${KSELFTEST_LIST:-}
if [ -z "$list" ]; then
	list=$KSTOUT/tests.txt
	flavour_list "$list"
fi

hdr=$KSTOUT/hdr
log "installing UAPI headers into $hdr/usr/include"
make -s -C "$TREE" O="$hdr" headers >&2 || die "make headers failed in $TREE"

# The list: "name timeout(s)", name as the selftests' kselftest-list.txt has it (net:<name>).
names=()
while read -r name timeout extra; do
	case $timeout in
	''|*[!0-9]*) die "$list: '$name $timeout' is not 'name timeout(s)'" ;;
	esac
	[ -z "$extra" ] || die "$list: '$name $timeout $extra': want 'name timeout(s)' only"
	names+=("$name")
done < <(table_rows "$list")

# The kernel's own build and install of the net selftests (the whole directory, as netdev's CI
# does): run_kselftest.sh, kselftest/runner.sh, kselftest-list.txt and net/ in $inst.  The
# build directory is kept while the tree's commit stays the same; a new commit (or another
# tree) starts it afresh, as the selftests' rules do not rebuild a program when only a header
# it includes changed.
inst=$KSTOUT/install
rm -rf "$inst"
# The stamp lives in the build directory itself, so that a run whose KSTOUT links to another's
# build directory (make skip-proof) reads the same one.
stamp="$TREE $(git -C "$TREE" rev-parse HEAD 2>/dev/null || echo no-git)"
build=$(readlink -f "$KSTOUT/build")
if [ "$(cat "$build/.rm-tree" 2>/dev/null)" != "$stamp" ]; then
	rm -rf "$build"
	mkdir -p "$build"
	echo "$stamp" > "$build/.rm-tree"
fi
log "building the net selftests: make -C tools/testing/selftests TARGETS=net install"
make -s -C "$TREE/tools/testing/selftests" TARGETS=net O="$KSTOUT/build" \
	KHDR_INCLUDES="-isystem $hdr/usr/include" INSTALL_PATH="$inst" -j"$JOBS" install >&2 ||
	die "building the net selftests failed (make -C tools/testing/selftests TARGETS=net install)"
for n in "${names[@]}"; do
	grep -qxF "net:$n" "$inst/kselftest-list.txt" ||
		die "$list: net:$n is not in the installed kselftest-list.txt"
done

# The guest: bash for the scripts (as /bin/sh too), coreutils' timeout (the kernel's runner
# wants /usr/bin/timeout --foreground), iproute2's ip (ip netns), iptables and ip6tables (legacy
# and nft backends, with the dlopen()ed xtables extensions), the installed selftests and the list.
xt=/usr/lib/x86_64-linux-gnu/xtables
legacy=$(readlink -f /usr/sbin/xtables-legacy-multi) nft=$(readlink -f /usr/sbin/xtables-nft-multi)
args=(--init "$REPO/kselftest/init")
without=" ${KST_WITHOUT:-} "
for w in $without; do
	case $w in
	iptables|bpf-objects) ;;
	*) die "KST_WITHOUT: '$w' is not iptables or bpf-objects" ;;
	esac
done
[[ $without != *' bpf-objects '* ]] || find "$inst" -name '*.bpf.o' -delete
bins=(/bin/bash /sbin/ip /usr/bin/timeout)
[[ $without == *' iptables '* ]] || bins+=("$legacy" "$nft" "$xt"/*.so)
for b in "${bins[@]}"; do args+=(--dynamic "$b"); done
# the shared libraries of the installed selftests (libelf and libz for those linking libbpf)
while IFS= read -r -d '' f; do
	! ldd "$f" >/dev/null 2>&1 || args+=(--libs "$f")
done < <(find "$inst" -type f -perm -u+x -print0)
args+=(--link "$(readlink -f /bin/bash)=/bin/sh" --link "$(readlink -f /sbin/ip)=/bin/ip")
for t in iptables ip6tables; do
	[[ $without != *' iptables '* ]] || break
	args+=(--link "$legacy=/sbin/$t-legacy" --link "$nft=/sbin/$t-nft" --link "$t-legacy=/sbin/$t")
done
[ ! -f /etc/protocols ] || args+=(--file /etc/protocols=/etc/protocols)
args+=(--dir "$inst=/tests" --file "$list=/tests/tests.txt")
"$REPO/tools/lib/mkinitramfs.sh" "$KSTOUT/initramfs.cpio.gz" "${args[@]}" >&2

logf=$KSTOUT/guest.log
cmdline="$(flavour_field "$FLAVOUR" cmdline) ${KST_CMDLINE:-}"
set +e
"$REPO/tools/lib/qemu-run.sh" "$kernel" "$KSTOUT/initramfs.cpio.gz" "$logf" \
	"${KSELFTEST_TIMEOUT:-$(flavour_field "$FLAVOUR" kst-tmo)}" "$CPUS" "$cmdline"
qrc=$?
set -e

read -r passed failed programs_run programs_failed < \
	<(python3 "$REPO/tools/lib/ktap.py" kst-count "$logf" "${#names[@]}")
mapfile -t problems < <("$REPO/tools/lib/guest-check.sh" "$logf" rm-guest "$CPUS" "$qrc")
nproc=$(sed -n 's/^rm-guest: nproc=\([0-9]*\).*/\1/p' "$logf")
missing=$(( ${#names[@]} - programs_run ))
[ "$missing" -le 0 ] || problems+=("$missing planned tests never reported")
if [ "${#problems[@]}" -gt 0 ] && [ "$failed" = 0 ]; then failed=1; fi
echo "$passed $failed" > "$KSTOUT/counts"
grep -E '^(not ok [0-9]+ selftests: |ok [0-9]+ selftests: .*# SKIP)' "$logf" >&2 || true
for p in "${problems[@]}"; do log "FAIL: $p"; done
echo "kselftest ($KERNEL $FLAVOUR): $passed passed, $failed failed in $programs_run programs ($programs_failed failed; guest nproc=${nproc:-?}, log $logf)"
[ "$failed" = 0 ] && [ "$programs_failed" = 0 ]
