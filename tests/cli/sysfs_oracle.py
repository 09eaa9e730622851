#!/usr/bin/env python3
"""What show_gids and ibdev2netdev say of a sysfs tree, and the NCCL settings a person derives from them.

An oracle for tests/cli/t_localcheck.sh, written from the scripts' logic (MLNX_OFED's show_gids and
ibdev2netdev read the same sysfs files), not from ibscan:

  sysfs_oracle.py ROOT show_gids          DEV PORT INDEX GID IPv4 VER NETDEV, one line per non-zero entry
  sysfs_oracle.py ROOT ibdev2netdev       DEV port N ==> NETDEV (Up|Down)
  sysfs_oracle.py ROOT nccl [DEV...]      NCCL_IB_HCA=..., NCCL_IB_GID_INDEX=..., NCCL_SOCKET_IFNAME=..., UCX_NET_DEVICES=...
                                          for the given rail devices (default: every device with an ACTIVE, LinkUp
                                          port), or "REFUSE DEV" naming the first device whose index differs
"""
import os, re, sys

root, what = sys.argv[1], sys.argv[2]
IB = f"{root}/class/infiniband"

def natural(s):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s)]

def cat(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None

def devices():
    return sorted(os.listdir(IB), key=natural) if os.path.isdir(IB) else []

def ports(dev):
    return sorted((p for p in os.listdir(f"{IB}/{dev}/ports") if p.isdigit()), key=int)

def gids(dev, port):
    """show_gids: every non-zero entry, with its IPv4 address when IPv4-mapped, and v1/v2."""
    d = f"{IB}/{dev}/ports/{port}"
    out = []
    for i in sorted((x for x in os.listdir(f"{d}/gids") if x.isdigit()), key=int):
        g = cat(f"{d}/gids/{i}")
        if not g or g == "0000:0000:0000:0000:0000:0000:0000:0000":
            continue
        ipv4 = ""
        if g.startswith("0000:0000:0000:0000:0000:ffff:"):
            h = g.replace(":", "")[24:]
            ipv4 = ".".join(str(int(h[k:k + 2], 16)) for k in range(0, 8, 2))
        typ = cat(f"{d}/gid_attrs/types/{i}") or ""
        ver = "v2" if "v2" in typ else "v1" if typ else ""
        out.append((dev, port, int(i), g, ipv4, ver, cat(f"{d}/gid_attrs/ndevs/{i}") or ""))
    return out

def netdev(dev, port):
    """ibdev2netdev: on Ethernet gid_attrs/ndevs/0 (the lowest entry set, when 0 is not the container's);
    on InfiniBand the IPoIB netdev of the PCI function whose dev_port (or dev_id) + 1 is the port."""
    d = f"{IB}/{dev}/ports/{port}"
    if cat(f"{d}/link_layer") == "Ethernet":
        for g in gids(dev, port):
            if g[6]:
                return g[6]
        return None
    net = f"{IB}/{dev}/device/net"
    for n in sorted(os.listdir(net), key=natural) if os.path.isdir(net) else []:
        p = cat(f"{net}/{n}/dev_port")
        if p is not None and int(p, 0) + 1 == int(port) and cat(f"{net}/{n}/type") == "32":
            return n
    return None

def active(dev, port):
    d = f"{IB}/{dev}/ports/{port}"
    return (cat(f"{d}/state") or "").endswith("ACTIVE") and (cat(f"{d}/phys_state") or "").endswith("LinkUp")

if what == "show_gids":
    for dev in devices():
        for port in ports(dev):
            for g in gids(dev, port):
                print("\t".join(str(x) for x in g))
elif what == "ibdev2netdev":
    for dev in devices():
        for port in ports(dev):
            print(f"{dev} port {port} ==> {netdev(dev, port)} ({'Up' if active(dev, port) else 'Down'})")
elif what == "nccl":
    want = sys.argv[3:]
    rails = [(d, p) for d in devices() for p in ports(d) if (d in want if want else active(d, p))]
    roce = [r for r in rails if cat(f"{IB}/{r[0]}/ports/{r[1]}/link_layer") == "Ethernet"]
    index = {}
    for d, p in roce:
        v2 = [g for g in gids(d, p) if g[5] == "v2" and g[4]]
        if not v2:
            print(f"REFUSE {d}")
            sys.exit(0)
        index[(d, p)] = v2[0]
    counts = {}
    for g in index.values():
        counts[g[2]] = counts.get(g[2], 0) + 1
    common = min(counts, key=lambda i: (-counts[i], i)) if counts else None
    for r in roce:
        if index[r][2] != common:
            print(f"REFUSE {r[0]}")
            sys.exit(0)
    hca = ",".join(f"{d}:{p}" for d, p in rails)
    nds = []
    for d, p in rails:
        n = index[(d, p)][6] if (d, p) in index else netdev(d, p)
        if n and n not in nds:
            nds.append(n)
    print(f"NCCL_IB_HCA=={hca}")
    if common is not None:
        print(f"NCCL_IB_GID_INDEX={common}")
    if nds:
        print(f"NCCL_SOCKET_IFNAME=={','.join(nds)}")
    print(f"UCX_NET_DEVICES={hca}")
