# rdma_rc_example between two guests ("two hosts"), GID index left automatic:
# each side must pick its IPv4-mapped RoCE v2 GID and say so.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rc_common.sh"

port=19881
rxe_exec rc_two_guests --timeout 150 \
	-a "'$RDMA_RC_EXAMPLE' -p $port --accept-timeout 60" \
	-b "'$RDMA_RC_EXAMPLE' -p $port --connect-timeout 60 \"\$RXE_PEER_ADDR\""
expect_rc "$RXE_OUT.a.rc" 0
expect_rc "$RXE_OUT.b.rc" 0
rc_expect_flow "$RXE_OUT.a.out" "$RXE_OUT.b.out" "$port"
expect_line "$RXE_OUT.a.out" "using GID index 1 (RoCE v2, ::ffff:192.0.2.1), chosen automatically"
expect_line "$RXE_OUT.b.out" "using GID index 1 (RoCE v2, ::ffff:192.0.2.2), chosen automatically"
expect_line "$RXE_OUT.a.out" "Remote GID = ::ffff:192.0.2.2"
expect_line "$RXE_OUT.b.out" "Remote GID = ::ffff:192.0.2.1"
for side in a b; do
	expect_no_text "$RXE_OUT.$side.out" "[verbs]"
	if [ ! -s "$RXE_OUT.$side.err" ]; then
		_rxe_pass "guest $side wrote nothing to stderr"
	else
		_rxe_fail "rc_two_guests.sh" "guest $side: expected an empty stderr" "$RXE_OUT.$side.err"
	fi
done
finish
