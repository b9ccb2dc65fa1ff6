#!/usr/bin/env python3
"""The verdict of make check's shortened demo and servers scenario, from the CSV their run wrote.

  demo-verdict.py demo CSV COUNTS
  demo-verdict.py servers CSV COUNTS REPEAT

One line per case ("ok"/"not ok"), then "<kind>-check: N passed, N failed"; COUNTS gets
"passed failed".  Every case has a row: migration off must fail connections (the problem the
feature exists for), migration on (sysctl, bpf) must fail none and have answered some.
demo: modes off, sysctl, bpf x IPv4, IPv6 of tools/demo/run-demo.sh's demo.csv.
servers: nginx and HAProxy x off, sysctl, IPv4, blue/green, each of REPEAT runs, of
tools/demo/run-servers.sh's servers.csv; "failed" there is every socket error and non-2xx.
"""
import csv
import os
import sys


def cases(kind, repeat):
    """(label, selector, answered column) of every case the check wants."""
    if kind == "demo":
        for mode in ("off", "sysctl", "bpf"):
            for fam in ("4", "6"):
                yield (f"demo {mode} IPv{fam}", mode, {"mode": mode, "family": fam}, "answered")
        return
    for run in range(1, repeat + 1):
        for server in ("nginx", "haproxy"):
            for mode in ("off", "sysctl"):
                label = f"servers {server} blue/green {mode} IPv4" + (f" run {run}" if repeat > 1 else "")
                yield (label, mode, {"server": server, "mode": mode, "family": "4",
                                     "run": str(run)}, "requests")


def detail(kind, row):
    if kind == "demo":
        return f"of {row['attempted']}"
    errs = ", ".join(f"{k} {row[k]}" for k in ("connect", "read", "write", "timeout", "non2xx"))
    return f"({errs})"


def main(argv):
    if len(argv) not in (3, 4) or argv[0] not in ("demo", "servers"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    kind, path, counts = argv[:3]
    repeat = int(argv[3]) if len(argv) > 3 else 1
    rows = list(csv.DictReader(open(path))) if os.path.exists(path) else []
    passed = failed = 0
    for label, mode, sel, total in cases(kind, repeat):
        r = [x for x in rows if all(x.get(k) == v for k, v in sel.items())]
        if not r:
            ok, why = False, "no result"
        else:
            f, a = int(r[0]["failed"]), int(r[0][total])
            if mode == "off":
                ok, why = f > 0, f"{f} failed {detail(kind, r[0])} (want > 0)"
            else:
                ok, why = f == 0 and a > 0, f"{f} failed, {a} {total} {detail(kind, r[0])} (want 0 failed)"
        print(f"{'ok' if ok else 'not ok'} {label}: {why}")
        passed += ok
        failed += not ok
    with open(counts, "w") as f:
        f.write(f"{passed} {failed}\n")
    print(f"{kind}-check: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
