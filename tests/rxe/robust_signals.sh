# SIGINT and SIGTERM while waiting, one guest: each wait (accept, connect
# retries, the QP-info read, the completion poll, a benchmark's loop) must
# end, free everything and exit 1 with a line naming the signal.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rc_common.sh"
. "$(dirname "$0")/robust_lib.sh"

P="'$RDMA_RC_EXAMPLE'"
port=19921
robust_batch signals a 200 <<GUEST
rb_case_signal accept INT \$RB_DIR/accept.out "waiting on port $port for TCP connection" \
	$P -p $port --accept-timeout 50
# Nobody listens: the client is in its retry loop when the signal comes.
rb_case_signal connect TERM \$RB_DIR/connect.out "using GID index 1 (RoCE v2, ::ffff:192.0.2.1), chosen automatically" \
	$P -p $port --connect-timeout 50 \$RXE_ADDR
$BAD_PEER --connect \$RXE_ADDR --port $port --mode silent >\$RB_DIR/silent.peer 2>&1 &
rb_case_signal exchange TERM \$RB_DIR/exchange.out "TCP connection was established" \
	$P -p $port --accept-timeout 50 -t 50
wait
$BAD_PEER --listen --port $port --mode fake-qp >\$RB_DIR/fake-qp.peer 2>&1 &
rb_case_signal poll INT \$RB_DIR/fake-qp.peer "bad_peer: synced, now dying" \
	$P -p $port --connect-timeout 50 -t 50 \$RXE_ADDR
wait
# A benchmark far too long to finish: one guest often completes a READ
# within ibv_post_send, so its loop must look at the signal itself.
$P -p $port --accept-timeout 50 --bench lat --op read -s 65536 -n 1000000 \
	>\$RB_DIR/bench-server.out 2>&1 &
rb_case_signal bench INT \$RB_DIR/bench.out "waits: poll for 100 us, then sleep on the completion channel" \
	$P -p $port --connect-timeout 50 --bench lat --op read -s 65536 -n 1000000 \$RXE_ADDR
wait
GUEST

expect_case accept 1 "failed to accept a client on port $port: Interrupted system call"
expect_line "$RB/accept.err" "rdma_rc_example: stopped by SIGINT, resources freed"
expect_case connect 1 "failed to connect to 192.0.2.1 port $port: Interrupted system call"
expect_line "$RB/connect.err" "rdma_rc_example: stopped by SIGTERM, resources freed"
expect_case exchange 1 "failed to receive from the peer after 0 of 72 bytes: Interrupted system call"
expect_line "$RB/exchange.err" "rdma_rc_example: stopped by SIGTERM, resources freed"
expect_case poll 1 "failed to get a completion: Interrupted system call"
expect_line "$RB/poll.err" "rdma_rc_example: stopped by SIGINT, resources freed"
# It stops within its size, wherever the signal finds it.
expect_status "$(cat "$RB/bench.rc")" 1 "bench client after SIGINT"
expect_line "$RB/bench.err" "rdma_rc_example: stopped by SIGINT, resources freed"
for c in accept connect exchange poll bench; do
	expect_line "$RB/$c.out" "test result is -4"
done
finish
