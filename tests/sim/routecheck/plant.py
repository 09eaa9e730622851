#!/usr/bin/env python3
# Plant faults in dump_lfts output, for OpenSM's file routing engine (-R file -U):
#   hole  SWITCH LID          drop SWITCH's entry for LID
#   set   SWITCH LID PORT     SWITCH sends LID out of PORT
#   all   SWITCH PORT         every CA LID SWITCH sends to a switch port goes out of PORT
# SWITCH is the description dump_lfts prints in parentheses.
# Usage: plant.py IN OUT TOPO_JSON OP... (ops separated by ',')
import json, re, sys

src, dst, topo = sys.argv[1:4]
ops = [o.split() for o in " ".join(sys.argv[4:]).split(",") if o.strip()]
hosts = set()  # ports cabled to CAs, per switch description: left alone by 'all'
d = json.load(open(topo))
by_guid = {n["guid"]: n for n in d["nodes"]}
for n in d["nodes"]:
    if n["type"] != "switch":
        continue
    for p in n["ports"]:
        peer = p.get("peer")
        if peer and by_guid.get(peer["guid"], {}).get("type") != "switch":
            hosts.add((n["description"], p["port"]))
out, sw = [], None
for line in open(src):
    m = re.match(r"^Unicast lids .* \((.*)\):$", line.strip())
    if m:
        sw = m.group(1)
    m = re.match(r"^0x([0-9a-f]+) (\d+) :", line)
    if m and sw:
        lid, port = int(m.group(1), 16), int(m.group(2))
        drop = False
        for op in ops:
            if op[0] == "hole" and op[1] == sw and int(op[2]) == lid:
                drop = True
            elif op[0] == "set" and op[1] == sw and int(op[2]) == lid:
                port = int(op[3])
            elif op[0] == "all" and op[1] == sw and port and (sw, port) not in hosts and "Channel Adapter" in line:
                port = int(op[2])
        if drop:
            continue
        line = "0x%04x %03d :%s" % (lid, port, line.split(":", 1)[1])
    out.append(line)
open(dst, "w").writelines(out)
