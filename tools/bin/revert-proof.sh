#!/usr/bin/env bash
# make stress-proof, make wake-proof, make wakerace-proof, make leak-proof, make churn-proof,
# make accounting-proof, make orphan-proof, make shutdown-proof, make mptcp-proof,
# make lockdep-proof:
# the evidence that a test bites, by putting back the bug it guards against (or putting in the
# one it exists for).  tools/data/<kind>-proofs.txt names the test ("test NAME", a kselftest of
# kselftest/; or "test kunit FILTER", KUnit cases by kunit.py's filter glob) and what a
# proof expects ("expect report" or "expect cases"); each other line names a revert
# (tools/data/<kind>-reverts/NAME.patch, in the form the code has in this series' final tree;
# tools/data/<kind>-reverts/<tree>/NAME.patch where a tree's code differs),
# the flavour of the kernel it is built in, more kernel command line for the run ("-": none)
# and a pattern (an extended regex):
#   expect report   the guest log must show a line matching it (a detector's report: the
#                   stress against an upstream fix reverted; the flavour must have detectors)
#   expect cases    the test's cases whose name matches it must fail, and every other case
#                   must pass (the wake-up test against one wake-up removed, the fault test's
#                   leak check against a leaked listener, the churn test against a failure
#                   kind it does not explain, the race suite's accounting cases against a
#                   charge or a count left out, its orphaned-listener and MPTCP cases against
#                   a clone that keeps SOCK_DEAD or the shutdown state, the cases of a socket shut down before listen()
#                   against a clone that clears what it copied, the MPTCP queue test's
#                   plain-TCP-survivor cases against a migration that hands it MPTCP children,
#                   the race suite's timer cases on a lockdep kernel against a clone's timer
#                   deleted synchronously from another clone's)
# With "expect cases", a line "show REGEX" names the guest log line quoted in the summary as an
# example of how the cases failed (default: the first "Expected" line).
# The tree with the revert is built and the test runs on it in QEMU (TCG, 2 vCPUs).  Without
# the revert, the same test is part of make check, check-debug or check-kcsan, where it passes.
#
# The revert goes to a scratch copy of the tree ($CACHE/<tree>/<kind>-proof/linux: hard links,
# so the copy is quick and keeps the timestamps; the reverted files are copied for real) and
# is built in a copy of that flavour's build directory; both are mounted over the real paths in
# a private mount namespace, so the build there is incremental (the reverted file and the link)
# and the real tree and build directories stay untouched.  The flavour's kernel must have been
# built (make check, check-debug, check-kcsan).
#
# stress: STRESS_SECONDS (default 20) is the stress's RS_SECONDS in these runs.  <KIND>_PROOFS
# (STRESS_PROOFS, WAKE_PROOFS, ...) runs only the reverts it names.  One PASS/FAIL line per
# revert, then "N passed, N failed"; the summary goes to RESULTS/<kind>-proof-<tree>.txt.
# Usage: revert-proof.sh KIND, a kind with a tools/data/KIND-proofs.txt (stress, wake, leak,
# churn, accounting, orphan, shutdown, mptcp, wakerace, lockdep)
. "$(dirname "$0")/../lib/common.sh"
need unshare util-linux
need patch patch
need python3 python3
need_tree
kind=${1:-}
proofs=$REPO/tools/data/$kind-proofs.txt
case $kind in
''|*[!a-z]*) die "usage: revert-proof.sh KIND (stress, wake, wakerace, leak, churn, accounting, orphan, shutdown, mptcp, lockdep)" ;;
esac
[ -f "$proofs" ] || die "revert-proof.sh $kind: no tools/data/$kind-proofs.txt"
only_var=${kind^^}_PROOFS
only=${!only_var:-}
PROOF=$CACHE/$KERNEL/$kind-proof
list=$PROOF/list.txt
mkdir -p "$PROOF"
test=$(table_rows "$proofs" | awk '$1 == "test" { print $2; exit }')
# "test kunit FILTER": the KUnit cases FILTER selects, run by make kunit's script.
filter=
if [ "$test" = kunit ]; then
	filter=$(table_rows "$proofs" | awk '$1 == "test" { print $3; exit }')
	[ -n "$filter" ] || die "tools/data/$kind-proofs.txt: 'test kunit' wants a filter"
fi
expect=$(table_rows "$proofs" | awk '$1 == "expect" { print $2; exit }')
show=$(sed -n 's/^show[[:space:]]\{1,\}//p' "$proofs" | head -n 1)
show=${show:-Expected}
[ -n "$test" ] || die "tools/data/$kind-proofs.txt: no 'test NAME' line"
case $expect in report|cases) ;; *) die "tools/data/$kind-proofs.txt: want 'expect report' or 'expect cases'" ;; esac
extra_env=
if [ "$kind" = stress ]; then
	secs=${STRESS_SECONDS:-20}
	extra_env="rm.env=RS_SECONDS=$secs"
	echo "$test $((secs * 8 * 6 + 600))" > "$list"
elif [ -n "$filter" ]; then
	echo "kunit 0" > "$list"
else
	kselftest_line "$test" > "$list"
fi
read -r _ tmo < "$list"

rc=0
while read -r -u 3 name flavour extra pattern; do
	case $name in test|expect|show) continue ;; esac
	[ "$extra" != - ] || extra=
	[ -z "$only" ] || [[ " $only " == *" $name "* ]] || continue
	# The revert in this tree's form where the code differs (<kind>-reverts/<tree>/NAME.patch).
	rev=$REPO/tools/data/$kind-reverts/$KERNEL/$name.patch
	[ -f "$rev" ] || rev=$REPO/tools/data/$kind-reverts/$name.patch
	[ -f "$rev" ] || die "tools/data/$kind-proofs.txt: no $rev"
	check_flavour "$flavour"
	[ "$expect" = cases ] || [ "$(flavour_field "$flavour" detectors)" != none ] ||
		die "tools/data/$kind-proofs.txt: $name: flavour '$flavour' has no detectors"
	real=$(build_dir "$KERNEL" "$flavour")
	[ -f "$real/arch/x86/boot/bzImage" ] ||
		die "no $flavour kernel in $real: run make check (FLAVOUR=$flavour) KERNELS=$KERNEL first"

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
	rm -f "$PROOF/build/kunit.json" "$PROOF/build/kunit.log"
	# In the namespace, the scratch tree and build are where the tools expect the real ones.
	# kunit.py builds the kernel itself (the kernel make kunit builds, with its filter).
	unshare -m --propagation private bash -c '
		set -e
		mount --bind "$1" "$2"
		mount --bind "$3" "$4"
		if [ -n "${12}" ]; then
			KERNEL=$5 FLAVOUR=$7 KUNIT_FILTER="${12}" "$6/tools/bin/kunit.sh" || true
			exit 0
		fi
		KERNEL=$5 FLAVOUR=$7 "$6/tools/lib/build-kernel.sh"
		KERNEL=$5 FLAVOUR=$7 KSTOUT=$8 KSELFTEST_LIST=$9 IMAGE=$4/arch/x86/boot/bzImage \
			KSELFTEST_TIMEOUT=${11} KST_CMDLINE="${10}" "$6/tools/bin/kselftest.sh" || true
	' _ "$PROOF/linux" "$TREE" "$PROOF/build" "$real" "$KERNEL" "$REPO" "$flavour" \
		"$PROOF/kst" "$list" "$extra $extra_env" "$((tmo + 300))" "$filter" \
		> "$out/run.log" 2>&1 ||
		{ tally 0 1 "FAIL $name ($flavour): the build or the run failed (see $out/run.log)"; rc=1; continue; }
	if [ -n "$filter" ]; then
		cp "$PROOF/build/kunit.log" "$out/guest.log" 2>/dev/null || touch "$out/guest.log"
	else
		cp "$PROOF/kst/guest.log" "$out/guest.log" 2>/dev/null || touch "$out/guest.log"
	fi
	if [ "$expect" = report ]; then
		hit=$(grep -a -m 1 -E "$pattern" "$out/guest.log" 2>/dev/null | sed 's/^\[ *[0-9.]*\] //' || true)
		if [ -n "$hit" ]; then
			tally 1 0 "PASS $name ($flavour kernel, reverted): $hit"
		else
			tally 0 1 "FAIL $name ($flavour kernel, reverted): no report matching '$pattern' (log $out/guest.log)"
			rc=1
		fi
		continue
	fi
	# expect cases: those matching the pattern fail, all others pass.
	if [ -n "$filter" ]; then
		python3 "$REPO/tools/lib/ktap.py" kunit-cases "$PROOF/build/kunit.json" "$filter" 2>/dev/null
	else
		python3 "$REPO/tools/lib/ktap.py" kst-cases "$out/guest.log" .
	fi | sed '/^$/d' > "$out/cases.txt"
	total=$(wc -l < "$out/cases.txt")
	want=$(awk -F'\t' -v re="$pattern" '$1 ~ re' "$out/cases.txt" | wc -l)
	want_failed=$(awk -F'\t' -v re="$pattern" '$1 ~ re && $2 == "FAIL"' "$out/cases.txt" | wc -l)
	others_passed=$(awk -F'\t' -v re="$pattern" '$1 !~ re && $2 == "PASS"' "$out/cases.txt" | wc -l)
	first=$(grep -a -m 1 -E "$show" "$out/guest.log" | sed 's/^\[[0-9:]*\] *//; s/^# *//; s/^# *//' || true)
	line="$name ($flavour kernel, reverted): $want_failed of $want cases /$pattern/ failed, $others_passed of $((total - want)) others passed"
	if [ "$want" -gt 0 ] && [ "$want_failed" = "$want" ] && [ "$others_passed" = $((total - want)) ]; then
		tally 1 0 "PASS $line; e.g. $first"
	else
		tally 0 1 "FAIL $line (cases in $out/cases.txt, log $out/guest.log)"
		rc=1
	fi
	while read -r c; do summary+=("  $name: failed $c"); done < <(awk -F'\t' '$2 == "FAIL" { print $1 }' "$out/cases.txt")
done 3< <(table_rows "$proofs")
rm -rf "$PROOF/linux" "$PROOF/build"
cmd="make $kind-proof KERNEL=$KERNEL"
[ "$kind" != stress ] || cmd="$cmd${STRESS_SECONDS:+ STRESS_SECONDS=$STRESS_SECONDS}"
[ -z "$only" ] || cmd="$cmd ${kind^^}_PROOFS=\"$only\""
KERNELS=$KERNEL tally_end "$rc" "$kind-proof-$KERNEL" "$cmd"
