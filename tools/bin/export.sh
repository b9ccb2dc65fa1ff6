#!/usr/bin/env bash
# make export: regenerate series/ from the worktree's commits on top of "pristine", one
# directory per layer: the commits up to branch layer/<first> form the first layer, those up
# to layer/<second> the next, and so on ('make tree' creates the branches; 'git rebase -i
# --update-refs pristine' keeps them in place while editing).  Each layer is written with
# git format-patch (zeroed commit ids, no signature: no churn when nothing changed), its own
# cover letter and the subject prefix its tree takes ([PATCH net], [PATCH net-next], [PATCH 6.1]); the
# series file lists every patch in order as <layer>/<patch>.
. "$(dirname "$0")/../lib/common.sh"
[ -d "$TREE/.git" ] || die "no tree at $TREE: run 'make tree KERNEL=$KERNEL' first"
[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
	die "$TREE has uncommitted changes: commit them (one commit per patch) before 'make export'"
installed=$(git -C "$TREE" log -1 --format=%s pristine | awk '{print $NF}')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The layers, ordered by their position on HEAD's history; each must end beyond the one
# before it, and the last one at HEAD.
head=$(git -C "$TREE" rev-parse HEAD)
layers=()
for l in $(git -C "$TREE" for-each-ref --format='%(refname:strip=3)' refs/heads/layer/); do
	git -C "$TREE" merge-base --is-ancestor "layer/$l" HEAD ||
		die "branch layer/$l is not on HEAD's history: rebase with --update-refs, or move it with 'git -C $TREE branch -f layer/$l <commit>'"
done
while read -r _ l; do
	layers+=("$l")
done < <(git -C "$TREE" for-each-ref --format='%(refname:strip=3)' refs/heads/layer/ |
	while read -r l; do echo "$(git -C "$TREE" rev-list --count pristine.."layer/$l") $l"; done |
	sort -n)
[ "${#layers[@]}" -gt 0 ] ||
	die "$TREE has no layer/<name> branches: 'make tree' creates them from series/; or create them at each layer's last commit"
for l in "${layers[@]}"; do
	b=$(layer_base "$l")
	case ${l%"-$b"} in
	variants|*[!a-z0-9-]*) die "layer/$l: a layer name is lower case letters, digits and '-' (and a -<base> suffix), and not 'variants'" ;;
	esac
	[ -z "$b" ] || [ "$b" = "$KERNEL" ] ||
		die "layer/$l belongs to base $b, but this is the $KERNEL tree: export it from $b"
done
last=${layers[-1]}
[ "$(git -C "$TREE" rev-parse "layer/$last")" = "$head" ] ||
	die "HEAD is past layer/$last: move the branch of the last layer to HEAD ('git -C $TREE branch -f layer/$last HEAD') or rebase with --update-refs"

# prefix LAYER: the subject prefix of a layer's patches: net and net-next are netdev's trees;
# stable-<base> holds backports for that stable branch ([PATCH 6.1]); any other layer is the
# project's own and never posted.
prefix() {
	case $1 in
	net|net-next) echo "PATCH $1" ;;
	stable-*) echo "PATCH ${1#stable-}" ;;
	*) echo "PATCH $1 (not for posting)" ;;
	esac
}

prev=pristine
names=()
for l in "${layers[@]}"; do
	from=$(git -C "$TREE" rev-parse "$prev")
	[ "$from" != "$(git -C "$TREE" rev-parse "layer/$l")" ] || die "layer $l has no commits: delete branch layer/$l"
	git -C "$TREE" format-patch -q --zero-commit --no-signature --cover-letter \
		--subject-prefix="$(prefix "$l")" -o "$tmp/$l" "$prev..layer/$l"
	# The cover letter keeps its subject, blurb (and date, when nothing changed) across exports,
	# and ends the blurb with the size of each patch.
	mapfile -t layer_patches < <(ls "$tmp/$l"/[0-9][0-9][0-9][0-9]-*.patch | grep -v '/0000-cover-letter\.patch$')
	python3 "$REPO/tools/lib/cover-letter.py" "$tmp/$l/0000-cover-letter.patch" \
		"$REPO/series/$l/0000-cover-letter.patch" "$tmp/cover" "${layer_patches[@]}"
	mv "$tmp/cover" "$tmp/$l/0000-cover-letter.patch"
	for f in "$tmp/$l"/[0-9][0-9][0-9][0-9]-*.patch; do
		[ "${f##*/}" = 0000-cover-letter.patch ] || names+=("$l/${f##*/}")
	done
	prev=layer/$l
done

# The layers of this base alone (-<base>) are written as they are, and the series file keeps
# the lines of the other bases' own layers where they were: before the shared layers (a
# stable-<base> layer of backports the shared patches rest on) or after them (base fixups).
# series_lines_of_others pre|post: those lines, before or after the first shared patch.
own_layers=()
for l in "${layers[@]}"; do
	[ -z "$(layer_base "$l")" ] || own_layers+=("$l")
done
series_lines_of_others() {
	[ -f "$REPO/series/series" ] || return 0
	local shared=0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$REPO/series/series" |
		while IFS=/ read -r l rest; do
			b=$(layer_base "$l")
			if [ -z "$b" ]; then
				shared=1
			elif [ "$b" != "$KERNEL" ]; then
				case $1/$shared in pre/0 | post/1) echo "$l/$rest" ;; esac
			fi
		done
}
# write_layer LAYER: replace series/LAYER with this export's patches of it.
write_layer() {
	rm -rf "${REPO:?}/series/$1"
	mkdir -p "$REPO/series/$1"
	cp "$tmp/$1"/*.patch "$REPO/series/$1/"
}

# series/ is exported from the main tree (tools/data/trees).  From another base, only the patches whose
# form differs there (other than in line numbers and blob ids) are written, as variants in
# series/variants/$KERNEL/<layer>/; a variant equal to the main patch is removed.
main=$(main_tree)
if [ "$KERNEL" != "$main" ]; then
	norm() { sed -e '/^Date: /d' -e '/^index [0-9a-f]*\.\.[0-9a-f]*/d' -e '/^@@ /d' \
		-e '/^\[[0-9]*\.[0-9]*: /,/^$/d' -e '/^Backport to [0-9.]* of \[PATCH /,/^$/d' \
		-e '/^The [0-9.]* form of \[PATCH /,/^$/d' "$1"; }
	vdir=$REPO/series/variants/$KERNEL
	# This base's own layers: written whole, their lines before the shared patches when the
	# tree applies them first, else at the end of the series file.
	own_pre=() own_post=() seen_shared=0
	for p in "${names[@]}"; do
		if [ -z "$(layer_base "${p%%/*}")" ]; then
			seen_shared=1
		elif [ $seen_shared = 0 ]; then
			own_pre+=("$p")
		else
			own_post+=("$p")
		fi
	done
	mapfile -t names < <(printf '%s\n' "${names[@]}" | while IFS=/ read -r l rest; do
		[ -n "$(layer_base "$l")" ] || echo "$l/$rest"; done)
	for d in "$REPO"/series/*-"$KERNEL"; do
		[ ! -d "$d" ] || in_list "${d##*/}" "${own_layers[@]}" || rm -rf "$d"
	done
	for l in "${own_layers[@]}"; do write_layer "$l"; done
	grep -v -E "^[a-z0-9-]+-${KERNEL//./\\.}/" "$REPO/series/series" > "$tmp/rest"
	{
		grep '^#' "$tmp/rest"
		[ "${#own_pre[@]}" = 0 ] || printf '%s\n' "${own_pre[@]}"
		grep -v '^#' "$tmp/rest"
		[ "${#own_post[@]}" = 0 ] || printf '%s\n' "${own_post[@]}"
	} > "$tmp/series"
	cp "$tmp/series" "$REPO/series/series"
	mapfile -t listed < <(series_patches | while IFS=/ read -r l rest; do
		[ -n "$(layer_base "$l")" ] || echo "$l/$rest"; done)
	[ "${#names[@]}" = "${#listed[@]}" ] ||
		die "$TREE has ${#names[@]} patches, series/ lists ${#listed[@]}: export from $main first"
	for i in "${!names[@]}"; do
		[ "${names[$i]%%/*}" = "${listed[$i]%%/*}" ] ||
			die "patch $((i + 1)) is in layer ${names[$i]%%/*} on $KERNEL but in ${listed[$i]%%/*} in series/: export from $main first"
		new=$tmp/${names[$i]} main=$REPO/series/${listed[$i]} var=$vdir/${listed[$i]}
		if cmp -s <(norm "$new") <(norm "$main"); then
			rm -f "$var"
		elif ! cmp -s "$new" "$var"; then
			mkdir -p "$(dirname "$var")"
			cp "$new" "$var"
			grep -q "^\[$KERNEL: " "$var" ||
				log "variant for $KERNEL without its note: series/variants/$KERNEL/${listed[$i]} (end its message with a paragraph \"[$KERNEL: what was adjusted]\")"
		fi
	done
	# Variants of patches the series no longer has.
	if [ -d "$vdir" ]; then
		while read -r f; do
			rel=${f#"$vdir"/}
			in_list "$rel" "${listed[@]}" || { rm -f "$f"; log "removed stale variant $rel"; }
		done < <(find "$vdir" -type f -name '*.patch')
		find "$vdir" -mindepth 1 -type d -empty -delete
	fi
	sed -i "s/^# base $KERNEL: .*/# base $KERNEL: $installed/" "$REPO/series/series"
	echo "$(series_hash) $(git -C "$TREE" rev-parse HEAD)" > "$TREE/.git/reuseport-migrate-state"
	log "exported $KERNEL: $(find "$vdir" -name '*.patch' 2>/dev/null | wc -l) variant(s)"
	exit 0
fi

# Keep the other base's "# base" line: the series serves both trees.
other=$(grep '^# base ' "$REPO/series/series" 2>/dev/null | grep -v "^# base $KERNEL:" || true)
{
	echo "# Patches applied in order by 'make tree' (git am), generated by 'make export';"
	echo "# <layer>/<patch>, layers in the order they are posted and applied."
	{ echo "# base $KERNEL: $installed"; [ -z "$other" ] || printf '%s\n' "$other"; } | sort
	series_lines_of_others pre
	printf '%s\n' "${names[@]}"
	series_lines_of_others post
} > "$tmp/series.new"

mkdir -p "$REPO/series"
# Drop what the previous export wrote (a flat series, or layers that are gone); keep variants
# and the other base's own layers.
mapfile -t keep < <({ series_lines_of_others pre; series_lines_of_others post; } | cut -d/ -f1 | sort -u)
find "$REPO/series" -maxdepth 2 -name '[0-9][0-9][0-9][0-9]-*.patch' -not -path '*/variants/*' |
	while read -r f; do
		d=${f%/*}; d=${d##*/}
		in_list "$d" "${keep[@]}" || rm -f "$f"
	done
find "$REPO/series" -mindepth 1 -maxdepth 1 -type d -not -name variants -empty -delete
for l in "${layers[@]}"; do
	write_layer "$l"
done
cp "$tmp/series.new" "$REPO/series/series"

# Record the export as what the tree is at, so 'make tree' sees it up to date.
echo "$(series_hash) $(git -C "$TREE" rev-parse HEAD)" > "$TREE/.git/reuseport-migrate-state"
log "exported $(series_patches | wc -l) patches in ${#layers[@]} layers (${layers[*]}) to series/"
