"""Shared normalized topology form for ibnd2norm.py and ibscan2norm.py.

One line per object, sorted (nodes, then ports, then links; by GUID and
port number as numbers):

  node <node guid> <switch|ca|router> <num_ports> "<description>"
  port <node guid> <port> <port guid or -> <lid> <width> <speed>
  link <guid A> <port A> <guid B> <port B>

GUIDs are written 0x%016x.  Only ports that have a peer get a port line.  A
switch port's GUID and LID are the switch's port-0 GUID and base LID (as
ibnetdiscover shows them).  Each link is written once, with (guid, port) of
end A lower than end B.  Both scripts build a Topology and call render(), so
their output cannot drift apart in form.
"""

import os
import re
import sys

TYPES = ("switch", "ca", "router")


def parse_guid(value):
    """Accept 0x-hex strings, bare hex strings and ints."""
    if isinstance(value, int):
        return value
    if value is None:
        return None
    s = str(value).strip()
    return int(s, 16)


def norm_width(value):
    if value is None:
        return "-"
    s = str(value).strip().lower()
    m = re.fullmatch(r"(\d+)x?", s)
    return m.group(1) + "x" if m else s


def norm_speed(value):
    if value is None:
        return "-"
    return str(value).strip().upper() or "-"


class Topology:
    def __init__(self):
        self.nodes = {}   # guid -> (type, num_ports, description)
        self.ports = {}   # (node guid, port) -> (port guid|None, lid, width, speed)
        self.links = set()  # ((guid, port), (guid, port)), ordered

    def add_node(self, guid, ntype, num_ports, desc):
        if ntype not in TYPES:
            raise ValueError("bad node type %r" % ntype)
        self.nodes[guid] = (ntype, int(num_ports), desc)

    def add_port(self, node_guid, port, port_guid, lid, width, speed):
        self.ports[(node_guid, int(port))] = (
            port_guid, lid, norm_width(width), norm_speed(speed))

    def add_link(self, guid_a, port_a, guid_b, port_b):
        a, b = (guid_a, int(port_a)), (guid_b, int(port_b))
        self.links.add((a, b) if a <= b else (b, a))

    def render(self):
        out = []
        for guid in sorted(self.nodes):
            ntype, nports, desc = self.nodes[guid]
            out.append('node 0x%016x %s %d "%s"' % (guid, ntype, nports, desc))
        for (guid, port) in sorted(self.ports):
            pguid, lid, width, speed = self.ports[(guid, port)]
            out.append("port 0x%016x %d %s %s %s %s" % (
                guid, port, "-" if pguid is None else "0x%016x" % pguid,
                "-" if lid is None else str(lid), width, speed))
        for (a, b) in sorted(self.links):
            out.append("link 0x%016x %d 0x%016x %d" % (a[0], a[1], b[0], b[1]))
        return "".join(line + "\n" for line in out)


def open_input(path):
    if path in (None, "-"):
        return sys.stdin
    return open(path, encoding="utf-8", errors="replace")


def write_output(text, path):
    if path in (None, "-"):
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except BrokenPipeError:
            # reader went away (e.g. `| head`): not worth a traceback
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(1)
    else:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
