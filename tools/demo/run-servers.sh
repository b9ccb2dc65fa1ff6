#!/usr/bin/env bash
# make demo-servers: real servers (nginx, HAProxy from Debian's packages) restarted under wrk
# in the demo's QEMU guest, migration off, on by sysctl and on by a BPF program.
#
# Packs an initramfs with busybox, nginx, haproxy and wrk (each with the shared libraries ldd
# lists and the dynamic loader), the static helper rm-attach (tools/demo/rm-attach.c: attaches
# a sk_reuseport/migrate program to a running server's reuseport group), rm-trace and the guest
# scenario tools/demo/rm-servers; boots the test kernel with $CPUS vCPUs (the guest checks
# nproc) and runs one rm-servers per server, cycle, mode, family and repetition, the trace event
# tcp:tcp_migrate_req on.  Then prints the tables (tools/demo/servers-report.py) and writes
# servers.csv, servers.svg, servers-summary.txt and servers-guest.log into RESULTS_DIR.
#
# Usage: run-servers.sh [RESULTS_DIR]          (default: ./results)
# Environment (defaults in brackets):
#   KERNEL, FLAVOUR, IMAGE, CACHE, DEMO_BUILD, CPUS   as for make demo (tools/demo/run-demo.sh);
#                              this uses DEMO_BUILD/servers
#   SERVERS                    servers [nginx haproxy]
#   SERVERS_CYCLES             restart cycles [bluegreen reload upgrade] (upgrade: nginx only)
#   SERVERS_MODES              [off sysctl bpf]
#   SERVERS_FAMILIES           [4 6]
#   SERVERS_RESTARTS           restarts per run [20]
#   SERVERS_INTERVAL_MS        pause after each restart [300]
#   SERVERS_STALL_MS           SIGSTOP of a blue/green instance before its stop [100]; 0: none
#   SERVERS_CONNS              wrk connections [32] (2 threads)
#   SERVERS_REPEAT             runs of each case [1]
#   DEMO_TIMEOUT               seconds before the guest is killed [from the run count]
#   DEMO_CMDLINE               guest kernel command line [quiet]
here=$(cd "$(dirname "$0")" && pwd)
. "$here/demo-lib.sh"
demo_setup run-servers "${1:-results}"
build=$build/servers
mkdir -p "$build"
servers=${SERVERS:-nginx haproxy}
cycles=${SERVERS_CYCLES:-bluegreen reload upgrade}
modes=${SERVERS_MODES:-off sysctl bpf}
families=${SERVERS_FAMILIES:-4 6}
restarts=${SERVERS_RESTARTS:-20}
interval=${SERVERS_INTERVAL_MS:-300}
stall=${SERVERS_STALL_MS:-100}
conns=${SERVERS_CONNS:-32}
repeat=${SERVERS_REPEAT:-1}

check_list() { # NAME VALUE ALLOWED...
	local name=$1 v=$2 w
	shift 2
	[ -n "$v" ] || die "$name is empty"
	for w in $v; do
		[[ " $* " == *" $w "* ]] || die "$name: '$w' is not one of: $*"
	done
}
check_list SERVERS "$servers" nginx haproxy
check_list SERVERS_CYCLES "$cycles" bluegreen reload upgrade
check_list SERVERS_MODES "$modes" off sysctl bpf
check_list SERVERS_FAMILIES "$families" 4 6
for v in SERVERS_RESTARTS=$restarts SERVERS_INTERVAL_MS=$interval SERVERS_STALL_MS=$stall \
	SERVERS_CONNS=$conns SERVERS_REPEAT=$repeat CPUS=$CPUS; do
	[[ ${v#*=} =~ ^[0-9]+$ ]] || die "${v%%=*}=${v#*=} is not a number"
done
[ "$repeat" -ge 1 ] && [ "$conns" -ge 1 ] || die "SERVERS_REPEAT and SERVERS_CONNS must be >= 1"

need ldd libc-bin
nginx=$(command -v nginx || true) haproxy=$(command -v haproxy || true) wrk=$(command -v wrk || true)
[ -n "$nginx" ] || die "nginx is missing: install it with 'apt-get install -y nginx' (or make deps)"
[ -n "$wrk" ] || die "wrk is missing: install it with 'apt-get install -y wrk' (or make deps)"
[[ " $servers " != *" haproxy "* ]] || [ -n "$haproxy" ] ||
	die "haproxy is missing: install it with 'apt-get install -y haproxy' (or make deps)"

# 1. the BPF helper (static; the kernel's UAPI of the system headers is enough)
gcc -O2 -Wall -Wextra -static -o "$build/rm-attach" "$here/rm-attach.c" ||
	die "building rm-attach failed"

# 2. what the guest runs: "TIMEOUT COMMAND" per line
cmds=$build/cmds
n=0
# a run: its restarts (an HAProxy restart takes up to 6 s in a TCG guest on a busy host)
per_run=$((60 + restarts * (interval + stall + 6000) / 1000))
{
	echo "30 rm-trace on"
	for r in $(seq 1 "$repeat"); do
		for s in $servers; do
			for c in $cycles; do
				[ "$s/$c" != haproxy/upgrade ] || continue
				for m in $modes; do
					for f in $families; do
						id=$s/$c/$m/IPv$f/$r
						echo "$per_run rm-trace clear && rm-servers server=$s cycle=$c mode=$m" \
							"family=$f run=$r restarts=$restarts interval_ms=$interval" \
							"stall_ms=$stall conns=$conns; rc=\$?; rm-trace report $id; exit \$rc"
						n=$((n + 1))
					done
				done
			done
		done
	done
	echo "30 rm-trace off"
} > "$cmds"
[ "$n" -gt 0 ] || die "no run to do (SERVERS=$servers SERVERS_CYCLES=$cycles)"
timeout_s=${DEMO_TIMEOUT:-$((120 + n * per_run))}
log "$n runs, $restarts restarts each; guest timeout ${timeout_s}s"

# 3. initramfs: the servers with their libraries, a root and a nobody user (nginx's workers)
printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' 'nobody:x:65534:65534:nobody:/nonexistent:/bin/false' \
	> "$build/passwd"
printf '%s\n' 'root:x:0:' 'nogroup:x:65534:' > "$build/group"
printf '%s\n' 'passwd: files' 'group: files' 'hosts: files' > "$build/nsswitch.conf"
dyn=(--dynamic "$nginx" --dynamic "$wrk")
[ -z "$haproxy" ] || dyn+=(--dynamic "$haproxy")
"$REPO/tools/lib/mkinitramfs.sh" "$build/initramfs.cpio.gz" --init "$here/init" \
	--file "$cmds=/demo/cmds" --static "$build/rm-attach" --static "$here/rm-trace" \
	--static "$here/rm-servers" "${dyn[@]}" --file "$build/passwd=/etc/passwd" \
	--file "$build/group=/etc/group" --file "$build/nsswitch.conf=/etc/nsswitch.conf" >&2

# 4. boot
logf=$results/servers-guest.log
problems=()
demo_boot "$bzimage" "$build/initramfs.cpio.gz" "$logf" "$timeout_s" "$CPUS" "${DEMO_CMDLINE-quiet}"
grep -a '^rm-demo: exit=' "$logf" | grep -qv 'exit=0 ' &&
	problems+=("an rm-servers run exited non-zero (log $logf)")
grep -a '^rm-servers: FAIL\|^rm-attach: error' "$logf" | sed 's/^/run-servers: guest: /' >&2 || true

# 5. report: the verdict line, the command that regenerates the file, the setup, the tables
cmd="make demo-servers"
for v in SERVERS SERVERS_CYCLES SERVERS_MODES SERVERS_FAMILIES SERVERS_RESTARTS \
	SERVERS_INTERVAL_MS SERVERS_STALL_MS SERVERS_CONNS SERVERS_REPEAT; do
	[ -z "${!v:-}" ] || cmd="$v=\"${!v}\" $cmd"
done
{
	python3 "$here/servers-report.py" --verdict "$logf" || echo "no result"
	echo "command: $cmd"
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "kernel: $(sed -n 's/^rm-demo: nproc=.* kernel=//p' "$logf") ($bzimage), QEMU, $CPUS vCPUs"
	echo "servers: $(dpkg-query -W -f='${Package} ${Version}, ' nginx haproxy wrk 2>/dev/null)"
	echo "wrk -t2 -c$conns, Connection: close; $restarts restarts per run, ${interval} ms apart," \
		"blue/green stall ${stall} ms"
} > "$results/servers-summary.txt"
demo_finish servers-report.py servers-guest.log servers-summary.txt \
	servers.csv,servers.svg,servers-summary.txt,servers-guest.log
