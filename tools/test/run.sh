#!/usr/bin/env bash
# make selftest: the harness's own test.  Runs each line of tools/test/cases (a reader of
# tools/lib/ on a recorded log of tools/test/logs/, or shell code run with tools/lib/common.sh
# sourced) and compares its output with the expected one; then, whatever the table says, holds the counting readers to one rule: a log that records
# a failure, a skip, a crash or a timeout (logs/kst-*.log and logs/kunit-*.json but the passing
# ones) never counts as all passed.  Prints KTAP, then "N passed, N failed"; writes the counts to
# COUNTS if given (make check tallies them).
# Usage: tools/test/run.sh [COUNTS]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lib=$here/../lib
cd "$here/logs" || exit 2
mapfile -t rows < <(sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d' "$here/cases")
mapfile -t bad_logs < <(ls kst-*.log kunit-*.json | grep -v -e '-pass\.' -e '-empty\.' || true)
echo "KTAP version 1"
echo "1..$(( ${#rows[@]} + ${#bad_logs[@]} ))"
n=0 pass=0 fail=0
result() { # OK NAME [DIAGNOSTIC...]
	n=$((n + 1))
	if [ "$1" = 1 ]; then
		pass=$((pass + 1))
		echo "ok $n $2"
	else
		fail=$((fail + 1))
		shift 2
		printf '# %s\n' "$@"
		echo "not ok $n ${name}"
	fi
}
trim() { sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' <<<"$1"; }
for row in "${rows[@]}"; do
	IFS='|' read -r name cmd want <<<"$row"
	name=$(trim "$name") cmd=$(trim "$cmd") want=$(trim "$want")
	read -r prog args <<<"$cmd"
	if [ "$prog" = common.sh ]; then
		# the layout of tools/lib/common.sh, for a cache at /c
		run() { CACHE=/c KERNEL= KERNELS= FLAVOUR= IMAGE= TREE= BUILD= KSTOUT= \
			bash -c ". '$lib/common.sh'; $args" 2>&1; }
	else
		# shellcheck disable=SC2086
		run() { python3 "$lib/$prog" $args 2>/dev/null; }
	fi
	got=$(run | sed '/^$/d' | sed 's/\t/\\t/g' |
		awk 'NR > 1 { printf " / " } { printf "%s", $0 } END { print "" }')
	if [ "$got" = "$want" ]; then
		result 1 "$name"
	else
		result 0 "$name" "want: $want" "got:  $got"
	fi
done
# The rule: a recorded failure never reads as all passed (kst-count's FAILED, kunit-count's BAD).
for f in "${bad_logs[@]}"; do
	name="a failing log never counts as all passed: $f"
	case $f in
	kst-*) read -r _ failed _ < <(python3 "$lib/ktap.py" kst-count "$f" "$(grep -c '^rm-guest: test ' "$f")") ;;
	*) read -r _ failed < <(python3 "$lib/ktap.py" kunit-count "$f") ;;
	esac
	case $failed in
	''|0) result 0 "$name" "$f counted as $failed failed" ;;
	*) result 1 "$name" ;;
	esac
done
echo "$pass passed, $fail failed"
[ -z "${1:-}" ] || echo "$pass $fail" > "$1"
[ "$fail" = 0 ]
