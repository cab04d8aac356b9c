#!/usr/bin/env python3
"""The packets of one run between the two soft-RoCE guests, from a pcap.

    wire.py PCAP --peer NAME=IP[=TRANSCRIPT] --peer NAME=IP[=TRANSCRIPT]
            [--rows FILE] [--msc FILE]

tshark (Wireshark's InfiniBand dissector, which takes RoCE v2's UDP port
4791) decodes each frame into fields; this script prints them as a table a
reader can follow: the set-up traffic (the TCP exchange and syncs, the
CM's MADs) apart, then every packet of the lesson with its direction, its
name, PSN, destination QP and the header fields that matter.

--peer names a side: its lane name (client, server, sender, ...), its IPv4
address and the file holding what its program printed.  The first one is
drawn on the left.  --rows writes one line per packet of tab-separated
KEY=VALUE fields, for tests to match against.  --msc writes an mscgen
chart: both programs and both NICs as lanes, one arrow per packet, and the
posts and completions of each program's -v trace ([verbs] lines) as
arrows between a program and its NIC.

Exit status 0, or 1 when the capture holds no RoCE packet at all.
"""

import argparse
import re
import subprocess
import sys

FIELDS = [
    "frame.number", "frame.len", "frame.cap_len", "ip.src", "ip.dst", "tcp.srcport", "tcp.dstport",
    "tcp.len", "tcp.flags.syn", "tcp.flags.fin", "udp.dstport",
    "infiniband.bth.opcode", "infiniband.bth.psn", "infiniband.bth.destqp",
    "infiniband.reth.va", "infiniband.reth.r_key", "infiniband.reth.dmalen",
    "infiniband.aeth.syndrome.opcode", "infiniband.aeth.syndrome.timer",
    "infiniband.aeth.syndrome.error_code", "infiniband.aeth.msn",
    "infiniband.atomiceth.swapdt", "infiniband.atomiceth.cmpdt",
    "infiniband.atomicacketh.origremdt", "infiniband.immdt",
    "infiniband.deth.q_key", "infiniband.deth.srcqp",
    "infiniband.mad.attributeid", "udp.payload",
]

ROCE_PORT = "4791"
# The CM's MADs go to QP 1, the General Services Interface.
GSI_QP = 1

# BTH opcodes (InfiniBand spec, vol. 1, 9.2): the low five bits name the
# operation, the high three the transport.
TRANSPORTS = {0: "RC", 1: "UC", 3: "UD"}
OPERATIONS = {
    0: "Send First", 1: "Send Middle", 2: "Send Last",
    3: "Send Last with Immediate", 4: "Send Only",
    5: "Send Only with Immediate", 6: "RDMA Write First",
    7: "RDMA Write Middle", 8: "RDMA Write Last",
    9: "RDMA Write Last with Immediate", 10: "RDMA Write Only",
    11: "RDMA Write Only with Immediate", 12: "RDMA Read Request",
    13: "RDMA Read Response First", 14: "RDMA Read Response Middle",
    15: "RDMA Read Response Last", 16: "RDMA Read Response Only",
    17: "Acknowledge", 18: "Atomic Acknowledge", 19: "Compare Swap",
    20: "Fetch Add",
}
# Operations that answer a request, and those that begin or end a message.
ANSWERS = {13, 14, 15, 16, 17, 18}
STARTS = {0, 4, 5, 6, 10, 11, 12, 19, 20}
ENDS = {2, 3, 4, 5, 8, 9, 10, 11, 12, 19, 20}
# Operations that carry data: SENDs, WRITEs, READ responses.
CARRIES_DATA = set(range(0, 12)) | {13, 14, 15, 16}
# Message ends that consume a receive at the target.
CONSUMES_RECEIVE = {2, 3, 4, 5, 9, 11}

# The AETH syndrome's 5-bit value: an RNR NAK's timer code in ms (spec
# table 45), a NAK's error code.
RNR_TIMER_MS = [655.36, 0.01, 0.02, 0.03, 0.04, 0.06, 0.08, 0.12, 0.16,
                0.24, 0.32, 0.48, 0.64, 0.96, 1.28, 1.92, 2.56, 3.84,
                5.12, 7.68, 10.24, 15.36, 20.48, 30.72, 40.96, 61.44,
                81.92, 122.88, 163.84, 245.76, 327.68, 491.52]
NAK_ERRORS = {0: "PSN sequence error", 1: "invalid request",
              2: "remote access error", 3: "remote operational error",
              4: "invalid RD request"}
CM_ATTRIBUTES = {0x10: "ConnectRequest", 0x11: "MsgRcptAck",
                 0x12: "ConnectReject", 0x13: "ConnectReply",
                 0x14: "ReadyToUse", 0x15: "DisconnectRequest",
                 0x16: "DisconnectReply"}


def run_tshark(pcap):
    cmd = ["tshark", "-n", "-r", pcap, "--disable-protocol", "rpcordma",
           "-T", "fields", "-E", "separator=\t", "-E", "occurrence=f"]
    for field in FIELDS:
        cmd += ["-e", field]
    try:
        out = subprocess.run(cmd, check=True, capture_output=True,
                             text=True).stdout
    except FileNotFoundError:
        sys.exit("wire.py: tshark not found (Debian package tshark)")
    except subprocess.CalledProcessError as err:
        sys.exit(f"wire.py: tshark failed on {pcap}: {err.stderr.strip()}")
    frames = []
    for line in out.splitlines():
        values = line.split("\t")
        values += [""] * (len(FIELDS) - len(values))
        frames.append(dict(zip(FIELDS, values)))
    return frames


def who(names, ip):
    """The name a peer was given, or a multicast group's address."""
    if ip in names:
        return names[ip]
    if ip and 224 <= int(ip.split(".")[0]) <= 239:
        return f"group {ip}"
    return ip


def number(text):
    return int(text, 0) if text else None


def printable_start(frame, header_len):
    """The payload's first bytes up to a NUL, when they are all text."""
    raw = bytes.fromhex(frame["udp.payload"].replace(":", ""))
    if frame["frame.len"] == frame["frame.cap_len"]:
        # A whole frame: the last 4 bytes are the ICRC, not data.
        raw = raw[:-4]
    data = raw[header_len:].split(b"\0", 1)[0][:40]
    if not data or any(b < 0x20 or b > 0x7e for b in data):
        return ""
    return data.decode("ascii")


class Packet:
    """One RoCE v2 packet, named and with the fields a lesson is about."""

    def __init__(self, frame, names):
        f = frame
        self.frame = int(f["frame.number"])
        self.src = who(names, f["ip.src"])
        self.dst = who(names, f["ip.dst"])
        self.opcode = int(f["infiniband.bth.opcode"])
        self.op = self.opcode & 0x1f
        self.transport = TRANSPORTS.get(self.opcode >> 5, "?")
        self.psn = int(f["infiniband.bth.psn"])
        self.destqp = int(f["infiniband.bth.destqp"], 16)
        self.keys = {}
        name = OPERATIONS.get(self.op, f"opcode {self.opcode}")
        header = 12
        if f["infiniband.reth.r_key"]:
            self.keys.update(va=hex(number(f["infiniband.reth.va"])),
                             rkey=hex(number(f["infiniband.reth.r_key"])),
                             len=f["infiniband.reth.dmalen"])
            header += 16
        if f["infiniband.aeth.syndrome.opcode"]:
            kind = int(f["infiniband.aeth.syndrome.opcode"])
            if kind == 1:
                name = "RNR NAK"
                timer = int(f["infiniband.aeth.syndrome.timer"] or 0)
                self.keys.update(aeth="RNR NAK", timer=str(timer),
                                 timer_ms=str(RNR_TIMER_MS[timer]))
            elif kind == 3:
                name = "NAK"
                code = int(f["infiniband.aeth.syndrome.error_code"] or 0)
                self.keys.update(aeth="NAK", error=NAK_ERRORS.get(code, str(code)))
            else:
                self.keys.update(aeth="ACK")
            header += 4
        if f["infiniband.atomiceth.swapdt"]:
            # The 28-byte AtomicETH begins as a RETH does, with va and
            # rkey (which the dissector names as RETH fields, counted
            # above), then swap (or add) and compare.
            self.keys.pop("len", None)
            if self.op == 20:
                self.keys.update(add=f["infiniband.atomiceth.swapdt"])
            else:
                self.keys.update(compare=f["infiniband.atomiceth.cmpdt"],
                                 swap=f["infiniband.atomiceth.swapdt"])
            header += 28 - 16
        if f["infiniband.atomicacketh.origremdt"]:
            self.keys.update(original=f["infiniband.atomicacketh.origremdt"])
            header += 8
        if f["infiniband.deth.q_key"]:
            self.keys.update(qkey=hex(number(f["infiniband.deth.q_key"])),
                             srcqp=f"0x{number(f['infiniband.deth.srcqp']):06x}")
            header += 8
        if f["infiniband.immdt"]:
            self.keys.update(imm="0x" + f["infiniband.immdt"].replace(":", ""))
            header += 4
        self.name = f"{self.transport} {name}"
        text = printable_start(f, header) if self.op in CARRIES_DATA else ""
        if text:
            self.keys.update(payload=text)

    def row(self):
        cells = [f"frame={self.frame}", f"from={self.src}", f"to={self.dst}",
                 f"name={self.name}", f"psn={self.psn}",
                 f"destqp=0x{self.destqp:06x}"]
        cells += [f"{k}={v}" for k, v in self.keys.items()]
        return "\t".join(cells)

    def fields_text(self):
        k = self.keys
        parts = []
        if "rkey" in k:
            parts.append(f"va {k['va']} rkey {k['rkey']}"
                         + (f" len {k['len']}" if "len" in k else ""))
        if "add" in k:
            parts.append(f"add {k['add']}")
        if "compare" in k:
            parts.append(f"compare {k['compare']} swap {k['swap']}")
        if k.get("aeth") == "RNR NAK":
            parts.append(f"timer {k['timer']} ({k['timer_ms']} ms)")
        elif k.get("aeth") == "NAK":
            parts.append(k["error"])
        elif k.get("aeth") == "ACK" and self.op == 17:
            parts.append("ACK")
        if "original" in k:
            parts.append(f"original {k['original']}")
        if "imm" in k:
            parts.append(f"ImmDt {k['imm']}")
        if "qkey" in k:
            parts.append(f"Q_Key {k['qkey']} src QP {k['srcqp']}")
        if "payload" in k:
            parts.append(f"'{k['payload']}'")
        if "again" in k:
            parts.append("sent again")
        return ", ".join(parts)


def cm_name(frame):
    attr = number(frame["infiniband.mad.attributeid"])
    return "CM " + CM_ATTRIBUTES.get(attr, f"MAD attribute {attr}") \
        if attr is not None else "MAD"


def split_frames(frames, names):
    """Lesson packets, the CM's MADs and TCP segments, in capture order.
    A request sent again with a PSN already seen is marked again=yes."""
    chart, tcp, seen = [], [], set()
    for f in frames:
        if f["infiniband.bth.opcode"] and f["udp.dstport"] == ROCE_PORT:
            if int(f["infiniband.bth.destqp"], 16) == GSI_QP:
                chart.append(("mad", f))
            else:
                p = Packet(f, names)
                key = (p.src, p.destqp, p.psn, p.op)
                if p.op not in ANSWERS and key in seen:
                    p.keys["again"] = "yes"
                seen.add(key)
                chart.append(("packet", p))
        elif f["tcp.srcport"]:
            tcp.append(f)
    return chart, tcp


def describe_tcp(tcp, names):
    if not tcp:
        return []
    port = min(int(tcp[0]["tcp.srcport"]), int(tcp[0]["tcp.dstport"]))
    sizes = {}
    for f in tcp:
        n = int(f["tcp.len"] or 0)
        if n:
            key = (names.get(f["ip.src"], f["ip.src"]), n)
            sizes[key] = sizes.get(key, 0) + 1
    lines = [f"TCP port {port}: {len(tcp)} segments (handshake, data, "
             "acks, close); the data:"]
    for (who, n), count in sorted(sizes.items()):
        what = {72: "QP info", 1: "syncs"}.get(n, "")
        lines.append(f"  {who}: {count} x {n} byte{'s' if n > 1 else ''}"
                     + (f" ({what})" if what else ""))
    return lines


def print_table(chart, tcp, names):
    print("--- set-up, apart from the lesson ---")
    if not tcp and not any(kind == "mad" for kind, _ in chart):
        print("none")
    for line in describe_tcp(tcp, names):
        print(line)
    for kind, item in chart:
        if kind == "mad":
            src = names.get(item["ip.src"], item["ip.src"])
            dst = names.get(item["ip.dst"], item["ip.dst"])
            print(f"  frame {item['frame.number']:>4}  {src} -> {dst}  "
                  f"{cm_name(item)} (UD to QP 1)")
    print()
    print("--- the lesson's packets ---")
    packets = [p for kind, p in chart if kind == "packet"]
    width = max([len(f"{p.src} -> {p.dst}") for p in packets] + [16])
    print(f"{'frame':>5}  {'direction':<{width}}  {'packet':<33} {'PSN':<8}  "
          f"{'dest QP':<8}  fields")
    for p in packets:
        print(f"{p.frame:>5}  {p.src + ' -> ' + p.dst:<{width}}  {p.name:<33} "
              f"0x{p.psn:06x}  0x{p.destqp:06x}  {p.fields_text()}")


# ---------------------------------------------------------------------------
# The chart
# ---------------------------------------------------------------------------

POST = re.compile(r"^\[verbs\] posted (\w+)")
MC_POST = re.compile(r"^\[verbs\] ibv_post_send: ")
POLLED = re.compile(r"^\[verbs\] polled completion: (\w+), .*status ([^,]+),")
FAILED = re.compile(r"^(.+?) completed with status '([^']+)'")
# A completion the program waited for itself and reported in words.
SUCCEEDED = re.compile(r"^(.+?): success$")
OPERATION = re.compile(r"^\[verbs\] operation (\w+)")
MC_SENT = re.compile(r"^==> sent '")
MC_RECEIVED = re.compile(r"^==> received '")
RECEIVES = {"RECV", "RECV_RDMA_WITH_IMM"}
LOCAL_ONLY = {"BIND_MW", "LOCAL_INV"}


def program_events(path):
    """What a program did, in order: ('post'|'done'|'recv'|'op', text)."""
    events = []
    try:
        lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
    except OSError:
        return events
    for line in lines:
        m = POST.match(line)
        if m and m.group(1) not in LOCAL_ONLY:
            kind = "post-recv" if m.group(1) == "RECV" else "post"
            events.append((kind, m.group(1)))
            continue
        m = POLLED.match(line)
        if m and m.group(1) not in LOCAL_ONLY:
            kind = "recv" if m.group(1) in RECEIVES else "done"
            events.append((kind, m.group(1)))
            continue
        m = FAILED.match(line)
        if m:
            events.append(("done", f"{m.group(1)}: {m.group(2)}"))
        elif SUCCEEDED.match(line):
            events.append(("done", SUCCEEDED.match(line).group(1)))
        elif OPERATION.match(line):
            events.append(("op", OPERATION.match(line).group(1)))
        elif MC_POST.match(line):
            events.append(("post", "SEND"))
        elif MC_SENT.match(line):
            events.append(("done", "SEND"))
        elif MC_RECEIVED.match(line):
            events.append(("recv", "RECV"))
    return events


def messages(chart, side):
    """The request messages SIDE sent, in order, each a dict: the chart
    index of its first and last packet, its first PSN, the opcode it ended
    with, the indexes of the peer's packets that answered it, and whether
    one of those was no NAK.  A request sent again starts no message."""
    out, seen, current = [], set(), None
    for i, (kind, p) in enumerate(chart):
        if kind != "packet" or p.src != side or p.op in ANSWERS:
            continue
        if p.op in STARTS:
            if (p.destqp, p.psn) in seen:
                current = None
                continue
            seen.add((p.destqp, p.psn))
            current = {"first": i, "last": i, "psn": p.psn, "end_op": p.op,
                       "answers": [], "ack": False}
            out.append(current)
        elif current:
            current["last"], current["end_op"] = i, p.op
    # A message's answers: the peer's packets with a PSN from its first up
    # to the next message's (a READ's responses, an RNR NAK for each try).
    for n, m in enumerate(out):
        upper = out[n + 1]["psn"] if n + 1 < len(out) else None
        for i, (kind, p) in enumerate(chart):
            if kind == "packet" and p.src != side and p.op in ANSWERS \
                    and i > m["first"] and p.psn >= m["psn"] \
                    and (upper is None or p.psn < upper):
                m["answers"].append(i)
                if p.keys.get("aeth") not in ("RNR NAK", "NAK"):
                    m["ack"] = True
    return out


def place_events(chart, peers):
    """Each program event with a position among the chart's packets (the
    chart's index: -0.3 just before one, +0.3 just after), sorted: the n-th
    post of a side before the n-th message it sent, the n-th completion
    after that message's last answer, the n-th receive completion after
    the n-th message the other side sent that took a receive."""
    placed = []
    sides = [name for name, _ in peers]
    op_start = {}
    anchored = {}
    for side, path in peers:
        other = [s for s in sides if s != side]
        own = messages(chart, side)
        incoming = [m for s in other for m in messages(chart, s)
                    if m["end_op"] in CONSUMES_RECEIVE
                    and (m["ack"] or chart[m["first"]][1].transport != "RC")]
        incoming.sort(key=lambda m: m["last"])
        posts = iter(own)
        dones = iter(own)
        recvs = iter(incoming)
        op = -1
        events = []
        for kind, text in program_events(path):
            pos = None
            if kind == "op":
                op += 1
                continue
            if kind == "post":
                m = next(posts, None)
                pos = m["first"] - 0.3 if m else None
            elif kind == "done":
                m = next(dones, None)
                if m:
                    pos = (m["answers"][-1] if m["answers"] else m["last"]) + 0.3
            elif kind == "recv":
                m = next(recvs, None)
                pos = m["last"] + 0.35 if m else None
            events.append([kind, text, pos, op])
            if pos is not None:
                anchored.setdefault(op, []).append(pos)
        placed.append((side, events))
    for op, positions in anchored.items():
        op_start[op] = min(positions) - 0.9
    result = []
    for side, events in placed:
        last = -1.0
        for kind, text, pos, op in events:
            if pos is None:
                # A receive posted: before anything of its operation, or
                # at the top when it comes before the first operation.
                if kind != "post-recv":
                    continue
                pos = max(last, op_start.get(op, -1.0))
            pos = max(pos, last + 1e-3)
            last = pos
            result.append((pos, side, kind, text))
    result.sort(key=lambda e: e[0])
    return result


def msc_label(text):
    return text.replace("\\", "\\\\").replace('"', '\\"')


def packet_label(p):
    label = msc_label(f"{p.name} PSN 0x{p.psn:06x}")
    fields = p.fields_text()
    if fields:
        label += "\\n" + msc_label(fields)
    return label


def write_msc(path, chart, peers, names):
    sides = [name for name, _ in peers]
    lane = {sides[0]: ("p0", "n0"), sides[1]: ("p1", "n1")}
    lines = ["msc {", "  hscale = \"2\";",
             f"  p0 [label=\"{sides[0]} program\"], n0 [label=\"{sides[0]} NIC\"], "
             f"n1 [label=\"{sides[1]} NIC\"], p1 [label=\"{sides[1]} program\"];"]
    events = place_events(chart, peers)
    e = 0
    for i, (kind, item) in enumerate(chart + [(None, None)]):
        while e < len(events) and events[e][0] < i:
            _, side, ekind, text = events[e]
            prog, nic = lane[side]
            if ekind.startswith("post"):
                lines.append(f"  {prog} -> {nic} [label=\"post {msc_label(text)}\"];")
            else:
                bad = ":" in text
                colour = ', linecolour="red", textcolour="red"' if bad else ""
                lines.append(f"  {nic} >> {prog} [label=\"completion "
                             f"{msc_label(text)}\"{colour}];")
            e += 1
        if kind == "mad":
            src = names.get(item["ip.src"], item["ip.src"])
            dst = names.get(item["ip.dst"], item["ip.dst"])
            if src in lane and dst in lane:
                lines.append(f"  {lane[src][1]} => {lane[dst][1]} [label=\"{cm_name(item)}\", "
                             "linecolour=\"grey\", textcolour=\"grey\"];")
        elif kind == "packet":
            # A multicast group is drawn as the other NIC.
            src = lane[item.src][1] if item.src in lane else "n0"
            if item.dst in lane:
                dst = lane[item.dst][1]
            else:
                dst = "n1" if src == "n0" else "n0"
            if item.keys.get("aeth") in ("RNR NAK", "NAK"):
                style = ', linecolour="red", textcolour="red"'
            else:
                style = ""
            arrow = ">>" if item.op in (17, 18) else "=>"
            lines.append(f"  {src} {arrow} {dst} [label=\"{packet_label(item)}\"{style}];")
    lines.append("}")
    with open(path, "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pcap")
    parser.add_argument("--peer", action="append", required=True,
                        help="NAME=IP[=TRANSCRIPT], twice")
    parser.add_argument("--rows", help="write KEY=VALUE rows to this file")
    parser.add_argument("--msc", help="write an mscgen chart to this file")
    args = parser.parse_args()
    if len(args.peer) != 2:
        parser.error("give --peer twice")
    names, peers = {}, []
    for spec in args.peer:
        parts = spec.split("=", 2)
        if len(parts) < 2:
            parser.error(f"--peer {spec}: expected NAME=IP[=TRANSCRIPT]")
        names[parts[1]] = parts[0]
        peers.append((parts[0], parts[2] if len(parts) > 2 else ""))
    chart, tcp = split_frames(run_tshark(args.pcap), names)
    print_table(chart, tcp, names)
    if args.rows:
        with open(args.rows, "w", encoding="utf-8") as out:
            for kind, item in chart:
                if kind == "packet":
                    out.write(item.row() + "\n")
                else:
                    src = names.get(item["ip.src"], item["ip.src"])
                    dst = names.get(item["ip.dst"], item["ip.dst"])
                    out.write(f"frame={item['frame.number']}\tfrom={src}\t"
                              f"to={dst}\tname={cm_name(item)}\tdestqp=0x000001\n")
    if args.msc:
        write_msc(args.msc, chart, peers, names)
    if not chart:
        print(f"wire.py: no RoCE packet in {args.pcap}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
