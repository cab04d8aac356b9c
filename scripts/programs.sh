# shellcheck shell=bash
# Building the programs for a script that runs them in the guests, with
# what test.sh installs, its output in a log so that the caller's own
# output stays readable.  Sourced by demo.sh and wire.sh, each of which
# defines die MESSAGE (print, exit 1) and sets ROOT and BUILD_DIR first.

# build_programs NAME: install what is missing, configure and build (as
# test.sh --build-only does), then set RC_EXAMPLE and MC_EXAMPLE to the
# built programs.  NAME labels the log; the log's end is shown on failure.
build_programs() {
	local name=$1 log
	log=$(mktemp "${TMPDIR:-/tmp}/rxe-$name-build.XXXXXX")
	echo "$name: installing what is missing and building (log: $log)"
	if ! BUILD_DIR=$BUILD_DIR bash "$ROOT/scripts/test.sh" --build-only \
		>"$log" 2>&1; then
		tail -n 40 "$log" >&2
		die "the build failed; the whole log is $log"
	fi
	rm -f "$log"
	# Read by the script that sourced this file.
	# shellcheck disable=SC2034
	RC_EXAMPLE=$(find_program rdma_rc_example "${RDMA_RC_EXAMPLE:-}")
	# shellcheck disable=SC2034
	MC_EXAMPLE=$(find_program rdma_mc_example "${RDMA_MC_EXAMPLE:-}")
}

# find_program NAME [GIVEN]: GIVEN when set, else the executable NAME at
# the top of the build tree, where CMake puts both programs (a search of
# the tree could find an older copy, or the package test's installed one).
find_program() {
	local name=$1 exe=${2:-$BUILD_DIR/$1}
	if [ -z "$exe" ] || [ ! -x "$exe" ]; then
		die "$name was not built under $BUILD_DIR"
	fi
	echo "$exe"
}
