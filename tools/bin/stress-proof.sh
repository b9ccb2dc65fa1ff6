#!/usr/bin/env bash
# make stress-proof: the evidence that reuseport_migrate_stress bites.  For each line of
# tools/data/stress-proofs.txt - a revert of an upstream fix (tools/data/stress-reverts/NAME.patch),
# the flavour whose detector sees the bug it brings back (debug or kcsan), more kernel command line
# and the regex of the report expected - the tree with the revert is built and the stress runs on it in QEMU (TCG, 2 vCPUs);
# the proof holds when the guest log shows that report.  Run without the revert, the same
# stress is part of make check-debug and make check-kcsan, where any report fails.
#
# The revert goes to a scratch copy of the tree ($CACHE/$KERNEL/stress-proof/linux: hard links,
# so the copy is quick and keeps the timestamps; the reverted files are copied for real) and
# is built in a copy of that flavour's build directory; both are mounted over the real paths in
# a private mount namespace, so the build there is incremental (the reverted file and the link)
# and the real tree and build directories stay untouched.  The debug or KCSAN kernel must have
# been built (make check-debug, make check-kcsan).
#
# STRESS_SECONDS (default 20): RS_SECONDS of the stress in these runs; STRESS_PROOFS: only the
# reverts it names.  One PASS/FAIL line per
# revert with the first report line, then "N passed, N failed"; the summary goes to
# RESULTS/stress-proof-<tree>.txt.
. "$(dirname "$0")/../lib/common.sh"
need unshare util-linux
need patch patch
need_tree
proofs=$REPO/tools/data/stress-proofs.txt
PROOF=$CACHE/$KERNEL/stress-proof
secs=${STRESS_SECONDS:-20}
list=$PROOF/list.txt
mkdir -p "$PROOF"
echo "reuseport_migrate_stress     $((secs * 8 * 6 + 600))" > "$list"

rc=0
while read -r -u 3 name kind extra regex; do
	[ "$extra" != - ] || extra=
	case $name in ''|'#'*) continue ;; esac
	[ -z "${STRESS_PROOFS:-}" ] || [[ " $STRESS_PROOFS " == *" $name "* ]] || continue
	rev=$REPO/tools/data/stress-reverts/$name.patch
	[ -f "$rev" ] || die "tools/data/stress-proofs.txt: no $rev"
	[ "$(flavour_field "$kind" detectors)" != none ] ||
		die "tools/data/stress-proofs.txt: $name: flavour '$kind' has no detectors"
	real=$(build_dir "$KERNEL" "$kind")
	[ -f "$real/arch/x86/boot/bzImage" ] ||
		die "no $kind kernel in $real: run make check-$kind KERNELS=$KERNEL first"

	log "$name: scratch copy of $TREE and $real"
	rm -rf "$PROOF/linux" "$PROOF/build"
	cp -al "$TREE" "$PROOF/linux"
	cp -a "$real" "$PROOF/build"
	for f in $(sed -n 's|^+++ b/||p' "$rev"); do
		cp --remove-destination -p "$TREE/$f" "$PROOF/linux/$f"
	done
	patch -s -d "$PROOF/linux" -p1 --no-backup-if-mismatch < "$rev" ||
		die "$name: $rev does not apply to $TREE"

	out=$PROOF/$name
	mkdir -p "$out"
	rm -f "$out/guest.log" "$PROOF/kst/guest.log"
	# In the namespace, the scratch tree and build are where the tools expect the real ones.
	unshare -m --propagation private bash -c '
		set -e
		mount --bind "$1" "$2"
		mount --bind "$3" "$4"
		KERNEL=$5 FLAVOUR=$7 "$6/tools/lib/build-kernel.sh"
		KERNEL=$5 FLAVOUR=$7 KSTOUT=$8 KSELFTEST_LIST=$9 IMAGE=$4/arch/x86/boot/bzImage \
			KSELFTEST_TIMEOUT=${12} KST_CMDLINE="${10} rm.env=RS_SECONDS=${11}" \
			"$6/tools/bin/kselftest.sh" || true
	' _ "$PROOF/linux" "$TREE" "$PROOF/build" "$real" "$KERNEL" "$REPO" "$kind" \
		"$PROOF/kst" "$list" "$extra" "$secs" "$((secs * 8 * 6 + 900))" \
		> "$out/run.log" 2>&1 ||
		{ tally 0 1 "FAIL $name ($kind): the build or the run failed (see $out/run.log)"; rc=1; continue; }
	cp "$PROOF/kst/guest.log" "$out/guest.log" 2>/dev/null || true
	hit=$(grep -a -m 1 -E "$regex" "$out/guest.log" 2>/dev/null | sed 's/^\[ *[0-9.]*\] //' || true)
	if [ -n "$hit" ]; then
		tally 1 0 "PASS $name ($kind kernel, the fix reverted): $hit"
	else
		tally 0 1 "FAIL $name ($kind kernel, the fix reverted): no report matching '$regex' (log $out/guest.log)"
		rc=1
	fi
done 3< "$proofs"
rm -rf "$PROOF/linux" "$PROOF/build"
tally_end "$rc" "stress-proof-$KERNEL" "make stress-proof KERNEL=$KERNEL${STRESS_SECONDS:+ STRESS_SECONDS=$STRESS_SECONDS}${STRESS_PROOFS:+ STRESS_PROOFS=\"$STRESS_PROOFS\"}"
