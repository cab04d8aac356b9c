# shellcheck shell=bash
# Shared checks for the rdma_rc_example scenarios (sourced after lib.sh).

: "${RDMA_RC_EXAMPLE:?RDMA_RC_EXAMPLE is not set: build rdma_rc_example first}"

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
