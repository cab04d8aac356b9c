# shellcheck shell=bash
# Shared by the bench_* scenarios (after lib.sh): check one benchmark's
# figures with bench_check.py.

_bench_here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")

# check_figures MODE OP ITERS SIZES: check $RXE_OUT.client.out and
# $RXE_OUT.out.json; the checker's lines are counted here.
check_figures() {
	local out
	if out=$(python3 "$_bench_here/bench_check.py" "$@" "$RXE_OUT.client.out" \
		"$RXE_OUT.out.json"); then
		_rxe_pass "figures of $2 $1 are consistent ($(grep -c '^ok:' <<<"$out") checks)"
	else
		RXE_FAILED=$((RXE_FAILED + 1))
		echo "FAIL: bench_check.py $*:"
		sed 's/^/  | /' <<<"$out"
		echo "  client output:"
		sed 's/^/  | /' "$RXE_OUT.client.out"
	fi
}

# Shell text for a guest script: it defines sections NAME FILE..., which
# prints a "=== NAME.FILE" line and then FILE (nothing if it is missing)
# for each FILE: the format split_sections reads back on the host.
BENCH_SECTIONS_FN='sections() {
	local name=$1 f
	shift
	for f; do
		echo "=== $name.$f"
		cat "$f" 2>/dev/null
	done
}'

# split_sections FILE PREFIX: a guest's output made of "=== NAME" sections
# becomes the files PREFIX.NAME.
split_sections() {
	awk -v dir="$2" '/^=== /{ f = dir "." $2; next } f { print > f }' "$1"
}
