# Two guests whose ports have different MTUs: guest b's eth0 is set to 700
# bytes, so its rxe0 runs at 512 while a's stays at 1024. Each side sends its
# port's MTU in the QP-info message, and both must bring their QP to RTR with
# the smaller one; b's eth0 gets its MTU back whatever happens.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rc_common.sh"

port=19885
rxe_exec rc_mtu --timeout 150 \
	-a "'$RDMA_RC_EXAMPLE' -v -p $port --accept-timeout 60" \
	-b "trap 'ip link set eth0 mtu 1500 || exit 91' EXIT
trap 'exit 143' TERM # the rig's timeout: the EXIT trap still runs
ip link set eth0 mtu 700 || exit 90
'$RDMA_RC_EXAMPLE' -v -p $port --connect-timeout 60 \"\$RXE_PEER_ADDR\"
"
expect_rc "$RXE_OUT.a.rc" 0
expect_rc "$RXE_OUT.b.rc" 0
rc_expect_flow "$RXE_OUT.a.out" "$RXE_OUT.b.out" "$port"
expect_text "$RXE_OUT.a.out" "[verbs] port 1 of rxe0: active, link layer Ethernet, LID 0x0000, active MTU 1024"
expect_text "$RXE_OUT.b.out" "[verbs] port 1 of rxe0: active, link layer Ethernet, LID 0x0000, active MTU 512"
# Only the side with the larger MTU lowers it.
expect_line "$RXE_OUT.a.out" "[verbs] path MTU lowered to the peer's 512 (this port's is 1024)"
expect_no_text "$RXE_OUT.b.out" "path MTU lowered"
for side in a b; do
	expect_text "$RXE_OUT.$side.out" "INIT -> RTR: dest QPN"
	expect_text "$RXE_OUT.$side.out" ", MTU 512, dest LID"
done
finish
