#!/usr/bin/env bash
# rdma-core's ibv_rc_pingpong between the two shared guests: proves that the
# rxe devices, the socket link and the host's rdma-core work together.
. "$(dirname "$0")/lib.sh"

# The server listens on TCP 18515 for the client's connection details; the
# client retries until the server is up.
# shellcheck disable=SC2016 # $RXE_PEER_ADDR: expanded in the guest
client='for try in 1 2 3 4 5 6 7 8 9 10; do
	sleep 1
	ibv_rc_pingpong -d rxe0 -g 1 -n 5 "$RXE_PEER_ADDR" && exit 0
done
exit 1'
rxe_pair pingpong --on a b 'ibv_rc_pingpong -d rxe0 -g 1 -n 5' \
	"bash -c $(printf %q "$client")"
rxe_go rc_pingpong 90
for side in server client; do
	expect_rc "$RXE_RUNS/pingpong.$side.rc" 0
	expect_regex "$RXE_RUNS/pingpong.$side.out" '^40960 bytes in [0-9.]+ seconds'
	expect_regex "$RXE_RUNS/pingpong.$side.out" '^5 iters in [0-9.]+ seconds'
done
expect_text "$RXE_RUNS/pingpong.server.out" "GID ::ffff:192.0.2.2"
expect_text "$RXE_RUNS/pingpong.client.out" "GID ::ffff:192.0.2.1"
finish
