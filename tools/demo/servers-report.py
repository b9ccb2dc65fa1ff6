#!/usr/bin/env python3
"""Summarise the servers scenario's guest log (tools/demo/rm-servers, make demo-servers): the
SERVERS lines (wrk's counts and p99 per run, the TcpExt TCPMigrateReq deltas) and the TRACE lines
of rm-trace (tcp:tcp_migrate_req events per run, labelled server/cycle/mode/IPvF/run).

Usage: servers-report.py GUEST_LOG RESULTS_DIR
       servers-report.py --verdict GUEST_LOG   (one line: failed requests, migration off and on)
Prints one table row per run, a table per case (server, cycle, mode, family) over its runs and
the verdicts; writes RESULTS_DIR/servers.csv (one row per run, trace totals included) and
RESULTS_DIR/servers.svg (failed requests per restart by case and family).  Standard library
only; the table, CSV and SVG code is report.py's.  Exit 1 if the log holds no SERVERS line or
a run failed to run (an "rm-servers: FAIL" line).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import num, parse_lines, svg_chart, table, write_csv  # noqa: E402

SERVERS = ["nginx", "haproxy"]
CYCLES = ["bluegreen", "reload", "upgrade"]
MODES = ["off", "sysctl", "bpf"]
ERRORS = ["connect", "read", "write", "timeout", "non2xx"]


def order(r):
    return (SERVERS.index(r["server"]) if r["server"] in SERVERS else 9,
            CYCLES.index(r["cycle"]) if r["cycle"] in CYCLES else 9,
            MODES.index(r["mode"]) if r["mode"] in MODES else 9,
            r["family"], int(num(r, "run")))


def verdict_line(log):
    """one line: failed requests with migration off and on, over how many runs"""
    runs = parse_lines(log, ("SERVERS",))["SERVERS"]
    if not runs:
        return "no result"
    out = []
    for label, modes in (("migration off", ("off",)), ("on (sysctl, bpf)", ("sysctl", "bpf"))):
        rs = [r for r in runs if r["mode"] in modes]
        out.append(f'{sum(int(num(r, "failed")) for r in rs)} failed requests {label} '
                   f'({len(rs)} runs, {sum(int(num(r, "restarts")) for r in rs)} restarts)')
    return ", ".join(out)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--verdict":
        print(verdict_line(sys.argv[2]))
        return 0
    if len(sys.argv) != 3:
        sys.exit("usage: servers-report.py GUEST_LOG RESULTS_DIR | --verdict GUEST_LOG")
    log, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    recs = parse_lines(log, ("SERVERS", "TRACE"))
    runs = sorted(recs["SERVERS"], key=order)
    with open(log, errors="replace") as f:
        broken = [line.strip() for line in f if line.startswith("rm-servers: FAIL")]

    # trace events per run: "TRACE mode=<server>/<cycle>/<mode>/IPv<f>/<run> path= result= count="
    ev = {}
    for t in recs["TRACE"]:
        if "path" in t:
            d = ev.setdefault(t["mode"], {})
            key = "migrated" if t["result"] == "migrated" else "not_migrated"
            d[key] = d.get(key, 0) + int(t["count"])
            d[(t["path"], t["result"])] = d.get((t["path"], t["result"]), 0) + int(t["count"])
        elif "overrun" in t:
            ev.setdefault(t["mode"], {})["lost"] = int(t["overrun"])
    for r in runs:
        d = ev.get(f'{r["server"]}/{r["cycle"]}/{r["mode"]}/IPv{r["family"]}/{r["run"]}', {})
        r["trace_migrated"] = d.get("migrated", 0)
        r["trace_not_migrated"] = d.get("not_migrated", 0)
        r["trace_lost"] = d.get("lost", 0)
    if runs:
        write_csv(os.path.join(outdir, "servers.csv"), runs)

    print("Real servers restarted under wrk (one row per run; socket errors as wrk counts them)")
    print(table(["server", "cycle", "mode", "family", "run", "restarts", "requests", "connect",
                 "read", "write", "timeout", "non2xx", "failed", "p99_ms", "restart_ms",
                 "MigrateReqSuccess", "MigrateReqFailure", "trace_migrated",
                 "trace_not_migrated"],
                [[r["server"], r["cycle"], r["mode"], "IPv" + r["family"], r["run"],
                  r["restarts"], r["requests"]] + [r[e] for e in ERRORS] +
                 [r["failed"], r["p99_ms"], r.get("restart_ms", "-"), r["migrate_ok"],
                  r["migrate_fail"], r["trace_migrated"], r["trace_not_migrated"]]
                 for r in runs]))

    # per case, over its runs
    cases = {}
    for r in runs:
        cases.setdefault((r["server"], r["cycle"], r["mode"], r["family"]), []).append(r)
    rows = []
    for (s, c, m, f), rs in cases.items():
        fails = [int(num(r, "failed")) for r in rs]
        rows.append([s, c, m, "IPv" + f, len(rs), sum(int(num(r, "restarts")) for r in rs),
                     sum(int(num(r, "requests")) for r in rs), sum(fails), min(fails),
                     max(fails), f'{max(num(r, "p99_ms") for r in rs):.1f}',
                     sum(int(num(r, "migrate_ok")) for r in rs),
                     sum(int(num(r, "migrate_fail")) for r in rs)])
    if any(len(rs) > 1 for rs in cases.values()):
        print("\nPer case over its runs")
        print(table(["server", "cycle", "mode", "family", "runs", "restarts", "requests",
                     "failed", "min/run", "max/run", "max p99_ms", "MigrateReqSuccess",
                     "MigrateReqFailure"], rows))

    # trace events by path and result, per server, cycle and mode (both families, all runs)
    tr = {}
    for label, d in ev.items():
        parts = label.split("/")
        if len(parts) != 5:
            continue
        for k, n in d.items():
            if isinstance(k, tuple):
                key = (parts[0], parts[1], parts[2]) + k
                tr[key] = tr.get(key, 0) + n
    if tr:
        print("\nMigration attempts by path and result (trace event tcp:tcp_migrate_req, both "
              "families, all runs)")
        print(table(["server", "cycle", "mode", "path", "result", "events"],
                    [list(k) + [n] for k, n in sorted(tr.items(), key=lambda kv: (
                        SERVERS.index(kv[0][0]) if kv[0][0] in SERVERS else 9,
                        CYCLES.index(kv[0][1]) if kv[0][1] in CYCLES else 9,
                        MODES.index(kv[0][2]) if kv[0][2] in MODES else 9, kv[0][3:]))]))

    if runs:
        groups = []
        for r in runs:
            g = f'{r["server"]} {r["cycle"]} {r["mode"]}'
            if g not in groups:
                groups.append(g)
        # one bar per case: the failed requests of all its runs over all its restarts
        agg = []
        for (s, c, m, f), rs in cases.items():
            agg.append({"group": f"{s} {c} {m}", "family": f,
                        "failed": sum(num(r, "failed") for r in rs),
                        "restarts": sum(num(r, "restarts") for r in rs)})
        svg_chart(agg, os.path.join(outdir, "servers.svg"),
                  "nginx and HAProxy restarted under wrk: failed requests per restart",
                  groups=groups, group_of=lambda r: r["group"],
                  name_of=lambda g: g.split(" ")[0],
                  sublabel=lambda g: g.split(" ", 1)[1].replace(" ", "\n"),
                  ylabel="failed requests per restart",
                  note="failed = wrk's socket errors (connect, read, write, timeout) + non-2xx")

    print()
    for (s, c, m, f), rs in cases.items():
        n = sum(int(num(r, "failed")) for r in rs)
        restarts = sum(int(num(r, "restarts")) for r in rs)
        what = f"{s} {c} {m} IPv{f}: {n} failed requests in {len(rs)} run(s), {restarts} restarts"
        if m == "off":
            verdict = "(migration off)"
        elif n == 0:
            verdict = "as expected (0 failed)"
        else:
            verdict = "UNEXPECTED: migration on and requests failed"
        print(f"check: {what} {verdict}")
    for b in broken:
        print(f"check: a run did not complete: {b}")
    return 0 if runs and not broken else 1


if __name__ == "__main__":
    sys.exit(main())
