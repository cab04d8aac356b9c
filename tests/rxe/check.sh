#!/usr/bin/env bash
# rdma_check on the pair of guests: every check passes on a healthy pair and
# on each guest alone; then each fault is really made, the check that
# finds it fails with its fix, and the guest is put back as it was:
#   pair:  healthy over the TCP exchange and with -R (RDMA_CM);
#          GIDs of two IP families, RoCE packets dropped (no path: retry
#          exceeded), nothing listening, SYNs dropped (a tc
#          filter on guest a drops TCP to the port: the rig has no
#          iptables or nft, and tc filters need no netfilter), every
#          fifth RoCE packet of b's dropped at a (a lossy link: the
#          loss check fails, or warns under --max-lost), b's RoCE frames
#          of 1024 bytes and more dropped at a (the path check names the
#          way and -m 512, with which the pair passes; rdma_bench -a
#          names the path MTU where its sizes stop);
#   a:     port DOWN, rdma_ucm unloaded with -R, no RDMA device, then
#          siw0 ahead of rxe0 in the device list;
#   b:     netdev MTU too small, -g at an empty index, locked memory.
# Each guest's faults are undone in its own script, and a trap undoes
# them if the script ends early; the last runs prove both guests healthy.
. "$(dirname "$0")/lib.sh"

P="'$RDMA_CHECK'"
R=$RXE_RUNS
peer="\"\$RXE_PEER_ADDR\""
# The guest kernel's module tree, where rxe-vm unpacked it: the host
# root the guests run in has no /lib/modules of its own.
cache=${RXE_VM_CACHE:-${XDG_CACHE_HOME:-${HOME:-/var/tmp}/.cache}/rdma-rc-example/rxe-vm}
kroot=$(sed -n 's|^KERNEL=\(.*\)/boot/.*|\1|p' "$cache/current")
mp="modprobe -d '$kroot'"
# Wait (bounded) until rxe0's port is ACTIVE with its two GIDs again.
healthy="for i in \$(seq 100); do grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state 2>/dev/null && grep -qv '^0000:0000:0000:0000:0000:0000:0000:0000\$' /sys/class/infiniband/rxe0/ports/1/gids/0 && grep -q ffff /sys/class/infiniband/rxe0/ports/1/gids/1 && break; sleep 0.2; done"
# siw0 on eth1 when the guests were started with --siw (eth1 is there).
siw_back="[ ! -e /sys/class/net/eth1 ] || rdma link show siw0/1 >/dev/null 2>&1 || rdma link add siw0 type siw netdev eth1"
restore="$siw_back; ip link set eth0 up; ip link set eth0 mtu 1500; tc qdisc del dev eth0 ingress 2>/dev/null; rdma link show rxe0/1 >/dev/null 2>&1 || rdma link add rxe0 type rxe netdev eth0; [ -e /dev/infiniband/rdma_cm ] || $mp rdma_ucm"
for g in a b; do
	rxe_step --on $g "trap '$restore' EXIT
trap 'exit 143' TERM"
done

# The healthy pair, and each guest alone.
rxe_pair pair --on a b "$P --pair -p 19980 --accept-timeout 60 --json '$R/pair.server.json'" \
	"$P -p 19980 --connect-timeout 60 --json '$R/pair.client.json' $peer"
# -g 0 (link-local IPv6) on a, -g 1 (IPv4-mapped) on b.
rxe_pair family --on a b "$P --pair -g 0 -p 19981 --accept-timeout 60" \
	"$P -g 1 -p 19981 --connect-timeout 60 $peer"
# -R: RDMA_CM connects the pair's QP.
rxe_pair cm --on a b "$P -R --pair -p 19984 --accept-timeout 60" \
	"$P -R -p 19984 --connect-timeout 60 $peer"
# Nothing listens on a's port 19982.
rxe_solo refused --on b "$P -p 19982 --connect-timeout 3 $peer"
# The same on a busy guest (two CPU-bound loops beside it): the attempt
# the deadline cuts short must not turn the refusals into "dropped".
rxe_step --on b "yes >/dev/null & hog1=\$!; yes >/dev/null & hog2=\$!"
rxe_solo refused_busy --on b "$P -p 19982 --connect-timeout 3 $peer"
rxe_step --on b "kill \$hog1 \$hog2"
# a drops every TCP packet to its port 19983; b waits until it does.
rxe_start drop_on --on a "bash -c \"$mp sch_ingress && $mp cls_u32 && $mp act_gact && tc qdisc add dev eth0 ingress && tc filter add dev eth0 ingress protocol ip prio 1 u32 match ip protocol 6 0xff match ip dport 19983 0xffff action drop && echo dropping\""
rxe_end drop_on --on a
rxe_wait_text drop_on dropping --on b
rxe_solo dropped --on b "$P -p 19983 --connect-timeout 4 $peer"
rxe_start dropped_seen --on b "echo seen"
rxe_end dropped_seen --on b
rxe_wait_text dropped_seen seen --on a
rxe_step --on a "tc qdisc del dev eth0 ingress"
# b drops the RoCE v2 packets (UDP 4791) that reach it: TCP and the QP
# connection work, but a's SEND never arrives, and neither side's
# completion comes within -t (rxe reports no retry exceeded in that time).
rxe_step --on b "$mp sch_ingress && $mp cls_u32 && $mp act_gact && tc qdisc add dev eth0 ingress && tc filter add dev eth0 ingress protocol ip prio 1 u32 match ip protocol 17 0xff match ip dport 4791 0xffff action drop"
rxe_pair no_path --on a b "$P --pair -t 6 -p 19985 --accept-timeout 60" \
	"$P -t 4 -p 19985 --connect-timeout 60 $peer"
rxe_step --on b "tc qdisc del dev eth0 ingress"
# a drops the RoCE packets from b of 1024 to 2047 bytes (the IP header's
# length), as a switch port or a tunnel with a smaller MTU would: the
# operations' small messages pass, b's 1024-byte WRITEs do not; with -m
# 512 the pair passes.
rxe_step --on a "$mp sch_ingress && $mp cls_u32 && $mp act_gact && tc qdisc add dev eth0 ingress && tc filter add dev eth0 ingress protocol ip prio 1 u32 match ip src 192.0.2.2/32 match ip protocol 17 0xff match ip dport 4791 0xffff match u16 0x0400 0xfc00 at 2 action drop"
rxe_pair mtu_hole --on a b "$P --pair -p 19988 --accept-timeout 60" \
	"$P -p 19988 --connect-timeout 60 $peer"
rxe_pair mtu_capped --on a b "$P --pair -m 512 -p 19989 --accept-timeout 60" \
	"$P -m 512 -p 19989 --connect-timeout 60 $peer"
# rdma_bench over the same path, every size from 2 bytes: 512 passes,
# 1024 fills a frame and never arrives; the client names the path MTU.
rxe_pair bench_hole --on a b "'$RDMA_BENCH' lat --op send -a -n 5 -p 19990 --accept-timeout 60" \
	"'$RDMA_BENCH' lat --op send -a -n 5 -p 19990 --connect-timeout 60 $peer"
rxe_step --on a "tc qdisc del dev eth0 ingress"
# a drops every fifth RoCE packet from b: each request of b's gets
# through when sent again, and the loss check counts what was lost.
rxe_step --on a "$mp sch_ingress && $mp cls_u32 && $mp act_gact && tc qdisc add dev eth0 ingress && tc filter add dev eth0 ingress protocol ip prio 1 u32 match ip src 192.0.2.2/32 match ip protocol 17 0xff match ip dport 4791 0xffff action gact pass random determ drop 5"
rxe_pair lossy --on a b "$P --pair -p 19986 --accept-timeout 60" \
	"$P -p 19986 --connect-timeout 60 $peer"
rxe_pair lossy_allowed --on a b "$P --pair --max-lost 1000 -p 19987 --accept-timeout 60" \
	"$P --max-lost 1000 -p 19987 --connect-timeout 60 $peer"
rxe_step --on a "tc qdisc del dev eth0 ingress"

# Guest a: port DOWN, rdma_ucm unloaded with -R, no RDMA device.
rxe_step --on a "ip link set eth0 down; sleep 1"
rxe_solo down --on a "$P"
rxe_step --on a "ip link set eth0 up; $healthy"
rxe_step --on a "rmmod rdma_ucm"
rxe_solo no_ucm --on a "$P -R"
rxe_step --on a "$mp rdma_ucm"
# The rig's siw0 too, when the guests have it: no device at all.
rxe_step --on a "rdma link delete rxe0; ! rdma link show siw0/1 >/dev/null 2>&1 || rdma link delete siw0"
rxe_solo no_device --on a "$P"
# siw0 back first, rxe0 after it: siw0 heads the device list, and the
# check without -d speaks of rxe0, the device a run takes. Then both go
# again and come back in the rig's order, rxe0 first (perftest without -d
# takes the first device).
rxe_step --on a "$siw_back; rdma link add rxe0 type rxe netdev eth0; $healthy"
rxe_solo siw_first --on a "$P"
rxe_step --on a "rdma link delete rxe0; ! rdma link show siw0/1 >/dev/null 2>&1 || rdma link delete siw0; rdma link add rxe0 type rxe netdev eth0; $siw_back; $healthy"
rxe_solo healthy --on a "$P -R --json '$R/healthy.json'"

# Guest b: the netdev's MTU below what 256-byte RoCE packets need, -g at
# an empty index, locked memory without CAP_IPC_LOCK (the guests run as
# root, which the limit does not bind).
rxe_step --on b "ip link set eth0 mtu 300; sleep 1"
rxe_solo small_mtu --on b "$P"
rxe_step --on b "ip link set eth0 mtu 1500; $healthy"
rxe_solo empty_gid --on b "$P -g 200"
nocap="setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock bash -c"
rxe_solo memlock_8k --on b "$nocap \"ulimit -l 8 && exec '$RDMA_CHECK'\""
rxe_solo memlock_0 --on b "$nocap \"ulimit -l 0 && exec '$RDMA_CHECK'\""
rxe_solo healthy_b --on b "$P"
# siw0 (iWARP) without -R: the transport line says -R is missing, once;
# the other checks say what holds on iWARP.
rxe_solo siw_no_cm --on b "$P -d siw0"
rxe_go check 240

# PASS lines only, and the verdict, on a healthy pair.
for side in server client; do
	out=$R/pair.$side.out
	expect_rc "$R/pair.$side.rc" 0
	expect_no_text "$out" "FAIL "
	for c in uverbs devices device transport port link-layer gid-table gid mtu memlock atomics mem-window sge srq resources transports rdma-cm tcp exchange gid-pair path-mtu connect send read write atomic path loss; do
		expect_regex "$out" "^PASS $c +[^ ]"
	done
	expect_regex "$out" "^verdict: PASS: these two hosts can do RDMA with these options"
	expect_text "$R/pair.$side.json" '"verdict": "PASS", "scope": "these two hosts"'
	expect_text "$R/pair.$side.json" '{"name": "atomic", "status": "PASS", "value": "fetch_add '
done
expect_regex "$R/pair.client.out" "^PASS tcp +connected to 192.0.2.1 port 19980 in [0-9]+ ms$"
# The device's transport: soft-RoCE rules out no lesson.
expect_line "$R/pair.client.out" "PASS transport   IBV_TRANSPORT_IB: every lesson, over the TCP exchange or -R"
expect_regex "$R/pair.client.out" "^PASS gid-pair +both RoCE v2 IPv4: ours ::ffff:192.0.2.2, the peer's ::ffff:192.0.2.1, routed from 192.0.2.2$"
expect_regex "$R/pair.client.out" "^PASS send +send done in [0-9]+ ms$"
# What soft-RoCE offers for SGE lists and shared receive queues.
expect_regex "$R/pair.client.out" "^PASS sge +max_sge 32 a work request: rdma_lessons --ops sge posts 3$"
expect_regex "$R/pair.client.out" "^PASS srq +max_srq [1-9][0-9]*, up to [1-9][0-9]* receives each \\(max_srq_wr\\): rdma_lessons --srq$"
# Both ports count: no packet lost either way on the rig's link (a resend
# the peer got twice, a busy guest's late ack, is none).
expect_regex "$R/pair.client.out" "^PASS loss +none either way over the pair's transfers \(both ports' counters; resends: this side [0-9]+, the peer [0-9]+\)$"
# The steps' own lines (the remote address, the messages) stay out.
expect_no_text "$R/pair.client.out" "Remote address"

for side in server client; do
	expect_rc "$R/cm.$side.rc" 0
	expect_regex "$R/cm.$side.out" "^PASS connect +RDMA_CM connected QP 0x[0-9a-f]{6} and synced in [0-9]+ ms$"
	expect_regex "$R/cm.$side.out" "^PASS atomic "
	expect_regex "$R/cm.$side.out" "^PASS loss +none either way "
	expect_regex "$R/cm.$side.out" "^verdict: PASS: these two hosts can do RDMA with these options"
done
expect_regex "$R/cm.client.out" "^PASS gid-pair +RDMA_CM resolved the path: ours ::ffff:192.0.2.2, the peer's ::ffff:192.0.2.1$"

# GIDs of two families: both sides refuse before RTR.
for side in server client; do
	expect_rc "$R/family.$side.rc" 1
	expect_regex "$R/family.$side.out" "^FAIL gid-pair .*one GID is IPv4 and the other IPv6.*; fix: the same -g on both sides"
	expect_regex "$R/family.$side.out" "^verdict: FAIL: these two hosts cannot do RDMA with these options \(failed: gid-pair;"
	expect_no_text "$R/family.$side.out" "PASS connect"
done

expect_rc "$R/refused.rc" 1
expect_regex "$R/refused.out" "^FAIL tcp +192.0.2.1 port 19982 refused the connection for 3 s: nothing listens there; fix: start rdma_check --pair -p 19982 on 192.0.2.1 first$"
expect_rc "$R/refused_busy.rc" 1
expect_regex "$R/refused_busy.out" "^FAIL tcp +192.0.2.1 port 19982 refused the connection for 3 s: nothing listens there"
expect_rc "$R/dropped.rc" 1
expect_regex "$R/dropped.out" "^FAIL tcp +no answer from 192.0.2.1 port 19983 within 4 s: the packets are dropped on the way; fix: let TCP port 19983 through the firewall"
for run in refused dropped; do
	ms=$(cat "$R/$run.ms")
	if [ "$ms" -lt 60000 ]; then expect_status 0 0 "$run ended in $ms ms (bound 60000)"; else expect_status "$ms" "< 60000" "$run: ms"; fi
done

# No path between the GIDs: the pair's first operation fails on both
# sides, each saying why, and nothing runs after it.
for side in server client; do
	expect_rc "$R/no_path.$side.rc" 1
	expect_regex "$R/no_path.$side.out" "^PASS connect "
	expect_no_text "$R/no_path.$side.out" "PASS read"
	expect_regex "$R/no_path.$side.out" "^verdict: FAIL: these two hosts cannot do RDMA with these options \(failed: send;"
done
# The path check: every frame size crossed both ways on the healthy pair;
# through the small-MTU filter the client's 1024-byte WRITEs never
# arrived, and both sides name the way, the size that passed and -m.
expect_regex "$R/pair.client.out" "^PASS path +frames of 256 to 1024 bytes \(the path MTU\) crossed both ways one at a time, and 4 frames back to back: WRITEs toward the server, READ responses toward the client$"
hole="frames of 1024 bytes never arrived from %s toward %s, as WRITEs, while frames of 512 bytes did: the path carries a smaller MTU than the ports' 1024 one way, and every transfer that fills a frame fails; fix: -m 512 \\(rdma_check, rdma_bench\\), or give the switch ports, tunnel or VLAN on that way an MTU of 1116 bytes"
# shellcheck disable=SC2059 # the format is ours
expect_regex "$R/mtu_hole.client.out" "^FAIL path +$(printf "$hole" "this side \\(the client\\)" "the server")"
# shellcheck disable=SC2059
expect_regex "$R/mtu_hole.server.out" "^FAIL path +$(printf "$hole" "the client" "this side \\(the server\\)")"
for side in server client; do
	expect_rc "$R/mtu_hole.$side.rc" 1
	expect_regex "$R/mtu_hole.$side.out" "^PASS write "
	expect_regex "$R/mtu_hole.$side.out" "^verdict: FAIL: these two hosts cannot do RDMA with these options \(failed: path;"
	expect_rc "$R/mtu_capped.$side.rc" 0
	expect_regex "$R/mtu_capped.$side.out" "^PASS path-mtu +512 bytes, as -m asks \(this port's active MTU: 1024\)$"
	expect_regex "$R/mtu_capped.$side.out" "^PASS path +frames of 256 to 512 bytes \(the path MTU\) crossed both ways"
done
expect_rc "$R/bench_hole.client.rc" 1
expect_regex "$R/bench_hole.client.out" "^ 512 +5 "
expect_line "$R/bench_hole.client.err" "rdma_bench: the path MTU is the likely cause: messages of 512 bytes passed and of 1024 bytes, which fill frames of the path MTU 1024, did not: a switch port or a tunnel on the way carries less than the ports; try -m 512, and rdma_check --pair names the way"
# A lossy link: every operation passes (RC sends again), and both sides
# name the packets b lost toward a, each from its own side; with
# --max-lost above the count, a warning.
lost="([1-9][0-9]*)"
expect_rc "$R/lossy.client.rc" 1
expect_regex "$R/lossy.client.out" "^PASS atomic "
expect_regex "$R/lossy.client.out" "^FAIL loss +packets lost: $lost of this side's toward the peer, 0 of the peer's toward this side \(resends: this side $lost, the peer [0-9]+\), by the ports' counters over the pair's transfers; fix: look at the link from the side whose packets were lost: .*; to accept this many, --max-lost $lost$"
expect_rc "$R/lossy.server.rc" 1
expect_regex "$R/lossy.server.out" "^FAIL loss +packets lost: 0 of this side's toward the peer, $lost of the peer's toward this side "
expect_regex "$R/lossy.server.out" "^verdict: FAIL: these two hosts cannot do RDMA with these options \(failed: loss;"
for side in server client; do
	expect_rc "$R/lossy_allowed.$side.rc" 0
	expect_regex "$R/lossy_allowed.$side.out" "^WARN loss +packets lost: .*, by the ports' counters over the pair's transfers \(at most 1000 allowed by --max-lost\); fix: "
done
# The side whose wait ends first says why; the other hears its connection
# close then, not -t later, and points at its peer's lines.
nothing="send failed after [0-9]+ ms: no completion within the timeout \(-t\): the packets do not arrive \(no path between the GIDs\), or the peer is stuck or gone; fix: check that each host reaches the other's GID address"
for side in server client; do
	expect_regex "$R/no_path.$side.out" "^FAIL send +($nothing|send failed after [0-9]+ ms: the peer closed the TCP connection: see its own lines)"
done
cat "$R/no_path.server.out" "$R/no_path.client.out" >"$R/no_path.both.out"
expect_regex "$R/no_path.both.out" "^FAIL send +$nothing"

expect_rc "$R/down.rc" 1
expect_regex "$R/down.out" "^FAIL port +port 1 of rxe0: down, physical state Disabled, netdev eth0; fix: ip link set eth0 up$"
expect_rc "$R/no_ucm.rc" 1
expect_regex "$R/no_ucm.out" "^FAIL rdma-cm +/dev/infiniband/rdma_cm: No such file or directory: the kernel module rdma_ucm is not loaded; fix: modprobe rdma_ucm$"
expect_rc "$R/no_device.rc" 1
expect_regex "$R/no_device.out" "^FAIL devices +no RDMA device found; fix: .*rdma link add rxe0 type rxe netdev eth0$"
expect_rc "$R/small_mtu.rc" 1
expect_regex "$R/small_mtu.out" "^FAIL mtu +active 256 bytes, but eth0's MTU 300 cannot carry it .*; fix: ip link set eth0 mtu 1500$"
expect_rc "$R/empty_gid.rc" 1
expect_regex "$R/empty_gid.out" "^FAIL gid +-g 200: an empty slot, no address .*; fix: -g 1, or leave -g out"
# 8 KiB holds the one page a run registers: the check says so, and the
# real registration (resources) agrees; with 0 both fail.
expect_rc "$R/memlock_8k.rc" 0
expect_regex "$R/memlock_8k.out" "^PASS memlock +limit 8 KiB, a run registers 4 KiB"
expect_regex "$R/memlock_8k.out" "^PASS resources "
expect_rc "$R/memlock_0.rc" 1
expect_regex "$R/memlock_0.out" "^FAIL memlock +limit 0 KiB, a run registers 4 KiB: ibv_reg_mr will fail; fix: ulimit -l unlimited"
expect_regex "$R/memlock_0.out" "^FAIL resources "
for run in down no_ucm no_device small_mtu empty_gid memlock_0; do
	expect_regex "$R/$run.out" "^verdict: FAIL: this host cannot do RDMA with these options"
done

# siw0 listed first: the check takes the device a run takes, rxe0, and
# every check of it passes.
F=$R/siw_first.out
expect_rc "$R/siw_first.rc" 0
expect_regex "$F" "^PASS devices +2 found: siw0, rxe0$"
expect_regex "$F" "^PASS device +rxe0 \(the first one that is not iWARP, without -d\), 1 port, "
expect_line "$F" "PASS transport   IBV_TRANSPORT_IB: every lesson, over the TCP exchange or -R"
expect_no_text "$F" "FAIL "
expect_regex "$F" "^verdict: PASS: this host can do RDMA with these options"

# Both guests healthy again after their faults.
for run in healthy healthy_b; do
	expect_rc "$R/$run.rc" 0
	expect_no_text "$R/$run.out" "FAIL "
	expect_regex "$R/$run.out" "^verdict: PASS: this host can do RDMA with these options"
done
expect_regex "$R/healthy.out" "^PASS rdma-cm "
expect_text "$R/healthy.json" '"verdict": "PASS", "scope": "this host"'

# iWARP without -R: one FAIL, the transport's; no GRH on iWARP, and the
# resources a run with -R would create are created.
S=$R/siw_no_cm.out
expect_rc "$R/siw_no_cm.rc" 1
expect_regex "$S" "^FAIL transport +iWARP \(IBV_TRANSPORT_IWARP\): connects only with -R.*; fix: add -R$"
# siw's WRITEs are not acknowledged (no two_mr), its lists are long enough.
expect_regex "$S" "^FAIL transport .*, no access NAK \(--ops two_mr\), .*; fix: add -R$"
expect_regex "$S" "^PASS sge +max_sge [0-9]+ a work request: rdma_lessons --ops sge posts 3$"
expect_regex "$S" "^PASS link-layer +Ethernet: iWARP, RDMAP in TCP segments \(MPA, DDP\), no GRH"
expect_no_text "$S" "carries a GRH"
expect_regex "$S" "^PASS resources +PD, MR of [0-9]+ bytes, CQ, RC QP 0x[0-9a-f]{6} created \(as a run with -R creates them\)$"
expect_regex "$S" "^verdict: FAIL: this host cannot do RDMA with these options \(failed: transport;"
expect_no_text "$R/siw_no_cm.err" "without -R"
finish
