# shellcheck shell=bash
# Helpers for the transport scenarios (transport_*.sh): -c uc, -c ud and -R
# runs of rdma_rc_example.  Each run's stdout, stderr and exit status land
# in a folder under the session folder, which both guests and the host see
# read-write, as TP_DIR/NAME.{server,client}.{out,err,rc}.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rc_common.sh"

TP_DIR=$RXE_SESSION/transport-out/$RXE_TEST_NAME
rm -rf "$TP_DIR"
mkdir -p "$TP_DIR"

# tp_run NAME SIDE ARGS...: guest shell text that runs rdma_rc_example in
# the foreground with ARGS; outputs in TP_DIR/NAME.SIDE.*
tp_run() {
	local name=$1 side=$2
	shift 2
	echo "'$RDMA_RC_EXAMPLE' $* >$TP_DIR/$name.$side.out 2>$TP_DIR/$name.$side.err; echo \$? >$TP_DIR/$name.$side.rc"
}

# tp_pair NAME PORT ARGS...: guest shell text for a server and a client on
# the same guest, both with ARGS, the client connecting to the guest's own
# address.  The client retries its connect while the server starts.
tp_pair() {
	local name=$1 port=$2
	shift 2
	# $RXE_ADDR is the guest's, expanded there: hence the single quotes.
	# shellcheck disable=SC2016
	echo "( $(tp_run "$name" server -p "$port" --accept-timeout 60 "$@") ) &
$(tp_run "$name" client -p "$port" --connect-timeout 60 "$@" '"$RXE_ADDR"')
wait"
}

# tp_server / tp_client NAME PORT ARGS...: one side each, for two guests.
tp_server() {
	local name=$1 port=$2
	shift 2
	tp_run "$name" server -p "$port" --accept-timeout 60 "$@"
}
tp_client() {
	local name=$1 port=$2
	shift 2
	# shellcheck disable=SC2016 # expanded in the guest
	tp_run "$name" client -p "$port" --connect-timeout 60 "$@" '"$RXE_PEER_ADDR"'
}

# tp_show NAME...: every side's outputs, for the log.
tp_show() {
	local name side
	for name in "$@"; do
		for side in server client; do
			echo "--- $name $side: stdout ---"
			cat "$TP_DIR/$name.$side.out" 2>/dev/null
			echo "--- $name $side: stderr ---"
			cat "$TP_DIR/$name.$side.err" 2>/dev/null
		done
	done
}

# expect_empty FILE: nothing was written to FILE.
expect_empty() {
	if [ -e "$1" ] && [ ! -s "$1" ]; then
		_rxe_pass "$1 is empty"
	else
		_rxe_fail "$(_rxe_where)" "expected an empty file" "$1"
	fi
}

# tp_expect_ok NAME: both sides exited 0, said so, wrote no error.
tp_expect_ok() {
	local name=$1 side
	for side in server client; do
		expect_rc "$TP_DIR/$name.$side.rc" 0
		expect_line "$TP_DIR/$name.$side.out" "test result is 0"
		expect_empty "$TP_DIR/$name.$side.err"
	done
}

# tp_expect_uc NAME PORT: the UC flow: SEND and RDMA WRITE, READ skipped.
tp_expect_uc() {
	local s=$TP_DIR/$1.server.out c=$TP_DIR/$1.client.out port=$2
	tp_expect_ok "$1"
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
	local s=$TP_DIR/$1.server.out c=$TP_DIR/$1.client.out port=$2 from=$3
	tp_expect_ok "$1"
	expect_line "$s" "UD has only SEND/RECEIVE: skipping read"
	expect_line "$s" "UD has only SEND/RECEIVE: skipping write"
	expect_line "$s" "waiting on port $port for TCP connection"
	expect_line "$s" "going to send the message: 'SEND operation'"
	expect_line "$c" "GRH source GID: ::ffff:$from"
	expect_line "$c" "Message is: 'SEND operation'"
	expect_no_text "$c" "Now replacing it with"
}
