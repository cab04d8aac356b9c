#!/usr/bin/env bash
# bench.sh: measure rdma_rc_example's benchmark mode and the matching perftest
# tool on the same soft-RoCE guest(s), in one run, alternating the two tools,
# repeated; print a side-by-side table of medians with the ratio, write the
# raw figures as JSON and draw PNG plots with gnuplot.  See docs/benchmarks.md.
set -euo pipefail

SELF=$(readlink -f "${BASH_SOURCE[0]}")
SCRIPTS=$(dirname "$SELF")
SOURCE_DIR=$(dirname "$SCRIPTS")
RXE_VM=${RXE_VM:-$SCRIPTS/rxe-vm}

usage() {
	cat <<'EOF'
Usage: scripts/bench.sh [OPTIONS]

Boot soft-RoCE guests with scripts/rxe-vm and measure, for each operation,
mode and size, rdma_rc_example --bench and the perftest tool that measures
the same thing (ib_send_lat, ib_write_lat, ib_read_lat, ib_atomic_lat,
ib_send_bw, ib_write_bw, ib_read_bw, ib_atomic_bw), one after the other;
which tool goes first turns from one measurement, and one run, to the next.

Options:
  --guests 1|2|both   one guest (both sides on it), two guests, or both
                      set-ups in turn (default both)
  --runs N            repetitions; the table shows medians (default 3)
  --ops LIST          comma-separated: send,write,read,fetch_add,cmp_swap,
                      write_imm (default send,write,read,fetch_add)
  --modes LIST        lat,bw (default lat,bw)
  --sizes LIST        message sizes in bytes (default 2,4096,65536,1048576)
  --lat-iters N       iterations per latency measurement (default 200)
  --bw-iters N        iterations per bandwidth measurement (default 1000)
  --max-bytes N       fewer iterations for large messages: at most N bytes
                      per measurement, never fewer than 20 iterations
                      (default 67108864; both tools get the same count)
  --out DIR           where results go (default build/bench-<date>)
  --build DIR         the build tree with rdma_rc_example, brought up to
                      date with cmake --build first (default build)
  --control TOOL      an A/A run: both tools' turns run TOOL (ours or
                      perftest), so each ratio is TOOL against itself, in
                      the same order and on the same guests as a real run:
                      how far the rig's noise alone moves a ratio
  --dry-run           print the plan, one line per measurement (guests, run,
                      index, tool, mode, op, size, iterations, port), and
                      exit: no build, no guests
  -h, --help          this help

perftest's write_imm latency and bandwidth are ib_write_lat/ib_write_bw
with --write_with_imm; cmp_swap is ib_atomic_* -A CMP_AND_SWAP.
Writes DIR/table.txt, DIR/results.json, DIR/*.png and the raw outputs;
says on stderr as each measurement starts which one it is (K of N).
EOF
}

die() {
	echo "bench.sh: $*" >&2
	exit 1
}

note() {
	echo "bench.sh: $*" >&2
}

GUESTS=both
RUNS=3
OPS=send,write,read,fetch_add
MODES=lat,bw
SIZES=2,4096,65536,1048576
LAT_ITERS=200
BW_ITERS=1000
MAX_BYTES=67108864
# Fewest iterations a large message is cut down to.
MIN_ITERS=20
OUT=
BUILD=$SOURCE_DIR/build
CONTROL=
DRY_RUN=

while [ $# -gt 0 ]; do
	case "$1" in
	--guests) GUESTS=${2:?}; shift 2 ;;
	--runs) RUNS=${2:?}; shift 2 ;;
	--ops) OPS=${2:?}; shift 2 ;;
	--modes) MODES=${2:?}; shift 2 ;;
	--sizes) SIZES=${2:?}; shift 2 ;;
	--lat-iters) LAT_ITERS=${2:?}; shift 2 ;;
	--bw-iters) BW_ITERS=${2:?}; shift 2 ;;
	--max-bytes) MAX_BYTES=${2:?}; shift 2 ;;
	--out) OUT=${2:?}; shift 2 ;;
	--build) BUILD=${2:?}; shift 2 ;;
	--control) CONTROL=${2:?}; shift 2 ;;
	--dry-run) DRY_RUN=1; shift ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
done

case "$GUESTS" in
1 | 2) SETUPS=("$GUESTS") ;;
both) SETUPS=(1 2) ;;
*) die "invalid --guests value '$GUESTS' (expected 1, 2 or both)" ;;
esac
case "$CONTROL" in
'' | ours | perftest) ;;
*) die "invalid --control value '$CONTROL' (expected ours or perftest)" ;;
esac
for n in "$RUNS" "$LAT_ITERS" "$BW_ITERS" "$MAX_BYTES"; do
	if ! [[ "$n" =~ ^[0-9]+$ ]] || [ "$n" -lt 1 ]; then
		die "invalid number '$n'"
	fi
done
if [ "$LAT_ITERS" -lt 5 ] || [ "$BW_ITERS" -lt 5 ]; then
	die "perftest needs at least 5 iterations"
fi

# Iterations for SIZE: ITERS, cut so that SIZE * iterations <= MAX_BYTES.
iterations_for() {
	local size=$1 iters=$2 cap
	cap=$((MAX_BYTES / size))
	[ "$cap" -lt "$MIN_ITERS" ] && cap=$MIN_ITERS
	[ "$iters" -gt "$cap" ] && iters=$cap
	echo "$iters"
}

# The measurement plan, one line per measurement:
#   SETUP RUN INDEX TOOL MODE OP SIZE ITERS PORT
# Within a run both tools measure one (mode, op, size), a cell, back to
# back. Which goes first alternates from one cell to the next and, for each
# cell, from one run to the next, so that whatever going first costs falls
# on both tools alike: the first of a pair follows another cell's
# measurement, the second the same cell's. The turn counts the cells of
# this run only; a count carried over from the runs before would, with an
# odd number of cells per run, give each cell the same order in every run.
write_plan() {
	local setup=$1 run idx=0 cell mode op size iters base first second
	for ((run = 1; run <= RUNS; run++)); do
		cell=0
		for mode in ${MODES//,/ }; do
			base=$LAT_ITERS
			[ "$mode" = bw ] && base=$BW_ITERS
			for op in ${OPS//,/ }; do
				for size in ${SIZES//,/ }; do
					case "$op" in
					fetch_add | cmp_swap) size=8 ;;
					esac
					iters=$(iterations_for "$size" "$base")
					if (((run + cell) % 2)); then
						first=ours second=perftest
					else
						first=perftest second=ours
					fi
					for tool in $first $second; do
						echo "$setup $run $idx $tool $mode $op $size $iters $((20000 + idx))"
						idx=$((idx + 1))
					done
					cell=$((cell + 1))
					case "$op" in
					fetch_add | cmp_swap) break ;;
					esac
				done
			done
		done
	done
}

if [ -n "$DRY_RUN" ]; then
	for setup in "${SETUPS[@]}"; do
		write_plan "$setup"
	done
	exit 0
fi

BUILD=$(readlink -f "$BUILD")
PROGRAM=$BUILD/rdma_rc_example
[ -x "$PROGRAM" ] || die "no $PROGRAM: build first (cmake -S . -B build && cmake --build build)"
# A binary older than the sources would be measured as if it were them.
cmake --build "$BUILD" >&2 || die "failed to bring $BUILD up to date (cmake --build $BUILD)"
[ -n "$OUT" ] || OUT=$BUILD/bench-$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$OUT"
OUT=$(readlink -f "$OUT")
# bench-report.py reads which tool an A/A run ran in both turns from here.
if [ -n "$CONTROL" ]; then
	echo "$CONTROL" >"$OUT/control"
else
	rm -f "$OUT/control"
fi

# perftest to measure against, gnuplot to draw the plots, python3 for the
# report; rxe-vm installs what the guests need.
# shellcheck source=scripts/packages.sh
. "$SCRIPTS/packages.sh"
install_missing_packages perftest gnuplot-nox python3

SESSION=
# The rxe-vm exec that runs in the background while its progress is shown.
EXEC_PID=
cleanup() {
	if [ -n "$EXEC_PID" ]; then
		kill "$EXEC_PID" 2>/dev/null || true
	fi
	if [ -n "$SESSION" ]; then
		"$RXE_VM" stop "$SESSION" >/dev/null 2>&1 || true
	fi
}
trap cleanup EXIT

# A link between the guests that stops for good (QEMU 7.2's stream netdev
# can stop taking a guest's frames; see docs/soft-roce-rig.md) leaves
# every later measurement failing to connect.  rxe-vm exec gives up on
# the plan when a guest's kernel says its transmit queue timed out; the
# guests are then booted again and the plan goes on after the last
# measurement that gave figures, at most this many times per set-up.
MAX_RESTARTS=3
# The line rxe-vm exec watches the consoles for.
FROZEN_LINK='transmit queue [0-9]+ timed out'

# The index of the last measurement in a client's output FILE that ended
# with status 0, or -1 if none did.
last_success() {
	awk '/^=== RESULT /{ idx = $5 }
		/^=== END rc=0$/{ last = idx }
		END { print (last == "" ? -1 : last) }' "$1"
}

# FILE's lines up to the end of measurement INDEX's block.
output_through() {
	local file=$1 idx=$2 n
	n=$(awk -v idx="$idx" '/^=== RESULT /{ i = $5 }
		/^=== END rc=/ && i == idx { n = NR } END { print n + 0 }' "$file")
	head -n "$n" "$file"
}

# Show the lines FILE gets, each after "bench.sh: ", until process PID
# has ended (tail looks once a second) and FILE has been read to its end.
show_progress() {
	local file=$1 pid=$2 line
	tail -n +1 -F --pid="$pid" "$file" 2>/dev/null |
		while IFS= read -r line; do
			echo "bench.sh: $line" >&2
		done
}

# Boot the guests of SETUP and run the measurements of plan file TODO, out
# of TOTAL in the set-up's plan; their outputs go to PREFIX.a.out (and
# .b.out), the consoles to PREFIX.console-a.log (and -b).  Each
# measurement's line is shown as it starts.
run_part() {
	local setup=$1 todo=$2 total=$3 prefix=$4 g
	SESSION=$OUT/session-$setup
	note "booting $setup guest(s) for $(wc -l <"$todo") measurement(s)"
	"$RXE_VM" start --guests "$setup" "$SESSION" >&2
	# Asked first: after a stopped link the guests are still busy.
	"$RXE_VM" exec --out "$OUT/setup-$setup" "$SESSION" \
		-a 'uname -r; nproc' >/dev/null || true
	# The guests see the session folder read-write at the same path.
	local progress=$SESSION/progress
	: >"$progress"
	local runner="bash $SCRIPTS/bench-guest.sh"
	local common="PROGRAM='$PROGRAM' PLAN='$todo' CONTROL='$CONTROL'"
	common+=" PROGRESS='$progress' TOTAL=$total"
	# Generous: perftest in one guest can take tens of ms per round trip.
	local timeout=$((600 + $(wc -l <"$todo") * 120))
	# exec: the background process is rxe-vm exec itself, for cleanup.
	(
		cd "$OUT"
		if [ "$setup" = 1 ]; then
			exec "$RXE_VM" exec --timeout "$timeout" --out "$prefix" "$SESSION" \
				-a "env $common ROLE=both $runner" >/dev/null
		else
			exec "$RXE_VM" exec --timeout "$timeout" --out "$prefix" "$SESSION" \
				-a "env $common ROLE=server $runner" \
				-b "env $common ROLE=client $runner" >/dev/null
		fi
	) &
	EXEC_PID=$!
	show_progress "$progress" "$EXEC_PID" || true
	wait "$EXEC_PID" || true
	EXEC_PID=
	"$RXE_VM" stop "$SESSION" >&2 || true
	SESSION=
	for g in a b; do
		[ -e "$OUT/session-$setup/console-$g.log" ] || continue
		tr -d '\r' <"$OUT/session-$setup/console-$g.log" >"$prefix.console-$g.log"
	done
}

# Run the plan of SETUP, in parts when the link stops; the outputs of the
# measurements kept end up in guests-SETUP.a.out (and .b.out) for
# bench-report.py, each part's whole outputs in guests-SETUP.partN.*.
run_setup() {
	local setup=$1 part=1 client=b last line g total
	local plan=$OUT/plan-$setup.txt todo=$OUT/todo-$setup.txt
	local prefix=$OUT/guests-$setup
	[ "$setup" = 1 ] && client=a
	write_plan "$setup" >"$plan"
	total=$(wc -l <"$plan")
	echo "bench.sh: $setup guest(s): $total measurements" >&2
	cp "$plan" "$todo"
	: >"$prefix.a.out"
	[ "$setup" = 1 ] || : >"$prefix.b.out"
	while :; do
		run_part "$setup" "$todo" "$total" "$prefix.part$part"
		line=$(cat "$prefix.part$part".console-?.log 2>/dev/null |
			grep -a -m 1 -E "$FROZEN_LINK") || line=
		if [ -z "$line" ]; then
			for g in a b; do
				[ -e "$prefix.part$part.$g.out" ] || continue
				cat "$prefix.part$part.$g.out" >>"$prefix.$g.out"
			done
			break
		fi
		# Whatever ran after the last measurement with figures may have
		# met the stopped link: it runs again on the new guests.
		last=$(last_success "$prefix.part$part.$client.out")
		output_through "$prefix.part$part.$client.out" "$last" >>"$prefix.$client.out"
		[ "$setup" = 1 ] || cat "$prefix.part$part.a.out" >>"$prefix.a.out"
		echo "guests $setup, part $part: ${line#*] }; measurements after $last run again" >>"$OUT/link-events.txt"
		awk -v last="$last" '$3 > last' "$todo" >"$todo.next"
		mv "$todo.next" "$todo"
		if [ "$part" -gt "$MAX_RESTARTS" ]; then
			echo "bench.sh: the link between the guests stopped $part times; giving up on the $(wc -l <"$todo") measurement(s) left" >&2
			break
		fi
		if [ ! -s "$todo" ]; then
			break
		fi
		echo "bench.sh: the link between the guests stopped (${line#*] }); booting them again for the $(wc -l <"$todo") measurement(s) left" >&2
		part=$((part + 1))
	done
	rm -f "$todo"
}

for setup in "${SETUPS[@]}"; do
	run_setup "$setup"
done

python3 "$SCRIPTS/bench-report.py" "$OUT" "${SETUPS[@]}"
