#!/usr/bin/env bash
# bench.sh: measure rdma_bench and the matching perftest tool on the same
# soft-RoCE (or soft-iWARP) guest(s), in one run, alternating the two tools,
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

Boot soft-RoCE (or soft-iWARP: --device siw) guests with scripts/rxe-vm and measure, for each cell (mode,
operation, size), rdma_bench and the perftest tool that
measures the same thing (ib_send_lat, ib_write_lat, ib_read_lat,
ib_atomic_lat, ib_send_bw, ib_write_bw, ib_read_bw, ib_atomic_bw), one
after the other, round after round; which tool goes first turns from one
cell, and one round, to the next. The report gives each cell a verdict
(behind, even or ahead of perftest) by the paired per-round ratio and the
Wilcoxon signed-rank test, and ends with "N ahead, M even, K behind".

Options:
  --device rxe|siw    rxe: both tools on rxe0 (soft-RoCE), over eth0;
                      siw: both with -R (RDMA_CM) on siw0 (soft-iWARP),
                      over eth1's 198.51.100.x, the guests started with
                      --siw; siw has no atomics or immediate data, so its
                      default --ops is send,write,read and fetch_add,
                      cmp_swap and write_imm are refused (default rxe)
  --setup one|two|both  one guest (both sides on it), two guests, or both
                      set-ups in turn (default both)
  --rounds N          rounds of every cell; a verdict needs 10 (default 10)
  --only CELLS        only these cells, comma-separated MODE:OP:SIZE, as
                      lat:send:2,bw:write:65536 (an atomic's size is 8 and
                      may be left out: lat:fetch_add; a bandwidth variant
                      is OP+VARIANT: bw:write+b:65536); instead of --modes,
                      --ops, --sizes and --variants
  --modes LIST        lat,bw (default lat,bw)
  --ops LIST          comma-separated: send,write,read,fetch_add,cmp_swap,
                      write_imm (default send,write,read,fetch_add)
  --sizes LIST        message sizes in bytes (default 2,4096,65536,1048576)
  --variants LIST     bandwidth cells of their own for SEND and WRITE at
                      64 KiB (when --modes, --ops and --sizes hold them),
                      each run with the same option by both tools: b,
                      both directions at once (-b); q4, four QPs (-q 4),
                      each with the iterations (default none)
  --lat-iters N       iterations per latency measurement (default 200)
  --bw-iters N        iterations per bandwidth measurement (default 1000)
  --max-bytes N       fewer iterations for large messages: at most N bytes
                      per measurement, never fewer than 20 iterations
                      (default 16777216; both tools get the same count)
  --retries N         a measurement in which either side failed runs
                      again, at most N times, whichever tool it was; the
                      report lists every failed attempt (0 to 5, default 2)
  --out DIR           where results go (default build/bench-<date>)
  --build DIR         the build tree with rdma_bench, brought up to
                      date with cmake --build first (default build)
  --control TOOL      an A/A run: both tools' turns run TOOL (ours or
                      perftest), so each ratio is TOOL against itself, in
                      the same order and on the same guests as a real run:
                      how far the rig's noise alone moves a ratio; api,
                      an A/B run of rdma_bench's two APIs: its own turn
                      on ibv_post_send, perftest's with --new-api (rxe)
  --new-api           rdma_bench posts with ibv_wr_* on an extended QP
                      and CQ and polls with ibv_poll_cq, as perftest
                      does by default (its --new-api); without it
                      rdma_bench posts with ibv_post_send (rxe only:
                      siw0 has no extended QP or CQ)
  --dry-run           print the plan, one line per measurement (guests,
                      round, index, tool, mode, op, size, iterations,
                      port), and exit: no build, no guests
  -h, --help          this help

The defaults with --variants b,q4 are the plan of docs/benchmarks.md's
reference run: both set-ups, 10 rounds of 60 cells (SEND, WRITE, READ at
2 B, 4 KiB, 64 KiB, 1 MiB and fetch_add, latency and bandwidth, and the
four variants). perftest's write_imm latency and bandwidth are
ib_write_lat/ib_write_bw with --write_with_imm; cmp_swap is ib_atomic_*
-A CMP_AND_SWAP. Writes DIR/table.txt, DIR/results.json, DIR/*.png and
the raw outputs; says on stderr as each measurement starts which one it
is (K of N). Exits 1 if a cell is behind, or a measurement gave no
figures on any attempt or did not run.
EOF
}

die() {
	echo "bench.sh: $*" >&2
	exit 1
}

note() {
	echo "bench.sh: $*" >&2
}

SETUP=both
DEVICE=rxe
ROUNDS=10
OPS=
MODES=lat,bw
SIZES=2,4096,65536,1048576
VARIANTS=
ONLY=
LAT_ITERS=200
BW_ITERS=1000
MAX_BYTES=16777216
RETRIES=2
# Fewest iterations a large message is cut down to.
MIN_ITERS=20
OUT=
BUILD=$SOURCE_DIR/build
CONTROL=
DRY_RUN=
NEW_API=
# The options among --modes, --ops and --sizes given, refused with --only.
PICKED=

while [ $# -gt 0 ]; do
	case "$1" in
	--dry-run) DRY_RUN=1; shift; continue ;;
	--new-api) NEW_API=1; shift; continue ;;
	-h | --help) usage; exit 0 ;;
	--device | --setup | --rounds | --only | --ops | --modes | --sizes | --variants | \
		--lat-iters | --bw-iters | --max-bytes | --retries | --out | --build | --control)
		[ $# -ge 2 ] || die "option $1 needs a value (see --help)"
		;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
	case "$1" in
	--device) DEVICE=$2 ;;
	--setup) SETUP=$2 ;;
	--rounds) ROUNDS=$2 ;;
	--only) ONLY=$2 ;;
	--ops) OPS=$2; PICKED+=" $1" ;;
	--modes) MODES=$2; PICKED+=" $1" ;;
	--sizes) SIZES=$2; PICKED+=" $1" ;;
	--variants) VARIANTS=$2; PICKED+=" $1" ;;
	--lat-iters) LAT_ITERS=$2 ;;
	--bw-iters) BW_ITERS=$2 ;;
	--max-bytes) MAX_BYTES=$2 ;;
	--retries) RETRIES=$2 ;;
	--out) OUT=$2 ;;
	--build) BUILD=$2 ;;
	--control) CONTROL=$2 ;;
	esac
	shift 2
done

case "$SETUP" in
one) SETUPS=(1) ;;
two) SETUPS=(2) ;;
both) SETUPS=(1 2) ;;
*) die "invalid --setup value '$SETUP' (expected one, two or both)" ;;
esac
# START_FLAGS: what rxe-vm start adds for the device.
case "$DEVICE" in
rxe) START_FLAGS=() ;;
siw) START_FLAGS=(--siw) ;;
*) die "invalid --device value '$DEVICE' (expected rxe or siw)" ;;
esac
if [ -z "$OPS" ]; then
	OPS=send,write,read,fetch_add
	[ "$DEVICE" = siw ] && OPS=send,write,read
fi
case "$CONTROL" in
'' | ours | perftest | api) ;;
*) die "invalid --control value '$CONTROL' (expected ours, perftest or api)" ;;
esac
if [ "$CONTROL" = api ] && [ "$DEVICE" = siw ]; then
	die "--control api needs --device rxe: siw0 has no extended QP or CQ (ibv_create_cq_ex fails there)"
fi
if [ -n "$NEW_API" ] && [ "$CONTROL" = api ]; then
	die "--control api runs rdma_bench with --new-api in perftest's turn and without it in its own: leave out --new-api"
fi
if [ -n "$NEW_API" ] && [ "$DEVICE" = siw ]; then
	die "--new-api needs --device rxe: siw0 has no extended QP or CQ (ibv_create_cq_ex fails there)"
fi
if [ -n "$NEW_API" ] && [ "$CONTROL" = perftest ]; then
	die "--new-api is rdma_bench's: an A/A run of perftest (--control perftest) runs none"
fi
# A whole number, at least 1, for option $1 with value $2.
check_count() {
	if ! [[ "$2" =~ ^[0-9]+$ ]] || [ "$2" -lt 1 ]; then
		die "invalid $1 value '$2' (expected a whole number, at least 1)"
	fi
}
check_count --rounds "$ROUNDS"
check_count --lat-iters "$LAT_ITERS"
check_count --bw-iters "$BW_ITERS"
check_count --max-bytes "$MAX_BYTES"
if ! [[ "$RETRIES" =~ ^[0-5]$ ]]; then
	die "invalid --retries value '$RETRIES' (expected a whole number from 0 to 5)"
fi
if [ "$LAT_ITERS" -lt 5 ] || [ "$BW_ITERS" -lt 5 ]; then
	die "perftest needs at least 5 iterations"
fi
if [ -n "$ONLY" ] && [ -n "$PICKED" ]; then
	die "--only names the cells itself: leave out${PICKED}"
fi

# A bandwidth variant's name (after the + of an operation): b, both
# directions at once, perftest's and rdma_bench's -b; q4, four QPs, their
# -q 4.
check_variant() {
	case "$1" in
	b | q4) return 0 ;;
	*) return 1 ;;
	esac
}

# Cell $1 of --only (MODE:OP:SIZE) on stdout as the plan writes it, an
# atomic's size made 8; fails if it is no cell.
check_cell() {
	local mode op size rest
	IFS=: read -r mode op size rest <<<"$1"
	case "$mode" in
	lat | bw) ;;
	*) return 1 ;;
	esac
	case "$op" in
	fetch_add | cmp_swap)
		[ -z "$size" ] || [ "$size" = 8 ] || return 1
		size=8
		;;
	send+* | write+*)
		[ "$mode" = bw ] && check_variant "${op#*+}" || return 1
		[[ "$size" =~ ^[1-9][0-9]{0,6}$ ]] || return 1
		[ "$size" -le 8388608 ] || return 1
		;;
	send | write | read | write_imm)
		[[ "$size" =~ ^[1-9][0-9]{0,6}$ ]] || return 1
		[ "$size" -le 8388608 ] || return 1
		;;
	*) return 1 ;;
	esac
	[ -z "$rest" ] || return 1
	echo "$mode:$op:$size"
}

# CELLS: the cells of one round, MODE:OP:SIZE, in order.
CELLS=()
if [ -n "$ONLY" ]; then
	IFS=, read -r -a wanted <<<"$ONLY"
	[ "${#wanted[@]}" -gt 0 ] || die "invalid --only value '' (expected MODE:OP:SIZE,...)"
	for cell in "${wanted[@]}"; do
		checked=$(check_cell "$cell") ||
			die "invalid --only cell '$cell' (expected MODE:OP:SIZE: lat or bw; send, write, read, write_imm, fetch_add or cmp_swap, or for bw send or write +b or +q4; 1 to 8388608 bytes, 8 for an atomic)"
		CELLS+=("$checked")
	done
else
	for mode in ${MODES//,/ }; do
		for op in ${OPS//,/ }; do
			for size in ${SIZES//,/ }; do
				case "$op" in
				fetch_add | cmp_swap)
					CELLS+=("$mode:$op:8")
					break
					;;
				esac
				CELLS+=("$mode:$op:$size")
			done
		done
	done
	# The variants, after the cells they vary: bandwidth, SEND and WRITE,
	# 64 KiB, when the plan measures those.
	for variant in ${VARIANTS//,/ }; do
		check_variant "$variant" ||
			die "invalid --variants value '$VARIANTS' (expected a comma-separated list of: b, q4)"
		[[ ",$MODES," == *,bw,* && ",$SIZES," == *,65536,* ]] || continue
		for op in send write; do
			[[ ",$OPS," == *,$op,* ]] && CELLS+=("bw:$op+$variant:65536")
		done
	done
fi

# siw0 (atomic_cap 0, no immediate data on its send path) can run none
# of these: refused here rather than failing in every round.
if [ "$DEVICE" = siw ]; then
	for cell in "${CELLS[@]}"; do
		case "$cell" in
		*:fetch_add:* | *:cmp_swap:* | *:write_imm:*)
			IFS=: read -r _ op _ <<<"$cell"
			die "--device siw cannot measure $op: siw0 has no atomics and no immediate data (send, write and read only)"
			;;
		esac
	done
fi

# Iterations for SIZE: ITERS, cut so that SIZE * iterations <= MAX_BYTES.
iterations_for() {
	local size=$1 iters=$2 cap
	cap=$((MAX_BYTES / size))
	[ "$cap" -lt "$MIN_ITERS" ] && cap=$MIN_ITERS
	[ "$iters" -gt "$cap" ] && iters=$cap
	echo "$iters"
}

# Each measurement's port: with -R (siw) ours also takes PORT+1 for its
# syncs, so the ports step by 2 there and never meet the next one's.
PORT_STEP=1
[ "$DEVICE" = siw ] && PORT_STEP=2
if [ $((20000 + PORT_STEP * 2 * ROUNDS * ${#CELLS[@]})) -gt 65535 ]; then
	die "$ROUNDS rounds of ${#CELLS[@]} cells need more ports than there are (each measurement takes its own from 20000 on): fewer --rounds or cells"
fi

# The measurement plan, one line per measurement:
#   SETUP ROUND INDEX TOOL MODE OP SIZE ITERS PORT
# Within a round both tools measure one cell back to back. Which goes
# first alternates from one cell to the next and, for each cell, from one
# round to the next, so that whatever going first costs falls on both
# tools alike: the first of a pair follows another cell's measurement, the
# second the same cell's. The turn counts the cells of this round only; a
# count carried over from the rounds before would, with an odd number of
# cells per round, give each cell the same order in every round.
write_plan() {
	local setup=$1 round idx=0 n mode op size iters base first second
	for ((round = 1; round <= ROUNDS; round++)); do
		for ((n = 0; n < ${#CELLS[@]}; n++)); do
			IFS=: read -r mode op size <<<"${CELLS[n]}"
			base=$LAT_ITERS
			[ "$mode" = bw ] && base=$BW_ITERS
			iters=$(iterations_for "$size" "$base")
			if (((round + n) % 2)); then
				first=ours second=perftest
			else
				first=perftest second=ours
			fi
			for tool in $first $second; do
				echo "$setup $round $idx $tool $mode $op $size $iters $((20000 + PORT_STEP * idx))"
				idx=$((idx + 1))
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
PROGRAM=$BUILD/rdma_bench
[ -x "$PROGRAM" ] || die "no $PROGRAM: build first (cmake -S . -B build && cmake --build build)"
# A binary older than the sources would be measured as if it were them.
cmake --build "$BUILD" >&2 || die "failed to bring $BUILD up to date (cmake --build $BUILD)"
[ -n "$OUT" ] || OUT=$BUILD/bench-$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$OUT"
OUT=$(readlink -f "$OUT")
# bench-report.py reads the device its plots name from here, and which
# tool an A/A run ran in both turns.
echo "$DEVICE" >"$OUT/device"
if [ -n "$CONTROL" ]; then
	echo "$CONTROL" >"$OUT/control"
else
	rm -f "$OUT/control"
fi
# and which calls rdma_bench posted with.
if [ -n "$NEW_API" ]; then
	echo new >"$OUT/api"
else
	echo old >"$OUT/api"
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

# The number of FILE's line that ends measurement INDEX's block (0: none).
block_end() {
	awk -v idx="$2" '/^=== RESULT /{ i = $5 }
		/^=== END rc=/ && i == idx { n = NR } END { print n + 0 }' "$1"
}

# FILE's blocks after line END (a block_end): the attempts that the
# stopped link cut short or failed. Each is ended as an attempt that runs
# again, as it does on the new guests, so that the report lists it with
# the failed attempts; one that never ended has no exit status ("none").
attempts_after() {
	tail -n "+$(($2 + 1))" "$1" | awk '
		function cut() {
			if (open)
				print "=== END rc=none, server rc=none: runs again"
			open = 0
		}
		/^=== RESULT / { cut(); open = 1; print; next }
		/^=== END rc=.*: runs again$/ { open = 0; print; next }
		/^=== END rc=/ { open = 0; print $0 ", server rc=none: runs again"; next }
		{ print }
		END { cut() }'
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
	"$RXE_VM" start "${START_FLAGS[@]}" --guests "$setup" "$SESSION" >&2
	# Asked first: after a stopped link the guests are still busy.
	"$RXE_VM" exec --out "$OUT/setup-$setup" "$SESSION" \
		-a 'uname -r; nproc' >/dev/null || true
	# The guests see the session folder read-write at the same path.
	local progress=$SESSION/progress
	: >"$progress"
	local runner="bash $SCRIPTS/bench-guest.sh"
	local common="PROGRAM='$PROGRAM' PLAN='$todo' CONTROL='$CONTROL' DEVICE=$DEVICE"
	common+=" NEW_API='$NEW_API'"
	common+=" PROGRESS='$progress' TOTAL=$total"
	# A measurement run again takes the ports after the plan's last.
	common+=" RETRIES=$RETRIES RETRY_PORT=$((20000 + PORT_STEP * total)) PORT_STEP=$PORT_STEP"
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
	local setup=$1 part=1 client=b last end line g total
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
		end=$(block_end "$prefix.part$part.$client.out" "$last")
		head -n "$end" "$prefix.part$part.$client.out" >>"$prefix.$client.out"
		attempts_after "$prefix.part$part.$client.out" "$end" >>"$prefix.$client.out"
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
