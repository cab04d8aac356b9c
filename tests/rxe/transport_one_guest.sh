# rdma_rc_example -c uc and -c ud on one guest (server and client on rxe0),
# and the options each transport refuses before opening anything.
. "$(dirname "$0")/transport_lib.sh"

refusal="rdma_rc_example: invalid --ops value 'send,read' for --connection uc: UC has no RDMA READ (operation read)"
rxe_exec transport_one_guest --timeout 150 -a "
$(tp_pair uc 19890 -c uc)
$(tp_pair ud 19891 -c ud -v)
$(tp_run uc_read refused -c uc --ops send,read)
$(tp_run ud_write refused -c ud --ops send,write)
$(tp_run ud_cm refused -c ud -R)
$(tp_run bad_connection refused -c xc)
"
tp_show uc ud
expect_rc "$RXE_OUT.a.rc" 0
tp_expect_uc uc 19890
tp_expect_ud ud 19891 192.0.2.1
# The UD QP's states carry only what UD has; the send names its target.
c=$TP_DIR/ud.client.out
s=$TP_DIR/ud.server.out
expect_regex "$c" '^\[verbs\] QP 0x[0-9a-f]+ RESET -> INIT \(UD\): port 1, pkey index 0, Q_Key 0x11111111$'
expect_regex "$c" '^\[verbs\] posted RECV: .* len 104 '
expect_regex "$s" '^\[verbs\] created AH: port 1, dest LID 0x0000, GRH to GID ::ffff:192.0.2.1, sgid index 1$'
expect_regex "$s" '^\[verbs\] UD destination: QPN 0x[0-9a-f]+, Q_Key 0x11111111$'

# Refused up front: exit 2, one line on stderr, nothing on stdout.
expect_rc "$TP_DIR/uc_read.refused.rc" 2
expect_line "$TP_DIR/uc_read.refused.err" "$refusal"
expect_rc "$TP_DIR/ud_write.refused.rc" 2
expect_line "$TP_DIR/ud_write.refused.err" \
	"rdma_rc_example: invalid --ops value 'send,write' for --connection ud: UD has only SEND/RECEIVE (operation write)"
expect_rc "$TP_DIR/ud_cm.refused.rc" 2
expect_line "$TP_DIR/ud_cm.refused.err" \
	"rdma_rc_example: invalid --connection value 'ud' with --rdma-cm: RDMA_CM connects RC QPs only here"
expect_rc "$TP_DIR/bad_connection.refused.rc" 2
expect_line "$TP_DIR/bad_connection.refused.err" \
	"rdma_rc_example: invalid --connection value 'xc' (expected rc, uc or ud)"
for name in uc_read ud_write ud_cm bad_connection; do
	expect_status "$(wc -l <"$TP_DIR/$name.refused.err")" 1 "$name: stderr lines"
	expect_empty "$TP_DIR/$name.refused.out"
done
finish
