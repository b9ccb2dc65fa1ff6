#!/usr/bin/env python3
"""Keep series/0000-cover-letter.patch current (called by tools/bin/export.sh).

git format-patch --cover-letter writes placeholders for the subject and the blurb and stamps
the current date.  This script carries the subject and the blurb over from the previous cover
letter (or from a default) into the freshly generated one, and keeps the previous Date: when
nothing else changed, so an export without edits leaves the file byte for byte as it was.

Usage: cover-letter.py NEW_COVER OLD_COVER_OR_EMPTY OUT
"""
import re
import sys

new_path, old_path, out_path = sys.argv[1:4]
new = open(new_path).read()

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
    blurb = old_text[head_end:head_end + m.start()].strip('\n') + '\n\n' if m else None

subject = subject or 'reuseport migration: testable socks[] units, tests and fixes'
blurb = blurb or '(describe the series here)\n\n'
new = new.replace('*** SUBJECT HERE ***', subject, 1)
new = new.replace('*** BLURB HERE ***\n\n', blurb, 1)
if old_date and old_text is not None:
    candidate = re.sub(r'^Date: .*$', lambda _: old_date, new, count=1, flags=re.M)
    if candidate == old_text:
        new = candidate
open(out_path, 'w').write(new)
