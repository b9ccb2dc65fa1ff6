#!/usr/bin/env bash
# make soak: find a flaky test before CI does.  Runs the kselftests named in SOAK_TESTS (default
# the load and churn test, reuseport_migrate_churn) SOAK_RUNS times (default 20) in a row in one
# QEMU guest, on the debug kernel (SOAK_KERNEL=debug, the default: the one make check-debug
# builds) or on the plain test kernel (SOAK_KERNEL=plain), for each tree in KERNELS.
#
# Every failed run is reported with its whole output, cut from the guest log and kept in
# $CACHE/<tree>/soak-<kind>/failures/<test>.<run>.log; on the debug kernel every detector
# report counts as a failure too.  The summary (runs, failures, time, the command) goes to
# RESULTS/soak-<tree>-<kind>.txt (RESULTS default results/), or soak-<tree>-<kind>-<tests>.txt
# when SOAK_TESTS is not the default.  The last line is "N passed, N failed", one count per run.
#
# Names come from kselftest/tests.txt and kselftest/tests-debug.txt, with their timeouts.
# RM_CHURN_SECONDS (seconds of churn per variant of reuseport_migrate_churn) and RS_SECONDS
# (seconds of load per case of reuseport_migrate_stress) are passed on.
. "$(dirname "$0")/common.sh"
kernels=${KERNELS:-$KERNEL}
runs=${SOAK_RUNS:-20}
default_tests=reuseport_migrate_churn
tests=${SOAK_TESTS:-$default_tests}
# The summary of a soak of other tests than the default names them (soak-6.1-plain-<tests>.txt).
suffix=
[ "$tests" = "$default_tests" ] || suffix=-$(echo "$tests" | tr -s " " "+" | sed "s/\.sh//g")
kind=${SOAK_KERNEL:-debug}
results=${RESULTS:-$REPO/results}
case $runs in
''|*[!0-9]*|0) die "SOAK_RUNS=$runs: want a number of runs, 1 or more" ;;
esac
case $kind in
debug|plain) ;;
*) die "SOAK_KERNEL=$kind: want debug or plain" ;;
esac
for v in RM_CHURN_SECONDS RS_SECONDS; do
	[ -n "${!v:-}" ] || continue
	case ${!v} in
	*[!0-9]*|0) die "$v=${!v}: want a number of seconds, 1 or more" ;;
	esac
done

# line NAME: the "name timeout command" line of NAME in the test lists.
line() {
	grep -h -v '^[[:space:]]*\(#\|$\)' "$REPO/kselftest/tests.txt" "$REPO/kselftest/tests-debug.txt" |
		awk -v n="$1" '$1 == n { print; exit }'
}
for t in $tests; do
	[ -n "$(line "$t")" ] || die "SOAK_TESTS: '$t' is in neither kselftest/tests.txt nor kselftest/tests-debug.txt"
done

mkdir -p "$results"
rc=0
for k in $kernels; do
	export KERNEL=$k
	t0=$(date +%s)
	"$REPO/tools/tree.sh" || { rc=1; tally 0 1; continue; }
	out=$CACHE/$k/soak-$kind
	rm -rf "$out/failures"
	mkdir -p "$out/failures"
	if [ "$kind" = debug ]; then
		bdir=$CACHE/$k/build-debug
		BUILD=$bdir "$REPO/tools/build-kernel.sh" --kunitconfig="$REPO/kunit/debug.kunitconfig"
		cmdline=$DEBUG_CMDLINE
	else
		bdir=$CACHE/$k/build
		BUILD=$bdir "$REPO/tools/build-kernel.sh"
		cmdline=
	fi
	[ -z "${RM_CHURN_SECONDS:-}" ] || cmdline="$cmdline rm.env=RM_CHURN_SECONDS=$RM_CHURN_SECONDS"
	[ -z "${RS_SECONDS:-}" ] || cmdline="$cmdline rm.env=RS_SECONDS=$RS_SECONDS"

	# The list: each test SOAK_RUNS times; the n-th line's run is labels[n - 1], <test>.<run>.
	list=$out/tests.txt limit=0 labels=()
	: > "$list"
	for i in $(seq 1 "$runs"); do
		for t in $tests; do
			read -r name tmo < <(line "$t")
			echo "$name $tmo" >> "$list"
			labels+=("$name.$i")
			limit=$((limit + tmo))
		done
	done
	log "$k ($kind kernel): $tests, $runs run(s) each, in one guest"
	glog=$out/guest.log
	rm -f "$glog"
	KST_KERNEL=$bdir/arch/x86/boot/bzImage KSTOUT=$out KSELFTEST_LIST=$list \
		KST_CMDLINE="$cmdline" KSELFTEST_TIMEOUT=$((limit + 300)) \
		"$REPO/tools/kselftest.sh" || true
	touch "$glog"	# no log: the guest never ran, and every run counts as failed below

	# Each run's block: from the guest's "rm-guest: test <n>:" line to the next one; it passed
	# if the runner printed "ok ... selftests:" in it, without "# SKIP".
	p=0 f=0 failed=()
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
	done < <(awk '
		/^rm-guest: test [0-9]+:/ { n = $3 + 0 }
		n && /^ok [0-9]+ selftests: / { print n, ($0 ~ /# SKIP/ ? "not_ok" : "ok"); n = 0 }
		n && /^not ok [0-9]+ selftests: / { print n, "not_ok"; n = 0 }' "$glog")
	ran=$((p + f))
	missing=$(( $(wc -l < "$list") - ran ))
	if [ "$missing" -gt 0 ]; then
		log "FAIL: $missing run(s) never reported (guest log $glog)"
		f=$((f + missing))
	fi
	reports=0
	if [ "$kind" = debug ]; then
		reports=$(scan "$glog")
		f=$((f + reports))
	fi
	secs=$(( $(date +%s) - t0 ))
	for n in "${failed[@]}"; do
		echo "==== not ok: $n ($out/failures/$n.log)"
		cat "$out/failures/$n.log"
	done
	line="soak $k $kind: $tests x $runs: $p passed, $((f - reports)) failed, $reports detector report(s), $secs s"
	{
		echo "$line"
		echo "command: make soak KERNEL=$k SOAK_KERNEL=$kind SOAK_RUNS=$runs SOAK_TESTS=\"$tests\"${RM_CHURN_SECONDS:+ RM_CHURN_SECONDS=$RM_CHURN_SECONDS}${RS_SECONDS:+ RS_SECONDS=$RS_SECONDS}"
		echo "kernel: $(sed -n 's/^rm-guest: nproc=\([0-9]*\).*kernel=\(.*\)/\2, nproc \1/p' "$glog")"
		echo "tree: $(git -C "$CACHE/$k/linux" log -1 --format='%h %s')"
		for n in "${failed[@]}"; do echo "failed: $n"; done
		grep -a '^# # .*: [0-9]* connections in ' "$glog" | sed 's/^# # /run: /' || true
		# the churn test's failed migrations (tcp:tcp_migrate_req), each with its connection
		grep -a '^# # failed migration: ' "$glog" | sed 's/^# # failed migration: /event: /' || true
		# reuseport_migrate_wake: how long the sleeping thread took to wake
		grep -ao 'woken after [0-9]* ms' "$glog" |
			awk '{ if ($3 > m) m = $3; n++ } END { if (n) printf "wake-ups: %d, slowest %d ms\n", n, m }' ||
			true
	} > "$results/soak-$k-$kind$suffix.txt"
	echo "$line"
	tally "$p" "$f"
	[ "$f" = 0 ] || rc=1
done
tally_end "$rc"
