#!/usr/bin/env bash
# rdma_bench between the two guests ("two hosts"): server on guest a,
# client on guest b. Each side finds the peer's GID in none of its device's
# GID tables, so a latency run polls as perftest does, and naps only once a
# wait outlasts 4000 us (SEND and WRITE ping-pongs, READ alike); a
# bandwidth run sleeps once its CQ stays empty for 100 us. Both sides say
# so, the client's JSON too. Each with consistent figures and JSON.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rc_common.sh"
. "$(dirname "$0")/bench_lib.sh"

lat="lat --op send -s 64 -n 20"
write="lat --op write -s 4096 -n 20"
read="lat --op read -s 64 -n 20"
bw="bw --op write -s 4096 -n 100"

# pair NAME PORT ARGS: an rdma_bench server on guest a, its client on guest
# b, one pair after the other; each client retries its connect until its
# server listens, and writes its JSON to $RXE_RUNS/NAME.json.
pair() {
	bench_pair "$1" "$2" "$3 -x 1 --accept-timeout 60" \
		"$3 -x 1 --connect-timeout 60 --out_json_file '$RXE_RUNS/$1.json'" --on a b
}
pair lat_send 19930 "$lat"
pair lat_write 19932 "$write"
pair lat_read 19933 "$read"
pair bw_write 19931 "$bw"
rxe_go bench_two_guests 200
R=$RXE_RUNS

for run in lat_send lat_write lat_read bw_write; do
	expect_rc "$R/$run.server.rc" 0
done

expect_rc "$R/lat_send.client.rc" 0
expect_line "$R/lat_send.client.out" "waits: poll for 4000 us, then nap 20 us at a time (latency, the peer's GID is not one of this device's: another host)"
expect_line "$R/lat_send.server.out" "waits: poll for 4000 us, then nap 20 us at a time (latency, the peer's GID is not one of this device's: another host)"
check_figures lat_send lat send 20 64
expect_text "$R/lat_send.json" '"wait": {"name": "poll-then-nap", "spin_us": 4000, "nap_us": 20, "peer_on_this_host": false,'

expect_rc "$R/lat_write.client.rc" 0
expect_line "$R/lat_write.client.out" "waits: poll for 4000 us, then nap 20 us at a time (latency, the peer's GID is not one of this device's: another host)"
expect_line "$R/lat_write.server.out" "waits: poll for 4000 us, then nap 20 us at a time (latency, the peer's GID is not one of this device's: another host)"
check_figures lat_write lat write 20 4096

expect_rc "$R/lat_read.client.rc" 0
expect_line "$R/lat_read.client.out" "waits: poll for 4000 us, then nap 20 us at a time (latency of a READ or atomic: only the peer's device answers, wherever the peer is)"
expect_line "$R/lat_read.server.out" "waits: poll for 4000 us, then nap 20 us at a time (latency of a READ or atomic: only the peer's device answers, wherever the peer is)"
check_figures lat_read lat read 20 64

expect_rc "$R/bw_write.client.rc" 0
expect_line "$R/bw_write.client.out" "waits: poll for 100 us, then sleep on the completion channel (bandwidth, the peer on another host: the CPU does the device's work while the wait sleeps)"
expect_line "$R/bw_write.server.out" "waits: poll for 100 us, then sleep on the completion channel (bandwidth, the peer on another host: the CPU does the device's work while the wait sleeps)"
check_figures bw_write bw write 100 4096
finish
