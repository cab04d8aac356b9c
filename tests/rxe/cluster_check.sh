#!/usr/bin/env bash
# rdma_cluster_check (the build's, the very file the package installs) on
# four guests of its own, one link through the rig's switch, reached by
# ClusterShell's exec worker with `rxe-vm exec --raw` and %h: the same
# tool that runs over ssh on a real cluster.  Each fault is made for real
# in the guests and undone after its run:
#   healthy      every pair of the four passes (all: 3 rounds), exit 0;
#                its picture has no fault's colour;
#   faults       RoCE v2 (UDP 4791) from a dropped at b, and c's egress
#                shaped to 3 Mbit/s by tc tbf, at once: only a-b fails as
#                a link, c's pairs fail the bandwidth floor with their
#                figures and c is named, a-d and b-d pass; the picture
#                blacks a-b and frames c's pairs in magenta;
#   sweep        a-b's drop kept, every RoCE packet dropped at d: the
#                ring, then the suspects' other pairs find d as a host
#                and a-b as a link;
#   mtu          RoCE frames of 1024 bytes and more from a dropped at d
#                (a switch port with a smaller MTU), c's MTU 700: a-d's
#                pair check fails its path check, which names an MTU
#                black hole at 1024 bytes toward d and -m 512; b-c passes
#                with c's path-mtu warning;
#   reach        a fifth host the runner has no guest for, and d without
#                the program: each named as what it is; c's rdma_check
#                gives no port rate, so a share floor fails its pair;
#   usage        -g -1: rdma_check's own usage line, once, exit 2;
#   loss         one RoCE packet in 200 from a dropped at b (tc gact's
#                determ drop), pair a-b alone: b's port counters see the
#                gaps, a's the resends; the pair fails as a lossy link
#                with the count of a's packets lost toward b, framed green
#                in the picture; with --max-lost above the count, a
#                warning and exit 0.  The healthy run above loses no
#                packet on any pair (a resend its peer got twice, a late
#                ack of a busy guest, is no loss);
#   routed       not the cluster check: a RoCE v2 path through a router,
#                on the same boot (a in 10.1.0.0/24, b in 10.2.0.0/24, d
#                routing): rdma_rc_example, rdma_bench and rdma_check
#                --pair between a and b take their routed address's GID
#                and pass, and d forwarded their packets;
#   interrupted  SIGINT in the second round: exit 130, the first round's
#                pair in the report and the JSON, marked incomplete, and
#                no rdma_check or rdma_bench left on any guest;
#   down         c's eth0 down and d's QEMU stopped (SIGSTOP), pairs a-b
#                and c-d: c named with its FAIL line and fix, d as not
#                answering within the bound, c-d skipped (grey in the
#                picture), a-b run and passed.
. "$(dirname "$0")/lib.sh"

: "${SOURCE_DIR:?}" "${BUILD_DIR:?}" "${RDMA_CHECK:?}" "${RDMA_BENCH:?}"
rxe_plain_programs
CLUSTER_CHECK=$BUILD_DIR/rdma_cluster_check
[ -x "$CLUSTER_CHECK" ] || { echo "FAIL: no $CLUSTER_CHECK (build it)"; exit 1; }
P=rdma_cluster_check
session=$BUILD_DIR/cluster-session
trap '"$RXE_VM" stop "$session" >/dev/null 2>&1' EXIT
R=$RXE_OUT_DIR
cache=${RXE_VM_CACHE:-${XDG_CACHE_HOME:-${HOME:-/var/tmp}/.cache}/rdma-rc-example/rxe-vm}
kroot=$(sed -n 's|^KERNEL=\(.*\)/boot/.*|\1|p' "$cache/current")
mp="modprobe -d '$kroot'"
hosts='192.0.2.[1-4]'
A=192.0.2.1 B=192.0.2.2 C=192.0.2.3 D=192.0.2.4

if ! "$RXE_VM" start --fresh --guests 4 "$session" >"$R/start.log" 2>&1; then
	cat "$R/start.log"
	echo "FAIL: the four guests did not boot"
	exit 1
fi

# on G CMD: run CMD in guest G (name or address), its output on ours.
on() {
	"$RXE_VM" exec --raw --timeout 60 "$session" --on "$1" "$2"
}

# check NAME [options]: one cluster_check run, its stdout in NAME.out,
# stderr in NAME.err, exit status in NAME.rc, JSON in NAME.json.  The
# runs are short (100 latency and 15 bandwidth iterations) and the floor
# is 0.4 MiB/s: over the most the shaped guest can send at all (3 Mbit/s,
# 0.36 MiB/s; its pairs gave 0.3), and as low under what a healthy pair
# got here with another pair running at once (0.75 MiB/s and up) as that
# allows.
# NODES (default: the four guests) is the NODESET.
check() {
	local name=$1 rc=0
	shift
	echo "=== $name: $P $* ==="
	"$CLUSTER_CHECK" \
		--via "$RXE_VM exec --raw --timeout 200 $session --on %h" \
		--rdma-check "$RDMA_CHECK" --rdma-bench "$RDMA_BENCH" \
		--lat-iters 100 --bw-iters 15 --bw-min 0.4 \
		--json "$R/$name.json" "$@" "${NODES:-$hosts}" \
		>"$R/$name.out" 2>"$R/$name.err" || rc=$?
	echo "$rc" >"$R/$name.rc"
	cat "$R/$name.out" "$R/$name.err"
}

# pairs NAME: each pair of NAME.json as "SERVER-CLIENT STATUS FAILED".
pairs() {
	python3 - "$R/$1.json" >"$R/$1.pairs" <<'PY'
import json, sys
for p in json.load(open(sys.argv[1]))["pairs"]:
    ends = "-".join(sorted([p["server"], p["client"]]))
    print(ends, p["status"], p["failed"] or "-")
PY
}

# lost NAME: each pair of NAME.json as "SERVER-CLIENT S C": how many of
# its server's packets toward the client were lost, and of the client's
# toward the server.
lost() {
	python3 - "$R/$1.json" >"$R/$1.lost" <<'PY'
import json, sys
for p in json.load(open(sys.argv[1]))["pairs"]:
    n = p.get("lost", {})
    print(f"{p['server']}-{p['client']}", n.get("server"), n.get("client"))
PY
	cat "$R/$1.lost"
}

# colours NAME: how many pixels of NAME.png are of each fault's colour
# (scripts/cluster_plan.py's CELL_LOOK, FLOOR_FRAME and LOSS_FRAME), one "KIND N"
# line each, in NAME.colours.  The legend shows a colour only when a cell
# has it, so a picture without that fault has none of its pixels.
colours() {
	python3 "$SOURCE_DIR/tests/rxe/png_colours.py" "$R/$1.png" \
		202020 bababa ff00ff 00c000 |
		sed 's/^202020/fail/; s/^bababa/skip/; s/^ff00ff/frame/; s/^00c000/loss/' >"$R/$1.colours"
	cat "$R/$1.colours"
	# A 50-pixel cell is about 2500 pixels, a frame about 1500; the text's
	# anti-aliasing hits a colour exactly a few dozen times at most.
	awk '{ print $1, ($2 >= 1000 ? "shown" : $2 < 200 ? "none" : "unclear") }' \
		"$R/$1.colours" >"$R/$1.seen"
}

# --- healthy: every pair, every cell a figure ---------------------------
check healthy --csv "$R/healthy.csv" --png "$R/healthy.png"
expect_rc "$R/healthy.rc" 0
pairs healthy
for p in "$A-$B" "$A-$C" "$A-$D" "$B-$C" "$B-$D" "$C-$D"; do
	expect_line "$R/healthy.pairs" "$p PASS -"
done
for h in $A $B $C $D; do
	# The GID each host used in its pairs: its own address's.
	expect_line "$R/healthy.out" "PASS $h: rxe0, 2.5 Gb/s, GID ::ffff:$h (RoCE v2)"
done
expect_regex "$R/healthy.out" "^192\.0\.2\.1 +- +[0-9]+\.[0-9] +[0-9]+\.[0-9] +[0-9]+\.[0-9]$"
expect_regex "$R/healthy.out" "^verdict: PASS: 4 hosts, 6 of 6 pairs run in 3 rounds, 0 warnings, [0-9]+ s$"
expect_line "$R/healthy.err" "$P: pairs: all, 6 pairs in 3 rounds"
expect_regex "$R/healthy.err" "^$P: round 3 of 3: 2 pairs run, 0 failed; 6 pairs done \([0-9.]+ s\)$"
grep -c '^192\.0\.2\.[1-4],192\.0\.2\.[1-4],PASS,' "$R/healthy.csv" >"$R/healthy.csv-pass"
expect_line "$R/healthy.csv-pass" 6
[ -s "$R/healthy.png" ] && file "$R/healthy.png" >"$R/healthy.png-type"
expect_text "$R/healthy.png-type" "PNG image data"
colours healthy
expect_line "$R/healthy.seen" "fail none"
expect_line "$R/healthy.seen" "skip none"
expect_line "$R/healthy.seen" "frame none"
expect_line "$R/healthy.seen" "loss none"
# A clean link: no pair lost a packet, by its ports' counters.
lost healthy
grep -c '^192\.0\.2\.[1-4]-192\.0\.2\.[1-4] 0 0$' "$R/healthy.lost" >"$R/healthy.clean"
expect_line "$R/healthy.clean" 6

# --- clush itself, with the rig's command as its exec worker ------------
# clush joins its words into one shell line: the guest's command is
# quoted once more for that shell, and expands in the guest.
# shellcheck disable=SC2016
clush -R exec -w "$hosts" "$RXE_VM" exec --raw "$session" --on %h \
	"'echo \$RXE_GUEST \$RXE_ADDR'" 2>&1 | sort >"$R/clush.out"
cat "$R/clush.out"
expect_line "$R/clush.out" "$A: a $A"
expect_line "$R/clush.out" "$D: d $D"
wc -l <"$R/clush.out" >"$R/clush.lines"
expect_line "$R/clush.lines" 4

# --- two faults at once: RoCE dropped between a and b only, c shaped --
# b drops the RoCE v2 packets (UDP 4791) that come from a; c's egress is
# shaped to 3 Mbit/s by tc tbf.  Every host has three pairs: a-b fails
# as a link (a and b pass with d), c's three pairs fail the bandwidth
# floor with their figures (c is named), a-d and b-d pass.
on $B "$mp sch_ingress && $mp cls_u32 && $mp act_gact && tc qdisc add dev eth0 ingress && tc filter add dev eth0 ingress protocol ip prio 1 u32 match ip src $A/32 match ip protocol 17 0xff match ip dport 4791 0xffff action drop"
on $C "$mp sch_tbf && tc qdisc add dev eth0 root tbf rate 3mbit burst 16kb limit 4mb"
# --wait 12: the receiver of the SEND that b drops waits that long in vain
# (the sender gives up after about 7.6 s); the shaped guest's bandwidth
# run takes about 3 s.
check faults --csv "$R/faults.csv" --png "$R/faults.png" --wait 12
on $C "tc qdisc del dev eth0 root"
expect_rc "$R/faults.rc" 1
pairs faults
expect_line "$R/faults.pairs" "$A-$D PASS -"
expect_line "$R/faults.pairs" "$B-$D PASS -"
expect_regex "$R/faults.pairs" "^$A-$B FAIL (send|connect)$"
for p in "$A-$C" "$B-$C" "$C-$D"; do
	expect_line "$R/faults.pairs" "$p FAIL bandwidth"
done
expect_regex "$R/faults.out" "^link $A-$B: the pair check's (send|connect) fails while both hosts pass with others: "
expect_regex "$R/faults.out" "^192\.0\.2\.3 +FAIL 0\.[0-9] +FAIL 0\.[0-9] +- +FAIL 0\.[0-9]$"
expect_line "$R/faults.out" "host $C: every pair with it is under the bandwidth floor: its own link is slow; fix: look at the slower host's link: its speed, errors, pause frames and shaping (ethtool -S, tc qdisc show)"
grep -c '^host \|^link \|^pair ' "$R/faults.out" >"$R/faults.named"
expect_line "$R/faults.named" 2
expect_regex "$R/faults.csv" "^192\.0\.2\.[34],192\.0\.2\.[34],FAIL,bandwidth,0\.[0-9]+,"
# a-b black (both its cells), c's three pairs framed in magenta.
colours faults
expect_line "$R/faults.seen" "fail shown"
expect_line "$R/faults.seen" "frame shown"
expect_line "$R/faults.seen" "skip none"

# --- sweep: a bad link and a bad host, found from the ring --------------
# a-b's drop stays; d drops every RoCE packet.  The ring (a-b, c-d, then
# b-c, d-a) fails a-b, c-d and d-a; every host is a suspect, and with no
# sound host left the second pass runs the suspects' other pairs (a-c,
# b-d).  --wait 4: a dropped SEND ends at the wait, not at retry exceeded.
on $D "$mp sch_ingress && $mp cls_u32 && $mp act_gact && tc qdisc add dev eth0 ingress && tc filter add dev eth0 ingress protocol ip prio 1 u32 match ip protocol 17 0xff match ip dport 4791 0xffff action drop"
check sweep --pattern sweep --wait 4 --lat-iters 20 --bw-iters 5
on $B "tc qdisc del dev eth0 ingress"
on $D "tc qdisc del dev eth0 ingress"
expect_rc "$R/sweep.rc" 1
expect_line "$R/sweep.err" "$P: pairs: sweep, 4 pairs in 2 rounds"
expect_line "$R/sweep.err" "$P: sweep: 2 pairs around the failures in 1 more round"
pairs sweep
expect_line "$R/sweep.pairs" "$A-$C PASS -"
expect_line "$R/sweep.pairs" "$B-$C PASS -"
expect_regex "$R/sweep.out" "^host $D: fails with every peer \([a-z, -]+\), though its own check passes; first: "
expect_regex "$R/sweep.out" "^link $A-$B: the pair check's [a-z]+ fails while both hosts pass with others: "
grep -c '^host \|^link \|^pair ' "$R/sweep.out" >"$R/sweep.named"
expect_line "$R/sweep.named" 2
expect_regex "$R/sweep.out" "^verdict: FAIL: 4 hosts, 6 of 6 pairs run in 3 rounds, 0 warnings, [0-9]+ s$"

# --- mtu: a path that loses full-size frames, and a host with a small MTU
# d drops RoCE packets from a whose IP length is 1024 to 2047 bytes: a
# packet of 1024 bytes of payload and more (the QP's path MTU is 1024),
# as a switch port with a smaller MTU than the hosts' would: the pair
# check's READs of 1024 bytes never get their responses.  c's MTU 700
# gives its port an active MTU of 512, which rdma_check's pair check
# warns of.
on $D "tc qdisc add dev eth0 ingress && tc filter add dev eth0 ingress protocol ip prio 1 u32 match ip src $A/32 match ip protocol 17 0xff match ip dport 4791 0xffff match u16 0x0400 0xfc00 at 2 action drop"
on $C "ip link set eth0 mtu 700"
check mtu --pattern "$A:$D,$B:$C" --wait 6
on $D "tc qdisc del dev eth0 ingress"
on $C "ip link set eth0 mtu 1500"
expect_rc "$R/mtu.rc" 1
pairs mtu
expect_line "$R/mtu.pairs" "$A-$D FAIL path"
expect_line "$R/mtu.pairs" "$B-$C PASS -"
expect_regex "$R/mtu.out" "^pair $A-$D: the pair check's path fails \(no other pair of theirs ran, so the fault may be either host's or the link's\): an MTU black hole: the path loses frames that the hosts' MTU allows: the client's path: frames of 1024 bytes never arrived from the server toward this side \(the client\), as READ responses, while frames of 512 bytes did: .*; fix: -m 512 \(rdma_check, rdma_bench\), or give the switch ports, tunnel or VLAN on that way an MTU of 1116 bytes "
expect_regex "$R/mtu.out" "^warning: pair $B-$C: path-mtu: 512 bytes: ours (1024|512), the peer's (512|1024); the smaller one wins; fix: "
expect_regex "$R/mtu.out" "^verdict: FAIL: 4 hosts, 2 of 2 pairs run in 1 round, 1 warning, [0-9]+ s$"

# --- reach: a host the runner cannot reach, one without the program -----
# --rdma-check /tmp/rck: on a and b the real one, on c one whose port
# line has no rate (an rdma_check that does not know the port's speed
# codes), on d none; 192.0.2.9 is no guest of the session.  The two
# wrappers lie in the build tree, which the guests see at its path.
wrap=$BUILD_DIR/cluster-wrap
mkdir -p "$wrap"
printf '#!/bin/sh\nexec %s "$@"\n' "$RDMA_CHECK" >"$wrap/real"
cat >"$wrap/norate" <<EOF
#!/bin/bash
$RDMA_CHECK "\$@" | sed -E 's|, [0-9.]+ Gb/s \\([0-9]+X [0-9.]+ Gb/s\\)\$||'
exit "\${PIPESTATUS[0]}"
EOF
chmod +x "$wrap/real" "$wrap/norate"
on $A "ln -sf '$wrap/real' /tmp/rck"
on $B "ln -sf '$wrap/real' /tmp/rck"
on $C "ln -sf '$wrap/norate' /tmp/rck"
on $D "rm -f /tmp/rck"
NODES="192.0.2.[1-4,9]" check reach --pattern "$A:$C" --rdma-check /tmp/rck --bw-min 1%
expect_rc "$R/reach.rc" 1
expect_regex "$R/reach.out" "^UNREACHED 192\.0\.2\.9: the --via command did not run the check on it \(exit status 1\): rxe-vm: exec: session .* has no guest 192\.0\.2\.9 \(it has: a b c d\); fix: make \`.* --on 192\.0\.2\.9 true\` work$"
expect_regex "$R/reach.out" "^FAIL $D: /tmp/rck is not there on it \(exit status 127\): .*/tmp/rck.*; fix: install the project's package on it, or give --rdma-check the program's path on the hosts$"
expect_line "$R/reach.out" "PASS $C: rxe0, rate unknown, GID ::ffff:$C (RoCE v2)"
expect_line "$R/reach.out" "PASS $A: rxe0, 2.5 Gb/s, GID ::ffff:$A (RoCE v2)"
expect_line "$R/reach.out" "pair $A-$C: the floor 1% of the port's rate cannot be applied: rdma_check on $C gave no port rate; fix: give --bw-min in MiB/s for these hosts"
pairs reach
expect_line "$R/reach.pairs" "$A-$C FAIL floor"

# --- usage: rdma_check refuses an option: said once, exit 2 -------------
check usage --pattern "$A:$B" -g -1
expect_rc "$R/usage.rc" 2
grep -v "^$P: local check" "$R/usage.err" >"$R/usage.said"
expect_regex "$R/usage.said" "^$P: rdma_check refused its options on every host: rdma_check: invalid .*-1"
wc -l <"$R/usage.said" >"$R/usage.lines"
expect_line "$R/usage.lines" 1
expect_empty "$R/usage.out"

# --- loss: a link that loses RoCE packets, a and b alone ----------------
# b drops every 200th RoCE packet that comes from a, as a link with errors
# or a congested switch port that drops would: the runs still pass (RC
# sends again), and only the ports' counters tell.
on $B "tc qdisc add dev eth0 ingress && tc filter add dev eth0 ingress protocol ip prio 1 u32 match ip src $A/32 match ip protocol 17 0xff match ip dport 4791 0xffff action gact pass random determ drop 200"
NODES="192.0.2.[1-2]" check loss --pattern "$A:$B" --png "$R/loss.png"
NODES="192.0.2.[1-2]" check lossok --pattern "$A:$B" --max-lost 1000000
on $B "tc qdisc del dev eth0 ingress"
expect_rc "$R/loss.rc" 1
pairs loss
expect_line "$R/loss.pairs" "$A-$B FAIL loss"
lost loss
expect_regex "$R/loss.lost" "^$A-$B [1-9][0-9]* 0$"
expect_regex "$R/loss.out" "^pair $A-$B: a lossy link \(RoCE needs a lossless one\): packets lost: [1-9][0-9]* of $A's toward $B, by the ports' counters over the latency and bandwidth runs; fix: look at the link from the side whose packets were lost: .*; to accept this many, --max-lost [1-9][0-9]*$"
expect_regex "$R/loss.out" "^192\.0\.2\.1 +- +LOSS [0-9]+\.[0-9]$"
colours loss
expect_line "$R/loss.seen" "loss shown"
expect_line "$R/loss.seen" "frame none"
expect_rc "$R/lossok.rc" 0
expect_regex "$R/lossok.out" "^warning: pair $A-$B: packets lost: [1-9][0-9]* of $A's toward $B, .* \(at most 1000000 allowed by --max-lost\); fix: "
expect_regex "$R/lossok.out" "^verdict: PASS: 2 hosts, 1 of 1 pairs? run in 1 round, 1 warning, [0-9]+ s$"

# --- routed: a RoCE v2 path through a router (the same four guests) -----
# a in 10.1.0.0/24 and b in 10.2.0.0/24, each with a route to the other
# subnet through d, which holds an address in both and forwards (the
# packets cross the one link twice, d between).  rdma_rc_example,
# rdma_bench and rdma_check --pair between a and b, no -g: each side
# takes the GID of its routed address (a link-local GID could not cross
# d), and d's kernel forwards their packets.
on $A "ip addr add 10.1.0.1/24 dev eth0 && ip route add 10.2.0.0/24 via 10.1.0.4"
on $B "ip addr add 10.2.0.2/24 dev eth0 && ip route add 10.1.0.0/24 via 10.2.0.4"
on $D "ip addr add 10.1.0.4/24 dev eth0 && ip addr add 10.2.0.4/24 dev eth0 && sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.send_redirects=0 net.ipv4.conf.eth0.send_redirects=0"
for g in $A:0a01:0001 $B:0a02:0002; do
	on "${g%%:*}" "for i in \$(seq 100); do grep -q '${g#*:}\$' /sys/class/infiniband/rxe0/ports/1/gids/[0-9] && break; sleep 0.2; done"
done
forwarded="awk '/^Ip:/ { n++; if (n == 2) print \$7 }' /proc/net/snmp"
on $D "$forwarded" >"$R/routed.fwd-before"
# routed NAME PORT SERVER_CMD CLIENT_CMD: SERVER_CMD on a, then CLIENT_CMD
# on b; their stdout and stderr in NAME.server.out and NAME.client.out.
routed() {
	on $A "$3" >"$R/$1.server.out" 2>&1 &
	local server=$!
	on $B "$4" >"$R/$1.client.out" 2>&1
	echo $? >"$R/$1.client.rc"
	wait "$server"
	echo $? >"$R/$1.server.rc"
}
routed routed_rc 19990 "$RDMA_RC_EXAMPLE -p 19990 --accept-timeout 60" \
	"$RDMA_RC_EXAMPLE -p 19990 --connect-timeout 60 10.1.0.1"
routed routed_bench 19991 "$RDMA_BENCH lat --op send -n 100 -p 19991 --accept-timeout 60" \
	"$RDMA_BENCH lat --op send -n 100 -p 19991 --connect-timeout 60 10.1.0.1"
routed routed_check 19992 "$RDMA_CHECK --pair -p 19992 --accept-timeout 60" \
	"$RDMA_CHECK -p 19992 --connect-timeout 60 10.1.0.1"
on $D "$forwarded" >"$R/routed.fwd-after"
on $A "ip route del 10.2.0.0/24 via 10.1.0.4; ip addr del 10.1.0.1/24 dev eth0"
on $B "ip route del 10.1.0.0/24 via 10.2.0.4; ip addr del 10.2.0.2/24 dev eth0"
on $D "sysctl -qw net.ipv4.ip_forward=0; ip addr del 10.1.0.4/24 dev eth0; ip addr del 10.2.0.4/24 dev eth0"
for run in routed_rc routed_bench routed_check; do
	cat "$R/$run.server.out" "$R/$run.client.out"
	expect_rc "$R/$run.server.rc" 0
	expect_rc "$R/$run.client.rc" 0
done
for side in server client; do
	addr=10.1.0.1
	[ $side = client ] && addr=10.2.0.2
	for run in routed_rc routed_bench; do
		expect_regex "$R/$run.$side.out" "^using GID index [0-9]+ \(RoCE v2, ::ffff:${addr//./\\.}\), the address of the TCP connection to the peer$"
	done
done
expect_line "$R/routed_rc.client.out" "test result is 0"
expect_regex "$R/routed_check.client.out" "^PASS gid-pair +both RoCE v2 IPv4: ours ::ffff:10\.2\.0\.2, the peer's ::ffff:10\.1\.0\.1, routed from 10\.2\.0\.2$"
expect_regex "$R/routed_check.client.out" "^verdict: PASS: "
# d forwarded the runs' packets: the three runs send hundreds of RoCE
# packets and their TCP each way.
echo $(($(cat "$R/routed.fwd-after") - $(cat "$R/routed.fwd-before"))) >"$R/routed.fwd"
expect_regex "$R/routed.fwd" "^[1-9][0-9]{2,}$"

# --- interrupted in its second round: what was done is kept -------------
echo "=== interrupted: SIGINT in the second round ==="
# c's egress shaped again: the second round (a-c) lasts seconds past its
# start, the first (a-b) ends as usual.
on $C "tc qdisc add dev eth0 root tbf rate 3mbit burst 16kb limit 4mb"
"$CLUSTER_CHECK" \
	--via "$RXE_VM exec --raw --timeout 200 $session --on %h" \
	--rdma-check "$RDMA_CHECK" --rdma-bench "$RDMA_BENCH" \
	--lat-iters 100 --bw-iters 15 --pattern "$A:$B,$A:$C" \
	--json "$R/interrupted.json" --csv "$R/interrupted.csv" "$hosts" \
	>"$R/interrupted.out" 2>"$R/interrupted.err" &
pid=$!
for ((i = 0; i < 900; i++)); do
	grep -q 'round 1 of 2' "$R/interrupted.err" && break
	sleep 0.2
done
sleep 1
kill -INT "$pid"
rc=0
started=$SECONDS
wait "$pid" || rc=$?
echo "$rc" >"$R/interrupted.rc"
echo "ended $((SECONDS - started)) s after SIGINT" >"$R/interrupted.time"
cat "$R/interrupted.out" "$R/interrupted.err" "$R/interrupted.time"
expect_rc "$R/interrupted.rc" 130
expect_line "$R/interrupted.err" "$P: interrupted: ending what the run started on every host"
if [ $((SECONDS - started)) -le 40 ]; then
	_rxe_pass "it ended $((SECONDS - started)) s after SIGINT (at most 40)"
else
	_rxe_failed "FAIL: it ended $((SECONDS - started)) s after SIGINT, more than 40"
fi
expect_regex "$R/interrupted.out" "^verdict: INCOMPLETE: interrupted by SIGINT in round 2 of 2; so far nothing failed: 4 hosts, 1 of 1 pair run in 1 round, 0 warnings, [0-9]+ s$"
expect_line "$R/interrupted.out" "PASS $A: rxe0, 2.5 Gb/s, GID ::ffff:$A (RoCE v2)"
pairs interrupted
expect_line "$R/interrupted.pairs" "$A-$B PASS -"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["verdict"], d["complete"], len(d["pairs"]))' \
	"$R/interrupted.json" >"$R/interrupted.kept"
expect_line "$R/interrupted.kept" "INCOMPLETE False 1"
on $C "tc qdisc del dev eth0 root"
expect_regex "$R/interrupted.csv" "^192\.0\.2\.1,192\.0\.2\.2,PASS,"
left="pgrep -af '[r]dma_(check|bench)' || echo none"
"$RXE_VM" exec --timeout 60 --out "$R/left" "$session" -a "$left" -b "$left" \
	--on c "$left" --on d "$left" >/dev/null 2>&1
for g in a b c d; do
	expect_line "$R/left.$g.out" none
done

# --- down: c's port down and d stopped, at once --------------------------
# c's eth0 down: c fails alone, with its own line and fix.  d's QEMU
# stopped (SIGSTOP): d named as not answering within --timeout.  Their
# pair is skipped (grey in the picture, in c's and d's rows and columns),
# a-b runs and passes.
on $C "ip link set eth0 down"
qemu_d=$(cat "$session/qemu-d.pid")
kill -STOP "$qemu_d"
started=$SECONDS
check down --pattern "$A:$B,$C:$D" --timeout 10 --png "$R/down.png"
took=$((SECONDS - started))
kill -CONT "$qemu_d"
on $C "ip link set eth0 up"
expect_rc "$R/down.rc" 1
pairs down
expect_line "$R/down.pairs" "$A-$B PASS -"
expect_line "$R/down.pairs" "$C-$D SKIP -"
expect_line "$R/down.out" "FAIL $C: port: port 1 of rxe0: down, physical state Disabled, netdev eth0; fix: ip link set eth0 up"
expect_line "$R/down.out" "host $C: its own check fails, so its pairs were not run: port: port 1 of rxe0: down, physical state Disabled, netdev eth0; fix: ip link set eth0 up"
expect_line "$R/down.out" "NO-ANSWER $D: no answer within 10 s: the host is down, unreachable or hung; fix: reach it by hand (ssh $D true) and look at it"
grep -c '^host \|^link \|^pair ' "$R/down.out" >"$R/down.named"
expect_line "$R/down.named" 2
expect_regex "$R/down.err" "^$P: local check: 2 of 4 hosts pass \((1[0-9]|2[0-9])\.[0-9] s\)$"
# c-d greyed in both rows (a 50-pixel cell is about 2500 pixels), no pair
# failed.
colours down
expect_line "$R/down.seen" "skip shown"
expect_line "$R/down.seen" "fail none"
echo "the run took $took s" >"$R/down.time"
if [ "$took" -le 120 ]; then
	_rxe_pass "the run with a stopped guest took $took s (at most 120)"
else
	_rxe_failed "FAIL: the run with a stopped guest took $took s, more than 120"
fi

# --- the docs: every host, link and verdict line docs/cluster-check.md
# shows in its examples is a line of these runs (times and the counts of
# a loss masked) -----------------------------------------------------------
python3 - "$SOURCE_DIR/docs/cluster-check.md" "$R" >"$R/docs.txt" <<'PY'
import glob, re, sys
page, runs = sys.argv[1], sys.argv[2]
def mask(line):
    # times, and the counts of a loss, which differ from run to run
    line = re.sub(r"\b\d+ (ms|s)\b", r"N \1", line)
    line = re.sub(r"\b\d+ of (\S+)'s toward", r"N of \1's toward", line)
    return re.sub(r"--max-lost \d+", "--max-lost N", line)
seen = set()
for f in glob.glob(runs + "/*.out"):
    seen.update(mask(l.rstrip("\n")) for l in open(f))
block = False
shown = 0
for line in open(page):
    line = line.rstrip("\n")
    if line.startswith("```"):
        block = not block
        continue
    if block and re.match(r"(host|link|pair|warning:) |(PASS|FAIL|NO-ANSWER|UNREACHED) 192\.|verdict: ", line):
        shown += 1
        if mask(line) not in seen:
            print("not in any run:", line)
print(shown, "lines shown")
PY
expect_no_text "$R/docs.txt" "not in any run:"
expect_regex "$R/docs.txt" "^([5-9]|[1-9][0-9]) lines shown$"
finish
