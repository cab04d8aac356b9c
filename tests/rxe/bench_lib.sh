# shellcheck shell=bash
# Shared by the bench_* scenarios (after lib.sh): check one benchmark's
# figures with bench_check.py.

_bench_here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")

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
