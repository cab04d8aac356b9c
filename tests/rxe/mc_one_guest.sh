#!/usr/bin/env bash
# rdma_mc_example on one guest: two receivers and a sender on rxe0 of
# guest a, group 239.1.1.1.  Each receiver gets every message exactly once.
# Then a sender with a larger -S than the receivers' (they keep the default
# 128): their receive buffers are sized by the port's active MTU, not by
# their own -S, so the larger messages fit.  (Sized by their -S, every
# receive failed: "local QP operation error" on rxe, "local length error"
# on most hardware.)
. "$(dirname "$0")/mc_lib.sh"

COUNT=5
BIG_COUNT=3
BIG_SIZE=1024 # rxe0's active MTU: the largest one UD packet carries
# Receivers R1 R2 wait for COUNT messages; once both have joined, the
# sender S sends COUNT messages with SENDER_ARGS.
round() {
	local r1=$1 r2=$2 s=$3 count=$4 sender_args=$5 r
	for r in "$r1" "$r2"; do
		rxe_start "$r" "$MC -b 192.0.2.1 -C $count -t 20"
	done
	rxe_wait_text "$r1" "$MC_JOINED"
	rxe_wait_text "$r2" "$MC_JOINED"
	rxe_solo "$s" "$MC -s -b 192.0.2.1 $sender_args -C $count -t 20"
	rxe_end "$r1"
	rxe_end "$r2"
}
round r1 r2 s $COUNT ""
round big_r1 big_r2 big_s $BIG_COUNT "-S $BIG_SIZE"
rxe_go mc_one_guest 150
expect_sent s $COUNT
expect_received r1 $COUNT 192.0.2.1
expect_received r2 $COUNT 192.0.2.1

expect_sent big_s $BIG_COUNT
for r in big_r1 big_r2; do
	expect_line "$RXE_RUNS/$r.out" \
		"==> posted 64 receive buffers of 1064 bytes (40 for the GRH)"
	expect_received $r $BIG_COUNT 192.0.2.1
	expect_status "$(grep -c "($BIG_SIZE bytes from 192.0.2.1, QPN " \
		"$RXE_RUNS/$r.out")" "$BIG_COUNT" \
		"messages of $BIG_SIZE bytes $r received"
	expect_no_text "$RXE_RUNS/$r.err" "failed receive"
done
finish
