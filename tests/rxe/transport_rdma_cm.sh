#!/usr/bin/env bash
# rdma_lessons -R: the manual's flow with the QP connected through
# RDMA_CM, on one guest and between two; the device is found from the
# address (no -d, no -g). The UD flow (-c ud -R) too: the client resolves
# the server's QP and Q_Key (SIDR), the server sends to the client's QP. Then, on one guest, the same over IPv6 (the
# server's one listener takes both families) and rnr with a short -t (the
# RNR timer is the TCP path's, not the CM's 655 ms). Last, rdma_bench bw
# --op read -R -q 2: every QP of both sides, each connected through
# RDMA_CM, as deep as rxe0 allows for READs, as over TCP.
. "$(dirname "$0")/transport_lib.sh"

# A documentation address of guest a, added for the IPv6 run and removed
# after it; nodad: usable at once, no duplicate detection to wait for.
V6_ADDR=2001:db8::1
# ...and one no guest has, with no route to it once V6_ADDR is gone.
V6_UNREACHABLE=2001:db8::99

P="'$RDMA_LESSONS'"
B="'$RDMA_BENCH'"
tp_pair one 19894 -R -v
rxe_go transport_rdma_cm_one 150
tp_pair two 19895 -R -- --on a b
rxe_go transport_rdma_cm_two 150
# UD through RDMA_CM (SIDR), on one guest and between two.
tp_pair ud_one 20600 -c ud -R -v
tp_pair ud_two 20602 -c ud -R -v -- --on a b
# A UD client at an RC server, and an RC client at a UD server: the
# client names the other transport, the server ends once it has gone.
rxe_pair ud_at_rc "$P -R -p 20604 --accept-timeout 60" \
	"$P -c ud -R -p 20604 --connect-timeout 60 192.0.2.1"
rxe_pair rc_at_ud "$P -c ud -R -p 20606 --accept-timeout 60" \
	"$P -R -p 20606 --connect-timeout 60 192.0.2.1"
rxe_go transport_rdma_cm_ud 150
# An address whose neighbour answers late, as when its first ARP replies
# are lost: a drops the ARP that reaches it for its client's first 4 s,
# so the neighbour's probes of those seconds go unanswered. RDMA_CM's
# request, asked again each second, resolves once a probe is answered,
# instead of waiting out -t (20 s) for a neighbour update it missed.
mp=$RXE_MODPROBE
late="ip neigh flush dev eth0; $mp sch_ingress && $mp cls_u32 && $mp act_gact && tc qdisc add dev eth0 ingress && tc filter add dev eth0 ingress protocol arp prio 1 u32 match u32 0 0 action drop && { (sleep 4; tc qdisc del dev eth0 ingress) >/dev/null 2>&1 & }"
rxe_pair arp_late --on b a --ready "waiting on port 20608" \
	"$P -R -p 20608 --accept-timeout 60" \
	"bash -c \"$late; exec $P -R -v -t 20 -p 20608 --connect-timeout 60 192.0.2.2\""
rxe_step --on a "tc qdisc del dev eth0 ingress 2>/dev/null; true"
rxe_go transport_rdma_cm_arp 150
rxe_step "trap 'ip -6 addr del $V6_ADDR/64 dev eth0 2>/dev/null' EXIT
trap 'exit 143' TERM # the rig's timeout: the EXIT trap still runs
ip -6 addr add $V6_ADDR/64 dev eth0 nodad
sleep 1"
rxe_pair ipv6 "$P -p 19896 --accept-timeout 60 -R" \
	"$P -p 19896 --connect-timeout 60 -R $V6_ADDR"
rxe_step "ip -6 addr del $V6_ADDR/64 dev eth0"
tp_pair rnr 19897 -R -t 3 -o rnr
rxe_solo unreachable "$P -p 19898 -R -t 3 $V6_UNREACHABLE"
rxe_solo limits "ibv_devinfo -v -d rxe0"
rxe_pair bench_read "$B bw -R -v -p 19899 --accept-timeout 60 --op read -n 20 -q 2" \
	"$B bw -R -v -p 19899 --connect-timeout 60 --op read -n 20 -q 2 192.0.2.1"
rxe_go transport_rdma_cm_more 150
R=$RXE_RUNS

# With -R the program's own TCP connection (the syncs) takes the port after
# -p: RDMA_CM listens on -p, which on iWARP is a real TCP port.
rc_expect_clean one
rc_expect_flow "$R/one.server.out" "$R/one.client.out" 19895
rc_expect_clean two
rc_expect_flow "$R/two.server.out" "$R/two.client.out" 19896
# One guest: the CM's steps, and READ needed its rights on the server's QP.
s=$R/one.server.out
c=$R/one.client.out
expect_line "$s" "waiting on port 19894 for RDMA_CM connection"
for side in "$s" "$c"; do
	expect_line "$side" "RDMA_CM connection on device rxe0 port 1, GID index 1 (::ffff:192.0.2.1)"
	expect_no_text "$side" "using GID index"
	expect_line "$side" "Remote GID = ::ffff:192.0.2.1"
	expect_regex "$side" '^\[verbs\] QP 0x[0-9a-f]+ RESET -> INIT \(RDMA_CM\): port 1, pkey index 0, access [A-Z_|]*REMOTE_WRITE'
	expect_regex "$side" '^\[verbs\] QP 0x[0-9a-f]+ INIT -> RTR \(RDMA_CM\): dest QPN 0x[0-9a-f]+, .*dest GID ::ffff:192.0.2.1, sgid index 1, max dest rd atomic 1, min RNR timer 12$'
	expect_line "$side" "[verbs] the CM's address vector sends from GID index 1, type RoCE v2"
	expect_regex "$side" '^\[verbs\] QP 0x[0-9a-f]+ RTR -> RTS \(RDMA_CM\): sq PSN 0x[0-9a-f]+, ack timeout 18, retry count 6, RNR retry 6, max rd atomic 1$'
done
expect_line "$c" "[verbs] RDMA_CM event RDMA_CM_EVENT_ADDR_RESOLVED, status 0"
expect_line "$c" "[verbs] RDMA_CM event RDMA_CM_EVENT_ROUTE_RESOLVED, status 0"
expect_line "$c" "[verbs] RDMA_CM event RDMA_CM_EVENT_CONNECT_RESPONSE, status 0"
expect_line "$s" "[verbs] RDMA_CM event RDMA_CM_EVENT_CONNECT_REQUEST, status 0"
expect_line "$s" "[verbs] RDMA_CM event RDMA_CM_EVENT_ESTABLISHED, status 0"
# Two guests: each side reached the other's address, from its own.
expect_line "$R/two.server.out" "RDMA_CM connection on device rxe0 port 1, GID index 1 (::ffff:192.0.2.1)"
expect_line "$R/two.client.out" "RDMA_CM connection on device rxe0 port 1, GID index 1 (::ffff:192.0.2.2)"
expect_line "$R/two.server.out" "Remote GID = ::ffff:192.0.2.2"
expect_line "$R/two.client.out" "Remote GID = ::ffff:192.0.2.1"
# UD: the SEND arrived, addressed with what SIDR gave (the QP number and
# the Q_Key of RDMA_PS_UDP); the CM's address vector on the client, the
# request's route on the server, both from RoCE v2's GID.
for run in ud_one ud_two; do
	s=$R/$run.server.out c=$R/$run.client.out
	rc_expect_clean "$run"
	expect_line "$s" "UD has only SEND/RECEIVE: skipping read"
	expect_line "$s" "going to send the message: 'SEND operation'"
	expect_line "$c" "GRH source GID: ::ffff:192.0.2.1"
	expect_line "$c" "Message is: 'SEND operation'"
	expect_no_text "$c" "Now replacing it with"
	for side in "$s" "$c"; do
		expect_regex "$side" '^\[verbs\] QP 0x[0-9a-f]+ RESET -> INIT \(UD, RDMA_CM\): port 1, pkey index 0, Q_Key 0x01234567 \(RDMA_PS_UDP.s\)$'
		expect_line "$side" "[verbs] the CM's address vector sends from GID index 1, type RoCE v2"
	done
	expect_line "$c" "[verbs] RDMA_CM event RDMA_CM_EVENT_ESTABLISHED, status 0"
	expect_regex "$c" '^\[verbs\] SIDR reply: the server.s QP 0x[0-9a-f]{6}, Q_Key 0x01234567$'
	expect_regex "$s" '^\[verbs\] SIDR reply sent: our QP 0x[0-9a-f]{6}, Q_Key 0x01234567; the client.s QP 0x[0-9a-f]{6}$'
	expect_regex "$s" '^\[verbs\] UD destination: QPN 0x[0-9a-f]+, Q_Key 0x01234567$'
	expect_no_text "$s" "rdma_disconnect"
done
expect_line "$R/ud_one.server.out" "waiting on port 20600 for RDMA_CM connection"
expect_line "$R/ud_two.server.out" "waiting on port 20602 for RDMA_CM connection"
expect_regex "$R/ud_two.server.out" '^\[verbs\] created AH: port 1, dest LID 0x0000, GRH to GID ::ffff:192.0.2.2, sgid index 1$'
expect_regex "$R/ud_two.client.out" '^\[verbs\] created AH: port 1, dest LID 0x0000, GRH to GID ::ffff:192.0.2.1, sgid index 1$'
expect_line "$R/ud_two.client.out" "Remote GID = ::ffff:192.0.2.1"
expect_line "$R/ud_two.server.out" "Remote GID = ::ffff:192.0.2.2"
expect_line "$R/ud_at_rc.client.err" "rdma_lessons: failed to get RDMA_CM event RDMA_CM_EVENT_ESTABLISHED: got RDMA_CM_EVENT_UNREACHABLE, status 1 (Connection refused); the server's port resolves no UD request: a server run without -c ud connects RC only"
expect_line "$R/rc_at_ud.client.err" "rdma_lessons: failed to get RDMA_CM event RDMA_CM_EVENT_CONNECT_RESPONSE: got RDMA_CM_EVENT_REJECTED, status 8 (Connection refused); the server's port takes no RC connection: a server run with -c ud resolves UD only"
for run in ud_at_rc rc_at_ud; do
	expect_rc "$R/$run.client.rc" 1
	expect_rc "$R/$run.server.rc" 1
	expect_line "$R/$run.server.err" "rdma_lessons: failed to get RDMA_CM event RDMA_CM_EVENT_CONNECT_REQUEST: Connection reset by peer; the peer closed its connection: it ended or failed, and its own output says why"
	# at once, not after --accept-timeout's 60 s (one guest: one clock)
	gap=$((($(cat "$R/$run.server.end-us") - $(cat "$R/$run.client.end-us")) / 1000))
	expect_status "$([ "$gap" -le 5000 ] && echo 0 || echo 1)" 0 \
		"$run: the server ended $gap ms after its client (at most 5000)"
done
# The late neighbour: asked again, resolved, and the flow ran.
rc_expect_clean arp_late
rc_expect_flow "$R/arp_late.server.out" "$R/arp_late.client.out" 20609
expect_line "$R/arp_late.client.out" "[verbs] RDMA_CM: no address within 1000 ms; asking again"
expect_line "$R/arp_late.client.out" "[verbs] RDMA_CM event RDMA_CM_EVENT_ADDR_RESOLVED, status 0"
# IPv6: the listener bound [::] took the client, which reached the server
# from and to the GID of the IPv6 address.
rc_expect_clean ipv6
rc_expect_flow "$R/ipv6.server.out" "$R/ipv6.client.out" 19897
for side in server client; do
	expect_regex "$R/ipv6.$side.out" "^RDMA_CM connection on device rxe0 port 1, GID index [0-9]+ \\($V6_ADDR\\)$"
	expect_line "$R/ipv6.$side.out" "Remote GID = $V6_ADDR"
done
# rnr within -t 3: six RNR retries of 655 ms each would take 3.9 s.
rc_expect_clean rnr
expect_line "$R/rnr.client.out" "SEND completed with status 'RNR retry counter exceeded' (IBV_WC_RNR_RETRY_EXC_ERR), as expected"
# An address with no RDMA route: one line naming it and the reason, exit 1.
expect_rc "$R/unreachable.rc" 1
expect_regex "$R/unreachable.err" "^rdma_lessons: failed to resolve an RDMA route to $V6_UNREACHABLE port 19898: "
# READ at depth: each QP takes as many READs as rxe0 serves
# (max_qp_rd_atom) and issues as many as it can (max_qp_init_rd_atom); the
# server clamps the client's offer to its own device, here the same one.
expect_rc "$R/limits.rc" 0
serve=$(awk '$1 == "max_qp_rd_atom:" { print $2 }' "$R/limits.out")
issue=$(awk '$1 == "max_qp_init_rd_atom:" { print $2 }' "$R/limits.out")
if [ "${serve:-0}" -gt 1 ] && [ "${issue:-0}" -gt 1 ]; then
	_rxe_pass "rxe0 serves $serve and issues $issue READs in flight"
else
	_rxe_fail "limits" "no max_qp_rd_atom/max_qp_init_rd_atom above 1" "$R/limits.out"
fi
[ "$serve" -gt 255 ] && serve=255
[ "$issue" -gt 255 ] && issue=255
expect_rc "$R/bench_read.server.rc" 0
expect_rc "$R/bench_read.client.rc" 0
# Both QPs of -q 2, each with an RDMA_CM connection of its own.
for side in server client; do
	out=$R/bench_read.$side.out
	grep -cE "^\[verbs\] QP 0x[0-9a-f]+ INIT -> RTR \(RDMA_CM\): .*, max dest rd atomic $serve, min RNR timer 12\$" \
		"$out" >"$out.rtr"
	expect_line "$out.rtr" 2
	grep -cE "^\[verbs\] QP 0x[0-9a-f]+ RTR -> RTS \(RDMA_CM\): .*, max rd atomic $issue\$" \
		"$out" >"$out.rts"
	expect_line "$out.rts" 2
	expect_regex "$out" '^QPs: 2, each with the iterations and the tx depth above:( 0x[0-9a-f]{6}){2}$'
	grep -c '^RDMA_CM connection on device' "$out" >"$out.lines"
	expect_line "$out.lines" 1
done
expect_regex "$R/bench_read.client.out" "^benchmark: read bw on rxe0, 20 iterations per size"
finish
