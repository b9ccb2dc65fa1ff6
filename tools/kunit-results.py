#!/usr/bin/env python3
"""Read the results kunit.py wrote with --json (KernelCI's layout).

  kunit-results.py count FILE
      "PASSED BAD": every leaf case, a parameter row of a parameterised case included;
      BAD counts FAIL, SKIP and ERROR.  "- -" when FILE is missing or not JSON.
  kunit-results.py cases FILE FILTER [ROWS]
      "suite.case[.row]<TAB>status" of every leaf case under FILTER (suite or suite.case),
      only the rows whose name matches the extended regex ROWS if given.
"""
import json
import re
import sys


def leaves(group, names):
    names = names + [group.get("name", "")]
    for case in group.get("test_cases", []):
        yield names + [case.get("name", "")], case.get("status", "")
    for sub in group.get("sub_groups", []):
        yield from leaves(sub, names)


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def main(argv):
    if len(argv) >= 2 and argv[0] == "count":
        root = load(argv[1])
        if root is None:
            print("- -")
            return 0
        statuses = [s for _, s in leaves(root, [])]
        passed = statuses.count("PASS")
        print(passed, len(statuses) - passed)
        return 0
    if len(argv) >= 3 and argv[0] == "cases":
        root = load(argv[1])
        if root is None:
            return 0
        suite, _, case = argv[2].partition(".")
        rows = argv[3] if len(argv) > 3 else ""
        for names, status in leaves(root, []):
            names = names[1:]  # the root group is kunit.py's, not a suite
            if suite not in names or (case and case not in names):
                continue
            if rows and not re.search(rows, names[-1]):
                continue
            print(".".join(n for n in names if n) + "\t" + status)
        return 0
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
