#!/usr/bin/env bash
# rdma_lessons -R on the rig's soft-iWARP device (siw0, on eth1): the
# manual's flow on one guest and between two, --ops send,read,write, -e,
# sge (scatter/gather) between two, the server for two clients on an SRQ,
# rdma_bench lat and bw for send, write and read (and the wait each chose,
# on one guest and on two), bw READ over three QPs (-q 3) between two,
# each QP at depth; each lesson iWARP cannot do
# refused, with its line and status, by the server and by the client
# before any connection, and so is UD (-c ud -R); -d siw0 without -R
# refused with the iWARP line; rdma_check's pair round, whose loss check
# has no counters to read on siw.
# One guest's cases run on b while the two-guest ones run from a to b.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rc_common.sh"
. "$(dirname "$0")/ops_common.sh"
. "$(dirname "$0")/serve_lib.sh"
. "$(dirname "$0")/bench_lib.sh"

P="'$RDMA_LESSONS'"
B="'$RDMA_BENCH'"
# Refusals never reach a peer: each must end well before the 60 s its
# accept or connect timeout would take, within this (ms), even on a busy
# host where starting a program in a guest takes seconds.
REFUSE_MS=30000
REFUSED="send_imm write_imm fetch_add cmp_swap mw rnr two_mr"

# siw_pair NAME PORT GS GC ARGS [PROGRAM]: the server on GS (siw0), the
# client on GC, reaching it at its siw address; both PROGRAM (guest shell
# words: rdma_lessons, or rdma_bench and its measurement) with -R and
# ARGS: iWARP connects only through RDMA_CM, and rdma_rc_example has no
# -R.
siw_pair() {
	local name=$1 port=$2 gs=$3 gc=$4 opts=$5 prog=${6:-$P} addr
	# shellcheck disable=SC2016 # expanded in the guest
	addr='"$RXE_SIW_ADDR"'
	# shellcheck disable=SC2016
	[ "$gs" = "$gc" ] || addr='"$RXE_SIW_PEER_ADDR"'
	rxe_pair "$name" --on "$gs" "$gc" \
		"$prog -R -d siw0 -p $port --accept-timeout 60 $opts" \
		"$prog -R -p $port --connect-timeout 60 $opts $addr"
}

siw_pair flow_one 20010 b b ""
siw_pair flow_two 20012 a b ""
siw_pair ops_one 20014 b b "-o send,read,write"
siw_pair events_two 20016 a b "-e"
siw_pair sge_two 20032 a b "-o send,sge"
# The server for two clients on one SRQ, each connected by RDMA_CM.
# shellcheck disable=SC2016 # expanded in the guest
serve srq_two 20036 2 "-R -d siw0 --clients 2 --srq -o send,hello" \
	"-R -o send,hello" '"$RXE_SIW_PEER_ADDR"'
port=20018
for bench in lat bw; do
	for op in send write read; do
		g=b
		[ "$op" = write ] && g=a
		v=
		[ "$op" = read ] && v=-v
		[ "$bench$op" = bwread ] && v="-v --report-counters"
		siw_pair "${bench}_$op" $port $g $g "--op $op -n 20 $v" "$B $bench"
		port=$((port + 2))
	done
done
# Between the guests, for the wait of two hosts.
siw_pair lat_send_two 20030 a b "--op send -n 20" "$B lat"
# -q over iWARP, between the guests: READ over three QPs, each connected
# through RDMA_CM (the only way iWARP connects a QP).
siw_pair bw_qps_read 20046 a b \
	"--op read -n 20 -q 3 -v --out_json_file '$RXE_RUNS/bw_qps_read.json'" "$B bw"
# rdma_check's pair round over iWARP: siw keeps no port counters, and
# the loss check says it measured nothing rather than pass a count.
# shellcheck disable=SC2016 # expanded in the guest
rxe_pair check_two --on a b \
	"'$RDMA_CHECK' -R -d siw0 --pair -p 20048 --accept-timeout 60" \
	"'$RDMA_CHECK' -R -d siw0 -p 20048 --connect-timeout 60 \"\$RXE_SIW_PEER_ADDR\""
# Each side alone (servers on a, clients on b, at once): the server
# refuses before it listens, the client once its address resolved to
# siw0, before it connects.
for op in $REFUSED; do
	rxe_start "refuse_${op}_server" --on a --bounded \
		"$P -R -d siw0 -p 20028 -o $op --accept-timeout 60"
	rxe_end "refuse_${op}_server" --on a
	# shellcheck disable=SC2016 # expanded in the guest
	rxe_start "refuse_${op}_client" --on b --bounded \
		"$P -R -p 20028 -o $op --connect-timeout 60 \"\$RXE_SIW_ADDR\""
	rxe_end "refuse_${op}_client" --on b
done
# UD over RDMA_CM: iWARP has no UD QP.
rxe_solo ud_server --on a "$P -c ud -R -d siw0 -p 20028 --accept-timeout 60"
# shellcheck disable=SC2016 # expanded in the guest
rxe_solo ud_client --on b "$P -c ud -R -p 20028 --connect-timeout 60 \"\$RXE_SIW_ADDR\""
rxe_solo no_r_server --on a "$P -d siw0 -p 20028"
# shellcheck disable=SC2016 # expanded in the guest
rxe_solo no_r_client --on a "$P -d siw0 -p 20028 \"\$RXE_SIW_ADDR\""
# The manual's program has no -R: it names the one that has.
rxe_solo example_siw --on b "'$RDMA_RC_EXAMPLE' -d siw0 -p 20028"
rxe_solo siw_limits --on b "ibv_devinfo -v -d siw0"
rxe_go siw_rc 240
R=$RXE_RUNS

for side in server client; do
	expect_rc "$R/check_two.$side.rc" 0
	expect_line "$R/check_two.$side.out" "PASS loss        not measured: neither port has counters (soft-iWARP keeps none)"
	expect_regex "$R/check_two.$side.out" "^verdict: PASS: these two hosts can do RDMA with these options"
done

# The manual's flow, as a learner compares it, and what iWARP shows of
# the connection: siw0, GID index 0 (the MAC-based entry).
for run in flow_one flow_two ops_one events_two; do
	rc_expect_clean $run
	expect_line "$R/$run.server.out" "going to send the message: 'SEND operation'"
	expect_line "$R/$run.client.out" "Message is: 'SEND operation'"
	expect_line "$R/$run.client.out" "Contents of server's buffer: 'RDMA read operation'"
	expect_line "$R/$run.client.out" "Now replacing it with: 'RDMA write operation'"
	expect_line "$R/$run.server.out" "Contents of server buffer: 'RDMA write operation'"
	for side in server client; do
		expect_regex "$R/$run.$side.out" '^RDMA_CM connection on device siw0 port 1, GID index 0 \([0-9a-f:]+\)$'
		expect_regex "$R/$run.$side.out" '^Remote address = 0x[0-9a-f]+$'
		expect_regex "$R/$run.$side.out" '^Remote rkey = 0x[0-9a-f]+$'
		expect_regex "$R/$run.$side.out" '^Remote QP number = 0x[0-9a-f]+$'
	done
done
expect_line "$R/flow_one.server.out" "waiting on port 20010 for RDMA_CM connection"
expect_line "$R/flow_one.server.out" "waiting on port 20011 for TCP connection"

# Scatter/gather over iWARP: siw0 allows 6 SGEs a request.
rc_expect_clean sge_two
ops_expect_sge "$R/sge_two"

# Two clients on one shared receive queue, over iWARP; siw raises the
# SRQ's limit event too.
for i in 1 2; do
	expect_rc "$R/srq_two.c$i.rc" 0
	expect_line "$R/srq_two.c$i.out" "Message is: 'SEND operation'"
done
expect_rc "$R/srq_two.server.rc" 0
expect_empty "$R/srq_two.server.err"
serve_expect_hellos srq_two 2
expect_line "$R/srq_two.server.out" "receive memory: 16 receives posted, 1024 bytes registered for them (one shared receive queue for 2 clients; a queue for each would take 16, 1024 bytes)"
expect_line "$R/srq_two.server.out" "async event: SRQ limit reached on the SRQ"
expect_line "$R/srq_two.server.out" "refilled the SRQ: posted 10 receives again, 16 in it"
expect_line "$R/srq_two.server.out" "served 2 of 2 clients to the end"

# Benchmarks: both sides exit 0, the client's table has one row of the
# size it ran with 20 iterations, its figures positive and ordered.
for bench in lat bw; do
	for op in send write read; do
		run=${bench}_$op
		rc_expect_clean "$run"
		expect_regex "$R/$run.client.out" "^benchmark: $op $bench on siw0, 20 iterations per size"
		awk -v bench="$bench" '
			$1 ~ /^[0-9]+$/ && $2 == 20 {
				rows++
				if (bench == "lat" && !($3 > 0 && $3 <= $5 && $5 <= $4))
					bad = 1
				if (bench == "bw" && !($4 > 0 && $4 <= $3 + 0.01))
					bad = 1
			}
			END { print (rows == 1 && !bad) ? "consistent" : "inconsistent" }
		' "$R/$run.client.out" >"$R/$run.verdict"
		expect_line "$R/$run.verdict" consistent
	done
done

# READ at depth over iWARP: the MPA exchange settled each QP's depths
# (IRD and ORD) at what siw0 allows, from both sides' offers.
serve=$(awk '$1 == "max_qp_rd_atom:" { print $2 }' "$R/siw_limits.out")
issue=$(awk '$1 == "max_qp_init_rd_atom:" { print $2 }' "$R/siw_limits.out")
[ "${serve:-0}" -gt 255 ] && serve=255
[ "${issue:-0}" -gt 255 ] && issue=255
expect_rc "$R/siw_limits.rc" 0
for run in lat_read bw_read; do
	for side in server client; do
		expect_regex "$R/$run.$side.out" "^\[verbs\] QP 0x[0-9a-f]+ INIT -> RTS by the iWARP CM, once MPA over TCP connected: max rd atomic ${issue:-none}, max dest rd atomic ${serve:-none}\$"
	done
done

# The three QPs of -q: each side's MPA exchanges settled all three at
# that depth, and the client's QPs each did their 20 READs, adding up to
# the row (tests/rxe/bench_extras.py).
rc_expect_clean bw_qps_read
for side in server client; do
	expect_regex "$R/bw_qps_read.$side.out" '^QPs: 3, each with the iterations and the tx depth above:( 0x[0-9a-f]{6}){3}$'
	grep -c "^\[verbs\] QP 0x[0-9a-f]* INIT -> RTS by the iWARP CM, once MPA over TCP connected: max rd atomic ${issue:-none}, max dest rd atomic ${serve:-none}\$" \
		"$R/bw_qps_read.$side.out" >"$R/bw_qps_read.$side.deep"
	expect_line "$R/bw_qps_read.$side.deep" 3
done
bench_extras bw_qps_read qps "$R/bw_qps_read.client.out" \
	"$R/bw_qps_read.json" 3 count

# siw keeps no port counters: --report-counters says so, and runs.
for side in server client; do
	expect_line "$R/bw_read.$side.out" "port counters: none (no counters or hw_counters in /sys/class/infiniband/siw0/ports/1)"
done

# iWARP exchanges no GID: with -R the CM id's addresses tell where the
# peer is, and each side's waits: line says so. One guest: the client
# connects to its own address; two: the addresses differ.
for side in server client; do
	expect_line "$R/lat_send.$side.out" "waits: poll for 100 us, then sleep on the completion channel (the peer's address is this side's own: both sides on this host)"
	expect_line "$R/lat_send_two.$side.out" "waits: poll for 4000 us, then nap 20 us at a time (latency, the peer's address is not this side's: another host)"
done
rc_expect_clean lat_send_two
# A one-way SEND's receiver on one host polls only on iWARP (a sleep's
# wake-ups cost siw's kernel threads the CPU); its sender keeps the sleep.
expect_line "$R/bw_send.server.out" "waits: polling only (the receiver of a bandwidth run on iWARP, both sides on this host: a sleep's wake-ups take the CPU from soft-iWARP's kernel threads)"
expect_line "$R/bw_send.client.out" "waits: poll for 100 us, then sleep on the completion channel (the peer's address is this side's own: both sides on this host)"

# Each refused lesson: one line naming it and siw0, status 1, in bounded
# time, on both sides.
for op in $REFUSED; do
	for side in server client; do
		run=refuse_${op}_$side
		expect_rc "$R/$run.rc" 1
		expect_regex "$R/$run.err" "^rdma_lessons: failed to run operation $op on device siw0: "
		ms=$(cat "$R/$run.ms" 2>/dev/null || echo none)
		if [ "$ms" != none ] && [ "$ms" -le $REFUSE_MS ]; then
			echo "$run ended in $ms ms" >"$R/$run.bound"
		else
			echo "$run ended in $ms ms, over $REFUSE_MS" >"$R/$run.bound"
		fi
		expect_regex "$R/$run.bound" "^$run ended in [0-9]+ ms$"
	done
done
expect_no_text "$R/refuse_rnr_client.err" "Connection"

# -c ud -R: the UD line, on both sides, before anything connects.
for run in ud_server ud_client; do
	expect_rc "$R/$run.rc" 1
	expect_line "$R/$run.err" "rdma_lessons: failed to create a UD QP on device siw0: transport_type IBV_TRANSPORT_IWARP, which connects RC QPs only (Operation not supported)"
	expect_status "$(wc -l <"$R/$run.err")" 1 "$run: stderr lines"
	expect_no_text "$R/$run.out" "TCP connection was established"
done

# -d siw0 without -R: the iWARP line, on both sides, before any socket.
for run in no_r_server no_r_client; do
	expect_rc "$R/$run.rc" 1
	expect_line "$R/$run.err" "rdma_lessons: failed to use device siw0 without -R: transport_type IBV_TRANSPORT_IWARP, and iWARP connects QPs only through RDMA_CM: add -R"
	expect_no_text "$R/$run.out" "TCP connection was established"
done
expect_rc "$R/example_siw.rc" 1
expect_line "$R/example_siw.err" "rdma_rc_example: failed to use device siw0 without -R: transport_type IBV_TRANSPORT_IWARP, and iWARP connects QPs only through RDMA_CM: run rdma_lessons -R"
expect_status "$(wc -l <"$R/example_siw.err")" 1 "example_siw: stderr lines"
expect_no_text "$R/example_siw.out" "TCP connection was established"
finish
