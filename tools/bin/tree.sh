#!/usr/bin/env bash
# make tree: extract the pristine Debian linux-source tree once into the cache as a git
# worktree (first commit = pristine, tagged "pristine"), then apply series/ with git am, one
# commit per patch.  Fast when nothing changed; re-applies when series/ changed; refuses to
# throw away commits that were made in the worktree but not exported.
. "$(dirname "$0")/../lib/common.sh"

need git git
need xz xz-utils
need_pkg "$PKG"
[ -f "$TARBALL" ] || die "$TARBALL not found although $PKG is installed: reinstall it with 'apt-get install --reinstall -y $PKG'"

installed=$(pkg_version "$PKG")
state=$TREE/.git/reuseport-migrate-state

extract() {
	log "extracting $TARBALL ($PKG $installed) into $TREE"
	rm -rf "$TREE.new" "$TREE"
	mkdir -p "$TREE.new"
	tar -xJf "$TARBALL" -C "$TREE.new" --strip-components=1
	git -C "$TREE.new" init -q -b series
	git -C "$TREE.new" config user.name "$GIT_IDENT_NAME"
	git -C "$TREE.new" config user.email "$GIT_IDENT_EMAIL"
	git -C "$TREE.new" config core.abbrev 12
	git -C "$TREE.new" add -A -f .
	git -C "$TREE.new" commit -q -m "Pristine $PKG $installed" \
		-m "Extracted from $TARBALL of Debian package $PKG version $installed."
	git -C "$TREE.new" tag pristine
	mv "$TREE.new" "$TREE"
}

if [ ! -d "$TREE/.git" ] || ! git -C "$TREE" rev-parse -q --verify pristine >/dev/null; then
	extract
else
	tree_ver=$(git -C "$TREE" log -1 --format=%s pristine | awk '{print $NF}')
	if [ "$tree_ver" != "$installed" ]; then
		if [ -f "$state" ] && [ "$(git -C "$TREE" rev-parse HEAD)" != "$(awk '{print $2}' "$state")" ] &&
		   [ "${FORCE:-0}" != 1 ]; then
			die "$PKG changed ($tree_ver -> $installed) but $TREE has unexported commits: run 'make export' first, or FORCE=1 to discard them"
		fi
		log "warning: $PKG is now $installed, the cached tree was $tree_ver: re-extracting"
		extract
	fi
fi

# The series file: patch names in order; '#' lines are comments, "# base <ver>: <pkgver>"
# records the Debian version each base was last exported on.
series_list=$REPO/series/series
patches=()
if [ -f "$series_list" ]; then
	while read -r p; do
		[ -f "$REPO/series/$p" ] || die "series/series lists '$p', which does not exist in series/"
		patches+=("$p")
	done < <(series_patches)
	made_on=$(sed -n "s/^# base $KERNEL: //p" "$series_list")
	if [ -n "$made_on" ] && [ "$made_on" != "$installed" ]; then
		log "warning: series/ was exported on $PKG $made_on; this tree is $installed (patches are applied anyway)"
	fi
fi

series_hash=$(series_hash)
head=$(git -C "$TREE" rev-parse HEAD)

if [ -f "$state" ]; then
	read -r old_hash old_head < "$state"
	if [ "$old_hash" = "$series_hash" ]; then
		if [ "$head" = "$old_head" ]; then
			log "$TREE is up to date ($PKG $installed + ${#patches[@]} patches)"
		else
			log "note: $TREE has commits not exported to series/ (HEAD $(git -C "$TREE" rev-parse --short HEAD)); testing the worktree as it is. Run 'make export' to keep them."
		fi
		exit 0
	fi
	if [ "$head" != "$old_head" ] && [ "${FORCE:-0}" != 1 ]; then
		die "series/ changed and $TREE has commits that are not in series/: export them first ('make export') or run with FORCE=1 to discard them"
	fi
fi
if [ -n "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] && [ "${FORCE:-0}" != 1 ]; then
	die "$TREE has uncommitted changes: commit and export them, or run with FORCE=1 to discard them"
fi

rm -f "$state"
at_pristine "$TREE" series
# One branch per layer, layer/<name>, at the layer's last commit: 'make export' cuts the
# commits into layers there (keep them in place with 'git rebase -i --update-refs').
git -C "$TREE" for-each-ref --format='%(refname:short)' refs/heads/layer/ |
	xargs -r git -C "$TREE" branch -q -D
n=0
for p in "${patches[@]}"; do
	n=$((n + 1))
	pf=$(series_file "$p")
	if ! out=$(apply_patch "$TREE" "$p" 2>&1); then
		# Remember where the tree stopped: commits made on top of it to repair the patch
		# count as unexported, and the next run keeps them unless FORCE=1.
		echo "partial $(git -C "$TREE" rev-parse HEAD)" > "$state"
		printf '%s\n' "$out" | sed 's/^/    /' >&2
		die "patch $n/${#patches[@]} ${pf#"$REPO"/} does not apply to $PKG $installed (reason above); the tree is left at the patch before it"
	fi
	case $p in */*) git -C "$TREE" branch -q -f "layer/${p%%/*}" HEAD ;; esac
done
echo "$series_hash $(git -C "$TREE" rev-parse HEAD)" > "$state"
log "$TREE: $PKG $installed + ${#patches[@]} patches applied"
