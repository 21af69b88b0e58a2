#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Guest side of bench/xrxe-pace-bench: the rate limit accuracy sweep.

For each message size, what the testbed sustains with no limit, then
1, 10 and 100 Mbit/s and 80% of the unlimited rate (rates above 80% of it
are skipped: the link could not carry them). One JSON line per run in
OUT/pace.json; a run that fails ends the sweep with its error.
"""
import argparse
import json
import subprocess
import sys

POINTS = (('rc', 64), ('rc', 4096), ('rc', 65536), ('ud', 64), ('ud', 1024))
SHORT = (('rc', 4096),)
RATES = (1000, 10000, 100000)


def run(tool, kind, size, kbps, window):
    cmd = [tool, '-t', kind, '-s', str(size), '-r', str(kbps), '-w', str(window)]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if res.returncode:
        sys.exit(f'{" ".join(cmd)}: exit {res.returncode}: {res.stderr.strip()}')
    return json.loads(res.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--tool', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--window', type=float, default=5)
    ap.add_argument('--short', action='store_true')
    args = ap.parse_args()
    with open(f'{args.out}/pace.json', 'w') as out:
        for kind, size in SHORT if args.short else POINTS:
            ref = run(args.tool, kind, size, 0, args.window)
            out.write(json.dumps(ref) + '\n')
            top = int(ref['measured_kbps'] * 0.8)
            rates = [r for r in (RATES[:2] if args.short else RATES) if r <= top]
            if not args.short:
                rates.append(top)
            for kbps in rates:
                r = run(args.tool, kind, size, kbps, args.window)
                out.write(json.dumps(r) + '\n')
                out.flush()
                print(f'{kind} {size} B at {kbps} kbit/s: {r["measured_kbps"]:.0f} '
                      f'({r["error_pct"]:+.2f}%), largest 10 ms slice '
                      f'{r["max_slice_bytes"]} of {r["slice_allowance_bytes"]:.0f} B',
                      flush=True)


if __name__ == '__main__':
    main()
