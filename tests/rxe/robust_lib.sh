# shellcheck shell=bash
# Batches of error cases for the robust_* scenarios (sourced after lib.sh and
# rc_common.sh).  A scenario writes a guest script of `rb_case LABEL CMD...`
# lines; robust_batch runs it in one guest and unpacks, per case, into
# $RB/LABEL.out, .err, .rc and .ms (elapsed milliseconds), so the usual
# expect_* checks read them.  One exec per batch keeps the rig's cost low.

# -I -S: no site module; scanning site-packages over 9p costs ~25 s under the
# guests' software CPU on a busy machine, against ~3 s without.
BAD_PEER="python3 -I -S $SOURCE_DIR/tests/peer/bad_peer.py"
# Bound on any one case: far above every timeout the cases pass, so a hang
# shows up as exit status 124 instead of a stuck suite.
RB_CASE_LIMIT=${RB_CASE_LIMIT:-60}

# The helpers the guest script starts with.
_rb_prelude() {
	cat <<PRELUDE
set -u
RB_DIR=\$(mktemp -d)
rb_case() {
	local label=\$1 start end
	shift
	start=\$(date +%s%N)
	timeout -k 5 $RB_CASE_LIMIT "\$@" >"\$RB_DIR/\$label.out" 2>"\$RB_DIR/\$label.err"
	echo \$? >"\$RB_DIR/\$label.rc"
	end=\$(date +%s%N)
	echo \$(((end - start) / 1000000)) >"\$RB_DIR/\$label.ms"
}
# rb_wait_for FILE LINE: wait (bounded) until FILE has the line LINE.
rb_wait_for() {
	local i
	for i in \$(seq 1 $RB_CASE_LIMIT); do
		grep -qxF -- "\$2" "\$1" 2>/dev/null && return 0
		sleep 1
	done
	echo "gave up waiting for '\$2' in \$1" >&2
	return 1
}
# rb_case_signal LABEL SIGNAL FILE LINE CMD...: run CMD like rb_case, and
# send it SIGNAL once FILE (its own LABEL.out, or another's) has LINE; the
# second's pause lets it get from printing LINE into the wait that follows.
# timeout(1) passes the signal on to CMD.
rb_case_signal() {
	local label=\$1 sig=\$2 file=\$3 line=\$4 pid
	shift 4
	timeout -k 5 $RB_CASE_LIMIT "\$@" >"\$RB_DIR/\$label.out" 2>"\$RB_DIR/\$label.err" &
	pid=\$!
	rb_wait_for "\$file" "\$line" && sleep 1
	kill -"\$sig" "\$pid"
	wait "\$pid"
	echo \$? >"\$RB_DIR/\$label.rc"
}
# rb_server_vs_peer LABEL PORT MODE OPTIONS: the program serves on PORT;
# bad_peer, started first, connects to it (retrying until it listens) and
# misbehaves as MODE.
rb_server_vs_peer() {
	local label=\$1 port=\$2 mode=\$3 options=\$4
	$BAD_PEER --connect "\$RXE_ADDR" --port "\$port" --mode "\$mode" \
		--timeout 50 >"\$RB_DIR/\$label.peer" 2>&1 &
	rb_case "\$label" \${RB_WRAP:-} $RDMA_RC_EXAMPLE -p "\$port" --accept-timeout 50 \$options
	wait
}
# rb_client_vs_peer LABEL PORT MODE OPTIONS: bad_peer serves on PORT; once
# it listens, the program connects to it.
rb_client_vs_peer() {
	local label=\$1 port=\$2 mode=\$3 options=\$4
	$BAD_PEER --listen --port "\$port" --mode "\$mode" --timeout 50 \
		>"\$RB_DIR/\$label.peer" 2>&1 &
	rb_wait_for "\$RB_DIR/\$label.peer" "bad_peer: listening on port \$port" &&
		rb_case "\$label" $RDMA_RC_EXAMPLE -p "\$port" \$options "\$RXE_ADDR"
	wait
}
PRELUDE
}

# robust_batch NAME SIDE TIMEOUT: run the guest script read from stdin in
# guest SIDE (a or b); the results land in RB=$RXE_OUT_DIR/NAME/.
robust_batch() {
	local name=$1 side=$2 limit=$3 script
	script=$RXE_OUT_DIR/$name.guest.sh
	{
		_rb_prelude
		cat
		echo 'tar -C "$RB_DIR" -cf - . | base64'
	} >"$script"
	rxe_exec "$name" --timeout "$limit" "-$side" "bash '$script'" >/dev/null
	RB=$RXE_OUT_DIR/$name
	mkdir -p "$RB"
	if ! base64 -d <"$RXE_OUT.$side.out" | tar -C "$RB" -xf -; then
		_rxe_fail "robust_batch $name" "could not unpack the guest's results" \
			"$RXE_OUT.$side.err"
	fi
}

# expect_case LABEL RC LINE: case LABEL exited RC and printed LINE on stderr.
expect_case() {
	expect_rc "$RB/$1.rc" "$2"
	expect_line "$RB/$1.err" "$3"
}

# expect_at_least_ms LABEL MS: case LABEL ran for MS milliseconds or more.
expect_at_least_ms() {
	local got
	got=$(cat "$RB/$1.ms" 2>/dev/null || echo 0)
	if [ "$got" -ge "$2" ]; then
		_rxe_pass "$1 took $got ms (at least $2)"
	else
		_rxe_fail "$(_rxe_where)" "$1: expected at least $2 ms, took $got ms" "$RB/$1.err"
	fi
}
