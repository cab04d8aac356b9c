# shellcheck shell=bash
# Shared by the robust_* scenarios (sourced after lib.sh and rc_common.sh):
# rdma_rc_example against tests/peer/bad_peer.py, which speaks the QP-info
# protocol wrongly on purpose, and the checks of an error case.  Every case
# is a run of lib.sh's plan, bounded by RXE_RUN_LIMIT.

# -I -S: no site module; scanning site-packages over 9p costs ~25 s under the
# guests' software CPU on a busy machine, against ~3 s without.
BAD_PEER="python3 -I -S $SOURCE_DIR/tests/peer/bad_peer.py"
# Bound on any one case: far above every timeout the cases pass, so a hang
# shows up as exit status 124 instead of a stuck suite.
RXE_RUN_LIMIT=${RXE_RUN_LIMIT:-60}

# rb_server_vs_peer [--on G] NAME PORT MODE OPTIONS [WRAP]: the program
# (run by WRAP, if given) serves on PORT with OPTIONS; bad_peer, its
# client, connects once it listens and misbehaves as MODE.  Both run on
# guest G (default a).
rb_server_vs_peer() {
	local g=a
	if [ "$1" = --on ]; then
		g=$2
		shift 2
	fi
	rxe_pair "$1" --on "$g" "$g" --ready "waiting on port $2 for TCP connection" \
		"${5:+$5 }'$RDMA_RC_EXAMPLE' -p $2 --accept-timeout 50 $4" \
		"$BAD_PEER --connect \"\$RXE_ADDR\" --port $2 --mode $3 --timeout 50"
}

# rb_client_vs_peer NAME PORT MODE OPTIONS: bad_peer serves on PORT; once
# it listens, the program connects to it with OPTIONS.
rb_client_vs_peer() {
	rxe_pair "$1" --ready "bad_peer: listening on port $2" \
		"$BAD_PEER --listen --port $2 --mode $3 --timeout 50" \
		"'$RDMA_RC_EXAMPLE' -p $2 $4 \"\$RXE_ADDR\""
}

# expect_case RUN RC LINE: run RUN ($RXE_RUNS/RUN.*) exited RC and printed
# LINE on stderr.
expect_case() {
	expect_rc "$RXE_RUNS/$1.rc" "$2"
	expect_line "$RXE_RUNS/$1.err" "$3"
}

# expect_at_least_ms RUN MS: run RUN ran for MS milliseconds or more.
expect_at_least_ms() {
	local got
	got=$(cat "$RXE_RUNS/$1.ms" 2>/dev/null || echo 0)
	if [ "$got" -ge "$2" ]; then
		_rxe_pass "$1 took $got ms (at least $2)"
	else
		_rxe_fail "$(_rxe_where)" "$1: expected at least $2 ms, took $got ms" "$RXE_RUNS/$1.err"
	fi
}
