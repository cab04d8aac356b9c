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
  --dry-run           print the plan, one line per measurement (guests, run,
                      index, tool, mode, op, size, iterations, port), and
                      exit: no build, no guests
  -h, --help          this help

perftest's write_imm latency and bandwidth are ib_write_lat/ib_write_bw
with --write_with_imm; cmp_swap is ib_atomic_* -A CMP_AND_SWAP.
Writes DIR/table.txt, DIR/results.json, DIR/*.png and the raw outputs.
EOF
}

die() {
	echo "bench.sh: $*" >&2
	exit 1
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
	--dry-run) DRY_RUN=1; shift ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
done

case "$GUESTS" in
1 | 2) SETUPS=$GUESTS ;;
both) SETUPS="1 2" ;;
*) die "invalid --guests value '$GUESTS' (expected 1, 2 or both)" ;;
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
	for setup in $SETUPS; do
		write_plan "$setup"
	done
	exit 0
fi

BUILD=$(readlink -f "$BUILD")
PROGRAM=$BUILD/src/rdma_rc_example
[ -x "$PROGRAM" ] || die "no $PROGRAM: build first (cmake -S . -B build && cmake --build build)"
# A binary older than the sources would be measured as if it were them.
cmake --build "$BUILD" >&2 || die "failed to bring $BUILD up to date (cmake --build $BUILD)"
[ -n "$OUT" ] || OUT=$BUILD/bench-$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$OUT"
OUT=$(readlink -f "$OUT")

command -v gnuplot >/dev/null 2>&1 || {
	echo "bench.sh: installing gnuplot-nox" >&2
	if [ "$(id -u)" -eq 0 ]; then
		apt-get install -y -q --no-install-recommends gnuplot-nox >&2
	else
		sudo apt-get install -y -q --no-install-recommends gnuplot-nox >&2
	fi
}
command -v ib_send_lat >/dev/null 2>&1 || die "perftest is not installed (apt-get install perftest)"

SESSION=
cleanup() {
	if [ -n "$SESSION" ]; then
		"$RXE_VM" stop "$SESSION" >/dev/null 2>&1 || true
	fi
}
trap cleanup EXIT

run_setup() {
	local setup=$1
	local plan=$OUT/plan-$setup.txt prefix=$OUT/guests-$setup
	write_plan "$setup" >"$plan"
	echo "bench.sh: $setup guest(s): $(wc -l <"$plan") measurements" >&2
	SESSION=$OUT/session-$setup
	"$RXE_VM" start --guests "$setup" "$SESSION" >&2
	local runner="bash $SCRIPTS/bench-guest.sh"
	local common="PROGRAM='$PROGRAM' PLAN='$plan'"
	# Generous: perftest in one guest can take tens of ms per round trip.
	local timeout=$((600 + $(wc -l <"$plan") * 120))
	(
		cd "$OUT"
		if [ "$setup" = 1 ]; then
			"$RXE_VM" exec --timeout "$timeout" --out "$prefix" "$SESSION" \
				-a "env $common ROLE=both $runner" >/dev/null || true
		else
			"$RXE_VM" exec --timeout "$timeout" --out "$prefix" "$SESSION" \
				-a "env $common ROLE=server $runner" \
				-b "env $common ROLE=client $runner" >/dev/null || true
		fi
	)
	"$RXE_VM" exec --out "$OUT/setup-$setup" "$SESSION" \
		-a 'uname -r; nproc' >/dev/null || true
	"$RXE_VM" stop "$SESSION" >&2 || true
	SESSION=
}

for setup in $SETUPS; do
	run_setup "$setup"
done

# shellcheck disable=SC2086 # one argument per set-up
python3 "$SCRIPTS/bench-report.py" "$OUT" $SETUPS
