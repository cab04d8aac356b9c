#!/usr/bin/env bash
# Two sides that run different programs: each program sends its own magic
# number (in the QP-info message, and in the -R private data), so a peer
# that runs another program is refused in one line naming both, exit 1:
#   tcp_bench  rdma_rc_example's server, rdma_bench's client (guest a);
#   tcp_check  rdma_check --pair's server, rdma_rc_example's client (b);
#   cm_bench   rdma_lessons -R's server, rdma_bench -R's client (guest a,
#              after tcp_bench): the server refuses; the client hears only
#              the rejection;
#   lessons_rc rdma_lessons's server, rdma_rc_example's client (guest a).
# Two rdma_lessons sides with different -o lists agree on nothing once
# connected: each names both lists and runs no operation (guest b; over
# the TCP exchange, then -R).
# And, on the host, rdma_rc_example refuses the tools' options and the
# lessons' (rdma_lessons's), each in one line naming the program that
# takes it, and words no program takes as unknown options.
. "$(dirname "$0")/lib.sh"

RC="'$RDMA_RC_EXAMPLE'"
L="'$RDMA_LESSONS'"
BENCH="'$RDMA_BENCH'"
CHECK="'$RDMA_CHECK'"
# shellcheck disable=SC2016 # expanded in the guest
here='"$RXE_ADDR"'
same="run the same program on both sides"

rxe_pair tcp_bench "$RC -p 20040 --accept-timeout 60" \
	"$BENCH lat -p 20040 --connect-timeout 60 $here"
rxe_pair cm_bench "$L -R -p 20044 --accept-timeout 60" \
	"$BENCH lat -R -p 20044 --connect-timeout 60 $here"
rxe_pair tcp_check --on b b "$CHECK --pair -p 20042 --accept-timeout 60" \
	"$RC -p 20042 --connect-timeout 60 $here"
# rdma_lessons and rdma_rc_example refuse each other too.
rxe_pair lessons_rc "$L -p 20056 --accept-timeout 60" \
	"$RC -p 20056 --connect-timeout 60 $here"
rxe_pair tcp_ops --on b b "$L -p 20050 --accept-timeout 60" \
	"$L -o send,write -p 20050 --connect-timeout 60 $here"
rxe_pair cm_ops --on b b "$L -R -o send -p 20052 --accept-timeout 60" \
	"$L -R -o send,write -p 20052 --connect-timeout 60 $here"
rxe_pair tcp_tclass --on b b "$RC --tclass 96 -p 20054 --accept-timeout 60" \
	"$RC -p 20054 --connect-timeout 60 $here"
# The manual's own protocol (--manual-peer), against tests/peer/
# manual_peer.c, a peer of ours that speaks it: the manual's program as the
# server (a) and ours as its client (b); ours as the server, on today's
# post and poll calls too, and its client (b); the manual's side without
# -g, which sends no GID (b); ours with --manual-peer against ours without
# it (b). Ours is rdma_lessons: --manual-peer is its option.
MP="'$BUILD_DIR/tests/manual_peer'"
# shellcheck disable=SC2016 # expanded in guest b: guest a's address
there='"$RXE_PEER_ADDR"'
rxe_pair manual_server --on a b "$MP -g 1 -p 20130" \
	"$L --manual-peer -p 20130 --connect-timeout 60 $there"
rxe_pair manual_client --on a b \
	"$L --manual-peer --new-api -p 20132 --accept-timeout 60" \
	"$MP -g 1 -p 20132 $there"
rxe_pair manual_no_gid --on b b "$MP -p 20134" \
	"$L --manual-peer -p 20134 --connect-timeout 60 $here"
rxe_pair manual_ours --on b b "$L --manual-peer -p 20136 --accept-timeout 60" \
	"$L -p 20136 --connect-timeout 60 $here"
rxe_go peer_program 150
R=$RXE_RUNS

# The manual's flow between the two protocols' sides, both ways: each
# prints what arrived, the manual's 16 bytes of each text.
for run in manual_server manual_client; do
	for side in server client; do
		expect_rc "$R/$run.$side.rc" 0
	done
	expect_line "$R/$run.client.out" "Contents of server's buffer: 'RDMA read operat'"
	expect_line "$R/$run.server.out" "Contents of server buffer: 'RDMA write opera'"
done
expect_line "$R/manual_server.client.out" "Message is: 'SEND operation '"
expect_line "$R/manual_server.client.out" "Now replacing it with: 'RDMA write opera'"
expect_line "$R/manual_server.client.out" "Path MTU = 256 bytes"
expect_line "$R/manual_client.client.out" "Message is: 'SEND operation'"
expect_line "$R/manual_client.server.out" "going to send the message: 'SEND operation'"
# Refused in one line: a GID of zeros, and one of our own programs.
expect_rc "$R/manual_no_gid.client.rc" 1
expect_line "$R/manual_no_gid.client.err" "rdma_lessons: failed to accept the manual's program's connection data: the peer sent no GID (the manual's program sends zeros without -g): give it -g N, the index of its RoCE v2 GID of the address it connects with (Invalid argument)"
expect_rc "$R/manual_ours.server.rc" 1
expect_line "$R/manual_ours.server.err" "rdma_lessons: failed to accept the manual's program's connection data: the peer runs one of this project's programs, not the manual's: drop --manual-peer, or run the manual's program there (Protocol error)"
expect_rc "$R/manual_ours.client.rc" 1

for run in tcp_bench cm_bench lessons_rc tcp_check tcp_ops cm_ops tcp_tclass; do
	for side in server client; do
		expect_rc "$R/$run.$side.rc" 1
	done
done

# Over the TCP exchange each side reads the other's magic number.
expect_line "$R/tcp_bench.server.err" "rdma_rc_example: failed to agree with the peer: the peer runs rdma_bench, this side rdma_rc_example: $same"
expect_line "$R/tcp_bench.client.err" "rdma_bench: failed to agree with the peer: the peer runs rdma_rc_example, this side rdma_bench: $same"
# Nothing runs past the refusal: no message, no measurement.
expect_no_text "$R/tcp_bench.server.out" "going to send the message"
expect_no_text "$R/tcp_bench.client.out" "#bytes"

expect_line "$R/tcp_check.client.err" "rdma_rc_example: failed to agree with the peer: the peer runs rdma_check, this side rdma_rc_example: $same"
expect_line "$R/tcp_check.server.err" "rdma_check: failed to agree with the peer: the peer runs rdma_rc_example, this side rdma_check: $same"
expect_regex "$R/tcp_check.server.out" "^FAIL exchange +the peer runs something else: the peer runs rdma_rc_example, this side rdma_check: $same; fix: run rdma_check on both sides$"
expect_regex "$R/tcp_check.server.out" "^verdict: FAIL: these two hosts cannot do RDMA with these options \(failed: exchange;"
expect_no_text "$R/tcp_check.server.out" "PASS connect"

# -R: the client's private data names its program; the server refuses it
# in its line, and rejects the request with its own private data, from
# which the client names both programs in the line of the rejection.
expect_line "$R/cm_bench.server.err" "rdma_lessons: failed to agree with the peer: the peer runs rdma_bench, this side rdma_lessons: $same"
expect_line "$R/cm_bench.client.err" "rdma_bench: failed to get RDMA_CM event RDMA_CM_EVENT_CONNECT_RESPONSE: got RDMA_CM_EVENT_REJECTED, status 28 (Connection refused); the peer runs rdma_lessons, this side rdma_bench: $same"
expect_no_text "$R/cm_bench.client.out" "#bytes"

# rdma_lessons and rdma_rc_example send magic numbers of their own: the
# manual's flow does not start against the other program.
expect_line "$R/lessons_rc.server.err" "rdma_lessons: failed to agree with the peer: the peer runs rdma_rc_example, this side rdma_lessons: $same"
expect_line "$R/lessons_rc.client.err" "rdma_rc_example: failed to agree with the peer: the peer runs rdma_lessons, this side rdma_rc_example: $same"
expect_no_text "$R/lessons_rc.server.out" "going to send the message"
expect_no_text "$R/lessons_rc.client.out" "Message is"

# The lists of operations travel after the connection, each side's to the
# other: both name both, and nothing is sent.
ops_line="rdma_lessons: failed to agree with the peer on the operations:"
expect_line "$R/tcp_ops.server.err" "$ops_line it runs -o send,write, this side -o send,read,write; give both the same -o and -c"
expect_line "$R/tcp_ops.client.err" "$ops_line it runs -o send,read,write, this side -o send,write; give both the same -o and -c"
expect_line "$R/cm_ops.server.err" "$ops_line it runs -o send,write, this side -o send; give both the same -o and -c"
expect_line "$R/cm_ops.client.err" "$ops_line it runs -o send, this side -o send,write; give both the same -o and -c"
for run in tcp_ops cm_ops; do
	expect_text "$R/$run.client.out" "Remote QP number"
	expect_no_text "$R/$run.server.out" "going to send the message"
done
# One side with --tclass 96, the other with none: refused on both sides
# before any operation, as the QP info says.
for side in server client; do
	expect_line "$R/tcp_tclass.$side.err" "rdma_rc_example: failed to agree with the peer: the peer uses another SL or traffic class: give both sides the same --sl and --tclass"
done
expect_no_text "$R/tcp_tclass.server.out" "going to send the message"

# The tools' options are theirs alone: rdma_rc_example takes none of them,
# and says whose each is.
for opt in --pair:rdma_check --json:rdma_check --busy-poll:rdma_bench \
	--report_gbits:rdma_bench --out_json_file:rdma_bench; do
	tool=${opt#*:}
	opt=${opt%%:*}
	"$RDMA_RC_EXAMPLE" "$opt" >"$RXE_OUT_DIR/rc$opt.out" 2>"$RXE_OUT_DIR/rc$opt.err"
	expect_status $? 2 "rdma_rc_example $opt"
	expect_line "$RXE_OUT_DIR/rc$opt.err" "rdma_rc_example: option $opt is $tool's, not rdma_rc_example's"
done
# The lessons' options are rdma_lessons's: rdma_rc_example runs the
# manual's flow alone, and names the program (or programs) that have each.
i=0
while IFS='|' read -r args owners; do
	i=$((i + 1))
	opt=${args%% *}
	case $opt in
	--*) typed=$opt ;;
	*) typed="$opt (${owners%%:*})" ;;
	esac
	# shellcheck disable=SC2086 # the words of the command line
	"$RDMA_RC_EXAMPLE" $args >"$RXE_OUT_DIR/lesson$i.out" 2>"$RXE_OUT_DIR/lesson$i.err"
	expect_status $? 2 "rdma_rc_example $args"
	expect_line "$RXE_OUT_DIR/lesson$i.err" "rdma_rc_example: option $typed is ${owners#*:}, not rdma_rc_example's"
	expect_status "$(wc -l <"$RXE_OUT_DIR/lesson$i.err")" 1 "rdma_rc_example $args: stderr lines"
done <<'EOF'
-o send,read,write|--ops:rdma_lessons's
--ops send_imm|:rdma_lessons's
-c uc|--connection:rdma_lessons's and rdma_bench's
--connection ud|:rdma_lessons's and rdma_bench's
-R|--rdma-cm:rdma_lessons's and rdma_check's
--rdma-cm|:rdma_lessons's and rdma_check's
-e|--events:rdma_lessons's, rdma_check's and rdma_bench's
--events|:rdma_lessons's, rdma_check's and rdma_bench's
--new-api|:rdma_lessons's and rdma_bench's
--manual-peer|:rdma_lessons's
--clients 2|:rdma_lessons's
--srq|:rdma_lessons's
EOF
# No program's: unknown.
for opt in --check --bench --gbps; do
	"$RDMA_RC_EXAMPLE" "$opt" >"$RXE_OUT_DIR/rc$opt.out" 2>"$RXE_OUT_DIR/rc$opt.err"
	expect_status $? 2 "rdma_rc_example $opt"
	expect_line "$RXE_OUT_DIR/rc$opt.err" "rdma_rc_example: unknown option '$opt'"
done
finish
