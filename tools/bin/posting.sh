#!/usr/bin/env bash
# make posting: a copy of the layers that are posted (net, net-next, and the tree's stable
# layer), in the tree's form, that a person can send.  The repository's patches carry a
# placeholder identity; the Developer's Certificate of Origin needs a real person's, which only
# the person who posts can give: SIGNOFF="Name <mail>" replaces the placeholder's From: and
# Signed-off-by: lines.  Each layer's cover letter gets the base the layer was written on (a
# Debian source package, not a mainline commit), and each layer's directory the maintainers and
# lists scripts/get_maintainer.pl names for its patches (maintainers.txt) and the command that
# would send it (send.sh; nothing is sent here).
#
# Usage: SIGNOFF="Name <mail>" make posting [KERNEL=...] [POSTING=DIR]
#        (DIR default $CACHE/posting/<tree>; it is replaced)
. "$(dirname "$0")/../lib/common.sh"
need perl perl
need_tree
signoff=${SIGNOFF:-}
[[ $signoff =~ ^[^\<\>]+\ \<[^\<\>@\ ]+@[^\<\>@\ ]+\>$ ]] ||
	die "SIGNOFF='$signoff': want SIGNOFF=\"Your Name <you@example.org>\", the person who posts"
case $signoff in
*"$GIT_IDENT_EMAIL"* | *.invalid\> | *"$GIT_IDENT_NAME"*)
	die "SIGNOFF='$signoff' is the placeholder identity (or an .invalid address): a real person must sign off" ;;
esac
out=${POSTING:-$CACHE/posting/$KERNEL}
version=$(git -C "$TREE" log -1 --format=%s pristine | awk '{ print $NF }')
rm -rf "$out"
mkdir -p "$out"
ident="$GIT_IDENT_NAME <$GIT_IDENT_EMAIL>"

for layer in $(series_layers); do
	case $layer in net | net-next | stable-"$KERNEL") ;; *) continue ;; esac
	dir=$out/$layer
	mkdir -p "$dir"
	for p in "$layer/0000-cover-letter.patch" $(series_patches | grep "^$layer/"); do
		[ -f "$(series_file "$p")" ] || continue
		f=$dir/${p#*/}
		sed -e "s|^From: $ident\$|From: $signoff|" \
			-e "s|^Signed-off-by: $ident\$|Signed-off-by: $signoff|" "$(series_file "$p")" > "$f"
		! grep -qF "$GIT_IDENT_EMAIL" "$f" || die "$p: the placeholder identity is left in $f"
	done
	# The base, after the cover letter's shortlog and diffstat (where base-commit: would be).
	cover=$(ls "$dir"/0000-cover-letter.patch 2>/dev/null || true)
	if [ -n "$cover" ]; then
		printf '\nbase: Debian source package %s %s (no mainline commit id is known for it)\n' \
			"$PKG" "$version" >> "$cover"
	fi
	mapfile -t files < <(ls "$dir"/*.patch | grep -v '/0000-cover-letter\.patch$')
	(cd "$TREE" && ./scripts/get_maintainer.pl --nogit --nogit-fallback --norolestats \
		"${files[@]}" 2>/dev/null) | sort -u > "$dir/maintainers.txt" || true
	# To: the list that takes the layer (a stable backport goes to stable@ once its commit is
	# upstream); Cc: every maintainer and list get_maintainer.pl names.
	to=netdev@vger.kernel.org
	case $layer in stable-*) to=stable@vger.kernel.org ;; esac
	cc=$(grep -vxF "$to" "$dir/maintainers.txt" | paste -sd, - || true)
	{
		echo "#!/bin/sh"
		echo "# $layer of reuseport-migrate on $PKG $version, signed off by $signoff."
		echo "# Read every patch and maintainers.txt first; run scripts/checkpatch.pl --strict."
		printf 'git send-email --to=%q --cc=%q %q/*.patch\n' "$to" "$cc" "$dir"
	} > "$dir/send.sh"
	chmod +x "$dir/send.sh"
	log "$layer: $(ls "$dir"/*.patch | wc -l) files in $dir; to: $to; maintainers.txt: $(wc -l < "$dir/maintainers.txt") line(s)"
done
echo "posting: $out (nothing was sent; each layer's send.sh says how)"
