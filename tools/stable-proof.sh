#!/usr/bin/env bash
# make stable-proof: the evidence for every backport of the stable layer of a base tree
# (series/stable-<tree>/, 6.1 only today).
#
# State k is pristine + the first k backports + every other patch of the series (net, net-next,
# test-only, base fixups), built in a scratch worktree ($CACHE/$KERNEL/stable-proof/linux, build
# directory .../stable-proof/build, ccache shared).  For each backport k, tools/stable-proofs.txt
# names its reproducer, a KUnit test (suite.case, a kunit.py filter) or a kselftest program and
# the extended regex of its cases that must fail without the backport:
#   before  state k-1: at least one of those cases fails (a build error, a crash before the
#           test ran, or a run without those cases is not a proof)
#   after   state k:   every one of those cases passes
# Runs are in QEMU (TCG, 2 vCPUs) through tools/kunit.sh and tools/kselftest.sh.
#
# One line per backport and state (PASS/FAIL and the cases), then "N passed, N failed".  The
# summary goes to RESULTS/stable-proof-<tree>.txt (RESULTS default results/).
. "$(dirname "$0")/common.sh"
need git git
need python3 python3
[ -e "$TREE/.git" ] || die "no tree at $TREE: run 'make tree KERNEL=$KERNEL' first"
proofs=$REPO/tools/stable-proofs.txt
results=${RESULTS:-$REPO/results}
layer=stable-$KERNEL
PROOF=$CACHE/$KERNEL/stable-proof
SRC=$PROOF/linux
PBUILD=$PROOF/build

mapfile -t stable < <(series_patches | grep "^$layer/" || true)
[ "${#stable[@]}" -gt 0 ] || die "series/ has no $layer layer: nothing to prove on $KERNEL"
mapfile -t others < <(series_patches | grep -v "^$layer/" || true)

# The reproducer of each backport, in the layer's order.
kinds=() names=() regexes=()
for p in "${stable[@]}"; do
	n=${p%%/*}/${p#*/}; n=${n:0:${#layer}+5}
	l=$(grep -v '^[[:space:]]*\(#\|$\)' "$proofs" | awk -v n="$n" '$1 == n { print; exit }')
	[ -n "$l" ] || die "tools/stable-proofs.txt gives no reproducer for $p (a line '$n kunit|kselftest NAME REGEX')"
	read -r _ kind name regex <<<"$l"
	case $kind in
	kunit|kselftest) ;;
	*) die "tools/stable-proofs.txt: '$n $kind': want kunit or kselftest" ;;
	esac
	if [ -z "$name" ] || [ -z "$regex" ]; then
		die "tools/stable-proofs.txt: '$n' needs a NAME and a case REGEX"
	fi
	kinds+=("$kind") names+=("$name") regexes+=("$regex")
done

scratch_tree "$SRC"

# state K: pristine + the first K backports + the rest of the series in the scratch tree.
state() {
	local k=$1 i p
	at_pristine "$SRC"
	for ((i = 0; i < k; i++)); do
		apply_patch "$SRC" "${stable[$i]}" ||
			die "${stable[$i]} does not apply on pristine + the backports before it"
	done
	for p in "${others[@]}"; do
		apply_patch "$SRC" "$p" -3 ||
			die "$p does not apply on pristine + $k backport(s): the series must not depend on a later backport"
	done
}

# cases I: "name<TAB>PASS|FAIL|..." of the cases of reproducer I that its regex selects, from a
# run in the scratch tree.
cases() {
	local i=$1 kst=$PROOF/kselftest list=$PROOF/list.txt
	if [ "${kinds[$i]}" = kunit ]; then
		TREE=$SRC BUILD=$PBUILD KUNIT_FILTER="${names[$i]}" \
			"$REPO/tools/kunit.sh" >"$PROOF/run.out" 2>&1 || true
		python3 "$REPO/tools/kunit-results.py" cases "$PBUILD/kunit.json" "${names[$i]}" \
			"${regexes[$i]}" 2>/dev/null || true
	else
		t=$(grep -h -v '^[[:space:]]*\(#\|$\)' "$REPO/kselftest/tests.txt" "$REPO/kselftest/tests-debug.txt" |
			awk -v n="${names[$i]}" '$1 == n { print $2; exit }')
		echo "${names[$i]} ${t:-300}" > "$list"
		rm -rf "$kst/guest.log"
		TREE=$SRC BUILD=$PBUILD KSTOUT=$kst KSELFTEST_LIST=$list \
			"$REPO/tools/kselftest.sh" >"$PROOF/run.out" 2>&1 || true
		# The harness's result lines: "#            OK  fixture.variant.test".
		if [ -f "$kst/guest.log" ]; then
			sed -n -E 's/^# # +(OK|FAIL|SKIP) +([^ ]+).*/\2\t\1/p' "$kst/guest.log" |
				sed 's/\tOK$/\tPASS/' | awk -F'\t' -v re="${regexes[$i]}" '$1 ~ re' || true
		fi
	fi
}

pass=0 fail=0 lines=()
report() { # STATUS PATCH STATE DETAIL
	lines+=("$(printf '%-4s %-62s %-6s %s' "$1" "$2" "$3" "$4")")
	printf '%s\n' "${lines[-1]}"
	if [ "$1" = PASS ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
}
tab=$'\t'

t0=$(date +%s)
for ((k = 0; k <= ${#stable[@]}; k++)); do
	log "state $k: pristine + $k backport(s) + ${#others[@]} other patch(es)"
	state "$k"
	if [ "$k" -gt 0 ]; then
		i=$((k - 1))
		what="${names[$i]} /${regexes[$i]}/"
		out=$(cases "$i")
		total=$(printf '%s\n' "$out" | grep -c . || true)
		bad=$(printf '%s\n' "$out" | grep -c -v "${tab}PASS\$" || true)
		if [ "$total" -gt 0 ] && [ "$bad" = 0 ]; then
			report PASS "${stable[$i]}" after "$what: $total case(s) passed"
		else
			report FAIL "${stable[$i]}" after "$what: $bad of $total case(s) did not pass"
			cp "$PROOF/run.out" "$PROOF/after-$k.out"
		fi
	fi
	if [ "$k" -lt "${#stable[@]}" ]; then
		what="${names[$k]} /${regexes[$k]}/"
		out=$(cases "$k")
		total=$(printf '%s\n' "$out" | grep -c . || true)
		failed=$(printf '%s\n' "$out" | grep "${tab}FAIL\$" | cut -f1 || true)
		n=$(printf '%s\n' "$failed" | grep -c . || true)
		if [ "$n" -gt 0 ]; then
			report PASS "${stable[$k]}" before "$what: $n of $total case(s) failed without it, e.g. '$(printf '%s\n' "$failed" | head -n 1)'"
		else
			report FAIL "${stable[$k]}" before "$what: none of $total case(s) failed without it"
		fi
		cp "$PROOF/run.out" "$PROOF/before-$((k + 1)).out"
	fi
done
secs=$(( $(date +%s) - t0 ))

mkdir -p "$results"
{
	echo "stable-proof $KERNEL: $pass passed, $fail failed, $secs s"
	echo "command: make stable-proof KERNEL=$KERNEL"
	echo "tree: $(git -C "$TREE" log -1 --format=%s pristine)"
	printf '%s\n' "${lines[@]}"
} > "$results/stable-proof-$KERNEL.txt"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
