# rdma_mc_example between two guests: a receiver on each, the sender on
# guest a.  The receiver on b sees the group's messages over the wire.
. "$(dirname "$0")/mc_lib.sh"

COUNT=5
rxe_exec mc_two_guests --timeout 150 \
	-b "
$(mc_receiver rb -b 192.0.2.2 -C $COUNT -t 30)
$(mc_wait_rc rb)
" \
	-a "
$(mc_receiver ra -b 192.0.2.1 -C $COUNT -t 30)
$(mc_wait_joined ra rb)
$(mc_run s -s -b 192.0.2.1 -C $COUNT -t 30)
$(mc_wait_rc ra)
"
mc_show ra rb s
expect_rc "$RXE_OUT.a.rc" 0
expect_rc "$RXE_OUT.b.rc" 0
expect_sent s $COUNT
expect_received ra $COUNT 192.0.2.1
expect_received rb $COUNT 192.0.2.1
finish
