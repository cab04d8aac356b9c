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
	"$B bw --op write -s 65536 -n 2000000 -p $stream_port --accept-timeout 50 -t 30" \
	"$B bw --op write -s 65536 -n 2000000 -p $stream_port --connect-timeout 50 -t 30 \"\$RXE_PEER_ADDR\""
rxe_solo accept --signal INT "waiting on port $port for TCP connection" \
	"$P -p $port --accept-timeout 50"
# Nobody listens: the client is in its retry loop when the signal comes.
rxe_solo connect --signal TERM "using GID index 1 (RoCE v2, ::ffff:192.0.2.1), chosen automatically" \
	"$P -p $port --connect-timeout 50 \"\$RXE_ADDR\""
# A peer that connects and then says nothing: the QP-info read waits.
rxe_pair exchange --signal server TERM server "TCP connection was established" \
	"$P -p $port --accept-timeout 50 -t 50" \
	"$BAD_PEER --connect \"\$RXE_ADDR\" --port $port --mode silent"
# A peer that dies once the QPs are connected: the completion never comes.
rxe_pair poll --signal client INT server "bad_peer: synced, now dying" \
	"$BAD_PEER --listen --port $port --mode fake-qp" \
	"$P -p $port --connect-timeout 50 -t 50 \"\$RXE_ADDR\""
# A benchmark far too long to finish: one guest often completes a READ
# within ibv_post_send, so its loop must look at the signal itself.
rxe_pair bench --signal client INT client "waits: poll for 100 us, then sleep on the completion channel" \
	"$B lat --op read -s 65536 -n 1000000 -p $port --accept-timeout 50" \
	"$B lat --op read -s 65536 -n 1000000 -p $port --connect-timeout 50 \"\$RXE_ADDR\""
rxe_go signals 240
R=$RXE_RUNS

expect_case accept 1 "rdma_rc_example: failed to accept a client on port $port: Interrupted system call"
expect_line "$R/accept.err" "rdma_rc_example: stopped by SIGINT, resources freed"
expect_case connect 1 "rdma_rc_example: failed to connect to 192.0.2.1 port $port: Interrupted system call"
expect_line "$R/connect.err" "rdma_rc_example: stopped by SIGTERM, resources freed"
expect_case exchange.server 1 "rdma_rc_example: failed to receive from the peer after 0 of 72 bytes: Interrupted system call"
expect_line "$R/exchange.server.err" "rdma_rc_example: stopped by SIGTERM, resources freed"
expect_case poll.client 1 "rdma_rc_example: failed to get a completion: Interrupted system call"
expect_line "$R/poll.client.err" "rdma_rc_example: stopped by SIGINT, resources freed"
# It stops within its size, wherever the signal finds it.
expect_status "$(cat "$R/bench.client.rc")" 1 "bench client after SIGINT"
expect_line "$R/bench.client.err" "rdma_bench: stopped by SIGINT, resources freed"
expect_rc "$R/stream.client.rc" 1
expect_line "$R/stream.client.err" "rdma_bench: stopped by SIGTERM, resources freed"
expect_stopped_within stream.client 1000
# The server hears the client go, and ends too.
expect_rc "$R/stream.server.rc" 1
expect_line "$R/stream.server.err" "rdma_bench: peer closed the connection after 0 of 1 bytes"
for c in accept connect exchange.server poll.client bench.client stream.client; do
	expect_line "$R/$c.out" "test result is -4"
done
finish
