#!/usr/bin/env bash
# scripts/rxe-vm as bench_link_restart.sh gives it to scripts/bench.sh: the
# real one ($REAL_RXE_VM), except that in the first exec of bench-guest.sh
# both guests' program is bench_link_shim.sh, and a server gives up after
# 20 s, a client after trying to connect for 8 s.  $SHIM_DONE marks that
# this exec has been made.
set -euo pipefail
: "${REAL_RXE_VM:?}" "${SHIM_DONE:?}"
shim=$(dirname "$(readlink -f "$0")")/bench_link_shim.sh
args=()
shimmed=
for arg in "$@"; do
	if [ "${1:-}" = exec ] && [ ! -e "$SHIM_DONE" ] &&
		[[ "$arg" == "env PROGRAM="*"ROLE="* ]]; then
		arg="env BENCH_SERVER_BOUND=20 BENCH_CONNECT_WINDOW=8 PROGRAM='$shim' REAL_PROGRAM=${arg#env PROGRAM=}"
		shimmed=1
	fi
	args+=("$arg")
done
[ -z "$shimmed" ] || : >"$SHIM_DONE"
exec "$REAL_RXE_VM" "${args[@]}"
