#!/usr/bin/env bash
# make fix-proof, make stable-proof: the evidence that each patch of a layer fixes what its
# reproducer shows, on one base tree.
#   fix      the fixes of series/net/ (its patches but the selftests that follow them)
#   stable   the backports of series/stable-<tree>/
# For each patch k of the layer, tools/data/<kind>-proofs.txt names its reproducer (a KUnit test,
# suite.case, or a kselftest program) and optionally the extended regex of the cases (KUnit
# parameter rows, or the harness's fixture.variant.test names) that count:
#   before  pristine + patches 1..k-1 + what goes on top: at least one of those cases fails (a
#           build error, a crash before the test ran, or a run without those cases is no proof)
#   after   pristine + patches 1..k   + what goes on top: every one of those cases passes
# A fix whose reproducer the states cannot carry (a test that needs later layers, a detector of
# the debug kernel) names instead "proof KIND": make KIND-proof (tools/bin/revert-proof.sh), the
# final tree with that fix reverted, must pass; it counts for both states of the patch.
# "also KIND PATCH..." adds such a proof for parts of fixes that have a reproducer of their own
# (a later test that needs other layers): make KIND-proof runs once, and its verdict is
# reported as a "revert" line of each PATCH.
# What goes on top is the data file's "on-top" line: the patches that carry the reproducers, or
# "rest" (every other patch of the series, in order); an "on-top-<tree>" line adds patches on
# that tree only (the base fixups its net selftests need to build).  "drop-config CONFIG_..." lines leave
# symbols out of the KUnit config (suites of layers that are not applied).
# The trees are built in a scratch worktree ($CACHE/<tree>/proof-<kind>/linux, build directory
# .../build, ccache shared) and run with make kunit / make kselftest (QEMU, 2 vCPUs, TCG).
#
# One line per patch and state (PASS/FAIL and the cases), then "N passed, N failed".  The
# summary goes to RESULTS/<kind>-proof-<tree>.txt (RESULTS default results/).
# Usage: proof fix|stable
. "$(dirname "$0")/../lib/common.sh"
need git git
need python3 python3
need_tree
kind=${1:-}
case $kind in
fix) layer=net ;;
stable) layer=stable-$KERNEL ;;
*) die "usage: proof fix|stable" ;;
esac
proofs=$REPO/tools/data/$kind-proofs.txt
results=${RESULTS:-$REPO/results}
PROOF=$CACHE/$KERNEL/proof-$kind
SRC=$PROOF/linux
PBUILD=$PROOF/build

# patch_of LAYER/NNNN: the series entry with that layer and number.
patch_of() {
	local m
	m=$(series_patches | grep -E "^${1}-" || true)
	[ "$(printf '%s\n' "$m" | grep -c .)" = 1 ] ||
		die "tools/data/$kind-proofs.txt: '$1' names no single patch of series/series for $KERNEL"
	echo "$m"
}

# The patches of the layer: a fix layer's selftests (net/<n>-selftests-*) sit after the fixes
# and are not fixes.
mapfile -t patches < <(series_patches | grep "^$layer/" | grep -v "^$layer/[0-9]*-selftests-" || true)
[ "${#patches[@]}" -gt 0 ] || die "series/ has no $layer layer: nothing to prove on $KERNEL"
top=() drop=() kinds=() names=() regexes=() also=()
declare -A line_of=()
while read -r key rest; do
	case $key in
	on-top)
		if [ "$rest" = rest ]; then
			mapfile -t top < <(series_patches | grep -v "^$layer/" || true)
		else
			for t in $rest; do top+=("$(patch_of "$t")"); done
		fi
		;;
	on-top-*)
		# Only on that tree (its base fixups, which its selftests need to build).
		[ "${key#on-top-}" = "$KERNEL" ] || continue
		for t in $rest; do top+=("$(patch_of "$t")"); done
		;;
	drop-config) drop+=("$rest") ;;
	also) also+=("$rest") ;;
	*/*)
		# A line of another tree's own layer (stable-<tree>) is not this tree's.
		b=$(layer_base "${key%%/*}")
		[ -z "$b" ] || [ "$b" = "$KERNEL" ] || continue
		line_of[$(patch_of "$key")]=$rest
		;;
	*) die "tools/data/$kind-proofs.txt: '$key': want on-top, on-top-<tree>, drop-config or a patch" ;;
	esac
done < <(table_rows "$proofs")
for p in "${patches[@]}"; do
	[ -n "${line_of[$p]:-}" ] || die "tools/data/$kind-proofs.txt gives no reproducer for $p"
	read -r k n r <<<"${line_of[$p]}"
	case $k in kunit|kselftest|proof) ;; *) die "tools/data/$kind-proofs.txt: $p: '$k': want kunit, kselftest or proof" ;; esac
	[ "$k" != proof ] || [ -f "$REPO/tools/data/$n-proofs.txt" ] ||
		die "tools/data/$kind-proofs.txt: $p: no tools/data/$n-proofs.txt for 'proof $n'"
	[ -n "$n" ] || die "tools/data/$kind-proofs.txt: $p needs a test name"
	kinds+=("$k") names+=("$n") regexes+=("$r")
done
for a in "${also[@]}"; do
	read -r n ps <<<"$a"
	[ -n "$ps" ] && [ -f "$REPO/tools/data/$n-proofs.txt" ] ||
		die "tools/data/$kind-proofs.txt: 'also $a': want also KIND PATCH..., with a tools/data/KIND-proofs.txt"
	for p in $ps; do patch_of "$p" >/dev/null; done
done

# The test kernel's KUnit config without the symbols the states lack.
mkdir -p "$PROOF"
cp "$REPO/.kunitconfig" "$PROOF/kunitconfig"
for c in "${drop[@]}"; do
	grep -v "^$c=" "$PROOF/kunitconfig" > "$PROOF/kunitconfig.new" || true
	mv "$PROOF/kunitconfig.new" "$PROOF/kunitconfig"
done
scratch_tree "$SRC"

# state K: pristine + the first K patches of the layer + what goes on top, in the scratch tree.
state() {
	local k=$1 i p
	at_pristine "$SRC"
	for ((i = 0; i < k; i++)); do
		apply_patch "$SRC" "${patches[$i]}" ||
			die "${patches[$i]} does not apply on pristine + the $layer patches before it"
	done
	for p in "${top[@]}"; do
		apply_patch "$SRC" "$p" -3 ||
			die "$p does not apply on pristine + $k $layer patch(es): it must not depend on a later one"
	done
}

# cases I: "name<TAB>PASS|FAIL|..." of the cases of reproducer I that its regex selects, from a
# run in the scratch tree.
cases() {
	local i=$1 kst=$PROOF/kselftest list=$PROOF/list.txt
	if [ "${kinds[$i]}" = kunit ]; then
		TREE=$SRC BUILD=$PBUILD KUNIT_CONFIG=$PROOF/kunitconfig KUNIT_FILTER="${names[$i]}" \
			"$REPO/tools/bin/kunit.sh" >"$PROOF/run.out" 2>&1 || true
		python3 "$REPO/tools/lib/ktap.py" kunit-cases "$PBUILD/kunit.json" "${names[$i]}" \
			"${regexes[$i]}"
	else
		kselftest_line "${names[$i]}" > "$list"
		rm -f "$kst/guest.log"
		TREE=$SRC BUILD=$PBUILD KSTOUT=$kst KSELFTEST_LIST=$list KUNIT_CONFIG=$PROOF/kunitconfig \
			"$REPO/tools/bin/kselftest.sh" >"$PROOF/run.out" 2>&1 || true
		python3 "$REPO/tools/lib/ktap.py" kst-cases "$kst/guest.log" "${regexes[$i]}"
	fi | sed '/^$/d'
}

pass=0 fail=0 lines=()
report() { # STATUS PATCH STATE DETAIL
	lines+=("$(printf '%-4s %-62s %-6s %s' "$1" "$2" "$3" "$4")")
	printf '%s\n' "${lines[-1]}"
	if [ "$1" = PASS ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
}
tab=$'\t'

t0=$(date +%s)
for ((k = 0; k <= ${#patches[@]}; k++)); do
	log "state $k: pristine + $k $layer patch(es) + ${#top[@]} on top"
	state "$k"
	# after: patch k (the last one applied) must pass its reproducer.
	if [ "$k" -gt 0 ] && [ "${kinds[$((k - 1))]}" != proof ]; then
		i=$((k - 1))
		what="${names[$i]}${regexes[$i]:+ /${regexes[$i]}/}"
		out=$(cases "$i")
		total=$(printf '%s\n' "$out" | grep -c . || true)
		bad=$(printf '%s\n' "$out" | grep -c -v "${tab}PASS\$" || true)
		if [ "$total" -gt 0 ] && [ "$bad" = 0 ]; then
			report PASS "${patches[$i]}" after "$what: $total case(s) passed"
		else
			report FAIL "${patches[$i]}" after "$what: $bad of $total case(s) did not pass"
			cp "$PROOF/run.out" "$PROOF/after-$k.out"
		fi
	fi
	# before: patch k+1 (not applied yet) must fail its reproducer, in the test's own cases.
	if [ "$k" -lt "${#patches[@]}" ] && [ "${kinds[$k]}" != proof ]; then
		what="${names[$k]}${regexes[$k]:+ /${regexes[$k]}/}"
		out=$(cases "$k")
		total=$(printf '%s\n' "$out" | grep -c . || true)
		failed=$(printf '%s\n' "$out" | grep "${tab}FAIL\$" | cut -f1 || true)
		n=$(printf '%s\n' "$failed" | grep -c . || true)
		if [ "$n" -gt 0 ]; then
			report PASS "${patches[$k]}" before "$what: $n of $total case(s) failed without it, e.g. '$(printf '%s\n' "$failed" | head -n 1)'"
		else
			report FAIL "${patches[$k]}" before "$what: none of $total case(s) failed without it"
		fi
		cp "$PROOF/run.out" "$PROOF/before-$((k + 1)).out"
	fi
done
# The fixes proven on the final tree, reverted: make KIND-proof's own verdict.
for ((i = 0; i < ${#patches[@]}; i++)); do
	[ "${kinds[$i]}" = proof ] || continue
	log "${patches[$i]}: make ${names[$i]}-proof"
	if "$REPO/tools/bin/revert-proof.sh" "${names[$i]}" >"$PROOF/run.out" 2>&1; then
		report PASS "${patches[$i]}" revert "make ${names[$i]}-proof: $(grep -m 1 '^PASS ' "$PROOF/run.out" | cut -c6-)"
	else
		report FAIL "${patches[$i]}" revert "make ${names[$i]}-proof failed: $(grep -m 1 -E '^FAIL |error' "$PROOF/run.out" || tail -n 1 "$PROOF/run.out")"
	fi
	cp "$PROOF/run.out" "$PROOF/revert-$((i + 1)).out"
done
# Parts of fixes proven the same way, besides their reproducer.
for a in "${also[@]}"; do
	read -r n ps <<<"$a"
	log "$ps: make $n-proof"
	if "$REPO/tools/bin/revert-proof.sh" "$n" >"$PROOF/run.out" 2>&1; then
		st=PASS what="make $n-proof: $(tail -n 1 "$PROOF/run.out")"
	else
		st=FAIL what="make $n-proof failed: $(grep -m 1 -E '^FAIL |error' "$PROOF/run.out" || tail -n 1 "$PROOF/run.out")"
	fi
	for p in $ps; do report "$st" "$(patch_of "$p")" revert "$what"; done
	cp "$PROOF/run.out" "$PROOF/also-$n.out"
done
secs=$(( $(date +%s) - t0 ))

mkdir -p "$results"
{
	echo "$kind-proof $KERNEL: $pass passed, $fail failed, $secs s"
	echo "command: make $kind-proof KERNEL=$KERNEL"
	echo "tree: $(git -C "$TREE" log -1 --format=%s pristine)"
	printf '%s\n' "${lines[@]}"
} > "$results/$kind-proof-$KERNEL.txt"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
