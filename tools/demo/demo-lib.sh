# shellcheck shell=bash
# Shared by tools/demo/run-demo.sh and tools/demo/run-servers.sh.  Sourced, not run.
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"

# demo_setup NAME RESULTS_DIR: the settings both runs share.  Messages say NAME; checks the
# tools every demo guest needs; builds the tree's FLAVOUR kernel (incrementally) unless IMAGE
# is given; sets bzimage, build (DEMO_BUILD, default $CACHE/demo/<tree>), CPUS (default 2) and
# results (RESULTS_DIR, made absolute).
demo_setup() {
	local t
	demo_name=$1
	log() { echo "$demo_name: $*" >&2; }
	die() { echo "$demo_name: error: $*" >&2; exit 1; }
	for t in gcc qemu-system-x86_64 cpio gzip python3; do
		need "$t" "$([ "$t" = qemu-system-x86_64 ] && echo qemu-system-x86 || echo "$t")"
	done
	[ -x /bin/busybox ] || die "busybox is missing: install it with 'apt-get install -y busybox-static'"
	need_tree
	if [ -z "${IMAGE:-}" ]; then
		log "building the test kernel (incremental): tools/lib/build-kernel.sh"
		"$REPO/tools/lib/build-kernel.sh" || die "the kernel build failed"
	fi
	bzimage=$(image)
	[ -f "$bzimage" ] || die "no kernel at $bzimage: build the test kernel first (make kselftest), or set IMAGE"
	build=${DEMO_BUILD:-$CACHE/demo/$KERNEL}
	CPUS=${CPUS:-2}
	mkdir -p "$build" "$2"
	results=$(cd "$2" && pwd)
}

# demo_boot BZIMAGE INITRAMFS LOG TIMEOUT CPUS CMDLINE: boot the guest (tools/lib/qemu-run.sh,
# console to LOG) and append what went wrong to the array `problems` (tools/lib/guest-check.sh:
# init did not finish, panic, fewer CPUs than asked).
demo_boot() {
	local qrc
	set +e
	"$REPO/tools/lib/qemu-run.sh" "$1" "$2" "$3" "$4" "$5" "$6" >/dev/null
	qrc=$?
	set -e
	mapfile -t -O "${#problems[@]}" problems < <("$REPO/tools/lib/guest-check.sh" "$3" rm-demo "$5" "$qrc")
}

# demo_finish REPORT_PY LOG SUMMARY FILES: append REPORT_PY's tables of LOG to SUMMARY (both in
# the results directory), print it and the files written, then every problem; true if none.
demo_finish() {
	local p
	python3 "$here/$1" "$results/$2" "$results" >> "$results/$3" ||
		problems+=("the report found no result or a failed run")
	cat "$results/$3"
	echo "results: $results/{$4}"
	for p in "${problems[@]}"; do log "FAIL: $p"; done
	[ "${#problems[@]}" = 0 ]
}
