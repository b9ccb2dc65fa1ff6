#!/usr/bin/env bash
# make check, make check-debug, make check-kcsan: the harness's own test (make check only:
# tools/test/run.sh), then for each tree in KERNELS, the FLAVOUR kernel's
# KUnit suites (make kunit) and kselftests (make kselftest, the flavour's lists), what its
# detectors reported (tools/data/flavours), and on the plain kernel the shortened demo and
# servers scenario (tools/bin/demo-check.sh; CHECK_DEMO=0 / CHECK_SERVERS=0 leave one out).
# CHECK_KSELFTEST=0 runs the KUnit suites only.
#
# Detectors: "all" (debug) counts every report a detector printed in a guest log as a failure,
# shown with the lines around it: BUG:/WARNING:/INFO: (KASAN, lockdep, sleeping in atomic,
# RCU), UBSAN:, ODEBUG:, list and refcount_t corruption, kmemleak's unreferenced objects (the
# kselftest guest clears kmemleak before its tests and scans twice after them; a guest that did
# not scan fails), oopses and panics.  "kcsan" lists every distinct KCSAN report of the KUnit
# and guest logs in $KSTOUT/kcsan-findings.txt (tools/lib/kcsan-report.py), copied to
# RESULTS/kcsan-findings-<tree>.txt; a report in the migration code is a failure, the others are
# listed only; any other detector report is a failure.
#
# The last line is "N passed, N failed", N failed counting the reports too; the summary goes to
# RESULTS/check[-<flavour>]-<trees>.txt.
. "$(dirname "$0")/../lib/common.sh"
detectors=$(flavour_field "$FLAVOUR" detectors)
name=check
[ "$FLAVOUR" = plain ] || name=check-$FLAVOUR
[ "$detectors" != kcsan ] || need python3 python3

# kmemleak_line LOG: the guest init's kmemleak result, empty if it did not scan.
kmemleak_line() {
	grep -a '^rm-guest: kmemleak: [0-9]* unreferenced' "$1" 2>/dev/null | sed 's/^rm-guest: //'
}

one_tree() {
	local rc=0 p n r logs=() out m l
	"$REPO/tools/bin/kunit.sh" || rc=1
	read -r p n < <(read_counts "$BUILD/kunit.counts")
	logs=("$BUILD/test.log")
	r=0
	[ "$detectors" != all ] || [ ! -f "$BUILD/test.log" ] || r=$(scan "$BUILD/test.log")
	tally "$p" $((n + r)) "$KERNEL $FLAVOUR kunit: $p passed, $n failed, $r detector report(s)"
	[ "$r" = 0 ] || rc=1

	if [ "${CHECK_KSELFTEST:-1}" = 1 ]; then
		"$REPO/tools/bin/kselftest.sh" || rc=1
		read -r p n < <(read_counts "$KSTOUT/counts")
		logs+=("$KSTOUT/guest.log")
		r=0
		if [ "$detectors" = all ]; then
			[ ! -f "$KSTOUT/guest.log" ] || r=$(scan "$KSTOUT/guest.log")
			if [ -z "$(kmemleak_line "$KSTOUT/guest.log")" ]; then
				log "the guest did not run its kmemleak scan: counted as a failure"
				r=$((r + 1))
			fi
		fi
		l=
		[ "$detectors" != all ] || l=" ($(kmemleak_line "$KSTOUT/guest.log"))"
		tally "$p" $((n + r)) "$KERNEL $FLAVOUR kselftest: $p passed, $n failed, $r detector report(s)$l"
		[ "$r" = 0 ] || rc=1
	fi

	if [ "$detectors" = kcsan ]; then
		# Detector lines other than KCSAN's own reports, then KCSAN's sorted.
		r=0
		for l in "${logs[@]}"; do
			[ -f "$l" ] || continue
			grep -a -v 'BUG: KCSAN: ' "$l" > "$KSTOUT/other.log" || true
			r=$((r + $(scan "$KSTOUT/other.log")))
		done
		rm -f "$KSTOUT/other.log"
		out=$(python3 "$REPO/tools/lib/kcsan-report.py" "$KSTOUT/kcsan-findings.txt" "${logs[@]}" || true)
		echo "$out"
		mkdir -p "${RESULTS:-$REPO/results}"
		cp "$KSTOUT/kcsan-findings.txt" "${RESULTS:-$REPO/results}/kcsan-findings-$KERNEL.txt"
		m=$(echo "$out" | sed -n 's/^kcsan: \([0-9]*\) report.*/\1/p')
		tally 0 $((r + ${m:-1})) "$KERNEL kcsan: ${out#kcsan: }; $r other detector report(s)"
		# What this run could see: KCSAN watches one access in kcsan.skip_watch (4,000 by
		# default), for as long as the stress runs.  make stress-proof caught the sysctl race
		# with 400 and 20 s per case; at the defaults a clean run is weaker evidence.
		l=$(flavour_field "$FLAVOUR" cmdline)
		[[ " $l ${KST_CMDLINE:-} " == *" kcsan.skip_watch="* ]] ||
			summary+=("$KERNEL kcsan: limit: default sampling (kcsan.skip_watch=4000) and the stress's own RS_SECONDS: about 10 x 5 times less likely to see a race than make stress-proof's kcsan.skip_watch=400 and 20 s per case (docs/testing.md)")
		[ "$r" = 0 ] && [ "${m:-1}" = 0 ] || rc=1
	fi

	if [ "$FLAVOUR" = plain ]; then
		for step in demo servers; do
			[ "$step" != demo ] || [ "${CHECK_DEMO:-1}" = 1 ] || continue
			[ "$step" != servers ] || [ "${CHECK_SERVERS:-1}" = 1 ] || continue
			"$REPO/tools/bin/demo-check.sh" "$step" || rc=1
			read -r p n < <(read_counts "$CACHE/$KERNEL/$step-check/counts")
			tally "$p" "$n" "$KERNEL $step-check: $p passed, $n failed"
		done
	fi
	return "$rc"
}

rc=0
# make check starts with the harness's own test: the readers that count every step's results,
# fed recorded logs (tools/test/).
if [ "$FLAVOUR" = plain ]; then
	mkdir -p "$CACHE"
	"$REPO/tools/test/run.sh" "$CACHE/selftest.counts" > "$CACHE/selftest.log" || rc=1
	read -r p n < <(read_counts "$CACHE/selftest.counts")
	grep '^not ok\|^# ' "$CACHE/selftest.log" || true
	tally "$p" "$n" "harness self-test (tools/test): $p passed, $n failed"
fi
for_each_tree one_tree || rc=1
cmd="make $name KERNELS=\"$KERNELS\""
[ "${CHECK_KSELFTEST:-1}" = 1 ] || cmd="$cmd CHECK_KSELFTEST=0"
tally_end "$rc" "$name-${KERNELS// /+}" "$cmd"
