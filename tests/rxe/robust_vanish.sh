#!/usr/bin/env bash
# A peer that vanishes in the middle of a benchmark: killed (SIGKILL, its
# connection closed by its kernel), stopped (SIGSTOP) or cut off (its
# frames dropped).  The other side ends by itself, exit status 1, with one
# line naming what it waited for:
# - killed: within 5 s of the signal (0.1-0.5 s on an idle rig, 3 s on
#   one busy with the sanitized scenarios of the other lane;
#   --timeout is 30 s, so only the closed connection can end it that soon),
#   whatever it waits on: a completion, the peer's WRITE, its next byte;
# - stopped or cut off: within --timeout (4 s) of the last thing it heard,
#   and a few seconds of a slowed guest.
# Latency and bandwidth, each operation family, -D, --run_infinitely, -q,
# -b and -R, the two sides on two guests and on one.  A peer only paused
# (1.5 s, its receives run dry) is outlived: the run passes.  Afterwards no
# rdma_bench runs on either guest, and the kernel holds as many RDMA
# objects (rdma resource) as before.  The plain build runs: the bounds are
# about the program users get; robust_signals.sh runs such cases under the
# sanitizers.
. "$(dirname "$0")/lib.sh"

rxe_plain_programs
B="'$RDMA_BENCH'"
cache=${RXE_VM_CACHE:-${XDG_CACHE_HOME:-${HOME:-/var/tmp}/.cache}/rdma-rc-example/rxe-vm}
kroot=$(sed -n 's|^KERNEL=\(.*\)/boot/.*|\1|p' "$cache/current")
mp="modprobe -d '$kroot'"
port=19960

# The guests' clocks, b's less a's in microseconds, so that a run's end
# on one guest and its peer's signal on the other are compared on one
# clock: guest a asks b's clock over UDP, and of five answers takes the
# one that came back soonest, as NTP does.
"$RXE_VM" exec --out "$RXE_OUT_DIR/clock" "$RXE_SESSION" \
	-a "python3 '$(dirname "$(readlink -f "$0")")/clock_skew.py' ask \"\$RXE_PEER_ADDR\"" \
	-b "python3 '$(dirname "$(readlink -f "$0")")/clock_skew.py' answer" >/dev/null
skew_us=$(cat "$RXE_OUT_DIR/clock.a.out" 2>/dev/null)
case $skew_us in
-[0-9]* | [0-9]*) echo "guest b's clock less guest a's: $((skew_us / 1000)) ms" ;;
*)
	cat "$RXE_OUT_DIR"/clock.*.err
	echo "FAIL: could not compare the guests' clocks"
	exit 1
	;;
esac

# The kernel's RDMA objects on each guest before the runs.
objects='rdma resource show | sed "s/^[0-9]*: //"'
"$RXE_VM" exec --out "$RXE_OUT_DIR/objects-before" "$RXE_SESSION" \
	-a "$objects" -b "$objects" >/dev/null

# vanish NAME SERVER_GUEST CLIENT_GUEST VICTIM SIG OPTIONS: rdma_bench
# OPTIONS on both sides; VICTIM (server or client) gets SIG 1 s after the
# client's table starts, in the middle of the first size. A stopped victim is killed once the other side
# ended.
declare -A GUEST_OF=()
vanish() {
	local name=$1 gs=$2 gc=$3 victim=$4 sig=$5 opts=$6
	local gv=$gs gsurv=$gc survivor=client addr="\"\$RXE_PEER_ADDR\""
	[ "$victim" = client ] && { gv=$gc gsurv=$gs survivor=server; }
	[ "$gs" = "$gc" ] && addr="\"\$RXE_ADDR\""
	port=$((port + 1))
	GUEST_OF[$name.server]=$gs
	GUEST_OF[$name.client]=$gc
	rxe_start "$name.server" --on "$gs" --bounded \
		"$B $opts -p $port --accept-timeout 60"
	rxe_start "$name.client" --on "$gc" --bounded \
		"$B $opts -p $port --connect-timeout 60 --out_json_file '$RXE_RUNS/$name.json' $addr"
	rxe_wait_text "$name.client" "#bytes" --on "$gv"
	rxe_step --on "$gv" "run_pause 1"
	rxe_signal "$name.$victim" "$sig" --on "$gv"
	if [ "$sig" = STOP ]; then
		rxe_wait_text "$name.$survivor" "test result is" --on "$gv"
		rxe_signal "$name.$victim" KILL --on "$gv"
	fi
	rxe_end "$name.$victim" --on "$gv"
	rxe_end "$name.$survivor" --on "$gsurv"
}

long='--timeout 30'
# Killed, between the two guests (server on a, client on b).
vanish lat_send_kill a b server KILL "lat --op send -s 64 -n 10000000 $long"
vanish lat_write_kill a b client KILL "lat --op write -s 64 -n 10000000 $long"
vanish lat_atomic_kill a b server KILL "lat --op fetch_add -D 60 $long"
vanish bw_send_qps_kill a b server KILL "bw --op send -s 4096 -q 2 -n 10000000 $long"
vanish bw_write_bidir_kill a b client KILL "bw --op write -s 4096 -b -n 10000000 $long"
vanish bw_imm_timed_kill a b client KILL "bw --op write_imm -s 4096 -D 60 $long"
vanish bw_send_forever_kill a b server KILL "bw --op send -s 4096 --run_infinitely -D 5 $long"
vanish bw_write_cm_kill a b server KILL "bw --op write -s 4096 -R -n 10000000 $long"
vanish lat_read_cm_kill a b client KILL "lat --op read -s 64 -R -D 60 $long"
# Killed, both sides on one guest.
vanish one_lat_send_kill b b client KILL "lat --op send -s 64 -n 10000000 $long"
vanish one_bw_read_kill a a server KILL "bw --op read -s 4096 -n 10000000 $long"
# Stopped, between the two guests. The stopped side's kernel still takes
# SENDs into the receives it had posted, so the other side sees
# completions until that ring is used up. -t 32 -r 96 keeps that short
# (with the default 128 and 512 it lasted up to 5.9 s on a guest slowed
# by a scenario beside it), so that the bound below is about the wait.
short='--timeout 4'
vanish lat_write_timed_stop a b server STOP "lat --op write -s 64 -D 60 $short"
vanish bw_send_bidir_stop a b client STOP "bw --op send -s 4096 -b -n 10000000 -t 32 -r 96 $short"
rxe_go vanish 300

# Cut off: guest b's frames all dropped (netem, on its way out) 2 s into
# a run between the guests; neither side hears of the other again.
port=$((port + 1))
cut="lat --op send -s 64 -D 60 $short -p $port"
rxe_start cut.server --on a --bounded "$B $cut --accept-timeout 60"
rxe_start cut.client --on b --bounded "$B $cut --connect-timeout 60 \"\$RXE_PEER_ADDR\""
rxe_wait_text cut.client "#bytes" --on b
rxe_step --on b "run_pause 2"
rxe_step --on b "$mp sch_netem && tc qdisc add dev eth0 root netem loss 100% && echo \${EPOCHREALTIME/./} >'$RXE_RUNS/cut.cut-us'"
rxe_end cut.client --on b
rxe_step --on b "tc qdisc del dev eth0 root"
rxe_end cut.server --on a
rxe_go cut 120

# Paused, not gone: the server of a SEND run both ways stopped 1.5 s and
# let go on. Its receive ring (-r 256) runs dry at once and the client's SENDs
# meet RNR NAKs; they retry for ever, as perftest's do, so both sides
# end the run with every message (6 tries of 0.64 ms would have failed
# the client within 4 ms, as a guest's descheduled receiver once did).
port=$((port + 1))
paused="bw --op send -s 4096 -b -n 10000 -r 256 $short -p $port"
rxe_start paused.server --on a --bounded "$B $paused --accept-timeout 60"
rxe_start paused.client --on b --bounded "$B $paused --report-counters --connect-timeout 60 \"\$RXE_PEER_ADDR\""
rxe_wait_text paused.client "#bytes" --on a
rxe_signal paused.server STOP --on a
rxe_step --on a "run_pause 1.5"
rxe_signal paused.server CONT --on a
rxe_end paused.server --on a
rxe_end paused.client --on b
rxe_go paused 120
R=$RXE_RUNS

# expect_ended_within RUN OTHER MS: lib.sh's expect_ended_after_signal,
# with guest b's clock put beside guest a's.
expect_ended_within() {
	local skew=0
	[ "${GUEST_OF[$1]}" = b ] && skew=$((skew + skew_us))
	[ "${GUEST_OF[$2]}" = b ] && skew=$((skew - skew_us))
	expect_ended_after_signal "$1" "$2" "$3" "$skew"
}

closed='Connection reset by peer; the peer closed its connection: it ended or failed, and its own output says why$'
progress='\(sends [0-9]+ of [0-9]+, receives [0-9]+ of [0-9]+ done\)'
# killed NAME SURVIVOR VICTIM WHAT: SURVIVOR ended at once, saying the
# connection closed while it waited for WHAT, or, when the kill came
# between two steps of the size, while it synced with the peer.
killed() {
	expect_rc "$R/$1.$2.rc" 1
	expect_regex "$R/$1.$2.err" "^rdma_bench: failed to ($4 in the [0-9]+-byte size $progress|receive from the peer after [0-9]+ of [0-9]+ bytes): $closed"
	expect_ended_within "$1.$2" "$1.$3" 5000
}
killed lat_send_kill client server "get a completion"
killed lat_write_kill server client "see the peer's next RDMA WRITE"
killed lat_atomic_kill client server "get a completion"
killed bw_send_qps_kill client server "get a completion"
killed bw_write_bidir_kill server client "get a completion"
killed bw_imm_timed_kill server client "get a completion"
killed bw_send_forever_kill client server "get a completion"
killed bw_write_cm_kill client server "get a completion"
# The server of READ latency takes no part: it waits at the end of the
# size for the client's byte, and hears its connection close instead.
killed lat_read_cm_kill server client "hear from the peer"
killed one_lat_send_kill server client "get a completion"
killed one_bw_read_kill client server "get a completion"
# What was measured before the peer went is kept: the sizes done, none
# here, and the JSON says the run is not complete.
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["complete"], len(d["results"]))' \
	"$R/lat_send_kill.json" >"$R/lat_send_kill.json.txt" 2>&1
expect_line "$R/lat_send_kill.json.txt" "False 0"

# Stopped: --timeout (4 s) after the last completion, byte or beat; the
# rest of the bound is a slowed guest.
expect_rc "$R/lat_write_timed_stop.client.rc" 1
expect_regex "$R/lat_write_timed_stop.client.err" "^rdma_bench: failed to see the peer's RDMA WRITE number [0-9]+ within 4000 ms: Connection timed out; "
expect_ended_within lat_write_timed_stop.client lat_write_timed_stop.server 9000
expect_rc "$R/bw_send_bidir_stop.server.rc" 1
# Its SENDs find no receive once the stopped side's ring is used up: they
# retry RNR NAKs for ever, as perftest's do, and -t ends the wait.
expect_regex "$R/bw_send_bidir_stop.server.err" "^rdma_bench: failed to get a completion within 4000 ms $progress: Connection timed out; "
expect_ended_within bw_send_bidir_stop.server bw_send_bidir_stop.client 9000

# Cut off: each side within --timeout of the cut, neither saying the
# connection closed (it did not: nothing arrives any more).
for side in server client; do
	expect_rc "$R/cut.$side.rc" 1
	expect_regex "$R/cut.$side.err" "^rdma_bench: failed to (get a completion|hear from the peer) within 4000 ms"
	expect_no_text "$R/cut.$side.err" "the peer closed its connection"
done
cut_us=$(cat "$R/cut.cut-us" 2>/dev/null || echo 0)
for side in server client; do
	ended=$(cat "$R/cut.$side.end-us" 2>/dev/null || echo 0)
	[ "$side" = client ] && ended=$((ended - skew_us))
	expect_status "$(((ended - (cut_us - skew_us)) / 1000 <= 9000))" 1 \
		"cut.$side ended $(((ended - (cut_us - skew_us)) / 1000)) ms after the cut (at most 9000)"
done

for side in server client; do
	expect_rc "$R/paused.$side.rc" 0
	expect_line "$R/paused.$side.out" "test result is 0"
done
expect_regex "$R/paused.client.out" '^  rcvd_rnr_err +\+[1-9][0-9]*  RNR NAKs received'

# Nothing left: no rdma_bench on either guest, and the kernel's RDMA
# objects as many as before.
left="pgrep -a rdma_bench || echo none"
"$RXE_VM" exec --out "$RXE_OUT_DIR/left" "$RXE_SESSION" -a "$left" -b "$left" >/dev/null
"$RXE_VM" exec --out "$RXE_OUT_DIR/objects-after" "$RXE_SESSION" \
	-a "$objects" -b "$objects" >/dev/null
for g in a b; do
	expect_line "$RXE_OUT_DIR/left.$g.out" none
	cmp -s "$RXE_OUT_DIR/objects-before.$g.out" "$RXE_OUT_DIR/objects-after.$g.out"
	expect_status $? 0 "guest $g: the kernel's RDMA objects as before: $(tr '\n' ' ' <"$RXE_OUT_DIR/objects-after.$g.out")"
done
finish
