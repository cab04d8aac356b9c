# shellcheck shell=bash
# Helpers for the rxe scenario scripts: run commands in the guests, check
# what they printed, count failures.  Source it from a test script:
#
#   . "$(dirname "$0")/lib.sh"
#   rxe_exec pingpong -a 'ibv_rc_pingpong -d rxe0 -g 1' -b '...'
#   expect_rc "$RXE_OUT.a.rc" 0
#   expect_text "$RXE_OUT.b.out" 'bytes in'
#   finish
#
# Environment (set by tests/rxe/CMakeLists.txt): RXE_VM, RXE_SESSION,
# BUILD_DIR, SOURCE_DIR and, once the program is built, RDMA_RC_EXAMPLE.

set -uo pipefail

: "${RXE_VM:?RXE_VM is not set: run this through ctest, or export it}"
RXE_TEST_NAME=$(basename "${0%.sh}")
RXE_OUT_DIR=${BUILD_DIR:-${TMPDIR:-/tmp}}/rxe-out/$RXE_TEST_NAME
RXE_PASSED=0
RXE_FAILED=0
rm -rf "$RXE_OUT_DIR"
mkdir -p "$RXE_OUT_DIR"

# Where a check was called from, as file:line.
_rxe_where() {
	echo "$(basename "${BASH_SOURCE[2]}"):${BASH_LINENO[1]}"
}

_rxe_pass() {
	RXE_PASSED=$((RXE_PASSED + 1))
	echo "ok: $*"
}

# _rxe_fail WHERE WHAT FILE: report a failed check with the file's content.
_rxe_fail() {
	local where=$1 what=$2 file=$3
	RXE_FAILED=$((RXE_FAILED + 1))
	echo "FAIL: $where: $what"
	if [ -e "$file" ]; then
		echo "  found in $file:"
		sed 's/^/  | /' "$file"
		[ -s "$file" ] || echo "  (empty)"
	else
		echo "  found: $file does not exist"
	fi
}

# rxe_exec NAME [rxe-vm exec options] [-a CMD] [-b CMD]
# Run in the shared guests; outputs land in $RXE_OUT_DIR/NAME.{a,b}.{out,err,rc}
# and RXE_OUT is set to that prefix.  Returns rxe-vm's status.
rxe_exec() {
	local name=$1
	shift
	: "${RXE_SESSION:?RXE_SESSION is not set}"
	RXE_OUT=$RXE_OUT_DIR/$name
	echo "=== $name: rxe-vm exec $* ==="
	_rxe_with_sanitizer_codes "$@"
	"$RXE_VM" exec --out "$RXE_OUT" "${RXE_ARGS[@]}" "$RXE_SESSION"
}

# A sanitized build's findings get exit statuses of their own (86 from
# AddressSanitizer or LeakSanitizer, 87 from UBSan), so that no check can
# take them for the program's own 1 or 2: a test that expects a failure
# fails if the failure path leaked. The guest agent starts each command
# with an empty environment, so every -a and -b command gets them here.
RXE_SANITIZER_ENV='export ASAN_OPTIONS=exitcode=86:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=87;'

# Copy rxe-vm's arguments to RXE_ARGS, each -a/-b command prefixed.
_rxe_with_sanitizer_codes() {
	RXE_ARGS=()
	while [ $# -gt 0 ]; do
		case $1 in
		-a | -b)
			RXE_ARGS+=("$1" "$RXE_SANITIZER_ENV $2")
			shift 2
			;;
		*)
			RXE_ARGS+=("$1")
			shift
			;;
		esac
	done
}

# rxe_run NAME [rxe-vm run options] [-a CMD] [-b CMD]
# Like rxe_exec, but boots guests of its own (one-shot `rxe-vm run`).  The
# combined stdout and stderr of rxe-vm itself goes to $RXE_OUT.log.
rxe_run() {
	local name=$1 rc=0
	shift
	RXE_OUT=$RXE_OUT_DIR/$name
	echo "=== $name: rxe-vm run $* ==="
	_rxe_with_sanitizer_codes "$@"
	"$RXE_VM" run --out "$RXE_OUT" "${RXE_ARGS[@]}" >"$RXE_OUT.log" 2>&1 || rc=$?
	cat "$RXE_OUT.log"
	return "$rc"
}

# expect_rc FILE N: FILE (a .rc file) holds the exit status N.
expect_rc() {
	local file=$1 want=$2 got
	got=$(cat "$file" 2>/dev/null)
	if [ "$got" = "$want" ]; then
		_rxe_pass "$file is $want"
	else
		_rxe_fail "$(_rxe_where)" "expected exit status $want, got '${got:-<none>}'" "$file"
	fi
}

# expect_status GOT WANT WHAT: a status the script captured itself.
expect_status() {
	local got=$1 want=$2 what=$3
	if [ "$got" = "$want" ]; then
		_rxe_pass "$what: status $want"
	else
		RXE_FAILED=$((RXE_FAILED + 1))
		echo "FAIL: $(_rxe_where): $what: expected status $want, got $got"
	fi
}

# expect_nonzero GOT WHAT: a captured status that must not be 0.
expect_nonzero() {
	local got=$1 what=$2
	if [ "$got" != 0 ]; then
		_rxe_pass "$what: status $got (non-zero, as expected)"
	else
		RXE_FAILED=$((RXE_FAILED + 1))
		echo "FAIL: $(_rxe_where): $what: expected a non-zero status, got 0"
	fi
}

# expect_line FILE TEXT: FILE has a line that is exactly TEXT.
expect_line() {
	if grep -qxF -- "$2" "$1" 2>/dev/null; then
		_rxe_pass "$1 has the line '$2'"
	else
		_rxe_fail "$(_rxe_where)" "expected a line that is exactly '$2'" "$1"
	fi
}

# expect_text FILE TEXT: some line of FILE contains TEXT.
expect_text() {
	if grep -qF -- "$2" "$1" 2>/dev/null; then
		_rxe_pass "$1 contains '$2'"
	else
		_rxe_fail "$(_rxe_where)" "expected a line containing '$2'" "$1"
	fi
}

# expect_regex FILE ERE: some line of FILE matches the extended regex ERE.
expect_regex() {
	if grep -qE -- "$2" "$1" 2>/dev/null; then
		_rxe_pass "$1 matches /$2/"
	else
		_rxe_fail "$(_rxe_where)" "expected a line matching /$2/" "$1"
	fi
}

# expect_no_line FILE TEXT: no line of FILE is exactly TEXT.
expect_no_line() {
	if [ ! -e "$1" ]; then
		_rxe_fail "$(_rxe_where)" "expected no line '$2', but the file is missing" "$1"
	elif grep -qxF -- "$2" "$1"; then
		_rxe_fail "$(_rxe_where)" "expected no line that is exactly '$2'" "$1"
	else
		_rxe_pass "$1 has no line '$2'"
	fi
}

# expect_no_text FILE TEXT: no line of FILE contains TEXT.
expect_no_text() {
	if [ ! -e "$1" ]; then
		_rxe_fail "$(_rxe_where)" "expected no line containing '$2', but the file is missing" "$1"
	elif grep -qF -- "$2" "$1"; then
		_rxe_fail "$(_rxe_where)" "expected no line containing '$2'" "$1"
	else
		_rxe_pass "$1 has no line containing '$2'"
	fi
}

# finish: print the tally and exit non-zero if any check failed (or if none
# ran at all, which is a broken test, not a passing one).
finish() {
	echo "$RXE_PASSED passed, $RXE_FAILED failed"
	if [ "$RXE_FAILED" -ne 0 ]; then
		exit 1
	fi
	if [ "$RXE_PASSED" -eq 0 ]; then
		echo "no check ran"
		exit 1
	fi
	exit 0
}
