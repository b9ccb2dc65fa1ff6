#!/usr/bin/env bash
# make variant-diff: what a tree changes in the patches it carries in another form.  For each
# patch of series/variants/$KERNEL/, the difference between the main tree's form (series/) and
# this tree's, both with what only says where a line is (index lines, hunk positions) left out:
# the adjustments a reviewer of that tree's form has to check, and nothing else.  Ends with one
# line per patch and a total.  Reads series/ only (no tree needed).
. "$(dirname "$0")/../lib/common.sh"
need diff diffutils
main=$(main_tree)
[ "$KERNEL" != "$main" ] || die "$KERNEL is the main tree (tools/data/trees): its form is series/ itself; use KERNEL=<another tree>"
vdir=$REPO/series/variants/$KERNEL
[ -d "$vdir" ] || { echo "$KERNEL carries every patch in the form of $main: no variants"; exit 0; }

# norm PATCH: the patch without commit metadata, index lines and hunk positions.
norm() {
	sed -e '/^From [0-9a-f]\{40\} /d' -e '/^Date: /d' -e '/^index [0-9a-f]*\.\.[0-9a-f]*/d' \
		-e 's/^@@ -[0-9,]* +[0-9,]* @@/@@/' -e '/^-- $/,$d' "$1"
}

total=0 n=0
summary=()
while read -r v; do
	rel=${v#"$vdir"/}
	m=$REPO/series/$rel
	n=$((n + 1))
	if [ ! -f "$m" ]; then
		summary+=("$rel: no such patch in series/ (a stale variant)")
		continue
	fi
	d=$(diff -u --label "$main: series/$rel" --label "$KERNEL: series/variants/$KERNEL/$rel" \
		<(norm "$m") <(norm "$v") || true)
	# The changed lines: every line of the difference that starts with - or +, but the two
	# labels ("--- 7.3: ...", "+++ 6.12: ...").
	lines=$(printf '%s\n' "$d" | sed -e '1,2{/^\(---\|+++\) [0-9.]*: /d}' | grep -c '^[-+]' || true)
	total=$((total + lines))
	summary+=("$rel: $lines line(s) differ")
	printf '%s\n\n' "$d"
done < <(find "$vdir" -name '*.patch' | sort)
printf '%s\n' "${summary[@]}"
echo "$KERNEL: $n patch(es) in another form than $main's, $total line(s) differ in all"
