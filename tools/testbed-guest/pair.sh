# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Sourced inside the testbed guest: run a server and a client of programs
# that meet over TCP (perftest, the ibv_*_pingpong examples) without racing
# the server's listen.

# wait_listen PORT|cm[:PORT] [PID] [NETNS]: until something listens on TCP
# PORT (in network namespace NETNS if given), or with 'cm' on an rdma_cm id
# (on PORT if given: another program's listener may still be there) (at
# most 30 s); fails at once if PID has exited.
wait_listen() {
	local i ns=() cm_port=
	[ -z "${3:-}" ] || ns=(ip netns exec "$3")
	case $1 in cm:*) cm_port=${1#cm:} ;; esac
	for i in $(seq 300); do
		if [ -n "$cm_port" ]; then
			rdma resource show cm_id 2>/dev/null |
				grep -q "LISTEN.*src-addr [^ ]*:$cm_port " && return 0
		elif [ "$1" = cm ]; then
			rdma resource show cm_id 2>/dev/null | grep -q LISTEN && return 0
		else
			"${ns[@]}" ss -Hltn "sport = :$1" | grep -q . && return 0
		fi
		[ -z "${2:-}" ] || kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# rping_exit_race OUTPUT STATUS SIDE: whether an rping that exited STATUS,
# its output in OUTPUT, ran to its end and then lost rping's own exit race
# (fixed in rdma-core by f3ae6534, after the v44 Debian 12 ships): its CM
# event thread reads the event channel that the main thread has just
# destroyed and exits 255 from the process. Its output is then the
# disconnect that ends a whole run (and, on the server, its wait for the
# next READ_ADV seeing it) and that one error, nothing else; a payload
# that -V found wrong would be said too. SIDE is server or client.
rping_exit_race() {
	[ "$2" = 255 ] &&
		grep -qx "$3 DISCONNECT EVENT\.\.\." "$1" &&
		[ "$(grep -vx -e "$3 DISCONNECT EVENT\.\.\." -e 'wait for RDMA_READ_ADV state 10' "$1")" = \
			"rdma_get_cm_event: Bad file descriptor" ]
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

# Two nodes (xrxe-testbed run --nodes 2): node 0 serves, node 1 connects to
# it over the link. node_pair OUTPREFIX NAME 'SERVER CMD' 'CLIENT CMD'
# [PORT|cm]: node 0 runs the server and, once it listens (on TCP PORT,
# default 18515, or with 'cm' on an rdma_cm id), leaves NAME.listening in
# XRXE_SHARED; node 1 waits for that (at most 60 s) and runs the client.
# Each node's output goes to OUTPREFIX-server or OUTPREFIX-client and its
# exit status to OUTPREFIX-status; returns 0 if this node's side succeeded
# within 120 s (PAIR_TIMEOUT). NAME must be new to the run.
node_pair() {
	local out=$1 name=$2 server=$3 client=$4 port=${5:-18515}
	local limit=${PAIR_TIMEOUT:-120} flag=$XRXE_SHARED/$2.listening rc=0 pid i
	if [ "$XRXE_NODE" = 0 ]; then
		timeout "$limit" stdbuf -oL $server </dev/null >"$out-server" 2>&1 &
		pid=$!
		# Flagged either way: a server that failed lets the client fail too.
		wait_listen "$port" $pid || true
		: >"$flag"
		wait $pid || rc=$?
		echo "server exit $rc" >"$out-status"
	else
		for i in $(seq 600); do
			[ -f "$flag" ] && break
			sleep 0.1
		done
		if [ ! -f "$flag" ]; then
			echo "node_pair: the server of $name never listened on node 0" >"$out-client"
			echo "client not run" >"$out-status"
			return 1
		fi
		timeout $((limit - 10)) stdbuf -oL $client </dev/null >"$out-client" 2>&1 || rc=$?
		echo "client exit $rc" >"$out-status"
	fi
	[ $rc = 0 ]
}
