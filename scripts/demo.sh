#!/usr/bin/env bash
# Build rdma_rc_example and run it between two QEMU guests with soft-RoCE:
# the server on guest a (192.0.2.1), the client on guest b.
#
#   scripts/demo.sh [-- EXTRA ARGS FOR BOTH SIDES]
#
# The lessons' options (-o, -c, -e, -R, --new-api, --manual-peer,
# --clients, --srq) are rdma_lessons's: with one of them among the ARGS,
# both sides run rdma_lessons instead.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
BUILD_DIR=${BUILD_DIR:-build}
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR=$ROOT/$BUILD_DIR ;; esac
RXE_VM=$ROOT/scripts/rxe-vm

die() {
	echo "demo.sh: $*" >&2
	exit 1
}

# What the demo is doing, on stderr: stdout has the transcripts only.
note() {
	echo "demo.sh: $*" >&2
}

extra=()
while [ $# -gt 0 ]; do
	case "$1" in
	--) shift; extra=("$@"); break ;;
	-h | --help)
		sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
		exit 0 ;;
	*) die "unexpected argument $1 (arguments for the program go after --)" ;;
	esac
done

# The build's packages and the rig's: the demo uses nothing else.
# shellcheck source=scripts/packages.sh
. "$ROOT/scripts/packages.sh"
# shellcheck source=scripts/programs.sh
. "$ROOT/scripts/programs.sh"
build_programs demo.sh "${RIG_PACKAGES[@]}"
# The manual's flow is rdma_rc_example's; the other lessons, rdma_lessons's.
exe=$RC_EXAMPLE
if lessons_wanted "${extra[@]+"${extra[@]}"}"; then
	exe=$LESSONS
fi

args=""
[ "${#extra[@]}" -eq 0 ] || args=$(printf ' %q' "${extra[@]}")
server="$(printf '%q' "$exe") -d rxe0$args"
# The program retries its TCP connect for a few seconds; the pause gives the
# server time to start listening first anyway.
client="sleep 2; $(printf '%q' "$exe") -d rxe0$args 192.0.2.1"

out=$(mktemp -d "${TMPDIR:-/tmp}/rxe-demo.XXXXXX")
session=$out/session
trap '"$RXE_VM" stop "$session" >/dev/null 2>&1; rm -rf "$out"' EXIT
echo "server (guest a): $server"
echo "client (guest b): $client"
# rxe-vm says on stderr what it prepares the first time (the kernel, the
# initramfs), each guest as it comes up, and why a boot failed.
note "booting guests a and b (QEMU with a software CPU: about 15 s on an idle machine, minutes on a busy one)"
"$RXE_VM" start --guests 2 "$session" || die "the guests did not start"
note "running the pair: the server on guest a, the client on guest b"
start=$SECONDS
status=0
"$RXE_VM" exec --timeout 120 --out "$out/demo" "$session" -a "$server" -b "$client" \
	>"$out/rxe-vm.log" 2>&1 || status=$?
note "the pair ran in $((SECONDS - start)) s"
"$RXE_VM" stop "$session" >/dev/null 2>&1 || true

show() {
	local role=$1 g=$2
	echo
	echo "=============== $role (guest $g) — exit status $(cat "$out/demo.$g.rc" 2>/dev/null || echo '?') ==============="
	cat "$out/demo.$g.out" 2>/dev/null || true
	if [ -s "$out/demo.$g.err" ]; then
		echo "--------------- $role stderr ---------------"
		cat "$out/demo.$g.err"
	fi
}
show server a
show client b
if [ "$status" -ne 0 ]; then
	echo
	echo "demo.sh: the run failed (status $status); rxe-vm said:" >&2
	grep '^rxe-vm:' "$out/rxe-vm.log" >&2 || true
fi
exit "$status"
