#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Report of bench/xrxe-pace-bench: OUT/pace.json into OUT/pace.md and
OUT/pace-accuracy.png; with --docs DIR, the table into DIR/rate-limit.md
(between its pace:begin and pace:end marks) and the plot into DIR/bench/."""
import argparse
import json
import os
import re
import shutil


def table(runs, header):
    lines = [header, '',
             '| QP | message | limit (kbit/s) | measured (kbit/s) | error | '
             'largest 10 ms slice / allowed | no limit (kbit/s) |',
             '|---|---|---|---|---|---|---|']
    ref = {}
    for r in runs:
        key = (r['type'], r['size'])
        if not r['limit_kbps']:
            ref[key] = r['measured_kbps']
            continue
        lines.append(f"| {r['type'].upper()} | {r['size']} B | {r['limit_kbps']} | "
                     f"{r['measured_kbps']:.0f} | {r['error_pct']:+.2f}% | "
                     f"{r['max_slice_bytes']} / {r['slice_allowance_bytes']:.0f} B | "
                     f"{ref.get(key, 0):.0f} |")
    return '\n'.join(lines) + '\n'


def plot(runs, path):
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for kind, size in sorted({(r['type'], r['size']) for r in runs}):
        pts = [(r['limit_kbps'], r['measured_kbps']) for r in runs
               if (r['type'], r['size']) == (kind, size) and r['limit_kbps']]
        if pts:
            ax.plot(*zip(*pts), 'o', label=f'{kind.upper()} {size} B')
    lo = min(r['limit_kbps'] for r in runs if r['limit_kbps'])
    hi = max(r['limit_kbps'] for r in runs)
    ax.plot([lo, hi], [lo, hi], 'k:', label='measured = limit')
    ax.set_xscale('log')
    ax.set_yscale('log')
    ax.set_xlabel('limit (kbit/s)')
    ax.set_ylabel('measured IP rate over 5 s (kbit/s)')
    ax.legend(fontsize='small')
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('out')
    ap.add_argument('--docs')
    ap.add_argument('--header', default='')
    args = ap.parse_args()
    with open(f'{args.out}/pace.json') as f:
        runs = [json.loads(line) for line in f if line.strip()]
    md = table(runs, args.header)
    with open(f'{args.out}/pace.md', 'w') as f:
        f.write(md)
    plot(runs, f'{args.out}/pace-accuracy.png')
    print(md)
    if args.docs:
        doc = f'{args.docs}/rate-limit.md'
        with open(doc) as f:
            text = f.read()
        block = ('<!-- pace:begin -->\n' + md +
                 '\n![measured against configured](bench/pace-accuracy.png)\n'
                 '<!-- pace:end -->')
        text, n = re.subn(r'<!-- pace:begin -->.*<!-- pace:end -->', block, text,
                          flags=re.S)
        if not n:
            raise SystemExit(f'{doc} has no pace:begin/pace:end marks')
        with open(doc, 'w') as f:
            f.write(text)
        os.makedirs(f'{args.docs}/bench', exist_ok=True)
        shutil.copy(f'{args.out}/pace-accuracy.png', f'{args.docs}/bench/')


if __name__ == '__main__':
    main()
