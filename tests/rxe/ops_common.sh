# shellcheck shell=bash
# Shared pieces of the ops_* scenarios (sourced after lib.sh and
# rc_common.sh): run several server/client pairs in one guest command, and
# the checks each operation's output must pass.

# ops_pair_apart NAME PORT SERVER_ARGS CLIENT_ARGS: guest shell lines that
# run a server with SERVER_ARGS and a client with CLIENT_ARGS on this guest,
# into NAME.{server,client}.{out,err,rc}.
ops_pair_apart() {
	local name=$1 port=$2 server_args=$3 client_args=$4
	cat <<EOS
"\$P" $server_args -p $port >$name.server.out 2>$name.server.err &
server=\$!
"\$P" $client_args -p $port --connect-timeout 20 "\$RXE_ADDR" >$name.client.out 2>$name.client.err
echo \$? >$name.client.rc
wait \$server
echo \$? >$name.server.rc
EOS
}

# ops_pair NAME PORT ARGS...: the same, with ARGS on both sides.
ops_pair() {
	local name=$1 port=$2
	shift 2
	ops_pair_apart "$name" "$port" "$*" "$*"
}

# ops_guest_script LINES: wrap LINES into a guest command that runs them in
# a fresh folder and prints every file it made between "=== FILE" markers
# (one guest command has one stdout).
ops_guest_script() {
	cat <<EOS
P='$RDMA_RC_EXAMPLE'
cd "\$(mktemp -d)" || exit 1
$1
for f in *; do
	echo "=== \$f"
	cat "\$f"
done
EOS
}

# ops_split FILE: the guest's stdout back into $RXE_OUT.<name> files.
ops_split() {
	awk -v dir="$RXE_OUT" '/^=== /{ f = dir "." $2; printf "" > f; next } f { print > f }' "$1"
}

# ops_expect_clean PREFIX: both sides exited 0 and wrote nothing to stderr
# (an expected failure is reported as an outcome, not as an error).
ops_expect_clean() {
	local side
	for side in server client; do
		expect_rc "$1.$side.rc" 0
		expect_line "$1.$side.out" "test result is 0"
		if [ -e "$1.$side.err" ] && [ ! -s "$1.$side.err" ]; then
			_rxe_pass "$1.$side.err is empty"
		else
			_rxe_fail "$(_rxe_where)" "expected an empty stderr" "$1.$side.err"
		fi
	done
}

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
