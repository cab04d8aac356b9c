#!/usr/bin/env bash
# rdma_bench's reports beside the table, between the two guests (server on
# a, client on b): -H, the latency distribution, whose buckets hold every
# sample; --cpu-util, each side's share of a CPU; --report-counters, what
# the port's counters moved, by at least the messages sent. Then a lossy
# path (tc netem drops 3% of guest b's frames): the client's counters say
# it sent packets again, the server's that requests came out of sequence.
# Between them, -D: WRITE and SEND bandwidth for 5 s each, measured over
# the second between the warm-up and the drain; and -b, WRITE and SEND
# both ways at once, each side's counters sending and receiving the
# messages.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rc_common.sh"
. "$(dirname "$0")/bench_lib.sh"

cache=${RXE_VM_CACHE:-${XDG_CACHE_HOME:-${HOME:-/var/tmp}/.cache}/rdma-rc-example/rxe-vm}
kroot=$(sed -n 's|^KERNEL=\(.*\)/boot/.*|\1|p' "$cache/current")
mp="modprobe -d '$kroot'"

# pair NAME PORT ARGS: server on guest a, client on guest b, the client's
# JSON in $RXE_RUNS/NAME.json.
pair() {
	bench_pair "$1" "$2" "$3 -g 1 --accept-timeout 60" \
		"$3 -g 1 --connect-timeout 60 --json '$RXE_RUNS/$1.json'" --on a b
}
pair lat_hist 19940 "lat --op send -s 64 -n 200 -H --cpu-util"
pair bw_counters 19942 "bw --op write -s 4096 -n 2000 --cpu-util --report-counters"
pair bw_timed_write 19946 "bw --op write -s 4096 -D 5 --cpu-util"
pair bw_timed_send 19948 "bw --op send -s 4096 -D 5"
pair bw_bidir_write 19952 "bw --op write -s 4096 -n 1000 -b --report-counters"
pair bw_bidir_send 19954 "bw --op send -s 4096 -n 1000 -b"
# The loss is undone whatever happens to the run (the rig's timeout too).
rxe_step --on b "trap 'tc qdisc del dev eth0 root 2>/dev/null' EXIT
trap 'exit 143' TERM
$mp sch_netem && tc qdisc add dev eth0 root netem loss 3%"
pair bw_lossy 19944 "bw --op write -s 4096 -n 500 --report-counters"
rxe_step --on b "tc qdisc del dev eth0 root"
rxe_go bench_report 200
R=$RXE_RUNS
X="$(dirname "$0")/bench_extras.py"

# extras NAME CHECK ARGS: bench_extras.py's lines, counted as checks here.
extras() {
	local name=$1 out
	shift
	if out=$(python3 "$X" "$@"); then
		_rxe_pass "$name: $(grep -c '^ok:' <<<"$out") checks of $1"
	else
		RXE_FAILED=$((RXE_FAILED + 1))
		echo "FAIL: $name: bench_extras.py $*:"
		printf '%s\n' "$out" | sed 's/^/  | /'
	fi
}

for run in lat_hist bw_counters bw_lossy bw_timed_write bw_timed_send \
	bw_bidir_write bw_bidir_send; do
	rc_expect_clean "$run"
done
extras lat_hist hist "$R/lat_hist.client.out" "$R/lat_hist.json" 200
extras lat_hist cpu "$R/lat_hist.client.out" "$R/lat_hist.json"
extras bw_counters cpu "$R/bw_counters.client.out" "$R/bw_counters.json"
# Each side reads its own port: the client sent every message (4 KiB is
# four packets at MTU 1024), the server received them.
extras bw_counters counters "$R/bw_counters.client.out" sent_pkts 2000
extras bw_counters counters "$R/bw_counters.server.out" rcvd_pkts 2000
expect_regex "$R/bw_counters.client.out" '^port counters of this side \(/sys/class/infiniband/rxe0/ports/1\), moved over the run:$'
expect_text "$R/bw_counters.json" '"counters": {"port_dir": "/sys/class/infiniband/rxe0/ports/1", "moved": {'
for run in bw_timed_write bw_timed_send; do
	extras "$run" timed "$R/$run.client.out" "$R/$run.json" 5
done
for run in bw_bidir_write bw_bidir_send; do
	extras "$run" bidir "$R/$run.client.out" "$R/$run.json"
done
for side in client server; do
	extras bw_bidir_write counters "$R/bw_bidir_write.$side.out" sent_pkts 1000
	extras bw_bidir_write counters "$R/bw_bidir_write.$side.out" rcvd_pkts 1000
done
# The lossy path: the client went back and sent again, and says so.
expect_regex "$R/bw_lossy.client.out" '^  completer_retry_err +\+[1-9][0-9]*  times this side went back and sent again'
expect_regex "$R/bw_lossy.client.out" '^resent: this side sent packets again [1-9][0-9]* time\(s\): packets were lost on the way$'
extras bw_lossy counters "$R/bw_lossy.server.out" out_of_seq_request 1
expect_regex "$R/bw_lossy.json" '"resent": [1-9][0-9]*\}'
finish
