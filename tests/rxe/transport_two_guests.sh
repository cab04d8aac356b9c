#!/usr/bin/env bash
# rdma_lessons -c uc and -c ud between two guests: server on a
# (192.0.2.1), client on b; the UD client finds a's address in the GRH.
# Then both again, -R, and four lessons, with --new-api on both sides.
. "$(dirname "$0")/transport_lib.sh"

tp_pair uc 19892 -c uc -- --on a b
tp_pair ud 19893 -c ud -- --on a b
# The same on today's post and poll calls (docs/new-api.md): UC's WRITE
# and UD's addressed SEND by builder; and RC connected by RDMA_CM.
tp_pair uc_new 20401 -c uc --new-api -v -- --on a b
tp_pair ud_new 20402 -c ud --new-api -v -- --on a b
tp_pair cm_new 20403 -R --new-api -- --on a b
# Lessons on it, one of them (sge) with a work request of its own posted by
# ibv_post_send, and the window's bind: the two APIs on one QP.
tp_pair lessons_new 20404 -o sge,send_imm,write_imm,mw --new-api -- --on a b
rxe_go transport_two_guests 200
tp_expect_uc uc 19892
tp_expect_ud ud 19893 192.0.2.1
tp_expect_uc uc_new 20401
tp_expect_ud ud_new 20402 192.0.2.1
for run in uc_new ud_new; do
	expect_text "$RXE_RUNS/$run.server.out" "posted SEND with ibv_wr_send"
done
expect_text "$RXE_RUNS/uc_new.client.out" "posted RDMA_WRITE with ibv_wr_rdma_write"
rc_expect_clean cm_new
expect_line "$RXE_RUNS/cm_new.client.out" "Contents of server's buffer: 'RDMA read operation'"
expect_line "$RXE_RUNS/cm_new.server.out" "Contents of server buffer: 'RDMA write operation'"
expect_line "$RXE_RUNS/uc.client.out" "Remote GID = ::ffff:192.0.2.1"
expect_line "$RXE_RUNS/uc.server.out" "Remote GID = ::ffff:192.0.2.2"
rc_expect_clean lessons_new
expect_line "$RXE_RUNS/lessons_new.client.out" "Message is: 'SEND with immediate', immediate data 0x1234abcd"
expect_line "$RXE_RUNS/lessons_new.server.out" "Contents of server buffer: 'written from two SGEs' (one RDMA WRITE of 2 SGEs)"
expect_text "$RXE_RUNS/lessons_new.client.out" "as expected: the window was invalidated"
finish
