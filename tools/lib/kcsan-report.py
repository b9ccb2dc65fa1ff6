#!/usr/bin/env python3
"""List the KCSAN reports of guest logs, one line per distinct report, and say which are in the
migration code.

Usage: kcsan-report.py OUT LOG...
A report is the block from "BUG: KCSAN: <kind> in A / B" to the closing line of '='; it is the
same report when its title and the first frame of each access are the same.  A report is in
the migration code when a frame of either access, above the syscall, softirq, timer, interrupt
or exception entry, is a function of the request migration paths (MIGRATION_RE): the frames
below an interrupt or exception entry (a kprobe's int3, the tick) belong to the code it
interrupted, not to the code that made the access.  Writes OUT: a line with the
totals, one with the command, then per report the count, "migration" or "other", the title and
the two accesses' top frames; prints
"kcsan: N report(s) in the migration code, M other(s)" and exits 1 if N > 0.
Standard library only.
"""
import re
import sys

# The functions of the SO_REUSEPORT group and of request migration (net/core/sock_reuseport.c,
# the request and listener paths of net/ipv4/inet_connection_sock.c, tcp_check_req(), the BPF
# selection helpers, the sysctl's readers).
MIGRATION_RE = re.compile(
    r"^(reuseport_|__reuseport_|sk_reuseport|bpf_sk_select_reuseport|sk_select_reuseport|"
    r"bpf_run_sk_reuseport|run_bpf_filter|reqsk_|inet_reqsk_clone|inet_csk_listen_stop|"
    r"inet_csk_reqsk_queue|__inet_csk_reqsk_queue|inet_csk_complete_hashdance|"
    r"inet_child_forget|tcp_check_req|tcp_migrate|inet_csk_accept|inet_ehash_insert|"
    r"lookup_reuseport|inet6?_lookup_reuseport|inet_lhash2_lookup|inet6_lhash2_lookup)")
TITLE_RE = re.compile(r"BUG: KCSAN: (\S+) in (.*)$")
ACCESS_RE = re.compile(r"^(read|write|race at unknown origin|read-write|\S+ to 0x)")
FRAME_RE = re.compile(r"^\s*(?:\[ *[0-9.]+\]\s*)?([A-Za-z_][A-Za-z0-9_.]*)\+0x[0-9a-f]+/0x[0-9a-f]+")
STOP_RE = re.compile(r"^(do_syscall|__x64_sys|entry_SYSCALL|__do_softirq|handle_softirqs|"
                     r"run_timer_softirq|call_timer_fn|kthread|ret_from_fork|process_one_work|"
                     r"worker_thread|kunit_|asm_exc_|asm_sysvec_|asm_common_interrupt)")


def strip(line):
    return re.sub(r"^\[ *[0-9.]+\] ?", "", line.rstrip("\n"))


def reports(path):
    """Yield (title, [frames of access 1], [frames of access 2]) per report of a log."""
    cur = None
    with open(path, errors="replace") as f:
        for raw in f:
            line = strip(raw)
            m = TITLE_RE.search(line)
            if m:
                cur = {"title": f"{m.group(1)} in {m.group(2).strip()}", "stacks": []}
                continue
            if cur is None:
                continue
            if line.startswith("=" * 20) or line.startswith("Reported by Kernel Concurrency"):
                yield cur["title"], cur["stacks"]
                cur = None
                continue
            if ACCESS_RE.match(line.strip()) and " by " in line:
                cur["stacks"].append([])
                continue
            fm = FRAME_RE.match(line)
            if fm and cur["stacks"]:
                cur["stacks"][-1].append(fm.group(1))
    if cur is not None:
        yield cur["title"], cur["stacks"]


def in_migration(stacks):
    for frames in stacks:
        for fn in frames:
            if STOP_RE.match(fn):
                break
            if MIGRATION_RE.match(fn):
                return True
    return False


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: kcsan-report.py OUT LOG...")
    out, logs = sys.argv[1], sys.argv[2:]
    seen = {}
    for log in logs:
        try:
            for title, stacks in reports(log):
                tops = tuple(s[0] if s else "?" for s in stacks[:2])
                key = (title, tops)
                if key not in seen:
                    seen[key] = {"count": 0, "mig": in_migration(stacks), "stacks": stacks,
                                 "log": log}
                seen[key]["count"] += 1
        except OSError as e:
            sys.exit(f"kcsan-report: cannot read {log}: {e}")
    mig = sum(1 for v in seen.values() if v["mig"])
    with open(out, "w") as f:
        f.write(f"kcsan: {mig} report(s) in the migration code, {len(seen) - mig} other(s)\n")
        f.write("command: make check-kcsan (tools/lib/kcsan-report.py on its KUnit and guest logs)\n")
        for (title, tops), v in sorted(seen.items(), key=lambda kv: (not kv[1]["mig"], kv[0])):
            f.write(f"{v['count']:4d} {'migration' if v['mig'] else 'other':9s} {title}\n")
            for i, frames in enumerate(v["stacks"][:2]):
                shown = []
                for fn in frames:
                    if STOP_RE.match(fn):
                        break
                    shown.append(fn)
                f.write(f"       access {i + 1}: {' < '.join(shown[:8]) or '?'}\n")
    print(f"kcsan: {mig} report(s) in the migration code, {len(seen) - mig} other(s) (list: {out})")
    sys.exit(1 if mig else 0)


if __name__ == "__main__":
    main()
