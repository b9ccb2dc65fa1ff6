#!/usr/bin/env bash
# make bench: the two costs of the series, measured in QEMU guests (docs/demo.md).
#
#  1. The SYN path: rmload --mode synrate (connections/s with W listeners and no restart,
#     tcp_migrate_req 0 and 1, IPv4 and IPv6) on the test kernel and on the pristine tree built
#     from the same .config (the test-only symbols drop out), ROUNDS boots of each, in the
#     order patched, pristine, pristine, patched, ... so that a drift of the host hits both.
#     Reported: the ratio patched/pristine per round, its mean, standard deviation, min, max.
#  2. close() of a listener holding Q established children (rmload --mode cost, median of
#     COST_REPS per point), migration on and off, on the test kernel: the per-child cost at
#     each Q and a least-squares line close_us = a + b*Q with its R^2.
#
# Usage: tools/bin/bench.sh [OUT_DIR]     (default: results/bench)
# Environment: KERNEL, CACHE, JOBS as for the other targets;
#   BENCH_ROUNDS=5  BENCH_SYNRATE_MS=10000  BENCH_COST_REPS=5  BENCH_COST_Q=100,1000,10000
#   BENCH_PATCHED=PATH  bzImage of the patched kernel (default: the test kernel, built if needed)
#   BENCH_BASE=REF  what the SYN path is compared with: a commit of the tree (default
#                   "pristine"; e.g. the series without its last patches, to measure them alone)
#   BENCH_COST=0    no close() cost guest
#   BENCH_REPORT_ONLY=1  no build, no guest: summarise the guests' results already in OUT_DIR
# The host should be otherwise idle: TCG guest rates follow the host's load.
. "$(dirname "$0")/../lib/common.sh"
need qemu-system-x86_64 qemu-system-x86
need python3 python3
need ccache ccache

out=${1:-$REPO/results/bench}
rounds=${BENCH_ROUNDS:-5}
syn_ms=${BENCH_SYNRATE_MS:-10000}
cost_reps=${BENCH_COST_REPS:-5}
cost_q=${BENCH_COST_Q:-100,1000,10000}
case "$rounds" in ''|*[!0-9]*|0) die "BENCH_ROUNDS must be a positive number, not '$rounds'" ;; esac
mkdir -p "$out"
out=$(cd "$out" && pwd)
base=${BENCH_BASE:-pristine}
# Builds and guests, unless only the summary is wanted.
[ "${BENCH_REPORT_ONLY:-0}" = 1 ] || {

# The patched kernel: the test kernel of make kselftest / make demo.
if [ -z "${BENCH_PATCHED:-}" ]; then
	"$REPO/tools/bin/tree.sh"
	"$REPO/tools/lib/build-kernel.sh"
fi
patched=${BENCH_PATCHED:-$BUILD/arch/x86/boot/bzImage}
[ -f "$patched" ] || die "no patched kernel at $patched"
[ -f "$BUILD/.config" ] || die "no test kernel config at $BUILD/.config (make kselftest first)"

# The pristine kernel: the tree's "pristine" commit (or BENCH_BASE), the test kernel's .config.
pristine=$("$REPO/tools/lib/build-pristine.sh" "$base")
git -C "$CACHE/$KERNEL/bench-base/linux" log -1 --format="baseline: $base = %h %s" > "$out/baseline.txt"
cp "$CACHE/$KERNEL/bench-base/config.diff" "$out/config.diff"

demo() { # NAME BZIMAGE RMLOAD_ARGS...
	local name=$1 img=$2
	shift 2
	log "guest $name: rmload $*"
	IMAGE=$img DEMO_ARGS="$*" DEMO_COST_ARGS=skip DEMO_SYNRATE_ARGS=skip DEMO_TRACE=0 \
		KERNEL=$KERNEL CACHE=$CACHE "$REPO/tools/demo/run-demo.sh" "$out/$name" \
		> "$out/$name.out" 2>&1 || die "the $name guest failed: $out/$name.out"
}

for ((i = 1; i <= rounds; i++)); do
	if ((i % 2)); then order="patched pristine"; else order="pristine patched"; fi
	for k in $order; do
		if [ "$k" = patched ]; then img=$patched; else img=$pristine; fi
		demo "synrate-$i-$k" "$img" --mode synrate --synrate-ms "$syn_ms"
	done
done
[ "${BENCH_COST:-1}" = 0 ] || demo cost "$patched" --mode cost --cost-q "$cost_q" --cost-reps "$cost_reps"
}

python3 - "$out" "$rounds" <<'EOF' | tee "$out/summary.txt"
import csv, math, os, sys

out, rounds = sys.argv[1], int(sys.argv[2])

def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))

def stats(xs):
    m = sum(xs) / len(xs)
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1)) if len(xs) > 1 else 0.0
    return m, sd, min(xs), max(xs)

rate = {}  # (kernel, family, migrate) -> [conn/s per round]
for i in range(1, rounds + 1):
    for k in ("patched", "pristine"):
        for r in rows(os.path.join(out, f"synrate-{i}-{k}", "demo.csv")):
            if r["mode"] != "synrate":
                continue
            if int(r["failed"]):
                sys.exit(f"synrate-{i}-{k}: {r['failed']} failed connections")
            rate.setdefault((k, r["family"], r["tcp_migrate_req"]), []).append(float(r["conn_per_s"]))

base = open(os.path.join(out, "baseline.txt")).read().strip() \
    if os.path.exists(os.path.join(out, "baseline.txt")) else "baseline: pristine"
print(f"SYN path, connections/s (TCG, {rounds} boots per kernel), ratio patched/pristine per round")
print(f"('pristine' is the {base})")
print("| family | tcp_migrate_req | patched conn/s (mean, sd) | pristine conn/s (mean, sd) "
      "| ratio mean | ratio sd | ratio min | ratio max |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
allr = []
for fam in ("4", "6"):
    for mig in ("0", "1"):
        p, q = rate.get(("patched", fam, mig)), rate.get(("pristine", fam, mig))
        if not p or not q or len(p) != len(q):
            sys.exit(f"missing synrate rows for IPv{fam} tcp_migrate_req={mig}")
        ratios = [a / b for a, b in zip(p, q)]
        allr += ratios
        pm, ps, _, _ = stats(p)
        qm, qs, _, _ = stats(q)
        rm, rs, rmin, rmax = stats(ratios)
        print(f"| IPv{fam} | {mig} | {pm:.0f} ({ps:.0f}) | {qm:.0f} ({qs:.0f}) | {rm:.3f} | {rs:.3f} "
              f"| {rmin:.3f} | {rmax:.3f} |")
rm, rs, rmin, rmax = stats(allr)
print(f"\nall {len(allr)} ratios: mean {rm:.3f}, sd {rs:.3f}, min {rmin:.3f}, max {rmax:.3f}")

if not os.path.exists(os.path.join(out, "cost", "cost.csv")):
    sys.exit(0)
cost = rows(os.path.join(out, "cost", "cost.csv"))
bad = [c for c in cost if c["check"] != "ok"]
if bad:
    sys.exit(f"cost: {len(bad)} points failed their check (children not all moved / reset)")
print("\nclose() of a listener holding Q established children, patched kernel (median of reps)")
print("| family | tcp_migrate_req | Q | close() us | us per child |")
print("| --- | --- | --- | --- | --- |")
for fam in ("4", "6"):
    for mig in ("1", "0"):
        pts = sorted(((int(c["q"]), float(c["close_us"])) for c in cost
                      if c["family"] == fam and c["migrate"] == mig))
        for q, us in pts:
            print(f"| IPv{fam} | {mig} | {q} | {us:.0f} | {us / q:.2f} |")
        n = len(pts)
        if n < 2:
            continue
        mx = sum(q for q, _ in pts) / n
        my = sum(u for _, u in pts) / n
        sxx = sum((q - mx) ** 2 for q, _ in pts)
        b = sum((q - mx) * (u - my) for q, u in pts) / sxx
        a = my - b * mx
        ss = sum((u - my) ** 2 for _, u in pts)
        r2 = 1 - sum((u - a - b * q) ** 2 for q, u in pts) / ss if ss else 1.0
        per = [u / q for q, u in pts]
        print(f"|  | fit | close_us = {a:.0f} + {b:.2f} * Q | R^2 {r2:.4f} "
              f"| per child max/min {max(per) / min(per):.2f} |")
EOF
log "results in $out (summary.txt, one directory per guest)"
