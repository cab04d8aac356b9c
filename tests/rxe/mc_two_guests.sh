#!/usr/bin/env bash
# rdma_mc_example between two guests: a receiver on each, the sender on
# guest a.  The receiver on b sees the group's messages over the wire.
. "$(dirname "$0")/mc_lib.sh"

COUNT=5
rxe_start rb --on b "$MC -b 192.0.2.2 -C $COUNT -t 30"
rxe_end rb --on b
rxe_start ra "$MC -b 192.0.2.1 -C $COUNT -t 30"
rxe_wait_text ra "$MC_JOINED"
rxe_wait_text rb "$MC_JOINED"
rxe_solo s "$MC -s -b 192.0.2.1 -C $COUNT -t 30"
rxe_end ra
rxe_go mc_two_guests 150
expect_sent s $COUNT
expect_received ra $COUNT 192.0.2.1
expect_received rb $COUNT 192.0.2.1
finish
