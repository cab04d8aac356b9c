#!/usr/bin/env bash
# SIGINT and SIGTERM while waiting, one guest: each wait (accept, connect
# retries, the QP-info read, the completion poll, a benchmark's loop) must
# end, free everything and exit 1 with a line naming the signal.  A client
# streaming a bandwidth benchmark between the guests stops within a second
# of SIGTERM, though each of its waits may last 30 s.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rc_common.sh"
. "$(dirname "$0")/robust_lib.sh"

P="'$RDMA_RC_EXAMPLE'"
B="'$RDMA_BENCH'"
port=19921
# Two million 64 KiB WRITEs: minutes of work when the signal comes.  First
# in the plan, so that guest b's client, which starts at once, finds its
# server starting too and not after guest a's other runs; a port of its
# own.
stream_port=$((port + 1))
rxe_pair stream --on a b --signal client TERM client "#bytes" \
	"$B bw --op write -s 65536 -n 2000000 -p $stream_port --accept-timeout 50 --timeout 30" \
	"$B bw --op write -s 65536 -n 2000000 -p $stream_port --connect-timeout 50 --timeout 30 \"\$RXE_PEER_ADDR\""
rxe_solo accept --signal INT "waiting on port $port for TCP connection" \
	"$P -p $port --accept-timeout 50"
# Nobody listens: the client is in its retry loop when the signal comes.
rxe_solo connect --signal TERM "GID: chosen once connected" \
	"$P -v -p $port --connect-timeout 50 \"\$RXE_ADDR\""
# A peer that connects and then says nothing: the QP-info read waits.
rxe_pair exchange --signal server TERM server "TCP connection was established" \
	"$P -p $port --accept-timeout 50 -t 50" \
	"$BAD_PEER --connect \"\$RXE_ADDR\" --port $port --mode silent"
# A peer that hangs once the QPs are connected: the completion never comes.
rxe_pair poll --signal client INT server "bad_peer: synced, now silent" \
	"$BAD_PEER --listen --port $port --mode stuck-qp" \
	"$P -p $port --connect-timeout 50 -t 50 \"\$RXE_ADDR\""
# A benchmark far too long to finish: one guest often completes a READ
# within ibv_post_send, so its loop must look at the signal itself.
rxe_pair bench --signal client INT client "waits: poll for 4000 us, then nap 20 us at a time" \
	"$B lat --op read -s 65536 -n 1000000 -p $port --accept-timeout 50" \
	"$B lat --op read -s 65536 -n 1000000 -p $port --connect-timeout 50 \"\$RXE_ADDR\""
# A peer that stops (SIGSTOP) or dies (SIGKILL) in the middle of a run:
# the other side ends by itself within --timeout (4 s) of the last thing it
# heard, with a line naming what it waited for.  Both sides on one guest,
# so that one clock times the signal and the end; two cases a guest.
# fault NAME GUEST SIDE SIG WAIT_TEXT PAUSE OPTIONS: SIDE gets SIG PAUSE s
# after the client's output has WAIT_TEXT; a stopped side is killed once
# the other ended.
fault() {
	local name=$1 g=$2 side=$3 sig=$4 text=$5 pause=$6 opts=$7 other=server
	[ "$side" = server ] && other=client
	rxe_start "$name.server" --on "$g" --bounded "$B $opts --accept-timeout 50"
	rxe_start "$name.client" --on "$g" --bounded \
		"$B $opts --out_json_file '$RXE_RUNS/$name.json' --connect-timeout 50 \"\$RXE_ADDR\""
	rxe_wait_text "$name.client" "$text" --on "$g"
	rxe_step --on "$g" "run_pause $pause"
	rxe_signal "$name.$side" "$sig" --on "$g"
	rxe_end "$name.$other" --on "$g"
	[ "$sig" = STOP ] && rxe_signal "$name.$side" KILL --on "$g"
	rxe_end "$name.$side" --on "$g"
}
# Each signal comes within a size, 2 s after the client's table starts.
# SEND latency, sizes 2 and 4: the server stops once size 2 is done.
# 10000 iterations: size 4 outlasts the signal's way on an idle guest, and
# size 2 ends well within the run's bound (RXE_RUN_LIMIT) on a busy one.
fault lat_send_stop a server STOP " 2       10000 " 0 \
	"lat --op send -a -s 4 -n 10000 --timeout 4 -p 19923"
# WRITE bandwidth: the client stops; the server only waits for the end.
fault bw_write_stop a client STOP "#bytes" 2 \
	"bw --op write -s 65536 -n 2000000 --timeout 4 -p 19924"
# WRITE latency: the client dies; the server spins on the landing byte.
fault lat_write_kill b client KILL "#bytes" 2 \
	"lat --op write -s 64 -n 10000000 --timeout 4 -p 19925"
# SEND bandwidth: the server dies; the client's SENDs are never acked.
fault bw_send_kill b server KILL "#bytes" 2 \
	"bw --op send -s 65536 -n 2000000 --timeout 4 -p 19926"
rxe_go signals 240
R=$RXE_RUNS

expect_case accept 1 "rdma_rc_example: failed to accept a client on port $port: Interrupted system call"
expect_line "$R/accept.err" "rdma_rc_example: stopped by SIGINT, resources freed"
expect_case connect 1 "rdma_rc_example: failed to connect to 192.0.2.1 port $port: Interrupted system call"
expect_line "$R/connect.err" "rdma_rc_example: stopped by SIGTERM, resources freed"
expect_case exchange.server 1 "rdma_rc_example: failed to receive from the peer after 0 of 57 bytes: Interrupted system call"
expect_line "$R/exchange.server.err" "rdma_rc_example: stopped by SIGTERM, resources freed"
expect_case poll.client 1 "rdma_rc_example: failed to get a completion: Interrupted system call"
expect_line "$R/poll.client.err" "rdma_rc_example: stopped by SIGINT, resources freed"
# It stops within its size, wherever the signal finds it.
expect_status "$(cat "$R/bench.client.rc")" 1 "bench client after SIGINT"
expect_line "$R/bench.client.err" "rdma_bench: stopped by SIGINT, resources freed"
expect_rc "$R/stream.client.rc" 1
expect_line "$R/stream.client.err" "rdma_bench: stopped by SIGTERM, resources freed"
# Within its size, not at -t (10 s): 3 s leaves room for the sanitized
# build's exit on a busy guest, about a second.
expect_stopped_within stream.client 3000
# The server hears the client go, and ends too.
expect_rc "$R/stream.server.rc" 1
closed='Connection reset by peer; the peer closed its connection: it ended or failed, and its own output says why$'
expect_regex "$R/stream.server.err" "^rdma_bench: failed to hear from the peer in the 65536-byte size \(sends 0 of 0, receives 0 of 0 done\): $closed"

# --timeout 4 bounds each wait without progress of a stopped peer: 4 s
# after the last beat, or completion, or byte (beats are 1 s apart); a
# killed peer's closed connection ends it at once. The rest of the 12 s is
# the sanitized build's exit on a slowed guest (robust_vanish.sh bounds
# the plain build's).
hint="the peer is stuck or gone, or its packets do not arrive (on RoCE: UDP port 4791 closed by a firewall, a netdev MTU below the path MTU, no route to its GID)"
hint=${hint//(/\\(}
hint=${hint//)/\\)}
expect_ended_after_signal lat_send_stop.client lat_send_stop.server 12000
expect_rc "$R/lat_send_stop.client.rc" 1
expect_regex "$R/lat_send_stop.client.err" "^rdma_bench: failed to get a completion within 4000 ms \(sends [0-9]+ of [0-9]+, receives [0-9]+ of [0-9]+ done\): Connection timed out; ${hint}$"
# The size done before the stop is kept: printed, and in the JSON.
expect_regex "$R/lat_send_stop.client.out" "^ 2 +10000 +[0-9.]+ "
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["complete"], [r["bytes"] for r in d["results"]])' \
	"$R/lat_send_stop.json" >"$R/lat_send_stop.json.txt" 2>&1
expect_line "$R/lat_send_stop.json.txt" "False [2]"
expect_ended_after_signal bw_write_stop.server bw_write_stop.client 12000
expect_rc "$R/bw_write_stop.server.rc" 1
expect_line "$R/bw_write_stop.server.err" "rdma_bench: failed to hear from the peer within 4000 ms at the end of the 65536-byte size: Connection timed out; the peer stopped (SIGSTOP, a debugger) or its host hangs, or the link to it is down"
expect_ended_after_signal lat_write_kill.server lat_write_kill.client 12000
expect_rc "$R/lat_write_kill.server.rc" 1
expect_regex "$R/lat_write_kill.server.err" "^rdma_bench: failed to see the peer's next RDMA WRITE in the 64-byte size \(sends [0-9]+ of [0-9]+, receives 0 of 0 done\): $closed"
expect_ended_after_signal bw_send_kill.client bw_send_kill.server 12000
expect_rc "$R/bw_send_kill.client.rc" 1
expect_regex "$R/bw_send_kill.client.err" "^rdma_bench: failed to get a completion in the 65536-byte size \(sends [0-9]+ of [0-9]+, receives 0 of 0 done\): $closed"
for c in accept connect exchange.server poll.client bench.client stream.client; do
	expect_line "$R/$c.out" "test result is -4"
done
finish
