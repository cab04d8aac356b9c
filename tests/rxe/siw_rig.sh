#!/usr/bin/env bash
# The rig's software iWARP device (rxe-vm start --siw, as the fixture starts
# the shared guests): siw0 on both guests, an iWARP device with its port
# active, and rdma-core's rping between the two guests over it.  Its
# packets must be iWARP on the siw link (eth1) and none of them on eth0's.
. "$(dirname "$0")/lib.sh"

PORT=20030
COUNT=3
CAP_SIW=$RXE_OUT_DIR/siw.pcap
CAP_ETH0=$RXE_OUT_DIR/eth0.pcap

for g in a b; do
	# shellcheck disable=SC2016 # $RXE_SIW_DEV: expanded in the guest
	rxe_solo "devinfo_$g" --on "$g" 'ibv_devinfo -d "$RXE_SIW_DEV"'
done
# rping's client does not retry, and once refused it hangs instead of
# exiting: it starts only once the server listens. rping waits for its
# completion events with no bound, so one event that soft-iWARP loses
# hangs both sides (seen once in CI, with the client's first SEND
# delivered). So two servers listen from the start, on PORT and PORT+1;
# the client runs under a bound, and only a run that hung runs once more,
# on PORT+1, saying so; any other failure fails at once.
server="out=\$(mktemp)
trap 'rm -f \$out' EXIT
rping -s -a \"\$RXE_SIW_ADDR\" -p $PORT -C $COUNT -v >\$out 2>&1 & first=\$!
rping -s -a \"\$RXE_SIW_ADDR\" -p $((PORT + 1)) -C $COUNT -v & second=\$!
wait -n \$first \$second
rc=\$?
if kill -0 \$first 2>/dev/null; then
	kill \$first
	wait \$first
	cat \$out
	echo \"rping's server on port $PORT got no client; the one on port $((PORT + 1)) served the client's second run, status \$rc\" >&2
	exit \$rc
fi
cat \$out
pings=\$(grep -c '^server ping data: ' \$out)
if [ \$rc -eq 0 ] && [ \$pings -eq $COUNT ]; then
	kill \$second
	wait \$second
	exit 0
fi
echo \"rping's server on port $PORT ended with status \$rc after \$pings of $COUNT pings; the one on port $((PORT + 1)) serves the client's second run\" >&2
wait \$second"
client="for run in 1 2; do
	port=\$(($PORT + run - 1))
	timeout 20 rping -c -a \"\$RXE_SIW_PEER_ADDR\" -p \$port -C $COUNT -v && exit 0
	rc=\$?
	[ \$rc -eq 124 ] || exit \$rc
	echo \"siw_rig: rping's client on port \$port got no answer within 20 s, so it runs once more, on port \$((port + 1))\" >&2
done
exit 1"
rxe_pair rping --on a b --ready "listening on TCP port $PORT" \
	"$(rxe_when_listening "$PORT $((PORT + 1))" "bash -c $(printf %q "$server")")" \
	"bash -c $(printf %q "$client")"
rxe_go siw_rig 90 --capture "$CAP_ETH0" --capture-siw "$CAP_SIW"

for g in a b; do
	out=$RXE_RUNS/devinfo_$g.out
	expect_rc "$RXE_RUNS/devinfo_$g.rc" 0
	expect_regex "$out" '^hca_id:[[:space:]]+siw0$'
	expect_regex "$out" '^[[:space:]]+transport:[[:space:]]+iWARP \(1\)$'
	expect_regex "$out" '^[[:space:]]+state:[[:space:]]+PORT_ACTIVE \(4\)$'
done
expect_rc "$RXE_RUNS/rping.server.rc" 0
expect_rc "$RXE_RUNS/rping.client.rc" 0
for ((i = 0; i < COUNT; i++)); do
	expect_regex "$RXE_RUNS/rping.client.out" "^ping data: rdma-ping-$i: "
	expect_regex "$RXE_RUNS/rping.server.out" "^server ping data: rdma-ping-$i: "
done

# What went over each link on TCP ports PORT and PORT+1 (the client's
# second run): the segments, and whether the first payload from guest b is
# an MPA request ("MPA ID Req Frame"), which opens every iWARP connection.
tcp_summary() {
	python3 - "$1" "$PORT" <<'PY'
import struct, sys
path, port = sys.argv[1], int(sys.argv[2])
ports = (port, port + 1)
data = open(path, 'rb').read()
segments, first = 0, b''
off = 24
while off + 16 <= len(data):
    caplen = struct.unpack_from('<I', data, off + 8)[0]
    frame = data[off + 16:off + 16 + caplen]
    off += 16 + caplen
    if len(frame) < 34 or frame[12:14] != b'\x08\x00' or frame[23] != 6:
        continue
    ihl = (frame[14] & 15) * 4
    tcp = frame[14 + ihl:]
    sport, dport = struct.unpack_from('>HH', tcp)
    if sport not in ports and dport not in ports:
        continue
    segments += 1
    payload = tcp[(tcp[12] >> 4) * 4:]
    if dport in ports and payload and not first:
        first = payload
print('segments=%d' % segments)
print('first_payload=%s' % first[:16].decode('ascii', 'replace'))
PY
}
tcp_summary "$CAP_SIW" >"$RXE_OUT_DIR/siw.summary"
tcp_summary "$CAP_ETH0" >"$RXE_OUT_DIR/eth0.summary"
expect_regex "$RXE_OUT_DIR/siw.summary" '^segments=[1-9][0-9]*$'
expect_line "$RXE_OUT_DIR/siw.summary" 'first_payload=MPA ID Req Frame'
expect_line "$RXE_OUT_DIR/eth0.summary" 'segments=0'
finish
