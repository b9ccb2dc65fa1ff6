#!/usr/bin/env bash
# make skip-proof: the series' selftests skip, not fail, where what they need is missing.  The
# kselftest guest of the plain kernel is packed without the iptables and ip6tables commands and
# without the selftests' BPF objects (make kselftest's KST_WITHOUT="iptables bpf-objects"), and
# the programs of tools/data/skip-proofs.txt run in it.  The proof holds when no case fails,
# every program skips at least one case, every skip names what is missing (the pattern of the
# data file), and every program that names cases to pass passes them (a case that needs
# neither still runs).  One line per program, then "N passed, N failed"; the summary goes to
# RESULTS/skip-proof-<tree>.txt (RESULTS default results/).
. "$(dirname "$0")/../lib/common.sh"
need python3 python3
need_tree
data=$REPO/tools/data/skip-proofs.txt
results=${RESULTS:-$REPO/results}
out=$CACHE/$KERNEL/skip-proof
mkdir -p "$out"
# the selftests' build directory of make kselftest is shared: only what changed is rebuilt
mkdir -p "$KSTOUT/build"
[ -e "$out/build" ] || ln -s "$KSTOUT/build" "$out/build"
reason=$(table_rows "$data" | awk '$1 == "reason" { sub(/^reason[ \t]+/, ""); print; exit }')
[ -n "$reason" ] || die "tools/data/skip-proofs.txt: no 'reason REGEX' line"
mapfile -t rows < <(table_rows "$data" | awk '$1 == "test"')
[ "${#rows[@]}" -gt 0 ] || die "tools/data/skip-proofs.txt: no 'test NAME TIMEOUT PASSING' line"
: > "$out/list.txt"
for row in "${rows[@]}"; do
	read -r _ name timeout _ <<<"$row"
	echo "$name $timeout" >> "$out/list.txt"
done

start=$(date +%s)
log "running $(wc -l < "$out/list.txt") programs without iptables and BPF objects"
# make kselftest fails the run (a skip is a failure there); the verdict is this script's
KST_WITHOUT="iptables bpf-objects" KSTOUT=$out KSELFTEST_LIST=$out/list.txt \
	"$REPO/tools/bin/kselftest.sh" >&2 || true
logf=$out/guest.log
[ -f "$logf" ] || die "no guest log at $logf"

passed=0 failed=0 lines=()
for row in "${rows[@]}"; do
	read -r _ name _ passing <<<"$row"
	mapfile -t skips < <(python3 "$REPO/tools/lib/ktap.py" kst-skips "$logf" |
		awk -F '\t' -v n="$name" '$1 == n')
	why=()
	[ "${#skips[@]}" -gt 0 ] || why+=("no case skipped")
	for s in "${skips[@]}"; do
		r=$(cut -f3 <<<"$s")
		grep -Eq "$reason" <<<"$r" || why+=("$(cut -f2 <<<"$s") skipped for another reason: $r")
	done
	# the cases that need neither must still pass
	fails=$(python3 "$REPO/tools/lib/ktap.py" kst-cases "$logf" "$passing" | awk -F '\t' '$2 != "PASS"' | wc -l)
	nrun=$(python3 "$REPO/tools/lib/ktap.py" kst-cases "$logf" "$passing" | wc -l)
	[ "$passing" = - ] || [ "$nrun" -gt 0 ] || why+=("no case matching /$passing/ ran")
	[ "$passing" = - ] || [ "$fails" = 0 ] || why+=("$fails of $nrun cases matching /$passing/ did not pass")
	if [ "${#why[@]}" = 0 ]; then
		passed=$((passed + 1))
		lines+=("PASS $name: ${#skips[@]} cases skipped, e.g. $(head -n 1 <<<"${skips[0]}" | cut -f2,3 | tr '\t' ' ')")
	else
		failed=$((failed + 1))
		lines+=("FAIL $name: $(IFS=';'; echo "${why[*]}")")
	fi
done
# and no case of any program failed
nfail=$(python3 "$REPO/tools/lib/ktap.py" kst-cases "$logf" '.' | awk -F '\t' '$2 == "FAIL"' | wc -l)
if [ "$nfail" -gt 0 ]; then
	failed=$((failed + 1))
	lines+=("FAIL $nfail cases failed: $(python3 "$REPO/tools/lib/ktap.py" kst-cases "$logf" '.' |
		awk -F '\t' '$2 == "FAIL" && n++ < 3 { printf "%s ", $1 }')")
fi
secs=$(( $(date +%s) - start ))
mkdir -p "$results"
{
	echo "$passed passed, $failed failed"
	echo "command: make skip-proof KERNEL=$KERNEL"
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "tree $KERNEL: $(git -C "$TREE" log -1 --format='%h %s')"
	echo "guest without the iptables and ip6tables commands and the selftests' BPF objects, ${secs} s"
	printf '%s\n' "${lines[@]}"
} > "$results/skip-proof-$KERNEL.txt"
printf '%s\n' "${lines[@]}"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
