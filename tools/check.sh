#!/usr/bin/env bash
# make check: make kunit, make kselftest, the shortened demo (tools/demo-check.sh; CHECK_DEMO=0
# leaves it out) and the shortened servers scenario (tools/servers-check.sh: nginx and HAProxy
# under wrk; CHECK_SERVERS=0 leaves it out) for each base tree in KERNELS (default: KERNEL), then
# one line "N passed, N failed" counting every KUnit case, every kselftest, the six demo cases
# and the four servers cases.
. "$(dirname "$0")/common.sh"
kernels=${KERNELS:-$KERNEL}
rc=0
for k in $kernels; do
	t0=$(date +%s)
	KERNEL=$k "$REPO/tools/tree.sh" || { rc=1; tally 0 1 "$k: make tree failed"; continue; }
	for step in kunit kselftest demo-check servers-check; do
		[ "$step" != demo-check ] || [ "${CHECK_DEMO:-1}" = 1 ] || continue
		[ "$step" != servers-check ] || [ "${CHECK_SERVERS:-1}" = 1 ] || continue
		KERNEL=$k "$REPO/tools/$step.sh" || rc=1
		case $step in
		kunit) f=$CACHE/$k/build/kunit.counts ;;
		kselftest) f=$CACHE/$k/kselftest/counts ;;
		demo-check) f=$CACHE/$k/demo-check/counts ;;
		servers-check) f=$CACHE/$k/servers-check/counts ;;
		esac
		read -r p n < <(read_counts "$f")
		tally "$p" "$n" "$k $step: $p passed, $n failed"
	done
	summary+=("$k: $(( $(date +%s) - t0 )) s")
done
tally_end "$rc" "check-${kernels// /+}" "make check KERNELS=\"$kernels\""
