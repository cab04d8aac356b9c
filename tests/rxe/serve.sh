#!/usr/bin/env bash
# rdma_lessons's server for several clients (--clients, --srq, -o hello):
# the server on guest a, its clients (ordinary programs) on guest b, all
# started at once. Three clients on one SRQ, with its limit event and the
# refills; a receive queue per client, and a client beyond the number
# refused; a client killed after connecting, left out while the others
# finish; one killed while a round waits for its message, left out at
# once; a client that runs another list of operations, left out at
# once; two clients of three, named and told why their run ends; and
# what the receives cost for 1, 2, 4 and 8 clients (each
# server says it both ways). The SRQ server also through RDMA_CM (-R),
# and on one guest.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve_lib.sh"

P="'$RDMA_LESSONS'"
# shellcheck disable=SC2016 # expanded in guest b
PEER='"$RXE_PEER_ADDR"'

# Three clients wanted, two come: after --accept-timeout the server names
# them and ends their run, and each says why. It waits beside the cases
# below, and its ends close the plan.
rxe_start short.server --on a "$P --clients 3 --srq -o hello -p 19958 --accept-timeout 6"
for c in c1 c2; do
	rxe_start short.$c --on b "$P -o hello -p 19958 --connect-timeout 40 --accept-timeout 6 $PEER"
done
serve srq 19960 3 "--clients 3 --srq -o send,hello" "-o send,hello"
# The same through RDMA_CM: each client's request paired with its TCP
# connection by the port its private data names.
serve cm 19978 3 "-R --clients 3 --srq -o send,hello" "-R -o send,hello"
# Server and clients on one guest.
SERVE_ON=a serve one 19986 2 "--clients 2 --srq -o hello" "-o hello"
# Two clients, then a third once the server has both: refused.
rxe_start late.server --on a "$P --clients 2 -o hello -p 19961"
rxe_start late.c1 --on b "$P -o hello -p 19961 --connect-timeout 40 $PEER"
rxe_start late.c2 --on b "$P -o hello -p 19961 --connect-timeout 40 $PEER"
rxe_wait_text late.server "the port is closed to more" --on b
rxe_start late.c3 --on b "$P -o hello -p 19961 --connect-timeout 3 $PEER"
for c in c1 c2 c3; do
	rxe_end late.$c --on b
done
rxe_end late.server --on a
# Client 2 connects and is killed while the server waits for client 3.
rxe_start killed.server --on a "$P --clients 3 --srq -o send,hello -p 19962"
rxe_start killed.c1 --on b "$P -o send,hello -p 19962 --connect-timeout 40 $PEER"
rxe_wait_text killed.server "client 1 of 3: our QP" --on b
rxe_start killed.c2 --on b "$P -o send,hello -p 19962 --connect-timeout 40 $PEER"
rxe_wait_text killed.server "client 2 of 3: our QP" --on b
rxe_signal killed.c2 KILL --on b
rxe_end killed.c2 --on b
rxe_start killed.c3 --on b "$P -o send,hello -p 19962 --connect-timeout 40 $PEER"
rxe_end killed.c1 --on b
rxe_end killed.c3 --on b
rxe_end killed.server --on a
# Client 2 stopped in its first round, after it answered the go and
# before its SEND, then killed: the server, waiting for that round's
# messages, sees its connection close and leaves it out at once (within
# -t 30 it would have waited on). All on guest b, one clock.
# shellcheck disable=SC2016 # expanded in guest b
here='"$RXE_ADDR"'
rxe_start inround.server --on b "$P --clients 3 --srq -o hello -p 19957 -t 30"
rxe_start inround.c1 --on b "$P -o hello -p 19957 -t 30 --connect-timeout 40 $here"
rxe_wait_text inround.server "client 1 of 3: our QP" --on b
rxe_start inround.c2 --on b "$P -o hello -p 19957 -t 30 --connect-timeout 40 $here"
rxe_wait_text inround.server "client 2 of 3: our QP" --on b
# Its go's sync byte sent, it waits for the server's: the first go comes
# once all three are in.
rxe_step --on b "run_pause 2"
rxe_signal inround.c2 STOP --on b
rxe_start inround.c3 --on b "$P -o hello -p 19957 -t 30 --connect-timeout 40 $here"
rxe_wait_text inround.server "'hello 1 of 8" --on b
rxe_signal inround.c2 KILL --on b
rxe_end inround.c2 --on b
rxe_end inround.c1 --on b
rxe_end inround.c3 --on b
rxe_end inround.server --on b
# Two clients, one of them with another list of operations.
rxe_start other.server --on a "$P --clients 2 -o hello -p 19959"
rxe_start other.c1 --on b "$P -o hello -p 19959 --connect-timeout 40 $PEER"
rxe_start other.c2 --on b "$P -o send -p 19959 --connect-timeout 40 $PEER"
for run in other.c1 other.c2; do
	rxe_end $run --on b
done
rxe_end other.server --on a
# The cost of the receives, by the number of clients: each server's line
# gives both ways, so one server a row (2 clients: late's server).
serve cost1 19963 1 "--clients 1 -o hello" "-o hello"
serve cost4 19964 4 "--clients 4 -o hello" "-o hello"
serve cost8srq 19965 8 "--clients 8 --srq -o hello" "-o hello"
for run in short.c1 short.c2; do
	rxe_end $run --on b
done
rxe_end short.server --on a
rxe_go serve 420
R=$RXE_RUNS

echo "--- --srq: three clients at once, their messages on one SRQ, named by QP"
for i in 1 2 3; do
	expect_rc "$R/srq.c$i.rc" 0
	expect_line "$R/srq.c$i.out" "Message is: 'SEND operation'"
	expect_empty "$R/srq.c$i.err"
done
expect_rc "$R/srq.server.rc" 0
expect_empty "$R/srq.server.err"
serve_expect_hellos srq 3
expect_line "$R/srq.server.out" "receive memory: 16 receives posted, 1024 bytes registered for them (one shared receive queue for 3 clients; a queue for each would take 24, 1536 bytes)"
expect_line "$R/srq.server.out" "SRQ limit armed at 8: the device says when fewer receives are left"
# 24 messages on 16 receives: below 8 after rounds 3 and 6, refilled each time.
expect_same "srq: the limit events, each answered by a refill" \
	"$(printf '%s\n' "async event: SRQ limit reached on the SRQ" "refilled the SRQ: posted 9 receives again, 16 in it" "SRQ limit armed at 8 again" \
		"async event: SRQ limit reached on the SRQ" "refilled the SRQ: posted 9 receives again, 16 in it" "SRQ limit armed at 8 again")" \
	"$(grep -e '^async event' -e '^refilled' -e '^SRQ limit armed at 8 again' "$R/srq.server.out")"
# ...after the third round and the sixth: 24 - 9 = 7 left, below 8.
expect_same "srq: the first event after 9 messages" 9 \
	"$(sed -n '/^client [0-9] (QP/p; /^async event/q' "$R/srq.server.out" | grep -c '^client')"
for i in 1 2 3; do
	expect_regex "$R/srq.server.out" "^QP 0x[0-9a-f]{6} of client $i leaves the SRQ: moved to ERR$"
done
# Soft-RoCE of the guests' kernel does not raise the last-WQE event.
expect_line "$R/srq.server.out" "IBV_EVENT_QP_LAST_WQE_REACHED came for 0 of 3 QPs within 2000 ms: this device does not raise it for all"
expect_line "$R/srq.server.out" "served 3 of 3 clients to the end"

echo "--- -R: three clients through RDMA_CM, on one SRQ"
for i in 1 2 3; do
	expect_rc "$R/cm.c$i.rc" 0
	expect_empty "$R/cm.c$i.err"
	expect_line "$R/cm.c$i.out" "Message is: 'SEND operation'"
done
expect_rc "$R/cm.server.rc" 0
expect_empty "$R/cm.server.err"
expect_line "$R/cm.server.out" "waiting on port 19978 for RDMA_CM connection"
expect_line "$R/cm.server.out" "waiting on port 19979 for TCP connection"
expect_same "cm: each request paired with its TCP connection" 3 \
	"$(grep -c '^client [123] of 3: RDMA_CM connect request, and its TCP connection was established$' "$R/cm.server.out")"
serve_expect_hellos cm 3
expect_line "$R/cm.server.out" "receive memory: 16 receives posted, 1024 bytes registered for them (one shared receive queue for 3 clients; a queue for each would take 24, 1536 bytes)"
expect_same "cm: limit events" 2 "$(grep -c '^async event: SRQ limit reached on the SRQ$' "$R/cm.server.out")"
expect_line "$R/cm.server.out" "served 3 of 3 clients to the end"

echo "--- one guest: the server and its two clients on guest a"
for run in one.c1 one.c2 one.server; do
	expect_rc "$R/$run.rc" 0
	expect_empty "$R/$run.err"
done
serve_expect_hellos one 2
expect_line "$R/one.server.out" "refilled the SRQ: posted 10 receives again, 16 in it"

echo "--- a receive queue per client; a client beyond --clients 2 is refused"
for i in 1 2; do
	expect_rc "$R/late.c$i.rc" 0
done
expect_rc "$R/late.server.rc" 0
serve_expect_hellos late 2
expect_line "$R/late.server.out" "receive memory: 16 receives posted, 1024 bytes registered for them (a receive queue for each of 2 clients; one shared queue would take 16, 1024 bytes)"
expect_no_text "$R/late.server.out" "SRQ"
expect_rc "$R/late.c3.rc" 1
expect_line "$R/late.c3.err" "rdma_lessons: failed to connect to 192.0.2.1 port 19961 within 3 s: Connection refused"
expect_no_text "$R/late.c3.out" "sending"

# left_out RUN LINE: client 2 of RUN left out with LINE, the server's one
# line on stderr (exit 1), and clients 1 and 3 served their 8 messages.
left_out() {
	local run=$1 line=$2 i
	for i in 1 3; do
		expect_rc "$R/$run.c$i.rc" 0
		expect_same "$run: client $i sent its 8" 8 "$(grep -c '^sending: ' "$R/$run.c$i.out")"
	done
	expect_rc "$R/$run.server.rc" 1
	expect_same "$run: the server's one line on stderr" \
		"rdma_lessons: client 2 left out: $line" "$(cat "$R/$run.server.err")"
	expect_line "$R/$run.server.out" "served 2 of 3 clients to the end"
	expect_same "$run: messages from client 2" 0 "$(grep -c '^client 2 (QP' "$R/$run.server.out")"
	expect_same "$run: messages from clients 1 and 3" 16 "$(grep -c '^client [13] (QP' "$R/$run.server.out")"
}

echo "--- a client killed after connecting: left out, the others served"
# The server sees the closed connection before it posts to that QP: no
# wait for a SEND no one acknowledges.
left_out killed "it closed its TCP connection: it ended or was killed (Connection reset by peer)"

echo "--- a client killed while the round waits for its message: left out at once"
left_out inround "it closed its TCP connection before its message came: it ended or was killed (Connection reset by peer)"
# From client 2's end (killed) to the server's: its seven rounds left
# with the other two, not the -t of 30 s the round would have waited.
killed_at=$(cat "$R/inround.c2.end-us" 2>/dev/null || echo 0)
ended_at=$(cat "$R/inround.server.end-us" 2>/dev/null || echo 0)
expect_status "$(((ended_at - killed_at) / 1000 <= 15000))" 1 \
	"inround: the server ended $(((ended_at - killed_at) / 1000)) ms after client 2 was killed (at most 15000)"

echo "--- a client with another list of operations: left out, the other served"
expect_rc "$R/other.c1.rc" 0
expect_same "other: client with -o hello sent its 8" 8 "$(grep -c '^sending: ' "$R/other.c1.out")"
expect_rc "$R/other.c2.rc" 1
expect_line "$R/other.c2.err" "rdma_lessons: failed to agree with the peer on the operations: it runs -o hello, this side -o send; give both the same -o and -c"
expect_rc "$R/other.server.rc" 1
expect_regex "$R/other.server.err" "^rdma_lessons: failed to agree with the peer on the operations: it runs -o send, this side -o hello; give both the same -o and -c$"
expect_regex "$R/other.server.err" "^rdma_lessons: client [12] left out: it runs other operations \(Protocol error\)$"
expect_line "$R/other.server.out" "served 1 of 2 clients to the end"
echo "--- two clients of three: named, and told why the run ends"
expect_rc "$R/short.server.rc" 1
expect_regex "$R/short.server.err" "^rdma_lessons: 2 of 3 clients came within 6 s \(client 1 from 192\.0\.2\.2, client 2 from 192\.0\.2\.2\): the run ends for them; fix: start every client within --accept-timeout, or give --clients 2$"
for c in c1 c2; do
	expect_rc "$R/short.$c.rc" 1
	expect_line "$R/short.$c.err" "rdma_lessons: the peer ended the run: only 2 of the 3 clients it waits for came within its --accept-timeout (6 s) (Operation canceled)"
	expect_no_text "$R/short.$c.out" "sending:"
done

echo "--- what the receives cost: per client without the SRQ, flat with it"
for run in cost1:1 cost4:4 cost8srq:8; do
	n=${run#*:} run=${run%:*}
	expect_rc "$R/$run.server.rc" 0
	expect_line "$R/$run.server.out" "served $n of $n clients to the end"
	serve_expect_hellos "$run" "$n"
done
# docs/operations.md's table, a row from each server's line.
expect_line "$R/cost1.server.out" "receive memory: 8 receives posted, 512 bytes registered for them (a receive queue for each of 1 client; one shared queue would take 16, 1024 bytes)"
expect_line "$R/cost4.server.out" "receive memory: 32 receives posted, 2048 bytes registered for them (a receive queue for each of 4 clients; one shared queue would take 16, 1024 bytes)"
expect_line "$R/cost8srq.server.out" "receive memory: 16 receives posted, 1024 bytes registered for them (one shared receive queue for 8 clients; a queue for each would take 64, 4096 bytes)"
finish
