#!/usr/bin/env bash
# make check-kcsan: the KUnit suites and the kselftests of kselftest/tests-kcsan.txt on the KCSAN
# kernel of each tree in KERNELS (kunit/kcsan.kunitconfig; KCSAN excludes KASAN, so the kernel
# has its own build directory, $CACHE/<tree>/build-kcsan).
#
# KCSAN reports data races anywhere in the kernel.  tools/kcsan-report.py lists every distinct
# report of the KUnit and guest logs in $CACHE/<tree>/kselftest-kcsan/kcsan-findings.txt and
# sorts them into those in the migration code (a frame of the request migration or reuseport
# paths) and others; each of the former is a failure, the others are listed only.  The list is
# copied to RESULTS/kcsan-findings-<tree>.txt.  Any other
# detector line (a WARNING, an oops) is a failure too.
#
# The last line is "N passed, N failed", where N failed also counts those reports.
. "$(dirname "$0")/common.sh"
kernels=${KERNELS:-$KERNEL}
need python3 python3

rc=0
for k in $kernels; do
	t0=$(date +%s)
	export KERNEL=$k
	"$REPO/tools/tree.sh" || { rc=1; tally 0 1 "$k: make tree failed"; continue; }
	kbuild=$CACHE/$k/build-kcsan
	kout=$CACHE/$k/kselftest-kcsan
	mkdir -p "$kout"
	BUILD=$kbuild KUNIT_EXTRA_CONFIG=$REPO/kunit/kcsan.kunitconfig \
		KUNIT_TIMEOUT=${KUNIT_TIMEOUT:-2400} "$REPO/tools/kunit.sh" || rc=1
	read -r p n < <(read_counts "$kbuild/kunit.counts")
	tally "$p" "$n" "$k kcsan kunit: $p passed, $n failed"
	logs=("$kbuild/test.log")

	if [ "${KCSAN_KSELFTEST:-1}" = 1 ]; then
		KST_KERNEL=$kbuild/arch/x86/boot/bzImage KSTOUT=$kout \
			KSELFTEST_LIST=$REPO/kselftest/tests-kcsan.txt \
			KSELFTEST_TIMEOUT=${KSELFTEST_TIMEOUT:-3000} "$REPO/tools/kselftest.sh" || rc=1
		read -r p n < <(read_counts "$kout/counts")
		tally "$p" "$n" "$k kcsan kselftest: $p passed, $n failed"
		logs+=("$kout/guest.log")
	fi

	# Detector lines other than KCSAN's own reports.
	r=0
	for l in "${logs[@]}"; do
		[ -f "$l" ] || continue
		grep -a -v 'BUG: KCSAN: ' "$l" > "$kout/other.log" || true
		r=$((r + $(scan "$kout/other.log")))
	done
	rm -f "$kout/other.log"
	out=$(python3 "$REPO/tools/kcsan-report.py" "$kout/kcsan-findings.txt" "${logs[@]}" || true)
	echo "$out"
	mkdir -p "${RESULTS:-$REPO/results}"
	cp "$kout/kcsan-findings.txt" "${RESULTS:-$REPO/results}/kcsan-findings-$k.txt"
	m=$(echo "$out" | sed -n 's/^kcsan: \([0-9]*\) report.*/\1/p')
	tally 0 $((r + ${m:-1})) "$k kcsan: ${out#kcsan: }; $r other detector report(s)"
	[ "$r" = 0 ] && [ "${m:-1}" = 0 ] || rc=1
	summary+=("$k kcsan: $(( $(date +%s) - t0 )) s")
done
tally_end "$rc" "check-kcsan-${kernels// /+}" "make check-kcsan KERNELS=\"$kernels\""
