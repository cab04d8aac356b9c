# shellcheck shell=bash
# Shared by the bench_* scenarios and siw_rc (after lib.sh and
# rc_common.sh): run rdma_bench's server and client, check one
# benchmark's figures with bench_check.py and its other reports with
# bench_extras.py.

: "${RDMA_BENCH:?RDMA_BENCH is not set: build rdma_bench first}"

_bench_here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")

# bench_pair NAME PORT SERVER_ARGS CLIENT_ARGS [rxe_pair options]: rc_pair
# for rdma_bench; each ARGS starts with the measurement, lat or bw.
bench_pair() {
	program_pair "$RDMA_BENCH" "$@"
}

# bench_extras NAME CHECK ARGS: bench_extras.py's CHECK (histogram,
# CPU shares, counters, -D, -b, -q, ...) on ARGS, its lines counted as
# checks here.
bench_extras() {
	local name=$1 out
	shift
	if out=$(python3 "$_bench_here/bench_extras.py" "$@"); then
		_rxe_pass "$name: $(grep -c '^ok:' <<<"$out") checks of $1"
	else
		RXE_FAILED=$((RXE_FAILED + 1))
		echo "FAIL: $name: bench_extras.py $*:"
		printf '%s\n' "$out" | sed 's/^/  | /'
	fi
}

# check_figures NAME MODE OP ITERS SIZES: check run NAME's client output
# ($RXE_RUNS/NAME.client.out) and the JSON its --out_json_file wrote
# ($RXE_RUNS/NAME.json); the checker's lines are counted here.
check_figures() {
	local run=$RXE_RUNS/$1 out
	shift
	if out=$(python3 "$_bench_here/bench_check.py" "$@" "$run.client.out" \
		"$run.json"); then
		_rxe_pass "figures of $2 $1 are consistent ($(grep -c '^ok:' <<<"$out") checks)"
	else
		RXE_FAILED=$((RXE_FAILED + 1))
		echo "FAIL: bench_check.py $*:"
		printf '%s\n' "$out" | sed 's/^/  | /'
		echo "  client output:"
		sed 's/^/  | /' "$run.client.out"
	fi
}
