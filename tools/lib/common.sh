# shellcheck shell=bash
# The harness's one home: which trees and kernel flavours there are (tools/data/trees,
# tools/data/flavours), where everything lives in the cache, and the helpers every entry point
# of tools/bin/ shares.  Sourced, not run.
#
# The names every target takes (README, "Variables"):
#   KERNEL   the base tree (a line of tools/data/trees; default: its first tree)
#   KERNELS  the trees a per-tree target runs on, in order (default: KERNEL)
#   FLAVOUR  the kernel flavour (a line of tools/data/flavours: plain, debug, kcsan)
#   IMAGE    a bzImage to boot instead of the tree's FLAVOUR kernel (no build)
#   CACHE    where trees, builds and ccache live, outside the repository
#
# The cache, for tree T and flavour F:
#   $CACHE/T/linux                  the git worktree: pristine commit + series/
#   $CACHE/T/build-F                the kernel build directory (O=)
#   $CACHE/T/kselftest-F            selftest binaries, initramfs, guest log, counts
#   $CACHE/T/<target>               a target's scratch trees and output (proof-fix, check, ...)
#   $CACHE/ccache                   ccache, shared by every tree and flavour
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE=${CACHE:-/var/tmp/reuseport-migrate}
RM_TREES=$REPO/tools/data/trees
RM_FLAVOURS=$REPO/tools/data/flavours

log() { printf '[%s %s] %s\n' "$(date +%H:%M:%S)" "${0##*/}" "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# table_rows FILE: the data lines of a table (comments and blank lines dropped).
table_rows() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$1"; }
# table_field FILE KEY N: field N of the line whose first field is KEY (empty if none).
table_field() { table_rows "$1" | awk -v k="$2" -v n="$3" '$1 == k { print $n; exit }'; }

# trees / flavours: every name, in the table's order.
trees() { table_rows "$RM_TREES" | awk '{ print $1 }'; }
flavours() { table_rows "$RM_FLAVOURS" | awk '{ print $1 }'; }
# tree_field TREE package|suite|clang|form
tree_field() {
	local n
	case $2 in package) n=2 ;; suite) n=3 ;; clang) n=4 ;; form) n=5 ;; *) die "tree_field: $2" ;; esac
	table_field "$RM_TREES" "$1" "$n"
}
# flavour_field FLAVOUR kunitconfig|lists|kunit-tmo|kst-tmo|detectors|cmdline ("-" reads as empty)
flavour_field() {
	local n v
	case $2 in
	kunitconfig) n=2 ;; lists) n=3 ;; kunit-tmo) n=4 ;; kst-tmo) n=5 ;; detectors) n=6 ;;
	cmdline) n=7 ;; *) die "flavour_field: $2" ;;
	esac
	v=$(table_field "$RM_FLAVOURS" "$1" "$n")
	[ "$v" = - ] || echo "$v"
}
# main_tree: the tree series/ holds the patches of (form "main"); the others keep variants.
main_tree() { table_rows "$RM_TREES" | awk '$5 == "main" { print $1; exit }'; }

# in_list WORD [ITEM...]: true if WORD is one of the ITEMs.  Scripts run with pipefail, so a
# "producer | grep -q" test may fail when grep exits at its first match and the producer then
# dies of SIGPIPE: membership and output tests compare in the shell or on captured output.
in_list() {
	local w=$1 x
	shift
	for x; do [ "$x" != "$w" ] || return 0; done
	return 1
}

# check_tree TREE / check_flavour FLAVOUR: die naming the choices unless the name is known.
check_tree() {
	# shellcheck disable=SC2046
	in_list "$1" $(trees) ||
		die "${2:-KERNEL}=$1 is not a tree of tools/data/trees (use one of: $(trees | tr '\n' ' '))"
}
check_flavour() {
	# shellcheck disable=SC2046
	in_list "$1" $(flavours) ||
		die "FLAVOUR=$1 is not a flavour of tools/data/flavours (use one of: $(flavours | tr '\n' ' '))"
}

# Paths of tree $1 (default KERNEL), flavour $2 (default FLAVOUR).
tree_dir() { echo "$CACHE/${1:-$KERNEL}/linux"; }
build_dir() { echo "$CACHE/${1:-$KERNEL}/build-${2:-$FLAVOUR}"; }
kst_dir() { echo "$CACHE/${1:-$KERNEL}/kselftest-${2:-$FLAVOUR}"; }
# image: the kernel to boot: IMAGE if set, else the bzImage of BUILD (the flavour's build
# directory, or the scratch one a proof hands over).
image() { echo "${IMAGE:-$BUILD/arch/x86/boot/bzImage}"; }
# kunitconfigs: the --kunitconfig arguments of the FLAVOUR kernel (the root .kunitconfig, or
# KUNIT_CONFIG instead; the kselftest fragment, and the tree's own additions to it,
# kselftest/config-$KERNEL, where a tree's Kconfig needs more to keep its lines; the flavour's
# own).
kunitconfigs() {
	local f
	echo "--kunitconfig=${KUNIT_CONFIG:-$REPO/.kunitconfig}"
	echo "--kunitconfig=$REPO/kselftest/config"
	[ ! -f "$REPO/kselftest/config-$KERNEL" ] || echo "--kunitconfig=$REPO/kselftest/config-$KERNEL"
	f=$(flavour_field "$FLAVOUR" kunitconfig)
	[ -z "$f" ] || echo "--kunitconfig=$REPO/$f"
}

# use_tree TREE: make TREE the current tree (KERNEL and the paths derived from it).
use_tree() {
	check_tree "$1"
	export KERNEL=$1
	PKG=$(tree_field "$KERNEL" package)
	TARBALL=/usr/src/$PKG.tar.xz
	TREE=$(tree_dir)
	BUILD=$(build_dir)
	KSTOUT=$(kst_dir)
}

KERNEL=${KERNEL:-$(trees | head -n 1)}
KERNELS=${KERNELS:-$KERNEL}
FLAVOUR=${FLAVOUR:-plain}
check_flavour "$FLAVOUR"
export CACHE KERNELS FLAVOUR
# A target that runs a step on a scratch copy (make fix-proof, make stress-proof) hands it the
# copy's paths as TREE, BUILD and KSTOUT; they hold until the next use_tree.
_tree=${TREE:-} _build=${BUILD:-} _kstout=${KSTOUT:-}
use_tree "$KERNEL"
TREE=${_tree:-$TREE} BUILD=${_build:-$BUILD} KSTOUT=${_kstout:-$KSTOUT}
unset _tree _build _kstout
for k in $KERNELS; do check_tree "$k" KERNELS; done
[ -z "${IMAGE:-}" ] || [ -f "$IMAGE" ] || die "IMAGE=$IMAGE: no such file"

export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
# Paths under the cache are hashed relative to it, so worktrees and build directories share hits.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$CACHE}
JOBS=${JOBS:-$(nproc)}

# tcg_only CMD...: run CMD with qemu-system-x86_64 limited to TCG (tools/lib/tcg/): a runner
# that picks its own accelerator (the kunit.py of 7.3 asks for KVM first) gets TCG all the same,
# as every guest of the harness does unless KVM=1 and the boot probe passed.
tcg_only() { PATH="$REPO/tools/lib/tcg:$PATH" "$@"; }

# need CMD PACKAGE: fail naming the package and the command that installs it.
need() {
	command -v "$1" >/dev/null 2>&1 ||
		die "'$1' is missing: install it with 'apt-get install -y $2' (or run 'make deps')"
}

# need_pkg PACKAGE: same, for packages without a command (libraries, sources).
need_pkg() {
	local t suite=
	[[ $(dpkg-query -W -f='${Status}' "$1" 2>/dev/null) != *'install ok installed'* ]] || return 0
	for t in $(trees); do
		[ "$(tree_field "$t" package)" != "$1" ] || suite=$(tree_field "$t" suite)
	done
	case $suite in
	''|bookworm) die "package '$1' is missing: install it with 'apt-get install -y $1' (or run 'make deps')" ;;
	*) die "package '$1' is missing: it comes from Debian's $suite suite, which 'make deps' adds and pins for it alone (is the suite reachable? 'apt-get install -t $suite $1')" ;;
	esac
}

pkg_version() { dpkg-query -W -f='${Version}' "$1"; }

# need_tree: die unless the current tree has been made.
need_tree() {
	[ -e "$TREE/.git" ] || die "no tree at $TREE: run 'make tree KERNEL=$KERNEL' first"
}

# The identity every patch of the series carries.
GIT_IDENT_NAME="reuseport-migrate developers"
GIT_IDENT_EMAIL="dev@reuseport-migrate.invalid"
export GIT_AUTHOR_NAME="$GIT_IDENT_NAME" GIT_AUTHOR_EMAIL="$GIT_IDENT_EMAIL"
export GIT_COMMITTER_NAME="$GIT_IDENT_NAME" GIT_COMMITTER_EMAIL="$GIT_IDENT_EMAIL"

# layer_base LAYER: the tree a layer belongs to alone (its -<tree> suffix: base-fixups-6.12),
# empty for a layer of every tree.
layer_base() {
	case $1 in
	*-[0-9]*.[0-9]*) echo "${1##*-}" ;;
	esac
}

# series_patches: the patch names of series/series this tree applies, in order (comments and
# blanks dropped).  A layer whose name ends in -<tree> belongs to that tree alone.
series_patches() {
	[ -f "$REPO/series/series" ] || return 0
	local p
	table_rows "$REPO/series/series" | sed 's/[[:space:]]*$//' | while read -r p; do
		case $(layer_base "${p%%/*}") in "" | "$KERNEL") echo "$p" ;; esac
	done
}

# series_layers: the layers of series/ in order, each listed once.
series_layers() {
	series_patches | awk -F/ 'NF > 1 && !seen[$1]++ { print $1 }'
}

# series_file NAME: the file to apply for patch NAME on this tree: the variant in
# series/variants/$KERNEL/ when the patch needs another form there, else series/NAME.
series_file() {
	if [ -f "$REPO/series/variants/$KERNEL/$1" ]; then
		echo "$REPO/series/variants/$KERNEL/$1"
	else
		echo "$REPO/series/$1"
	fi
}

# scratch_tree DIR: DIR, a worktree of the tree (detached, at pristine) for a target that
# checks out other states without touching the tree itself; created on first use.
scratch_tree() {
	if [ ! -e "$1/.git" ]; then
		mkdir -p "$(dirname "$1")"
		git -C "$TREE" worktree prune
		git -C "$TREE" worktree add -q --detach "$1" pristine
	fi
}

# at_pristine DIR [BRANCH]: DIR, a worktree of the tree, clean at the pristine commit: detached,
# or on BRANCH reset to pristine; an am left in progress is aborted.
at_pristine() {
	git -C "$1" am --abort >/dev/null 2>&1 || true
	if [ -n "${2:-}" ]; then
		git -C "$1" checkout -q -B "$2" pristine
	else
		git -C "$1" checkout -q --detach pristine
	fi
	git -C "$1" reset -q --hard pristine
}

# apply_patch DIR NAME [GIT-AM-OPTION...]: git am of patch NAME of series/ (this tree's form) in
# DIR.  On failure the am is aborted, git's message goes to stderr and the status is 1.
apply_patch() {
	local dir=$1 name=$2 out
	shift 2
	if ! out=$(git -C "$dir" am -q --keep-cr "$@" "$(series_file "$name")" 2>&1); then
		git -C "$dir" am --abort >/dev/null 2>&1 || true
		printf '%s\n' "$out" >&2
		return 1
	fi
}

# series_hash: a digest of the patch list and the contents of the patches this tree applies
# (not of the comments, so recording another tree's version does not make trees re-apply).
series_hash() {
	series_patches | while read -r p; do echo "== $p"; cat "$(series_file "$p")"; done |
		sha256sum | cut -c1-16
}

# The totals of the per-tree targets: a summary line per step, then the line CI reads,
# "N passed, N failed".
total_p=0 total_f=0 summary=()
# tally PASSED FAILED [LINE]: add one step's counts, and its summary line if given.
tally() {
	total_p=$((total_p + $1)) total_f=$((total_f + $2))
	[ -z "${3:-}" ] || summary+=("$3")
}
# read_counts FILE: the "passed failed" pair a runner wrote to FILE; "0 1" if there is none (the
# runner never got that far, which counts as a failure).
read_counts() {
	if [ -f "$1" ]; then cat "$1"; else echo "0 1"; fi
}

# for_each_tree FUNCTION: the one per-tree loop.  For each tree of KERNELS, in order: make it
# current (use_tree), bring its worktree up to date (tools/bin/tree.sh), call FUNCTION (which
# tallies its own steps) and add the tree's time to the summary.  A tree that cannot be made
# counts as one failure; the status is 1 if any FUNCTION returned non-zero.
for_each_tree() {
	local k t0 rc=0
	for k in $KERNELS; do
		use_tree "$k"
		t0=$(date +%s)
		if ! "$REPO/tools/bin/tree.sh"; then
			tally 0 1 "$k: make tree failed"
			rc=1
			continue
		fi
		"$1" || rc=1
		summary+=("$k${FLAVOUR:+ $FLAVOUR}: $(( $(date +%s) - t0 )) s")
	done
	return "$rc"
}

# tally_end RC [NAME COMMAND]: print the summary lines and the total; true only if RC is 0 and
# nothing failed.  With NAME, the same lines go to $RESULTS/NAME.txt (RESULTS default results/)
# with the date, COMMAND (what regenerates the file) and each tree's commit.
tally_end() {
	local f k
	[ "${#summary[@]}" = 0 ] || printf '%s\n' "${summary[@]}"
	echo "$total_p passed, $total_f failed"
	if [ -n "${2:-}" ]; then
		f=${RESULTS:-$REPO/results}/$2.txt
		mkdir -p "$(dirname "$f")"
		{
			echo "$total_p passed, $total_f failed"
			echo "command: $3"
			echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
			for k in $KERNELS; do
				[ ! -d "$(tree_dir "$k")/.git" ] ||
					echo "tree $k: $(git -C "$(tree_dir "$k")" log -1 --format='%h %s')"
			done
			[ "${#summary[@]}" = 0 ] || printf '%s\n' "${summary[@]}"
		} > "$f"
	fi
	[ "$1" = 0 ] && [ "$total_f" = 0 ]
}

# The kernel's own report lines (console output, optionally timestamped; kmemleak's report is
# printed by the guest's init with a "kmemleak: " prefix): every one is a failure on a kernel
# whose detectors are on.
REPORT_RE='^(\[ *[0-9.]+\] )?(BUG: |WARNING: |INFO: (possible|trying|suspicious|lockdep|task)|UBSAN: |ODEBUG: |list_(add|del) corruption|refcount_t: |Kernel panic|Oops: |kmemleak: unreferenced object)'

# scan LOG: print each report with 3 lines before and up to 25 after; echo the number found.
scan() {
	local log=$1 n
	n=$(grep -a -c -E "$REPORT_RE" "$log" || true)
	if [ "$n" -gt 0 ]; then
		{
			echo "---- $n report line(s) in $log:"
			grep -a -n -E -B3 -A25 "$REPORT_RE" "$log" | head -n 400
			echo "----"
		} >&2
	fi
	echo "$n"
}

# kselftest_line NAME: the "name timeout" line of a kselftest, from the lists of kselftest/
# (tests*.txt; the first that has it); dies naming a test no list has.
kselftest_line() {
	local l
	l=$(cat "$REPO"/kselftest/tests*.txt | table_rows /dev/stdin | awk -v n="$1" '$1 == n { print; exit }')
	[ -n "$l" ] || die "'$1' is in no list of kselftest/ (tests*.txt)"
	echo "$l"
}

# flavour_list FILE: write the kselftest list of FLAVOUR (its lists, concatenated) to FILE.
flavour_list() {
	local l
	: > "$1"
	for l in $(flavour_field "$FLAVOUR" lists | tr , ' '); do
		sed -e '$a\' "$REPO/kselftest/$l" >> "$1"
	done
}
