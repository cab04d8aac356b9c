#!/usr/bin/env bash
# The READ lesson over iWARP on the siw link, decoded by tshark through
# scripts/wire.py: rdma_lessons -R -o read, server on guest a, client
# on guest b.  The connection's TCP handshake and MPA request and reply
# come first; then the READ is an RDMAP Read Request from the client
# whose source is the STag and address the client printed as the
# server's (Remote rkey, the remote of its posted RDMA_READ), and the
# server's Read Response lands at the request's sink with the server's
# text.
. "$(dirname "$0")/lib.sh"

P="'$RDMA_LESSONS'"
# The RDMA_CM port; the program's sync socket takes PORT + 1 on iWARP.
PORT=20034
CAP=$RXE_OUT_DIR/siw.pcap
ROWS=$RXE_OUT_DIR/siw.rows

# The client retries its connect until the server listens.
rxe_pair read --on a b "$P -v -R -o read -p $PORT --accept-timeout 60" \
	"$P -v -R -o read -p $PORT --connect-timeout 60 \"\$RXE_SIW_PEER_ADDR\""
rxe_go wire_siw 90 --capture-siw "$CAP"

C=$RXE_RUNS/read.client.out
expect_rc "$RXE_RUNS/read.server.rc" 0
expect_rc "$RXE_RUNS/read.client.rc" 0
expect_line "$C" "Contents of server's buffer: 'RDMA read operation'"
read -r len va rkey < <(sed -n 's/^\[verbs\] posted RDMA_READ: .* len \([0-9]*\) lkey .*, remote \(0x[0-9a-f]*\) rkey \(0x[0-9a-f]*\)$/\1 \2 \3/p' "$C")
expect_line "$C" "Remote rkey = ${rkey:-none posted}"

python3 "$SOURCE_DIR/scripts/wire.py" "$CAP" \
	--peer "client=198.51.100.2=$C" \
	--peer "server=198.51.100.1=$RXE_RUNS/read.server.out" \
	--rows "$ROWS" >"$RXE_OUT_DIR/siw.table" 2>&1
expect_status "$?" 0 "wire.py on the siw capture (it fails on one with no iWARP packet)"

# The checks read the rows with Python: each is KEY=VALUE cells.  Prints
# one line per finding, which the expect_line checks below compare.
python3 - "$ROWS" "$PORT" >"$RXE_OUT_DIR/siw.findings" <<'PY'
import sys
rows = [dict(c.split("=", 1) for c in line.rstrip("\n").split("\t"))
        for line in open(sys.argv[1], encoding="utf-8")]
rows = [r for r in rows if r.get("port") == sys.argv[2]]
names = [r["name"] for r in rows]
first = next((i for i, n in enumerate(names) if n.startswith("iWARP")), 0)
print("opening=" + ",".join(f"{r['from']}:{r['name']}" for r in rows[:first]))
sink = None
for r in rows:
    if r["name"] == "iWARP RDMA Read Request":
        print(f"request from={r['from']} source={r['src_stag']} {r['src_to']}"
              f" size={r['size']}")
        sink = (r["sink_stag"], r["sink_to"])
    if r["name"] == "iWARP RDMA Read Response":
        print(f"response from={r['from']} at sink={(r['stag'], r['to']) == sink}"
              f" payload={r.get('payload', '')}")
PY
F=$RXE_OUT_DIR/siw.findings
expect_line "$F" "opening=client:TCP SYN,server:TCP SYN, ACK,client:TCP ACK,client:MPA Request,server:MPA Reply"
expect_line "$F" "request from=client source=$rkey $va size=$len"
expect_line "$F" "response from=server at sink=True payload=RDMA read operation"
finish
