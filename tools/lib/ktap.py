#!/usr/bin/env python3
"""The harness's one reader of test results: KUnit's (the JSON kunit.py writes with --json,
KernelCI's layout) and the kselftest guest's (the KTAP run_kselftest.sh prints, one program per
"rm-guest: test N:" block of the guest log).

  ktap.py kunit-count JSON
      "PASSED BAD": every leaf case, a parameter row of a parameterised case included;
      BAD counts FAIL, SKIP and ERROR (kunit.py's mark for a case that never reported, after a
      crash or a timeout).  "- -" when JSON is missing or not JSON.
  ktap.py kunit-cases JSON FILTER [ROWS]
      "suite.case[.row]<TAB>status" of every leaf case under FILTER (suite or suite.case),
      only the rows whose name matches the extended regex ROWS if given.
  ktap.py kst-count LOG PLANNED
      "PASSED FAILED RUN PROGRAMS_FAILED" of a kselftest guest log in which PLANNED programs
      were to run.  A program that prints its own KTAP (kselftest_harness.h) counts its cases,
      any other counts as one.  A skip, nested or not, is a failure, and so is a failed or
      skipped program none of whose cases failed; a planned program that never reported (the
      guest crashed or was killed) counts as one failure.
  ktap.py kst-runs LOG
      "N ok|not_ok" for each block that reported, N the block's number: ok only when its
      program reported ok without SKIP.
  ktap.py kst-cases LOG REGEX
      "name<TAB>PASS|FAIL|SKIP" of every nested case whose name matches the extended regex.
  ktap.py kst-skips LOG
      "program<TAB>case<TAB>reason" of every skipped case (case "-" for a program that skipped
      as a whole; reason "-" when none was printed).

Why not kunit.py parse for the guest log: its JSON keeps the status of leaf cases only, so a
program that fails after all its cases passed (its own leak check, the runner's timeout after
the last case) would read as passed.  tools/test/ holds recorded logs this reader is held to.
"""
import json
import re
import sys

BLOCK = re.compile(r"^rm-guest: test (\d+):")
BLOCK_NAME = re.compile(r"^rm-guest: test \d+: (\S+)")
SKIP_REASON = re.compile(r"# SKIP:? *(.*)$")
PROGRAM = re.compile(r"^(not )?ok \d+ selftests: ")
CASE = re.compile(r"^# +(not )?ok \d+ (\S+)")
SKIP = re.compile(r"# SKIP")


def leaves(group, names):
    names = names + [group.get("name", "")]
    for case in group.get("test_cases", []):
        yield names + [case.get("name", "")], case.get("status", "")
    for sub in group.get("sub_groups", []):
        yield from leaves(sub, names)


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def kunit_count(path):
    root = load_json(path)
    if root is None:
        return "- -"
    statuses = [s for _, s in leaves(root, [])]
    passed = statuses.count("PASS")
    return f"{passed} {len(statuses) - passed}"


def kunit_cases(path, filt, rows=""):
    root = load_json(path)
    if root is None:
        return []
    suite, _, case = filt.partition(".")
    out = []
    for names, status in leaves(root, []):
        names = names[1:]  # the root group is kunit.py's, not a suite
        if suite not in names or (case and case not in names):
            continue
        if rows and not re.search(rows, names[-1]):
            continue
        out.append(".".join(n for n in names if n) + "\t" + status)
    return out


def programs(lines):
    """Each block of the guest log: (number, result, cases).  result is "ok", "not_ok",
    "skip" or None (no result line: the block never finished); cases are (name, status)."""
    blocks = []
    cur = None
    for line in lines:
        line = line.rstrip("\r\n")
        m = BLOCK.match(line)
        if m:
            cur = [int(m.group(1)), None, []]
            blocks.append(cur)
            continue
        if cur is None or cur[1] is not None:
            continue
        m = CASE.match(line)
        if m:
            status = "FAIL" if m.group(1) else ("SKIP" if SKIP.search(line) else "PASS")
            cur[2].append((m.group(2), status))
            continue
        m = PROGRAM.match(line)
        if m:
            cur[1] = "not_ok" if m.group(1) else ("skip" if SKIP.search(line) else "ok")
    return [tuple(b) for b in blocks]


def kst_count(lines, planned):
    passed = failed = run = prog_failed = 0
    for _, result, cases in programs(lines):
        if result is None:
            continue
        run += 1
        np = sum(1 for _, s in cases if s == "PASS")
        nf = len(cases) - np
        if result == "ok":
            passed += np if cases else 1
            failed += nf
        else:
            prog_failed += 1
            passed += np
            failed += nf if nf else 1
    missing = planned - run
    if missing > 0:
        failed += missing
    return f"{passed} {failed} {run} {prog_failed}"


def kst_runs(lines):
    return [f"{n} {'ok' if r == 'ok' else 'not_ok'}" for n, r, _ in programs(lines) if r]


def kst_cases(lines, regex):
    return [f"{name}\t{s}" for _, _, cases in programs(lines)
            for name, s in cases if re.search(regex, name)]


def kst_skips(lines):
    out = []
    prog = None
    for line in lines:
        line = line.rstrip("\r\n")
        m = BLOCK_NAME.match(line)
        if m:
            prog = m.group(1)
            continue
        if prog is None:
            continue
        m = CASE.match(line)
        if m and not m.group(1) and SKIP.search(line):
            out.append(f"{prog}\t{m.group(2)}\t{SKIP_REASON.search(line).group(1) or '-'}")
            continue
        m = PROGRAM.match(line)
        if m and not m.group(1) and SKIP.search(line):
            out.append(f"{prog}\t-\t{SKIP_REASON.search(line).group(1) or '-'}")
    return out


def read_lines(path):
    try:
        with open(path, errors="replace") as f:
            return f.readlines()
    except OSError:
        return []


def main(argv):
    cmd, args = (argv[0], argv[1:]) if argv else ("", [])
    if cmd == "kunit-count" and len(args) == 1:
        print(kunit_count(args[0]))
    elif cmd == "kunit-cases" and len(args) in (2, 3):
        print("\n".join(kunit_cases(*args)))
    elif cmd == "kst-count" and len(args) == 2 and args[1].isdigit():
        print(kst_count(read_lines(args[0]), int(args[1])))
    elif cmd == "kst-runs" and len(args) == 1:
        print("\n".join(kst_runs(read_lines(args[0]))))
    elif cmd == "kst-cases" and len(args) == 2:
        print("\n".join(kst_cases(read_lines(args[0]), args[1])))
    elif cmd == "kst-skips" and len(args) == 1:
        print("\n".join(kst_skips(read_lines(args[0]))))
    else:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
