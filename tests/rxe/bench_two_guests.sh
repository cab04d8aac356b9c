# Benchmark mode between the two guests ("two hosts"): server on guest a,
# client on guest b. A latency run polls only, as perftest does, because
# the peer has a port (and a CPU) of its own; a bandwidth run still sleeps
# once its CQ stays empty. Both with consistent figures and JSON.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rc_common.sh"
. "$(dirname "$0")/bench_lib.sh"

lat="--bench lat --op send -s 64 -n 20"
bw="--bench bw --op write -s 4096 -n 100"

# Guest a serves one run after the other; guest b's clients retry their
# connect until each server listens. b's outputs come back in sections.
server="P='$RDMA_RC_EXAMPLE'
\"\$P\" -g 1 -p 19930 --accept-timeout 60 $lat >/dev/null || exit 1
\"\$P\" -g 1 -p 19931 --accept-timeout 60 $bw >/dev/null"
client="P='$RDMA_RC_EXAMPLE'
$BENCH_SECTIONS_FN
cd \"\$(mktemp -d)\" || exit 1
run() {
	\"\$P\" -g 1 -p \$2 --connect-timeout 60 \$3 --json out.json \"\$RXE_PEER_ADDR\" >client.out 2>client.err
	echo \$? >client.rc
	sections \$1 client.out client.err client.rc out.json
	rm -f out.json
}
run lat_send 19930 '$lat'
run bw_write 19931 '$bw'"

rxe_exec bench_two_guests --timeout 200 -a "$server" -b "$client"
expect_rc "$RXE_OUT.a.rc" 0
out=$RXE_OUT
split_sections "$out.b.out" "$out"

RXE_OUT=$out.lat_send
expect_rc "$RXE_OUT.client.rc" 0
expect_line "$RXE_OUT.client.out" "waits: polling only (latency, the peer is on another port)"
check_figures lat send 20 64

RXE_OUT=$out.bw_write
expect_rc "$RXE_OUT.client.rc" 0
expect_line "$RXE_OUT.client.out" "waits: poll for 100 us, then sleep on the completion channel"
check_figures bw write 100 4096
finish
