#!/usr/bin/env python3
"""Generate inputs of a given size for the resource-bound test (t_bounds.sh).

Usage: genbound.py KIND N OUT

Each KIND is a file ibscan reads, built so that the work it asks for is as
large as its size allows: nodes declaring 254 ports and listing none, a
cable on every listed port, a capture whose every exchange is a new kind.
N scales the file linearly (N nodes, N exchanges, N lines). Same arguments,
same bytes.
"""

import json
import sys

GUID0 = 0x0002C90300000000


def netfile_ports(n, out):
    # The most nodes per byte: 254 ports declared, none listed.
    for i in range(n):
        out.write('Switch\t254 "S-%016x"\n' % (GUID0 + i))


def netfile_dup_guids(n, out):
    # Every switch with one NodeGUID (a factory default burnt into a batch, or a cloned
    # image): each a node of its own, all on one GUID's chain (issue 23 item 9).
    for i in range(n):
        out.write('Switch\t2 "S-%016x"\t# "sw%d"\n' % (GUID0 + 1, i))


def json_ports(n, out):
    out.write('{"schema":"ibscan.topology/1","nodes":[')
    for i in range(n):
        out.write('%s{"index":%d,"guid":"0x%016x","type":"switch","num_ports":254}'
                  % ("," if i else "", i, GUID0 + i))
    out.write("]}\n")


def netfile_links(n, out, a=1, b=2):
    # A chain of 2-port nodes: every node lists both cables, by peer id,
    # each node's port b cabled to the next one's port a.
    n = max(n, 2)
    for i in range(n):
        out.write('Ca\t2 "H-%016x"\n' % (GUID0 + i))
        if i:
            out.write('[%d]\t"H-%016x"[%d]\n' % (a, GUID0 + i - 1, b))
        if i + 1 < n:
            out.write('[%d]\t"H-%016x"[%d]\n' % (b, GUID0 + i + 1, a))


def netfile_links_moved(n, out):
    # The same chain with every cable on the other ports: a diff against
    # netfile-links finds every cable moved.
    netfile_links(n, out, 2, 1)


def json_links(n, out, a=1, b=2):
    n = max(n, 2)
    out.write('{"schema":"ibscan.topology/1","nodes":[')
    for i in range(n):
        ports = []
        if i:
            ports.append('{"port":%d,"state":"Active","peer":{"index":%d,"port":%d}}' % (a, i - 1, b))
        if i + 1 < n:
            ports.append('{"port":%d,"state":"Active","peer":{"index":%d,"port":%d}}' % (b, i + 1, a))
        out.write('%s{"index":%d,"guid":"0x%016x","type":"ca","num_ports":2,"ports":[%s]}'
                  % ("," if i else "", i, GUID0 + i, ",".join(ports)))
    out.write("]}\n")


def json_links_moved(n, out):
    json_links(n, out, 2, 1)


CAP_HEAD = (
    "ibscan-capture 1\n"
    "local ca=ibsim0 port=1 node_guid=0x0002c90300000001 port_guid=0x0002c90300000002"
    " system_image_guid=0x0002c90300000001 lid=1 sm_lid=1 lmc=0 state=4 node_type=1\n"
)


def capture_kinds(n, out):
    # Every exchange a distinct (class, attribute, method): LID-routed, so
    # any class; the shortest record the format allows.
    out.write(CAP_HEAD)
    for i in range(n):
        cls = 0x01 + (i % 0x7E)           # classes 0x01..0x7e (not 0x81, DR)
        attr = (i // 0x7E) & 0xFFFF
        method = 1 + (i // (0x7E * 0x10000)) % 0x7F
        out.write("x a b c mod=0 addr=lid:1\n> 01%02x01%02x000000000000000000000000%04x\n< none\n"
                  % (cls, method, attr))


def capture_resp(n, out):
    # Ordinary exchanges with full 256-byte answers (the bulk of a real capture).
    out.write(CAP_HEAD)
    resp = "0181018180000000000000000000000000110000" + "5a" * 236
    for i in range(n):
        out.write("x SMI Get NodeInfo mod=%d addr=lid:%d\n> 01010101000000000000000000000000001100000000%04x\n< resp %s\n"
                  % (i & 0xFFFF, 1 + i % 0xBFFF, i & 0xFFFF, resp))


def capture_small(n, out):
    # Many tiny exchanges: the most records per byte.
    out.write(CAP_HEAD)
    for i in range(n):
        out.write("x addr=lid:%d\n> 0101\n< resp \n" % (1 + i % 0xBFFF))


def namemap(n, out):
    for i in range(n):
        out.write("0x%016x n%d\n" % (GUID0 + i, i))


def thresholds(n, out):
    for i in range(n):
        out.write("SymbolErrorCounter=%d\n" % i)


def cache(n, out, ports_each=1):
    # An `ibnetdiscover --cache` file (libibnetdisc's format: little-endian
    # header, node records, then port records): a chain of 2-port CAs, each
    # storing its port 1 cabled to the previous node's port 2 and its port 2.
    # One system image GUID for all: libibnetdisc's chassis grouping takes
    # time in the square of the distinct ones (docs/reliability.md), which is
    # not what this measures.
    import struct
    n = max(n, 2)
    guid = lambda i: GUID0 + 0x1000 + i
    out = out.buffer
    out.write(struct.pack("<IIIIQI", 0x8FE7832B, 1, n, 2 * n, guid(0), 1))
    for i in range(n):
        info = struct.pack(">BBBBQQQHHIB", 1, 1, 1, 2, GUID0, guid(i), guid(i), 0, 0, 0, 1) + b"\0\0\x02\xc9"
        desc = (b"node%d" % i).ljust(64, b"\0")
        out.write(struct.pack("<HBB", 0, 0, 0) + bytes(64) + struct.pack("<QBB", guid(i), 2, 2))
        out.write(info.ljust(64, b"\0") + desc + bytes([2]))
        out.write(struct.pack("<QBQB", guid(i), 1, guid(i), 2))
    for i in range(n):
        for p, (peer, pp) in ((1, (i - 1, 2)), (2, (i + 1, 1))):
            linked = 0 <= peer < n
            out.write(struct.pack("<QBBHB", guid(i), p, p, 1 + i % 0xBFFF, 0) + bytes(64) +
                      struct.pack("<QBQB", guid(i), 1 if linked else 0, guid(peer) if linked else 0, pp if linked else 0))


def cache_ports(n, out):
    # Switches declaring 254 ports and storing none (one system image GUID).
    import struct
    guid = lambda i: GUID0 + 0x1000 + i
    out = out.buffer
    out.write(struct.pack("<IIIIQI", 0x8FE7832B, 1, n, 0, guid(0), 1))
    for i in range(n):
        info = struct.pack(">BBBBQQQHHIB", 1, 1, 2, 254, GUID0, guid(i), guid(i), 0, 0, 0, 0)
        out.write(struct.pack("<HBB", 0, 0, 0) + bytes(64) + struct.pack("<QBB", guid(i), 2, 254))
        out.write(info.ljust(64, b"\0") + bytes(64) + bytes([0]))


KINDS = {
    "netfile-ports": netfile_ports,
    "netfile-dup-guids": netfile_dup_guids,
    "json-ports": json_ports,
    "netfile-links": netfile_links,
    "netfile-links-moved": netfile_links_moved,
    "json-links": json_links,
    "json-links-moved": json_links_moved,
    "capture-kinds": capture_kinds,
    "capture-resp": capture_resp,
    "capture-small": capture_small,
    "cache": cache,
    "cache-ports": cache_ports,
    "namemap": namemap,
    "thresholds": thresholds,
}


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in KINDS:
        sys.exit("usage: genbound.py {%s} N OUT" % "|".join(sorted(KINDS)))
    with open(sys.argv[3], "w") as out:
        KINDS[sys.argv[1]](int(sys.argv[2]), out)


if __name__ == "__main__":
    main()
