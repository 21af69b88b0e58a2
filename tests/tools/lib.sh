# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Sourced by the tools' tests: a scratch directory removed on exit, and
# fail, which counts a failure and lets the test go on (the test ends with
# [ $failures = 0 ]).
set -euo pipefail
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failures=0

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}
