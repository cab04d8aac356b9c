# shellcheck shell=bash
# Helpers for the rxe scenario scripts: run programs in the guests, check
# what they printed, count failures.  Source it from a test script.
#
# Environment (set by tests/rxe/CMakeLists.txt): RXE_VM, RXE_SESSION (lane
# 0's guests; below: the lane ctest gave the scenario), BUILD_DIR,
# SOURCE_DIR and, once the programs are built, the path of each:
# RDMA_RC_EXAMPLE (the manual's example: its flow, nothing else),
# RDMA_LESSONS (rdma_lessons, the manual's other lessons: -o, -c, -e, -R,
# --new-api, --manual-peer, --clients, --srq), RDMA_BENCH (rdma_bench, the
# benchmark: rdma_bench lat|bw [options] [SERVER]), RDMA_CHECK (rdma_check,
# the host and pair check: rdma_check [options] [--pair | SERVER]) and
# RDMA_MC_EXAMPLE.
#
# Running a server and a client: rxe_pair
# =======================================
#
#   . "$(dirname "$0")/lib.sh"
#   P="'$RDMA_RC_EXAMPLE'"
#   rxe_pair flow "$P -p 19880" "$P -p 19880 --connect-timeout 20 \"\$RXE_ADDR\""
#   rxe_go rc_flow 120
#   expect_rc "$RXE_RUNS/flow.server.rc" 0
#   expect_line "$RXE_RUNS/flow.client.out" "test result is 0"
#   finish
#
# rxe_pair NAME [--on GS GC] [--ready TEXT] [--started]
#          [--signal SIDE SIG WHOSE TEXT [--delay S]] SERVER_CMD CLIENT_CMD
#   Adds a server and its client to the plan; rxe_go runs it.
#   --on a a (the default): both on guest a, where the client reaches the
#   server at "$RXE_ADDR".  --on a b: the server on guest a, the client on
#   guest b, which reaches it at "$RXE_PEER_ADDR".
#   The client starts right after the server and must retry its connect
#   until the server listens (each program's --connect-timeout does),
#   unless --ready TEXT: then it starts once the server's stdout has a
#   line containing TEXT.
#   --signal SIDE SIG WHOSE TEXT: once WHOSE's stdout (server or client)
#   has a line containing TEXT, and S seconds more (--delay, default 1),
#   SIDE (server or client) gets signal SIG (INT, TERM, ...), from its own
#   guest.  The signalled side is waited for first.
#   --started: both are started and left running, for pairs that run at
#   the same time; the caller ends them (rxe_end NAME.client --on GC,
#   rxe_end NAME.server --on GS).
# rxe_solo NAME [--on G] [--signal SIG TEXT [--delay S]] CMD
#   One command alone, on guest G (default a); with --signal, it gets SIG
#   once its own stdout has a line containing TEXT, and S seconds more.
# A command (SERVER_CMD, CLIENT_CMD, CMD) is guest shell text for one simple
# command: words, quoted for the guest ('$RDMA_RC_EXAMPLE' expands on the
# host, \"\$RXE_ADDR\" in the guest); wrap anything more in bash -c.
# rxe_when_listening PORTS CMD
#   Prints a command (guest shell text) that runs CMD, prints "listening
#   on TCP port PORT" for each of PORTS (one, or several separated by
#   spaces) once a socket of its guest listens on every one of them (for
#   a server that prints nothing then, such as rping's or perftest's), and
#   exits with CMD's status; it gives up with status 1 after 30 s.  Use
#   it as SERVER_CMD with rxe_pair's --ready "listening on TCP port PORT"
#   for clients that do not retry.
# rc_common.sh's rc_pair NAME PORT SERVER_ARGS CLIENT_ARGS [options] is
# rxe_pair for rdma_rc_example, with -p PORT and the address filled in;
# its lessons_pair is the same for rdma_lessons (a run with a lesson's
# option, -o, -c, -e, -R and the others, runs it on both sides: the two
# programs refuse each other); bench_lib.sh's bench_pair is the same for
# rdma_bench (its ARGS start with lat or bw).
#
# rxe_go NAME TIMEOUT [--capture FILE] [--capture-siw FILE]
#   Runs the plan: one `rxe-vm exec` of a bash script per guest
#   ($RXE_RUNS/NAME.a.sh, NAME.b.sh, run by runs_guest.sh), each doing its
#   steps in the order they were added, both guests at once, all bounded
#   by TIMEOUT s.  Checks that each guest's script ran to its end with
#   status 0 (a wait for a line that never came makes it 1), prints each
#   run's status, and starts a new plan.
#   The run limit is RXE_RUN_LIMIT s, or TIMEOUT when that is unset.  It
#   bounds every wait for a line, and a run when RXE_RUN_LIMIT is set,
#   when the run gets a --signal (which then goes through timeout(1)) or
#   when it was started --bounded: timeout(1) sends it SIGTERM, SIGKILL
#   5 s later, and its exit status is 124.  Other runs are bounded by
#   TIMEOUT alone (timeout is one more process per run, and costs a good
#   part of a second under the guests' software CPU).
#   --capture FILE: the frames the link carried during the plan go to FILE
#   (pcap; rxe-vm exec --capture, the fixture records the link);
#   --capture-siw FILE: the same for the siw link (eth1, siw0).
#
# What each run leaves in RXE_RUNS, the session folder's runs/TEST/ (the
# host and both guests see it read-write at this path, so a command may
# write its own files there too, a --json for one):
#   NAME.server.{out,err,rc,ms} and NAME.client.{out,err,rc,ms} for a pair,
#   NAME.{out,err,rc,ms} for a solo: stdout, stderr, exit status, and the
#   milliseconds from its start until the plan's wait for it returned (its
#   run time, unless it ended while the plan still waited for another);
#   with --signal, .signal-ms: the milliseconds from its start to the
#   signal.
#
# The steps rxe_pair and rxe_solo are made of, for other shapes (three
# programs, a set-up between runs); --on G picks the guest (default a):
#   rxe_start NAME [--on G] [--bounded] CMD
#                                        start CMD in the background
#                                        (--bounded: by the run limit)
#   rxe_wait_text NAME TEXT [--on G]     wait for a line of NAME's stdout
#                                        (NAME may run on the other guest)
#   rxe_signal NAME SIG [--on G]         signal NAME (started on G)
#   rxe_end NAME [--on G]                wait for NAME: .rc and .ms
#   rxe_step [--on G] SHELL_TEXT         guest bash lines, as they are
#
# Lower down: rxe_exec NAME [rxe-vm exec options] [-a CMD] [-b CMD] runs
# one shell command per guest and leaves $RXE_OUT.{a,b}.{out,err,rc};
# rxe_run is the same on guests of its own (rxe-vm run).
#
# Checks (each counts one pass or one failure, and on failure prints the
# file it read): expect_rc, expect_status, expect_nonzero, expect_line,
# expect_text, expect_regex, expect_no_line, expect_no_text, expect_empty,
# expect_stopped_within;
# finish prints the tally and exits.

set -uo pipefail

: "${RXE_VM:?RXE_VM is not set: run this through ctest, or export it}"
RXE_TEST_NAME=$(basename "${0%.sh}")
RXE_OUT_DIR=${BUILD_DIR:-${TMPDIR:-/tmp}}/rxe-out/$RXE_TEST_NAME
RXE_PASSED=0
RXE_FAILED=0
RXE_FAIL_LINES=() # each failed check's line, then its file or ""
rm -rf "$RXE_OUT_DIR"
mkdir -p "$RXE_OUT_DIR"
_rxe_here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
# The lane: the pair of shared guests ctest gave this scenario
# (CTEST_RESOURCE_GROUP_0_LANES is "id:N,slots:1"; tests/rxe/CMakeLists.txt).
# Lane 0's guests are in RXE_SESSION, lane N's in RXE_SESSION-N. A test
# that holds every lane (it boots guests of its own) is given more than one
# group and keeps RXE_SESSION.
if [ -n "${RXE_SESSION:-}" ] && [ "${CTEST_RESOURCE_GROUP_COUNT:-}" = 1 ]; then
	_rxe_lane=${CTEST_RESOURCE_GROUP_0_LANES:-id:0}
	_rxe_lane=${_rxe_lane#id:}
	_rxe_lane=${_rxe_lane%%,*}
	[ "$_rxe_lane" = 0 ] || RXE_SESSION=$RXE_SESSION-$_rxe_lane
fi
# The runs' folder, under the session folder at the path the guests mount.
if [ -n "${RXE_SESSION:-}" ]; then
	mkdir -p "$RXE_SESSION"
	RXE_RUNS=$(cd "$RXE_SESSION" && pwd -P)/runs/$RXE_TEST_NAME
	rm -rf "$RXE_RUNS"
fi
# modprobe for a guest: the host root the guests run in has no
# /lib/modules of its own; the guest kernel's module tree is where rxe-vm
# unpacked it.
_rxe_cache=${RXE_VM_CACHE:-${XDG_CACHE_HOME:-${HOME:-/var/tmp}/.cache}/rdma-rc-example/rxe-vm}
# shellcheck disable=SC2034 # for the scenarios that source this
RXE_MODPROBE="modprobe -d '$(sed -n 's|^KERNEL=\(.*\)/boot/.*|\1|p' \
	"$_rxe_cache/current" 2>/dev/null)'"

# rxe_plain_programs: in CI (scripts/test.sh sets RDMA_PLAIN_BUILD),
# RDMA_RC_EXAMPLE, RDMA_LESSONS, RDMA_BENCH and RDMA_CHECK name the plain
# build's programs instead of the sanitized ones, for the scenarios that
# take them (tests/rxe/CMakeLists.txt says which, and why); otherwise
# nothing.
# shellcheck disable=SC2034 # read by the scenario that calls it
rxe_plain_programs() {
	[ -n "${RDMA_PLAIN_BUILD:-}" ] || return 0
	RDMA_RC_EXAMPLE=$RDMA_PLAIN_BUILD/rdma_rc_example
	RDMA_LESSONS=$RDMA_PLAIN_BUILD/rdma_lessons
	RDMA_BENCH=$RDMA_PLAIN_BUILD/rdma_bench
	RDMA_CHECK=$RDMA_PLAIN_BUILD/rdma_check
}

# Where a check was called from, as file:line.
_rxe_where() {
	echo "$(basename "${BASH_SOURCE[2]}"):${BASH_LINENO[1]}"
}

# _rxe_failed LINE [FILE]: count a failed check, print LINE ("FAIL: ...")
# and keep it, with FILE, for finish to repeat at the end.
_rxe_failed() {
	RXE_FAILED=$((RXE_FAILED + 1))
	echo "$1"
	RXE_FAIL_LINES+=("$1" "${2:-}")
}

_rxe_pass() {
	RXE_PASSED=$((RXE_PASSED + 1))
	echo "ok: $*"
}

# _rxe_fail WHERE WHAT FILE: report a failed check with the file's content.
_rxe_fail() {
	local where=$1 what=$2 file=$3
	_rxe_failed "FAIL: $where: $what" "$file"
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
	local name=$1 rc
	shift
	: "${RXE_SESSION:?RXE_SESSION is not set}"
	RXE_OUT=$RXE_OUT_DIR/$name
	echo "=== $name: rxe-vm exec $* ==="
	_rxe_with_sanitizer_codes "$@"
	"$RXE_VM" exec --out "$RXE_OUT" "${RXE_ARGS[@]}" "$RXE_SESSION" 2>&1 |
		tee "$RXE_OUT.exec.log"
	rc=${PIPESTATUS[0]}
	_rxe_again_if_link_stopped "$RXE_OUT.exec.log"
	return "$rc"
}

# _rxe_again_if_link_stopped LOG: the link between the shared guests stopped
# for good while LOG's commands ran (QEMU's stall, docs/soft-roce-rig.md),
# which no scenario causes and every later one would fail on: boot the
# guests again as the rxe fixture does, and run this scenario once more
# from its start. A second stall in the same scenario fails it.
_rxe_again_if_link_stopped() {
	grep -q 'the link between the guests stopped' "$1" || return 0
	if [ -n "${RXE_LINK_RETRIED:-}" ]; then
		echo "lib.sh: the link between the guests stopped again: giving up"
		return 0
	fi
	echo "lib.sh: the link between the guests stopped: booting them again, then $RXE_TEST_NAME once more"
	"$RXE_VM" stop "$RXE_SESSION" >/dev/null 2>&1
	# shellcheck disable=SC2086 # the fixture's options, one word each
	"$RXE_VM" start --fresh ${RXE_START_ARGS:?} "$RXE_SESSION" || exit 1
	RXE_LINK_RETRIED=1 exec bash "$0"
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

# ---------------------------------------------------------------------------
# Plans: rxe_pair, rxe_solo and their parts (see the top of this file)
# ---------------------------------------------------------------------------

# Each guest's plan (bash lines for runs_guest.sh), and every run's name.
declare -A RXE_PLAN=([a]='' [b]='')
RXE_PLAN_NAMES=()

# _rxe_guest G: G is a guest name.
_rxe_guest() {
	case $1 in
	a | b) ;;
	*) echo "lib.sh: no guest '$1' (a or b)" >&2; exit 1 ;;
	esac
}

# _rxe_add G LINE: append LINE to guest G's plan.
_rxe_add() {
	_rxe_guest "$1"
	RXE_PLAN[$1]+=$2$'\n'
}

rxe_start() {
	local name=$1 g=a how=run_start
	shift
	[ -n "${RXE_RUN_LIMIT:-}" ] && how=run_bounded
	while [ $# -gt 1 ]; do
		case $1 in
		--on) g=$2; shift 2 ;;
		--bounded) how=run_bounded; shift ;;
		*) break ;;
		esac
	done
	_rxe_add "$g" "$how $name $1"
	RXE_PLAN_NAMES+=("$name")
}

rxe_wait_text() {
	local g=a
	[ "${3:-}" = --on ] && g=$4
	_rxe_add "$g" "run_wait_text $1 $(printf %q "$2")"
}

rxe_signal() {
	local g=a
	[ "${3:-}" = --on ] && g=$4
	_rxe_add "$g" "run_signal $1 $2"
}

rxe_end() {
	local g=a
	[ "${2:-}" = --on ] && g=$3
	_rxe_add "$g" "run_end $1"
}

rxe_step() {
	local g=a
	[ "${1:-}" = --on ] && { g=$2; shift 2; }
	_rxe_add "$g" "$1"
}

rxe_solo() {
	local name=$1 g=a sig='' text='' delay=1
	shift
	while [ $# -gt 1 ]; do
		case $1 in
		--on) g=$2; shift 2 ;;
		--signal) sig=$2 text=$3; shift 3 ;;
		--delay) delay=$2; shift 2 ;;
		*) break ;;
		esac
	done
	if [ -n "$sig" ]; then
		rxe_start "$name" --on "$g" --bounded "$1"
		rxe_wait_text "$name" "$text" --on "$g"
		rxe_step --on "$g" "run_pause $delay"
		rxe_signal "$name" "$sig" --on "$g"
	else
		rxe_start "$name" --on "$g" "$1"
	fi
	rxe_end "$name" --on "$g"
}

rxe_when_listening() {
	local ports=$1 cmd=$2 script
	# Looks 0.1 s apart for 30 s by the clock (a look costs more than
	# 0.1 s under TCG); a command that ends before it listens (not found,
	# a bad option) ends the wait at once with its status.
	script="$cmd &
pid=\$!
end=\$((SECONDS + 30))
while [ \$SECONDS -lt \$end ]; do
	port=
	for p in $ports; do
		ss -Htln \"sport = :\$p\" | grep -q . || { port=\$p; break; }
	done
	if [ -z \"\$port\" ]; then
		for p in $ports; do
			echo \"listening on TCP port \$p\"
		done
		wait \$pid
		exit
	fi
	if ! kill -0 \$pid 2>/dev/null; then
		wait \$pid
		rc=\$?
		echo \"the command ended with status \$rc before anything listened on TCP port \$port\" >&2
		exit \$((rc ? rc : 1))
	fi
	sleep 0.1
done
echo \"nothing listens on TCP port \$port after 30 s\" >&2
kill \$pid
exit 1"
	printf 'bash -c %q' "$script"
}

rxe_pair() {
	local name=$1 gs=a gc=a ready='' side='' sig='' whose='' text='' delay=1 g
	local started=0
	shift
	while [ $# -gt 2 ]; do
		case $1 in
		--on) gs=$2 gc=$3; shift 3 ;;
		--ready) ready=$2; shift 2 ;;
		--started) started=1; shift ;;
		--signal) side=$2 sig=$3 whose=$4 text=$5; shift 5 ;;
		--delay) delay=$2; shift 2 ;;
		*) echo "lib.sh: rxe_pair $name: unknown option $1" >&2; exit 1 ;;
		esac
	done
	[ $# -eq 2 ] || { echo "lib.sh: rxe_pair $name: expected SERVER_CMD CLIENT_CMD" >&2; exit 1; }
	local bound_server=() bound_client=()
	[ "$side" = server ] && bound_server=(--bounded)
	[ "$side" = client ] && bound_client=(--bounded)
	rxe_start "$name.server" --on "$gs" "${bound_server[@]}" "$1"
	[ -n "$ready" ] && rxe_wait_text "$name.server" "$ready" --on "$gc"
	rxe_start "$name.client" --on "$gc" "${bound_client[@]}" "$2"
	[ "$started" -eq 1 ] && return 0
	if [ -n "$sig" ]; then
		g=$gs
		[ "$side" = client ] && g=$gc
		rxe_wait_text "$name.$whose" "$text" --on "$g"
		rxe_step --on "$g" "run_pause $delay"
		rxe_signal "$name.$side" "$sig" --on "$g"
		rxe_end "$name.$side" --on "$g"
	fi
	[ "$side" = client ] || rxe_end "$name.client" --on "$gc"
	[ "$side" = server ] || rxe_end "$name.server" --on "$gs"
}

# rxe_go NAME TIMEOUT [--capture FILE] [--capture-siw FILE]: run the plan
# (see the top of this file).
rxe_go() {
	local name=$1 timeout=$2 g file args=() run rc
	shift 2
	while [ $# -gt 0 ]; do
		case $1 in
		--capture | --capture-siw) args+=("$1" "${2:?$1 needs a file}"); shift 2 ;;
		*) echo "rxe_go: unknown option $1" >&2; return 2 ;;
		esac
	done
	mkdir -p "$RXE_RUNS"
	for g in a b; do
		[ -n "${RXE_PLAN[$g]}" ] || continue
		file=$RXE_RUNS/$name.$g.sh
		cat >"$file" <<EOS
RUNS=$(printf %q "$RXE_RUNS")
LIMIT=$(printf %q "${RXE_RUN_LIMIT:-$timeout}")
. $(printf %q "$_rxe_here/runs_guest.sh")
cd "\$RUNS" || exit 1
${RXE_PLAN[$g]}run_finish
EOS
		args+=("-$g" "bash '$file'")
	done
	rxe_exec "$name" --timeout "$timeout" "${args[@]}"
	for run in "${RXE_PLAN_NAMES[@]}"; do
		rc=$(cat "$RXE_RUNS/$run.rc" 2>/dev/null) || rc='none'
		echo "run $run: exit status $rc after $(cat "$RXE_RUNS/$run.ms" 2>/dev/null || echo '?') ms"
	done
	for g in a b; do
		[ -n "${RXE_PLAN[$g]}" ] && expect_rc "$RXE_OUT.$g.rc" 0
	done
	RXE_PLAN=([a]='' [b]='')
	RXE_PLAN_NAMES=()
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
# expect_stopped_within RUN MS: RUN, which got a signal (--signal), ended
# within MS milliseconds of it (RUN.ms less RUN.signal-ms).
expect_stopped_within() {
	local run=$1 bound=$2 ended sent
	ended=$(cat "$RXE_RUNS/$run.ms" 2>/dev/null) || ended=''
	sent=$(cat "$RXE_RUNS/$run.signal-ms" 2>/dev/null) || sent=''
	if [ -z "$ended" ] || [ -z "$sent" ]; then
		_rxe_fail "$(_rxe_where)" "$run: no .ms or .signal-ms: was it signalled?" \
			"$RXE_RUNS/$run.err"
	elif [ $((ended - sent)) -le "$bound" ]; then
		_rxe_pass "$run stopped $((ended - sent)) ms after the signal (at most $bound)"
	else
		_rxe_fail "$(_rxe_where)" \
			"$run: stopped $((ended - sent)) ms after the signal, more than $bound" \
			"$RXE_RUNS/$run.err"
	fi
}

# expect_ended_after_signal RUN OTHER MS [SKEW_US]: RUN ended within MS
# milliseconds of the signal lib.sh sent to OTHER (their .end-us and
# .signal-us stamps).  SKEW_US: how far RUN's guest's clock is ahead of
# OTHER's, when they ran on two guests (tests/rxe/clock_skew.py).
expect_ended_after_signal() {
	local run=$1 other=$2 bound=$3 skew=${4:-0} ended sent
	ended=$(cat "$RXE_RUNS/$run.end-us" 2>/dev/null) || ended=''
	sent=$(cat "$RXE_RUNS/$other.signal-us" 2>/dev/null) || sent=''
	if [ -z "$ended" ] || [ -z "$sent" ]; then
		_rxe_fail "$(_rxe_where)" "$run: no .end-us, or $other no .signal-us" \
			"$RXE_RUNS/$run.err"
		return
	fi
	ended=$((ended - skew))
	if [ $(((ended - sent) / 1000)) -le "$bound" ]; then
		_rxe_pass "$run ended $(((ended - sent) / 1000)) ms after $other's signal (at most $bound)"
	else
		_rxe_fail "$(_rxe_where)" \
			"$run: ended $(((ended - sent) / 1000)) ms after $other's signal, more than $bound" \
			"$RXE_RUNS/$run.err"
	fi
}

expect_status() {
	local got=$1 want=$2 what=$3
	if [ "$got" = "$want" ]; then
		_rxe_pass "$what: status $want"
	else
		_rxe_failed "FAIL: $(_rxe_where): $what: expected status $want, got $got"
	fi
}

# expect_nonzero GOT WHAT: a captured status that must not be 0.
expect_nonzero() {
	local got=$1 what=$2
	if [ "$got" != 0 ]; then
		_rxe_pass "$what: status $got (non-zero, as expected)"
	else
		_rxe_failed "FAIL: $(_rxe_where): $what: expected a non-zero status, got 0"
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

# expect_empty FILE: FILE exists and nothing was written to it.
expect_empty() {
	if [ -e "$1" ] && [ ! -s "$1" ]; then
		_rxe_pass "$1 is empty"
	else
		_rxe_fail "$(_rxe_where)" "expected an empty file" "$1"
	fi
}

# finish: print the tally and exit non-zero if any check failed (or if none
# ran at all, which is a broken test, not a passing one).
finish() {
	local i
	echo "$RXE_PASSED passed, $RXE_FAILED failed"
	if [ "$RXE_FAILED" -ne 0 ]; then
		# Again at the end, where a log cut short in the middle still
		# shows them: each failed check and the end of its file.
		echo "the failed checks (the first 8):"
		for ((i = 0; i < ${#RXE_FAIL_LINES[@]} && i < 16; i += 2)); do
			echo "${RXE_FAIL_LINES[i]}"
			[ -z "${RXE_FAIL_LINES[i + 1]}" ] ||
				tail -n 12 "${RXE_FAIL_LINES[i + 1]}" 2>/dev/null |
				cut -c1-300 | sed 's/^/  | /'
		done
		exit 1
	fi
	if [ "$RXE_PASSED" -eq 0 ]; then
		echo "no check ran"
		exit 1
	fi
	exit 0
}
