#!/usr/bin/env bash
# make demo: rolling restart of SO_REUSEPORT listeners under load, in a QEMU guest.
#
# Builds rmload (static, with its sk_reuseport BPF programs embedded as a libbpf skeleton),
# packs an initramfs (busybox + rmload), boots the test kernel with $CPUS vCPUs (the guest
# checks nproc), runs every mode (off, sysctl, bpf, drain) for IPv4 and IPv6, the close() cost
# benchmark and the SYN-path connection rate, then prints the tables and writes demo.csv,
# cost.csv, demo.svg, guest.log and summary.txt into RESULTS_DIR.  The tcp:tcp_migrate_req
# trace event is on during the mode runs only: rm-trace counts its events by path and result.
#
# Usage: run-demo.sh [RESULTS_DIR]          (default: ./results)
# Environment:
#   KERNEL, FLAVOUR, IMAGE, CACHE   as for every target (tools/lib/common.sh): the guest boots
#                       IMAGE if set, else the tree's FLAVOUR kernel (built incrementally)
#   DEMO_BUILD=DIR      build directory (default $CACHE/demo/$KERNEL)
#   CPUS=2              vCPUs of the guest
#   DEMO_ARGS           extra rmload flags of the mode runs, e.g. for a long run:
#                       DEMO_ARGS="--mode sysctl --family 4 --restarts -1 --connections 250000
#                                  --interval-ms 20" DEMO_COST_ARGS=skip DEMO_SYNRATE_ARGS=skip
#   DEMO_COST_ARGS      extra flags of the cost run ("skip": no cost run)
#   DEMO_SYNRATE_ARGS   extra flags of the synrate run ("skip": no synrate run)
#   DEMO_TRACE=1        count tcp:tcp_migrate_req events per mode run (0: the event stays off
#                       and the modes run in one rmload, e.g. on a kernel without the event)
#   DEMO_TIMEOUT=600    seconds before the guest is killed
#   DEMO_CMDLINE=quiet  kernel command line of the guest; "" keeps warnings (lockdep, WARN_ON)
#                       on the console, e.g. with FLAVOUR=debug
here=$(cd "$(dirname "$0")" && pwd)
. "$here/demo-lib.sh"
demo_setup run-demo "${1:-results}"
timeout_s=${DEMO_TIMEOUT:-600}
need bpftool bpftool
need clang clang
[ -f /usr/lib/x86_64-linux-gnu/libbpf.a ] || die "libbpf.a is missing: install it with 'apt-get install -y libbpf-dev'"

# 1. the program: UAPI headers of the tree, BPF object -> skeleton, static rmload
log "UAPI headers of $TREE"
make -s -C "$TREE" O="$build/hdr" headers >&2 || die "make headers failed in $TREE"
inc=$build/hdr/usr/include
log "building rmload in $build"
clang -O2 -g -Wall -target bpf -I"$inc" -idirafter /usr/include -idirafter /usr/include/x86_64-linux-gnu \
	-c "$here/rmload_bpf.c" -o "$build/rmload_bpf.o"
bpftool gen skeleton "$build/rmload_bpf.o" name rmload_bpf > "$build/rmload_bpf.skel.h.tmp"
mv "$build/rmload_bpf.skel.h.tmp" "$build/rmload_bpf.skel.h"
rm -f "$build/rmload"
# (glibc warns that getaddrinfo in a static program needs the shared libraries: rmload has none)
gcc -O2 -g -Wall -Wextra -Wno-sign-compare -Wno-missing-field-initializers -static \
	-I"$build" -I"$inc" -o "$build/rmload" "$here/rmload.c" -lbpf -lelf -lz 2>&1 |
	grep -v 'getaddrinfo\|statically linked applications requires' >&2 || true
[ -x "$build/rmload" ] || die "building rmload failed"

# 2. what the guest runs: "TIMEOUT COMMAND" per line
cmds=$build/cmds
args=${DEMO_ARGS:-}
modes="off sysctl bpf drain"
if [[ " $args " =~ \ --mode\ ([^ ]+)\  ]]; then
	modes=${BASH_REMATCH[1]//,/ }
	args=${args/--mode ${BASH_REMATCH[1]}/}
fi
[ "$modes" = all ] && modes="off sysctl bpf drain"
{
	if [ "${DEMO_TRACE:-1}" = 1 ]; then
		# One run per mode, each with its own count of events.
		echo "30 rm-trace on"
		for m in $modes; do
			echo "$timeout_s rm-trace clear && rmload --mode $m --family 4,6 $args; rc=\$?; rm-trace report $m; exit \$rc"
		done
		# close() cost and the SYN path are measured with the event off.
		echo "30 rm-trace off"
	else
		echo "$timeout_s rmload --mode ${modes// /,} --family 4,6 $args"
	fi
	[ "${DEMO_COST_ARGS:-}" = skip ] || echo "$timeout_s rmload --mode cost --family 4,6 ${DEMO_COST_ARGS:-}"
	[ "${DEMO_SYNRATE_ARGS:-}" = skip ] || echo "$timeout_s rmload --mode synrate --family 4,6 ${DEMO_SYNRATE_ARGS:-}"
} > "$cmds"
sed 's/^/run-demo: guest runs: /' "$cmds" >&2
"$REPO/tools/lib/mkinitramfs.sh" "$build/initramfs.cpio.gz" --init "$here/init" --file "$cmds=/demo/cmds" \
	--static "$build/rmload" --static "$here/rm-trace" >&2

# 3. boot
logf=$results/guest.log
problems=()
demo_boot "$bzimage" "$build/initramfs.cpio.gz" "$logf" "$timeout_s" "$CPUS" "${DEMO_CMDLINE-quiet}"
grep '^rm-demo: exit=' "$logf" | grep -qv 'exit=0 ' && problems+=("an rmload run exited non-zero (log $logf)")
grep -E '^rmload(\[[0-9]+\])?: (error|warning)|^libbpf: ' "$logf" | sed 's/^/run-demo: guest: /' >&2 || true

# 4. report
echo "kernel: $(sed -n 's/^rm-demo: nproc=.* kernel=//p' "$logf") ($bzimage), QEMU, $CPUS vCPUs" \
	> "$results/summary.txt"
demo_finish report.py guest.log summary.txt demo.csv,cost.csv,demo.svg,summary.txt,guest.log
