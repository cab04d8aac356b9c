#!/usr/bin/env bash
# rdma_bench's reports beside the table, between the two guests (server on
# a, client on b): -H, the latency distribution, whose buckets hold every
# sample; --cpu_util, each side's share of a CPU; --report-counters, what
# the port's counters moved, by at least the messages sent. Then a lossy
# path (tc netem drops 3% of guest b's frames): the client's counters say
# it sent packets again, the server's that requests came out of sequence.
# Between them, -D: WRITE and SEND bandwidth for 5 s each, measured over
# the second between the warm-up and the drain; -b, WRITE and SEND
# both ways at once, each side's counters sending and receiving the
# messages; and -q, SEND over 4 QPs (the server's counters receiving
# every message), READ over 3, WRITE over 2 for -D 5, and SEND over 2
# both ways, each QP's figures adding up to the row's; and
# --run_infinitely -D 5, SEND and WRITE over 2 QPs, the client stopped by
# SIGINT after its second report: each side ends at once with status 0,
# the client with the whole run's row; and latency -D 5 for SEND, WRITE
# and READ, the average of the second measured.  The timed runs go three
# at a time (the bandwidth ones, then the latency ones).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rc_common.sh"
. "$(dirname "$0")/bench_lib.sh"

cache=${RXE_VM_CACHE:-${XDG_CACHE_HOME:-${HOME:-/var/tmp}/.cache}/rdma-rc-example/rxe-vm}
kroot=$(sed -n 's|^KERNEL=\(.*\)/boot/.*|\1|p' "$cache/current")
mp="modprobe -d '$kroot'"

# pair NAME PORT ARGS [rxe_pair options]: server on guest a, client on
# guest b, the client's JSON in $RXE_RUNS/NAME.json.
pair() {
	bench_pair "$1" "$2" "$3 -x 1 --accept-timeout 60" \
		"$3 -x 1 --connect-timeout 60 --out_json_file '$RXE_RUNS/$1.json'" --on a b \
		"${@:4}"
}
# at_once NAME:PORT:ARGS...: those pairs all started, then all waited
# for: the timed runs last their -D whatever the load, and three at once
# take the time of one.
at_once() {
	local run name port args
	for run in "$@"; do
		IFS=: read -r name port args <<<"$run"
		pair "$name" "$port" "$args" --started
	done
	for run in "$@"; do
		name=${run%%:*}
		rxe_end "$name.client" --on b
		rxe_end "$name.server" --on a
	done
}
pair lat_hist 19940 "lat --op send -s 64 -n 200 -H --cpu_util"
pair bw_counters 19942 "bw --op write -s 4096 -n 2000 --cpu_util --report-counters"
at_once "bw_timed_write:19946:bw --op write -s 4096 -D 5 --cpu_util" \
	"bw_timed_send:19948:bw --op send -s 4096 -D 5" \
	"bw_qps_timed:19958:bw --op write -s 4096 -D 5 -q 2"
pair bw_bidir_write 19952 "bw --op write -s 4096 -n 1000 -b --report-counters"
pair bw_bidir_send 19954 "bw --op send -s 4096 -n 1000 -b"
pair bw_qps_send 19956 "bw --op send -s 4096 -n 500 -q 4 --report-counters"
pair bw_qps_read 19957 "bw --op read -s 4096 -n 300 -q 3"
pair bw_qps_bidir 19959 "bw --op send -s 4096 -n 500 -q 2 -b"
# --signal: SIGINT 1 s after the client's row of 4096 bytes (the first,
# at 5 s), then the second, at 10 s.
infinite() {
	bench_pair "$1" "$2" "$3 -x 1 --accept-timeout 60" \
		"$3 -x 1 --connect-timeout 60 --out_json_file '$RXE_RUNS/$1.json'" \
		--on a b --signal client INT client " 4096 " --delay 6
}
at_once "lat_timed_send:19947:lat --op send -s 64 -D 5" \
	"lat_timed_write:19949:lat --op write -s 64 -D 5" \
	"lat_timed_read:19953:lat --op read -s 64 -D 5"
infinite bw_forever_send 19950 "bw --op send -s 4096 --run_infinitely -D 5"
infinite bw_forever_write 19955 "bw --op write -s 4096 --run_infinitely -D 5 -q 2"
# The loss is undone whatever happens to the run (the rig's timeout too).
rxe_step --on b "trap 'tc qdisc del dev eth0 root 2>/dev/null' EXIT
trap 'exit 143' TERM
$mp sch_netem && tc qdisc add dev eth0 root netem loss 3%"
pair bw_lossy 19944 "bw --op write -s 4096 -n 500 --report-counters"
rxe_step --on b "tc qdisc del dev eth0 root"
rxe_go bench_report 420
R=$RXE_RUNS

for run in lat_hist bw_counters bw_lossy bw_timed_write bw_timed_send \
	bw_bidir_write bw_bidir_send bw_qps_send bw_qps_read bw_qps_timed \
	bw_qps_bidir bw_forever_send bw_forever_write lat_timed_send \
	lat_timed_write lat_timed_read; do
	rc_expect_clean "$run"
done
for run in bw_forever_send bw_forever_write; do
	bench_extras "$run" infinite "$R/$run.client.out" "$R/$run.json" 5
	# The client ends its sends and the size at once: no wait for --timeout.
	expect_stopped_within "$run.client" 8000
done
bench_extras lat_timed_send lattimed "$R/lat_timed_send.client.out" "$R/lat_timed_send.json" 5 2
bench_extras lat_timed_write lattimed "$R/lat_timed_write.client.out" "$R/lat_timed_write.json" 5 2
bench_extras lat_timed_read lattimed "$R/lat_timed_read.client.out" "$R/lat_timed_read.json" 5 1
bench_extras bw_forever_write qps "$R/bw_forever_write.client.out" "$R/bw_forever_write.json" 2 timed
bench_extras lat_hist hist "$R/lat_hist.client.out" "$R/lat_hist.json" 200
bench_extras lat_hist cpu "$R/lat_hist.client.out" "$R/lat_hist.json"
bench_extras bw_counters cpu "$R/bw_counters.client.out" "$R/bw_counters.json"
# Each side reads its own port: the client sent every message (4 KiB is
# four packets at MTU 1024), the server received them.
bench_extras bw_counters counters "$R/bw_counters.client.out" sent_pkts 2000
bench_extras bw_counters counters "$R/bw_counters.server.out" rcvd_pkts 2000
expect_regex "$R/bw_counters.client.out" '^port counters of this side \(/sys/class/infiniband/rxe0/ports/1\), moved over the run:$'
expect_text "$R/bw_counters.json" '"counters": {"port_dir": "/sys/class/infiniband/rxe0/ports/1", "moved": {'
for run in bw_timed_write bw_timed_send; do
	bench_extras "$run" timed "$R/$run.client.out" "$R/$run.json" 5
done
for run in bw_bidir_write bw_bidir_send; do
	bench_extras "$run" bidir "$R/$run.client.out" "$R/$run.json"
done
for side in client server; do
	bench_extras bw_bidir_write counters "$R/bw_bidir_write.$side.out" sent_pkts 1000
	bench_extras bw_bidir_write counters "$R/bw_bidir_write.$side.out" rcvd_pkts 1000
done
bench_extras bw_qps_send qps "$R/bw_qps_send.client.out" "$R/bw_qps_send.json" 4 count
bench_extras bw_qps_send counters "$R/bw_qps_send.server.out" rcvd_pkts 2000
bench_extras bw_qps_read qps "$R/bw_qps_read.client.out" "$R/bw_qps_read.json" 3 count
bench_extras bw_qps_timed qps "$R/bw_qps_timed.client.out" "$R/bw_qps_timed.json" 2 timed
bench_extras bw_qps_timed timed "$R/bw_qps_timed.client.out" "$R/bw_qps_timed.json" 5
bench_extras bw_qps_bidir qps "$R/bw_qps_bidir.client.out" "$R/bw_qps_bidir.json" 2 count
bench_extras bw_qps_bidir bidir "$R/bw_qps_bidir.client.out" "$R/bw_qps_bidir.json"
# The server created its own QPs: its banner names as many.
expect_regex "$R/bw_qps_send.server.out" '^QPs: 4, each with the iterations and the tx depth above:( 0x[0-9a-f]{6}){4}$'
# The lossy path: the client went back and sent again, and says so.
expect_regex "$R/bw_lossy.client.out" '^  completer_retry_err +\+[1-9][0-9]*  times this side went back and sent again'
expect_regex "$R/bw_lossy.client.out" '^resent: this side sent packets again [1-9][0-9]* time\(s\) \(after an ack timeout or a sequence NAK\)$'
bench_extras bw_lossy counters "$R/bw_lossy.server.out" out_of_seq_request 1
# The server saw the gaps the lost packets left.
expect_regex "$R/bw_lossy.server.out" '^out of sequence: [1-9][0-9]* packet\(s\) came after a gap: one before them was lost on the way here$'
expect_line "$R/bw_lossy.client.out" "out of sequence: none"
expect_regex "$R/bw_lossy.json" '"resent": [1-9][0-9]*\}'
finish
