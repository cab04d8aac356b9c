#!/usr/bin/env python3
"""The packets of one run between the two guests, from a pcap.

    wire.py PCAP --peer NAME=IP[=TRANSCRIPT] --peer NAME=IP[=TRANSCRIPT]
            [--rows FILE] [--msc FILE]

tshark decodes each frame into fields: RoCE v2 (Wireshark's InfiniBand
dissector, which takes UDP port 4791) from the rxe link, or iWARP (its
MPA, DDP and RDMAP dissectors, over TCP) from the siw link.  This script
prints them as a table a reader can follow: the set-up traffic (the TCP
exchange and syncs, the CM's MADs, or iWARP's TCP handshake and MPA
request and reply) apart, then every packet of the lesson with its
direction, its name, its sequence (RoCE's PSN and destination QP,
iWARP's DDP header) and the header fields that matter.

--peer names a side: its lane name (client, server, sender, ...), its IPv4
address and the file holding what its program printed.  The first one is
drawn on the left.  --rows writes one line per packet of tab-separated
KEY=VALUE fields, for tests to match against.  --msc writes an mscgen
chart: both programs and both NICs as lanes, one arrow per packet, and the
posts and completions of each program's -v trace ([verbs] lines) as
arrows between a program and its NIC.

Exit status 0, or 1 when the capture holds no RoCE or iWARP packet at all.
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
# iWARP: MPA frames (the request and reply that open the connection, then
# one FPDU per DDP segment), DDP's tagged or untagged header, RDMAP's
# opcode and a READ request's header.  A TCP segment may carry several
# FPDUs, so each of these is read with all its values.
IWARP_FIELDS = [
    "tcp.payload", "tcp.flags.ack", "tcp.analysis.retransmission",
    "iwarp_mpa.key.req", "iwarp_mpa.key.rep", "iwarp_mpa.rev",
    "iwarp_mpa.crc_flag", "iwarp_mpa.marker_flag", "iwarp_mpa.rej_flag",
    "iwarp_mpa.pdlength", "iwarp_mpa.ulpdulength", "iwarp_rdma.opcode",
    "iwarp_ddp.tagged_flag", "iwarp_ddp.last_flag", "iwarp_ddp.stag",
    "iwarp_ddp.tagged_offset", "iwarp_ddp.qn", "iwarp_ddp.msn",
    "iwarp_ddp.mo", "iwarp_rdma.sinkstag", "iwarp_rdma.sinkto",
    "iwarp_rdma.rdmardsz", "iwarp_rdma.srcstag", "iwarp_rdma.srcto",
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
# RDMAP opcodes (RFC 5040, 4.1 and 4.8).
RDMAP_OPCODES = {0: "RDMA Write", 1: "RDMA Read Request",
                 2: "RDMA Read Response", 3: "Send", 4: "Send with Invalidate",
                 5: "Send with Solicited Event",
                 6: "Send with Solicited Event and Invalidate",
                 7: "Terminate"}
RDMAP_READ_REQUEST, RDMAP_READ_RESPONSE, RDMAP_TERMINATE = 1, 2, 7
RDMAP_SENDS = {3, 4, 5, 6}
# Bytes after an FPDU's 2-byte MPA length before its data (RFC 5041,
# 5.1 and 5.2; RFC 5040, 4.4): the tagged and untagged DDP headers with
# RDMAP's control byte, and a READ request's sink and source fields.
DDP_TAGGED_HEADER, DDP_UNTAGGED_HEADER, READ_REQUEST_HEADER = 14, 18, 28
MPA_LENGTH, MPA_CRC = 2, 4
CM_ATTRIBUTES = {0x10: "ConnectRequest", 0x11: "MsgRcptAck",
                 0x12: "ConnectReject", 0x13: "ConnectReply",
                 0x14: "ReadyToUse", 0x15: "DisconnectRequest",
                 0x16: "DisconnectReply", 0x17: "SIDRRequest",
                 0x18: "SIDRReply"}


def run_tshark(pcap):
    cmd = ["tshark", "-n", "-r", pcap, "--disable-protocol", "rpcordma",
           "-T", "fields", "-E", "separator=\t", "-E", "occurrence=a",
           "-E", "aggregator=,"]
    for field in FIELDS + IWARP_FIELDS:
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
        values += [""] * (len(FIELDS) + len(IWARP_FIELDS) - len(values))
        # The first value of each RoCE field; every value of an iWARP one.
        frame = {k: v.split(",")[0] for k, v in zip(FIELDS, values)}
        for k, v in zip(IWARP_FIELDS, values[len(FIELDS):]):
            frame[k] = v.split(",") if v else []
        frames.append(frame)
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
        # What the chart needs to know of any packet, RoCE or iWARP.
        self.answer = self.op in ANSWERS
        self.starts = self.op in STARTS
        self.ends = self.op in ENDS
        self.consumes = self.op in CONSUMES_RECEIVE
        self.acknowledges = self.op in (17, 18)
        self.refuses = self.keys.get("aeth") in ("RNR NAK", "NAK")

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


def connection(frame):
    """A TCP connection's two ends, the same in both directions."""
    return tuple(sorted([(frame["ip.src"], frame["tcp.srcport"]),
                         (frame["ip.dst"], frame["tcp.dstport"])]))


def fpdu_data(frame, index, header):
    """The text at the start of the data of FPDU INDEX of FRAME's
    segment, DDP and RDMAP headers (HEADER bytes) skipped."""
    lengths = [int(n) for n in frame["iwarp_mpa.ulpdulength"]]
    payload = frame["tcp.payload"]
    if len(lengths) <= index or not payload:
        return ""
    raw = bytes.fromhex(payload[0].replace(":", ""))
    start = 0
    for n in lengths[:index]:
        # Each FPDU: its length, the ULPDU, padding to 4 bytes, the CRC.
        start += MPA_LENGTH + n + (-(MPA_LENGTH + n) % 4) + MPA_CRC
    data = raw[start + MPA_LENGTH + header:start + MPA_LENGTH + lengths[index]]
    data = data.split(b"\0", 1)[0][:40]
    if not data or any(b < 0x20 or b > 0x7e for b in data):
        return ""
    return data.decode("ascii")


class IwarpPacket:
    """One iWARP message segment (an FPDU): its RDMAP opcode, its DDP
    header (tagged: the STag and offset it lands at; untagged: the queue,
    message number and offset) and its length."""

    def __init__(self, frame, index, names, port):
        f = frame
        self.frame = int(f["frame.number"])
        self.src = who(names, f["ip.src"])
        self.dst = who(names, f["ip.dst"])
        self.port = port
        self.transport = "iWARP"
        self.opcode = int(f["iwarp_rdma.opcode"][index], 16)
        self.tagged = f["iwarp_ddp.tagged_flag"][index] == "1"
        self.last = f["iwarp_ddp.last_flag"][index] == "1"
        # The tagged and the untagged fields, each in FPDU order.
        before = f["iwarp_ddp.tagged_flag"][:index]
        tagged_n = before.count("1")
        untagged_n = len(before) - tagged_n
        self.keys = {}
        if self.tagged:
            self.keys.update(stag=hex(int(f["iwarp_ddp.stag"][tagged_n], 16)),
                             to=hex(int(f["iwarp_ddp.tagged_offset"][tagged_n], 16)))
            header = DDP_TAGGED_HEADER
        else:
            self.keys.update(qn=f["iwarp_ddp.qn"][untagged_n],
                             msn=f["iwarp_ddp.msn"][untagged_n],
                             mo=f["iwarp_ddp.mo"][untagged_n])
            header = DDP_UNTAGGED_HEADER
        if self.opcode == RDMAP_READ_REQUEST:
            n = f["iwarp_rdma.opcode"][:index].count(
                f"0x{RDMAP_READ_REQUEST:02x}")
            self.keys.update(
                sink_stag=hex(int(f["iwarp_rdma.sinkstag"][n], 16)),
                sink_to=hex(int(f["iwarp_rdma.sinkto"][n], 16)),
                size=f["iwarp_rdma.rdmardsz"][n],
                src_stag=hex(int(f["iwarp_rdma.srcstag"][n], 16)),
                src_to=hex(int(f["iwarp_rdma.srcto"][n], 16)))
            header += READ_REQUEST_HEADER
        else:
            length = int(f["iwarp_mpa.ulpdulength"][index]) - header
            self.keys.update(len=str(length))
        if not self.last:
            self.keys.update(last="no")
        text = fpdu_data(f, index, header) if self.opcode in (
            0, RDMAP_READ_RESPONSE) or self.opcode in RDMAP_SENDS else ""
        if text:
            self.keys.update(payload=text)
        if f["tcp.analysis.retransmission"]:
            self.keys.update(again="yes")
        self.name = "iWARP " + RDMAP_OPCODES.get(self.opcode,
                                                 f"opcode {self.opcode}")
        self.answer = self.opcode == RDMAP_READ_RESPONSE
        self.starts = self.tagged or self.keys.get("mo") == "0"
        self.ends = self.last
        self.consumes = self.opcode in RDMAP_SENDS
        self.acknowledges = False
        self.refuses = self.opcode == RDMAP_TERMINATE

    def row(self):
        cells = [f"frame={self.frame}", f"from={self.src}", f"to={self.dst}",
                 f"name={self.name}", f"port={self.port}"]
        cells += [f"{k}={v}" for k, v in self.keys.items()]
        return "\t".join(cells)

    def ddp_text(self):
        k = self.keys
        if self.tagged:
            return f"STag {k['stag']} TO {k['to']}"
        return f"QN {k['qn']} MSN {k['msn']} MO {k['mo']}"

    def fields_text(self):
        k = self.keys
        parts = []
        if "size" in k:
            parts.append(f"read {k['size']} bytes from STag {k['src_stag']} "
                         f"TO {k['src_to']} into STag {k['sink_stag']} "
                         f"TO {k['sink_to']}")
        if "len" in k:
            parts.append(f"len {k['len']}")
        if k.get("last") == "no":
            parts.append("more segments follow")
        if "payload" in k:
            parts.append(f"'{k['payload']}'")
        if "again" in k:
            parts.append("sent again (TCP)")
        return ", ".join(parts)


def mpa_text(frame):
    """An MPA request's or reply's name and what it negotiates."""
    f = frame
    kind = "Request" if f["iwarp_mpa.key.req"] else "Reply"
    flag = {"1": "yes", "0": "no"}
    text = (f"MPA {kind}: revision {f['iwarp_mpa.rev'][0]}, "
            f"CRC {flag.get(f['iwarp_mpa.crc_flag'][0], '?')}, "
            f"markers {flag.get(f['iwarp_mpa.marker_flag'][0], '?')}, "
            f"private data {f['iwarp_mpa.pdlength'][0]} bytes")
    if f["iwarp_mpa.rej_flag"] and f["iwarp_mpa.rej_flag"][0] == "1":
        text += ", rejected"
    return text


def handshake_text(frame):
    flags = ["SYN"] if frame["tcp.flags.syn"] == "1" else []
    if frame["tcp.flags.ack"] and frame["tcp.flags.ack"][0] == "1":
        flags.append("ACK")
    return "TCP " + ", ".join(flags)


def cm_name(frame):
    attr = number(frame["infiniband.mad.attributeid"])
    return "CM " + CM_ATTRIBUTES.get(attr, f"MAD attribute {attr}") \
        if attr is not None else "MAD"


def split_frames(frames, names):
    """Lesson packets, the CM's MADs, iWARP's handshakes and MPA frames,
    in capture order, and apart the TCP segments of other connections.
    A request sent again with a PSN already seen is marked again=yes.
    Also, for each iWARP connection, its server's port and the number of
    its segments that carry no MPA frame and open nothing (acks, close)."""
    chart, tcp, seen = [], [], set()
    iwarp = {}
    for f in frames:
        if f["tcp.srcport"] and (f["iwarp_rdma.opcode"]
                                 or f["iwarp_mpa.key.req"]
                                 or f["iwarp_mpa.key.rep"]):
            iwarp.setdefault(connection(f), {"port": None, "other": 0})
    for f in frames:
        if f["tcp.srcport"] and f["tcp.flags.syn"] == "1" \
                and connection(f) in iwarp \
                and f["tcp.flags.ack"] == ["0"]:
            iwarp[connection(f)]["port"] = f["tcp.dstport"]
    for conn in iwarp.values():
        if conn["port"] is None:
            conn["port"] = "?"
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
        elif f["tcp.srcport"] and connection(f) in iwarp:
            conn = iwarp[connection(f)]
            if f["iwarp_rdma.opcode"]:
                for i in range(len(f["iwarp_rdma.opcode"])):
                    chart.append(("packet", IwarpPacket(f, i, names,
                                                        conn["port"])))
            elif f["iwarp_mpa.key.req"] or f["iwarp_mpa.key.rep"]:
                chart.append(("mpa", f))
            elif f["tcp.flags.syn"] == "1" or (
                    chart and chart[-1][0] == "tcp"
                    and connection(chart[-1][1]) == connection(f)
                    and chart[-1][1]["tcp.flags.syn"] == "1"
                    and f["tcp.len"] == "0"):
                # The SYN, the SYN-ACK and the ACK that follows them.
                chart.append(("tcp", f))
            else:
                conn["other"] += 1
        elif f["tcp.srcport"]:
            tcp.append(f)
    return chart, tcp, iwarp


def describe_tcp(tcp, names):
    """The TCP segments of each port (the lower of a segment's two), and
    the sizes of the data they carried."""
    lines = []
    ports = sorted({min(int(f["tcp.srcport"]), int(f["tcp.dstport"]))
                    for f in tcp})
    for port in ports:
        segments = [f for f in tcp if port in (int(f["tcp.srcport"]),
                                               int(f["tcp.dstport"]))]
        sizes = {}
        for f in segments:
            n = int(f["tcp.len"] or 0)
            if n:
                key = (names.get(f["ip.src"], f["ip.src"]), n)
                sizes[key] = sizes.get(key, 0) + 1
        lines.append(f"TCP port {port}: {len(segments)} segments (handshake, "
                     "data, acks, close); the data:")
        for (side, n), count in sorted(sizes.items()):
            what = {57: "QP info", 17: "operations", 1: "syncs"}.get(n, "")
            lines.append(f"  {side}: {count} x {n} byte{'s' if n > 1 else ''}"
                         + (f" ({what})" if what else ""))
    return lines


def describe_iwarp(chart, iwarp, names):
    """Each iWARP connection: its TCP handshake and MPA frames by frame."""
    lines = []
    for conn, info in iwarp.items():
        lines.append(f"iWARP on TCP port {info['port']}: the connection "
                     "opens, then MPA negotiates, before any RDMAP message:")
        for kind, f in chart:
            if kind in ("tcp", "mpa") and connection(f) == conn:
                src = names.get(f["ip.src"], f["ip.src"])
                dst = names.get(f["ip.dst"], f["ip.dst"])
                what = handshake_text(f) if kind == "tcp" else mpa_text(f)
                lines.append(f"  frame {f['frame.number']:>4}  {src} -> "
                             f"{dst}  {what}")
        lines.append(f"  and {info['other']} TCP segments with no RDMAP "
                     "message (acks, close)")
    return lines


def print_table(chart, tcp, iwarp, names):
    print("--- set-up, apart from the lesson ---")
    if not tcp and not iwarp and not any(kind == "mad" for kind, _ in chart):
        print("none")
    for line in describe_tcp(tcp, names) + describe_iwarp(chart, iwarp, names):
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
    roce = [p for p in packets if p.transport != "iWARP"]
    if roce or not packets:
        print(f"{'frame':>5}  {'direction':<{width}}  {'packet':<33} "
              f"{'PSN':<8}  {'dest QP':<8}  fields")
        for p in roce:
            print(f"{p.frame:>5}  {p.src + ' -> ' + p.dst:<{width}}  "
                  f"{p.name:<33} 0x{p.psn:06x}  0x{p.destqp:06x}  "
                  f"{p.fields_text()}")
    iw = [p for p in packets if p.transport == "iWARP"]
    if iw:
        name_w = max(len(p.name) for p in iw)
        ddp_w = max(len(p.ddp_text()) for p in iw)
        print(f"{'frame':>5}  {'direction':<{width}}  {'message':<{name_w}}  "
              f"{'DDP header':<{ddp_w}}  fields")
        for p in iw:
            print(f"{p.frame:>5}  {p.src + ' -> ' + p.dst:<{width}}  "
                  f"{p.name:<{name_w}}  {p.ddp_text():<{ddp_w}}  "
                  f"{p.fields_text()}")


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
    index of its first and last packet, its first PSN, whether it ended
    with a message that takes a receive, the indexes of the peer's packets
    that answered it, and whether one of those was no NAK.  A request
    sent again starts no message."""
    out, seen, current = [], set(), None
    for i, (kind, p) in enumerate(chart):
        if kind != "packet" or p.src != side or p.answer:
            continue
        if p.transport == "iWARP" and "again" in p.keys:
            continue
        if p.starts:
            key = (p.destqp, p.psn) if p.transport != "iWARP" else None
            if key is not None and key in seen:
                current = None
                continue
            seen.add(key)
            current = {"first": i, "last": i, "psn": getattr(p, "psn", None),
                       "consumes": p.consumes, "answers": [], "ack": False,
                       "read": p.transport == "iWARP"
                       and p.opcode == RDMAP_READ_REQUEST}
            out.append(current)
        elif current:
            current["last"], current["consumes"] = i, p.consumes
    if chart_is_iwarp(chart):
        answer_reads(chart, side, out)
        return out
    # A message's answers: the peer's packets with a PSN from its first up
    # to the next message's (a READ's responses, an RNR NAK for each try).
    for n, m in enumerate(out):
        upper = out[n + 1]["psn"] if n + 1 < len(out) else None
        for i, (kind, p) in enumerate(chart):
            if kind == "packet" and p.src != side and p.answer \
                    and i > m["first"] and p.psn >= m["psn"] \
                    and (upper is None or p.psn < upper):
                m["answers"].append(i)
                if not p.refuses:
                    m["ack"] = True
    return out


def chart_is_iwarp(chart):
    return any(kind == "packet" and p.transport == "iWARP"
               for kind, p in chart)


def answer_reads(chart, side, out):
    """iWARP acknowledges nothing itself (TCP does): the only answers are
    READ responses, in the order of the READ requests they answer."""
    responses, current = [], []
    for i, (kind, p) in enumerate(chart):
        if kind == "packet" and p.src != side and p.answer \
                and "again" not in p.keys:
            current.append(i)
            if p.ends:
                responses.append(current)
                current = []
    reads = iter(responses)
    for m in out:
        if m["read"]:
            m["answers"] = next(reads, [])
            m["ack"] = bool(m["answers"])


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
                    if m["consumes"]
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
    if p.transport == "iWARP":
        label = msc_label(f"{p.name}, {p.ddp_text()}")
    else:
        label = msc_label(f"{p.name} PSN 0x{p.psn:06x}")
    fields = msc_label(p.fields_text())
    if p.transport == "iWARP":
        # A READ request's source and sink, one line each.
        fields = fields.replace(" into ", "\\ninto ")
    if fields:
        label += "\\n" + fields
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
        if kind in ("mad", "tcp", "mpa"):
            src = names.get(item["ip.src"], item["ip.src"])
            dst = names.get(item["ip.dst"], item["ip.dst"])
            label = {"mad": cm_name, "tcp": handshake_text,
                     "mpa": mpa_text}[kind](item)
            if src in lane and dst in lane:
                lines.append(f"  {lane[src][1]} => {lane[dst][1]} [label=\"{msc_label(label)}\", "
                             "linecolour=\"grey\", textcolour=\"grey\"];")
        elif kind == "packet":
            # A multicast group is drawn as the other NIC.
            src = lane[item.src][1] if item.src in lane else "n0"
            if item.dst in lane:
                dst = lane[item.dst][1]
            else:
                dst = "n1" if src == "n0" else "n0"
            if item.refuses:
                style = ', linecolour="red", textcolour="red"'
            else:
                style = ""
            arrow = ">>" if item.acknowledges else "=>"
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
    chart, tcp, iwarp = split_frames(run_tshark(args.pcap), names)
    print_table(chart, tcp, iwarp, names)
    if args.rows:
        with open(args.rows, "w", encoding="utf-8") as out:
            for kind, item in chart:
                if kind == "packet":
                    out.write(item.row() + "\n")
                elif kind in ("tcp", "mpa"):
                    src = names.get(item["ip.src"], item["ip.src"])
                    dst = names.get(item["ip.dst"], item["ip.dst"])
                    what = handshake_text(item) if kind == "tcp" \
                        else mpa_text(item).split(":")[0]
                    out.write(f"frame={item['frame.number']}\tfrom={src}\t"
                              f"to={dst}\tname={what}\t"
                              f"port={iwarp[connection(item)]['port']}\n")
                else:
                    src = names.get(item["ip.src"], item["ip.src"])
                    dst = names.get(item["ip.dst"], item["ip.dst"])
                    out.write(f"frame={item['frame.number']}\tfrom={src}\t"
                              f"to={dst}\tname={cm_name(item)}\tdestqp=0x000001\n")
    if args.msc:
        write_msc(args.msc, chart, peers, names)
    if not any(kind == "packet" or kind == "mad" for kind, _ in chart):
        print(f"wire.py: no RoCE or iWARP packet in {args.pcap}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
