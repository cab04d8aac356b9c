#!/usr/bin/env bash
# rdma_bench with perftest's options between the two guests (server on a,
# client on b), each option's effect checked where the rig shows it:
#   path: WRITE with -x 1 -t 32 -Q 8 -I 64 -m 512 -S 2 --tclass 96 -u 17
#         -l 4 --report_gbits --report-counters -v: the path MTU and the IP DS field in the
#         captured packets of its QPs, the SL, traffic class, ack timeout,
#         send queue and post list in the -v trace, the tx depth, cq mod
#         and Gb/s in the report;
#   send: SEND both ways over 2 QPs with -r 512 -t 64 --report-both
#         --output=bandwidth --out_json: the client's stdout is one number,
#         the JSON in the working folder, rdma_bench_out.json;
#   timed: WRITE for -D 8 over 2 QPs with --output=message_rate: one number;
#   tos: WRITE over RDMA_CM (-R) with -T 104 (the type of service):
#         the DS field of its packets;
#   reversed: SEND with --reversed: the messages go from the server to
#         the client, only acknowledgements the other way, and the client
#         reports the row;
#   source: the client with --source_ip of a second address of guest b:
#         its TCP connection leaves from there (the SYN in the capture);
#         with -R, RDMA_CM binds to it too: the RoCE packets leave from
#         it; an address that is not b's is refused at once, in one line.
# A default run beside them keeps the DS field 0 and the port's MTU. And
# rdma_rc_example, whose --tclass and --sl are the same settings: the
# manual's flow with --tclass 96 --sl 2 over the TCP exchange, and
# rdma_lessons's with -R --tclass 104 (RDMA_CM's type of service): the DS
# field of its packets.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rc_common.sh"
. "$(dirname "$0")/bench_lib.sh"

# A second address on guest b for --source_ip, gone again at the end
# (after its runs, whatever they did).
SOURCE=192.0.2.12
rxe_step --on b "ip addr add $SOURCE/24 dev eth0"
# pair NAME PORT ARGS: server on guest a, client on guest b.
pair() {
	bench_pair "$1" "$2" "$3 --accept-timeout 60" \
		"$3 --connect-timeout 60" --on a b --started
}
# -u 17 (0.54 s an ack): 7 tries outlast a busy host's stalls, which
# -u 15's 0.13 s did not.
PATH_ARGS="bw --op write -x 1 -t 32 -Q 8 -I 64 -m 512 -S 2 --tclass 96 -u 17 -l 4 --report_gbits --report-counters -s 4096 -n 150 -v"
pair path 19930 "$PATH_ARGS"
pair send 19932 "bw --op send -x 1 -r 512 -t 64 -s 1024 -n 2000 -q 2 -b --report-both --output=bandwidth --out_json"
# -D 8: 4 s between the warm-up's 2 s and the drain's 2 s, so that a
# stall of the first seconds (a sanitized build on a busy host, resends)
# still leaves seconds to measure.
pair timed 19934 "bw --op write -x 1 -s 4096 -D 8 -q 2 --output=message_rate"
pair tos 19936 "bw --op write -R -T 104 -s 4096 -n 300 -v"
pair plain 19938 "bw --op write -x 1 -s 4096 -n 300 -v"
pair reversed 19928 "bw --op send --reversed -x 1 -s 4096 -n 300 -v"
bench_pair source 19926 "bw --op write -x 1 -s 4096 -n 100 --accept-timeout 60" \
	"bw --op write -x 1 -s 4096 -n 100 --connect-timeout 60 --source_ip $SOURCE" \
	--on a b --started
bench_pair sourcecm 19920 "bw --op write -R -s 4096 -n 100 --accept-timeout 60" \
	"bw --op write -R -s 4096 -n 100 --connect-timeout 60 --source_ip $SOURCE" \
	--on a b --started
rc_pair rc_tclass 19918 "--tclass 96 --sl 2 -v --accept-timeout 60" \
	"--tclass 96 --sl 2 -v --connect-timeout 60" --on a b --started
lessons_pair rc_tos 19916 "-R --tclass 104 -v --accept-timeout 60" \
	"-R --tclass 104 -v --connect-timeout 60" --on a b --started
rxe_start source_bad --on b "'$RDMA_BENCH' bw -x 1 -p 19924 --connect-timeout 90 --source_ip 192.0.2.99 192.0.2.1"
# Its end at once: its time is the refusal's, not the pairs' beside it.
rxe_end source_bad --on b
for name in path send timed tos plain reversed source sourcecm rc_tclass \
	rc_tos; do
	rxe_end "$name.client" --on b
	rxe_end "$name.server" --on a
done
rxe_step --on b "ip addr del $SOURCE/24 dev eth0"
rxe_go bench_perftest 150 --capture "$RXE_RUNS/perftest.pcap"

R=$RXE_RUNS
# soft-RoCE on the guests' kernel can refuse a WRITE of path's own stream
# as an invalid request after it went back and sent packets again (seen
# once in a few dozen runs, under load, never alone; its counters are in
# path.client.out). That is the driver's fault, not a setting's: path
# runs once more, alone, and its checks read that run. A second refusal
# fails them.
if grep -q 'remote invalid request error' "$R/path.client.err" 2>/dev/null; then
	echo "bench_perftest: soft-RoCE refused one of path's WRITEs (its counters below); path once more, alone"
	grep -E '^  [a-z_]+ +\+' "$R/path.client.out" | sed 's/^/  | /'
	for f in "$R"/path.*; do mv "$f" "$R/path-refused.${f#"$R"/path.}"; done
	pair path 19940 "$PATH_ARGS"
	rxe_end path.client --on b
	rxe_end path.server --on a
	rxe_go bench_perftest_path 90 --capture "$RXE_RUNS/perftest-path.pcap"
fi
for name in path tos plain reversed source sourcecm rc_tclass rc_tos; do
	rc_expect_clean "$name"
done
for f in "$R/rc_tclass.client.out" "$R/rc_tclass.server.out"; do
	expect_regex "$f" '^\[verbs\] QP 0x[0-9a-f]{6} INIT -> RTR: .*, SL 2, traffic class 96$'
done
expect_line "$R/rc_tos.client.out" "[verbs] RDMA_CM id's type of service 104"
# one_number NAME REGEX: with --output both sides ended well, said nothing
# on stderr, and the client's stdout is one line, a number matching REGEX
# (the server reports nothing).
one_number() {
	local side
	for side in server client; do
		expect_rc "$R/$1.$side.rc" 0
		expect_empty "$R/$1.$side.err"
	done
	expect_empty "$R/$1.server.out"
	if [ "$(wc -l <"$R/$1.client.out")" -eq 1 ] &&
		grep -qxE -- "$2" "$R/$1.client.out"; then
		_rxe_pass "$1: the client printed one number, $(cat "$R/$1.client.out")"
	else
		_rxe_fail "$(_rxe_where)" "$1: expected one line matching /$2/" "$R/$1.client.out"
	fi
}

# --- path: what the trace and the report say ---
c=$R/path.client.out s=$R/path.server.out
for f in "$c" "$s"; do
	expect_line "$f" "Path MTU = 512 bytes"
	expect_regex "$f" '^\[verbs\] QP 0x[0-9a-f]{6} INIT -> RTR: .*MTU 512, .*, SL 2, traffic class 96$'
	expect_regex "$f" '^\[verbs\] QP 0x[0-9a-f]{6} RTR -> RTS: sq PSN 0x[0-9a-f]{6}, ack timeout 17,'
	expect_regex "$f" '^\[verbs\] created RC QP 0x[0-9a-f]{6} \(send WRs 32,'
done
expect_line "$c" "[verbs] 4096-byte messages: up to 4 sends to one ibv_post_send"
expect_regex "$c" '^benchmark: write bw on rxe0, 150 iterations per size, tx depth 32, cq mod 8, max inline (6[4-9]|[7-9][0-9]|[1-9][0-9]{2,})$'
expect_regex "$c" 'BW average\[Gb/sec\]'
# --- the default beside it: the port's MTU, one chain of up to 64 ---
expect_line "$R/plain.client.out" "Path MTU = 1024 bytes"
expect_line "$R/plain.client.out" "[verbs] 4096-byte messages: up to 64 sends to one ibv_post_send"

# --- send, timed: one number on stdout, and the JSON file ---
one_number send '[0-9]+\.[0-9]{2}'
one_number timed '[0-9]+\.[0-9]{6}'
if python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(0 if d["results"] else 1)' \
	"$R/rdma_bench_out.json" 2>"$R/json.err"; then
	_rxe_pass "--out_json wrote rdma_bench_out.json in the working folder, with results"
else
	_rxe_fail "$(_rxe_where)" "--out_json: no rdma_bench_out.json with results" "$R/json.err"
fi

# --- the wire: each run's packets by the QPs its sides printed ---
# qps FILE: the QP numbers FILE's -v trace created, as tshark prints them.
qps() {
	sed -n 's/^\[verbs\] created RC QP \(0x[0-9a-f]*\) .*/\1/p' "$1" |
		while read -r q; do printf '%d\n' "$q"; done
}
: >"$R/perftest.rows"
for pcap in "$R/perftest.pcap" "$R/perftest-path.pcap"; do
	[ -e "$pcap" ] || continue
	tshark -r "$pcap" -Y 'udp.dstport == 4791' -T fields -E separator=, \
		-e ip.dst -e infiniband.bth.destqp -e ip.dsfield -e frame.len \
		>>"$R/perftest.rows" 2>>"$R/tshark.err"
	expect_status "$?" 0 "tshark on ${pcap##*/}"
done
# packets NAME: the rows of packets to run NAME's QPs, each on its guest
# (a QP number is a guest's own: the other guest may have one alike).
packets() {
	local qp
	for qp in $(qps "$R/$1.server.out"); do
		awk -F, -v qp="$qp" '$1 == "192.0.2.1" && $2 + 0 == qp' "$R/perftest.rows"
	done
	for qp in $(qps "$R/$1.client.out"); do
		awk -F, -v qp="$qp" '$1 == "192.0.2.2" && $2 + 0 == qp' "$R/perftest.rows"
	done
}
# expect_wire NAME DSFIELD MAXLEN MINLEN: every packet of run NAME carries
# DSFIELD, none is longer than MAXLEN, and one is at least MINLEN long.
expect_wire() {
	local name=$1 ds=$2 max=$3 min=$4 rows n bad longest
	rows=$(packets "$name")
	n=$(grep -c . <<<"$rows")
	bad=$(awk -F, -v ds="$ds" '$3 != ds' <<<"$rows" | head -n 3)
	longest=$(cut -d, -f4 <<<"$rows" | sort -n | tail -n 1)
	if [ "$n" -gt 300 ] && [ -z "$bad" ] && [ "${longest:-0}" -le "$max" ] &&
		[ "${longest:-0}" -ge "$min" ]; then
		_rxe_pass "$name: $n packets, DS field $ds, the longest $longest bytes"
	else
		_rxe_fail "$(_rxe_where)" "$name: expected over 300 packets, all with DS field $ds, the longest $min..$max bytes; found $n, longest ${longest:-none}, first others: $bad" "$R/perftest.rows"
	fi
}
# expect_ds NAME DSFIELD: the manual's flow of run NAME (a SEND, a READ, a
# WRITE and their answers, both ways) carries DSFIELD in every packet.
expect_ds() {
	local rows n bad
	rows=$(packets "$1")
	n=$(grep -c . <<<"$rows")
	bad=$(awk -F, -v ds="$2" '$3 != ds' <<<"$rows" | head -n 3)
	if [ "$n" -ge 6 ] && [ -z "$bad" ]; then
		_rxe_pass "$1: $n packets, DS field $2"
	else
		_rxe_fail "$(_rxe_where)" "$1: expected 6 or more packets, all with DS field $2; found $n, first others: $bad" "$R/perftest.rows"
	fi
}
expect_ds rc_tclass 0x60
expect_ds rc_tos 0x68
# A RoCE v2 frame of a full 512-byte payload: Ethernet 14, IPv4 20, UDP 8,
# BTH 12, payload 512, ICRC 4 (570), 586 with a WRITE's RETH.
expect_wire path 0x60 586 570
expect_wire plain 0x00 1098 1082
# -T 104 is the DS field itself (the CM takes the whole byte).
expect_wire tos 0x68 1098 1082
# --source_ip: the client's connection came from the second address; a
# foreign address ends the client at once, naming it.
syn=$(tshark -r "$R/perftest.pcap" -Y "tcp.flags.syn == 1 && tcp.flags.ack == 0 && tcp.dstport == 19926" \
	-T fields -e ip.src 2>>"$R/tshark.err" | sort -u)
expect_status "$([ "$syn" = "$SOURCE" ] && echo 0 || echo 1)" 0 \
	"source: the TCP connection's SYN came from $SOURCE (from: ${syn:-none})"
# -R: the syncs' TCP connection (-p + 1) and the RoCE packets of the
# client's QP leave from it too.
syn=$(tshark -r "$R/perftest.pcap" -Y "tcp.flags.syn == 1 && tcp.flags.ack == 0 && tcp.dstport == 19921" \
	-T fields -e ip.src 2>>"$R/tshark.err" | sort -u)
expect_status "$([ "$syn" = "$SOURCE" ] && echo 0 || echo 1)" 0 \
	"sourcecm: the syncs' SYN came from $SOURCE (from: ${syn:-none})"
qp=$(sed -n 's/^Remote QP number = //p' "$R/sourcecm.client.out")
from=$(awk -F, -v qp="$(printf '%d' "$qp")" '$1 == "192.0.2.1" && $2 + 0 == qp' "$R/perftest.rows" | grep -c .)
sources=$(tshark -r "$R/perftest.pcap" -Y "udp.dstport == 4791 && ip.dst == 192.0.2.1 && infiniband.bth.destqp == $qp" \
	-T fields -e ip.src 2>>"$R/tshark.err" | sort -u)
expect_status "$([ "$from" -ge 100 ] && [ "$sources" = "$SOURCE" ] && echo 0 || echo 1)" 0 \
	"sourcecm: $from RoCE packets to the server's QP $qp, from ${sources:-none}"
expect_rc "$R/source_bad.rc" 1
expect_line "$R/source_bad.err" "rdma_bench: failed to bind the connection to --source_ip 192.0.2.99: Cannot assign requested address"
took=$(cat "$R/source_bad.ms" 2>/dev/null || echo 999999)
expect_status "$([ "$took" -le 45000 ] && echo 0 || echo 1)" 0 \
	"source_bad: refused in $took ms, not after --connect-timeout's 90 s"
# --reversed: the server's messages to the client's QP, only short
# packets (acknowledgements) to the server's; the client's row.
expect_line "$R/reversed.client.out" "reversed: the server sends and measures, the client receives and reports"
expect_regex "$R/reversed.client.out" '^ 4096 +300 +[0-9.]+ +[0-9.]+ +[0-9.]+$'
expect_no_text "$R/reversed.server.out" "#bytes"
to_client=$(for qp in $(qps "$R/reversed.client.out"); do
	awk -F, -v qp="$qp" '$1 == "192.0.2.2" && $2 + 0 == qp && $4 >= 1082' "$R/perftest.rows"
done | grep -c .)
to_server=$(for qp in $(qps "$R/reversed.server.out"); do
	awk -F, -v qp="$qp" '$1 == "192.0.2.1" && $2 + 0 == qp && $4 > 100' "$R/perftest.rows"
done | grep -c .)
if [ "$to_client" -ge 1200 ] && [ "$to_server" -eq 0 ]; then
	_rxe_pass "reversed: $to_client full frames to the client, none to the server"
else
	_rxe_fail "$(_rxe_where)" "reversed: expected at least 1200 full frames to the client and none to the server, found $to_client and $to_server" "$R/perftest.rows"
fi
finish
