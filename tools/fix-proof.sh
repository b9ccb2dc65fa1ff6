#!/usr/bin/env bash
# make fix-proof: the bisect evidence for every fix of the net layer, on one base tree.
#
# For each fix k of series/net/ (in order), with the reproducers of tools/fix-proofs.txt applied
# on top:
#   before  pristine + net patches 1..k-1 + reproducers: the fix's KUnit test must fail
#   after   pristine + net patches 1..k   + reproducers: the same test must pass
# The trees are built in a scratch worktree ($CACHE/$KERNEL/proof/linux, build directory
# .../proof/build, ccache shared) and run with tools/kunit.sh (QEMU, 2 vCPUs, TCG).  A
# "before" run passes the check only if the test's own cases fail (a build error or a crash
# before the test ran is not a proof); an "after" run only if every case of the test passes.
#
# One line per fix and state (PASS/FAIL and the cases), then "N passed, N failed".  The
# summary goes to RESULTS/fix-proof-<tree>.txt (RESULTS default results/).
. "$(dirname "$0")/common.sh"
need git git
need python3 python3
[ -e "$TREE/.git" ] || die "no tree at $TREE: run 'make tree KERNEL=$KERNEL' first"
proofs=$REPO/tools/fix-proofs.txt
results=${RESULTS:-$REPO/results}
PROOF=$CACHE/$KERNEL/proof
SRC=$PROOF/linux
PBUILD=$PROOF/build

# patch_of LAYER/NNNN: the series entry with that layer and number.
patch_of() {
	local m
	m=$(series_patches | grep -E "^${1}-" || true)
	[ "$(printf '%s\n' "$m" | grep -c .)" = 1 ] || die "tools/fix-proofs.txt: '$1' names no single patch of series/series"
	echo "$m"
}

tests=()
fixes=() filters=() rows=()
while read -r key rest; do
	case $key in
	''|'#'*) continue ;;
	tests) for t in $rest; do tests+=("$(patch_of "$t")"); done ;;
	net/*)
		fixes+=("$(patch_of "$key")")
		filters+=("${rest%% *}")
		case $rest in *' '*) rows+=("${rest#* }") ;; *) rows+=("") ;; esac
		;;
	*) die "tools/fix-proofs.txt: '$key': want 'tests' or a patch of the net layer" ;;
	esac
done < "$proofs"
[ "${#tests[@]}" -gt 0 ] || die "tools/fix-proofs.txt names no reproducer patches ('tests ...')"
# The fixes of the net layer: its patches with a Fixes: tag.  The selftests that come with them
# (net/<n>-selftests-*) sit after the fixes and are not fixes.
mapfile -t net < <(series_patches | grep '^net/' | grep -v '^net/[0-9]*-selftests-' || true)
[ "${#net[@]}" -gt 0 ] || die "series/ has no net layer"
for p in "${net[@]}"; do
	printf '%s\n' "${fixes[@]}" | grep -qxF "$p" || die "tools/fix-proofs.txt gives no test for $p"
done

# The test kernel's KUnit config without the net-next layer's suites, which these trees lack.
mkdir -p "$PROOF"
grep -v '^CONFIG_SOCK_REUSEPORT_KUNIT_TEST=' "$REPO/.kunitconfig" > "$PROOF/kunitconfig"
scratch_tree "$SRC"

# state K: check out pristine + the first K net patches + the reproducers in the scratch tree.
state() {
	local k=$1 i p
	at_pristine "$SRC"
	for ((i = 0; i < k; i++)); do
		apply_patch "$SRC" "${net[$i]}" ||
			die "${net[$i]} does not apply on pristine + the net patches before it"
	done
	for p in "${tests[@]}"; do
		apply_patch "$SRC" "$p" -3 2>/dev/null ||
			die "$p does not apply on pristine + $k net patch(es): the reproducers must not depend on net-next"
	done
}

# cases FILTER [ROWS]: "name<TAB>status" of every leaf case kunit.py reported under FILTER
# (suite.case), only the parameter rows whose name matches the extended regex ROWS if given.
cases() {
	python3 "$REPO/tools/kunit-results.py" cases "$PBUILD/kunit.json" "$1" "${2:-}"
}

pass=0 fail=0 lines=()
report() { # STATUS FIX STATE DETAIL
	lines+=("$(printf '%-4s %-62s %-6s %s' "$1" "$2" "$3" "$4")")
	printf '%s\n' "${lines[-1]}"
	if [ "$1" = PASS ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
}

# run FILTER [ROWS]: boot the scratch tree's kernel with only FILTER's test; prints the case
# lines of ROWS.
run() {
	TREE=$SRC BUILD=$PBUILD KUNIT_CONFIG=$PROOF/kunitconfig KUNIT_FILTER="$1" \
		"$REPO/tools/kunit.sh" >"$PROOF/kunit.out" 2>&1 || true
	cases "$1" "${2:-}"
}
tab=$'\t'

t0=$(date +%s)
for ((k = 0; k <= ${#net[@]}; k++)); do
	log "state $k: pristine + ${k} net patch(es) + ${#tests[@]} reproducer(s)"
	state "$k"
	# after: fix k (the last one applied) must pass its test.
	if [ "$k" -gt 0 ]; then
		i=$((k - 1))
		what="${filters[$i]}${rows[$i]:+ /${rows[$i]}/}"
		out=$(run "${filters[$i]}" "${rows[$i]}")
		total=$(printf '%s\n' "$out" | grep -c . || true)
		bad=$(printf '%s\n' "$out" | grep -c -v "${tab}PASS\$" || true)
		if [ "$total" -gt 0 ] && [ "$bad" = 0 ]; then
			report PASS "${net[$i]}" after "$what: $total case(s) passed"
		else
			report FAIL "${net[$i]}" after "$what: $bad of $total case(s) did not pass"
			cp "$PROOF/kunit.out" "$PROOF/after-$k.out"
		fi
	fi
	# before: fix k+1 (not applied yet) must fail its test, in the test's own cases.
	if [ "$k" -lt "${#net[@]}" ]; then
		what="${filters[$k]}${rows[$k]:+ /${rows[$k]}/}"
		out=$(run "${filters[$k]}" "${rows[$k]}")
		total=$(printf '%s\n' "$out" | grep -c . || true)
		failed=$(printf '%s\n' "$out" | grep "${tab}FAIL\$" | cut -f1 || true)
		n=$(printf '%s\n' "$failed" | grep -c . || true)
		if [ "$n" -gt 0 ]; then
			report PASS "${net[$k]}" before "$what: $n of $total case(s) failed without the fix, e.g. '$(printf '%s\n' "$failed" | head -n 1)'"
		else
			report FAIL "${net[$k]}" before "$what: none of $total case(s) failed without the fix"
			cp "$PROOF/kunit.out" "$PROOF/before-$k.out"
		fi
	fi
done
secs=$(( $(date +%s) - t0 ))

mkdir -p "$results"
{
	echo "fix-proof $KERNEL: $pass passed, $fail failed, $secs s"
	echo "command: make fix-proof KERNEL=$KERNEL"
	echo "tree: $(git -C "$TREE" log -1 --format=%s pristine)"
	printf '%s\n' "${lines[@]}"
} > "$results/fix-proof-$KERNEL.txt"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
