#!/usr/bin/env python3
"""Keep series/0000-cover-letter.patch current (called by tools/bin/export.sh).

git format-patch --cover-letter writes placeholders for the subject and the blurb and stamps
the current date.  This script carries the subject and the blurb over from the previous cover
letter (or from a default) into the freshly generated one, and keeps the previous Date: when
nothing else changed, so an export without edits leaves the file byte for byte as it was.
Given the layer's patches (PATCH...), it ends the blurb with a table of the lines each patch
adds and removes, in code, tests (selftests and KUnit) and documentation, written anew on
every export.

Usage: cover-letter.py NEW_COVER OLD_COVER_OR_EMPTY OUT [PATCH...]
"""
import os
import re
import sys

new_path, old_path, out_path = sys.argv[1:4]
patches = sorted(sys.argv[4:])
new = open(new_path).read()
SIZE_HEAD = 'Lines added and removed per patch'


def kind(path):
    """code, tests or docs: where a file of the kernel tree belongs in the size table."""
    if path.startswith('Documentation/'):
        return 'docs'
    base = os.path.basename(path)
    if (path.startswith('tools/testing/') or '/tests/' in path or base.endswith('_test.c')
            or base.endswith('-test.c') or base.endswith('.kunitconfig')
            or base.endswith('_test.h')):
        return 'tests'
    return 'code'


def numstat(patch):
    """{kind: [added, removed]} of the diff in PATCH (a git format-patch file)."""
    counts = {'code': [0, 0], 'tests': [0, 0], 'docs': [0, 0]}
    cur = None
    for line in open(patch, errors='replace'):
        if line.startswith('diff --git '):
            cur = kind(line.split()[3][2:])
        elif line == '-- \n':
            break
        elif cur is None or line.startswith(('+++ ', '--- ')):
            continue
        elif line.startswith('+'):
            counts[cur][0] += 1
        elif line.startswith('-'):
            counts[cur][1] += 1
    return counts


def size_table(paths):
    """The size table of the patches PATHS, or '' without any."""
    if not paths:
        return ''
    fmt = '  {:<7} {:>13} {:>13} {:>13}\n'
    cell = lambda c: '+%d -%d' % tuple(c) if c[0] or c[1] else '-'
    out = [SIZE_HEAD + ' (tests: selftests and KUnit):\n\n',
           fmt.format('patch', 'code', 'tests', 'docs')]
    total = {'code': [0, 0], 'tests': [0, 0], 'docs': [0, 0]}
    for i, path in enumerate(paths, 1):
        c = numstat(path)
        for k in total:
            total[k][0] += c[k][0]
            total[k][1] += c[k][1]
        out.append(fmt.format('%d/%d' % (i, len(paths)), cell(c['code']), cell(c['tests']),
                              cell(c['docs'])))
    out.append(fmt.format('total', cell(total['code']), cell(total['tests']),
                          cell(total['docs'])))
    return ''.join(out) + '\n'

subject, blurb, old_date, old_text = None, None, None, None
if old_path:
    try:
        old_text = open(old_path).read()
    except FileNotFoundError:
        old_text = None
if old_text:
    m = re.search(r'^Subject: \[PATCH[^\]]*\] (.*(?:\n .*)*)', old_text, re.M)
    subject = m.group(1).replace('\n ', ' ') if m else None
    m = re.search(r'^Date: .*$', old_text, re.M)
    old_date = m.group(0) if m else None
    # The blurb: after the header's blank line, up to the shortlog ("Name (N):").
    head_end = old_text.index('\n\n') + 2
    m = re.search(r'^\S.* \(\d+\):\n', old_text[head_end:], re.M)
    blurb = old_text[head_end:head_end + m.start()] if m else None
    # the size table of the previous export is written anew
    if blurb is not None:
        blurb = blurb.split(SIZE_HEAD)[0].strip('\n') + '\n\n'

subject = subject or 'reuseport migration: testable socks[] units, tests and fixes'
blurb = blurb or '(describe the series here)\n\n'
new = new.replace('*** SUBJECT HERE ***', subject, 1)
new = new.replace('*** BLURB HERE ***\n\n', blurb + size_table(patches), 1)
if old_date and old_text is not None:
    candidate = re.sub(r'^Date: .*$', lambda _: old_date, new, count=1, flags=re.M)
    if candidate == old_text:
        new = candidate
open(out_path, 'w').write(new)
