#!/usr/bin/env python3
"""Check ibscan's JSON against the infiniband-diags reference tools.

  refcheck.py links TOPOLOGY.json IBLINKINFO.txt
      every port iblinkinfo prints (state, physical state, width, speed and
      the far end's LID and port) as ibscan's topology has it
  refcheck.py targets TOPOLOGY.json
      "LID PORT GUID" for every port with a peer: what perfquery is run on
  refcheck.py gid-targets TOPOLOGY.json
      "LID PORT GUID" for every port with a LID and a GID table
  refcheck.py counters BEFORE.json DIR AFTER.json
      DIR/LID.PORT (perfquery LID PORT) and DIR/LID.PORT.x (perfquery -x):
      every error counter equal to both ibscan readings (ibscan counters
      --json, one before and one after perfquery), every data counter
      between the two
  refcheck.py gids TOPOLOGY.json DIR
      DIR/LID.PORT.guidinfo (smpquery guidinfo) and DIR/LID.PORT.portinfo
      (smpquery portinfo): GUIDCap, and the GID table of ibscan --gids
      (prefix + each GUIDInfo entry that is set) for every port that has one

iblinkinfo's "(Could be ...)" suggestions are left out: under ibsim every
port claims widths up to 12x (docs/design.md). Exit 0 when all agree, 1
with the differences on stderr.
"""

import ipaddress
import json
import os
import re
import sys

SPEEDS = {"2.5": "SDR", "5.0": "DDR", "10.0": "QDR", "10.3125": "FDR10", "14.0625": "FDR",
          "25.78125": "EDR", "53.125": "HDR", "106.25": "NDR", "212.5": "XDR"}
LINE = re.compile(r"^\s*(?:(0x[0-9a-f]+)\s+)?(\d+)\s+(\d+)\[\s*\]\s+==\(\s*(.*?)\)==>\s*(\d+)?\s+(\d+)?\[")
# iblinkinfo names FDR10 after its rate, which is QDR's: "4X  10.0 Gbps (FDR10) Active/  LinkUp".
STATE = re.compile(r"^(?:(\d+)X\s+([\d.]+) Gbps\s+(?:\((\w+)\)\s+)?)?(\w+)/\s*(\w+)$")
errors = []


def bad(msg):
    errors.append(msg)


def g(s):
    return int(s, 16)


def topology(path):
    """(nodes by GUID, port by (node GUID, port), node GUID by port GUID, LID of each port)."""
    d = json.load(open(path))
    nodes, ports, owner, lid = {}, {}, {}, {}
    for n in d["nodes"]:
        ng = g(n["guid"])
        nodes[ng] = n
        for p in n["ports"]:
            ports[(ng, p["port"])] = p
            if p["guid"]:
                owner[g(p["guid"])] = ng
            lid[(ng, p["port"])] = n["lid"] if n["type"] == "switch" else p["lid"]
    return nodes, ports, owner, lid


def links(topo, text):
    nodes, ports, owner, lid = topology(topo)
    node, seen = None, 0
    for l in open(text):
        m = re.match(r"^Switch: (0x[0-9a-f]+) ", l)
        if m:
            node = g(m.group(1))
            continue
        if l.startswith("CA: "):
            node = None  # the port GUID on the next line says which
            continue
        m = LINE.match(l)
        if not m:
            continue
        pguid, llid, port, state, rlid, rport = m.groups()
        ng = owner.get(g(pguid)) if pguid else node
        key = (ng, int(port))
        p = ports.get(key)
        where = "0x%016x port %s (LID %s)" % (ng or 0, port, llid)
        if p is None:
            bad("%s: iblinkinfo shows it, ibscan has no such port" % where)
            continue
        seen += 1
        s = STATE.match(state.strip())
        if not s:
            bad("%s: cannot read iblinkinfo's state '%s'" % (where, state))
            continue
        width, speed, named, lstate, phys = s.groups()
        speed = named or SPEEDS.get(speed)
        if int(llid) != lid[key]:
            bad("%s: ibscan says LID %s" % (where, lid[key]))
        if (lstate, phys) != (p["state"], p["phys_state"]):
            bad("%s: iblinkinfo %s/%s, ibscan %s/%s" % (where, lstate, phys, p["state"], p["phys_state"]))
        if width and ("%sx" % width, speed) != (p["width"], p["speed"]):
            bad("%s: iblinkinfo %sX %s, ibscan %s %s" % (where, width, speed, p["width"], p["speed"]))
        peer = p["peer"]
        if rport:
            far = peer and (g(peer["guid"]), peer["port"])
            if not far or (lid.get(far), far[1]) != (int(rlid), int(rport)):
                bad("%s: iblinkinfo says linked to LID %s port %s, ibscan %s" % (where, rlid, rport, peer))
        elif peer:
            bad("%s: iblinkinfo says no peer, ibscan %s" % (where, peer))
    if not seen:
        bad("iblinkinfo printed no port")
    return seen


def targets(topo, gid_tables=False):
    nodes, ports, owner, lid = topology(topo)
    for (ng, port), p in sorted(ports.items()):
        if (p["gids"] and lid[(ng, port)]) if gid_tables else (p["peer"] and port):
            print(lid[(ng, port)], port, "0x%016x" % ng)


def perfquery(path):
    out = {}
    for l in open(path):
        m = re.match(r"^(\w+):\.+(\S+)$", l.strip())
        if m:
            out[m.group(1)] = int(m.group(2), 0)
    return out


def counters(before, qdir, after):
    def load(p):
        return {(g(c["guid"]), c["port"]): c for c in json.load(open(p))["ports_counters"]}
    b, a = load(before), load(after)
    n = 0
    for f in sorted(os.listdir(qdir)):
        m = re.match(r"^(\d+)\.(\d+)\.(0x[0-9a-f]+)$", f)
        if not m:
            continue
        lid, port, guid = int(m.group(1)), int(m.group(2)), g(m.group(3))
        where = "LID %d port %d" % (lid, port)
        pq, px = perfquery(os.path.join(qdir, f)), perfquery(os.path.join(qdir, f + ".x"))
        x, y = b.get((guid, port)), a.get((guid, port))
        if not x or not y or x["error"] or y["error"]:
            bad("%s: ibscan did not read it (%s, %s)" % (where, x and x["error"], y and y["error"]))
            continue
        n += 1
        for name, v in x["counters"].items():
            if name not in pq:
                bad("%s: perfquery has no %s" % (where, name))
            elif name == "PortXmitWait":
                if not x["counters"][name] <= pq[name] <= y["counters"][name]:
                    bad("%s: %s perfquery %d, ibscan %d then %d" % (where, name, pq[name], v, y["counters"][name]))
            elif not pq[name] == v == y["counters"][name]:
                bad("%s: %s perfquery %d, ibscan %d then %d" % (where, name, pq[name], v, y["counters"][name]))
        # Data counters grow with every MAD through the port: perfquery read between the two.
        for key, pname, scale in (("xmit_bytes", "PortXmitData", 4), ("rcv_bytes", "PortRcvData", 4),
                                  ("xmit_packets", "PortXmitPkts", 1), ("rcv_packets", "PortRcvPkts", 1)):
            v = px.get(pname, pq.get(pname)) * scale
            if not x[key] <= v <= y[key]:
                bad("%s: %s perfquery %d, ibscan %d then %d" % (where, key, v, x[key], y[key]))
    if not n:
        bad("no port compared")
    return n


def gids(topo, qdir):
    nodes, ports, owner, lid = topology(topo)
    n = 0
    for f in sorted(os.listdir(qdir)):
        m = re.match(r"^(\d+)\.(\d+)\.(0x[0-9a-f]+)\.guidinfo$", f)
        if not m:
            continue
        port, ng = int(m.group(2)), g(m.group(3))
        where = "0x%016x port %d" % (ng, port)
        p = ports[(ng, port)]
        cap = re.search(r"^GuidCap:\.+(\d+)$", open(os.path.join(qdir, f[:-9] + ".portinfo")).read(), re.M)
        if not cap or int(cap.group(1)) != p["guid_cap"]:
            bad("%s: smpquery GuidCap %s, ibscan %s" % (where, cap and cap.group(1), p["guid_cap"]))
        entries = {}
        for l in open(os.path.join(qdir, f)):
            m = re.match(r"^\s*(\d+): (0x[0-9a-f]+) (0x[0-9a-f]+)$", l)
            if m:
                entries[int(m.group(1))] = g(m.group(2))
                entries[int(m.group(1)) + 1] = g(m.group(3))
        prefix = g(p["gid_prefix"])
        want = [ipaddress.IPv6Address(prefix << 64 | v) for i, v in sorted(entries.items()) if v or i == 0]
        have = [ipaddress.IPv6Address(s) for s in p["gids"]]
        if want != have:
            bad("%s: smpquery GUIDInfo gives %s, ibscan --gids %s" % (where, want, have))
        n += 1
    if not n:
        bad("no GID table compared")
    return n


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    cmd, args = argv[1], argv[2:]
    if cmd in ("targets", "gid-targets"):
        targets(*args, gid_tables=cmd == "gid-targets")
        return 0
    n = {"links": links, "counters": counters, "gids": gids}[cmd](*args)
    for e in errors:
        print("refcheck %s: %s" % (cmd, e), file=sys.stderr)
    if not errors:
        print("%s: %d agree" % (cmd, n))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
