#!/usr/bin/env python3
"""The Ethernet switch that joins three guests or more on one link.

rxe-vm start --guests N (N >= 3) runs it on the host, before the guests.
Each guest's QEMU connects its eth0 to the one Unix stream socket this
switch listens on (QEMU's stream netdev, server=off), and sends and
receives its frames there, each one after its length as a 4-byte
big-endian number.  The switch learns which guest has which source MAC
and sends a frame to the guest its destination MAC belongs to; it floods
a broadcast, a multicast, or a frame for a MAC it has not seen yet.

Nothing is dropped, as on the two guests' stream link: the switch reads
every guest's frames as soon as they come, and keeps what a guest's QEMU
has not taken yet (its guest has no receive buffer free) until it does.
It never stops reading from a guest: QEMU 7.2's stream netdev can stop
sending for good once its socket has been full (the guest's kernel then
says "transmit queue 0 timed out"), and a switch that pushed back on a
sender, as pause frames do, made that happen within a minute of
bidirectional traffic.  What waits is bounded by the traffic itself
(RoCE's and TCP's windows); a guest whose QEMU takes nothing at all is
cut off at MAX_QUEUED bytes, so that a dead one cannot eat the host's
memory.

Usage: switch.py SOCKET_PATH.  It runs until it is killed (rxe-vm stop).
"""

import asyncio
import os
import signal
import struct
import sys

# What may wait for one guest's QEMU before its frames are dropped: far
# more than any window of the traffic the rig carries.
MAX_QUEUED = 64 * 1024 * 1024


class Port(asyncio.Protocol):
    """One guest's connection: frames in, frames out."""

    def __init__(self, switch):
        self.switch = switch
        self.transport = None
        self.buf = bytearray()
        self.dropped = 0

    def connection_made(self, transport):
        self.transport = transport
        self.switch.ports.add(self)

    def connection_lost(self, exc):
        self.switch.forget(self)

    def send(self, record):
        if self.transport.get_write_buffer_size() > MAX_QUEUED:
            self.dropped += 1
            if self.dropped == 1:
                print(f"switch: a guest takes no frames, {MAX_QUEUED} bytes "
                      "wait for it: dropping what comes for it",
                      file=sys.stderr, flush=True)
            return
        self.transport.write(record)

    def data_received(self, data):
        self.buf += data
        while len(self.buf) >= 4:
            (size,) = struct.unpack_from("!I", self.buf)
            if len(self.buf) < 4 + size:
                break
            record = bytes(self.buf[: 4 + size])
            del self.buf[: 4 + size]
            for port in self.switch.forward(self, record[4:]):
                port.send(record)


class Switch:
    """The MAC table and the ports."""

    def __init__(self):
        self.ports = set()
        self.table = {}

    def forget(self, port):
        self.ports.discard(port)
        for mac in [m for m, p in self.table.items() if p is port]:
            del self.table[mac]

    def forward(self, source, frame):
        """The ports FRAME, sent by SOURCE, goes out of."""
        if len(frame) < 14:
            return []
        self.table[frame[6:12]] = source
        dest = frame[0:6]
        port = None if dest[0] & 1 else self.table.get(dest)
        if port is not None:
            return [] if port is source else [port]
        return [p for p in self.ports if p is not source]


async def serve(path):
    switch = Switch()
    loop = asyncio.get_running_loop()
    stop = loop.create_future()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set_result, None)
    server = await loop.create_unix_server(lambda: Port(switch), path)
    async with server:
        await stop


def main():
    if len(sys.argv) != 2:
        print("usage: switch.py SOCKET_PATH", file=sys.stderr)
        return 2
    path = sys.argv[1]
    if os.path.exists(path):
        os.unlink(path)
    asyncio.run(serve(path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
