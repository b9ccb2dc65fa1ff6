#!/usr/bin/env bash
# build-pristine.sh [COMMIT]: build COMMIT of the tree (default "pristine": the Debian source as
# extracted, no patch of the series) with the configuration of the tree's test kernel (the
# plain flavour's .config, which 'make kselftest' or build-kernel.sh wrote), in a worktree and
# build directory of its own ($CACHE/<tree>/bench-base/{linux,build}).  The configuration is
# run through olddefconfig, so symbols only the series adds drop out; what differs from the
# test kernel's is written to $CACHE/<tree>/bench-base/config.diff.  Prints the bzImage's path.
# Used by make bench (the baseline of the SYN-path rate) and make pristine-figures.
. "$(dirname "$0")/common.sh"
need_tree
base=${1:-pristine}
# The source and build directories sit side by side as the test kernel's do (linux/ and
# build/), so that ccache (CCACHE_BASEDIR) finds the objects of every file the two trees share.
PSRC=$CACHE/$KERNEL/bench-base/linux
PBUILD=$CACHE/$KERNEL/bench-base/build
[ -f "$BUILD/.config" ] || die "no test kernel config at $BUILD/.config (make kselftest first)"
base_commit=$(git -C "$TREE" rev-parse -q --verify "$base^{commit}") ||
	die "$base is no commit of $TREE"
[ -d "$PSRC" ] || log "pristine source: worktree of $TREE at '$base' in $PSRC"
scratch_tree "$PSRC"
git -C "$PSRC" checkout -q --detach "$base_commit"
log "baseline: $base = $(git -C "$PSRC" log -1 --format='%h %s')"
mkdir -p "$PBUILD"
if ! cmp -s "$BUILD/.config" "$PBUILD/.config.from-test-kernel"; then
	cp "$BUILD/.config" "$PBUILD/.config"
	cp "$BUILD/.config" "$PBUILD/.config.from-test-kernel"
	make -s -C "$PSRC" O="$PBUILD" ARCH=x86_64 CC="ccache gcc" olddefconfig >&2
fi
log "building the $base kernel in $PBUILD"
make -s -C "$PSRC" O="$PBUILD" ARCH=x86_64 CC="ccache gcc" -j"$JOBS" bzImage >&2 ||
	die "the $base kernel does not build (see above)"
diff <(grep '^CONFIG_' "$BUILD/.config" | sort) <(grep '^CONFIG_' "$PBUILD/.config" | sort) \
	> "$CACHE/$KERNEL/bench-base/config.diff" || true
echo "$PBUILD/arch/x86/boot/bzImage"
