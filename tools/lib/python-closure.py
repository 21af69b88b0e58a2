#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Print the files of this interpreter's standard library that the given
scripts need: every module they import, directly or not, and what the
interpreter itself imports at startup, each with its cached bytecode when
there is some. Used to give the testbed bundle a python3 holding only what
the benchmarks run. Exits 1 when a script's import cannot be found, so that
a bundle never lacks a module silently."""

import importlib.util
import modulefinder
import os
import sys
import sysconfig

# Imported before any script runs (python3 -c pass, with site enabled), or
# by name at run time where a finder cannot see it.
STARTUP = ['site', 'encodings', 'encodings.aliases', 'encodings.utf_8',
           'encodings.latin_1', 'encodings.ascii', 'codecs', 'io', 'abc',
           'os', 'stat', 'posixpath', 'genericpath', '_collections_abc',
           '_sitebuiltins', 'sysconfig', '_sysconfigdata__linux_x86_64-linux-gnu']
# Interactive, debugging and test tooling that stdlib modules import on
# paths a script run never takes (help(), a debugger, a GUI): left out,
# unless a script imports one itself, which is then an error.
TOOLING = ['tkinter', '_tkinter', 'turtle', 'idlelib', 'pydoc', 'pdb', 'doctest',
           'unittest', 'test', '_testcapi', '_testinternalcapi', 'curses',
           '_curses', 'readline', 'lib2to3', 'ensurepip', 'distutils', 'sqlite3', 'dbm']


def stdlib_dirs():
    paths = sysconfig.get_paths()
    return [os.path.realpath(paths['stdlib']),
            os.path.realpath(os.path.join(paths['stdlib'], 'lib-dynload'))]


def with_bytecode(path):
    yield path
    if path.endswith('.py'):
        cached = importlib.util.cache_from_source(path)
        if os.path.exists(cached):
            yield cached


def main():
    scripts = sys.argv[1:]
    if not scripts:
        sys.exit('usage: python-closure.py SCRIPT...')
    # The scripts' own directories hold their local modules (guest.py's workloads):
    # found there, not copied.
    finder = modulefinder.ModuleFinder(
        path=[os.path.dirname(os.path.abspath(s)) for s in scripts] + sys.path,
        excludes=TOOLING)
    for name in STARTUP:
        finder.import_hook(name)
    for script in scripts:
        finder.run_script(script)
    roots = stdlib_dirs()
    files = set()
    for mod in finder.modules.values():
        path = mod.__file__
        if not path:
            continue
        real = os.path.realpath(path)
        if any(real.startswith(r + os.sep) for r in roots):
            files.update(with_bytecode(path))
    # Packages' __init__ files come with the package's modules above; what a
    # script imports but no path holds is a gap in the bundle. Optional
    # modules that scripts import inside a try (matplotlib) are allowed.
    missing = sorted(n for n in finder.badmodules
                     if '__main__' in finder.badmodules[n]
                     and n.split('.')[0] != 'matplotlib')
    if missing:
        sys.exit('modules the scripts import that this python lacks or that are left out: '
                 + ', '.join(missing))
    for path in sorted(files):
        print(path)


if __name__ == '__main__':
    main()
