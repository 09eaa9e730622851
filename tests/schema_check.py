#!/usr/bin/env python3
"""Check an ibscan JSON document against the schema documented in docs/json-schema.md.

Usage: schema_check.py VIEW FILE   (VIEW: topology, nodes, links, sm)
Every documented key must be present with the documented type (null where
allowed), and no undocumented key may appear. Exit 0 when it matches.
"""
import json
import re
import sys

GUID = "guid"   # "0x" + 16 hex digits
STR, INT, BOOL = "str", "int", "bool"


def opt(t):
    return ("null", t)


PEER = {"index": INT, "guid": GUID, "port": INT, "name": STR}
PORT = {
    "port": INT, "guid": opt(GUID), "lid": opt(INT), "lmc": opt(INT), "state": opt(STR),
    "phys_state": opt(STR), "width": opt(STR), "speed": opt(STR),
    "width_enabled": opt([STR]), "width_supported": opt([STR]),
    "speed_enabled": opt([STR]), "speed_supported": opt([STR]), "mtu": opt(INT), "mtu_cap": opt(INT),
    "capability_mask": opt(STR), "sm_lid": opt(INT), "guid_cap": opt(INT), "gid_prefix": opt(STR),
    "inferred": BOOL, "gids": [STR], "peer": opt(PEER), "error": opt(STR),
}
NODE = {
    "index": INT, "type": STR, "guid": GUID, "lid": opt(INT), "num_ports": INT, "name": STR,
    "description": opt(STR), "system_image_guid": GUID, "port_guid": GUID, "vendor_id": INT,
    "device_id": INT, "revision": INT, "dr_path": STR, "level": INT, "enhanced_port0": opt(BOOL),
    "lft_top": opt(INT), "error": opt(STR),
}
NODE_FULL = dict(NODE, ports=[PORT])
LINK = {"a": PEER, "b": PEER, "width": opt(STR), "speed": opt(STR), "state": opt(STR),
        "degraded": BOOL, "degraded_by": opt(STR)}
LOCAL = {"ca": STR, "port": INT, "node_guid": GUID, "port_guid": GUID, "lid": INT, "sm_lid": INT}
SUMMARY = {"nodes": INT, "switches": INT, "cas": INT, "routers": INT, "links": INT, "errors": INT}
SMREC = {"port_guid": GUID, "node_guid": GUID, "name": STR, "port": INT, "lid": INT, "state": opt(STR),
         "priority": opt(INT), "sm_guid": opt(GUID), "activity_count": opt(INT), "error": opt(STR)}
SM = {"master_lid": INT, "sms": [SMREC]}
ERROR = {"kind": STR, "dr_path": STR, "node_guid": opt(GUID), "node_name": opt(STR), "port": INT,
         "class": STR, "attribute": STR, "modifier": INT, "outcome": STR, "status": opt(STR),
         "status_text": opt(STR)}
TAIL = {"partial": BOOL, "abort_reason": opt(STR), "aborted_queries": INT, "errors": [ERROR]}

VIEWS = {
    "topology": dict({"schema": "ibscan.topology/1", "summary": SUMMARY, "local": LOCAL,
                      "nodes": [NODE_FULL], "links": [LINK], "sm": SM}, **TAIL),
    "nodes": dict({"schema": "ibscan.nodes/1", "summary": SUMMARY, "nodes": [NODE]}, **TAIL),
    "links": dict({"schema": "ibscan.links/1", "summary": SUMMARY, "links": [LINK]}, **TAIL),
    "sm": dict({"schema": "ibscan.sm/1", "local": LOCAL, "sm": SM}, **TAIL),
}


def check(v, t, path, errs):
    if isinstance(t, tuple):
        for alt in t:
            sub = []
            check(v, alt, path, sub)
            if not sub:
                return
        errs.append("%s: %r matches none of %s" % (path, v, t))
    elif t == "null":
        if v is not None:
            errs.append("%s: want null" % path)
    elif isinstance(t, list):
        if not isinstance(v, list):
            errs.append("%s: want an array" % path)
            return
        for i, x in enumerate(v):
            check(x, t[0], "%s[%d]" % (path, i), errs)
    elif isinstance(t, dict):
        if not isinstance(v, dict):
            errs.append("%s: want an object" % path)
            return
        for k, kt in t.items():
            if k not in v:
                errs.append("%s: missing key %r" % (path, k))
            else:
                check(v[k], kt, path + "." + k, errs)
        for k in v:
            if k not in t:
                errs.append("%s: undocumented key %r" % (path, k))
    elif t == STR:
        if not isinstance(v, str):
            errs.append("%s: want a string" % path)
    elif t == INT:
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            errs.append("%s: want a non-negative integer" % path)
    elif t == BOOL:
        if not isinstance(v, bool):
            errs.append("%s: want true/false" % path)
    elif t == GUID:
        if not isinstance(v, str) or not re.fullmatch(r"0x[0-9a-f]{16}", v):
            errs.append("%s: want a GUID string 0x%%016x, got %r" % (path, v))
    elif isinstance(t, str):  # a constant
        if v != t:
            errs.append("%s: want %r, got %r" % (path, t, v))


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in VIEWS:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[2]) as f:
        doc = json.load(f)
    errs = []
    check(doc, VIEWS[sys.argv[1]], "$", errs)
    for e in errs[:30]:
        print("schema: " + e, file=sys.stderr)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
