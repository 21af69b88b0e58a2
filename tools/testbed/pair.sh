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
# statuses to OUTPREFIX-status; returns 0 if both succeeded within 120 s.
run_pair() {
	local out=$1 server=$2 client=$3 port=${4:-18515} pid
	timeout 120 $server </dev/null >"$out-server" 2>&1 &
	pid=$!
	if ! wait_listen "$port"; then
		echo "run_pair: server '$server' never listened on port $port" >"$out-client"
		kill $pid 2>/dev/null
		wait $pid
		return 1
	fi
	local crc=0 src=0
	timeout 110 $client </dev/null >"$out-client" 2>&1 || crc=$?
	wait $pid || src=$?
	echo "server exit $src, client exit $crc" >"$out-status"
	[ $crc = 0 ] && [ $src = 0 ]
}
