#!/usr/bin/env bash
# make soak: find a flaky test before CI does.  Runs the kselftests named in SOAK_TESTS (default
# the load and churn test, reuseport_migrate_churn) SOAK_RUNS times (default 20) in a row in one
# QEMU guest, on the FLAVOUR kernel (default debug: the one make check-debug builds), for each
# tree in KERNELS.
#
# Every failed run is reported with its whole output, cut from the guest log and kept in
# $CACHE/<tree>/soak-<flavour>/failures/<test>.<run>.log; on a kernel with detectors every
# detector report counts as a failure too.  The summary (runs, failures, time, the command) goes
# to RESULTS/soak-<tree>-<flavour>.txt (RESULTS default results/), or
# soak-<tree>-<flavour>-<tests>.txt when SOAK_TESTS is not the default.  The last line is
# "N passed, N failed", one count per run.
#
# Names come from the lists of kselftest/, with their timeouts.  RM_CHURN_SECONDS (seconds of
# churn per variant of reuseport_migrate_churn) and RS_SECONDS (seconds of load per case of
# reuseport_migrate_stress) are passed on.
#
# SOAK_ARGS=ARGS (no spaces) is passed to each test program, as the runner's
# KSELFTEST_<NAME>_ARGS: on 6.12 and later, whose kselftest_harness.h filters cases (-h lists
# the options), SOAK_ARGS=-fexclusive repeats the cases of one fixture only.  The summary then
# goes to soak-<tree>-<flavour>-<tests>-<args>.txt.
#
# SOAK_KUNIT=FILTER soaks KUnit cases instead (kunit.py's filter glob, e.g.
# sock_reuseport_migrate_race.race_chosen_stops): SOAK_RUNS boots of the FLAVOUR kernel, each
# running the cases FILTER selects (make kunit); a boot passes when every case passed and its
# console (kunit.py's test.log, kept as run.<n>.console.log) shows no detector report.  The summary goes to RESULTS/soak-<tree>-<flavour>-kunit-<FILTER>.txt.
FLAVOUR=${FLAVOUR:-debug}
. "$(dirname "$0")/../lib/common.sh"
runs=${SOAK_RUNS:-20}
default_tests=reuseport_migrate_churn
tests=${SOAK_TESTS:-$default_tests}
# The summary of a soak of other tests than the default names them (soak-6.1-plain-<tests>.txt).
suffix=
[ "$tests" = "$default_tests" ] || suffix=-$(echo "$tests" | tr -s " " "+" | sed "s/\.sh//g")
args=${SOAK_ARGS:-}
case $args in
*[!A-Za-z0-9_.,=:-]*) die "SOAK_ARGS=$args: want options without spaces (e.g. -fexclusive)" ;;
esac
[ -z "$args" ] || suffix=$suffix-$(echo "$args" | tr -d -- "-=:,")
results=${RESULTS:-$REPO/results}
case $runs in
''|*[!0-9]*|0) die "SOAK_RUNS=$runs: want a number of runs, 1 or more" ;;
esac
for v in RM_CHURN_SECONDS RS_SECONDS; do
	[ -n "${!v:-}" ] || continue
	case ${!v} in
	*[!0-9]*|0) die "$v=${!v}: want a number of seconds, 1 or more" ;;
	esac
done
kfilter=${SOAK_KUNIT:-}
case $kfilter in
*[!A-Za-z0-9_.*-]*) die "SOAK_KUNIT=$kfilter: want a kunit.py filter glob (suite or suite.case)" ;;
esac
[ -n "$kfilter" ] || for t in $tests; do kselftest_line "$t" >/dev/null; done
mkdir -p "$results"

one_tree() {
	local out=$CACHE/$KERNEL/soak-$FLAVOUR list limit=0 labels=() cmdline= glog p=0 f=0 failed=()
	local i t name tmo n status ran missing reports=0 secs line t0
	t0=$(date +%s)
	rm -rf "$out/failures"
	mkdir -p "$out/failures"
	[ -z "${RM_CHURN_SECONDS:-}" ] || cmdline="$cmdline rm.env=RM_CHURN_SECONDS=$RM_CHURN_SECONDS"
	[ -z "${RS_SECONDS:-}" ] || cmdline="$cmdline rm.env=RS_SECONDS=$RS_SECONDS"
	if [ -n "$args" ]; then
		for t in $tests; do
			# the runner's name: upper case, every other character than [A-Z0-9] a '_'
			t=${t^^}
			cmdline="$cmdline rm.env=KSELFTEST_${t//[^A-Z0-9]/_}_ARGS=$args"
		done
	fi

	# The list: each test SOAK_RUNS times; the n-th line's run is labels[n - 1], <test>.<run>.
	list=$out/tests.txt
	: > "$list"
	for i in $(seq 1 "$runs"); do
		for t in $tests; do
			read -r name tmo < <(kselftest_line "$t")
			echo "$name $tmo" >> "$list"
			labels+=("$name.$i")
			limit=$((limit + tmo))
		done
	done
	log "$KERNEL ($FLAVOUR kernel): $tests, $runs run(s) each, in one guest"
	glog=$out/guest.log
	rm -f "$glog"
	KSTOUT=$out KSELFTEST_LIST=$list KST_CMDLINE="$cmdline" KSELFTEST_TIMEOUT=$((limit + 300)) \
		"$REPO/tools/bin/kselftest.sh" || true
	touch "$glog"	# no log: the guest never ran, and every run counts as failed below

	# Each run's block: from the guest's "rm-guest: test <n>:" line to the next one.
	while read -r n status; do
		name=${labels[$((n - 1))]:-run$n}
		if [ "$status" = ok ]; then
			p=$((p + 1))
		else
			f=$((f + 1))
			failed+=("$name")
			awk -v n="$n" '
				/^rm-guest: (test [0-9]+:|done)/ { on = ($0 ~ "^rm-guest: test " n ":") }
				on { print }' "$glog" > "$out/failures/$name.log"
		fi
	done < <(python3 "$REPO/tools/lib/ktap.py" kst-runs "$glog" | sed '/^$/d')
	ran=$((p + f))
	missing=$(( $(wc -l < "$list") - ran ))
	if [ "$missing" -gt 0 ]; then
		log "FAIL: $missing run(s) never reported (guest log $glog)"
		f=$((f + missing))
	fi
	if [ "$(flavour_field "$FLAVOUR" detectors)" != none ]; then
		reports=$(scan "$glog")
		f=$((f + reports))
	fi
	secs=$(( $(date +%s) - t0 ))
	for n in "${failed[@]}"; do
		echo "==== not ok: $n ($out/failures/$n.log)"
		cat "$out/failures/$n.log"
	done
	line="soak $KERNEL $FLAVOUR: $tests x $runs: $p passed, $((f - reports)) failed, $reports detector report(s), $secs s"
	{
		echo "$line"
		echo "command: make soak KERNEL=$KERNEL FLAVOUR=$FLAVOUR SOAK_RUNS=$runs SOAK_TESTS=\"$tests\"${args:+ SOAK_ARGS=$args}${RM_CHURN_SECONDS:+ RM_CHURN_SECONDS=$RM_CHURN_SECONDS}${RS_SECONDS:+ RS_SECONDS=$RS_SECONDS}"
		echo "kernel: $(sed -n 's/^rm-guest: nproc=\([0-9]*\).*kernel=\(.*\)/\2, nproc \1/p' "$glog")"
		echo "tree: $(git -C "$TREE" log -1 --format='%h %s')"
		for n in "${failed[@]}"; do echo "failed: $n"; done
		grep -a '^# # .*: [0-9]* connections in ' "$glog" | sed 's/^# # /run: /' || true
		# the churn test's failed migrations (tcp:tcp_migrate_req), each with its connection
		grep -a '^# # failed migration: ' "$glog" | sed 's/^# # failed migration: /event: /' || true
		# reuseport_migrate_wake: how long the sleeping thread took to wake
		grep -ao 'woken after [0-9]* ms' "$glog" |
			awk '{ if ($3 > m) m = $3; n++ } END { if (n) printf "wake-ups: %d, slowest %d ms\n", n, m }' ||
			true
	} > "$results/soak-$KERNEL-$FLAVOUR$suffix.txt"
	echo "$line"
	tally "$p" "$f"
	[ "$f" = 0 ]
}

# one_tree_kunit: SOAK_RUNS boots of make kunit with the filter, one count per boot.
one_tree_kunit() {
	local out=$CACHE/$KERNEL/soak-$FLAVOUR-kunit i p=0 f=0 reports=0 n counts failed=() t0 secs
	local build line name cases=
	t0=$(date +%s)
	build=$(build_dir)
	rm -rf "$out"
	mkdir -p "$out"
	log "$KERNEL ($FLAVOUR kernel): KUnit $kfilter, $runs boot(s)"
	for i in $(seq 1 "$runs"); do
		rm -f "$build/kunit.counts" "$build/test.log"
		KUNIT_FILTER=$kfilter "$REPO/tools/bin/kunit.sh" > "$out/run.$i.log" 2>&1 || true
		read -r -a counts < <(read_counts "$build/kunit.counts")
		n=0
		# The console (kunit.py's test.log), not its parsed output: a report outside a
		# case's lines is not in the latter.
		cp "$build/test.log" "$out/run.$i.console.log" 2>/dev/null || : > "$out/run.$i.console.log"
		[ "$(flavour_field "$FLAVOUR" detectors)" = none ] || n=$(scan "$out/run.$i.console.log")
		reports=$((reports + n))
		[ -n "$cases" ] || cases=$((counts[0] + counts[1]))
		if [ "${counts[1]}" = 0 ] && [ "${counts[0]}" -gt 0 ] && [ "$n" = 0 ]; then
			p=$((p + 1))
		else
			f=$((f + 1))
			failed+=("boot $i (${counts[0]} passed, ${counts[1]} failed, $n detector report(s); $out/run.$i.log)")
		fi
		log "boot $i: ${counts[0]} passed, ${counts[1]} failed, $n detector report(s)"
	done
	secs=$(( $(date +%s) - t0 ))
	line="soak $KERNEL $FLAVOUR: KUnit $kfilter x $runs: $p passed, $f failed, $reports detector report(s), $secs s"
	name=$(echo "$kfilter" | tr -c 'A-Za-z0-9_.\n-' '_')
	{
		echo "$line"
		echo "command: make soak KERNEL=$KERNEL FLAVOUR=$FLAVOUR SOAK_RUNS=$runs SOAK_KUNIT=$kfilter"
		echo "kernel: $(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' \
			"$build/include/generated/utsrelease.h"), $FLAVOUR, smp $(sed -n \
			's/^\$ qemu-system.* -smp \([0-9]*\).*/\1/p' "$out/run.1.log" | head -n 1)"
		echo "tree: $(git -C "$TREE" log -1 --format='%h %s')"
		echo "cases per boot: $cases"
		for n in "${failed[@]}"; do echo "failed: $n"; done
	} > "$results/soak-$KERNEL-$FLAVOUR-kunit-$name.txt"
	echo "$line"
	tally "$p" "$f"
	[ "$f" = 0 ]
}

rc=0
if [ -n "$kfilter" ]; then
	for_each_tree one_tree_kunit || rc=1
else
	for_each_tree one_tree || rc=1
fi
tally_end "$rc"
