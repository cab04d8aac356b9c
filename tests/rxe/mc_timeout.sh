# rdma_mc_example: a receiver on a group nobody sends to gives up after its
# timeout with one clear line (the group, how many of COUNT arrived) and a
# non-zero exit, instead of hanging.  A message larger than the port's
# active MTU is refused as bad usage (exit 2) before anything is joined.
. "$(dirname "$0")/mc_lib.sh"

TIMEOUT=3
# Resolve, create, join, leave and destroy, on top of the wait itself. Only a
# hang must fail this, not a slow guest on a busy machine: TCG guests on two
# shared cores have taken 12 s for what takes 5 s on an idle one.
SLACK=40
rxe_exec mc_timeout --timeout 60 -a "
start=\$(date +%s)
$(mc_run quiet -m 239.1.1.99 -b 192.0.2.1 -C 2 -t $TIMEOUT)
echo \$((\$(date +%s) - start)) >$MC_DIR/quiet.seconds
$(mc_run big -s -m 239.1.1.99 -b 192.0.2.1 -S 2000 -C 1 -t $TIMEOUT)
"
mc_show quiet big
expect_rc "$MC_DIR/quiet.rc" 1
expect_line "$MC_DIR/quiet.err" \
	"timed out after $TIMEOUT s waiting for message 1 of 2 on group 239.1.1.99: 0 of 2 messages arrived"
expect_line "$MC_DIR/quiet.out" "==> left group 239.1.1.99"
seconds=$(cat "$MC_DIR/quiet.seconds")
expect_status "$((seconds <= TIMEOUT + SLACK))" 1 \
	"receiver gave up within $TIMEOUT + $SLACK s (took $seconds s)"
expect_status "$((seconds >= TIMEOUT))" 1 \
	"receiver waited its $TIMEOUT s (took $seconds s)"

expect_rc "$MC_DIR/big.rc" 2
expect_line "$MC_DIR/big.err" \
	"invalid -S/--size '2000': larger than the active MTU 1024 of rxe0 port 1 (a UD message is one packet)"
expect_no_text "$MC_DIR/big.out" "joined group"
finish
