#!/usr/bin/env bash
# scripts/cluster_check.py on four guests of its own, one link through the
# rig's switch, reached by ClusterShell's exec worker with `rxe-vm exec
# --raw` and %h: the same tool that runs over ssh on a real cluster.
# Each fault is made for real in the guests and undone after its run:
#   healthy      every pair of the four passes (all: 3 rounds), exit 0;
#   port down    d's eth0 down (pairs a-b and c-d): d named with its FAIL
#                line and fix, its pair skipped, the pair without it passes;
#   faults       RoCE v2 (UDP 4791) from a dropped at b, and c's egress
#                shaped to 3 Mbit/s by tc tbf, at once: only a-b fails as
#                a link, c's pairs fail the bandwidth floor with their
#                figures and c is named, a-d and b-d pass;
#   interrupted  SIGINT during a round: exit 130, and no rdma_check or
#                rdma_bench left on any guest;
#   stopped      d's QEMU stopped (SIGSTOP): d named as not answering
#                within the bound, its pair skipped, a-b run and passed.
. "$(dirname "$0")/lib.sh"

: "${SOURCE_DIR:?}" "${BUILD_DIR:?}" "${RDMA_CHECK:?}" "${RDMA_BENCH:?}"
rxe_plain_programs
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
check() {
	local name=$1 rc=0
	shift
	echo "=== $name: cluster_check.py $* ==="
	"$SOURCE_DIR/scripts/cluster_check.py" \
		--via "$RXE_VM exec --raw --timeout 200 $session --on %h" \
		--rdma-check "$RDMA_CHECK" --rdma-bench "$RDMA_BENCH" \
		--lat-iters 100 --bw-iters 15 --bw-min 0.4 \
		--json "$R/$name.json" "$@" "$hosts" \
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

# --- healthy: every pair, every cell a figure ---------------------------
check healthy --csv "$R/healthy.csv" --png "$R/healthy.png"
expect_rc "$R/healthy.rc" 0
pairs healthy
for p in "$A-$B" "$A-$C" "$A-$D" "$B-$C" "$B-$D" "$C-$D"; do
	expect_line "$R/healthy.pairs" "$p PASS -"
done
for h in $A $B $C $D; do
	expect_line "$R/healthy.out" "PASS $h: rxe0, 2.5 Gb/s"
done
expect_regex "$R/healthy.out" "^192\.0\.2\.1 +- +[0-9]+\.[0-9] +[0-9]+\.[0-9] +[0-9]+\.[0-9]$"
expect_regex "$R/healthy.out" "^verdict: PASS: 4 hosts, 6 of 6 pairs run in 3 rounds, [0-9]+ s$"
expect_line "$R/healthy.err" "cluster_check: pairs: all, 6 pairs in 3 rounds"
expect_regex "$R/healthy.err" "^cluster_check: round 3 of 3: 2 pairs run, 0 failed; 6 of 6 pairs done \([0-9.]+ s\)$"
grep -c '^192\.0\.2\.[1-4],192\.0\.2\.[1-4],PASS,' "$R/healthy.csv" >"$R/healthy.csv-pass"
expect_line "$R/healthy.csv-pass" 6
[ -s "$R/healthy.png" ] && file "$R/healthy.png" >"$R/healthy.png-type"
expect_text "$R/healthy.png-type" "PNG image data"

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

# --- port down on d: d alone fails, the pairs without it pass -----------
on $D "ip link set eth0 down"
check port_down --pattern "$A:$B,$C:$D"
on $D "ip link set eth0 up; for i in \$(seq 100); do grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state && grep -q ffff /sys/class/infiniband/rxe0/ports/1/gids/1 && break; sleep 0.2; done"
expect_rc "$R/port_down.rc" 1
pairs port_down
expect_line "$R/port_down.pairs" "$A-$B PASS -"
expect_line "$R/port_down.pairs" "$C-$D SKIP -"
expect_line "$R/port_down.out" "FAIL $D: port: port 1 of rxe0: down, physical state Disabled, netdev eth0; fix: ip link set eth0 up"
expect_line "$R/port_down.out" "host $D: its own check fails, so its pairs were not run: port: port 1 of rxe0: down, physical state Disabled, netdev eth0; fix: ip link set eth0 up"
grep -c '^host \|^link \|^pair ' "$R/port_down.out" >"$R/port_down.named"
expect_line "$R/port_down.named" 1

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
check faults --csv "$R/faults.csv" --wait 12
on $B "tc qdisc del dev eth0 ingress"
on $C "tc qdisc del dev eth0 root"
expect_rc "$R/faults.rc" 1
pairs faults
expect_line "$R/faults.pairs" "$A-$D PASS -"
expect_line "$R/faults.pairs" "$B-$D PASS -"
expect_regex "$R/faults.pairs" "^$A-$B FAIL (send|connect)$"
for p in "$A-$C" "$B-$C" "$C-$D"; do
	expect_line "$R/faults.pairs" "$p FAIL bandwidth"
done
expect_regex "$R/faults.out" "^link $A-$B: fails \((send|connect)\) while both hosts pass with others: "
expect_regex "$R/faults.out" "^192\.0\.2\.3 +FAIL 0\.[0-9] +FAIL 0\.[0-9] +- +FAIL 0\.[0-9]$"
expect_line "$R/faults.out" "host $C: every pair with it is under the bandwidth floor: its own link is slow; fix: look at the slower host's link: its speed, errors, pause frames and shaping (ethtool -S, tc qdisc show)"
grep -c '^host \|^link \|^pair ' "$R/faults.out" >"$R/faults.named"
expect_line "$R/faults.named" 2
expect_regex "$R/faults.csv" "^192\.0\.2\.[34],192\.0\.2\.[34],FAIL,bandwidth,0\.[0-9]+,"

# --- interrupted: everything it started ends, on every guest ------------
echo "=== interrupted: SIGINT during the first round ==="
"$SOURCE_DIR/scripts/cluster_check.py" \
	--via "$RXE_VM exec --raw --timeout 200 $session --on %h" \
	--rdma-check "$RDMA_CHECK" --rdma-bench "$RDMA_BENCH" \
	--bw-iters 100000 "$hosts" >"$R/interrupted.out" 2>"$R/interrupted.err" &
pid=$!
for ((i = 0; i < 300; i++)); do
	grep -q 'pairs: all' "$R/interrupted.err" && break
	sleep 0.2
done
# Into the first round: its pair checks, then the long bandwidth runs.
sleep 4
kill -INT "$pid"
rc=0
started=$SECONDS
wait "$pid" || rc=$?
echo "$rc" >"$R/interrupted.rc"
echo "ended $((SECONDS - started)) s after SIGINT" >"$R/interrupted.time"
cat "$R/interrupted.err" "$R/interrupted.time"
expect_rc "$R/interrupted.rc" 130
expect_line "$R/interrupted.err" "cluster_check: interrupted: ending what the run started on every host"
if [ $((SECONDS - started)) -le 40 ]; then
	_rxe_pass "it ended $((SECONDS - started)) s after SIGINT (at most 40)"
else
	RXE_FAILED=$((RXE_FAILED + 1))
	echo "FAIL: it ended $((SECONDS - started)) s after SIGINT, more than 40"
fi
left="pgrep -af '[r]dma_(check|bench)' || echo none"
"$RXE_VM" exec --timeout 60 --out "$R/left" "$session" -a "$left" -b "$left" \
	--on c "$left" --on d "$left" >/dev/null 2>&1
for g in a b c d; do
	expect_line "$R/left.$g.out" none
done

# --- d stopped: named within the bound, the rest finishes ---------------
qemu_d=$(cat "$session/qemu-d.pid")
kill -STOP "$qemu_d"
started=$SECONDS
check stopped --pattern "$A:$B,$C:$D" --timeout 10
took=$((SECONDS - started))
kill -CONT "$qemu_d"
expect_rc "$R/stopped.rc" 1
pairs stopped
expect_line "$R/stopped.pairs" "$A-$B PASS -"
expect_line "$R/stopped.pairs" "$C-$D SKIP -"
expect_line "$R/stopped.out" "NO-ANSWER $D: no answer within 10 s: the host is down, unreachable or hung; fix: reach it by hand (ssh $D true) and look at it"
expect_regex "$R/stopped.err" "^cluster_check: local check: 3 of 4 hosts pass \((1[0-9]|2[0-9])\.[0-9] s\)$"
echo "the run took $took s" >"$R/stopped.time"
if [ "$took" -le 120 ]; then
	_rxe_pass "the run with a stopped guest took $took s (at most 120)"
else
	RXE_FAILED=$((RXE_FAILED + 1))
	echo "FAIL: the run with a stopped guest took $took s, more than 120"
fi

# --- the docs: every host, link and verdict line docs/cluster-check.md
# shows in its examples is a line of these runs (times masked) -----------
python3 - "$SOURCE_DIR/docs/cluster-check.md" "$R" >"$R/docs.txt" <<'PY'
import glob, re, sys
page, runs = sys.argv[1], sys.argv[2]
mask = lambda line: re.sub(r"\b\d+ (ms|s)\b", r"N \1", line)
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
    if block and re.match(r"(host|link|pair) |(PASS|FAIL|NO-ANSWER) 192\.", line):
        shown += 1
        if mask(line) not in seen:
            print("not in any run:", line)
print(shown, "lines shown")
PY
expect_no_text "$R/docs.txt" "not in any run:"
expect_regex "$R/docs.txt" "^([5-9]|[1-9][0-9]) lines shown$"
finish
