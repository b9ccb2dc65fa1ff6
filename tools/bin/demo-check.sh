#!/usr/bin/env bash
# make check's shortened scenarios on the plain kernel of the tree (or IMAGE), each judged by
# tools/lib/demo-verdict.py from the CSV its run writes to $CACHE/<tree>/<kind>-check/:
#   demo     the rolling restart of tools/demo/run-demo.sh, modes off, sysctl and bpf, IPv4 and
#            IPv6, DEMO_CHECK_RESTARTS (default 10) restarts each, no cost or SYN-rate runs:
#            six cases.
#   servers  tools/demo/run-servers.sh: nginx and HAProxy, each as two SO_REUSEPORT instances
#            (blue/green) restarted one at a time under wrk, SERVERS_CHECK_RESTARTS (default 5)
#            restarts per run, migration off and on by sysctl, IPv4.  Each restart stalls the
#            instance (SIGSTOP, 100 ms) before its graceful stop, so its listeners hold
#            connections when they close.  Four cases per repetition; SERVERS_CHECK_REPEAT=N
#            runs each N times in the one guest, for measuring that the check never flakes.
# In each, migration off must fail connections (the problem the feature exists for), on none.
# Usage: demo-check demo|servers
. "$(dirname "$0")/../lib/common.sh"
kind=${1:-}
out=$CACHE/$KERNEL/$kind-check
repeat=1
case $kind in
demo)
	export DEMO_ARGS="--mode off,sysctl,bpf --family 4,6 --restarts ${DEMO_CHECK_RESTARTS:-10}" \
		DEMO_COST_ARGS=skip DEMO_SYNRATE_ARGS=skip DEMO_TIMEOUT=${DEMO_TIMEOUT:-600}
	csv=$out/demo.csv
	;;
servers)
	repeat=${SERVERS_CHECK_REPEAT:-1}
	[[ $repeat =~ ^[1-9][0-9]*$ ]] || die "SERVERS_CHECK_REPEAT=$repeat is not a number >= 1"
	export SERVERS="nginx haproxy" SERVERS_CYCLES=bluegreen SERVERS_MODES="off sysctl" \
		SERVERS_FAMILIES=4 SERVERS_RESTARTS=${SERVERS_CHECK_RESTARTS:-5} SERVERS_REPEAT=$repeat \
		SERVERS_STALL_MS=100
	csv=$out/servers.csv
	;;
*) die "usage: demo-check demo|servers" ;;
esac
rm -f "$out/counts" "$csv"
t0=$(date +%s)
# The kernel make kselftest built (no second incremental build), or IMAGE.
[ -f "$(image)" ] || "$REPO/tools/lib/build-kernel.sh"
IMAGE=$(image)
export IMAGE
"$REPO/tools/demo/run-$kind.sh" "$out" || log "run-$kind.sh failed (see above)"
log "$kind-check: $(( $(date +%s) - t0 )) s"
python3 "$REPO/tools/lib/demo-verdict.py" "$kind" "$csv" "$out/counts" "$repeat"
