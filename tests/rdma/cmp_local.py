#!/usr/bin/env python3
"""Compare `ibscan local --json` with the reference tools, field by field.

Usage: cmp_local.py DIR
DIR holds what one guest printed at one moment:
  local.json   ibscan local --json
  local.txt    ibscan local (text)
  devinfo.txt  ibv_devinfo -v
  link.json    rdma link show -j
  gids.txt     the GID table as show_gids reads it from sysfs:
               "DEV PORT INDEX GID TYPE NDEV" for each non-zero entry
  addr.json    ip -j addr show
Prints one line per difference and exits 1 when there is one; else prints
what it compared and exits 0.
"""
import ipaddress
import json
import re
import sys

d = sys.argv[1]
bad = []
checked = 0


def same(what, got, want):
    global checked
    checked += 1
    if got != want:
        bad.append(f"{what}: ibscan {got!r}, reference {want!r}")


local = json.load(open(f"{d}/local.json"))
text = open(f"{d}/local.txt").read()
links = json.load(open(f"{d}/link.json"))
addrs = json.load(open(f"{d}/addr.json"))

# ibv_devinfo -v: per device its fields, per port its fields and GIDs.
dev = {}
cur = port = None
for line in open(f"{d}/devinfo.txt"):
    m = re.match(r"hca_id:\s+(\S+)", line)
    if m:
        cur = dev.setdefault(m.group(1), {"ports": {}})
        port = None
        continue
    m = re.match(r"\s+port:\s+(\d+)", line)
    if m and cur is not None:
        port = cur["ports"].setdefault(int(m.group(1)), {"gids": {}})
        continue
    m = re.match(r"\s+GID\[\s*(\d+)\]:\s+(\S+), (.+)", line)
    if m and port is not None:
        port["gids"][int(m.group(1))] = (m.group(2), m.group(3).strip())
        continue
    m = re.match(r"\s+(\w+):\s+(.*\S)?\s*$", line)
    if m and cur is not None:
        (port if port is not None else cur)[m.group(1)] = m.group(2) or ""


def guid(s):  # 5054:00ff:fe29:0001 -> 0x505400fffe290001
    return "0x" + s.replace(":", "")


def full(g):  # fe80::1 -> fe80:0000:...:0001, as sysfs and ibscan write GIDs
    return ipaddress.IPv6Address(g).exploded


def ipv4_of(g):
    a = ipaddress.IPv6Address(g).ipv4_mapped
    return str(a) if a else None


same("device names", sorted(x["name"] for x in local["devices"]), sorted(dev))
same("rdma link devices", sorted({l["ifname"] for l in links}), sorted(dev))
sysgids = {}
for line in open(f"{d}/gids.txt"):
    f = line.split()
    if len(f) >= 6:
        sysgids[(f[0], int(f[1]), int(f[2]))] = (f[3], " ".join(f[4:-1]), f[-1])
width = {"1X": "1x", "2X": "2x", "4X": "4x", "8X": "8x", "12X": "12x"}
states = {"PORT_ACTIVE": "ACTIVE", "PORT_DOWN": "DOWN", "PORT_INIT": "INIT", "PORT_ARMED": "ARMED"}
phys = {"LINK_UP": "LinkUp", "DISABLED": "Disabled", "POLLING": "Polling"}
for x in local["devices"]:
    n = x["name"]
    r = dev.get(n)
    if r is None:
        continue
    same(f"{n} node_guid", x["node_guid"], guid(r["node_guid"]))
    same(f"{n} system_image_guid", x["system_image_guid"], guid(r["sys_image_guid"]))
    same(f"{n} ports", sorted(p["port"] for p in x["ports"]), sorted(r["ports"]))
    for p in x["ports"]:
        rp = r["ports"].get(p["port"])
        if rp is None:
            continue
        w = f"{n} port {p['port']}"
        same(f"{w} state", p["state"], states.get(rp["state"].split()[0], rp["state"]))
        same(f"{w} phys_state", p["phys_state"], phys.get(rp["phys_state"].split()[0], rp["phys_state"]))
        same(f"{w} link_layer", p["link_layer"], rp["link_layer"])
        same(f"{w} lid", p["lid"], int(rp["port_lid"], 0))
        same(f"{w} sm_lid", p["sm_lid"], int(rp["sm_lid"], 0))
        same(f"{w} lmc", p["lmc"], int(rp["port_lmc"], 0))
        same(f"{w} width", p["width"], width[rp["active_width"].split()[0]])
        same(f"{w} rate_gbps", p["rate_gbps"], float(rp["active_speed"].split()[0]))
        rl = [l for l in links if l["ifname"] == n and l["port"] == p["port"]]
        if rl:
            same(f"{w} rdma link state", p["state"], rl[0]["state"])
            same(f"{w} rdma link physical_state", p["phys_state"],
                 {"LINK_UP": "LinkUp"}.get(rl[0]["physical_state"], rl[0]["physical_state"]))
        # The GID table: every entry ibv_devinfo and sysfs list, none more.
        got = {g["index"]: g for g in p["gids"]}
        same(f"{w} GID indices (ibv_devinfo)", sorted(got), sorted(rp["gids"]))
        same(f"{w} GID indices (sysfs)", sorted(got),
             sorted(i for (dn, pn, i) in sysgids if dn == n and pn == p["port"]))
        for i, (g, t) in rp["gids"].items():
            if i not in got:
                continue
            same(f"{w} GID[{i}]", got[i]["gid"], full(g))
            same(f"{w} GID[{i}] type", got[i]["type"], t)
            same(f"{w} GID[{i}] ipv4", got[i]["ipv4"], ipv4_of(g))
            s = sysgids.get((n, p["port"], i))
            if s:
                same(f"{w} GID[{i}] sysfs", got[i]["gid"], s[0])
                same(f"{w} GID[{i}] netdev", got[i]["netdev"], s[2])
            # The text view says the same as the JSON.
            line = [l for l in text.splitlines() if re.match(rf"\s+{i}\s+{got[i]['gid']}\s", l)]
            same(f"{w} GID[{i}] text line", len(line), 1)
            if line:
                same(f"{w} GID[{i}] text netdev", got[i]["netdev"] in line[0].split(), True)
        # The addresses: each IPv4/IPv6 address of the port's netdevs has its GID.
        ndevs = {g["netdev"] for g in p["gids"]}
        for a in addrs:
            if a["ifname"] not in ndevs and not (rl and a["ifname"] == rl[0].get("netdev")):
                continue
            for ai in a.get("addr_info", []):
                ip = ipaddress.ip_address(ai["local"])
                g = ipaddress.IPv6Address("::ffff:" + str(ip)) if ip.version == 4 else ip
                hits = [x for x in p["gids"] if x["gid"] == g.exploded and x["netdev"] == a["ifname"]
                        and x["type"] == "RoCE v2"]
                same(f"{w} RoCE v2 GID of {a['ifname']} {ip}", len(hits), 1)
        # ibscan ping's choice: the RoCE v2 GID of an IPv4 address.
        v4 = [g["index"] for g in p["gids"] if g["type"] == "RoCE v2" and g["ipv4"]]
        if p["link_layer"] == "Ethernet":
            same(f"{w} probe_gid_index is a RoCE v2 IPv4 GID", p["probe_gid_index"] in v4, True)
for b in bad:
    print("DIFF", b)
print(f"cmp_local: {checked} fields compared, {len(bad)} differ")
sys.exit(1 if bad else 0)
