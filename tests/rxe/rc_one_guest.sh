#!/usr/bin/env bash
# rdma_rc_example server and client on one guest, sharing rxe0, with the GID
# index given explicitly (-g 1, the IPv4-mapped RoCE v2 GID there) and -v.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rc_common.sh"

port=19880
rc_pair flow $port "-v -g 1" "-v -g 1 --connect-timeout 20"
rxe_go rc_one_guest 120
server=$RXE_RUNS/flow.server.out
client=$RXE_RUNS/flow.client.out
expect_rc "$RXE_RUNS/flow.server.rc" 0
expect_rc "$RXE_RUNS/flow.client.rc" 0
rc_expect_flow "$server" "$client" "$port"
for side in "$server" "$client"; do
	expect_line "$side" "Remote GID = ::ffff:192.0.2.1"
	expect_no_text "$side" "using GID index"
	expect_no_text "${side%.out}.err" "using GID index"
	expect_line "$side" "[verbs] GID index 1: ::ffff:192.0.2.1, type RoCE v2"
	expect_regex "$side" '^\[verbs\] QP 0x[0-9a-f]+ RESET -> INIT: '
	expect_regex "$side" '^\[verbs\] QP 0x[0-9a-f]+ INIT -> RTR: dest QPN 0x[0-9a-f]+, rq PSN 0x[0-9a-f]+, MTU 1024'
	expect_regex "$side" '^\[verbs\] QP 0x[0-9a-f]+ RTR -> RTS: sq PSN 0x[0-9a-f]+, ack timeout 18, retry count 6'
	expect_regex "$side" '^\[verbs\] registered MR: .*rkey 0x[0-9a-f]+, access LOCAL_WRITE'
done
# The client's receive is posted while its QP is in INIT, before RTR.
expect_regex "$client" '^\[verbs\] posted RECV'
if awk '/posted RECV/ { r = NR } /INIT -> RTR/ { t = NR } END { exit !(r && t && r < t) }' "$client"; then
	_rxe_pass "client posted its receive before RTR"
else
	_rxe_fail "rc_one_guest.sh" "client posted its receive before RTR" "$client"
fi
expect_regex "$server" '^\[verbs\] posted SEND'
expect_regex "$client" '^\[verbs\] posted RDMA_READ'
expect_regex "$client" '^\[verbs\] posted RDMA_WRITE'
expect_regex "$client" '^\[verbs\] polled completion: RDMA_WRITE'
finish
