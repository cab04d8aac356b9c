#!/usr/bin/env bash
# The hints on the program's error lines, each fault really made, and undone
# in the guest script that made it (a trap undoes it if the script ends
# early); the last runs prove both guests healthy. Each guest first works
# alone, then the two run pairs:
#   a:    a READ with an rkey the server's region does not have (bad_peer
#         relays the server's QP info with another rkey); -R with a -d
#         that is not the device the client's request came on;
#   b:    a peer GID nobody holds, so RTR finds no MAC address for it; -R
#         with a -d that is not the device RDMA_CM resolved; rdma_ucm
#         unloaded, with -R;
#   a, b: UDP port 4791 dropped on b; -R with the right -d, and the path
#         MTU line; GIDs of two IP versions (-g 0 against -g 1); b's
#         netdev MTU too small.
# ib_uverbs cannot be taken away here: rdma_rxe depends on it, and with no
# device at all libibverbs lists none rather than failing with ENOSYS.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rc_common.sh"
. "$(dirname "$0")/robust_lib.sh"
. "$(dirname "$0")/wire_lib.sh"

P="'$RDMA_RC_EXAMPLE'"
# -o and -R are the lessons': those runs are rdma_lessons's.
L="'$RDMA_LESSONS'"
R=$RXE_RUNS
peer="\"\$RXE_PEER_ADDR\""
here="\"\$RXE_ADDR\""
# The guest kernel's module tree, where rxe-vm unpacked it (as check.sh).
cache=${RXE_VM_CACHE:-${XDG_CACHE_HOME:-${HOME:-/var/tmp}/.cache}/rdma-rc-example/rxe-vm}
kroot=$(sed -n 's|^KERNEL=\(.*\)/boot/.*|\1|p' "$cache/current")
mp="modprobe -d '$kroot'"
# Wait (bounded) until rxe0's port is ACTIVE with its IPv4 GID again.
healthy="for i in \$(seq 100); do grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state 2>/dev/null && grep -q ffff /sys/class/infiniband/rxe0/ports/1/gids/1 && break; sleep 0.2; done"
restore="ip link set eth0 mtu 1500; tc qdisc del dev eth0 ingress 2>/dev/null; [ -e /dev/infiniband/rdma_cm ] || $mp rdma_ucm"
for g in a b; do
	rxe_step --on $g "trap '$restore' EXIT
trap 'exit 143' TERM"
done

# b, while a works alone: drop the RoCE v2 packets (UDP 4791) that reach
# b, as a firewall would (b's runs of its own go over loopback, which the
# filter does not see), until the pair that needs it has run.
rxe_step --on b "$mp sch_ingress && $mp cls_u32 && $mp act_gact && tc qdisc add dev eth0 ingress && tc filter add dev eth0 ingress protocol ip prio 1 u32 match ip protocol 17 0xff match ip dport 4791 0xffff action drop"
# a: the server's rkey changed on its way to the client, whose READ the
# server's device refuses.
rxe_start rkey_server --on a "$L -p 19962 -o read -t 5 --accept-timeout 30"
rxe_wait_text rkey_server "waiting on port 19962 for TCP connection" --on a
rxe_start rkey_relay --on a "$BAD_PEER --listen --port 19963 --mode bad-rkey --relay 127.0.0.1:19962 --timeout 30"
rxe_wait_text rkey_relay "bad_peer: listening on port 19963" --on a
rxe_start rkey_client --on a "$L -p 19963 -o read -t 5 $here"
rxe_end rkey_client --on a
rxe_end rkey_server --on a
rxe_end rkey_relay --on a
# b: a peer whose GID is an address nobody on the link holds.
rxe_pair arp --on b b --ready "waiting on port 19964 for TCP connection" \
	"$P -p 19964 -t 5 --accept-timeout 30" \
	"$BAD_PEER --connect $here --port 19964 --mode fake-qp --gid-ipv4 192.0.2.77 --timeout 30"
# -d names a device RDMA_CM did not resolve to: a's server (which rejects
# the client), b's client. With -R the TCP connection takes -p + 1.
rxe_pair cm_dev --on a a --ready "waiting on port 19966 for TCP connection" \
	"$L -R -d rxe9 -p 19965 --accept-timeout 30" \
	"$L -R -d rxe0 -p 19965 -t 5 --connect-timeout 30 $here"
rxe_solo cm_dev_client --on b "$L -R -d rxe9 -p 19966 $here"
rxe_step --on b "rmmod rdma_ucm"
rxe_solo no_ucm --on b "$L -R -p 19966"
rxe_step --on b "$mp rdma_ucm"

# a and b: with UDP 4791 dropped on b, the QPs connect but nothing of a's
# arrives; then, the filter gone, -R with the device it resolves to; GIDs
# of two IP versions; b's netdev MTU too small.
rxe_pair udp_drop --on a b "$P -t 20 -p 19969 --accept-timeout 60" \
	"$P -t 20 -p 19969 --connect-timeout 60 $peer"
rxe_step --on b "tc qdisc del dev eth0 ingress"
rxe_pair cm_ok --on a b "$L -R -d rxe0 -p 19967 --accept-timeout 60" \
	"$L -R -d rxe0 -p 19967 --connect-timeout 60 $peer"
rxe_pair family --on a b "$P -g 0 -p 19968 --accept-timeout 60" \
	"$P -g 1 -p 19968 --connect-timeout 60 $peer"
rxe_step --on b "ip link set eth0 mtu 300; sleep 1"
rxe_pair small_mtu --on a b "$P -p 19962 --accept-timeout 60" \
	"$P -p 19962 --connect-timeout 60 $peer"
rxe_step --on b "ip link set eth0 mtu 1500; $healthy"
rxe_solo healthy_a --on a "'$RDMA_CHECK' -R"
rxe_solo healthy_b --on b "'$RDMA_CHECK' -R"
rxe_go hints 200 --capture "$R/hints.pcap"

# A failed completion names what was posted: the READ, with the address and
# the rkey the relay sent on (not the server's own), and what it means.
bad_rkey=$(sed -n 's/^bad_peer: relaying, .* sent on as \(0x[0-9a-f]*\)$/\1/p' "$R/rkey_relay.out")
expect_regex "$R/rkey_relay.out" "^bad_peer: relaying, the server's rkey 0x[0-9a-f]+ sent on as 0x[0-9a-f]+$"
expect_line "$R/rkey_client.out" "Remote rkey = ${bad_rkey:-none}"
expect_rc "$R/rkey_client.rc" 1
expect_regex "$R/rkey_client.err" "^rdma_lessons: failed completion of RDMA_READ \(wr_id 2, remote address 0x[0-9a-f]+, rkey ${bad_rkey:-none}\) on QP 0x[0-9a-f]{6}: remote access error \(vendor error 0x[0-9a-f]+\); the rkey or address range the peer sent does not grant this access$"
expect_rc "$R/rkey_server.rc" 1

# RTR resolves the peer's GID to a MAC address: nobody answers for it.
expect_rc "$R/arp.server.rc" 1
expect_regex "$R/arp.server.err" "^rdma_rc_example: failed to modify QP 0x[0-9a-f]{6} to RTR: Connection timed out; on RoCE, the peer's GID address \(Remote GID\) did not answer ARP or neighbour discovery: check that it is the peer's address and that its link is up$"
expect_line "$R/arp.server.out" "Remote GID = ::ffff:192.0.2.77"

# -d with -R: refused only when it is not the device RDMA_CM resolved.
expect_rc "$R/cm_dev.server.rc" 1
expect_line "$R/cm_dev.server.err" "rdma_lessons: failed to use device rxe9 with -R: the client's request came on device rxe0 port 1 (No such device); give -d rxe0, or leave -d out"
expect_rc "$R/cm_dev.client.rc" 1
expect_regex "$R/cm_dev.client.err" "^rdma_lessons: failed to get RDMA_CM event RDMA_CM_EVENT_CONNECT_RESPONSE: got RDMA_CM_EVENT_REJECTED"
expect_rc "$R/cm_dev_client.rc" 1
expect_line "$R/cm_dev_client.err" "rdma_lessons: failed to use device rxe9 with -R: RDMA_CM resolved 192.0.2.2 to device rxe0 port 1 (No such device); give -d rxe0, or leave -d out"
for side in server client; do
	expect_rc "$R/cm_ok.$side.rc" 0
	expect_line "$R/cm_ok.$side.out" "Path MTU = 1024 bytes"
	expect_line "$R/cm_ok.$side.out" "test result is 0"
done

expect_rc "$R/no_ucm.rc" 1
expect_line "$R/no_ucm.err" "rdma_lessons: failed to create RDMA_CM event channel: No such file or directory; the kernel module rdma_ucm is not loaded (modprobe rdma_ucm), or there is no RDMA device (ibv_devices)"

for side in server client; do
	expect_rc "$R/family.$side.rc" 1
	expect_line "$R/family.$side.err" "rdma_rc_example: failed to agree with the peer: one GID is IPv4 and the other IPv6, and RoCE v2 does not route between them: choose GIDs of one IP version with -g"
done

# UDP 4791 closed: the QPs connect, then nothing of a's reaches b.  The
# server's SEND is tried 7 times (6 resends, an ack timeout of about
# 1.07 s apart) and fails retry exceeded, well within its -t of 20 s; the
# client's receive, which would wait as long, ends when the server's
# program does (its connection closes).
timeout_line="rdma_rc_example: failed to get a completion: Connection reset by peer; the peer closed its connection: it ended or failed, and its own output says why"
for side in server client; do
	expect_rc "$R/udp_drop.$side.rc" 1
	expect_line "$R/udp_drop.$side.out" "Path MTU = 1024 bytes"
done
expect_line "$R/udp_drop.client.err" "$timeout_line"
expect_regex "$R/udp_drop.server.err" "^rdma_rc_example: failed completion of SEND \(wr_id 1\) on QP 0x[0-9a-f]{6}: transport retry counter exceeded \(vendor error 0x[0-9a-f]+\); no acknowledgement came back: no path to the peer's GID \(check -g and the route; on RoCE, UDP port 4791 must be open\), or the peer is gone$"
# On the link (the capture of guest a's side, before b's filter): the one
# SEND, the first try and 6 resends with its PSN, and not one more.
ROWS=$R/hints.rows
python3 "$SOURCE_DIR/scripts/wire.py" "$R/hints.pcap" \
	--peer b=192.0.2.2 --peer a=192.0.2.1 --rows "$ROWS" >"$R/hints.table" 2>&1
expect_status "$?" 0 "wire.py on the capture"
CQ=$(qpn "$R/udp_drop.server.out")
send=$(rows from=a to=b "name=RC Send Only" destqp="$CQ")
expect_status "$(cut -f5 <<<"$send" | sort -u | wc -l)" 1 "udp_drop: PSNs the SEND's tries carry"
expect_packets "udp_drop: the SEND's 7 tries" 7 7 from=a to=b "name=RC Send Only" destqp="$CQ" "psn=$(psn "$send")"
expect_packets "udp_drop: 6 of them sent again" 6 6 from=a to=b "name=RC Send Only" destqp="$CQ" "psn=$(psn "$send")" again=yes

# A netdev MTU too small: the side that has it says so where it prints the
# path MTU; the manual's messages are small enough to arrive all the same.
for side in server client; do
	expect_rc "$R/small_mtu.$side.rc" 0
	expect_line "$R/small_mtu.$side.out" "Path MTU = 256 bytes"
done
expect_empty "$R/small_mtu.server.err"
expect_line "$R/small_mtu.client.err" "rdma_rc_example: warning: eth0's MTU 300 cannot carry RoCE packets of the path MTU 256 (they need 348 bytes): messages that fill a packet will not arrive; fix: ip link set eth0 mtu 1500"

for run in healthy_a healthy_b; do
	expect_rc "$R/$run.rc" 0
	expect_regex "$R/$run.out" "^verdict: PASS: this host can do RDMA with these options"
done
finish
