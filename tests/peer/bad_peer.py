#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A peer that speaks rdma_rc_example's QP-info protocol wrongly on purpose.

It plays the client (--connect HOST) or the server (--listen) of the TCP
exchange, reads the program's QP-info message first (so the program's own
send never fails), then misbehaves as --mode says. It answers in the
program's own terms: with the magic number the program sent
(rdma_rc_example's or rdma_lessons's), and with a list of operations
after the sync only to rdma_lessons, the program that sends one:

  close-mid    send the first 20 bytes of a message, then close
  short        send the header and half the body, then stay silent
  bad-magic    send a whole message whose magic number is wrong
  bad-version  send a whole message of the next version
  oversize     send a header announcing a 4096-byte body, and that body
  silent       send nothing and keep the connection open
  no-gid       send a valid message that says the peer uses no GID (no GRH)
  roce-v1      send a valid message whose GID is a RoCE v1 one
  fake-qp      send a valid message naming a QP that does not exist, answer
               the program's one-byte sync (and rdma_lessons's list of
               operations with the same list), then kill itself with
               SIGKILL: to the program this is a peer that died once the
               QPs were connected
  stuck-qp     the same as fake-qp, but then keep the connection open and
               say nothing: a peer that hangs once the QPs were connected
  bad-rkey     (--listen, --relay HOST:PORT) stand between a client and
               the real server at HOST:PORT: pass everything on, but the
               server's QP-info message with another rkey, so that the
               client's RDMA READ or WRITE is refused by the server's
               device (remote access error)

Wire layout (include/exchange.h), network byte order: magic u32, version
u16, body length u16, then the 49-byte body: address u64, length u32, rkey
u32, QP number u32, PSN u32, LID u16, GID 16 bytes, transport u8, flags u8,
MTU u8 (3 = 1024 bytes), max dest rd atomic u8, GID type u8 (2 = RoCE v2,
sent with the flag HAS_GID), SL u8, traffic class u8 (0 and 0, the
program's defaults).
"""
import os
import signal
import socket
import struct
import sys
import threading
import time

MAGIC = 0x52434558  # rdma_rc_example's, "RCEX"
LESSONS_MAGIC = 0x52434C58  # rdma_lessons's, "RCLX"
VERSION = 5
HEADER = struct.Struct("!IHH")
BODY = struct.Struct("!QIIIIH16sBBBBBBB")
WIRE_SIZE = HEADER.size + BODY.size  # 57
# After the sync that ends the connection, rdma_lessons sends its list of
# operations (src/ops/agree.c): a count u8, then 16 op ids u8.
# rdma_rc_example sends none: its operations are the manual's three.
OPS_LIST_SIZE = 17

# The MTU the peer claims, as enum ibv_mtu: rxe's default.
MTU_1024 = 3
# Flags: the peer uses a GID (a GRH), as every RoCE peer does.
HAS_GID = 1 << 4
# The GID's type, as enum ibv_gid_type; rxe's GIDs are all RoCE v2.
ROCE_V1, ROCE_V2 = 1, 2
# RDMA READs and atomics the peer takes in flight: the program's own value.
MAX_DEST_RD_ATOMIC = 1
# A QP number no QP in the guest has: 24 bits, far above what rxe hands out.
FAKE_QP_NUM = 0xABCDEF
# How long the peer stays connected at most: longer than any -t used.
SILENT_SEC = 60


def message(gid, magic=MAGIC, version=VERSION, body_len=BODY.size,
            gid_type=ROCE_V2):
    flags = HAS_GID if gid else 0
    body = BODY.pack(0x1000, 4096, 0x1234, FAKE_QP_NUM, 0, 0,
                     gid or bytes(16), 0, flags, MTU_1024,
                     MAX_DEST_RD_ATOMIC, gid_type if gid else 0, 0, 0)
    return HEADER.pack(magic, version, body_len) + body


def recv_exactly(sock, count):
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            sys.exit(f"bad_peer: the program closed after {len(data)} bytes")
        data += chunk
    return data


def linger(conn):
    """Stay connected, reading and dropping, until the program closes."""
    conn.settimeout(SILENT_SEC)
    try:
        while conn.recv(4096):
            pass
    except (socket.timeout, ConnectionResetError):
        pass


def open_connection(args):
    deadline = time.monotonic() + args.timeout
    if args.listen:
        server = socket.create_server(("", args.port), family=socket.AF_INET,
                                      reuse_port=False)
        server.settimeout(args.timeout)
        print(f"bad_peer: listening on port {args.port}", flush=True)
        conn, _ = server.accept()
        server.close()
        return conn
    while True:
        try:
            return socket.create_connection((args.connect, args.port),
                                            timeout=args.timeout)
        except ConnectionRefusedError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


MODES = ("close-mid", "short", "bad-magic", "bad-version", "oversize",
         "silent", "no-gid", "roce-v1", "fake-qp", "stuck-qp", "bad-rkey")
USAGE = ("usage: bad_peer.py (--connect HOST | --listen) --port PORT "
         "--mode MODE [--gid-ipv4 ADDR] [--relay HOST:PORT] [--timeout SEC]")
# Where the rkey sits in the message: header, then address u64, length u32.
RKEY_OFFSET = HEADER.size + 8 + 4
# What the relay changes in the rkey: its low byte, the key part of it, so
# that the index still names the region but the key no longer matches.
RKEY_FLIP = 0x5A


class Args:
    """The command line; argparse is not used: it doubles the start-up
    time under the guests' software CPU."""

    def __init__(self, argv):
        self.connect, self.listen, self.port, self.mode = None, False, 0, ""
        self.gid_ipv4, self.timeout = "192.0.2.1", 30.0
        self.relay = None
        i = 0
        while i < len(argv):
            opt = argv[i]
            if opt == "--listen":
                self.listen = True
                i += 1
                continue
            if i + 1 >= len(argv):
                sys.exit(USAGE)
            value = argv[i + 1]
            if opt == "--connect":
                self.connect = value
            elif opt == "--port":
                self.port = int(value)
            elif opt == "--mode" and value in MODES:
                self.mode = value
            elif opt == "--gid-ipv4":
                self.gid_ipv4 = value
            elif opt == "--timeout":
                self.timeout = float(value)
            elif opt == "--relay":
                host, _, port = value.rpartition(":")
                self.relay = (host, int(port))
            else:
                sys.exit(USAGE)
            i += 2
        if bool(self.connect) == self.listen or not self.port or not self.mode:
            sys.exit(USAGE)
        if (self.mode == "bad-rkey") != bool(self.relay) or \
                (self.relay and not self.listen):
            sys.exit(USAGE)


def pump(src, dst):
    """Copy src to dst until src closes, then close dst's sending side."""
    try:
        while True:
            data = src.recv(4096)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    try:
        dst.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def relay_bad_rkey(client, args):
    """The client's QP-info message as it is, the server's with a bad rkey,
    then every byte both ways until both sides have closed."""
    deadline = time.monotonic() + args.timeout
    while True:
        try:
            server = socket.create_connection(args.relay, timeout=args.timeout)
            break
        except ConnectionRefusedError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    server.settimeout(args.timeout)
    info = bytearray(recv_exactly(server, WIRE_SIZE))
    rkey, = struct.unpack_from("!I", info, RKEY_OFFSET)
    struct.pack_into("!I", info, RKEY_OFFSET, rkey ^ RKEY_FLIP)
    print(f"bad_peer: relaying, the server's rkey 0x{rkey:x} sent on as "
          f"0x{rkey ^ RKEY_FLIP:x}", flush=True)
    client.sendall(info)
    back = threading.Thread(target=pump, args=(client, server))
    back.start()
    pump(server, client)
    back.join()


def main():
    args = Args(sys.argv[1:])
    gid = socket.inet_pton(socket.AF_INET6, "::ffff:" + args.gid_ipv4)
    conn = open_connection(args)
    conn.settimeout(args.timeout)
    if args.mode == "bad-rkey":
        relay_bad_rkey(conn, args)
        return
    if args.mode == "silent":
        linger(conn)
        return
    # The program's magic number says which program it is: answer with
    # the same, so that only what the mode breaks is wrong.
    magic = HEADER.unpack_from(recv_exactly(conn, WIRE_SIZE))[0]
    if magic != LESSONS_MAGIC:
        magic = MAGIC
    good = message(gid, magic=magic)
    if args.mode == "close-mid":
        conn.sendall(good[:20])
        conn.close()
    elif args.mode == "short":
        conn.sendall(good[:HEADER.size + BODY.size // 2])
        linger(conn)
    elif args.mode == "bad-magic":
        conn.sendall(message(gid, magic=0xDEADBEEF))
    elif args.mode == "bad-version":
        conn.sendall(message(gid, magic=magic, version=VERSION + 1))
    elif args.mode == "no-gid":
        conn.sendall(message(None, magic=magic))
    elif args.mode == "roce-v1":
        conn.sendall(message(gid, magic=magic, gid_type=ROCE_V1))
    elif args.mode == "oversize":
        conn.sendall(message(gid, magic=magic, body_len=4096) +
                     bytes(4096 - BODY.size))
    elif args.mode in ("fake-qp", "stuck-qp"):
        conn.sendall(good)
        recv_exactly(conn, 1)  # the program's sync after RTS
        conn.sendall(b"Q")
        if magic == LESSONS_MAGIC:  # the same list of operations
            conn.sendall(recv_exactly(conn, OPS_LIST_SIZE))
        if args.mode == "stuck-qp":
            print("bad_peer: synced, now silent", flush=True)
        else:
            print("bad_peer: synced, now dying", flush=True)
            os.kill(os.getpid(), signal.SIGKILL)
    # Let the program read what was sent before the connection goes away.
    if args.mode != "close-mid":
        linger(conn)


if __name__ == "__main__":
    main()
