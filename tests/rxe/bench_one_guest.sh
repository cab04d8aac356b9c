#!/usr/bin/env bash
# rdma_bench on one guest (server and client share rxe0): a latency run
# over every size to 4 KiB (-a -s 4096), a bandwidth run and an atomic
# latency run, each checked for consistent figures and a JSON file a real
# parser accepts; then a server and a client that disagree on the
# benchmark, both refusing; then runs on today's post and poll calls
# (--new-api), against peers on either API.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rc_common.sh"
. "$(dirname "$0")/bench_lib.sh"

port=19890

# pair NAME SERVER_ARGS CLIENT_ARGS: one rdma_bench server and client pair
# (each ARGS starts with lat or bw); the client writes its JSON to
# $RXE_RUNS/NAME.json.
pair() {
	bench_pair "$1" $port "$2 -x 1" \
		"$3 -x 1 --connect-timeout 20 --out_json_file '$RXE_RUNS/$1.json'"
	port=$((port + 1))
}

# Latency of SEND over every size to 4 KiB (-a -s), few iterations.
pair lat_send "lat --op send -a -s 4096 -n 5" "lat --op send -a -s 4096 -n 5"
# Bandwidth of RDMA WRITE, with a send queue and moderation of our choosing.
pair bw_write "bw --op write -s 4096 -n 50 --tx-depth 16 --cq-mod 4" \
	"bw --op write -s 4096 -n 50 --tx-depth 16 --cq-mod 4"
# Latency of the fetch-and-add atomic: always 8 bytes.
pair lat_fetch_add "lat --op fetch_add -n 10" "lat --op fetch_add -n 10"
# The two other ways to wait: polling only, and sleeping at once.
pair bw_send_busy "bw --op send -s 64 -n 200 --busy-poll" \
	"bw --op send -s 64 -n 200 --busy-poll"
# With --cq-mod 4 READ latency still signals every READ: the banner and
# the JSON say so.
pair lat_read_events "lat --op read -s 64 -n 20 -e --cq-mod 4" \
	"lat --op read -s 64 -n 20 -e --cq-mod 4"
# Sides that disagree refuse, each naming the difference, and exit 1.
pair mismatch "lat --op send -n 10" "lat --op write -n 10"
# --new-api: lists of 8 SENDs between ibv_wr_start and ibv_wr_complete,
# received on an extended QP and CQ on the other side.
pair new_api_send "bw --op send -s 64 -n 400 -l 8 --new-api" \
	"bw --op send -s 64 -n 400 -l 8 --new-api -v"
# Unsignalled 8-byte READs over two QPs, against a server on the old
# calls: the run that a batch of ibv_next_poll broke on soft-RoCE.
pair new_api_read "bw --op read -s 8 -n 1000 -q 2" \
	"bw --op read -s 8 -n 1000 -q 2 --new-api"
# Latency: a ping-pong whose server posts with ibv_wr_*, and a fetch_add.
pair new_api_lat_send "lat --op send -n 20 --new-api" "lat --op send -n 20"
pair new_api_lat_fetch_add "lat --op fetch_add -n 20" \
	"lat --op fetch_add -n 20 --new-api"

# One exec for all ten pairs: starting programs is what costs under TCG.
rxe_go bench_one_guest 200
R=$RXE_RUNS

expect_rc "$R/lat_send.server.rc" 0
expect_rc "$R/lat_send.client.rc" 0
expect_text "$R/lat_send.client.out" " #bytes #iterations t_min[usec] t_max[usec] t_typical[usec] t_avg[usec] t_stdev[usec] 99% percentile[usec] 99.9% percentile[usec]"
# The peer's GID is rxe0's own (the guest's one CPU runs both sides):
# latency waits sleep too, on both sides, and the JSON says why.
expect_line "$R/lat_send.client.out" "waits: poll for 100 us, then sleep on the completion channel (the peer's GID is one of this device's: both sides on this host)"
expect_line "$R/lat_send.server.out" "waits: poll for 100 us, then sleep on the completion channel (the peer's GID is one of this device's: both sides on this host)"
expect_text "$R/lat_send.json" '"wait": {"name": "poll-then-sleep", "spin_us": 100, "nap_us": null, "peer_on_this_host": true,'

check_figures lat_send lat send 5 2,4,8,16,32,64,128,256,512,1024,2048,4096

expect_rc "$R/bw_write.server.rc" 0
expect_rc "$R/bw_write.client.rc" 0
expect_text "$R/bw_write.client.out" " #bytes #iterations BW peak[MiB/sec] BW average[MiB/sec] MsgRate[Mpps]"
expect_text "$R/bw_write.client.out" "tx depth 16, cq mod 4, max inline 220"
expect_line "$R/bw_write.client.out" "waits: poll for 100 us, then sleep on the completion channel (the peer's GID is one of this device's: both sides on this host)"
check_figures bw_write bw write 50 4096

expect_rc "$R/lat_fetch_add.server.rc" 0
expect_rc "$R/lat_fetch_add.client.rc" 0
# An atomic's (and a READ's) latency polls as with a peer on another
# host, though both sides share this guest: only the device answers.
expect_line "$R/lat_fetch_add.client.out" "waits: poll for 4000 us, then nap 20 us at a time (latency of a READ or atomic: only the peer's device answers, wherever the peer is)"
expect_text "$R/lat_fetch_add.json" '"wait": {"name": "poll-then-nap", "spin_us": 4000, "nap_us": 20, "peer_on_this_host": true,'
check_figures lat_fetch_add lat fetch_add 10 8

expect_rc "$R/bw_send_busy.server.rc" 0
expect_rc "$R/bw_send_busy.client.rc" 0
expect_line "$R/bw_send_busy.client.out" "waits: polling only (--busy-poll)"
expect_text "$R/bw_send_busy.json" '"wait": {"name": "poll", "spin_us": null, "nap_us": null, "peer_on_this_host": true,'
check_figures bw_send_busy bw send 200 64

expect_rc "$R/lat_read_events.server.rc" 0
expect_rc "$R/lat_read_events.client.rc" 0
expect_line "$R/lat_read_events.client.out" "waits: sleep on the completion channel at once (-e)"
expect_line "$R/lat_read_events.server.out" "waits: sleep on the completion channel at once (-e)"
expect_text "$R/lat_read_events.client.out" "tx depth 4, cq mod 1,"
expect_text "$R/lat_read_events.json" '"tx_depth": 4, "cq_mod": 1,'
check_figures lat_read_events lat read 20 64

expect_rc "$R/mismatch.server.rc" 1
expect_rc "$R/mismatch.client.rc" 1
expect_line "$R/mismatch.server.err" "rdma_bench: failed to agree on the benchmark with the peer: the peer runs --op write, this side --op send"
expect_line "$R/mismatch.client.err" "rdma_bench: failed to agree on the benchmark with the peer: the peer runs --op send, this side --op write"

for run in new_api_send new_api_read new_api_lat_send new_api_lat_fetch_add; do
	expect_rc "$R/$run.server.rc" 0
	expect_rc "$R/$run.client.rc" 0
done
expect_text "$R/new_api_send.client.out" "(ibv_create_cq_ex: byte_len"
expect_text "$R/new_api_send.client.out" "with ibv_create_qp_ex: it posts with ibv_wr_*"
expect_text "$R/new_api_send.client.out" "64-byte messages: up to 8 sends to one ibv_wr_start and ibv_wr_complete"
check_figures new_api_send bw send 400 64
bench_extras new_api_read qps "$R/new_api_read.client.out" \
	"$R/new_api_read.json" 2 count
check_figures new_api_lat_send lat send 20 2
check_figures new_api_lat_fetch_add lat fetch_add 20 8

# A bad bench option is a usage error: one line, exit 2, before any device.
"$RDMA_BENCH" bw --cq-mod 0 >"$RXE_OUT_DIR/usage.out" 2>"$RXE_OUT_DIR/usage.err"
expect_status $? 2 "--cq-mod 0"
expect_line "$RXE_OUT_DIR/usage.err" "rdma_bench: invalid --cq-mod value '0' (expected a number from 1 to 8192)"
finish
