#!/usr/bin/env bash
# The transcripts of README.md and docs/*.md against a fresh run: every
# recipe of transcripts.recipes in one plan on the shared guests (both at
# once), then scripts/transcripts.py compares each marked block with its
# run's output, masked, and names page, line and recipe of each block that
# differs.  With TRANSCRIPTS_UPDATE=1 (scripts/transcripts.sh --update) it
# writes the fresh output into the pages instead.
. "$(dirname "$0")/lib.sh"

tx=$SOURCE_DIR/scripts/transcripts.py
# The pages show what a user's build prints: in CI, the plain build's
# programs (test.sh's RDMA_PLAIN_BUILD), not the sanitized ones, whose
# start-up made this the slowest scenario of its lane; the lessons these
# recipes run are run sanitized by the ops and transport scenarios.
build=${RDMA_PLAIN_BUILD:-$BUILD_DIR}
# Every program the recipes run, built beside the others.
for p in rdma_rc_example rdma_lessons rdma_check rdma_mc_example; do
	[ -x "$build/$p" ] || { echo "transcripts: $build/$p is not built"; exit 1; }
done
plan=$(python3 "$tx" plan --build "$build") || exit 1
eval "$plan"
rxe_go transcripts 110
if [ "${TRANSCRIPTS_UPDATE:-}" = 1 ]; then
	python3 "$tx" update --runs "$RXE_RUNS"
	expect_status $? 0 "transcripts.py update"
else
	python3 "$tx" check --runs "$RXE_RUNS"
	expect_status $? 0 "transcripts.py check: every marked block as a fresh run prints it"
fi
finish
