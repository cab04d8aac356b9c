#!/usr/bin/env bash
# An RDMA READ over iWARP on the siw link, decoded by tshark through
# scripts/wire.py: the TCP handshake and MPA request and reply first, then
# each READ as an RDMAP Read Request from the client and the server's Read
# Response, landing where the request said.  The READs are perftest's
# ib_read_lat -R on siw0, server on guest a, client on guest b.
. "$(dirname "$0")/lib.sh"

PORT=20034
SIZE=64
COUNT=5
CAP=$RXE_OUT_DIR/siw.pcap
ROWS=$RXE_OUT_DIR/siw.rows

lat="ib_read_lat -R -d \"\$RXE_SIW_DEV\" -s $SIZE -n $COUNT -p $PORT"
# perftest's client does not retry: it starts once the server listens.
rxe_pair read_lat --on a b --ready "listening on TCP port $PORT" \
	"$(rxe_when_listening "$PORT" "$lat")" "$lat \"\$RXE_SIW_PEER_ADDR\""
rxe_go wire_siw 90 --capture-siw "$CAP"

expect_rc "$RXE_RUNS/read_lat.server.rc" 0
expect_rc "$RXE_RUNS/read_lat.client.rc" 0
expect_regex "$RXE_RUNS/read_lat.client.out" "^ $SIZE +$COUNT +[0-9.]+ "

python3 "$SOURCE_DIR/scripts/wire.py" "$CAP" --peer client=198.51.100.2 \
	--peer server=198.51.100.1 --rows "$ROWS" >"$RXE_OUT_DIR/siw.table" 2>&1
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
# perftest opens two connections on the port: the first one's opening.
print("opening=" + ",".join(f"{r['from']}:{r['name']}" for r in rows[:first]))
requests = [r for r in rows if r["name"] == "iWARP RDMA Read Request"]
responses = [r for r in rows if r["name"] == "iWARP RDMA Read Response"]
print(f"requests={len(requests)}")
print(f"responses={len(responses)}")
print("request sizes=" + ",".join(sorted({r["size"] for r in requests})))
print("request senders=" + ",".join(sorted({r["from"] for r in requests})))
print("response lengths=" + ",".join(sorted({r["len"] for r in responses})))
print("response senders=" + ",".join(sorted({r["from"] for r in responses})))
# Each response after its request, at the request's sink STag and TO.
bad = sum(1 for q, a in zip(requests, responses)
          if (a["stag"], a["to"]) != (q["sink_stag"], q["sink_to"])
          or int(a["frame"]) < int(q["frame"]))
print(f"responses not where their request said={bad}")
PY
F=$RXE_OUT_DIR/siw.findings
expect_line "$F" "opening=client:TCP SYN,server:TCP SYN, ACK,client:TCP ACK,client:MPA Request,server:MPA Reply"
expect_line "$F" "requests=$COUNT"
expect_line "$F" "responses=$COUNT"
expect_line "$F" "request sizes=$SIZE"
expect_line "$F" "request senders=client"
expect_line "$F" "response lengths=$SIZE"
expect_line "$F" "response senders=server"
expect_line "$F" "responses not where their request said=0"
finish
