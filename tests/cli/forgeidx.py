#!/usr/bin/env python3
"""Forge a replay index as another user could (tests of issue 23, item 3).

forgeidx.py IDX CAPTURE -o OUT [--rename OLD NEW] [--no-seal]

Copies the index IDX (layout version 2 or 3, docs/capture-format.md) to
OUT with its capture identity set to CAPTURE's (size, inode, modification
time and, in version 3, the hash of a sample of its bytes), every OLD in
its answers replaced by NEW (of the same length: a node renamed), and the
checksum recomputed, unless --no-seal. Written from the documented layout
and core/capture/index.c, independently of ibscan: an index it forges is
believed by ibscan only if the layout, the checksum and the sample are as
documented.
"""
import argparse
import os
import struct
import sys

M = (1 << 64) - 1


def rotl(v, r):
    return ((v << r) | (v >> (64 - r))) & M


def mix(h, w):
    h ^= (rotl((w * 0xC2B2AE3D27D4EB4F) & M, 31) * 0x9E3779B97F4A7C15) & M
    return (rotl(h, 27) * 0x9E3779B97F4A7C15 + 0x85EBCA77C2B2AE63) & M


def final(h):
    h ^= h >> 33
    h = (h * 0xFF51AFD7ED558CCD) & M
    h ^= h >> 33
    h = (h * 0xC4CEB9FE1A85EC53) & M
    return h ^ (h >> 33)


def checksum(b):
    """index.c checksum(): four lanes over whole 8-byte words, then the length."""
    n = len(b)
    words = struct.unpack_from("<%dQ" % (n // 8), b)
    lanes = [0x6A09E667F3BCC908, 0xBB67AE8584CAA73B, 0x3C6EF372FE94F82B, 0xA54FF53A5F1D36F1]
    full = (n // 32) * 4
    for i in range(0, full, 4):
        for k in range(4):
            lanes[k] = mix(lanes[k], words[i + k])
    for i in range(full, n // 8):
        lanes[0] = mix(lanes[0], words[i])
    return final(lanes[0] ^ rotl(lanes[1], 15) ^ rotl(lanes[2], 31) ^ rotl(lanes[3], 47) ^ n)


def sample_hash(data):
    """index.c sample_hash(): 4 KiB blocks, all of them up to 64, else 64 spread evenly."""
    size, blk, nblk = len(data), 4096, 64
    h = 0x510E527FADE682D1
    n = min((size + blk - 1) // blk, nblk)
    for k in range(n):
        off = k * blk if size <= nblk * blk else (size - blk) * k // (nblk - 1)
        chunk = data[off : off + blk]
        padded = chunk + b"\0" * (-len(chunk) % 8)
        h = mix(h, off)
        h = mix(h, checksum(padded) ^ len(chunk))
    return final(h ^ size)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("idx")
    ap.add_argument("capture")
    ap.add_argument("-o", required=True)
    ap.add_argument("--rename", nargs=2, metavar=("OLD", "NEW"))
    ap.add_argument("--no-seal", action="store_true")
    a = ap.parse_args()
    img = bytearray(open(a.idx, "rb").read())
    if img[:8] != b"IBSCIDX\0":
        sys.exit("forgeidx: not an index")
    version = struct.unpack_from("<I", img, 8)[0]
    if version not in (2, 3):
        sys.exit("forgeidx: layout version %d unknown" % version)
    hdr = 128 if version == 2 else 136
    st = os.stat(a.capture)
    struct.pack_into("<QQqq", img, 32, st.st_size, st.st_ino, st.st_mtime_ns // 10**9, st.st_mtime_ns % 10**9)
    if version == 3:
        struct.pack_into("<Q", img, 64, sample_hash(open(a.capture, "rb").read()))
    if a.rename:
        old, new = (s.encode() for s in a.rename)
        if len(old) != len(new):
            sys.exit("forgeidx: --rename wants names of one length")
        x_off = struct.unpack_from("<Q", img, hdr - 48 + 16)[0]
        body = bytes(img[x_off:])
        if old not in body:
            sys.exit("forgeidx: %r is not in the index" % old)
        img[x_off:] = body.replace(old, new)
    if not a.no_seal:
        if version == 2:
            struct.pack_into("<Q", img, 24, checksum(bytes(img[hdr:])))
        else:
            struct.pack_into("<Q", img, 24, 0)
            head = checksum(bytes(img[:hdr]))
            struct.pack_into("<Q", img, 24, final(mix(head, checksum(bytes(img[hdr:])))))
    with open(a.o, "wb") as f:
        f.write(img)


if __name__ == "__main__":
    main()
