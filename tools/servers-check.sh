#!/usr/bin/env bash
# make check's shortened servers scenario (tools/demo/run-servers.sh): nginx and HAProxy, each
# as two SO_REUSEPORT instances (blue/green) restarted one at a time under wrk in the QEMU guest,
# SERVERS_CHECK_RESTARTS (default 5) restarts per run, migration off and on by sysctl, IPv4.
# Each restart stalls the instance (SIGSTOP, 100 ms) before its graceful stop, so its listeners
# hold connections when they close.  Four cases per repetition: `off` must fail requests (the
# problem the feature exists for), `sysctl` none (no socket error of any kind, no non-2xx, and
# requests answered).  SERVERS_CHECK_REPEAT=N runs each case N times in the one guest (N x 4
# cases), for measuring that the check never flakes.
# Writes $CACHE/$KERNEL/servers-check/{counts,servers.csv,servers-summary.txt,servers-guest.log}.
. "$(dirname "$0")/common.sh"
out=$CACHE/$KERNEL/servers-check
repeat=${SERVERS_CHECK_REPEAT:-1}
[[ $repeat =~ ^[1-9][0-9]*$ ]] || die "SERVERS_CHECK_REPEAT=$repeat is not a number >= 1"
rm -f "$out/counts" "$out/servers.csv"
t0=$(date +%s)
SERVERS="nginx haproxy" SERVERS_CYCLES=bluegreen SERVERS_MODES="off sysctl" SERVERS_FAMILIES=4 \
	SERVERS_RESTARTS=${SERVERS_CHECK_RESTARTS:-5} SERVERS_REPEAT=$repeat SERVERS_STALL_MS=100 \
	DEMO_KERNEL=${DEMO_KERNEL:-$BUILD/arch/x86/boot/bzImage} \
	"$REPO/tools/demo/run-servers.sh" "$out" || log "run-servers.sh failed (see above)"
log "servers-check: $(( $(date +%s) - t0 )) s"
python3 - "$out/servers.csv" "$out/counts" "$repeat" <<'PY'
import csv, os, sys
path, counts, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = list(csv.DictReader(open(path))) if os.path.exists(path) else []
passed = failed = 0
for run in range(1, repeat + 1):
    for server in ("nginx", "haproxy"):
        for mode in ("off", "sysctl"):
            r = [x for x in rows if x["server"] == server and x["mode"] == mode
                 and x["family"] == "4" and x["run"] == str(run)]
            if not r:
                ok, why = False, "no result"
            else:
                r = r[0]
                f, q = int(r["failed"]), int(r["requests"])
                errs = ", ".join(f"{k} {r[k]}" for k in
                                 ("connect", "read", "write", "timeout", "non2xx"))
                if mode == "off":
                    ok, why = f > 0, f"{f} failed of {q} requests ({errs}) (want > 0)"
                else:
                    ok, why = f == 0 and q > 0, f"{f} failed, {q} requests ({errs}) (want 0 failed)"
            label = f"servers {server} blue/green {mode} IPv4" + (f" run {run}" if repeat > 1 else "")
            print(f"{'ok' if ok else 'not ok'} {label}: {why}")
            passed += ok
            failed += not ok
open(counts, "w").write(f"{passed} {failed}\n")
print(f"servers-check: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
