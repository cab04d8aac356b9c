#!/usr/bin/env bash
# scripts/rxe-vm as bench_link_restart.sh gives it to scripts/bench.sh: the
# real one ($REAL_RXE_VM), except that in the first exec of bench-guest.sh
# as the client, guest b's program is bench_link_shim.sh.  $SHIM_DONE
# marks that this exec has been made.
set -euo pipefail
: "${REAL_RXE_VM:?}" "${SHIM_DONE:?}"
shim=$(dirname "$(readlink -f "$0")")/bench_link_shim.sh
args=()
for arg in "$@"; do
	if [ "${1:-}" = exec ] && [ ! -e "$SHIM_DONE" ] &&
		[[ "$arg" == "env PROGRAM="*"ROLE=client"* ]]; then
		arg="env PROGRAM='$shim' REAL_PROGRAM=${arg#env PROGRAM=}"
		: >"$SHIM_DONE"
	fi
	args+=("$arg")
done
exec "$REAL_RXE_VM" "${args[@]}"
