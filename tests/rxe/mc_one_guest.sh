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
rxe_exec mc_one_guest --timeout 150 -a "
$(mc_receiver r1 -b 192.0.2.1 -C $COUNT -t 20)
$(mc_receiver r2 -b 192.0.2.1 -C $COUNT -t 20)
$(mc_wait_joined r1 r2)
$(mc_run s -s -b 192.0.2.1 -C $COUNT -t 20)
$(mc_wait_rc r1 r2)
$(mc_receiver big_r1 -b 192.0.2.1 -C $BIG_COUNT -t 20)
$(mc_receiver big_r2 -b 192.0.2.1 -C $BIG_COUNT -t 20)
$(mc_wait_joined big_r1 big_r2)
$(mc_run big_s -s -b 192.0.2.1 -S $BIG_SIZE -C $BIG_COUNT -t 20)
$(mc_wait_rc big_r1 big_r2)
"
mc_show r1 r2 s big_r1 big_r2 big_s
expect_rc "$RXE_OUT.a.rc" 0
expect_sent s $COUNT
expect_received r1 $COUNT 192.0.2.1
expect_received r2 $COUNT 192.0.2.1

expect_sent big_s $BIG_COUNT
for r in big_r1 big_r2; do
	expect_line "$MC_DIR/$r.out" \
		"==> posted 64 receive buffers of 1064 bytes (40 for the GRH)"
	expect_received $r $BIG_COUNT 192.0.2.1
	expect_status "$(grep -c "($BIG_SIZE bytes from 192.0.2.1, QPN " \
		"$MC_DIR/$r.out")" "$BIG_COUNT" \
		"messages of $BIG_SIZE bytes $r received"
	expect_no_text "$MC_DIR/$r.err" "failed receive"
done
finish
