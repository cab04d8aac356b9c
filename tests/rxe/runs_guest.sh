# shellcheck shell=bash
# The guest's half of lib.sh's runs: rxe_go writes one bash script per
# guest that sets RUNS (the folder, in the session folder, that the host
# and both guests see read-write) and LIMIT (seconds), sources this file and
# then calls the functions below, one line each, in the order the scenario
# asked for them.  Every step is a bash builtin where it can be: under the
# guests' software CPU each process started over 9p costs tens of ms.
set -u

# nap S: a pause without a sleep process (the rig's own helper), reading
# from a FIFO nobody writes to.  One FIFO serves every plan this guest
# runs: mkfifo is a process, and under TCG each one costs a good part of a
# second, so it is made only once.
# shellcheck source-path=SCRIPTDIR source=../../scripts/rxe-vm.d/nap.sh
. "${BASH_SOURCE[0]%/*}/../../scripts/rxe-vm.d/nap.sh"
[ -p /tmp/rxe-runs-nap ] || mkfifo /tmp/rxe-runs-nap || {
	echo "runs_guest.sh: cannot make the FIFO /tmp/rxe-runs-nap" >&2
	exit 1
}
exec {NAP_FD}<>/tmp/rxe-runs-nap

declare -A RUN_PID=() RUN_START=() RUN_BOUNDED=()
# Non-zero once a wait gave up: the script's exit status.
RUN_STATUS=0

# run_start NAME WORD...: start the command WORD... in the background,
# stdout to RUNS/NAME.out, stderr to RUNS/NAME.err.
run_start() {
	local name=$1
	shift
	RUN_START[$name]=${EPOCHREALTIME/./}
	"$@" >"$RUNS/$name.out" 2>"$RUNS/$name.err" &
	RUN_PID[$name]=$!
}

# run_bounded NAME WORD...: the same, bounded to LIMIT s by timeout(1)
# (SIGTERM, SIGKILL 5 s later, exit status 124), which also passes on the
# signals run_signal sends, with the program's SIGINT handling restored (a
# background command of a script starts with SIGINT ignored).
# --foreground keeps it in the job's process group, so the rig's own
# timeout still reaches everything.
run_bounded() {
	local name=$1
	shift
	run_start "$name" timeout --foreground -k 5 "$LIMIT" "$@"
	RUN_BOUNDED[$name]=1
}

# run_end NAME: wait for NAME; its exit status goes to RUNS/NAME.rc, the
# milliseconds from its start until this wait returned to RUNS/NAME.ms,
# and the guest's clock then (us) to RUNS/NAME.end-us.
run_end() {
	local name=$1 rc=0
	wait "${RUN_PID[$name]}" || rc=$?
	echo "${EPOCHREALTIME/./}" >"$RUNS/$name.end-us"
	echo $(((${EPOCHREALTIME/./} - ${RUN_START[$name]}) / 1000)) >"$RUNS/$name.ms"
	echo "$rc" >"$RUNS/$name.rc"
}

# _run_has_text FILE TEXT: some line of FILE contains TEXT (the last one
# may still lack its newline).
_run_has_text() {
	local line
	[ -e "$1" ] || return 1
	while IFS= read -r line || [ -n "$line" ]; do
		[[ $line == *"$2"* ]] && return 0
	done <"$1"
	return 1
}

# _run_ended NAME: NAME was started on this guest and has ended (a zombie
# until run_end waits for it), read from /proc without starting a process.
_run_ended() {
	local pid=${RUN_PID[$1]:-} stat
	[ -n "$pid" ] || return 1
	read -r stat 2>/dev/null <"/proc/$pid/stat" || return 0
	stat=${stat##*) }
	[[ $stat == Z* ]]
}

# run_wait_text NAME TEXT: wait, at most LIMIT s, until RUNS/NAME.out has a
# line containing TEXT.  NAME may run on the other guest: the file is
# shared.  If it runs on this one and ends without the line, the wait ends
# then.  Giving up is said on stderr and fails the script, not the step.
run_wait_text() {
	local deadline=$((${EPOCHREALTIME/./} + LIMIT * 1000000))
	until _run_has_text "$RUNS/$1.out" "$2"; do
		# Its last lines may have come since the check above.
		if _run_ended "$1" && ! _run_has_text "$RUNS/$1.out" "$2"; then
			echo "gave up waiting for a line with '$2' in $RUNS/$1.out: $1 ended without it" >&2
			RUN_STATUS=1
			return 1
		fi
		if ((${EPOCHREALTIME/./} >= deadline)); then
			echo "gave up after $LIMIT s waiting for a line with '$2' in $RUNS/$1.out" >&2
			RUN_STATUS=1
			return 1
		fi
		nap 0.1
	done
}

# run_pause S: wait S seconds.
run_pause() {
	nap "$1"
}

# run_signal NAME SIG: send SIG to NAME, started on this guest; the
# milliseconds from its start until then go to RUNS/NAME.signal-ms, the
# guest's clock (us) to RUNS/NAME.signal-us; a second signal to NAME (the
# SIGKILL after a SIGSTOP) leaves both as the first one wrote them.
# A bounded run's PID is timeout(1)'s, which would pass SIG on and then
# SIGKILL a program still stopping 5 s later (valgrind's leak check under
# a busy software CPU takes longer): the signal goes to timeout's child,
# the program itself, read from /proc without starting a process.
run_signal() {
	local pid=${RUN_PID[$1]} child=''
	if [ ! -e "$RUNS/$1.signal-us" ]; then
		echo "${EPOCHREALTIME/./}" >"$RUNS/$1.signal-us"
		echo $(((${EPOCHREALTIME/./} - ${RUN_START[$1]}) / 1000)) >"$RUNS/$1.signal-ms"
	fi
	if [ -n "${RUN_BOUNDED[$1]:-}" ]; then
		read -r child _ <"/proc/$pid/task/$pid/children" || true
		pid=${child:-$pid}
	fi
	kill -"$2" "$pid"
}

# run_finish: the plan's last step; exit status 1 if a wait gave up.
run_finish() {
	exit "$RUN_STATUS"
}
