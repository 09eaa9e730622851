#!/usr/bin/env python3
"""Normalize `ibscan topology --json` output for comparison.

Reads ibscan's topology JSON (schema "ibscan.topology/1") from a file or
stdin and writes the same normalized form as ibnd2norm.py (see
tests/sim/ibnorm.py):

  node <node guid> <switch|ca|router> <num_ports> "<description>"
  port <node guid> <port> <port guid> <lid> <width> <speed>
  link <guid A> <port A> <guid B> <port B>

Choices that match what ibnetdiscover shows:
- only ports with a peer get a port line (port 0 of a switch never does);
- a switch port's GUID is the switch's port-0 GUID (port 0's "guid" if the
  JSON lists port 0, else the node GUID) and its LID the switch's LID (the
  node's "lid", else port 0's);
- links come from "links" (each once; ends ordered); if the document has no
  "links" array they are derived from the ports' "peer" objects.
Peers and link ends are resolved by "guid" when present, else by "index".

Usage: ibscan2norm.py [INPUT|-] [-o OUTPUT]
"""

import argparse
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ibnorm  # noqa: E402

SCHEMA = "ibscan.topology/1"


class FormatError(Exception):
    pass


def convert(doc, strict_schema=True):
    if not isinstance(doc, dict):
        raise FormatError("top level is not an object")
    schema = doc.get("schema")
    if strict_schema and schema != SCHEMA:
        raise FormatError("schema is %r, want %r" % (schema, SCHEMA))
    nodes = doc.get("nodes")
    if not isinstance(nodes, list):
        raise FormatError('no "nodes" array')

    topo = ibnorm.Topology()
    by_index = {}
    for i, n in enumerate(nodes):
        try:
            guid = ibnorm.parse_guid(n["guid"])
            ntype = n["type"]
            nports = n["num_ports"]
        except (KeyError, TypeError, ValueError) as e:
            raise FormatError("node %d: bad or missing field: %s" % (i, e))
        by_index[n.get("index", i)] = guid
        topo.add_node(guid, ntype, nports, n.get("description") or "")

    def end_guid(ref, what):
        if not isinstance(ref, dict):
            raise FormatError("%s is not an object" % what)
        if ref.get("guid") is not None:
            return ibnorm.parse_guid(ref["guid"])
        if ref.get("index") in by_index:
            return by_index[ref["index"]]
        raise FormatError("%s names no known node" % what)

    derived = []
    for n in nodes:
        guid = ibnorm.parse_guid(n["guid"])
        ports = n.get("ports") or []
        is_switch = n["type"] == "switch"
        port0 = next((p for p in ports if p.get("port") == 0), None)
        if is_switch:
            sw_pguid = guid
            if port0 is not None and port0.get("guid") is not None:
                sw_pguid = ibnorm.parse_guid(port0["guid"])
            sw_lid = n.get("lid")
            if sw_lid is None and port0 is not None:
                sw_lid = port0.get("lid")
        for p in ports:
            num = p.get("port")
            peer = p.get("peer")
            if num is None or not peer or (is_switch and num == 0):
                continue
            if is_switch:
                pguid, lid = sw_pguid, sw_lid
            else:
                pguid = ibnorm.parse_guid(p.get("guid"))
                lid = p.get("lid")
            topo.add_port(guid, num, pguid, lid, p.get("width"), p.get("speed"))
            derived.append((guid, num, end_guid(peer, "peer of %s port %s"
                                                % (n["guid"], num)),
                            peer.get("port")))

    links = doc.get("links")
    if isinstance(links, list):
        for i, link in enumerate(links):
            try:
                a, b = link["a"], link["b"]
                topo.add_link(end_guid(a, "links[%d].a" % i), a["port"],
                              end_guid(b, "links[%d].b" % i), b["port"])
            except (KeyError, TypeError) as e:
                raise FormatError("links[%d]: bad or missing field: %s" % (i, e))
    else:
        for g, p, rg, rp in derived:
            if rp is None:
                raise FormatError("peer of 0x%016x port %d has no port" % (g, p))
            topo.add_link(g, p, rg, rp)
    return topo


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Normalize ibscan topology JSON (see tests/sim/ibnorm.py).")
    ap.add_argument("input", nargs="?", default="-",
                    help="ibscan topology --json output (default stdin)")
    ap.add_argument("-o", "--output", default="-", help="output (default stdout)")
    ap.add_argument("--any-schema", action="store_true",
                    help='do not insist on "schema": "%s"' % SCHEMA)
    args = ap.parse_args(argv)
    try:
        with ibnorm.open_input(args.input) as f:
            doc = json.load(f)
        topo = convert(doc, strict_schema=not args.any_schema)
    except (OSError, ValueError, FormatError) as e:
        sys.stderr.write("ibscan2norm.py: %s\n" % e)
        return 2
    ibnorm.write_output(topo.render(), args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
