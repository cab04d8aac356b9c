# rdma_mc_example on one guest: two receivers and a sender on rxe0 of
# guest a, group 239.1.1.1.  Each receiver gets every message exactly once.
. "$(dirname "$0")/mc_lib.sh"

COUNT=5
rxe_exec mc_one_guest --timeout 120 -a "
$(mc_receiver r1 -b 192.0.2.1 -C $COUNT -t 20)
$(mc_receiver r2 -b 192.0.2.1 -C $COUNT -t 20)
$(mc_wait_joined r1 r2)
$(mc_run s -s -b 192.0.2.1 -C $COUNT -t 20)
$(mc_wait_rc r1 r2)
"
mc_show r1 r2 s
expect_rc "$RXE_OUT.a.rc" 0
expect_sent s $COUNT
expect_received r1 $COUNT 192.0.2.1
expect_received r2 $COUNT 192.0.2.1
finish
