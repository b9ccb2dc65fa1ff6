#!/usr/bin/env bash
# make kunit: kunit.py run --arch=x86_64 in the worktree with the FLAVOUR kernel's configs (the
# root .kunitconfig, the kselftest fragment, the flavour's own: one kernel build serves both
# runners), in the flavour's build directory.
#
# An oops panics the guest and the panic reboots it (-no-reboot ends QEMU), so a crashed run is
# reported in seconds instead of hanging until the timeout.
#
# KUNIT_CONFIG replaces the root .kunitconfig (make fix-proof: one without the suites of the
# net-next layer); KUNIT_FILTER is kunit.py's filter glob; KUNIT_TIMEOUT its --timeout (default:
# the flavour's).
#
# Writes $BUILD/kunit.counts ("passed failed") for make check and exits with kunit.py's status,
# or non-zero when any case is skipped or crashed (a skip is not a pass here).
. "$(dirname "$0")/../lib/common.sh"
need python3 python3
need ccache ccache
need qemu-system-x86_64 qemu-system-x86
need_tree
mapfile -t configs < <(kunitconfigs)

# TCG unless KVM=1 and the probe passed: kunit.py runs under tcg_only (tools/lib/common.sh),
# which keeps a kunit.py that asks for KVM itself (7.3's) on TCG.
accel_args=() runner=(tcg_only)
if [ "${KVM:-0}" = 1 ]; then
	if "$REPO/tools/lib/kvm-probe.sh"; then
		accel_args=(--qemu_args='-accel kvm') runner=()
		log "accelerator: KVM (KVM=1 and the boot probe passed)"
	else
		log "accelerator: TCG (KVM=1 asked, but the boot probe failed)"
	fi
else
	log "accelerator: TCG (set KVM=1 to try KVM behind a boot probe)"
fi

mkdir -p "$BUILD"
out=$BUILD/kunit.log
rm -f "$BUILD/kunit.counts"

# A clean worktree at the commit, configs and kernel of the last successful build needs no
# build: kunit.py exec boots that kernel (about 20 s less per tree when nothing changed).
stamp_file=$BUILD/.reuseport-migrate-kunit-stamp
kunit_stamp() {
	[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] || return 0
	[ -f "$BUILD/.config" ] && [ -f "$BUILD/arch/x86/boot/bzImage" ] || return 0
	{
		git -C "$TREE" rev-parse HEAD
		printf '%s\n' "${configs[@]}" | sed 's/^--kunitconfig=//' | xargs cat
		cat "$BUILD/.config"
		stat -c '%Y %s' "$BUILD/arch/x86/boot/bzImage"
	} | sha256sum | cut -c1-32
}
cur=$(kunit_stamp)
build_args=(--jobs="$JOBS")
sub=run
if [ -n "$cur" ] && [ "$cur" = "$(cat "$stamp_file" 2>/dev/null)" ]; then
	log "kernel unchanged since its last build ($(git -C "$TREE" rev-parse --short HEAD)): kunit.py exec"
	sub=exec
	build_args=()
fi
rm -f "$stamp_file"

json=$BUILD/kunit.json
rm -f "$json"
start=$(date +%s)
set +e
(cd "$TREE" && "${runner[@]}" python3 tools/testing/kunit/kunit.py "$sub" --arch=x86_64 \
	"${configs[@]}" --build_dir="$BUILD" "${build_args[@]}" --make_options 'CC=ccache gcc' \
	--qemu_args='-smp 2 -m 1024' "${accel_args[@]}" \
	--kernel_args=oops=panic --kernel_args=panic=-1 \
	--timeout="${KUNIT_TIMEOUT:-$(flavour_field "$FLAVOUR" kunit-tmo)}" --json="$json" ${KUNIT_FILTER:+"$KUNIT_FILTER"}) 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
set -e
log "kunit.py $sub exited $rc after $(( $(date +%s) - start )) s"
# The kernel booted, so it built: remember it (test failures do not make it stale).
if grep -aq 'Starting KUnit Kernel' "$out"; then
	kunit_stamp > "$stamp_file"
fi

# The results as kunit.py parsed them (--json, KernelCI's layout): every leaf case, a parameter
# of a parameterised case included, passes or counts as a failure (FAIL, SKIP, ERROR).
read -r passed bad < <(python3 "$REPO/tools/lib/ktap.py" kunit-count "$json")
if [ "$passed" = - ]; then
	log "no KUnit results in $json (build failure or guest crash): counted as 1 failure"
	passed=0 bad=1
elif [ "$passed" = 0 ] && [ "$bad" = 0 ]; then
	log "kunit.py ran no test case: counted as 1 failure"
	bad=1
fi
if [ "$rc" = 0 ] && [ "$bad" -gt 0 ]; then
	log "skipped or crashed cases are failures here ($bad)"
	rc=1
fi
[ "$rc" = 0 ] || [ "$bad" -gt 0 ] || bad=1
echo "$passed $bad" > "$BUILD/kunit.counts"
echo "kunit ($KERNEL $FLAVOUR): $passed passed, $bad failed"
exit "$rc"
