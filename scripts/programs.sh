# shellcheck shell=bash
# Building the programs for a script that runs them in the guests, with
# only what the build takes, its output in a log so that the caller's own
# output stays readable; each step is said on stderr.  Sourced by demo.sh
# and wire.sh, each of which defines die MESSAGE (print, exit 1) and note
# MESSAGE (print on stderr), sources packages.sh and sets ROOT and
# BUILD_DIR first.

# build_programs NAME [PACKAGE...]: install what is missing of the build's
# packages and of the PACKAGEs the caller uses besides, naming them (or
# saying that nothing is missing), configure and build BUILD_DIR, then set
# RC_EXAMPLE, LESSONS and MC_EXAMPLE to the built programs (rdma_rc_example,
# rdma_lessons, rdma_mc_example).  NAME labels the log; the log's end is
# shown on failure.
build_programs() {
	local name=$1 log start
	shift
	if [ -z "$(missing_packages "${BUILD_PACKAGES[@]}" "$@")" ]; then
		note "nothing to install: the $(($# + ${#BUILD_PACKAGES[@]})) packages it needs are installed"
	fi
	install_missing_packages "${BUILD_PACKAGES[@]}" "$@"
	log=$(mktemp "${TMPDIR:-/tmp}/rxe-$name-build.XXXXXX")
	note "building the programs in $BUILD_DIR (log: $log)"
	start=$SECONDS
	if ! { cmake -S "$ROOT" -B "$BUILD_DIR" &&
		cmake --build "$BUILD_DIR" -j2; } >"$log" 2>&1; then
		tail -n 40 "$log" >&2
		die "the build failed; the whole log is $log"
	fi
	rm -f "$log"
	note "built in $((SECONDS - start)) s"
	# Read by the script that sourced this file.
	# shellcheck disable=SC2034
	RC_EXAMPLE=$(find_program rdma_rc_example "${RDMA_RC_EXAMPLE:-}")
	# shellcheck disable=SC2034
	LESSONS=$(find_program rdma_lessons "${RDMA_LESSONS:-}")
	# shellcheck disable=SC2034
	MC_EXAMPLE=$(find_program rdma_mc_example "${RDMA_MC_EXAMPLE:-}")
}

# find_program NAME [GIVEN]: GIVEN when set, else the executable NAME at
# the top of the build tree, where CMake puts the programs (a search of
# the tree could find an older copy, or the package test's installed one).
find_program() {
	local name=$1 exe=${2:-$BUILD_DIR/$1}
	if [ -z "$exe" ] || [ ! -x "$exe" ]; then
		die "$name was not built under $BUILD_DIR"
	fi
	echo "$exe"
}

# lesson_option WORD: WORD, a word of the programs' command line, is (or,
# for short options run together, holds) one of the manual's lessons'
# options, which rdma_lessons takes and rdma_rc_example refuses: -o
# (--ops), -c (--connection), -e (--events), -R (--rdma-cm), --new-api,
# --manual-peer, --clients and --srq.
lesson_option() {
	local rest
	case $1 in
	--ops | --ops=* | --connection | --connection=* | --events | \
		--rdma-cm | --new-api | --manual-peer | --clients | --clients=* | \
		--srq)
		return 0 ;;
	--*) return 1 ;;
	-?*)
		# -vR, -ouc: each letter up to the first that takes a value (the
		# rest of the word is that value).
		rest=${1#-}
		while [ -n "$rest" ]; do
			case ${rest:0:1} in
			o | c | e | R) return 0 ;;
			p | d | i | g | t) return 1 ;;
			esac
			rest=${rest:1}
		done
		;;
	esac
	return 1
}

# lessons_wanted WORD...: some WORD is a lesson's option (lesson_option):
# the run is rdma_lessons's, on both sides, as the two programs refuse
# each other as peers.
lessons_wanted() {
	local word
	for word in "$@"; do
		lesson_option "$word" && return 0
	done
	return 1
}
