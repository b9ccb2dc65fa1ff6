#!/usr/bin/env bash
# make check's shortened demo: the rolling restart of tools/demo in the QEMU guest,
# modes off, sysctl and bpf, IPv4 and IPv6, DEMO_CHECK_RESTARTS (default 10) restarts each, no
# cost or SYN-rate runs.  Six cases: `off` must turn clients away (failed > 0: the problem the
# feature exists for), `sysctl` and `bpf` must answer every connection (failed = 0, answered > 0).
# Writes $CACHE/$KERNEL/demo-check/{counts,demo.csv,summary.txt,guest.log}.
. "$(dirname "$0")/common.sh"
out=$CACHE/$KERNEL/demo-check
rm -f "$out/counts" "$out/demo.csv"
DEMO_ARGS="--mode off,sysctl,bpf --family 4,6 --restarts ${DEMO_CHECK_RESTARTS:-10}" \
	DEMO_COST_ARGS=skip DEMO_SYNRATE_ARGS=skip DEMO_TIMEOUT=${DEMO_TIMEOUT:-600} \
	DEMO_KERNEL=$BUILD/arch/x86/boot/bzImage DEMO_TREE=$TREE \
	"$REPO/tools/demo/run-demo.sh" "$out" || log "run-demo.sh failed (see above)"
python3 - "$out/demo.csv" "$out/counts" <<'PY'
import csv, os, sys
path, counts = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(open(path))) if os.path.exists(path) else []
passed = failed = 0
for mode in ("off", "sysctl", "bpf"):
    for fam in ("4", "6"):
        r = [x for x in rows if x["mode"] == mode and x["family"] == fam]
        if not r:
            ok, why = False, "no result"
        else:
            f, a = int(r[0]["failed"]), int(r[0]["answered"])
            if mode == "off":
                ok, why = f > 0, f"{f} failed of {r[0]['attempted']} (want > 0)"
            else:
                ok, why = f == 0 and a > 0, f"{f} failed, {a} answered (want 0 failed)"
        print(f"{'ok' if ok else 'not ok'} demo {mode} IPv{fam}: {why}")
        passed += ok
        failed += not ok
open(counts, "w").write(f"{passed} {failed}\n")
print(f"demo-check: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
