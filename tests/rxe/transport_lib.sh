# shellcheck shell=bash
# Shared by the transport scenarios (transport_*.sh): -c uc, -c ud and -R
# runs of rdma_lessons, through lessons_pair, and the checks of their flows.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rc_common.sh"

# tp_pair NAME PORT ARGS... [-- rxe_pair options]: rdma_lessons as
# server and client, both with ARGS.
tp_pair() {
	local name=$1 port=$2 args=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		args+=("$1")
		shift
	done
	[ $# -gt 0 ] && shift
	lessons_pair "$name" "$port" "--accept-timeout 60 ${args[*]}" \
		"--connect-timeout 60 ${args[*]}" "$@"
}

# tp_expect_uc NAME PORT: the UC flow: SEND and RDMA WRITE, READ skipped.
tp_expect_uc() {
	local s=$RXE_RUNS/$1.server.out c=$RXE_RUNS/$1.client.out port=$2
	rc_expect_clean "$1"
	expect_line "$s" "UC has no RDMA READ: skipping read"
	expect_line "$c" "UC has no RDMA READ: skipping read"
	expect_line "$s" "waiting on port $port for TCP connection"
	expect_line "$s" "going to send the message: 'SEND operation'"
	expect_line "$c" "Message is: 'SEND operation'"
	expect_line "$c" "Now replacing it with: 'RDMA write operation'"
	expect_line "$s" "Contents of server buffer: 'RDMA write operation'"
	expect_no_text "$c" "Contents of server's buffer"
	expect_no_text "$c" "GRH source GID"
}

# tp_expect_ud NAME PORT SERVER_ADDR: the UD flow, SEND only, and the
# client saw the server's address in the GRH area.
tp_expect_ud() {
	local s=$RXE_RUNS/$1.server.out c=$RXE_RUNS/$1.client.out port=$2 from=$3
	rc_expect_clean "$1"
	expect_line "$s" "UD has only SEND/RECEIVE: skipping read"
	expect_line "$s" "UD has only SEND/RECEIVE: skipping write"
	expect_line "$s" "waiting on port $port for TCP connection"
	expect_line "$s" "going to send the message: 'SEND operation'"
	expect_line "$c" "GRH source GID: ::ffff:$from"
	expect_line "$c" "Message is: 'SEND operation'"
	expect_no_text "$c" "Now replacing it with"
}
