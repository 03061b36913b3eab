"""Two PNG pictures side by side in one: what the typography rows write for a person to look at
(greedy and optimal lines of one paragraph). Reads the 8-bit RGB or RGBA, non-interlaced PNGs
the render plugin writes (PNG specification §7, §9: the five filter types), writes RGBA."""
import struct
import zlib


def _chunks(data):
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    at = 8
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        yield kind, data[at + 8:at + 8 + length]
        at += 12 + length


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


def decode(data):
    """(width, height, rows of RGBA bytes)."""
    header, compressed = None, b""
    for kind, body in _chunks(data):
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            compressed += body
    width, height, depth, color, _, _, interlace = header
    if depth != 8 or color not in (2, 6) or interlace:
        raise ValueError("only 8-bit RGB or RGBA, not interlaced")
    channels = 4 if color == 6 else 3
    raw = zlib.decompress(compressed)
    stride = width * channels
    rows, previous, at = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        at += 1 + stride
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            line[i] = (line[i] + (0, left, up, (left + up) // 2, _paeth(left, up, corner))[kind]) & 0xFF
        previous = line
        rows.append(line if channels == 4 else
                    bytearray(b"".join(bytes(line[i:i + 3]) + b"\xff" for i in range(0, stride, 3))))
    return width, height, rows


def encode(width, height, rows):
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    raw = b"".join(b"\x00" + bytes(row) for row in rows)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def side_by_side(left, right, gap=24):
    """The two PNGs next to each other, tops aligned, `gap` white pixels between them."""
    (lw, lh, lrows), (rw, rh, rrows) = decode(left), decode(right)
    height = max(lh, rh)
    white = lambda n: bytearray(b"\xff" * 4 * n)
    rows = []
    for y in range(height):
        a = lrows[y] if y < lh else white(lw)
        b = rrows[y] if y < rh else white(rw)
        rows.append(a + white(gap) + b)
    return encode(lw + gap + rw, height, rows)
