# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Sourced inside the testbed guest: run a server and a client of programs
# that meet over TCP (perftest, the ibv_*_pingpong examples) without racing
# the server's listen.

# wait_listen PORT: until something listens on TCP PORT (at most 30 s).
wait_listen() {
	local i
	for i in $(seq 300); do
		ss -Hltn "sport = :$1" | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

# run_pair OUTPREFIX 'SERVER CMD' 'CLIENT CMD' [PORT]: the server's output
# goes to OUTPREFIX-server, the client's to OUTPREFIX-client, and their exit
# statuses to OUTPREFIX-status; returns 0 if both succeeded within 120 s
# (PAIR_TIMEOUT seconds if set, for a pair that runs many tests).
# stdout is line-buffered so that an error on stderr lands in the file
# where it happened, not before everything the program printed.
run_pair() {
	local out=$1 server=$2 client=$3 port=${4:-18515} pid limit=${PAIR_TIMEOUT:-120}
	timeout "$limit" stdbuf -oL $server </dev/null >"$out-server" 2>&1 &
	pid=$!
	if ! wait_listen "$port"; then
		echo "run_pair: server '$server' never listened on port $port" >"$out-client"
		kill $pid 2>/dev/null
		wait $pid
		return 1
	fi
	local crc=0 src=0
	timeout $((limit - 10)) stdbuf -oL $client </dev/null >"$out-client" 2>&1 || crc=$?
	wait $pid || src=$?
	echo "server exit $src, client exit $crc" >"$out-status"
	[ $crc = 0 ] && [ $src = 0 ]
}

# calibration_failed OUTPREFIX: whether perftest could not calibrate its
# cycle counter. On a loaded host the guest's TSC-against-gettimeofday
# regression can miss r^2 >= 0.9; perftest then either exits 1 after the
# traffic completed, printing "Can't produce a report" instead of figures,
# or exits 0 with figures of inf.
calibration_failed() {
	grep -q "Can't produce a report" "$1-server" "$1-client" && return 0
	grep -q "Correlation coefficient r^2" "$1-server" "$1-client" &&
		grep -Eq "^ *[0-9]+ +[0-9]+ +(inf|-nan)" "$1-server" "$1-client"
}

# run_perftest OUTPREFIX 'SERVER CMD' 'CLIENT CMD' [PORT]: run_pair for a
# perftest program, run again (3 tries in all) when the only failure is that
# perftest could not calibrate its clock. Each such try is noted in
# OUTPREFIX-retries.
run_perftest() {
	local try rc
	rm -f "$1-retries"
	for try in 1 2 3; do
		rc=0
		run_pair "$@" || rc=1
		calibration_failed "$1" || return $rc
		echo "try $try: perftest could not calibrate its clock" >>"$1-retries"
	done
	return 1
}
