# shellcheck shell=bash
# rdma_rc_example's server and client for lib.sh's rxe_pair, rdma_lessons's
# (and any other program's, with program_pair), and the checks their runs
# share (sourced after lib.sh).

: "${RDMA_RC_EXAMPLE:?RDMA_RC_EXAMPLE is not set: build rdma_rc_example first}"
: "${RDMA_LESSONS:?RDMA_LESSONS is not set: build rdma_lessons first}"

# rc_pair NAME PORT SERVER_ARGS CLIENT_ARGS [rxe_pair options]: rxe_pair of
# rdma_rc_example SERVER_ARGS -p PORT and rdma_rc_example CLIENT_ARGS -p
# PORT, the client connecting to the server's guest ("$RXE_ADDR" on one
# guest, "$RXE_PEER_ADDR" across two).
rc_pair() {
	program_pair "$RDMA_RC_EXAMPLE" "$@"
}

# lessons_pair NAME PORT SERVER_ARGS CLIENT_ARGS [rxe_pair options]: rc_pair
# for rdma_lessons, on both sides: a run with one of the lessons' options
# (-o, -c, -e, -R, --new-api, --manual-peer, --clients, --srq), which
# rdma_rc_example refuses, and the two programs refuse each other as peers.
lessons_pair() {
	program_pair "$RDMA_LESSONS" "$@"
}

# program_pair PROGRAM NAME PORT SERVER_ARGS CLIENT_ARGS [rxe_pair options]:
# rc_pair for PROGRAM (a path), whose ARGS come first, before -p PORT.
program_pair() {
	local program=$1 name=$2 port=$3 server=$4 client=$5 addr i
	shift 5
	# Expanded in the guest: hence the single quotes.
	# shellcheck disable=SC2016
	addr='"$RXE_ADDR"'
	for ((i = 1; i < $#; i++)); do
		if [ "${!i}" = --on ]; then
			local gs=$((i + 1)) gc=$((i + 2))
			# shellcheck disable=SC2016
			[ "${!gs}" = "${!gc}" ] || addr='"$RXE_PEER_ADDR"'
		fi
	done
	rxe_pair "$name" "$@" "'$program' $server -p $port" \
		"'$program' $client -p $port $addr"
}

# rc_expect_clean NAME: both sides of run NAME exited 0, said so, and wrote
# nothing to stderr (an expected failure is an outcome, not an error).
rc_expect_clean() {
	local side
	for side in server client; do
		expect_rc "$RXE_RUNS/$1.$side.rc" 0
		expect_line "$RXE_RUNS/$1.$side.out" "test result is 0"
		expect_empty "$RXE_RUNS/$1.$side.err"
	done
}

# rc_expect_flow SERVER_OUT CLIENT_OUT PORT: every line of the manual's flow.
rc_expect_flow() {
	local server=$1 client=$2 port=$3 side
	expect_line "$server" "waiting on port $port for TCP connection"
	expect_line "$server" "going to send the message: 'SEND operation'"
	expect_line "$client" "Message is: 'SEND operation'"
	expect_line "$client" "Contents of server's buffer: 'RDMA read operation'"
	expect_line "$client" "Now replacing it with: 'RDMA write operation'"
	expect_line "$server" "Contents of server buffer: 'RDMA write operation'"
	for side in "$server" "$client"; do
		expect_regex "$side" '^Remote address = 0x[0-9a-f]+$'
		expect_regex "$side" '^Remote rkey = 0x[0-9a-f]+$'
		expect_regex "$side" '^Remote QP number = 0x[0-9a-f]+$'
		expect_regex "$side" '^Remote LID = 0x[0-9a-f]+$'
		expect_line "$side" "test result is 0"
	done
}
