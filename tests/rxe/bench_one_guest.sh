# Benchmark mode on one guest (server and client share rxe0): a latency run
# over every size to 4 KiB (-a -s 4096), a bandwidth run and an atomic
# latency run, each checked for consistent figures and a JSON file a real
# parser accepts; then a server and a client that disagree on the
# benchmark, both refusing.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rc_common.sh"
. "$(dirname "$0")/bench_lib.sh"

port=19890

# pair NAME SERVER_ARGS CLIENT_ARGS: one server and client pair for the guest
# script: the server in the background, the client here; each side's output
# and status, and the client's JSON, come back between markers.
guest="P='$RDMA_RC_EXAMPLE'
$BENCH_SECTIONS_FN
cd \"\$(mktemp -d)\" || exit 1"
pair() {
	local name=$1 server_args=$2 client_args=$3
	guest+="
\"\$P\" -g 1 -p $port $server_args >server.out 2>server.err &
server=\$!
\"\$P\" -g 1 -p $port --connect-timeout 20 $client_args --json out.json \"\$RXE_ADDR\" >client.out 2>client.err
echo \$? >client.rc
wait \$server
echo \$? >server.rc
sections $name server.out server.err server.rc client.out client.err client.rc out.json
rm -f out.json"
	port=$((port + 1))
}

# Latency of SEND over every size to 4 KiB (-a -s), few iterations.
pair lat_send "--bench lat --op send -a -s 4096 -n 5" "--bench lat --op send -a -s 4096 -n 5"
# Bandwidth of RDMA WRITE, with a send queue and moderation of our choosing.
pair bw_write "--bench bw --op write -s 4096 -n 50 --tx-depth 16 --cq-mod 4" \
	"--bench bw --op write -s 4096 -n 50 --tx-depth 16 --cq-mod 4"
# Latency of the fetch-and-add atomic: always 8 bytes.
pair lat_fetch_add "--bench lat --op fetch_add -n 10" "--bench lat --op fetch_add -n 10"
# The two other ways to wait: polling only, and sleeping at once.
pair bw_send_busy "--bench bw --op send -s 64 -n 200 --busy-poll" \
	"--bench bw --op send -s 64 -n 200 --busy-poll"
# With --cq-mod 4 READ latency still signals every READ: the banner and
# the JSON say so.
pair lat_read_events "--bench lat --op read -s 64 -n 20 -e --cq-mod 4" \
	"--bench lat --op read -s 64 -n 20 -e --cq-mod 4"
# Sides that disagree refuse, each naming the difference, and exit 1.
pair mismatch "--bench lat --op send -n 10" "--bench lat --op write -n 10"

# One exec for all six pairs: starting programs is what costs under TCG.
rxe_exec bench_one_guest --timeout 200 -a "$guest"
expect_rc "$RXE_OUT.a.rc" 0
out=$RXE_OUT
split_sections "$out.a.out" "$out"

RXE_OUT=$out.lat_send
expect_rc "$RXE_OUT.server.rc" 0
expect_rc "$RXE_OUT.client.rc" 0
expect_text "$RXE_OUT.client.out" " #bytes #iterations t_min[usec] t_max[usec] t_typical[usec] t_avg[usec] t_stdev[usec] 99% percentile[usec] 99.9% percentile[usec]"
# The peer shares rxe0 (and the guest's one CPU): latency waits sleep too.
expect_line "$RXE_OUT.client.out" "waits: poll for 100 us, then sleep on the completion channel"
check_figures lat send 5 2,4,8,16,32,64,128,256,512,1024,2048,4096

RXE_OUT=$out.bw_write
expect_rc "$RXE_OUT.server.rc" 0
expect_rc "$RXE_OUT.client.rc" 0
expect_text "$RXE_OUT.client.out" " #bytes #iterations BW peak[MiB/sec] BW average[MiB/sec] MsgRate[Mpps]"
expect_text "$RXE_OUT.client.out" "tx depth 16, cq mod 4, max inline 220"
expect_line "$RXE_OUT.client.out" "waits: poll for 100 us, then sleep on the completion channel"
check_figures bw write 50 4096

RXE_OUT=$out.lat_fetch_add
expect_rc "$RXE_OUT.server.rc" 0
expect_rc "$RXE_OUT.client.rc" 0
check_figures lat fetch_add 10 8

RXE_OUT=$out.bw_send_busy
expect_rc "$RXE_OUT.server.rc" 0
expect_rc "$RXE_OUT.client.rc" 0
expect_line "$RXE_OUT.client.out" "waits: polling only (--busy-poll)"
check_figures bw send 200 64

RXE_OUT=$out.lat_read_events
expect_rc "$RXE_OUT.server.rc" 0
expect_rc "$RXE_OUT.client.rc" 0
expect_line "$RXE_OUT.client.out" "waits: sleep on the completion channel at once (-e)"
expect_text "$RXE_OUT.client.out" "tx depth 4, cq mod 1,"
expect_text "$RXE_OUT.out.json" '"tx_depth": 4, "cq_mod": 1,'
check_figures lat read 20 64

RXE_OUT=$out.mismatch
expect_rc "$RXE_OUT.server.rc" 1
expect_rc "$RXE_OUT.client.rc" 1
expect_line "$RXE_OUT.server.err" "failed to agree on the benchmark with the peer: the peer runs --op write, this side --op send"
expect_line "$RXE_OUT.client.err" "failed to agree on the benchmark with the peer: the peer runs --op send, this side --op write"

# A bad bench option is a usage error: one line, exit 2, before any device.
"$RDMA_RC_EXAMPLE" --bench bw --cq-mod 0 >"$RXE_OUT_DIR/usage.out" 2>"$RXE_OUT_DIR/usage.err"
expect_status $? 2 "--cq-mod 0"
expect_line "$RXE_OUT_DIR/usage.err" "rdma_rc_example: invalid --cq-mod value '0' (expected a number from 1 to 8192)"
finish
