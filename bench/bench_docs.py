# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""What the benchmark reports (ocu_report.py, pace_report.py) share: their
tables and plots written into a page of docs/."""
import os
import re
import shutil


def update_docs(docs, page, tag, md, plots, out):
    """Put md and the plots ((png, alt text), in OUT) between the
    <!-- TAG:begin --> and <!-- TAG:end --> marks of DOCS/PAGE, and copy the
    plots into DOCS/bench/. Exits when the page has no such marks."""
    doc = f'{docs}/{page}'
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
