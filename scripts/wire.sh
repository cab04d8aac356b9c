#!/usr/bin/env bash
# See the packets: run rdma_rc_example (or rdma_lessons) between two
# guests, soft-RoCE (or soft-iWARP), with the link between them recorded,
# then show what went over it.
#
#   scripts/wire.sh [--out DIR] [--server OPT]... [--] [PROGRAM OPTIONS]
#   scripts/wire.sh --siw [--out DIR] [--server OPT]... [--] [RDMA_LESSONS OPTIONS]
#   scripts/wire.sh --mc [--out DIR] [--] [RDMA_MC_EXAMPLE OPTIONS]
#
# The options go to both sides: the server on guest a (192.0.2.1), the
# client on guest b (192.0.2.2).  The program is rdma_rc_example, the
# manual's flow; with one of the lessons' options (-o, -c, -e, -R,
# --new-api, --manual-peer, --clients, --srq), which are rdma_lessons's,
# it is rdma_lessons, on both sides.  With --siw, over iWARP instead of
# RoCE v2: rdma_lessons, both sides with -R, and the client connects to
# guest a's siw0 address (198.51.100.1), whose link is the one recorded.
# --server OPT gives the server alone one more option (--srq, say: the
# client runs as any other).  With --mc, rdma_mc_example instead: a
# receiver on guest b, then, once it has joined, the sender on guest a.
# Both sides also get -v: their traces place the posts and completions in
# the chart.  Prints both transcripts (without the [verbs] lines unless
# you gave -v), the set-up traffic, the packet table (scripts/wire.py),
# and where it left the pcap (wire.pcap), the rows (wire.rows) and the
# chart (wire.msc, wire.svg, wire.png): in DIR, or a new folder in
# ${TMPDIR:-/tmp}.  Exit status: the pair's (0 when both sides passed).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
BUILD_DIR=${BUILD_DIR:-build}
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR=$ROOT/$BUILD_DIR ;; esac
RXE_VM=$ROOT/scripts/rxe-vm
# tshark decodes the packets, mscgen draws the chart.
WIRE_PACKAGES=(tshark mscgen python3)

die() {
	echo "wire.sh: $*" >&2
	exit 1
}

note() {
	echo "wire.sh: $*" >&2
}

mc=0 siw=0 out='' args=() server_args=() verbose=0
while [ $# -gt 0 ]; do
	case "$1" in
	--mc) mc=1; shift ;;
	--siw) siw=1; shift ;;
	--out) out=${2:?--out needs a folder}; shift 2 ;;
	--server) server_args+=("${2:?--server needs an option}"); shift 2 ;;
	-h | --help)
		sed -n '2,25p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
		exit 0 ;;
	--) shift; args+=("$@"); break ;;
	*) args+=("$1"); shift ;;
	esac
done
for a in "${args[@]+"${args[@]}"}"; do
	case "$a" in -v | --verbose) verbose=1 ;; esac
done
[ "$mc" -eq 0 ] || [ "$siw" -eq 0 ] || die "--mc and --siw do not go together: siw has no UD, so no multicast"
# Where the server listens and which link is recorded: eth0 (rxe0, RoCE
# v2) or, with --siw, eth1 (siw0, iWARP), where -R (rdma_lessons's) is the
# only way to connect QPs.
if [ "$siw" -eq 1 ]; then
	server_addr=198.51.100.1 client_addr=198.51.100.2
	start_opts=(--capture --siw) capture=--capture-siw
	args=(-R "${args[@]+"${args[@]}"}")
else
	server_addr=192.0.2.1 client_addr=192.0.2.2
	start_opts=(--capture) capture=--capture
fi

# shellcheck source=scripts/packages.sh
. "$ROOT/scripts/packages.sh"
# shellcheck source=scripts/programs.sh
. "$ROOT/scripts/programs.sh"
build_programs wire.sh "${WIRE_PACKAGES[@]}" "${RIG_PACKAGES[@]}"
# rdma_rc_example runs the manual's flow alone; a lesson's option (-R with
# --siw among them) is rdma_lessons's, on both sides.
program=rdma_rc_example exe=$RC_EXAMPLE
if lessons_wanted "${args[@]+"${args[@]}"}" "${server_args[@]+"${server_args[@]}"}"; then
	program=rdma_lessons exe=$LESSONS
fi

if [ -z "$out" ]; then
	out=$(mktemp -d "${TMPDIR:-/tmp}/rxe-wire.XXXXXX")
fi
mkdir -p "$out"
out=$(cd "$out" && pwd -P)
session=$out/session
# The guests see this folder read-write at the same path: the receiver's
# output is shared there with the sender's guest.
trap '"$RXE_VM" stop "$session" >/dev/null 2>&1 || true' EXIT
echo "wire.sh: booting two guests, the link recorded (log: $out/rxe-vm.log)"
"$RXE_VM" start --fresh "${start_opts[@]}" --guests 2 "$session" >"$out/rxe-vm.log" 2>&1 ||
	{ cat "$out/rxe-vm.log" >&2; die "the guests did not start"; }

opts=" -v"
[ "${#args[@]}" -eq 0 ] || opts+=$(printf ' %q' "${args[@]}")
if [ "$mc" -eq 1 ]; then
	exe=$(printf '%q' "$MC_EXAMPLE")
	shared=$(printf '%q' "$session/receiver")
	# The receiver's output goes to the shared folder first, so that the
	# sender's guest can wait (60 s at most) for it to have joined.
	side_a="i=0; until grep -q '==> joined group' $shared.out 2>/dev/null; do
		i=\$((i + 1)); if [ \$i -gt 600 ]; then echo 'wire.sh: the receiver did not join within 60 s' >&2; exit 1; fi
		sleep 0.1; done; exec $exe -s -b 192.0.2.1$opts"
	side_b="$exe -b 192.0.2.2$opts >$shared.out 2>$shared.err; rc=\$?; cat $shared.out; cat $shared.err >&2; exit \$rc"
	names=(sender receiver)
	echo "sender (guest a):   rdma_mc_example -s -b 192.0.2.1$opts"
	echo "receiver (guest b): rdma_mc_example -b 192.0.2.2$opts"
else
	exe=$(printf '%q' "$exe")
	server_opts=$opts
	[ "${#server_args[@]}" -eq 0 ] || server_opts+=$(printf ' %q' "${server_args[@]}")
	side_a="$exe$server_opts"
	# The client retries its TCP connect until the server listens.
	side_b="$exe$opts --connect-timeout 30 $server_addr"
	names=(server client)
	echo "server (guest a): $program$server_opts"
	echo "client (guest b): $program$opts --connect-timeout 30 $server_addr"
fi

status=0
"$RXE_VM" exec --timeout 180 "$capture" "$out/wire.pcap" --out "$out/run" \
	"$session" -a "$side_a" -b "$side_b" >>"$out/rxe-vm.log" 2>&1 || status=$?

show() {
	local role=$1 g=$2
	echo
	echo "=============== $role (guest $g): exit status $(cat "$out/run.$g.rc" 2>/dev/null || echo '?') ==============="
	if [ "$verbose" -eq 1 ]; then
		cat "$out/run.$g.out" 2>/dev/null || true
	else
		grep -v '^\[verbs\]' "$out/run.$g.out" 2>/dev/null || true
	fi
	if [ -s "$out/run.$g.err" ]; then
		echo "--------------- $role stderr ---------------"
		cat "$out/run.$g.err"
	fi
}
show "${names[0]}" a
show "${names[1]}" b
if [ "$status" -ne 0 ]; then
	note "the run failed (status $status); rxe-vm said:"
	grep '^rxe-vm:' "$out/rxe-vm.log" >&2 || true
fi

echo
# The client (or the sender) on the left of the chart.
if [ "$mc" -eq 1 ]; then
	peers=(--peer "sender=192.0.2.1=$out/run.a.out" --peer "receiver=192.0.2.2=$out/run.b.out")
else
	peers=(--peer "client=$client_addr=$out/run.b.out" --peer "server=$server_addr=$out/run.a.out")
fi
if python3 "$ROOT/scripts/wire.py" "$out/wire.pcap" "${peers[@]}" \
	--rows "$out/wire.rows" --msc "$out/wire.msc"; then
	for format in svg png; do
		mscgen -T "$format" -i "$out/wire.msc" -o "$out/wire.$format" >/dev/null ||
			note "mscgen could not draw $out/wire.msc as $format"
	done
else
	note "the capture holds no RoCE or iWARP packet"
fi
echo
echo "pcap:  $out/wire.pcap (tshark -r $out/wire.pcap, or Wireshark)"
echo "chart: $out/wire.svg, $out/wire.png (from $out/wire.msc)"
echo "rows:  $out/wire.rows"
exit "$status"
