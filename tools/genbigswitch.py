#!/usr/bin/env python3
"""Write fixtures/fabrics/bigswitch41 and bigswitch129 (issue 24): switches above 36 ports.

Usage: tools/genbigswitch.py fixtures/fabrics
"""
import sys
def sw(out, guid, nports, nid, desc, lid, ports, devid="0xd2f0"):
    out.append(f"vendid=0x2c9\ndevid={devid}\nsysimgguid=0x{guid:x}\nswitchguid=0x{guid:x}(0x{guid:x})")
    out.append(f'Switch\t{nports} "{nid}"\t\t# "{desc}" base port 0 lid {lid} lmc 0')
    for p, rid, rp, rguid, rdesc, speed in ports:
        g = f"({rguid:x})" if rguid else ""
        out.append(f'[{p}]\t"{rid}"[{rp}]{g} \t\t# "{rdesc}" lid 0 {speed}')
    out.append("")
def ca(out, guid, nid, desc, swid, swp, swdesc, speed, devid="0x101b"):
    out.append(f"vendid=0x2c9\ndevid={devid}\nsysimgguid=0x{guid:x}\ncaguid=0x{guid:x}")
    out.append(f'Ca\t1 "{nid}"\t\t# "{desc}"')
    out.append(f'[1]({guid+1:x}) \t"{swid}"[{swp}]\t\t# lid 0 lmc 0 "{swdesc}" lid 0 {speed}')
    out.append("")

def fabric41():
    o = ["# bigswitch41: two 41-port Quantum (HDR) switches as real ones are: 40",
         "# external ports and the SHARP Aggregation Node, a CA, on port 41 (the",
         "# highest); hosts on ports 1-4 and 33-36; two inter-switch cables on ports",
         "# 37 and 38 (above 36); and on q1 a cable from port 39 to port 40 of the",
         "# same switch (seen on lab fabrics). Written for ibscan's tests (issue 24)",
         "# in ibsim's netfile format (see net.2sw2path4hca).",
         "#",
         "# nodes 20: 2 switches, 16 hosts, 2 Aggregation Nodes", "# links 21: 18 host, 2 switch-switch, 1 looped back to its own switch", ""]
    s = {1: 0x0002c90300e50001, 2: 0x0002c90300e50002}
    hosts = {}
    k = 0
    for i in (1, 2):
        hosts[i] = []
        for p in (1, 2, 3, 4, 33, 34, 35, 36):
            k += 1
            hosts[i].append((p, f"H-b{k:02d}", 0x0002c90300f50000 + 16 * k, f"b{k:02d} mlx5_0"))
    an = {i: 0x0002c90300f60000 + 16 * i for i in (1, 2)}
    for i in (1, 2):
        other = 3 - i
        ports = [(p, h, 1, g + 1, d, "4xEDR") for p, h, g, d in hosts[i]]
        ports += [(37, f"S-q{other}", 37, 0, f"MF0;q{other}:MQM8700/U1", "4xEDR"),
                  (38, f"S-q{other}", 38, 0, f"MF0;q{other}:MQM8700/U1", "4xEDR")]
        if i == 1:
            ports += [(39, "S-q1", 40, 0, "MF0;q1:MQM8700/U1", "4xEDR"),
                      (40, "S-q1", 39, 0, "MF0;q1:MQM8700/U1", "4xEDR")]
        ports.append((41, f"H-an{i}", 1, an[i] + 1, f"Mellanox Technologies Aggregation Node", "4xEDR"))
        sw(o, s[i], 41, f"S-q{i}", f"MF0;q{i}:MQM8700/U1", i, ports)
    for i in (1, 2):
        for p, h, g, d in hosts[i]:
            ca(o, g, h, d, f"S-q{i}", p, f"MF0;q{i}:MQM8700/U1", "4xEDR")
        ca(o, an[i], f"H-an{i}", "Mellanox Technologies Aggregation Node", f"S-q{i}", 41, f"MF0;q{i}:MQM8700/U1", "4xEDR", devid="0xcf09")
    return "\n".join(o)

def fabric129():
    o = ["# bigswitch129: a 129-port Quantum-2 (NDR, split ports) switch: hosts on",
         "# ports 1, 2, 63, 64, 65, 66, 100, 127 and 128, the Aggregation Node on",
         "# port 129, and a 41-port leaf on port 96 (its port 41) with two hosts.",
         "# Written for ibscan's tests (issue 24) in ibsim's netfile format.",
         "#",
         "# nodes 14: 2 switches, 11 hosts, 1 Aggregation Node", "# links 13: 12 host, 1 switch-switch", ""]
    big, leaf = 0x0002c90300e70001, 0x0002c90300e70002
    hp = [1, 2, 63, 64, 65, 66, 100, 127, 128]
    hosts = [(p, f"H-n{k+1:03d}", 0x0002c90300f70000 + 16 * (k + 1), f"n{k+1:03d} mlx5_0") for k, p in enumerate(hp)]
    lh = [(p, f"H-l{k+1:02d}", 0x0002c90300f80000 + 16 * (k + 1), f"l{k+1:02d} mlx5_0") for k, p in enumerate((1, 40))]
    an = 0x0002c90300f90010
    ports = [(p, h, 1, g + 1, d, "4xEDR") for p, h, g, d in hosts]
    ports.append((96, "S-leaf", 41, 0, "MF0;leaf:MQM8700/U1", "4xEDR"))
    ports.append((129, "H-an", 1, an + 1, "Mellanox Technologies Aggregation Node", "4xEDR"))
    ports.sort()
    sw(o, big, 129, "S-qm2", "MF0;qm2:MQM9790/U1", 1, ports, devid="0xd2f2")
    lports = [(p, h, 1, g + 1, d, "4xEDR") for p, h, g, d in lh] + [(41, "S-qm2", 96, 0, "MF0;qm2:MQM9790/U1", "4xEDR")]
    sw(o, leaf, 41, "S-leaf", "MF0;leaf:MQM8700/U1", 2, lports)
    for p, h, g, d in hosts:
        ca(o, g, h, d, "S-qm2", p, "MF0;qm2:MQM9790/U1", "4xEDR")
    for p, h, g, d in lh:
        ca(o, g, h, d, "S-leaf", p, "MF0;leaf:MQM8700/U1", "4xEDR")
    ca(o, an, "H-an", "Mellanox Technologies Aggregation Node", "S-qm2", 129, "MF0;qm2:MQM9790/U1", "4xEDR", devid="0xcf09")
    return "\n".join(o)

open(sys.argv[1] + "/bigswitch41", "w").write(fabric41())
open(sys.argv[1] + "/bigswitch129", "w").write(fabric129())
