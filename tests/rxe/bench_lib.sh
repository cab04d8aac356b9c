# shellcheck shell=bash
# Shared by the bench_* scenarios (after lib.sh and rc_common.sh): run
# rdma_bench's server and client, check one benchmark's figures with
# bench_check.py.

: "${RDMA_BENCH:?RDMA_BENCH is not set: build rdma_bench first}"

_bench_here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")

# bench_pair NAME PORT SERVER_ARGS CLIENT_ARGS [rxe_pair options]: rc_pair
# for rdma_bench; each ARGS starts with the measurement, lat or bw.
bench_pair() {
	program_pair "$RDMA_BENCH" "$@"
}

# check_figures NAME MODE OP ITERS SIZES: check run NAME's client output
# ($RXE_RUNS/NAME.client.out) and the JSON its --json wrote
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
