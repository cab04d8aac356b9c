#!/usr/bin/env bash
# scripts/bench.sh when one side of a measurement stalls, and when the link
# between the guests stops for good (see docs/soft-roce-rig.md), both made
# up by bench_link_rxe_vm.sh and bench_link_shim.sh.
# - Measurement 0, the first of ours: guest a's server hangs until its
#   bound (20 s here) and guest b's client fails at once.  Both sides then
#   run it again, on the first port after the plan's (20004), and it gives
#   figures.  The two guests meet before each measurement, so 1 and 2
#   still find each other; the clients alone would have tried them for 8 s
#   each while the server hung.
# - Measurement 3, the second of ours: guest b writes the kernel's line
#   for a stopped link and hangs.  rxe-vm exec gives up on the plan, and
#   bench.sh boots the guests again and runs the measurements after the
#   last one that gave figures.
. "$(dirname "$0")/lib.sh"

: "${SOURCE_DIR:?}" "${BUILD_DIR:?}"
here=$(dirname "$(readlink -f "$0")")
out=$RXE_OUT_DIR/bench
real_rxe_vm=$RXE_VM
rc=0
# Four measurements: ours, perftest (2 B), perftest, ours (64 B).
REAL_RXE_VM=$real_rxe_vm SHIM_DONE=$RXE_OUT_DIR/shim-done \
	RXE_VM=$here/bench_link_rxe_vm.sh \
	bash "$SOURCE_DIR/scripts/bench.sh" --setup two --rounds 1 --ops send \
	--modes lat --sizes 2,64 --lat-iters 20 --build "$BUILD_DIR" \
	--out "$out" >"$RXE_OUT_DIR/bench.log" 2>&1 || rc=$?
RXE_OUT=$RXE_OUT_DIR/bench
echo "$rc" >"$RXE_OUT.rc"
# 0: every measurement gave figures, measurement 0 on its second attempt.
expect_rc "$RXE_OUT.rc" 0
expect_line "$out/guests-2.part1.a.out" "=== SERVER FAILED 2 1 0 ours lat send 2 20"
expect_text "$out/guests-2.part1.b.out" "bench_link_shim.sh: the client of measurement 0 fails at once"
expect_line "$out/guests-2.part1.b.out" "=== END rc=1, server rc=124: runs again"
expect_line "$RXE_OUT.log" "bench.sh: measurement 1 of 4 (2 guests, round 1): lat send 2 B, 20 iterations: bench_link_shim.sh (ours), again on port 20004 (attempt 2 of 3)"
# perftest itself may fail an attempt on a loaded host (its clock
# estimate, say), and bench.sh runs that one again with the reason in its
# report: the counts below allow those, and hold the two made-up failures
# exactly.
perftest_again() { # SIZE: perftest's attempts at SIZE that ran again
	grep -c "^  2 guest(s) run 1 perftest lat send $1 B: " "$RXE_OUT.log" || true
}
again_2=$(perftest_again 2) again_64=$(perftest_again 64)
again=$((again_2 + again_64))
# The report lists both failed attempts: measurement 0's first, and 3's
# in the first part, which the stopped link cut short.
if [ "$again" -eq 0 ]; then
	expect_line "$RXE_OUT.log" "2 failed attempt(s) ran again (ours 2):"
else
	expect_line "$RXE_OUT.log" "$((2 + again)) failed attempt(s) ran again (ours 2, perftest $again):"
fi
expect_line "$RXE_OUT.log" "  2 guest(s) run 1 ours lat send 2 B: exit 1, server exit 124: bench_link_shim.sh: the client of measurement 0 fails at once"
expect_line "$RXE_OUT.log" "  2 guest(s) run 1 ours lat send 64 B: no exit status, server did not say: the link between the guests stopped under it (link-events.txt)"
expect_no_text "$out/guests-2.part1.b.out" "did not reach measurement"
expect_text "$RXE_OUT.log" "rxe-vm: guest b: the link between the guests stopped (guest b: virtio_net virtio2 eth0: NETDEV WATCHDOG: CPU: 0: transmit queue 0 timed out 5312 ms (written by bench_link_shim.sh))"
expect_text "$RXE_OUT.log" "bench.sh: the link between the guests stopped (virtio_net virtio2 eth0: NETDEV WATCHDOG: CPU: 0: transmit queue 0 timed out 5312 ms (written by bench_link_shim.sh)); booting them again for the 1 measurement(s) left"
expect_line "$out/link-events.txt" "guests 2, part 1: virtio_net virtio2 eth0: NETDEV WATCHDOG: CPU: 0: transmit queue 0 timed out 5312 ms (written by bench_link_shim.sh); measurements after 2 run again"
# The first part ran 0 to 2 and stopped in 3; the second ran 3 alone; the
# output the report reads has each of the four once, each with figures.
expect_line "$out/guests-2.part1.b.out" "=== RESULT 2 1 3 ours lat send 64 20"
grep -c '^=== END rc=' "$out/guests-2.part1.b.out" >"$RXE_OUT_DIR/part1-ended"
expect_line "$RXE_OUT_DIR/part1-ended" $((4 + again))
expect_line "$out/guests-2.part2.b.out" "=== RESULT 2 1 3 ours lat send 64 20"
expect_no_text "$out/guests-2.part2.b.out" "=== RESULT 2 1 2 "
python3 - "$out/results.json" >"$RXE_OUT_DIR/measured.txt" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for m in sorted(doc["measurements"], key=lambda m: m["index"]):
    print(m["index"], m["tool"], m["bytes"], m["rc"],
          "figures" if m["figures"] else "none")
PY
wc -l <"$RXE_OUT_DIR/measured.txt" >"$RXE_OUT_DIR/measured-count"
expect_line "$RXE_OUT_DIR/measured-count" 4
expect_line "$RXE_OUT_DIR/measured.txt" "0 ours 2 0 figures"
expect_line "$RXE_OUT_DIR/measured.txt" "1 perftest 2 0 figures"
expect_line "$RXE_OUT_DIR/measured.txt" "2 perftest 64 0 figures"
expect_line "$RXE_OUT_DIR/measured.txt" "3 ours 64 0 figures"
expect_no_text "$RXE_OUT.log" "did not run"
# bench.sh's progress, a line as each measurement starts: K of the plan's
# 4, in order, the first twice since it failed, the fourth twice since it
# ran again on the new guests (and perftest's once more for each of its
# own failures).  In
# the first part guest b's program was the stand-in; in the second, ours.
grep -oE '^bench\.sh: measurement [0-9]+ of [0-9]+ ' "$RXE_OUT.log" |
	awk '{ printf "%s%s/%s", (NR > 1 ? " " : ""), $3, $5 } END { print "" }' \
	>"$RXE_OUT_DIR/progress"
expect_line "$RXE_OUT_DIR/progress" "1/4 1/4$(printf ' 2/4%.0s' $(seq 0 "$again_2"))$(printf ' 3/4%.0s' $(seq 0 "$again_64")) 4/4 4/4"
expect_line "$RXE_OUT.log" "bench.sh: measurement 2 of 4 (2 guests, round 1): lat send 2 B, 20 iterations: ib_send_lat (perftest)"
expect_line "$RXE_OUT.log" "bench.sh: measurement 3 of 4 (2 guests, round 1): lat send 64 B, 20 iterations: ib_send_lat (perftest)"
expect_line "$RXE_OUT.log" "bench.sh: measurement 4 of 4 (2 guests, round 1): lat send 64 B, 20 iterations: rdma_bench (ours)"
finish
