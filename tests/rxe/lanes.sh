#!/usr/bin/env bash
# The rxe fixture's guests, one pair per lane (tests/rxe/CMakeLists.txt):
#   lanes.sh start SESSION...   boot every SESSION's pair at once, with
#                               RXE_START_ARGS; fails if any did not boot
#   lanes.sh stop SESSION...    stop them all
# Each boot's output is printed whole after it ends, so that two boots'
# lines do not mix.
set -uo pipefail
: "${RXE_VM:?RXE_VM is not set}"
action=${1:-}
shift || true
[ "$#" -gt 0 ] || { echo "usage: lanes.sh start|stop SESSION..." >&2; exit 2; }
status=0
case "$action" in
start)
	sessions=("$@") pids=()
	for session in "$@"; do
		mkdir -p "$session"
		# shellcheck disable=SC2086 # the fixture's options, one word each
		"$RXE_VM" start --fresh ${RXE_START_ARGS:?} "$session" \
			>"$session.start.log" 2>&1 &
		pids+=("$!")
	done
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || status=1
		cat "${sessions[$i]}.start.log"
	done
	;;
stop)
	for session in "$@"; do
		"$RXE_VM" stop "$session" || status=1
	done
	;;
*)
	echo "usage: lanes.sh start|stop SESSION..." >&2
	exit 2
	;;
esac
exit "$status"
