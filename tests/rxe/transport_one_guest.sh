#!/usr/bin/env bash
# rdma_lessons -c uc and -c ud on one guest (server and client on rxe0),
# and the options each transport refuses before opening anything.
. "$(dirname "$0")/transport_lib.sh"

P="'$RDMA_LESSONS'"
refusal="rdma_lessons: invalid --ops value 'send,read' for --connection uc: UC has no RDMA READ (operation read)"
tp_pair uc 19890 -c uc
tp_pair ud 19891 -c ud -v
rxe_solo uc_read "$P -c uc --ops send,read"
rxe_solo ud_write "$P -c ud --ops send,write"
rxe_solo uc_cm "$P -c uc -R"
rxe_solo bad_connection "$P -c xc"
rxe_go transport_one_guest 150
R=$RXE_RUNS
tp_expect_uc uc 19890
tp_expect_ud ud 19891 192.0.2.1
# The UD QP's states carry only what UD has; the send names its target.
c=$R/ud.client.out
s=$R/ud.server.out
expect_regex "$c" '^\[verbs\] QP 0x[0-9a-f]+ RESET -> INIT \(UD\): port 1, pkey index 0, Q_Key 0x11111111$'
expect_regex "$c" '^\[verbs\] posted RECV: .* len 104 '
expect_regex "$s" '^\[verbs\] created AH: port 1, dest LID 0x0000, GRH to GID ::ffff:192.0.2.1, sgid index 1$'
expect_regex "$s" '^\[verbs\] UD destination: QPN 0x[0-9a-f]+, Q_Key 0x11111111$'

# Refused up front: exit 2, one line on stderr, nothing on stdout.
expect_rc "$R/uc_read.rc" 2
expect_line "$R/uc_read.err" "$refusal"
expect_rc "$R/ud_write.rc" 2
expect_line "$R/ud_write.err" \
	"rdma_lessons: invalid --ops value 'send,write' for --connection ud: UD has only SEND/RECEIVE (operation write)"
expect_rc "$R/uc_cm.rc" 2
expect_line "$R/uc_cm.err" \
	"rdma_lessons: invalid --connection value 'uc' with --rdma-cm: RDMA_CM connects RC QPs and resolves UD ones here, not UC"
expect_rc "$R/bad_connection.rc" 2
expect_line "$R/bad_connection.err" \
	"rdma_lessons: invalid --connection value 'xc' (expected rc, uc or ud)"
for name in uc_read ud_write uc_cm bad_connection; do
	expect_status "$(wc -l <"$R/$name.err")" 1 "$name: stderr lines"
	expect_empty "$R/$name.out"
done
finish
