#!/usr/bin/env bash
# rdma_rc_example -c uc and -c ud between two guests: server on a
# (192.0.2.1), client on b; the UD client finds a's address in the GRH.
. "$(dirname "$0")/transport_lib.sh"

tp_pair uc 19892 -c uc -- --on a b
tp_pair ud 19893 -c ud -- --on a b
rxe_go transport_two_guests 200
tp_expect_uc uc 19892
tp_expect_ud ud 19893 192.0.2.1
expect_line "$RXE_RUNS/uc.client.out" "Remote GID = ::ffff:192.0.2.1"
expect_line "$RXE_RUNS/uc.server.out" "Remote GID = ::ffff:192.0.2.2"
finish
