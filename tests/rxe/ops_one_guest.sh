# The operations of issue 4 with server and client on one guest, in three
# runs (starting a pair is the slow part under TCG): every operation once
# busy polling, then the manual's flow and others waiting on -e events.
# Each check is labelled with the operation it is about.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rc_common.sh"
. "$(dirname "$0")/ops_common.sh"

runs="$(ops_pair ops 19900 -v -o send_imm,write_imm,fetch_add,cmp_swap,mw)
$(ops_pair rnr 19901 -o send,rnr)
$(ops_pair events 19902 -e -v -o send,read,write,write_imm,fetch_add,rnr)
\"\$P\" -o mw,send >refused.out 2>refused.err
echo \$? >refused.rc"
rxe_exec ops_one_guest --timeout 200 -a "$(ops_guest_script "$runs")"
expect_rc "$RXE_OUT.a.rc" 0
ops_split "$RXE_OUT.a.out"
ops_expect_clean "$RXE_OUT.ops"

echo "--- send_imm and write_imm: the immediate data arrives unchanged"
ops_expect_imm "$RXE_OUT.ops"
expect_regex "$RXE_OUT.ops.server.out" '^\[verbs\] posted SEND_WITH_IMM'
expect_regex "$RXE_OUT.ops.client.out" '^\[verbs\] posted RDMA_WRITE_WITH_IMM'
# write_imm consumes a receive the server (the target) posted.
expect_regex "$RXE_OUT.ops.server.out" '^\[verbs\] posted RECV: wr_id 5,'
expect_regex "$RXE_OUT.ops.server.out" '^\[verbs\] polled completion: RECV_RDMA_WITH_IMM, wr_id 5, status success, 26 bytes'

echo "--- fetch_add: exact old and final values"
ops_expect_fetch_add "$RXE_OUT.ops"

echo "--- cmp_swap: swapped once, refused once"
ops_expect_cmp_swap "$RXE_OUT.ops"

echo "--- mw: granted, then revoked; the denied write changes nothing"
ops_expect_mw "$RXE_OUT.ops"

echo "--- rnr: a SEND with no receive posted"
ops_expect_clean "$RXE_OUT.rnr"
expect_line "$RXE_OUT.rnr.client.out" "Message is: 'SEND operation'"
ops_expect_rnr "$RXE_OUT.rnr"

echo "--- -e: the manual's flow and more, waiting on a completion channel"
ops_expect_clean "$RXE_OUT.events"
rc_expect_flow "$RXE_OUT.events.server.out" "$RXE_OUT.events.client.out" 19902
for side in server client; do
	expect_regex "$RXE_OUT.events.$side.out" '^\[verbs\] created completion channel \(fd [0-9]+\)$'
done
expect_line "$RXE_OUT.events.server.out" "RDMA write with immediate arrived: 26 bytes, immediate data 0x5678ef01"
ops_expect_fetch_add "$RXE_OUT.events"
# A failed completion comes through the channel too.
ops_expect_rnr "$RXE_OUT.events"
# The RNR retries take kernel timer ticks: that wait surely sleeps.
expect_line "$RXE_OUT.events.client.out" "[verbs] CQ empty: armed it for an event"
expect_line "$RXE_OUT.events.client.out" "[verbs] got a CQ event on the completion channel, acked it"

echo "--- an operation that leaves the QP in error must come last"
expect_rc "$RXE_OUT.refused.rc" 2
expect_line "$RXE_OUT.refused.err" "rdma_rc_example: invalid --ops value 'mw,send': mw leaves the QP in the error state, so it must be the last operation"
expect_no_text "$RXE_OUT.refused.out" "TCP"
finish
