#!/usr/bin/env bash
# scripts/bench.sh --control perftest on one guest of its own: an A/A run,
# perftest in both turns of the one cell (2 B READ latency, one round).
# The turn that is ours in a normal run must have run perftest, the report
# must read perftest's figures in both and say on its table that the
# ratio is perftest against itself.
. "$(dirname "$0")/lib.sh"

: "${SOURCE_DIR:?}" "${BUILD_DIR:?}"
out=$RXE_OUT_DIR/bench
rc=0
bash "$SOURCE_DIR/scripts/bench.sh" --setup one --rounds 1 --ops read \
	--modes lat --sizes 2 --lat-iters 20 --control perftest \
	--build "$BUILD_DIR" --out "$out" >"$RXE_OUT_DIR/bench.log" 2>&1 || rc=$?
RXE_OUT=$RXE_OUT_DIR/bench
echo "$rc" >"$RXE_OUT.rc"
expect_rc "$RXE_OUT.rc" 0
expect_line "$out/control" perftest
# Both turns ran perftest's ib_read_lat: its table, no JSON of ours.
expect_line "$out/guests-1.a.out" "=== RESULT 1 1 0 ours lat read 2 20"
expect_line "$out/guests-1.a.out" "=== RESULT 1 1 1 perftest lat read 2 20"
grep -c '^ #bytes #iterations' "$out/guests-1.a.out" >"$RXE_OUT_DIR/perftest-tables"
expect_line "$RXE_OUT_DIR/perftest-tables" 2
expect_no_text "$out/guests-1.a.out" "=== JSON"
head -n 1 "$out/table.txt" >"$RXE_OUT_DIR/table-head"
expect_line "$RXE_OUT_DIR/table-head" "A/A control: perftest ran in both turns; the columns name the turns, the ratio is the tool against itself"
python3 - "$out/results.json" >"$RXE_OUT_DIR/measured.txt" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
print("control", doc["control"])
for m in sorted(doc["measurements"], key=lambda m: m["index"]):
    fig = m["figures"] or {}
    print(m["index"], m["tool"], m["ran"], m["rc"],
          "iterations", fig.get("iterations"),
          "t_typical>0" if (fig.get("t_typical") or 0) > 0 else "no t_typical")
row = doc["medians"][0]
print("ratio", "set" if row["ratio"] else "none")
PY
expect_line "$RXE_OUT_DIR/measured.txt" "control perftest"
expect_line "$RXE_OUT_DIR/measured.txt" "0 ours perftest 0 iterations 20 t_typical>0"
expect_line "$RXE_OUT_DIR/measured.txt" "1 perftest perftest 0 iterations 20 t_typical>0"
expect_line "$RXE_OUT_DIR/measured.txt" "ratio set"
if [ -s "$out/lat-1g.png" ]; then
	echo drawn >"$RXE_OUT_DIR/png"
else
	echo "not drawn" >"$RXE_OUT_DIR/png"
fi
expect_line "$RXE_OUT_DIR/png" drawn
# bench.sh's progress: one line per measurement as it starts, naming the
# program that ran and, in the turn of ours, that it was perftest's.
grep -c '^bench\.sh: measurement ' "$RXE_OUT.log" >"$RXE_OUT_DIR/progress-lines"
expect_line "$RXE_OUT_DIR/progress-lines" 2
expect_line "$RXE_OUT.log" "bench.sh: measurement 1 of 2 (1 guest, round 1): lat read 2 B, 20 iterations: ib_read_lat (perftest, in the turn of ours)"
expect_line "$RXE_OUT.log" "bench.sh: measurement 2 of 2 (1 guest, round 1): lat read 2 B, 20 iterations: ib_read_lat (perftest)"
finish
