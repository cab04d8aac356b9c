# shellcheck shell=bash
# The checks each operation's output must pass, shared by the ops_*
# scenarios (sourced after lib.sh and rc_common.sh).  PREFIX is a run's
# $RXE_RUNS/NAME: its sides are PREFIX.server.* and PREFIX.client.*.

# ops_expect_same WHAT A B: two values the script extracted are equal.
ops_expect_same() {
	if [ -n "$2" ] && [ "$2" = "$3" ]; then
		_rxe_pass "$1: '$2' on both sides"
	else
		_rxe_failed "FAIL: $(_rxe_where): $1: sent '$2', received '$3'"
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

# sge: the client's three SGEs, the server's two, split where each list
# says, and the two-SGE WRITE's bytes in the server's buffer.
ops_expect_sge() {
	local server=$1.server.out client=$1.client.out
	expect_line "$client" "SEND of one message gathered from 3 SGEs in 2 regions:"
	expect_line "$client" "client SGE 0: 14 bytes in the buffer: 'gathered from '"
	expect_line "$client" "client SGE 1: 11 bytes in the second area: 'three SGEs '"
	expect_line "$client" "client SGE 2: 14 bytes in the buffer, 32 bytes in: 'in two regions'"
	expect_line "$server" "Posted a receive of 2 SGEs: 20 bytes in the buffer, then up to 64 in the second area"
	expect_line "$server" "Received one message of 39 bytes, scattered:"
	expect_line "$server" "server SGE 0: 20 bytes in the buffer: 'gathered from three '"
	expect_line "$server" "server SGE 1: 19 bytes in the second area: 'SGEs in two regions'"
	expect_line "$client" "RDMA WRITE gathered from 2 SGEs:"
	expect_line "$client" "client SGE 0: 13 bytes in the second area: 'written from '"
	expect_line "$client" "client SGE 1: 9 bytes in the buffer (the text and its '\\0'): 'two SGEs'"
	expect_line "$server" "Contents of server buffer: 'written from two SGEs' (one RDMA WRITE of 2 SGEs)"
}

# two_mr: both READs see the server's text, the WRITE through the
# read-write key lands, the one through the read-only key is refused with
# a remote access error naming that key, and the bytes stay.
ops_expect_two_mr() {
	local server=$1.server.out client=$1.client.out ro rw ro_got rw_got
	ro=$(sed -n 's/^Registered the same 64 bytes again, remote read only: rkey \(0x[0-9a-f]*\)$/\1/p' "$server")
	rw=$(sed -n 's/^Registered the same 64 bytes again, remote read and write: rkey \(0x[0-9a-f]*\)$/\1/p' "$server")
	ro_got=$(sed -n "s/^Server's area at 0x[0-9a-f]*, registered twice: rkey \(0x[0-9a-f]*\) (remote read only), rkey 0x[0-9a-f]* (remote read and write)$/\1/p" "$client")
	rw_got=$(sed -n "s/^Server's area at 0x[0-9a-f]*, registered twice: rkey 0x[0-9a-f]* (remote read only), rkey \(0x[0-9a-f]*\) (remote read and write)$/\1/p" "$client")
	ops_expect_same "read-only rkey" "$ro" "$ro_got"
	ops_expect_same "read-write rkey" "$rw" "$rw_got"
	ops_expect_same "two registrations, two rkeys" "different" "$([ "$ro" != "$rw" ] && echo different)"
	expect_line "$client" "RDMA READ through rkey $ro (remote read only): 'one buffer, two registrations'"
	expect_line "$client" "RDMA READ through rkey $rw (remote read and write): 'one buffer, two registrations'"
	expect_line "$client" "RDMA WRITE through rkey $rw: success"
	expect_line "$server" "Contents of server buffer: 'written through the read-write key'"
	expect_line "$client" "RDMA WRITE completed with status 'remote access error' (IBV_WC_REM_ACCESS_ERR), as expected: rkey $ro grants remote read, not remote write"
	expect_line "$server" "Contents of server buffer: 'written through the read-write key' (unchanged)"
	expect_no_text "$server" "written through the read-only key"
	expect_regex "$server" '^Server QP 0x[0-9a-f]{6} is now in state ERR$'
}
