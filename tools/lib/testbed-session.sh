# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
# Testbed sessions: one guest boots once and runs the commands of many
# 'xrxe-testbed run' calls, one after the other. Sourced by xrxe-testbed.
#
# A session is a directory on the host that the guest sees through the
# shared root:
#   boot-options, host-tmp  what the guest booted with (written by its run)
#   ready                   the guest serves commands (written by the guest)
#   cmds/N/                 command N: cmd, cwd, timeout, then submitted (the
#                           host); started, output, dmesg, then rc (the guest)
#   stop                    the host asks the guest to power off
#   run.log, run.rc         the session run's own messages and exit status
#   pid                     the session run's process (a session leader)
# Each file is written whole before the one that announces it (submitted,
# rc), so that neither side reads a half-written file.
#
# run_in_session and session_serves read the calling run's parsed options
# (module, timeout, boot_options, host_tmp) and its write_cmd.
# shellcheck disable=SC2154

# How long a session may live, and how long 'session start' waits for the
# guest to boot and set up.
SESSION_MAX_SECS=${XRXE_SESSION_MAX_SECS:-14400}
SESSION_BOOT_SECS=600

session_usage() {
	cat <<EOF2
usage: ${0##*/} session start DIR [RUN OPTIONS]
       ${0##*/} session stop DIR

start boots a guest with the run options given (as 'run' takes them,
without --timeout, --env, --keep and --nodes) that serves commands until 'stop': while it
lives, 'run' with XRXE_TESTBED_SESSION=DIR in its environment and the same
boot options hands its command to that guest instead of booting one (see
docs/testbed.md, "Sessions"). stop powers the guest off and exits 1 if its
kernel complained outside the commands or it did not live to the end.
EOF2
}

session_main() {
	local cmd=${1:-} dir=${2:-}
	case $cmd in
	start | stop) ;;
	-h | --help) session_usage; exit 0 ;;
	*) session_usage >&2; exit 2 ;;
	esac
	[ -n "$dir" ] || die "session $cmd needs a DIR"
	dir=$(realpath -m -- "$dir")
	shift 2
	"session_$cmd" "$dir" "$@"
}

session_start() {
	local dir=$1 t
	shift
	for t in "$@"; do
		case $t in
		--timeout | --keep | --nodes | --env | --) die "session start takes boot options only, not '$t'" ;;
		esac
	done
	# (A session whose process is gone, its run killed, is over.)
	if [ -f "$dir/pid" ] && [ ! -f "$dir/run.rc" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
		die "a session already runs in $dir; stop it first"
	fi
	rm -rf "$dir"
	mkdir -p "$dir/cmds"
	# The run outlives this call: its own session, its output to run.log.
	setsid bash -c 'd=$1; shift; echo $$ >"$d/pid"
		XRXE_TESTBED_SESSION= XRXE_TESTBED_SERVE=$d "$@" >"$d/run.log" 2>&1 </dev/null
		echo $? >"$d/run.rc"' _ "$dir" "$0" run "$@" --timeout "$SESSION_MAX_SECS" \
		--env XRXE_SESSION_DIR="$dir" -- \
		bash "$XRXE_TOP/tools/testbed-guest/session-serve" </dev/null >/dev/null 2>&1 &
	for _ in $(seq $((SESSION_BOOT_SECS * 2))); do
		[ ! -f "$dir/ready" ] || break
		[ ! -f "$dir/run.rc" ] || break
		sleep 0.5
	done
	if [ ! -f "$dir/ready" ]; then
		note "the session's guest did not get ready:"
		cat "$dir/run.log" >&2 2>/dev/null || true
		session_kill "$dir"
		return 1
	fi
	note "session ready in $dir ($(cat "$dir/boot-options"))"
}

# session_kill DIR: end the session's run and its qemu, whatever state.
session_kill() {
	local pid
	pid=$(cat "$1/pid" 2>/dev/null || true)
	[ -z "$pid" ] || kill -TERM -- "-$pid" 2>/dev/null || true
}

session_stop() {
	local dir=$1 rc n took total=0 count=0 outside
	[ -f "$dir/pid" ] || die "no session in $dir"
	: >"$dir/stop"
	for _ in $(seq 240); do
		[ ! -f "$dir/run.rc" ] || break
		sleep 0.5
	done
	if [ ! -f "$dir/run.rc" ]; then
		note "the session's guest did not power off within 120 s; stopped"
		session_kill "$dir"
		return 1
	fi
	for n in $(ls "$dir/cmds" | sort -n); do
		[ -f "$dir/cmds/$n/seconds" ] || continue
		took=$(cat "$dir/cmds/$n/seconds")
		total=$((total + took))
		count=$((count + 1))
	done
	rc=$(cat "$dir/run.rc")
	# The run's own verdict covers the whole log: a complaint inside a
	# command's part was that command's failure, said when it ended. What
	# lies outside every command is the session's.
	if [ "$rc" = 100 ] && [ -f "$dir/dmesg" ]; then
		outside=$(awk '/xrxe-testbed: session command [0-9]+ starts/ {skip = 1}
			!skip {print}
			/xrxe-testbed: session command [0-9]+ ended/ {skip = 0}' "$dir/dmesg" >"$dir/dmesg-outside" &&
			"$XRXE_TOP/tools/lib/dmesg-check" "$dir/dmesg-outside") && rc=0 || {
			note "the guest's dmesg reports kernel problems outside the commands:"
			echo "$outside" >&2
			rc=1
		}
	fi
	if [ "$rc" != 0 ]; then
		note "session in $dir failed (run exit $rc):"
		tail -n 60 "$dir/run.log" >&2
		return 1
	fi
	note "session in $dir: $count commands in $total s, powered off"
}

# session_serves DIR: whether DIR's guest can run this call's command: it is
# up, booted as this call would boot, and shows the /tmp entries it needs.
session_serves() {
	local dir=$1 why='' e
	if [ ! -f "$dir/ready" ] || [ -f "$dir/run.rc" ] || [ -e "$dir/stop" ]; then
		why="no session serves in $dir"
	elif [ "$(cat "$dir/boot-options")" != "$boot_options" ]; then
		why="the session booted $(cat "$dir/boot-options"), this run asks for $boot_options"
	else
		for e in "${host_tmp[@]}"; do
			grep -qxF -- "$e" "$dir/host-tmp" || why="the session's guest does not see /tmp/$e"
		done
	fi
	[ -z "$why" ] && return 0
	note "not in the session: $why; booting a guest of its own"
	return 1
}

# run_in_session DIR COMMAND...: COMMAND in the session's guest, as 'run'
# would run it in a guest of its own: its output on stdout, its exit status,
# 100 for kernel problems in its part of the guest's dmesg, 101 if the
# guest died or stopped answering.
run_in_session() {
	local dir=$1 n=1 c start deadline rc problems
	shift
	while ! mkdir "$dir/cmds/$n" 2>/dev/null; do
		n=$((n + 1))
	done
	c=$dir/cmds/$n
	write_cmd 0 "$@" >"$c/cmd"
	echo "$PWD" >"$c/cwd"
	echo "$timeout" >"$c/timeout"
	: >"$c/submitted"
	start=$(date +%s)
	deadline=$((start + timeout + 300))
	while [ ! -f "$c/rc" ]; do
		if [ -f "$dir/run.rc" ]; then
			note "the session's guest ended during command $n (see $dir/run.log):"
			tail -n 40 "$dir/run.log" >&2
			cat "$c/output" 2>/dev/null || true
			return 101
		fi
		if [ "$(date +%s)" -gt "$deadline" ]; then
			note "the session's guest did not finish command $n within $((timeout + 300)) s"
			cat "$c/output" 2>/dev/null || true
			return 101
		fi
		sleep 0.5
	done
	cat "$c/output"
	rc=$(cat "$c/rc")
	if [ "$rc" = 101 ]; then
		note "the session could not give command $n a freshly loaded driver (see above)"
	elif ! problems=$("$XRXE_TOP/tools/lib/dmesg-check" "$c/dmesg" \
		"xrxe-testbed: session command $n starts" "xrxe-testbed: session command $n ended"); then
		note "the guest's dmesg reports kernel problems during command $n ($c/dmesg):"
		echo "$problems" >&2
		[ "$rc" = 0 ] && rc=100
	fi
	[ "$rc" = 124 ] && note "the command ran past --timeout $timeout s"
	note "$module on $KINFO_RELEASE, session command $n: exit $rc after $(($(date +%s) - start))s"
	return "$rc"
}
