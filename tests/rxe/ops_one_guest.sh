#!/usr/bin/env bash
# rdma_lessons's other operations with server and client on one guest,
# in few runs (starting a pair is the slow part under TCG): every operation
# once busy polling, then the manual's flow and others waiting on -e
# events, then the operations other transports and RDMA_CM can run, SGE
# lists and a buffer registered twice, then
# SENDs back to back into the client's one receive area. Each check is
# labelled with the operation it is about.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rc_common.sh"
. "$(dirname "$0")/ops_common.sh"

# pair NAME PORT ARGS...: a server and a client, both rdma_lessons with ARGS.
pair() {
	lessons_pair "$1" "$2" "${*:3}" "${*:3} --connect-timeout 20"
}

pair ops 19900 -v -o send_imm,write_imm,fetch_add,cmp_swap,mw
pair events 19902 -e -v -o send,read,write,write_imm,fetch_add,rnr
pair uc 19903 -c uc -o send_imm,write_imm
pair ud 19904 -c ud -o send,send_imm
pair cm 19905 -R -e -o send_imm,cmp_swap,mw
pair sends 19906 -e -o send,send_imm,send
pair ud_sends 19907 -c ud -e -o send,send_imm,send
pair sge_mr 19913 -v -o read,sge,two_mr
lessons_pair gid_one_side 19908 "-g 1 -o send" "-o send --connect-timeout 20"
lessons_pair gid_families 19909 "-g 0 -o send" "-o send --connect-timeout 20"
rxe_solo refused "'$RDMA_LESSONS' -o mw,send"
rxe_solo refused_uc "'$RDMA_LESSONS' -c uc -o write_imm,rnr"
rxe_solo refused_two_mr "'$RDMA_LESSONS' -o two_mr,sge"
rxe_go ops_one_guest 420
R=$RXE_RUNS
rc_expect_clean ops

echo "--- send_imm and write_imm: the immediate data arrives unchanged"
ops_expect_imm "$R/ops"
expect_regex "$R/ops.server.out" '^\[verbs\] posted SEND_WITH_IMM'
expect_regex "$R/ops.client.out" '^\[verbs\] posted RDMA_WRITE_WITH_IMM'
# write_imm consumes a receive the server (the target) posted.
expect_regex "$R/ops.server.out" '^\[verbs\] posted RECV: wr_id 5,'
expect_regex "$R/ops.server.out" '^\[verbs\] polled completion: RECV_RDMA_WITH_IMM, wr_id 5, status success, 26 bytes'

echo "--- fetch_add: exact old and final values"
ops_expect_fetch_add "$R/ops"

echo "--- cmp_swap: swapped once, refused once"
ops_expect_cmp_swap "$R/ops"

echo "--- mw: granted, then revoked; the denied write changes nothing"
ops_expect_mw "$R/ops"

echo "--- -e: the manual's flow, write_imm, fetch_add and rnr on a completion channel"
rc_expect_clean events
rc_expect_flow "$R/events.server.out" "$R/events.client.out" 19902
for side in server client; do
	expect_regex "$R/events.$side.out" '^\[verbs\] created completion channel \(fd [0-9]+\)$'
done
expect_line "$R/events.server.out" "RDMA write with immediate arrived: 26 bytes, immediate data 0x5678ef01"
ops_expect_fetch_add "$R/events"
# rnr: the SEND with no receive posted; a failed completion comes through
# the channel too.
ops_expect_rnr "$R/events"
# The RNR retries take kernel timer ticks: that wait surely sleeps.
expect_line "$R/events.client.out" "[verbs] CQ empty: armed it for an event"
expect_line "$R/events.client.out" "[verbs] got a CQ event on the completion channel, acked it"

echo "--- send_imm and write_imm on UC, send_imm on UD"
rc_expect_clean uc
ops_expect_imm "$R/uc"
rc_expect_clean ud
ops_expect_send_imm "$R/ud"
expect_line "$R/ud.client.out" "GRH source GID: ::ffff:192.0.2.1"

echo "--- SENDs back to back, on RC and UD with -e: each message printed intact"
for run in sends ud_sends; do
	rc_expect_clean "$run"
	ops_expect_messages "$R/$run.client.out" \
		"Message is: 'SEND operation'" \
		"Message is: 'SEND with immediate', immediate data 0x1234abcd" \
		"Message is: 'SEND operation'"
done

echo "--- -g on the server only: on RoCE the client picks a GID itself, of the same type"
rc_expect_clean gid_one_side
expect_line "$R/gid_one_side.client.out" "using GID index 1 (RoCE v2, ::ffff:192.0.2.1), the address of the TCP connection to the peer"
expect_line "$R/gid_one_side.client.out" "Message is: 'SEND operation'"

echo "--- RDMA_CM with -e: send_imm, cmp_swap and mw"
rc_expect_clean cm
expect_line "$R/cm.client.out" "RDMA_CM connection on device rxe0 port 1, GID index 1 (::ffff:192.0.2.1)"
ops_expect_send_imm "$R/cm"
ops_expect_cmp_swap "$R/cm"
ops_expect_mw "$R/cm"

echo "--- sge and two_mr: SGE lists, and one buffer registered twice"
rc_expect_clean sge_mr
ops_expect_sge "$R/sge_mr"
ops_expect_two_mr "$R/sge_mr"
# The QPs were made for 3 SGEs, the lists posted as one request each.
for side in server client; do
	expect_regex "$R/sge_mr.$side.out" '^\[verbs\] created RC QP 0x[0-9a-f]{6} \(send WRs 16, recv WRs 16, SGEs 3\)$'
done
expect_line "$R/sge_mr.client.out" "[verbs] posted SEND: wr_id 10, 3 SGEs"
expect_line "$R/sge_mr.client.out" "[verbs] posted RDMA_WRITE: wr_id 10, 2 SGEs"

echo "--- UC cannot show what needs RC's acknowledgements"
expect_rc "$R/refused_uc.rc" 2
expect_line "$R/refused_uc.err" "rdma_lessons: invalid --ops value 'write_imm,rnr' for --connection uc: UC has no acknowledgements (no RNR or access NAK) (operation rnr)"

echo "--- an operation that leaves the QP in error must come last"
expect_rc "$R/refused.rc" 2
expect_line "$R/refused.err" "rdma_lessons: invalid --ops value 'mw,send': mw leaves the QP in the error state, so it must be the last operation"
expect_no_text "$R/refused.out" "TCP"
expect_rc "$R/refused_two_mr.rc" 2
expect_line "$R/refused_two_mr.err" "rdma_lessons: invalid --ops value 'two_mr,sge': two_mr leaves the QP in the error state, so it must be the last operation"

echo "--- -g 0 (IPv6 link-local) on the server, IPv4 on the client: both refuse, naming it"
for side in server client; do
	expect_rc "$R/gid_families.$side.rc" 1
	expect_line "$R/gid_families.$side.err" "rdma_lessons: failed to agree with the peer: one GID is IPv4 and the other IPv6, and RoCE v2 does not route between them: choose GIDs of one IP version with -g"
done

finish
