#!/usr/bin/env bash
# bench-guest.sh: the guest side of scripts/bench.sh.  Runs every measurement
# of a plan file (see write_plan in bench.sh) in its role, ours with PROGRAM
# (the path of rdma_bench):
#   ROLE=both    one guest: the server in the background, the client here
#   ROLE=server  guest a of two
#   ROLE=client  guest b of two; connects to RXE_PEER_ADDR
# The client prints each measurement's output between markers on stdout
# (the host's files are read-only in the guest):
#   === RESULT SETUP RUN INDEX TOOL MODE OP SIZE ITERS
#   ...output of the client (for ours: then its JSON file)...
#   === END rc=N
# A server that fails prints its output after the same header, as
#   === SERVER FAILED SETUP RUN INDEX TOOL MODE OP SIZE ITERS
# on guest a's stdout with two guests, after the client's block with one
# (" (attempt K)" after it when the measurement ran again).
# RETRIES: a measurement in which either side failed runs again, on both
# sides, at most this many times, each time on a port of its own from
# RETRY_PORT on. The block of an attempt that runs again ends with
#   === END rc=N, server rc=M: runs again
# (M is "none" if the server's guest did not say); the last block of a
# measurement is the one that counts.
# CONTROL=ours or CONTROL=perftest (bench.sh --control) runs that tool in
# both tools' turns; TOOL in the markers still names the turn.
# NEW_API=1 (bench.sh --new-api) gives rdma_bench --new-api; CONTROL=api
# runs rdma_bench in both turns, with --new-api in perftest's.
# PROGRESS, when set, is a file that bench.sh shows as it grows: the side
# that runs the clients writes a line there as each measurement starts,
# "measurement K of TOTAL (...)", K counting the whole plan of the set-up.
set -uo pipefail

: "${PROGRAM:?}" "${PLAN:?}" "${ROLE:?}"
CONTROL=${CONTROL:-}
NEW_API=${NEW_API:-}
# DEVICE=siw (bench.sh --device siw): both tools with -R on siw0, over
# eth1's addresses; rxe: rxe0, over eth0's.
DEVICE=${DEVICE:-rxe}
PROGRESS=${PROGRESS:-}
TOTAL=${TOTAL:-?}
# Every wait is bounded: a server gives up this long after it started, and
# is killed 10 s later if SIGTERM did not end it; a side still running would
# keep the next measurement's clients out.
# (BENCH_SERVER_BOUND and BENCH_CONNECT_WINDOW, below, are for tests that
# make a side stall or fail within seconds.)
SERVER_BOUND=${BENCH_SERVER_BOUND:-300}
# A client tries to connect for this many seconds: ours with
# --connect-timeout, perftest's by retrying every RETRY_PAUSE seconds. Its
# server, started at the same time, takes about a second to listen on the
# guests, and a pause of a whole second would be lost in most measurements.
CONNECT_WINDOW=${BENCH_CONNECT_WINDOW:-60}
RETRY_PAUSE=0.2
# A server still running this long after its client ended is stopped: it
# waits for a client that has gone (perftest's can, after a failed run).
SERVER_GRACE=${BENCH_SERVER_GRACE:-30}
RETRIES=${RETRIES:-0}
RETRY_PORT=${RETRY_PORT:-40000}
# How far apart bench.sh's plan puts two measurements' ports.
PORT_STEP=${PORT_STEP:-1}
# Retries so far in this guest: both sides retry the same measurements in
# the same order, so the count gives both the same port.
RETRIED=0
# Two guests: before each measurement, each side leaves a mark in its job
# folder and waits for the other's mark of the same measurement. Without
# it, a server that hangs until its bound (perftest's can, on siw) leaves
# the client to run the plan alone, each later client finding no server
# and the servers then waiting for clients that have gone by. The wait is
# bounded by what the other side's measurement can take.
SYNC_BOUND=$((SERVER_BOUND + 30))
SYNC_MINE='' SYNC_PEER=''
SEQ=0
if [ -n "${RXE_JOB_DIR:-}" ] && { [ "$ROLE" = server ] || [ "$ROLE" = client ]; }; then
	SYNC_MINE=$RXE_JOB_DIR
	case "$SYNC_MINE" in
	*/guest-a/jobs/*) SYNC_PEER=${SYNC_MINE/\/guest-a\/jobs\//\/guest-b\/jobs\/} ;;
	*/guest-b/jobs/*) SYNC_PEER=${SYNC_MINE/\/guest-b\/jobs\//\/guest-a\/jobs\/} ;;
	*) SYNC_MINE='' ;;
	esac
fi

WORK=$(mktemp -d)
cd "$WORK" || exit 1

# A pause of about $1 seconds that starts no process: a guest that starts
# one ten times a second takes CPU from the measurement it waits beside.
mkfifo "$WORK/tick" && exec {TICK}<>"$WORK/tick" || exit 1
pause() {
	read -r -t "$1" -u "$TICK" _ || true
}

case "$DEVICE:$ROLE" in
siw:both) SERVER_ADDR=${RXE_SIW_ADDR:?siw0 needed: rxe-vm start --siw} ;;
siw:client) SERVER_ADDR=${RXE_SIW_PEER_ADDR:?two guests with siw0 needed} ;;
rxe:both) SERVER_ADDR=$RXE_ADDR ;;
rxe:client) SERVER_ADDR=${RXE_PEER_ADDR:?two guests needed} ;;
*:server) SERVER_ADDR= ;;
*) echo "bench-guest.sh: unknown ROLE '$ROLE'" >&2; exit 2 ;;
esac

# VARY: the options both tools take for the variant of operation $1
# (OP+VARIANT, bench.sh's check_variant); none for a plain operation.
variant_options() {
	VARY=()
	case "$1" in
	*+b) VARY=(-b) ;;
	*+q4) VARY=(-q 4) ;;
	esac
}

# CMD: perftest's tool and options for OP in MODE (lat or bw); fails for
# an operation perftest has no tool for.
perftest_command() {
	local mode=$1 op=${2%%+*} size=$3 iters=$4 port=$5
	local common=(-d rxe0 -x 1 -F -p "$port" -n "$iters")
	[ "$DEVICE" = siw ] && common=(-R -d siw0 -F -p "$port" -n "$iters")
	variant_options "$2"
	common+=("${VARY[@]}")
	case "$op" in
	send | write | read) CMD=("ib_${op}_$mode" "${common[@]}" -s "$size") ;;
	fetch_add) CMD=("ib_atomic_$mode" "${common[@]}" -A FETCH_AND_ADD) ;;
	cmp_swap) CMD=("ib_atomic_$mode" "${common[@]}" -A CMP_AND_SWAP) ;;
	*) return 1 ;;
	esac
}

# The tool that runs in TURN (ours or perftest) into TOOL, and into
# TURN_NEW_API whether rdma_bench gets --new-api there: CONTROL's tool in
# an A/A run; with CONTROL=api rdma_bench in both turns, perftest's on
# --new-api; else the turn's own tool, NEW_API for rdma_bench.
turn_tool() {
	TOOL=${CONTROL:-$1}
	TURN_NEW_API=$NEW_API
	if [ "$CONTROL" = api ]; then
		TOOL=ours
		TURN_NEW_API=
		[ "$1" = perftest ] && TURN_NEW_API=1
	fi
	return 0
}

# CMD: rdma_bench (PROGRAM) for OP in MODE, the measurement its first word;
# NEW (non-empty) adds --new-api: ours_command MODE OP SIZE ITERS PORT NEW.
ours_command() {
	local mode=$1 op=${2%%+*} size=$3 iters=$4 port=$5 new_api=$6
	variant_options "$2"
	CMD=("$PROGRAM" "$mode" --op "$op" -s "$size" -n "$iters" -x 1
		-p "$port" --timeout 60 "${VARY[@]}")
	[ "$DEVICE" = siw ] &&
		CMD=("$PROGRAM" "$mode" --op "$op" -s "$size" -n "$iters" -R
			-p "$port" --timeout 60 "${VARY[@]}")
	# bench.sh --new-api: today's post and poll calls
	[ -n "$new_api" ] && CMD+=(--new-api)
	return 0
}

# Wait for the other guest's file $1 in its job folder, within SYNC_BOUND
# seconds; past it, say that it did not $2 measurement SEQ, and fail.
# (By the clock: under TCG a look takes longer than its 0.1 s pause.)
await_peer_file() {
	local end=$((SECONDS + SYNC_BOUND))
	while [ ! -e "$SYNC_PEER/$1" ]; do
		if [ "$SECONDS" -ge "$end" ]; then
			echo "bench-guest.sh: the other guest did not $2 measurement $SEQ within $SYNC_BOUND s; going on" >&2
			return 1
		fi
		pause 0.1
	done
}

# Wait for the other guest to reach this guest's measurement number SEQ;
# past SYNC_BOUND, go on.
meet_peer() {
	[ -n "$SYNC_MINE" ] || return 0
	: >"$SYNC_MINE/at.$SEQ"
	await_peer_file "at.$SEQ" reach || true
}

# Run a command within the bound: SIGTERM at SERVER_BOUND, SIGKILL 10 s on.
bounded() {
	timeout -k 10 "$SERVER_BOUND" "$@"
}

# The server side of CMD, as TOOL runs it.
run_server() {
	local tool=$1
	if [ "$tool" = ours ]; then
		bounded "${CMD[@]}" --accept-timeout "$SERVER_BOUND"
	else
		bounded "${CMD[@]}"
	fi
}

# The client side of CMD, as TOOL runs it, for measurement IDX.
run_client() {
	local tool=$1 idx=$2 deadline rc=1
	if [ "$tool" = ours ]; then
		bounded "${CMD[@]}" --connect-timeout "$CONNECT_WINDOW" \
			--out_json_file "$WORK/$idx.json" "$SERVER_ADDR"
		rc=$?
		[ -e "$WORK/$idx.json" ] && { echo "=== JSON"; cat "$WORK/$idx.json"; }
		return $rc
	fi
	# perftest's client does not retry: try until the server listens.
	# With -R a refused connection makes it print "Connection refused"
	# (and perftest 4.5 then dies of SIGSEGV), without it "Couldn't
	# connect" or "Unable to perform rdma_client".
	deadline=$((SECONDS + CONNECT_WINDOW))
	while :; do
		bounded "${CMD[@]}" "$SERVER_ADDR" >"out.$idx" 2>"err.$idx"
		rc=$?
		if [ $rc -eq 0 ] || [ "$SECONDS" -ge "$deadline" ] ||
			! grep -qE "Couldn't connect|Unable to perform rdma_client|Connection refused" "out.$idx" "err.$idx"; then
			break
		fi
		sleep "$RETRY_PAUSE"
	done
	cat "out.$idx" "err.$idx"
	# perftest exits 0 when its estimate of the CPU's clock failed, and
	# prints inf or 0.00 for figures it did not measure.
	if [ $rc -eq 0 ] && grep -q '^Correlation coefficient r^2: .* < ' "out.$idx" "err.$idx"; then
		echo "bench-guest.sh: perftest's clock estimate failed: no figures"
		rc=1
	fi
	return $rc
}

# After a server exited non-zero: its output FILE under the header of its
# measurement (the other arguments), which bench-report.py does not read.
show_failed_server() {
	local file=$1
	shift
	echo "=== SERVER FAILED $*"
	cat "$file"
}

# A line for bench.sh to show, from the side that runs the clients.
progress() {
	[ -n "$PROGRESS" ] && [ "$ROLE" != server ] || return 0
	echo "$*" >>"$PROGRESS"
}

# With two guests: tell the other guest that this side of measurement
# number SEQ ended with status $1, and wait, within SYNC_BOUND seconds, for
# its side's status; PEER_RC: that status, or "none" without two guests or
# when the other guest did not say in time.
share_outcome() {
	PEER_RC=none
	[ -n "$SYNC_MINE" ] || return 0
	echo "$1" >"$SYNC_MINE/rc.$SEQ.new" && mv "$SYNC_MINE/rc.$SEQ.new" "$SYNC_MINE/rc.$SEQ"
	await_peer_file "rc.$SEQ" end || return 0
	PEER_RC=$(<"$SYNC_PEER/rc.$SEQ")
}

# Wait for the server, process PID, to end; once its client has ended
# (here, or with two guests when the client's guest says so), it has
# SERVER_GRACE seconds, and is then stopped. SERVER_RC: its exit status.
wait_server() {
	local pid=$1 watcher
	(
		[ "$ROLE" = both ] || await_peer_file "rc.$SEQ" end || true
		pause "$SERVER_GRACE"
		echo "bench-guest.sh: the server of measurement $SEQ still ran $SERVER_GRACE s after its client ended; stopping it" >&2
		kill "$pid" 2>/dev/null
	) &
	watcher=$!
	wait "$pid"
	SERVER_RC=$?
	kill "$watcher" 2>/dev/null
	wait "$watcher" 2>/dev/null
	return 0
}

# One measurement of the plan, in this guest's role (the fields of a plan
# line; INDEX "warm" for the warm-up, which says nothing of its own). If
# either side failed, both run it again (see RETRIES at the top).
measure() {
	local setup=$1 run=$2 idx=$3 turn=$4 mode=$5 op=$6 size=$7 iters=$8 port=$9
	local tool server head where='' who=$4 guests="$1 guests"
	local attempt=1 again='' client_rc server_rc next new_api
	turn_tool "$turn"
	tool=$TOOL new_api=$TURN_NEW_API
	head="$setup $run $idx $turn $mode $op $size $iters"
	[ "$setup" = 1 ] && guests="1 guest"
	[ "$idx" = warm ] ||
		where="measurement $((idx + 1)) of $TOTAL ($guests, round $run): $mode $op $size B, $iters iterations"
	[ "$tool" = "$turn" ] || who="$tool, in the turn of $turn"
	[ -n "$new_api" ] && [ "$CONTROL" = api ] && who="ours with --new-api, in the turn of $turn"
	while :; do
		if [ "$tool" = ours ]; then
			ours_command "$mode" "$op" "$size" "$iters" "$port" "$new_api"
		elif ! perftest_command "$mode" "$op" "$size" "$iters" "$port"; then
			[ -z "$where" ] || progress "$where: skipped, perftest has no tool for $op"
			return 0
		fi
		SEQ=$((SEQ + 1))
		meet_peer
		[ -z "$where" ] || progress "$where: ${CMD[0]##*/} ($who)$again"
		case "$ROLE" in
		server)
			# Only a failure's output is kept: it tells why the
			# client's measurement of the same index failed or stalled.
			run_server "$tool" >"server.$idx" 2>&1 &
			wait_server $!
			server_rc=$SERVER_RC
			share_outcome "$server_rc"
			client_rc=$PEER_RC
			;;
		both)
			run_server "$tool" >"server.$idx" 2>&1 &
			server=$!
			echo "=== RESULT $head"
			run_client "$tool" "$idx" 2>&1
			client_rc=$?
			wait_server "$server"
			server_rc=$SERVER_RC
			;;
		client)
			echo "=== RESULT $head"
			run_client "$tool" "$idx" 2>&1
			client_rc=$?
			share_outcome "$client_rc"
			server_rc=$PEER_RC
			;;
		esac
		if [ "$ROLE" != client ] && [ "$server_rc" != 0 ]; then
			show_failed_server "server.$idx" "$head${again:+ (attempt $attempt)}"
		fi
		rm -f "server.$idx"
		# Run again only when both sides said how they ended: a guest
		# that did not is out of step, and would not run it again.
		next=$((RETRY_PORT + PORT_STEP * RETRIED))
		if [ "$client_rc" = 0 ] && [ "$server_rc" = 0 ] ||
			[ "$client_rc" = none ] || [ "$server_rc" = none ] ||
			[ "$idx" = warm ] || [ "$attempt" -gt "$RETRIES" ] ||
			[ $((next + PORT_STEP)) -gt 65535 ]; then
			[ "$ROLE" = server ] || echo "=== END rc=$client_rc"
			return 0
		fi
		[ "$ROLE" = server ] ||
			echo "=== END rc=$client_rc, server rc=$server_rc: runs again"
		port=$next
		RETRIED=$((RETRIED + 1))
		attempt=$((attempt + 1))
		again=", again on port $port (attempt $attempt of $((RETRIES + 1)))"
	done
}

# COMMANDS_ONLY=1 (the plan's unit test): print each measurement's client
# command, as this role would run it, and run nothing.
if [ -n "${COMMANDS_ONLY:-}" ]; then
	while read -r setup run idx turn mode op size iters port; do
		turn_tool "$turn"
		if [ "$TOOL" = ours ]; then
			ours_command "$mode" "$op" "$size" "$iters" "$port" "$TURN_NEW_API"
		else
			perftest_command "$mode" "$op" "$size" "$iters" "$port" || continue
		fi
		echo "${CMD[*]} $SERVER_ADDR"
	done <"$PLAN"
	exit 0
fi

# QEMU translates guest code the first time it runs, so on new guests the
# first runs of a program and of rxe's paths are slow: a 2-byte SEND
# ping-pong of 20 iterations took 884 us by the median on new guests and
# 349 us right after.  Without a warm-up, the plan's first measurement,
# on every boot, would pay for it.  Both tools measure the first line's
# cell once, 20 iterations, on ports of their own; the output is dropped.
read -r setup run idx tool mode op size iters port <"$PLAN" || exit 0
progress "warming up: each tool once on $mode $op $size B, 20 iterations"
measure "$setup" "$run" warm ours "$mode" "$op" "$size" 20 19990 >/dev/null 2>&1
measure "$setup" "$run" warm perftest "$mode" "$op" "$size" 20 19991 >/dev/null 2>&1

while read -r setup run idx tool mode op size iters port; do
	measure "$setup" "$run" "$idx" "$tool" "$mode" "$op" "$size" "$iters" "$port"
done <"$PLAN"
