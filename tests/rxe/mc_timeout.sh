#!/usr/bin/env bash
# rdma_mc_example: a receiver on a group nobody sends to gives up after its
# timeout with one clear line (the group, how many of COUNT arrived) and a
# non-zero exit, instead of hanging.  A message larger than the port's
# active MTU is refused as bad usage (exit 2) before anything is joined.
# SIGINT to a receiver that waits ends it at once, not at its timeout: it
# leaves the group, frees everything and says which signal stopped it.
. "$(dirname "$0")/mc_lib.sh"

TIMEOUT=3
# Resolve, create, join, leave and destroy, on top of the wait itself. Only a
# hang must fail this, not a slow guest on a busy machine: TCG guests on two
# shared cores have taken 12 s for what takes 5 s on an idle one.
SLACK=40
rxe_solo quiet "$MC -m 239.1.1.99 -b 192.0.2.1 -C 2 -t $TIMEOUT"
rxe_solo big "$MC -s -m 239.1.1.99 -b 192.0.2.1 -S 2000 -C 1 -t $TIMEOUT"
# The receiver would wait a minute for each message.
rxe_solo stopped --signal INT "==> waiting for 2 messages on group 239.1.1.98" \
	"$MC -m 239.1.1.98 -b 192.0.2.1 -C 2 -t 60"
rxe_go mc_timeout 90
R=$RXE_RUNS
expect_rc "$R/quiet.rc" 1
expect_line "$R/quiet.err" \
	"rdma_mc_example: timed out after $TIMEOUT s waiting for message 1 of 2 on group 239.1.1.99: 0 of 2 messages arrived"
expect_line "$R/quiet.out" "==> left group 239.1.1.99"
ms=$(cat "$R/quiet.ms")
expect_status "$((ms <= (TIMEOUT + SLACK) * 1000))" 1 \
	"receiver gave up within $TIMEOUT + $SLACK s (took $ms ms)"
expect_status "$((ms >= TIMEOUT * 1000))" 1 \
	"receiver waited its $TIMEOUT s (took $ms ms)"

expect_rc "$R/big.rc" 2
expect_line "$R/big.err" \
	"rdma_mc_example: invalid -S/--size '2000': larger than the active MTU 1024 of rxe0 port 1 (a UD message is one packet)"
expect_no_text "$R/big.out" "joined group"

expect_rc "$R/stopped.rc" 1
expect_line "$R/stopped.err" "rdma_mc_example: stopped by SIGINT, resources freed"
expect_no_text "$R/stopped.err" "timed out"
expect_line "$R/stopped.out" "==> left group 239.1.1.98"
expect_stopped_within stopped 1000
finish
