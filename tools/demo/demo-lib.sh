# shellcheck shell=bash
# Shared by tools/demo/run-demo.sh and tools/demo/run-servers.sh.  Sourced, not run.

# demo_boot BZIMAGE INITRAMFS LOG TIMEOUT CPUS CMDLINE: boot the guest (tools/qemu-run.sh,
# console to LOG) and append what went wrong to the array `problems` (tools/guest-check.sh:
# init did not finish, panic, fewer CPUs than asked).
demo_boot() {
	local repo qrc
	repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	set +e
	"$repo/tools/qemu-run.sh" "$1" "$2" "$3" "$4" "$5" "$6" >/dev/null
	qrc=$?
	set -e
	mapfile -t -O "${#problems[@]}" problems < <("$repo/tools/guest-check.sh" "$3" rm-demo "$5" "$qrc")
}
