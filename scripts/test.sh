#!/usr/bin/env bash
# Build the project and run every test (unit tests on the host, rxe tests in
# QEMU guests with soft-RoCE).  Installs what is missing first, so it works
# from a fresh clone on a fresh Debian machine.
#
#   scripts/test.sh               build into ./build (or $BUILD_DIR), run ctest
#   CI=true scripts/test.sh       same, with warnings as errors and the program
#                                 built with ASan+UBSan (plus a plain build)
#   scripts/test.sh --build-only  install, configure and build; no tests
set -euo pipefail

build_only=0
case "${1:-}" in
--build-only) build_only=1 ;;
"") ;;
*) echo "test.sh: unknown argument $1 (only --build-only)" >&2; exit 2 ;;
esac

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
BUILD_DIR=${BUILD_DIR:-build}
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR=$ROOT/$BUILD_DIR ;; esac

# What the tests use beyond the build (packages.sh's BUILD_PACKAGES) and
# the rig (rxe-vm prepare): cmocka for the unit tests, python3 for the
# checkers, valgrind for robust_valgrind; perftest and gnuplot-nox because
# bench_control and bench_link_restart run scripts/bench.sh, which
# measures against perftest and draws plots; tshark because the wire tests
# decode the link's packets with scripts/wire.py; mandoc because the man
# page tests lint the pages; dpkg-dev (dpkg-shlibdeps) and file because
# cpack's Debian package finds its dependencies with them; lintian because
# the package test checks that package with it; clustershell because
# the cluster check runs its commands with ClusterShell's library;
# bash-completion because test_completion runs the programs' completion
# with its functions.
TEST_PACKAGES=(libcmocka-dev python3 valgrind perftest gnuplot-nox tshark
	mandoc dpkg-dev file lintian clustershell bash-completion)

die() {
	echo "test.sh: $*" >&2
	exit 1
}

note() {
	echo "test.sh: $*" >&2
}

# install_missing_packages, BUILD_PACKAGES.
# shellcheck source=scripts/packages.sh
. "$ROOT/scripts/packages.sh"

install_missing_packages "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
for tool in cc cmake ctest pkg-config; do
	command -v "$tool" >/dev/null 2>&1 || die "$tool not found after installing packages"
done

# The rig's packages, kernel, initramfs and siw.ko (cached between runs):
# the shared guests of the rxe tests start with siw0 beside rxe0.
"$ROOT/scripts/rxe-vm" prepare --siw

status=0
cmake_args=(-S "$ROOT" -B "$BUILD_DIR")
if [ "${CI:-}" = true ]; then
	# CI: the scenarios run an ASan+UBSan build of the programs; a plain
	# build (what users get) runs its unit tests and the scenarios that
	# take it (tests/rxe/CMakeLists.txt: RDMA_PLAIN_BUILD).  Running the
	# whole rxe suite twice would not fit the time budget.
	plain_dir=$BUILD_DIR-plain
	cmake -S "$ROOT" -B "$plain_dir" -DRDMA_WERROR=ON
	cmake --build "$plain_dir" -j2
	cmake_args+=(-DRDMA_WERROR=ON -DRDMA_SANITIZE=ON
		"-DRDMA_PLAIN_BUILD=$plain_dir")
fi
cmake "${cmake_args[@]}"
cmake --build "$BUILD_DIR" -j2
[ "$build_only" -eq 1 ] && exit 0

# Never leave the shared guests behind, whatever happens to ctest.
# (Each lane's: rxe-session, rxe-session-1, ...)
# shellcheck disable=SC2317 # run by the EXIT trap
stop_guests() {
	local session
	for session in "$BUILD_DIR"/rxe-session "$BUILD_DIR"/rxe-session-*; do
		[ -d "$session" ] || continue
		"$ROOT/scripts/rxe-vm" stop "$session" >/dev/null 2>&1 || true
	done
}
trap stop_guests EXIT
cd "$BUILD_DIR"
# CI: the plain build's unit tests, beside the suite below; their output
# after it.
plain_pid=''
if [ -n "${plain_dir:-}" ]; then
	(cd "$plain_dir" && ctest -L unit --output-on-failure --no-tests=error) \
		>plain-unit.log 2>&1 &
	plain_pid=$!
fi
# --no-tests=error: a build tree that lost its tests must not pass.
# -j2: two scenarios at once, each on a lane (a pair of guests) of its
# own, and the unit tests between them (tests/rxe/CMakeLists.txt).
ctest -j2 --output-on-failure --no-tests=error 2>&1 | tee ctest.log ||
	status=$?
if [ -n "$plain_pid" ]; then
	note "the plain build's unit tests ($plain_dir):"
	cat plain-unit.log
	wait "$plain_pid" || status=1
fi
# The slowest tests first: where the time budget goes (docs/tests.md).
note "slowest tests:"
sed -nE 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) .* ([0-9.]+) sec$/\2 \1/p' \
	ctest.log | sort -rn | head -8 | awk '{ printf "  %7.1f s  %s\n", $1, $2 }' >&2
note "wall time $((SECONDS / 60)) min $((SECONDS % 60)) s"
exit "$status"
