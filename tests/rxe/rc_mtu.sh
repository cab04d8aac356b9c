#!/usr/bin/env bash
# Two guests whose ports have different MTUs: guest b's eth0 is set to 700
# bytes, so its rxe0 runs at 512 while a's stays at 1024. Each side sends its
# port's MTU in the QP-info message, and both must bring their QP to RTR with
# the smaller one; b's eth0 gets its MTU back whatever happens.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rc_common.sh"

port=19885
rxe_step --on b "trap 'ip link set eth0 mtu 1500 || exit 91' EXIT
trap 'exit 143' TERM # the rig's timeout: the EXIT trap still runs
ip link set eth0 mtu 700 || exit 90"
rc_pair mtu $port "-v --accept-timeout 60" "-v --connect-timeout 60" --on a b
rxe_go rc_mtu 150
server=$RXE_RUNS/mtu.server.out
client=$RXE_RUNS/mtu.client.out
expect_rc "$RXE_RUNS/mtu.server.rc" 0
expect_rc "$RXE_RUNS/mtu.client.rc" 0
rc_expect_flow "$server" "$client" "$port"
expect_text "$server" "[verbs] port 1 of rxe0: active, link layer Ethernet, LID 0x0000, active MTU 1024"
expect_text "$client" "[verbs] port 1 of rxe0: active, link layer Ethernet, LID 0x0000, active MTU 512"
# Only the side with the larger MTU lowers it.
expect_line "$server" "[verbs] path MTU lowered to the peer's 512 (this port's is 1024)"
expect_no_text "$client" "path MTU lowered"
for side in "$server" "$client"; do
	expect_text "$side" "INIT -> RTR: dest QPN"
	expect_text "$side" ", MTU 512, dest LID"
	# The GID table is read once for the connection (resources_create),
	# and the GID of the TCP connection's address is chosen from it.
	expect_status "$(grep -c '^\[verbs\] GID table of rxe0 port 1: ' "$side")" 1 \
		"$side: reads of the GID table"
done
finish
