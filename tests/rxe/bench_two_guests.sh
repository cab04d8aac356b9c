# Benchmark mode between the two guests ("two hosts"): server on guest a,
# client on guest b. With the peer on a port of its own, a latency run
# naps once a wait outlasts its spin (100 us for a SEND or WRITE ping-pong,
# 4000 us for READ); a bandwidth run sleeps once its CQ stays empty.
# Each with consistent figures and JSON.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rc_common.sh"
. "$(dirname "$0")/bench_lib.sh"

lat="--bench lat --op send -s 64 -n 20"
write="--bench lat --op write -s 4096 -n 20"
read="--bench lat --op read -s 64 -n 20"
bw="--bench bw --op write -s 4096 -n 100"

# Guest a serves one run after the other; guest b's clients retry their
# connect until each server listens. b's outputs come back in sections.
server="P='$RDMA_RC_EXAMPLE'
\"\$P\" -g 1 -p 19930 --accept-timeout 60 $lat >/dev/null || exit 1
\"\$P\" -g 1 -p 19932 --accept-timeout 60 $write >/dev/null || exit 1
\"\$P\" -g 1 -p 19933 --accept-timeout 60 $read >/dev/null || exit 1
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
run lat_write 19932 '$write'
run lat_read 19933 '$read'
run bw_write 19931 '$bw'"

rxe_exec bench_two_guests --timeout 200 -a "$server" -b "$client"
expect_rc "$RXE_OUT.a.rc" 0
out=$RXE_OUT
split_sections "$out.b.out" "$out"

RXE_OUT=$out.lat_send
expect_rc "$RXE_OUT.client.rc" 0
expect_line "$RXE_OUT.client.out" "waits: poll for 100 us, then nap 20 us at a time (latency, the peer is on another port)"
check_figures lat send 20 64

RXE_OUT=$out.lat_write
expect_rc "$RXE_OUT.client.rc" 0
expect_line "$RXE_OUT.client.out" "waits: poll for 100 us, then nap 20 us at a time (latency, the peer is on another port)"
check_figures lat write 20 4096

RXE_OUT=$out.lat_read
expect_rc "$RXE_OUT.client.rc" 0
expect_line "$RXE_OUT.client.out" "waits: poll for 4000 us, then nap 20 us at a time (latency, the peer is on another port)"
check_figures lat read 20 64

RXE_OUT=$out.bw_write
expect_rc "$RXE_OUT.client.rc" 0
expect_line "$RXE_OUT.client.out" "waits: poll for 100 us, then sleep on the completion channel"
check_figures bw write 100 4096
finish
