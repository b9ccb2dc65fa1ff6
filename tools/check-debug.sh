#!/usr/bin/env bash
# make check-debug: the KUnit suites and the kselftests (kselftest/tests.txt and the debug-only
# kselftest/tests-debug.txt) on the debug kernel of each tree in
# KERNELS (kunit/debug.kunitconfig: KASAN, lockdep, DEBUG_ATOMIC_SLEEP, DEBUG_OBJECTS_TIMERS,
# DEBUG_LIST, UBSAN, kmemleak, fault injection), built in $CACHE/<tree>/build-debug.
#
# Every report a detector prints in a guest log is a failure, shown with the lines around it:
# BUG:/WARNING:/INFO: (KASAN, lockdep, sleeping in atomic, RCU), UBSAN:, ODEBUG:, list and
# refcount_t corruption, kmemleak's unreferenced objects (the kselftest guest clears kmemleak
# before its tests and scans twice after them), oopses and panics.
#
# DEBUG_KSELFTEST=0 runs the KUnit suites only.  The last line is "N passed, N failed", where
# N failed also counts the reports.
. "$(dirname "$0")/common.sh"
kernels=${KERNELS:-$KERNEL}

rc=0
for k in $kernels; do
	t0=$(date +%s)
	export KERNEL=$k
	"$REPO/tools/tree.sh" || { rc=1; tally 0 1 "$k: make tree failed"; continue; }
	dbuild=$CACHE/$k/build-debug
	BUILD=$dbuild KUNIT_EXTRA_CONFIG=$REPO/kunit/debug.kunitconfig \
		KUNIT_TIMEOUT=${KUNIT_TIMEOUT:-1800} "$REPO/tools/kunit.sh" || rc=1
	read -r p n < <(read_counts "$dbuild/kunit.counts")
	r=0
	[ -f "$dbuild/test.log" ] && r=$(scan "$dbuild/test.log")
	tally "$p" $((n + r)) "$k debug kunit: $p passed, $n failed, $r detector report(s)"
	[ "$r" = 0 ] || rc=1

	if [ "${DEBUG_KSELFTEST:-1}" = 1 ]; then
		kout=$CACHE/$k/kselftest-debug
		mkdir -p "$kout"
		cat "$REPO/kselftest/tests.txt" "$REPO/kselftest/tests-debug.txt" > "$kout/tests.txt"
		KST_KERNEL=$dbuild/arch/x86/boot/bzImage KSTOUT=$kout KSELFTEST_LIST=$kout/tests.txt \
			KST_CMDLINE="$DEBUG_CMDLINE" "$REPO/tools/kselftest.sh" || rc=1
		read -r p n < <(read_counts "$kout/counts")
		r=0
		[ -f "$kout/guest.log" ] && r=$(scan "$kout/guest.log")
		if ! grep -aq '^rm-guest: kmemleak: [0-9]* unreferenced' "$kout/guest.log" 2>/dev/null; then
			log "the guest did not run its kmemleak scan: counted as a failure"
			r=$((r + 1))
		fi
		tally "$p" $((n + r)) "$k debug kselftest: $p passed, $n failed, $r detector report(s) ($(grep -a '^rm-guest: kmemleak: [0-9]* unreferenced' "$kout/guest.log" 2>/dev/null | sed 's/^rm-guest: //'))"
		[ "$r" = 0 ] || rc=1
	fi
	summary+=("$k debug: $(( $(date +%s) - t0 )) s")
done
tally_end "$rc" "check-debug-${kernels// /+}" "make check-debug KERNELS=\"$kernels\"${DEBUG_KSELFTEST:+ DEBUG_KSELFTEST=$DEBUG_KSELFTEST}"
