# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""What the benchmark reports (report.py, ocu_report.py, pace_report.py,
coalesce_report.py) share: matplotlib where it can be imported, and their
tables and plots written into a page of docs/."""
import functools
import os
import re
import shutil
import sys


@functools.cache
def pyplot():
    """matplotlib.pyplot, drawing into files; None where matplotlib cannot
    be imported (no python3-matplotlib), said once on stderr: the tables
    and the JSON need no plots. Any other error of the plots is the
    caller's."""
    try:
        import matplotlib
    except ImportError as e:
        print(f'{os.path.basename(sys.argv[0])}: no plots: matplotlib cannot be imported ({e})',
              file=sys.stderr)
        return None
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    return plt


def need_plots(doc):
    """Exits where the plots of the page doc cannot be drawn: its tables
    would replace it without them."""
    if pyplot() is None:
        raise SystemExit(f'{doc} not updated: its plots need matplotlib')


def update_docs(docs, page, tag, md, plots, out):
    """Put md and the plots ((png, alt text), in OUT) between the
    <!-- TAG:begin --> and <!-- TAG:end --> marks of DOCS/PAGE, and copy the
    plots into DOCS/bench/. Exits when the page has no such marks."""
    doc = f'{docs}/{page}'
    need_plots(doc)
    begin, end = f'<!-- {tag}:begin -->', f'<!-- {tag}:end -->'
    with open(doc) as f:
        text = f.read()
    block = begin + '\n' + md + ''.join(
        f'\n![{alt}](bench/{png})\n' for png, alt in plots) + end
    # A function, so that a backslash in the tables stays as it is.
    text, n = re.subn(re.escape(begin) + '.*' + re.escape(end), lambda _: block, text,
                      flags=re.S)
    if not n:
        raise SystemExit(f'{doc} has no {tag}:begin/{tag}:end marks')
    with open(doc, 'w') as f:
        f.write(text)
    os.makedirs(f'{docs}/bench', exist_ok=True)
    for png, _ in plots:
        shutil.copy(f'{out}/{png}', f'{docs}/bench/')
