#!/usr/bin/env bash
# Build (incrementally) the one test kernel of a base tree: root .kunitconfig + kselftest/config,
# through `kunit.py build`, which also checks that every fragment line survived olddefconfig.
# Extra arguments go to kunit.py (e.g. a debug kunitconfig).
. "$(dirname "$0")/common.sh"
need python3 python3
need ccache ccache
need bison bison
need flex flex
need bc bc
need_pkg libelf-dev
need_pkg libssl-dev
[ -e "$TREE/.git" ] || die "no tree at $TREE: run 'make tree KERNEL=$KERNEL' first"
mkdir -p "$BUILD"
cd "$TREE"
python3 tools/testing/kunit/kunit.py build --arch=x86_64 \
	--kunitconfig="$REPO/.kunitconfig" --kunitconfig="$REPO/kselftest/config" "$@" \
	--build_dir="$BUILD" --jobs="$JOBS" --make_options 'CC=ccache gcc' >&2 ||
	die "kernel build failed in $BUILD (see the output above)"
[ -f "$BUILD/arch/x86/boot/bzImage" ] || die "no bzImage in $BUILD after the build"
