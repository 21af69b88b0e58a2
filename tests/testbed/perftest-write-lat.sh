#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# perftest ib_write_lat between rxe0 and rxe1 completes and reports a result.
. "$(dirname "$0")/lib.sh"

"$TESTBED" run --module rxe -- bash -c "
	ib_write_lat -d rxe0 -x 0 -s 2 -n 1000 >'$OUT/server' 2>&1 &
	sleep 1
	ib_write_lat -d rxe1 -x 0 -s 2 -n 1000 127.0.0.1 >'$OUT/client' 2>&1
	rc=\$?
	wait \$! || rc=1
	exit \$rc
"
for side in server client; do
	grep -Eq '^ *2 +1000 +[0-9.]+ ' "$OUT/$side" ||
		{ cat "$OUT/$side"; fail "ib_write_lat $side printed no result line"; }
done
awk '/^ *2 +1000 / {print "ib_write_lat 2 B on stock rxe: t_typical " $5 " us"; exit}' "$OUT/client"
