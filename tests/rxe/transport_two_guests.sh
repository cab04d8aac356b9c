# rdma_rc_example -c uc and -c ud between two guests: server on a
# (192.0.2.1), client on b; the UD client finds a's address in the GRH.
. "$(dirname "$0")/transport_lib.sh"

rxe_exec transport_two_guests --timeout 200 \
	-a "
$(tp_server uc 19892 -c uc)
$(tp_server ud 19893 -c ud)
" \
	-b "
$(tp_client uc 19892 -c uc)
$(tp_client ud 19893 -c ud)
"
tp_show uc ud
expect_rc "$RXE_OUT.a.rc" 0
expect_rc "$RXE_OUT.b.rc" 0
tp_expect_uc uc 19892
tp_expect_ud ud 19893 192.0.2.1
expect_line "$TP_DIR/uc.client.out" "Remote GID = ::ffff:192.0.2.1"
expect_line "$TP_DIR/uc.server.out" "Remote GID = ::ffff:192.0.2.2"
finish
