#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Summarise a verbose unittest log of rdma-core's test suite.

usage: suite_report.py LOG KNOWN_FAILURES

Prints the counts (ran, executed, passed, failed, errors, skipped) and the
skip reasons, and exits 1 when the log has no result or when a test failed
or errored that KNOWN_FAILURES (one test name a line, # comments) does not
list.
"""
import collections
import re
import sys

RESULT = re.compile(r'^(FAIL|ERROR): (\w+) \(')
RAN = re.compile(r'^Ran (\d+) tests? in ')
SKIP = re.compile(r"\.\.\. skipped (['\"])(.*)\1$")
SUMMARY = re.compile(r'^(OK|FAILED)\b(?: \((.*)\))?$')


def parse(lines):
    ran = None
    summary = None
    bad = collections.OrderedDict()
    skips = collections.Counter()
    for line in lines:
        line = line.rstrip('\n')
        m = RESULT.match(line)
        if m:
            bad.setdefault(m.group(2), m.group(1))
            continue
        m = RAN.match(line)
        if m:
            ran = int(m.group(1))
            continue
        m = SKIP.search(line)
        if m:
            skips[m.group(2)] += 1
            continue
        m = SUMMARY.match(line)
        if m:
            summary = dict(kv.split('=') for kv in (m.group(2) or '').split(', ') if kv)
    return ran, summary, bad, skips


def known_failures(path):
    with open(path) as f:
        return {l.strip() for l in f if l.strip() and not l.startswith('#')}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1], errors='replace') as f:
        ran, summary, bad, skips = parse(f)
    if ran is None or summary is None:
        print('rdma-core suite: the log has no result (the run did not finish)')
        return 1
    known = known_failures(sys.argv[2])
    failed = int(summary.get('failures', 0))
    errors = int(summary.get('errors', 0))
    skipped = int(summary.get('skipped', 0))
    executed = ran - skipped
    print(f'rdma-core suite: ran {ran}, executed {executed}, '
          f'passed {executed - failed - errors}, failed {failed}, '
          f'errors {errors}, skipped {skipped}')
    for reason, n in skips.most_common():
        print(f'  skipped {n:3}: {reason}')
    unexpected = [t for t in bad if t not in known]
    for t in bad:
        print(f'  {bad[t]}: {t}' + ('' if t in unexpected else ' (known)'))
    for t in sorted(known - set(bad)):
        print(f'  known failure now passes or did not run: {t}')
    if unexpected:
        print(f'rdma-core suite: {len(unexpected)} unexpected failures or errors')
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
