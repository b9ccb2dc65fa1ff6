# shellcheck shell=bash
# Shared settings for the reuseport-migrate scripts.  Sourced, not run.
#
# KERNEL  base tree: 6.1 (default) or 6.12
# CACHE   where trees, builds and ccache live (outside the repository)
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KERNEL=${KERNEL:-6.1}
CACHE=${CACHE:-/var/tmp/reuseport-migrate}
case "$KERNEL" in
6.1|6.12) ;;
*) echo "error: KERNEL=$KERNEL is not supported (use 6.1 or 6.12)" >&2; exit 2 ;;
esac
PKG=linux-source-$KERNEL
TARBALL=/usr/src/$PKG.tar.xz
TREE=${TREE:-$CACHE/$KERNEL/linux}        # git worktree: pristine commit + series
BUILD=${BUILD:-$CACHE/$KERNEL/build}       # kernel build directory (O=)
KSTOUT=${KSTOUT:-$CACHE/$KERNEL/kselftest} # selftest binaries, initramfs, logs
KSELFTEST_LIST=${KSELFTEST_LIST:-$REPO/kselftest/tests.txt}
export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
# Paths under the cache are hashed relative to it, so worktrees and build directories share hits.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$CACHE}
JOBS=${JOBS:-$(nproc)}

log() { printf '[%s %s] %s\n' "$(date +%H:%M:%S)" "${0##*/}" "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# need CMD PACKAGE: fail naming the package and the command that installs it.
need() {
	command -v "$1" >/dev/null 2>&1 ||
		die "'$1' is missing: install it with 'apt-get install -y $2' (or run 'make deps')"
}

# need_pkg PACKAGE: same, for packages without a command (libraries, sources).
need_pkg() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed' ||
		die "package '$1' is missing: install it with 'apt-get install -y $1' (or run 'make deps')"
}

pkg_version() { dpkg-query -W -f='${Version}' "$1"; }

# The identity every patch of the series carries.
GIT_IDENT_NAME="reuseport-migrate developers"
GIT_IDENT_EMAIL="dev@reuseport-migrate.invalid"
export GIT_AUTHOR_NAME="$GIT_IDENT_NAME" GIT_AUTHOR_EMAIL="$GIT_IDENT_EMAIL"
export GIT_COMMITTER_NAME="$GIT_IDENT_NAME" GIT_COMMITTER_EMAIL="$GIT_IDENT_EMAIL"

# series_patches: the patch names of series/series this base applies, in order (comments and
# blanks dropped).  A layer whose name ends in -<base> (base-fixups-6.12) belongs to that base
# alone: the other base leaves its patches out.
series_patches() {
	[ -f "$REPO/series/series" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$REPO/series/series" |
		awk -F/ -v k="$KERNEL" '{ b = layer_base($1) } b == "" || b == k
			function layer_base(l) { return match(l, /-[0-9]+\.[0-9]+$/) ? substr(l, RSTART + 1) : "" }'
}

# layer_base LAYER: the base a layer belongs to alone (its -<base> suffix), empty for a layer of
# both bases.
layer_base() {
	case $1 in
	*-[0-9]*.[0-9]*) echo "${1##*-}" ;;
	esac
}

# series_layers: the layers of series/ in order: the directory each patch name starts with
# (net, net-next, test-only), each listed once.
series_layers() {
	series_patches | awk -F/ 'NF > 1 && !seen[$1]++ { print $1 }'
}

# series_file NAME: the file to apply for patch NAME on this base: the variant in
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

# apply_patch DIR NAME [GIT-AM-OPTION...]: git am of patch NAME of series/ (this base's form) in
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

# series_hash: a digest of the patch list and the contents of the patches this base applies
# (not of the comments, so recording another base's version does not make trees re-apply).
series_hash() {
	series_patches | while read -r p; do echo "== $p"; cat "$(series_file "$p")"; done |
		sha256sum | cut -c1-16
}

# The totals of make check, check-debug and soak: a summary line per step, then the line CI reads,
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
			for k in ${kernels:-$KERNEL}; do
				[ ! -d "$CACHE/$k/linux/.git" ] ||
					echo "tree $k: $(git -C "$CACHE/$k/linux" log -1 --format='%h %s')"
			done
			[ "${#summary[@]}" = 0 ] || printf '%s\n' "${summary[@]}"
		} > "$f"
	fi
	[ "$1" = 0 ] && [ "$total_f" = 0 ]
}

# The debug kernel (make check-debug, make soak): detectors and the command line it boots with.
# The kernel's own report lines (console output, optionally timestamped; kmemleak's report is
# printed by the guest's init with a "kmemleak: " prefix).
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

# For the fault injection and churn tests: slub_debug=A marks the caches the migration paths
# allocate from for failslab's cache filter, F (consistency checks) keeps the TCP socket and
# request caches off per-CPU slabs so that their object counts are exact.
DEBUG_CMDLINE="slub_debug=FA,request_sock_TCP,request_sock_TCPv6;A,skbuff_head_cache,kmalloc-512,kmalloc-2k,kmalloc-4k;F,TCP,TCPv6"
