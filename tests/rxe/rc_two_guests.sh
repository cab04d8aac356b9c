#!/usr/bin/env bash
# rdma_rc_example between two guests ("two hosts"), GID index left automatic:
# each side must pick its IPv4-mapped RoCE v2 GID and say so.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rc_common.sh"

port=19881
rc_pair flow $port "--accept-timeout 60" "--connect-timeout 60" --on a b
rxe_go rc_two_guests 150
server=$RXE_RUNS/flow.server
client=$RXE_RUNS/flow.client
expect_rc "$server.rc" 0
expect_rc "$client.rc" 0
rc_expect_flow "$server.out" "$client.out" "$port"
expect_line "$server.out" "using GID index 1 (RoCE v2, ::ffff:192.0.2.1), the address of the TCP connection to the peer"
expect_line "$client.out" "using GID index 1 (RoCE v2, ::ffff:192.0.2.2), the address of the TCP connection to the peer"
expect_line "$server.out" "Remote GID = ::ffff:192.0.2.2"
expect_line "$client.out" "Remote GID = ::ffff:192.0.2.1"
for side in "$server" "$client"; do
	expect_no_text "$side.out" "[verbs]"
	expect_empty "$side.err"
done
finish
