#!/usr/bin/env bash
# Peer faults: tests/peer/bad_peer.py speaks the QP-info protocol wrongly on
# purpose, or dies once the QPs are connected.  Each case must end with a
# line naming what was wrong, exit status 1, and no hang.  Each case runs on
# one guest; the cases alternate between the two guests, which have a host
# CPU each.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rc_common.sh"
. "$(dirname "$0")/robust_lib.sh"

port=19910
g=a
for mode in close-mid short bad-magic bad-version oversize silent no-gid roce-v1; do
	port=$((port + 1))
	rb_server_vs_peer --on $g "server_$mode" "$port" "$mode" "-t 3"
	[ $g = a ] && g=b || g=a
done
rb_server_vs_peer --on b server_fake-qp 19919 fake-qp "-t 10"
rb_client_vs_peer client_fake-qp 19920 fake-qp "-t 30"
# A peer that hangs once connected (as one stopped would): -t ends the wait.
rb_client_vs_peer client_stuck-qp 19938 stuck-qp "-t 3"
rxe_go peer 280

why="rdma_rc_example: failed to accept the peer's QP info"
expect_case server_close-mid.server 1 "rdma_rc_example: failed to receive from the peer after 20 of 57 bytes: Connection reset by peer; the peer closed its connection: it ended or failed, and its own output says why"
expect_case server_short.server 1 "rdma_rc_example: failed to receive from the peer after 32 of 57 bytes: Connection timed out"
expect_case server_bad-magic.server 1 "$why: wrong magic number (the peer runs none of this project's programs) (Protocol error)"
expect_case server_bad-version.server 1 "$why: unsupported message version (Protocol not supported)"
expect_case server_oversize.server 1 "$why: body length is not the one of this version (Bad message)"
expect_case server_silent.server 1 "rdma_rc_example: failed to receive from the peer after 0 of 57 bytes: Connection timed out"
# On RoCE the program always has a GID: a peer without one, or with one of
# another RoCE version, could never reach it.
expect_case server_no-gid.server 1 "rdma_rc_example: failed to agree with the peer: we use a GID (-g) and the peer does not: give -g on both sides"
expect_case server_roce-v1.server 1 "rdma_rc_example: failed to agree with the peer: the peer's GID is of another type than ours (IB, RoCE v1 or v2): choose GIDs of one type with -g"
# The peer died after RTS: our SEND is never acknowledged, and as a
# client nothing arrives for the receive it posted. The peer's closed
# connection ends the wait for the completion at once, long before -t
# (10 s, 30 s) or the SEND's retries (about 8 s after it died): one line,
# exit status 1. The time is the program's end after the peer's, each on
# its guest's clock: how long the program took to start, or the peer to
# connect, on a loaded host is no part of it.
gone="rdma_rc_example: failed to get a completion: Connection reset by peer; the peer closed its connection: it ended or failed, and its own output says why"
expect_line "$RXE_RUNS/server_fake-qp.client.out" "bad_peer: synced, now dying"
expect_case server_fake-qp.server 1 "$gone"
expect_line "$RXE_RUNS/client_fake-qp.server.out" "bad_peer: synced, now dying"
expect_case client_fake-qp.client 1 "$gone"
expect_line "$RXE_RUNS/client_stuck-qp.server.out" "bad_peer: synced, now silent"
expect_case client_stuck-qp.client 1 "rdma_rc_example: failed to get a completion within 3000 ms: Connection timed out; the peer is stuck or gone, or its packets do not arrive (on RoCE: UDP port 4791 closed by a firewall, a netdev MTU below the path MTU, no route to its GID)"
for c in server_fake-qp.server:client client_fake-qp.client:server; do
	run=${c%%.*} side=${c#*.} side=${side%%:*} peer=${c##*:}
	ended=$(cat "$RXE_RUNS/$run.$side.end-us" 2>/dev/null || echo 0)
	died=$(cat "$RXE_RUNS/$run.$peer.end-us" 2>/dev/null || echo 0)
	ms=$(((ended - died) / 1000))
	expect_status "$((died > 0 && ms < 6000))" 1 \
		"$run.$side ended $ms ms after the peer died (under 6000)"
done
for c in server_close-mid.server server_bad-magic.server server_fake-qp.server \
	client_fake-qp.client; do
	expect_regex "$RXE_RUNS/$c.out" '^test result is -[0-9]+$'
done
finish
