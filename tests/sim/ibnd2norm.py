#!/usr/bin/env python3
"""Normalize `ibnetdiscover` (default text output) for comparison.

Reads ibnetdiscover's topology output (a file, or stdin) and writes the
normalized form of tests/sim/ibnorm.py:

  node <node guid> <switch|ca|router> <num_ports> "<description>"
  port <node guid> <port> <port guid> <lid> <width> <speed>
  link <guid A> <port A> <guid B> <port B>

Only ports that ibnetdiscover lists (ports with a peer) get a port line.  A
switch port's GUID is the switch's port-0 GUID (the value in parentheses on
the `switchguid=` line) and its LID the switch's base LID (`base port 0 lid
N` on the Switch line).  The `-p` (ports) output is not accepted: it lacks
node GUIDs and port counts.

Usage: ibnd2norm.py [INPUT|-] [-o OUTPUT]
"""

import argparse
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ibnorm  # noqa: E402

NODE_RE = re.compile(
    r'^(?P<kind>Switch|Ca|Hca|Rt)\s+(?P<nports>\d+)\s+"(?P<id>[^"]*)"'
    r'(?:\s*#\s*"(?P<desc>.*)"(?P<rest>[^"]*))?\s*$')
PORT_RE = re.compile(
    r'^\[(?P<port>\d+)\](?:\[ext \d+\])?(?:\((?P<pguid>[0-9a-fA-F]+)\))?\s*'
    r'"(?P<rid>[^"]*)"\[(?P<rport>\d+)\](?:\[ext \d+\])?'
    r'(?:\s*\((?P<rpguid>[0-9a-fA-F]+)\))?\s*#\s*(?P<comment>.*)$')
SW_COMMENT_RE = re.compile(
    r'^"(?P<rdesc>.*)"\s+lid\s+(?P<rlid>\d+)\s+(?P<w>\d+x|\?\?)(?P<s>[A-Za-z0-9?]+)')
CA_COMMENT_RE = re.compile(
    r'^lid\s+(?P<lid>\d+)\s+lmc\s+(?P<lmc>\d+)\s+"(?P<rdesc>.*)"\s+'
    r'lid\s+(?P<rlid>\d+)\s+(?P<w>\d+x|\?\?)(?P<s>[A-Za-z0-9?]+)')
GUIDLINE_RE = re.compile(
    r'^(?P<what>switchguid|caguid|rtguid)=0x(?P<guid>[0-9a-fA-F]+)'
    r'(?:\((?P<pguid>[0-9a-fA-F]+)\))?')
ID_GUID_RE = re.compile(r'^[SHR?]-(?P<guid>[0-9a-fA-F]{1,16})$')
KIND = {"Switch": "switch", "Ca": "ca", "Hca": "ca", "Rt": "router"}


class ParseError(Exception):
    pass


def parse(lines):
    """Return (Topology, warnings)."""
    topo = ibnorm.Topology()
    warnings = []
    pending_guid = None      # (guid, port0 guid) from the last *guid= line
    cur = None               # current node: dict
    nodes_by_id = {}
    raw_ports = []           # (node, port, pguid, lid, width, speed, rid, rport)

    for lineno, line in enumerate(lines, 1):
        line = line.rstrip("\n")
        s = line.strip()
        if not s or s.startswith("#"):
            if not s:
                cur = None
            continue
        m = GUIDLINE_RE.match(s)
        if m:
            pending_guid = (int(m.group("guid"), 16),
                            int(m.group("pguid"), 16) if m.group("pguid") else None)
            continue
        m = NODE_RE.match(s)
        if m:
            guid = port0 = None
            if pending_guid:
                guid, port0 = pending_guid
            idm = ID_GUID_RE.match(m.group("id"))
            if guid is None:
                if not idm:
                    raise ParseError("line %d: no GUID for node %s"
                                     % (lineno, m.group("id")))
                guid = int(idm.group("guid"), 16)
            kind = KIND[m.group("kind")]
            lid = None
            rest = m.group("rest") or ""
            lm = re.search(r"\blid\s+(\d+)", rest)
            if lm:
                lid = int(lm.group(1))
            cur = {"id": m.group("id"), "guid": guid, "kind": kind,
                   "port0": port0 if port0 is not None else guid, "lid": lid}
            if m.group("id") in nodes_by_id:
                warnings.append("line %d: node id %s twice" % (lineno, m.group("id")))
            nodes_by_id[m.group("id")] = cur
            desc = m.group("desc") if m.group("desc") is not None else ""
            topo.add_node(guid, kind, int(m.group("nports")), desc)
            pending_guid = None
            continue
        if s.startswith("["):
            if cur is None:
                raise ParseError("line %d: port line outside a node" % lineno)
            m = PORT_RE.match(s)
            if not m:
                raise ParseError("line %d: cannot parse port line: %s" % (lineno, s))
            port = int(m.group("port"))
            comment = m.group("comment")
            if cur["kind"] == "switch":
                c = SW_COMMENT_RE.match(comment)
                if not c:
                    raise ParseError("line %d: cannot parse switch port comment: %s"
                                     % (lineno, comment))
                pguid, lid = cur["port0"], cur["lid"]
            else:
                c = CA_COMMENT_RE.match(comment)
                if not c:
                    raise ParseError("line %d: cannot parse CA port comment: %s"
                                     % (lineno, comment))
                if not m.group("pguid"):
                    raise ParseError("line %d: CA port without GUID" % lineno)
                pguid, lid = int(m.group("pguid"), 16), int(c.group("lid"))
            raw_ports.append((cur, port, pguid, lid, c.group("w"), c.group("s"),
                              m.group("rid"), int(m.group("rport"))))
            continue
        if re.match(r"^(vendid|devid|sysimgguid|Chassis|Hostname)\b", s):
            continue
        warnings.append("line %d: ignored: %s" % (lineno, s))

    for node, port, pguid, lid, width, speed, rid, rport in raw_ports:
        topo.add_port(node["guid"], port, pguid, lid, width, speed)
        peer = nodes_by_id.get(rid)
        if peer is None:
            idm = ID_GUID_RE.match(rid)
            if not idm:
                raise ParseError("unknown peer node %s" % rid)
            warnings.append("peer %s of %s[%d] has no node record"
                            % (rid, node["id"], port))
            rguid = int(idm.group("guid"), 16)
        else:
            rguid = peer["guid"]
        topo.add_link(node["guid"], port, rguid, rport)
    return topo, warnings


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Normalize ibnetdiscover output (see tests/sim/ibnorm.py).")
    ap.add_argument("input", nargs="?", default="-",
                    help="ibnetdiscover output file (default stdin)")
    ap.add_argument("-o", "--output", default="-", help="output (default stdout)")
    ap.add_argument("-q", "--quiet", action="store_true",
                    help="do not print parser warnings")
    args = ap.parse_args(argv)
    try:
        with ibnorm.open_input(args.input) as f:
            topo, warnings = parse(f)
    except (OSError, ParseError) as e:
        sys.stderr.write("ibnd2norm.py: %s\n" % e)
        return 2
    if not args.quiet:
        for w in warnings:
            sys.stderr.write("ibnd2norm.py: warning: %s\n" % w)
    if not topo.nodes:
        sys.stderr.write("ibnd2norm.py: no nodes in input\n")
        return 2
    ibnorm.write_output(topo.render(), args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
