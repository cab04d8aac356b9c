#!/usr/bin/env bash
# CI runs the scenarios with the sanitized build (RDMA_SANITIZE); this runs
# the plain build's binary (in RDMA_PLAIN_BUILD, set by scripts/test.sh)
# through the manual's flow in one guest, so the binary users build is
# exercised on soft-RoCE too.
. "$(dirname "$0")/lib.sh"

: "${RDMA_PLAIN_BUILD:?RDMA_PLAIN_BUILD is not set}"
rxe_plain_programs
. "$(dirname "$0")/rc_common.sh"

port=19961
rc_pair flow $port "--accept-timeout 60" "--connect-timeout 60"
rxe_go rc_plain_build 150
expect_rc "$RXE_RUNS/flow.client.rc" 0
expect_rc "$RXE_RUNS/flow.server.rc" 0
rc_expect_flow "$RXE_RUNS/flow.server.out" "$RXE_RUNS/flow.client.out" "$port"
finish
