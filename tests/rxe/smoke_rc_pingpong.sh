#!/usr/bin/env bash
# rdma-core's ibv_rc_pingpong between the two shared guests: proves that the
# rxe devices, the socket link and the host's rdma-core work together.
. "$(dirname "$0")/lib.sh"

# The server listens on TCP 18515 for the client's connection details; the
# client retries until the server is up.
client='for try in 1 2 3 4 5 6 7 8 9 10; do
	sleep 1
	ibv_rc_pingpong -d rxe0 -g 1 -n 5 "$RXE_PEER_ADDR" && exit 0
done
exit 1'
rxe_exec rc_pingpong --timeout 90 \
	-a 'ibv_rc_pingpong -d rxe0 -g 1 -n 5' \
	-b "$client"
for side in a b; do
	expect_rc "$RXE_OUT.$side.rc" 0
	expect_regex "$RXE_OUT.$side.out" '^40960 bytes in [0-9.]+ seconds'
	expect_regex "$RXE_OUT.$side.out" '^5 iters in [0-9.]+ seconds'
done
expect_text "$RXE_OUT.a.out" "GID ::ffff:192.0.2.2"
expect_text "$RXE_OUT.b.out" "GID ::ffff:192.0.2.1"
finish
