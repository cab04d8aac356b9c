# shellcheck shell=bash
# The checks each operation's output must pass, shared by the ops_*
# scenarios (sourced after lib.sh and rc_common.sh).  PREFIX is a run's
# $RXE_RUNS/NAME: its sides are PREFIX.server.* and PREFIX.client.*.

# ops_expect_same WHAT A B: two values the script extracted are equal.
ops_expect_same() {
	if [ -n "$2" ] && [ "$2" = "$3" ]; then
		_rxe_pass "$1: '$2' on both sides"
	else
		RXE_FAILED=$((RXE_FAILED + 1))
		echo "FAIL: $(_rxe_where): $1: sent '$2', received '$3'"
	fi
}

# ops_expect_messages CLIENT_OUT LINE...: the client printed exactly these
# "Message is: ..." lines, in this order: no SEND overwrote the one before
# it in the receive area before the client had printed it.
ops_expect_messages() {
	local file=$1 got want
	shift
	got=$(grep '^Message is: ' "$file" 2>/dev/null)
	want=$(printf '%s\n' "$@")
	if [ "$got" = "$want" ]; then
		_rxe_pass "$file has the $# messages, in order"
	else
		_rxe_fail "$(_rxe_where)" "expected exactly these messages, in order: $(printf "[%s] " "$@")" "$file"
	fi
}

# The immediate data of send_imm reaches the client unchanged.
ops_expect_send_imm() {
	local server=$1.server.out client=$1.client.out sent got
	expect_line "$server" "going to send the message: 'SEND with immediate' with immediate data 0x1234abcd"
	expect_line "$client" "Message is: 'SEND with immediate', immediate data 0x1234abcd"
	sent=$(sed -n "s/^going to send the message: .* with immediate data \(0x[0-9a-f]*\)$/\1/p" "$server")
	got=$(sed -n "s/^Message is: .*, immediate data \(0x[0-9a-f]*\)$/\1/p" "$client")
	ops_expect_same "send_imm immediate data" "$sent" "$got"
}

# The immediate data of write_imm reaches the server (the target) unchanged.
ops_expect_write_imm() {
	local server=$1.server.out client=$1.client.out sent got
	expect_line "$client" "Now writing: 'RDMA write with immediate' with immediate data 0x5678ef01"
	expect_line "$server" "RDMA write with immediate arrived: 26 bytes, immediate data 0x5678ef01"
	expect_line "$server" "Contents of server buffer: 'RDMA write with immediate'"
	sent=$(sed -n "s/^Now writing: .* with immediate data \(0x[0-9a-f]*\)$/\1/p" "$client")
	got=$(sed -n "s/^RDMA write with immediate arrived: .*immediate data \(0x[0-9a-f]*\)$/\1/p" "$server")
	ops_expect_same "write_imm immediate data" "$sent" "$got"
}

ops_expect_imm() {
	ops_expect_send_imm "$1"
	ops_expect_write_imm "$1"
}

# fetch_add: each old value, and the final counter, exactly.
ops_expect_fetch_add() {
	expect_line "$1.server.out" "Counter on the server starts at 1000"
	expect_line "$1.client.out" "fetch_add 1: old value 1000"
	expect_line "$1.client.out" "fetch_add 10: old value 1001"
	expect_line "$1.client.out" "fetch_add 100: old value 1011"
	expect_line "$1.server.out" "Counter on the server is now 1111"
}

# cmp_swap: swapped with the right expected value, not with a stale one.
ops_expect_cmp_swap() {
	expect_line "$1.server.out" "Counter on the server starts at 42"
	expect_line "$1.client.out" "cmp_swap expecting 42, new 7: old value 42, swapped"
	expect_line "$1.client.out" "cmp_swap expecting 42, new 99: old value 7, not swapped"
	expect_line "$1.server.out" "Counter on the server is now 7"
}

# mw: the write through the window lands, the one after invalidation is
# refused with a remote access error and leaves the server's bytes alone.
ops_expect_mw() {
	local server=$1.server.out client=$1.client.out sent got
	expect_regex "$server" '^Bound a type 2 memory window: 64 bytes at 0x[0-9a-f]+, remote write, rkey 0x[0-9a-f]+ \(its region grants no remote access of its own\)$'
	expect_regex "$client" "^Server's memory window: 64 bytes at 0x[0-9a-f]+, rkey 0x[0-9a-f]+$"
	sent=$(sed -n 's/^Bound a type 2 memory window: .*, rkey \(0x[0-9a-f]*\) (.*$/\1/p' "$server")
	got=$(sed -n "s/^Server's memory window: .*, rkey \(0x[0-9a-f]*\)$/\1/p" "$client")
	ops_expect_same "window rkey" "$sent" "$got"
	expect_line "$client" "RDMA WRITE through the window: success"
	expect_line "$server" "Contents of server buffer: 'written through the window'"
	expect_regex "$server" '^Invalidated the window with a LOCAL_INV work request: rkey 0x[0-9a-f]+ grants nothing now$'
	expect_line "$client" "RDMA WRITE completed with status 'remote access error' (IBV_WC_REM_ACCESS_ERR), as expected: the window was invalidated"
	expect_line "$server" "Contents of server buffer: 'written through the window' (unchanged)"
	expect_no_text "$server" "written after the window was invalidated"
	# The async event line: the event itself where the device raises it,
	# else the line saying none came (rdma_rxe of Linux 6.1 raises none).
	expect_regex "$server" '^(async event: local access violation work queue error on QP 0x[0-9a-f]{6}|No async event for QP 0x[0-9a-f]{6} within 500 ms: .*rdma_rxe raises none\))$'
	expect_regex "$server" '^Server QP 0x[0-9a-f]{6} is now in state ERR$'
}

# rnr: the SEND with no receive at the server ends in RNR_RETRY_EXC_ERR.
ops_expect_rnr() {
	expect_line "$1.server.out" "Not posting a receive: the client's SEND will find none"
	expect_line "$1.client.out" "SEND completed with status 'RNR retry counter exceeded' (IBV_WC_RNR_RETRY_EXC_ERR), as expected"
	expect_line "$1.client.out" "The server had no receive posted: it answered with RNR NAKs, the client retried 6 times (rnr_retry) and gave up"
	expect_regex "$1.client.out" '^Client QP 0x[0-9a-f]{6} is now in state ERR$'
	expect_regex "$1.server.out" '^Server QP 0x[0-9a-f]{6} is still in state RTS$'
}
