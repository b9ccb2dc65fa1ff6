#!/usr/bin/env python3
"""Summarise the demo guest's log: the RESULT/COST lines rmload printed, and the TRACE lines
of rm-trace (tcp:tcp_migrate_req events by mode, path and result).

Usage: report.py GUEST_LOG RESULTS_DIR
Prints the tables, writes RESULTS_DIR/demo.csv (one row per RESULT line), RESULTS_DIR/cost.csv
(one row per COST line) and RESULTS_DIR/demo.svg (failures per restart by mode and family).
Standard library only; the SVG is written by hand.  Exit 1 if the log holds no RESULT line or
a run reported error=1.
"""
import csv
import os
import sys

MODES = ["off", "sysctl", "bpf", "drain"]
FAMILY_COLOUR = {"4": "#4472c4", "6": "#ed7d31"}


def parse_lines(path, kinds):
    """{kind: [record...]} for the log lines "KIND key=value..." of each kind in kinds"""
    out = {k: [] for k in kinds}
    with open(path, errors="replace") as f:
        for line in f:
            line = line.strip()
            kind = line.split(" ", 1)[0]
            if kind not in out:
                continue
            rec = {}
            for tok in line.split()[1:]:
                if "=" in tok:
                    k, v = tok.split("=", 1)
                    rec[k] = v
            out[kind].append(rec)
    return out


def parse(path):
    p = parse_lines(path, ("RESULT", "COST", "TRACE"))
    return p["RESULT"], p["COST"], p["TRACE"]


def trace_table(traces, runs):
    """Events by mode, path and result, next to the runs' TCPMigrateReq counters."""
    by_mode = {}
    for t in traces:
        by_mode.setdefault(t["mode"], []).append(t)
    rows = []
    for m in sorted(by_mode, key=lambda m: MODES.index(m) if m in MODES else len(MODES)):
        evs = [t for t in by_mode[m] if "path" in t]
        overrun = sum(int(t.get("overrun", 0)) for t in by_mode[m])
        ok = sum(int(num(r, "migrate_ok")) for r in runs if r["mode"] == m)
        fail = sum(int(num(r, "migrate_fail")) for r in runs if r["mode"] == m)
        if not evs:
            rows.append([m, "-", "-", 0, ok, fail, overrun])
        for t in sorted(evs, key=lambda t: (t["path"], t["result"])):
            rows.append([m, t["path"], t["result"], t["count"], ok, fail, overrun])
    return table(["mode", "path", "result", "events", "MigrateReqSuccess",
                  "MigrateReqFailure", "lost"], rows)


def num(rec, key, default=0.0):
    try:
        return float(rec.get(key, default))
    except ValueError:
        return default


def write_csv(path, rows):
    keys = []
    for r in rows:
        for k in r:
            if k not in keys:
                keys.append(k)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)


def table(headers, rows):
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows)]
    out = ["  ".join(str(h).rjust(w) for h, w in zip(headers, widths))]
    out += ["  ".join(str(c).rjust(w) for c, w in zip(r, widths)) for r in rows]
    return "\n".join(out)


def esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def svg_chart(runs, path, title, groups=None, group_of=None, sublabel=None, name_of=None,
              ylabel="failed connections per restart",
              note="failed = reset + refused + timeout + short reply"):
    """grouped bars: failed connections per restart, one group per mode (or per group_of(run),
    in the order of groups), one bar per family; sublabel(group) is the small line under a
    group's name (default: the restart p50 of rmload's runs), name_of(group) the name shown"""
    fams = sorted({r["family"] for r in runs})
    group_of = group_of or (lambda r: r["mode"])
    modes = groups or [m for m in MODES if any(r["mode"] == m for r in runs)]
    val = {}
    for r in runs:
        k = num(r, "restarts")
        val[(group_of(r), r["family"])] = num(r, "failed") / k if k else 0.0
    vmax = max(list(val.values()) + [0.0])
    # y axis: the smallest 1/2/5 x 10^k above the tallest bar (1 when all bars are 0)
    top = next(c for c in (m * 10.0 ** e for e in range(-2, 9) for m in (1, 2, 5))
               if c >= max(vmax * 1.15, 1.0))
    W, H, L, R, T, B = max(640, 90 + 64 * len(modes)), 400, 70, 20, 60, 70
    pw, ph = W - L - R, H - T - B
    gw = pw / max(len(modes), 1)
    bw = gw * 0.7 / max(len(fams), 1)
    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
         f'viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">',
         f'<rect width="{W}" height="{H}" fill="white"/>',
         f'<text x="{W/2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">'
         f'{esc(title)}</text>']
    for i in range(5):
        v = top * i / 4
        y = T + ph - ph * i / 4
        o.append(f'<line x1="{L}" y1="{y:.1f}" x2="{W-R}" y2="{y:.1f}" stroke="#ddd"/>')
        o.append(f'<text x="{L-6}" y="{y+4:.1f}" text-anchor="end">{v:g}</text>')
    o.append(f'<text x="16" y="{T+ph/2}" text-anchor="middle" transform="rotate(-90 16 {T+ph/2})">'
             f'{esc(ylabel)}</text>')
    for mi, m in enumerate(modes):
        gx = L + gw * mi + gw * 0.15
        for fi, fam in enumerate(fams):
            if (m, fam) not in val:
                continue
            v = val[(m, fam)]
            h = ph * v / top if top else 0
            x = gx + bw * fi
            y = T + ph - h
            o.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{bw-2:.1f}" height="{max(h, 0.5):.1f}" '
                     f'fill="{FAMILY_COLOUR.get(fam, "#888")}"><title>{esc(m)} IPv{esc(fam)}: '
                     f'{v:.3f}</title></rect>')
            o.append(f'<text x="{x+bw/2-1:.1f}" y="{y-4:.1f}" text-anchor="middle" font-size="11">'
                     f'{v:.2f}</text>')
        o.append(f'<text x="{L+gw*mi+gw/2:.1f}" y="{T+ph+18}" text-anchor="middle" '
                 f'font-size="13">{esc(name_of(m) if name_of else m)}</text>')
        if sublabel:
            sub = sublabel(m)
        else:
            sub = "restart p50 " + " / ".join(
                f'{num(r, "restart_p50_ms"):.0f}' for fam in fams for r in runs
                if r["mode"] == m and r["family"] == fam) + " ms"
        for li, line in enumerate(sub.split("\n")):
            o.append(f'<text x="{L+gw*mi+gw/2:.1f}" y="{T+ph+34+12*li}" text-anchor="middle" '
                     f'font-size="10" fill="#555">{esc(line)}</text>')
    o.append(f'<line x1="{L}" y1="{T+ph}" x2="{W-R}" y2="{T+ph}" stroke="black"/>')
    o.append(f'<line x1="{L}" y1="{T}" x2="{L}" y2="{T+ph}" stroke="black"/>')
    for fi, fam in enumerate(fams):
        x = W - R - 70 * (len(fams) - fi)
        o.append(f'<rect x="{x}" y="{T-14}" width="12" height="12" '
                 f'fill="{FAMILY_COLOUR.get(fam, "#888")}"/>')
        o.append(f'<text x="{x+17}" y="{T-4}">IPv{esc(fam)}</text>')
    if not sublabel:
        note = f'restart p50: IPv{" / IPv".join(fams)}; {note}'
    o.append(f'<text x="{L}" y="{H-8}" font-size="10" fill="#555">{esc(note)}</text>')
    o.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(o) + "\n")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: report.py GUEST_LOG RESULTS_DIR")
    log, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    results, costs, traces = parse(log)
    bad = [r for r in results if r.get("error")]
    results = [r for r in results if not r.get("error")]
    if results:
        write_csv(os.path.join(outdir, "demo.csv"), results)
    if costs:
        write_csv(os.path.join(outdir, "cost.csv"), costs)

    runs = [r for r in results if r.get("mode") in MODES]
    runs.sort(key=lambda r: (MODES.index(r["mode"]), r["family"]))
    cpus = {r.get("cpus") for r in results + costs} - {None}
    print(f"Rolling restart under load (guest CPUs: {','.join(sorted(cpus)) or '?'})")
    rows = []
    for r in runs:
        k = num(r, "restarts")
        rows.append([r["mode"], "IPv" + r["family"], r["attempted"], r["answered"], r["failed"],
                     f'{num(r, "fail_pct"):.3f}', r["restarts"],
                     f'{num(r, "failed") / k:.2f}' if k else "-",
                     r["restart_p50_ms"], r["restart_p99_ms"],
                     r["reset"], r["refused"], r["timeout"], r["short"], r["other"],
                     r["migrate_ok"], r["migrate_fail"]])
    print(table(["mode", "family", "attempted", "answered", "failed", "fail%", "restarts",
                 "fail/restart", "restart_p50_ms", "restart_p99_ms", "reset", "refused",
                 "timeout", "short", "other", "MigrateReqSuccess", "MigrateReqFailure"], rows))

    if traces:
        print("\nMigration attempts by path and result (trace event tcp:tcp_migrate_req, both "
              "families;\ncounters summed over the mode's runs; lost: events overwritten in a "
              "full buffer)")
        print(trace_table(traces, runs))

    syn = [r for r in results if r.get("mode") == "synrate"]
    if syn:
        print("\nConnection rate through the SYN path (no restarts)")
        print(table(["family", "workers", "tcp_migrate_req", "connections", "failed", "conn/s",
                     "conn_p50_ms", "conn_p99_ms"],
                    [["IPv" + r["family"], r["workers"], r["tcp_migrate_req"], r["attempted"],
                      r["failed"], r["conn_per_s"], r["conn_p50_ms"], r["conn_p99_ms"]]
                     for r in syn]))
    if costs:
        print("\nclose() of a listener holding Q established children (median of reps)")
        print(table(["family", "Q", "tcp_migrate_req", "close_us", "per_child_us", "moved",
                     "MigrateReqSuccess", "check"],
                    [["IPv" + c["family"], c["q"], c["migrate"], c["close_us"],
                      c["per_child_us"], c["moved"], c["migrate_ok"], c["check"]]
                     for c in costs]))

    if runs:
        svg_chart(runs, os.path.join(outdir, "demo.svg"),
                  "Rolling restart: failed connections per restart")

    # what the pristine kernel is expected to show
    print()
    for r in runs:
        f = int(num(r, "failed"))
        m = r["mode"]
        if m == "off":
            verdict = "as expected (failures > 0)" if f > 0 else "UNEXPECTED: no failure without migration"
        elif m == "drain":
            verdict = "as expected (0 failures)" if f == 0 else f"UNEXPECTED: {f} failures"
        else:
            verdict = "as expected (0 failures)" if f == 0 else \
                f"{f} failures ({num(r, 'fail_pct') * 1000:.1f} per 100,000)"
        print(f"check: {m:6s} IPv{r['family']}: {verdict}")
    for r in bad:
        print(f"check: {r.get('mode')} IPv{r.get('family')}: the run FAILED (see the guest log)")
    for c in costs:
        if c.get("check") != "ok":
            print(f"check: cost IPv{c.get('family')} Q={c.get('q')} tcp_migrate_req={c.get('migrate')}: "
                  "FAILED (children not all moved, or not all reset)")
    # a run of the cost mode alone has no RESULT line
    if (not results and not costs) or bad or any(c.get("check") != "ok" for c in costs):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
