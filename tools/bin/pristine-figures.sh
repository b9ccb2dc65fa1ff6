#!/usr/bin/env bash
# make pristine-figures: what the tree as Debian ships it (no patch of the series) does in the
# two situations the net layer fixes, for the cover letter and results/pristine-<tree>.txt:
#  1. a long rolling restart with migration on (tcp_migrate_req=1, and a sk_reuseport/migrate
#     program), IPv4 and IPv6, PRISTINE_CONNECTIONS (100,000) connections each: the
#     connections lost although another listener listened (make demo's rmload, DEMO_TRACE=0:
#     the pristine kernel has no trace event); the same on the test kernel, for comparison;
#  2. the survivor after a client's RST during a restart: reuseport_migrate_rst (the net
#     layer's selftest, built from the patched tree) on the pristine kernel, syncookies on and
#     off: whether new clients are still answered;
#  3. MPTCP connections queued on a listener that closes: reuseport_migrate_mptcp_queued (the
#     net layer's selftest) on the pristine kernel: how many of them the other listener serves.
# The pristine kernel has the test kernel's configuration (tools/lib/build-pristine.sh), and
# boots with 2 vCPUs under QEMU.  Both parts are measurements, not tests: the file records
# what happened, and the target fails only if a guest could not run.
. "$(dirname "$0")/../lib/common.sh"
need qemu-system-x86_64 qemu-system-x86
need python3 python3
conns=${PRISTINE_CONNECTIONS:-100000}
case $conns in ''|*[!0-9]*|0) die "PRISTINE_CONNECTIONS must be a positive number, not '$conns'" ;; esac
out=${1:-$REPO/results/pristine-$KERNEL.txt}
work=$CACHE/$KERNEL/pristine-figures
start=$(date +%s)

"$REPO/tools/bin/tree.sh"
"$REPO/tools/lib/build-kernel.sh"
img=$("$REPO/tools/lib/build-pristine.sh" pristine)
rm -rf "$work"
mkdir -p "$work"

# The same rolling restarts on the pristine kernel and on the test kernel (the whole series).
for k in pristine series; do
	if [ $k = pristine ]; then i=$img; else i=$(image); fi
	log "rolling restarts on the $k kernel: $conns connections per mode and family"
	IMAGE=$i DEMO_TRACE=0 DEMO_COST_ARGS=skip DEMO_SYNRATE_ARGS=skip \
		DEMO_ARGS="--mode sysctl,bpf --family 4,6 --restarts -1 --connections $conns --interval-ms 20" \
		"$REPO/tools/demo/run-demo.sh" "$work/demo-$k" > "$work/demo-$k.out" 2>&1 ||
		die "the demo guest failed on the $k kernel: $work/demo-$k.out"
done

log "reuseport_migrate_rst and reuseport_migrate_mptcp_queued on the pristine kernel"
printf 'reuseport_migrate_rst 300\nreuseport_migrate_mptcp_queued 300\n' > "$work/list.txt"
IMAGE=$img KSELFTEST_LIST=$work/list.txt KSTOUT=$work/kselftest \
	"$REPO/tools/bin/kselftest.sh" > "$work/kselftest.out" 2>&1 || true
[ -s "$work/kselftest/guest.log" ] && grep -q 'rst_after_migrate' "$work/kselftest/guest.log" ||
	die "reuseport_migrate_rst did not run on the pristine kernel: $work/kselftest.out"
grep -q 'RUN .*queued\.' "$work/kselftest/guest.log" ||
	die "reuseport_migrate_mptcp_queued did not run on the pristine kernel: $work/kselftest.out"

{
	echo "pristine $KERNEL: $(git -C "$TREE" log -1 --format=%s pristine), $(($(date +%s) - start)) s"
	echo "command: make pristine-figures KERNEL=$KERNEL$([ "$conns" = 100000 ] || echo " PRISTINE_CONNECTIONS=$conns")"
	echo "kernel: the tree at 'pristine' with the test kernel's config, QEMU/TCG, 2 vCPUs"
	echo
	echo "1. Rolling restarts with migration on (rmload: 4 workers, 16 clients, a restart every 20 ms),"
	echo "   on the pristine kernel and on the test kernel (the whole series applied)"
	python3 - "$work/demo-pristine/demo.csv" "$work/demo-series/demo.csv" <<'PY'
import csv, sys
print("kernel    mode    family  connections  restarts  failed  (resets, short replies, timeouts)  "
      "MigrateReqSuccess  MigrateReqFailure")
tot = {}
for kernel, path in zip(("pristine", "series"), sys.argv[1:]):
    for r in csv.DictReader(open(path)):
        f = int(r["failed"])
        print(f"{kernel:<9} {r['mode']:<7} IPv{r['family']:<4} {int(r['attempted']):>11}  "
              f"{int(r['restarts']):>8}  {f:>6}  ({r['reset']}, {r['short']}, {r['timeout']})"
              f"{'':<28} {r['migrate_ok']:>17}  {r['migrate_fail']:>17}")
        t = tot.setdefault((kernel, r["mode"]), [0, 0])
        t[0] += int(r["attempted"])
        t[1] += f
for (k, m), (a, f) in tot.items():
    print(f"{k} {m}: {f} of {a} connections lost ({f * 100000 / a:.1f} per 100,000)")
PY
	echo
	echo "2. A client's RST during a restart (reuseport_migrate_rst, rst_after_migrate: 4 deferred requests"
	echo "   migrated from a closed listener are reset by their clients, then new clients connect)"
	awk '/RUN +rst_after_migrate\./ { on = 1 } on { print } / (OK|FAIL) +rst_after_migrate\./ { on = 0 }' \
		"$work/kselftest/guest.log" | sed -e 's/^# # //' -e 's/^reuseport_migrate_rst\.c:[0-9]*:survivor_keeps_accepting:/    /'
	grep -E '^# (not )?ok [0-9]+ rst_after_migrate' "$work/kselftest/guest.log" | sed 's/^# //' || true
	echo
	echo "3. MPTCP connections queued on a closing listener (reuseport_migrate_mptcp_queued: 16 clients"
	echo "   wait unaccepted on A, B listens, A closes; each case: IPv4/IPv6, join before/after, sysctl/program)"
	awk '/RUN +queued\./ { name = $4 } / queued connections lost/ { sub(/.*close_listener:/, ""); print "    " name ": " $0 }' \
		"$work/kselftest/guest.log"
	grep -E '^# (not )?ok [0-9]+ queued\.' "$work/kselftest/guest.log" | sed 's/^# //' || true
} > "$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
