#!/usr/bin/env python3
"""How many pixels of each colour asked for a PNG has.

    png_colours.py FILE.png RRGGBB...

Prints "RRGGBB N" for each colour.  Reads what gnuplot's pngcairo
terminal writes (8-bit RGB or RGBA, not interlaced) with zlib alone, so
that the cluster check's test can look at the picture itself: a failed
pair's cell is a block of its colour, where a healthy run has none."""
import struct
import sys
import zlib


def pixels(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG file")
    pos, idat, head = 8, b"", None
    while pos < len(data):
        size, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + size]
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + size
    width, height, depth, colour, _, _, interlace = head
    if depth != 8 or colour not in (2, 6) or interlace:
        sys.exit(f"{path}: depth {depth}, colour type {colour}, interlace "
                 f"{interlace}: only 8-bit RGB(A), not interlaced, is read")
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    out = []
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xff
            elif kind == 2:
                line[i] = (line[i] + b) & 0xff
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xff
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 0xff
        out.extend(bytes(line[i:i + 3]).hex() for i in range(0, stride, bpp))
        prev = line
    return out


def main():
    seen = pixels(sys.argv[1])
    for want in sys.argv[2:]:
        print(want.lower(), seen.count(want.lower()))


if __name__ == "__main__":
    main()
