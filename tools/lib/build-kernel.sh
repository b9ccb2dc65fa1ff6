#!/usr/bin/env bash
# Build (incrementally) the FLAVOUR kernel of the tree: the root .kunitconfig, kselftest/config
# and the flavour's kunitconfig (tools/data/flavours), through `kunit.py build`, which also
# checks that every fragment line survived olddefconfig.  Extra arguments go to kunit.py.
. "$(dirname "$0")/common.sh"
need python3 python3
need ccache ccache
need bison bison
need flex flex
need bc bc
need_pkg libelf-dev
need_pkg libssl-dev
need_tree
mkdir -p "$BUILD"
mapfile -t configs < <(kunitconfigs)
cd "$TREE"
python3 tools/testing/kunit/kunit.py build --arch=x86_64 "${configs[@]}" "$@" \
	--build_dir="$BUILD" --jobs="$JOBS" --make_options 'CC=ccache gcc' >&2 ||
	die "kernel build failed in $BUILD (see the output above)"
[ -f "$BUILD/arch/x86/boot/bzImage" ] || die "no bzImage in $BUILD after the build"
