#!/usr/bin/env bash
# Build the libFuzzer targets with clang and fuzz each for a bounded time,
# starting from the committed corpus (tests/fuzz/corpus/TARGET).  Fails on
# any crash, sanitizer report or assertion; the crashing input is kept in
# $FUZZ_DIR/artifacts.
#
#   scripts/fuzz.sh                 45 s per target
#   FUZZ_SECONDS=300 scripts/fuzz.sh
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
FUZZ_DIR=${FUZZ_DIR:-$ROOT/build-fuzz}
FUZZ_SECONDS=${FUZZ_SECONDS:-45}
TARGETS=(fuzz_qp_info fuzz_config)

die() {
	echo "fuzz.sh: $*" >&2
	exit 1
}
note() {
	echo "fuzz.sh: $*" >&2
}
# shellcheck source=scripts/packages.sh
. "$ROOT/scripts/packages.sh"
install_missing_packages clang cmake make pkg-config libibverbs-dev \
	librdmacm-dev
command -v clang >/dev/null 2>&1 || die "clang not found after installing it"
CC=clang cmake -S "$ROOT" -B "$FUZZ_DIR" -DRDMA_FUZZ=ON -DRDMA_WERROR=ON \
	-DBUILD_TESTING=OFF >/dev/null
cmake --build "$FUZZ_DIR" -j2 --target "${TARGETS[@]}"

mkdir -p "$FUZZ_DIR/artifacts"
status=0
for target in "${TARGETS[@]}"; do
	name=${target#fuzz_}
	# New inputs go to a scratch corpus; the committed one is only read.
	scratch=$FUZZ_DIR/corpus/$name
	mkdir -p "$scratch"
	echo "fuzz.sh: $target for $FUZZ_SECONDS s"
	if ! "$FUZZ_DIR/tests/fuzz/$target" -max_total_time="$FUZZ_SECONDS" \
		-print_final_stats=1 -artifact_prefix="$FUZZ_DIR/artifacts/$name-" \
		"$scratch" "$ROOT/tests/fuzz/corpus/$name" \
		>"$FUZZ_DIR/$target.log" 2>&1; then
		echo "fuzz.sh: $target FAILED; the end of $FUZZ_DIR/$target.log:" >&2
		tail -40 "$FUZZ_DIR/$target.log" >&2
		status=1
	else
		grep -E '^stat::number_of_executed_units|^Done' "$FUZZ_DIR/$target.log" || true
	fi
done
exit "$status"
