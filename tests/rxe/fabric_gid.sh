#!/usr/bin/env bash
# The GID that reaches the peer, chosen without -g, on ports shaped like
# real RoCE hosts' (each change made in both guests, and undone):
#   two subnets  each port holds 10.99.0.N besides 192.0.2.N, the 10.99
#                GIDs first in the table, and RoCE from 10.99.0.0/24
#                dropped at each guest (as a router or an ACL would): with
#                -g of the 10.99 GID a run fails, as it always did; without
#                -g, rdma_rc_example, rdma_bench and rdma_check --pair take
#                the GID of the TCP connection's address and pass (the check
#                warns that the address decides);
#   a VLAN       eth0.100 over eth0 with 10.100.0.N, and untagged RoCE
#                dropped at each guest (as a switch that carries RoCE only
#                on its lossless VLAN): connected to the peer's VLAN
#                address, the three programs take the VLAN address's GID
#                and pass; connected to its untagged address, a run fails;
#   IPv6 only    the port holds fd00:99::N alone: the three programs
#                connect to it and take its RoCE v2 GID;
#   a management network  an ipip tunnel between the guests, 198.18.0.N
#                at its ends, a netdev with no GID on rxe0: connected over
#                it, the three programs take the port's one routable RoCE
#                v2 GID and pass; while the port has two, each side names
#                both with their -g and stops.
# At the end each port's table is as before: GID 1 the IPv4 RoCE v2 one.
. "$(dirname "$0")/lib.sh"

P="'$RDMA_RC_EXAMPLE'"
B="'$RDMA_BENCH'"
C="'$RDMA_CHECK'"
R=$RXE_RUNS
peer="\"\$RXE_PEER_ADDR\""
cache=${RXE_VM_CACHE:-${XDG_CACHE_HOME:-${HOME:-/var/tmp}/.cache}/rdma-rc-example/rxe-vm}
kroot=$(sed -n 's|^KERNEL=\(.*\)/boot/.*|\1|p' "$cache/current")
mp="modprobe -d '$kroot'"
gids=/sys/class/infiniband/rxe0/ports/1/gids
# The first ten slots hold every address here; reading all 1024 under TCG
# costs seconds a look.
first="$gids/[0-9]"
# wait_gid RE: until a GID of rxe0 matches RE (bounded, 20 s).
wait_gid() {
	echo "for i in \$(seq 100); do grep -q '$1' $first 2>/dev/null && break; sleep 0.2; done"
}
# no_ipv4_gids: until rxe0 has no IPv4-mapped GID left (bounded, 20 s).
no_ipv4_gids="for i in \$(seq 100); do grep -q ffff $first 2>/dev/null || break; sleep 0.2; done"
declare -A n=([a]=1 [b]=2)
declare -A v4hex=([a]=c000:0201 [b]=c000:0202)
for g in a b; do
	N=${n[$g]}
	# Undone however the script ends: the rig's one address, no filter.
	rxe_step --on $g "trap 'tc qdisc del dev eth0 ingress 2>/dev/null; ip link del eth0.100 2>/dev/null; ip link del mgmt0 2>/dev/null; if ip addr show dev eth0 | grep -q -e 10.99.0 -e fd00:99 || ! ip addr show dev eth0 | grep -q \"inet 192.0.2.$N/24\"; then ip addr flush dev eth0 scope global; ip addr add 192.0.2.$N/24 dev eth0; fi' EXIT
trap 'exit 143' TERM"
	# The other subnet first in the GID table, the shared one after it.
	rxe_step --on $g "ip addr del 192.0.2.$N/24 dev eth0 && ip addr add 10.99.0.$N/24 dev eth0 && ip addr add 192.0.2.$N/24 dev eth0 && $(wait_gid "ffff:${v4hex[$g]}\$")"
	rxe_step --on $g "$mp sch_ingress && $mp cls_u32 && $mp act_gact && tc qdisc add dev eth0 ingress && tc filter add dev eth0 ingress protocol ip prio 1 u32 match ip src 10.99.0.0/24 match ip protocol 17 0xff match ip dport 4791 0xffff action drop"
	rxe_step --on $g "for i in 0 1 2 3 4 5; do echo \"\$i \$(cat $gids/\$i)\"; done >$R/table.$g.txt"
done
# The management network: an ipip tunnel between the 192.0.2 addresses.
declare -A other=([a]=2 [b]=1)
for g in a b; do
	rxe_step --on $g "$mp ipip && ip link add mgmt0 type ipip local 192.0.2.${n[$g]} remote 192.0.2.${other[$g]} && ip addr add 198.18.0.${n[$g]}/24 dev mgmt0 && ip link set mgmt0 up"
done
# TCP over it while the port has two routable GIDs: nothing decides.
rxe_pair mgmt_two --on a b "$P -p 20072 --accept-timeout 60" \
	"$P -p 20072 --connect-timeout 60 198.18.0.1"
# -g 1, the 10.99 RoCE v2 GID on both sides: its RoCE is dropped. The
# server waits longer than the client, so that the client's own bound
# ends the run, not the server closing first.
rxe_pair given --on a b "$P -g 1 -t 8 -p 20060 --accept-timeout 60" \
	"$P -g 1 -t 4 -p 20060 --connect-timeout 60 $peer"
# rdma_check --pair with the same -g: it says that -g 1 is not the GID of
# the TCP connection's address, and which one is.
rxe_pair check_given --on a b "$C --pair -g 1 -t 4 -p 20067 --accept-timeout 60" \
	"$C -g 1 -t 4 -p 20067 --connect-timeout 60 $peer"
# programs SUFFIX PORT ADDR: rdma_rc_example, rdma_bench lat and rdma_check
# --pair, each server on a, each client on b connecting to ADDR, on ports
# PORT to PORT+2; the runs are rcSUFFIX, benchSUFFIX and checkSUFFIX.
programs() {
	local run port=$2
	for run in "rc:$P" "bench:$B lat -n 200" "check:$C"; do
		local pair=${run%%:*} cmd=${run#*:} server_only=
		[ "$pair" = check ] && server_only=--pair
		rxe_pair "$pair$1" --on a b \
			"$cmd $server_only -p $port --accept-timeout 60" \
			"$cmd -p $port --connect-timeout 60 $3"
		port=$((port + 1))
	done
}
programs "" 20061 "$peer"
# A VLAN: its address's GIDs join the table; only tagged RoCE gets through
# (a tagged frame is not protocol ip to tc, its VLAN's is).
for g in a b; do
	N=${n[$g]}
	rxe_step --on $g "$mp 8021q && ip link add link eth0 name eth0.100 type vlan id 100 && ip addr add 10.100.0.$N/24 dev eth0.100 && ip link set eth0.100 up && $(wait_gid "ffff:0a64:000$N\$")"
	rxe_step --on $g "tc qdisc del dev eth0 ingress; tc qdisc add dev eth0 ingress && tc filter add dev eth0 ingress protocol ip prio 1 u32 match ip protocol 17 0xff match ip dport 4791 0xffff action drop"
	rxe_step --on $g "for i in 0 1 2 3 4 5; do echo \"\$i \$(cat $gids/\$i) \$(cat ${gids%/gids}/gid_attrs/ndevs/\$i 2>/dev/null)\"; done >$R/vlan_table.$g.txt"
done
programs v 20068 10.100.0.1
rxe_pair untagged --on a b "$P -t 8 -p 20071 --accept-timeout 60" \
	"$P -t 4 -p 20071 --connect-timeout 60 $peer"
for g in a b; do
	rxe_step --on $g "ip link del eth0.100"
done
# IPv6 only: no IPv4 address on the port at all.
for g in a b; do
	N=${n[$g]}
	rxe_step --on $g "tc qdisc del dev eth0 ingress; ip addr flush dev eth0 scope global && ip -6 addr add fd00:99::$N/64 dev eth0 nodad && $(wait_gid "^fd00:0099:0000:0000:0000:0000:0000:000$N\$") && $no_ipv4_gids"
done
programs 6 20064 fd00:99::1
# Back to the rig's one address: its GIDs take slots 0 and 1 again.
for g in a b; do
	N=${n[$g]}
	rxe_step --on $g "ip addr flush dev eth0 scope global && ip addr add 192.0.2.$N/24 dev eth0 && $(wait_gid "ffff:${v4hex[$g]}\$") && cat $gids/1 >$R/gid1.$g.txt"
done
# TCP over the tunnel, the port's one routable GID its 192.0.2 one.
programs m 20074 198.18.0.1
rxe_go fabric_gid 300
R=$RXE_RUNS

echo "--- two subnets: the other one's GIDs first, its RoCE dropped"
for g in a b; do
	expect_line "$R/table.$g.txt" "1 0000:0000:0000:0000:0000:ffff:0a63:000${n[$g]}"
	expect_line "$R/table.$g.txt" "2 0000:0000:0000:0000:0000:ffff:${v4hex[$g]}"
done
# -g as given: the path is dropped, and the run says so, as before.
expect_rc "$R/given.client.rc" 1
expect_regex "$R/given.client.err" "^rdma_rc_example: (failed completion of .*transport retry counter exceeded|failed to get a completion within 4000 ms)"
# The server, still waiting, stops when the client's connection closes.
expect_rc "$R/given.server.rc" 1
expect_regex "$R/given.server.err" "^rdma_rc_example: failed to get a completion: .*the peer closed its connection"
expect_no_text "$R/given.client.out" "using GID index"
for s in server:1 client:2; do
	side=${s%:*} N=${s#*:}
	expect_rc "$R/check_given.$side.rc" 1
	expect_regex "$R/check_given.$side.out" "^WARN gid-path +-g 1 is 10\.99\.0\.$N, but the TCP connection to the peer goes from 192\.0\.2\.$N \(GID index 2\): RDMA takes another path than TCP, which may not reach the peer; fix: -g 2, or leave -g out"
	expect_regex "$R/check_given.$side.out" "^verdict: FAIL"
done
# Without -g: the GID of the TCP connection's own address, on both sides.
for s in server:1 client:2; do
	side=${s%:*} N=${s#*:}
	expect_rc "$R/rc.$side.rc" 0
	expect_line "$R/rc.$side.out" "using GID index 2 (RoCE v2, ::ffff:192.0.2.$N), the address of the TCP connection to the peer"
	expect_rc "$R/bench.$side.rc" 0
	expect_line "$R/bench.$side.out" "using GID index 2 (RoCE v2, ::ffff:192.0.2.$N), the address of the TCP connection to the peer"
	expect_rc "$R/check.$side.rc" 0
	expect_regex "$R/check.$side.out" "^verdict: PASS"
	expect_regex "$R/check.$side.out" "^WARN gid-choice +2 GIDs with addresses \\(1 ::ffff:10\\.99\\.0\\.$N, 2 ::ffff:192\\.0\\.2\\.$N\\): without -g each run takes the one of the address its TCP connection uses; fix: "
done
expect_line "$R/rc.client.out" "Contents of server's buffer: 'RDMA read operation'"
expect_line "$R/rc.server.out" "Contents of server buffer: 'RDMA write operation'"
expect_regex "$R/bench.client.out" "^ 2 +200 +[0-9.]+ "

echo "--- a VLAN: the GID of the VLAN address; untagged RoCE dropped"
# The VLAN address's GID is on the VLAN netdev, and is the one the runs took.
for g in a b; do
	expect_line "$R/vlan_table.$g.txt" "3 0000:0000:0000:0000:0000:ffff:0a64:000${n[$g]} eth0.100"
done
for s in server:1 client:2; do
	side=${s%:*} N=${s#*:}
	expect_rc "$R/rcv.$side.rc" 0
	expect_line "$R/rcv.$side.out" "using GID index 3 (RoCE v2, ::ffff:10.100.0.$N), the address of the TCP connection to the peer"
	expect_rc "$R/benchv.$side.rc" 0
	expect_line "$R/benchv.$side.out" "using GID index 3 (RoCE v2, ::ffff:10.100.0.$N), the address of the TCP connection to the peer"
	expect_rc "$R/checkv.$side.rc" 0
	expect_regex "$R/checkv.$side.out" "^verdict: PASS"
done
expect_line "$R/rcv.client.out" "Contents of server's buffer: 'RDMA read operation'"
# The untagged path: its RoCE never arrives.
expect_rc "$R/untagged.client.rc" 1
expect_regex "$R/untagged.client.err" "^rdma_rc_example: (failed completion of .*transport retry counter exceeded|failed to get a completion within 4000 ms)"

echo "--- IPv6 only: the port's fd00:99:: address and its GID"
for s in server:1 client:2; do
	side=${s%:*} N=${s#*:}
	expect_rc "$R/rc6.$side.rc" 0
	expect_regex "$R/rc6.$side.out" "^using GID index [0-9]+ \\(RoCE v2, fd00:99::$N\\), the address of the TCP connection to the peer$"
	expect_rc "$R/bench6.$side.rc" 0
	expect_regex "$R/bench6.$side.out" "^using GID index [0-9]+ \\(RoCE v2, fd00:99::$N\\), the address of the TCP connection to the peer$"
	expect_rc "$R/check6.$side.rc" 0
	expect_regex "$R/check6.$side.out" "^verdict: PASS"
done
expect_line "$R/rc6.client.out" "Remote GID = fd00:99::1"
expect_line "$R/rc6.server.out" "Remote GID = fd00:99::2"

echo "--- a management network: TCP over a tunnel, RDMA over eth0"
# Two routable GIDs: each side names both, and neither connects a QP.
for s in server:1 client:2; do
	side=${s%:*} N=${s#*:}
	expect_rc "$R/mgmt_two.$side.rc" 1
	expect_line "$R/mgmt_two.$side.err" "rdma_rc_example: failed to choose a GID of rxe0 port 1: the TCP connection to the peer uses 198.18.0.$N, an address of no GID of this port, and the port has several routable RoCE v2 GIDs (-g 1 ::ffff:10.99.0.$N (RoCE v2, eth0); -g 2 ::ffff:192.0.2.$N (RoCE v2, eth0)); give the -g of the one the peer can reach"
	expect_no_text "$R/mgmt_two.$side.out" "using GID index"
done
# One: the three programs take it, say why, and pass.
for s in server:1 client:2; do
	side=${s%:*} N=${s#*:}
	why="using GID index 1 (RoCE v2, ::ffff:192.0.2.$N), the port's one routable RoCE v2 GID: the TCP connection to the peer uses 198.18.0.$N, an address of another network"
	expect_rc "$R/rcm.$side.rc" 0
	expect_line "$R/rcm.$side.out" "$why"
	expect_rc "$R/benchm.$side.rc" 0
	expect_line "$R/benchm.$side.out" "$why"
	expect_rc "$R/checkm.$side.rc" 0
	expect_regex "$R/checkm.$side.out" "^PASS gid-path +the TCP connection to the peer goes from 198\.18\.0\.$N, an address of no GID of this port: TCP runs over another network than RDMA, which takes GID index 1, 192\.0\.2\.$N, the port's one routable RoCE v2 GID$"
	expect_regex "$R/checkm.$side.out" "^verdict: PASS"
done
expect_line "$R/rcm.client.out" "Contents of server's buffer: 'RDMA read operation'"
expect_line "$R/rcm.server.out" "Contents of server buffer: 'RDMA write operation'"
expect_regex "$R/benchm.client.out" "^ 2 +200 +[0-9.]+ "

echo "--- the rig's table again"
for g in a b; do
	expect_line "$R/gid1.$g.txt" "0000:0000:0000:0000:0000:ffff:${v4hex[$g]}"
done
finish
