#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""How far one guest's clock is from another's, for tests that compare an
event on one with an event on the other.

  clock_skew.py answer     on the peer: answer each probe with its clock
  clock_skew.py ask HOST   print HOST's clock less ours, in microseconds

The asker sends five probes over UDP and keeps the answer that came back
soonest: the peer read its clock halfway through that round trip, give or
take half of it.
"""
import socket
import sys
import time

PORT = 19999
PROBES = 5
WAIT_SEC = 30


def now_us():
    return time.time_ns() // 1000


def answer():
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("", PORT))
    sock.settimeout(WAIT_SEC)
    for _ in range(PROBES):
        data, peer = sock.recvfrom(64)
        sock.sendto(str(now_us()).encode(), peer)


def ask(host):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.settimeout(0.5)
    best = None
    deadline = time.monotonic() + WAIT_SEC
    done = 0
    while done < PROBES and time.monotonic() < deadline:
        sent = now_us()
        sock.sendto(b"t", (host, PORT))
        try:
            data, _ = sock.recvfrom(64)
        except socket.timeout:
            continue  # the peer is not listening yet
        back = now_us()
        done += 1
        rtt = back - sent
        if best is None or rtt < best[0]:
            best = (rtt, int(data) - (sent + back) // 2)
    if best is None:
        sys.exit("clock_skew.py: no answer from %s within %d s" % (host, WAIT_SEC))
    print(best[1])


if __name__ == "__main__":
    if sys.argv[1:2] == ["answer"]:
        answer()
    elif sys.argv[1:2] == ["ask"] and len(sys.argv) == 3:
        ask(sys.argv[2])
    else:
        sys.exit("usage: clock_skew.py answer | ask HOST")
