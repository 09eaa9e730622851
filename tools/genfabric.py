#!/usr/bin/env python3
"""Generate ibsim topology files (ibnetdiscover-like "netfile" format).

The output is a fat tree that ibsim (ibsim-utils) loads directly and that
reads like real `ibnetdiscover` output: GUID/vendor/device lines before each
node, node ids "S-<name>" / "H-<name>", descriptions in `# "..."` comments,
LIDs and `lid N WxSPEED` on every cabled port.  Same arguments, same bytes.
"""

import argparse
import re
import sys

EPILOG = r"""
layout
  Node order in the file: leaf switches, spine switches, core switches, then
  hosts (HCAs).  The FIRST node is S-leaf01: ibsim attaches every client that
  has no SIM_HOST (opensm, ibnetdiscover, ibscan) to S-leaf01 port 0, so the
  SM runs on a switch as in ibsim's own examples.  SIM_HOST=H-node0001 (a node
  id or a node description) attaches a client to that HCA's port 1.

  2 levels: each leaf has radix/2 host ports (1..radix/2) and radix/2 uplinks
  (radix/2+1..radix).  Every leaf is cabled to every spine with --parallel
  cables.  Default spines = (radix/2) / parallel; at most radix/parallel
  leaves.
  3 levels: pods of leaves and spines (every leaf to every spine of its pod,
  --parallel cables each), spine s of every pod cabled to the cores of core
  group s.  Default spines per pod = (radix/2)/parallel, cores per group =
  (radix/2)/parallel (--cores overrides the total), at most radix/parallel
  pods, (radix/2)/parallel leaves per pod.
  Without --hosts the tree is fully populated.

  --ports-per-hca 2: leaves come in pairs; host i sits on leaf pair i//(radix/2)
  with port 1 on the pair's first leaf and port 2 on the second (same subnet).

identity
  GUIDs (vendor OUI 00:02:c9): leaf n 0x0002c90300e10000+n, spine n
  0x0002c90300e20000+n, core n 0x0002c90300e30000+n, host n node GUID
  0x0002c90300f00000+4n, its port p GUID = node GUID + p (ibsim numbering).
  Switch ports share the switch's port-0 GUID (as in IB).
  LIDs are written into the file (switches 1..S in file order, then host ports
  in order); opensm keeps them as it finds them.
  Descriptions: hosts "node0001 mlx5_0"; switches "MF0;leaf01:MSB7800/U1"
  (radix 36), "MF0;leaf01:MQM8790/U1" (radix 40) or plain "leaf01" (other
  radix, or --switch-model none).

speed and degraded links
  --speed WxSPEED is written on every port line (`lid N 4xEDR`); ibsim takes it
  as the port's ENABLED width/speed and activates each link at the best value
  both ends enable.  Widths 1 2 4 8 12; speeds SDR DDR QDR FDR10 FDR EDR HDR
  (ibsim 0.10 knows no NDR).  --degrade 'S-leaf01[3]=1xEDR' writes another
  value on one port only (its peer keeps --speed), e.g. 1x opposite 4x or QDR
  opposite EDR.  ibsim aborts on links whose enabled widths do not overlap
  (2x or 8x opposite 4x): such a --degrade is refused.
  Measured with opensm 3.3.23: every PortInfo Set that opensm sends makes
  ibsim (0.10) re-derive the link's active width and speed from the ENABLED
  values of the port being Set, for both ends, so the end Set last wins:
  - width: narrow the SWITCH side of a host link (S-leaf01[3]=1xEDR: link
    1x) and the SPINE side of a leaf-spine link; a narrowed HCA port or leaf
    uplink is overridden by its peer (the link stays 4x);
  - speed: a port written SDR or DDR opposite an EDR port ends up at QDR
    (ibsim maps the EDR port's enabled SDR|DDR|QDR to QDR and never clears
    the extended speed it never set); write 4xQDR for a dependable slowed
    link (QDR opposite EDR).
  genfabric.py warns about the cases that do not take effect.

ibsim limits
  ibsim 0.10 defaults: 2048 nodes (-N), 256 switches (-S), 13312 ports (-P,
  a switch counts radix+1 ports, an HCA its port count), LID table 30720
  (-L).  The header of each generated file says which -N/-S/-P/-L it needs;
  tests/sim/simlib.sh computes and passes them itself.  ibsim serves at most
  10 clients at once (opensm included); a client killed by a signal keeps
  its slot until ibsim restarts.  Measured on 2 cores: --levels 3 --radix 12
  (612 nodes) is up in 0.9 s, --levels 2 --radix 40 (860 nodes) in 1.1 s,
  --levels 3 --radix 36 (13284 nodes, -S 1620 -P 71604) in 64 s.
"""

SPEEDS = ("SDR", "DDR", "QDR", "FDR10", "FDR", "EDR", "HDR")
WIDTHS = (1, 2, 4, 8, 12)

# ibsim 0.10 sim_net.c: enabled width mask written for a `lid N Wx...` value
WIDTH_ENABLED = {1: 0x1, 2: 0x10, 4: 0x3, 8: 0x4, 12: 0xB}

SWITCH_MODELS = {  # model -> (device id)
    "MSB7800": 0xCF08,  # Switch-IB 2, 36 ports EDR
    "MQM8790": 0xD2F0,  # Quantum, 40 ports HDR
}
HCA_DEVID = {  # by speed: ConnectX generation
    "HDR": 0x101B, "EDR": 0x1017, "FDR": 0x1011, "FDR10": 0x1011,
    "QDR": 0x1003, "DDR": 0x1003, "SDR": 0x1003,
}
VENDOR_ID = 0x2C9
LEAF_GUID0 = 0x0002C90300E10000
SPINE_GUID0 = 0x0002C90300E20000
CORE_GUID0 = 0x0002C90300E30000
HOST_GUID0 = 0x0002C90300F00000


class Node:
    def __init__(self, nid, kind, nports, desc, guid, devid):
        self.id = nid            # node id, e.g. "S-leaf01"
        self.kind = kind         # "switch" | "ca"
        self.nports = nports
        self.desc = desc
        self.guid = guid
        self.devid = devid
        self.lid = {}            # port -> lid (switch: only port 0)
        self.peer = {}           # port -> (Node, port)

    def port_guid(self, port):
        return self.guid if self.kind == "switch" else self.guid + port

    def port_lid(self, port):
        return self.lid[0] if self.kind == "switch" else self.lid[port]


def parse_ws(text):
    m = re.fullmatch(r"(\d+)x([A-Z0-9]+)", text)
    if not m or int(m.group(1)) not in WIDTHS or m.group(2) not in SPEEDS:
        raise argparse.ArgumentTypeError(
            "bad width/speed %r: want WxSPEED, W in %s, SPEED in %s"
            % (text, "/".join(map(str, WIDTHS)), "/".join(SPEEDS)))
    return text


def parse_degrade(text):
    m = re.fullmatch(r'"?([^"\[\]#@]+)"?\[(\d+)\]=(.+)', text)
    if not m:
        raise argparse.ArgumentTypeError(
            "bad --degrade %r: want NODEID[PORT]=WxSPEED" % text)
    return (m.group(1), int(m.group(2)), parse_ws(m.group(3)))


def die(msg):
    sys.stderr.write("genfabric.py: %s\n" % msg)
    sys.exit(2)


def ceil_div(a, b):
    return -(-a // b)


def build(args):
    radix, par, pph = args.radix, args.parallel, args.ports_per_hca
    if radix < 4 or radix % 2 or radix > 254:
        die("--radix must be even, 4..254")
    half = radix // 2
    if par < 1 or par > half:
        die("--parallel must be 1..radix/2")
    if pph not in (1, 2):
        die("--ports-per-hca must be 1 or 2")

    model = args.switch_model
    if model is None:
        model = {36: "MSB7800", 40: "MQM8790"}.get(radix, "none")
    sw_devid = SWITCH_MODELS.get(model, 0xCF08)
    width, speed = re.fullmatch(r"(\d+)x(\w+)", args.speed).groups()
    hca_devid = HCA_DEVID[speed]

    spines_pp = args.spines if args.spines else half // par
    if spines_pp < 1 or spines_pp * par > half:
        die("--spines: leaves have only %d uplinks (%d spines x %d cables "
            "requested)" % (half, spines_pp, par))

    if args.levels == 2:
        max_leaves = radix // par
        pods = 1
        lpp_max = max_leaves
    else:
        lpp_max = half // par            # spine down ports / parallel
        max_pods = radix // par          # core ports / parallel
        cpg = half // par
        if args.cores:
            if args.cores % spines_pp:
                die("--cores must be a multiple of the spines per pod (%d)"
                    % spines_pp)
            cpg = args.cores // spines_pp
        if cpg < 1 or cpg * par > half:
            die("--cores: spines have only %d uplinks" % half)
        max_leaves = lpp_max * (args.pods if args.pods else max_pods)
    if pph == 2:
        max_leaves -= max_leaves % 2
    if max_leaves < pph:
        die("fabric too small for %d ports per HCA" % pph)

    hosts = args.hosts if args.hosts is not None else max_leaves * half // pph
    if hosts < 1:
        die("--hosts must be >= 1")
    leaves = ceil_div(hosts * pph, half)
    if pph == 2:
        leaves = max(2, leaves + leaves % 2)
    if leaves > max_leaves:
        die("%d hosts need %d leaves but %d levels of radix %d with %d "
            "parallel cables hold %d leaves (%d hosts)%s"
            % (hosts, leaves, args.levels, radix, par, max_leaves,
               max_leaves * half // pph,
               "; try --levels 3" if args.levels == 2 else ""))
    if args.levels == 3:
        pods = args.pods if args.pods else ceil_div(leaves, lpp_max)
        if pods * par > radix or pods < 1:
            die("--pods: cores have only %d ports" % radix)
        lpp = ceil_div(leaves, pods)
        if lpp > lpp_max:
            die("%d leaves do not fit in %d pods" % (leaves, pods))
        if ceil_div(leaves, lpp) < pods:
            die("%d pods leave some pod without leaves" % pods)
        cores = spines_pp * cpg
    else:
        lpp = leaves
        cores = 0
    nspines = spines_pp * pods

    def dig(n, least):
        return max(least, len(str(n)))

    def swdesc(name):
        return name if model == "none" else "MF0;%s:%s/U1" % (name, model)

    nodes = []
    leaf_nodes, spine_nodes, core_nodes, host_nodes = [], [], [], []
    for kind, count, lst, guid0 in (("leaf", leaves, leaf_nodes, LEAF_GUID0),
                                    ("spine", nspines, spine_nodes, SPINE_GUID0),
                                    ("core", cores, core_nodes, CORE_GUID0)):
        for i in range(1, count + 1):
            name = "%s%0*d" % (kind, dig(count, 2), i)
            n = Node("S-" + name, "switch", radix, swdesc(name), guid0 + i,
                     sw_devid)
            lst.append(n)
            nodes.append(n)
    for i in range(1, hosts + 1):
        name = "node%0*d" % (dig(hosts, 4), i)
        n = Node("H-" + name, "ca", pph, "%s mlx5_0" % name,
                 HOST_GUID0 + 4 * i, hca_devid)
        host_nodes.append(n)
        nodes.append(n)

    links = []

    def cable(a, ap, b, bp):
        assert ap not in a.peer and bp not in b.peer, (a.id, ap, b.id, bp)
        assert 1 <= ap <= a.nports and 1 <= bp <= b.nports
        a.peer[ap] = (b, bp)
        b.peer[bp] = (a, ap)
        links.append((a, ap, b, bp))

    # hosts to leaves
    for i, h in enumerate(host_nodes):
        if pph == 1:
            cable(leaf_nodes[i // half], i % half + 1, h, 1)
        else:
            pair, slot = divmod(i, half)
            cable(leaf_nodes[2 * pair], slot + 1, h, 1)
            cable(leaf_nodes[2 * pair + 1], slot + 1, h, 2)
    # leaves to spines (every leaf to every spine of its pod)
    for li, leaf in enumerate(leaf_nodes):
        pod, lip = divmod(li, lpp)
        for s in range(spines_pp):
            spine = spine_nodes[pod * spines_pp + s]
            for p in range(par):
                cable(leaf, half + 1 + s * par + p, spine, lip * par + p + 1)
    # spines to cores: spine s of each pod to every core of group s
    if cores:
        for si, spine in enumerate(spine_nodes):
            pod, s = divmod(si, spines_pp)
            for c in range(cpg):
                core = core_nodes[s * cpg + c]
                for p in range(par):
                    cable(spine, half + 1 + c * par + p, core, pod * par + p + 1)

    # LIDs: switches first, then host ports, in file order
    lid = 1
    for n in nodes:
        if n.kind == "switch":
            n.lid[0] = lid
            lid += 1
    for n in host_nodes:
        for p in range(1, pph + 1):
            n.lid[p] = lid
            lid += 1

    # enabled width/speed per port
    ws = {}
    for n in nodes:
        for p in n.peer:
            ws[(n.id, p)] = args.speed
    byid = {n.id: n for n in nodes}
    for nid, port, val in args.degrade:
        if nid not in byid:
            die("--degrade: no node %r" % nid)
        if port not in byid[nid].peer:
            die("--degrade: %s port %d is not cabled" % (nid, port))
        peer, pport = byid[nid].peer[port]
        mine = WIDTH_ENABLED[int(val.split("x")[0])]
        theirs = WIDTH_ENABLED[int(ws[(peer.id, pport)].split("x")[0])]
        if not mine & theirs:
            die("--degrade %s[%d]=%s: no width in common with the peer's %s "
                "(ibsim would abort)" % (nid, port, val, ws[(peer.id, pport)]))
        ws[(nid, port)] = val
        node = byid[nid]
        if node.kind == "ca" or (peer.kind == "switch" and
                                 nid.startswith("S-leaf") and
                                 not peer.id.startswith("S-leaf")):
            if int(val.split("x")[0]) != int(args.speed.split("x")[0]):
                sys.stderr.write(
                    "genfabric.py: warning: --degrade %s[%d]: opensm's Set of "
                    "the peer %s[%d] will restore the width; narrow the peer "
                    "instead\n" % (nid, port, peer.id, pport))
        if val.split("x")[1] in ("SDR", "DDR"):
            sys.stderr.write(
                "genfabric.py: warning: --degrade %s[%d]=%s: under opensm the "
                "link ends up at QDR, not %s\n"
                % (nid, port, val, val.split("x")[1]))

    info = {
        "nodes": len(nodes), "switches": leaves + nspines + cores,
        "leaves": leaves, "spines": nspines, "cores": cores, "pods": pods,
        "hosts": hosts, "links": len(links),
        "host_links": hosts * pph, "lids": lid - 1,
        "ports": sum(n.nports + 1 if n.kind == "switch" else n.nports
                     for n in nodes),
    }
    return nodes, info, ws, model


def canonical_command(args):
    cmd = ["tools/genfabric.py", "--levels", str(args.levels),
           "--radix", str(args.radix)]
    if args.hosts is not None:
        cmd += ["--hosts", str(args.hosts)]
    cmd += ["--ports-per-hca", str(args.ports_per_hca),
            "--parallel", str(args.parallel)]
    if args.spines:
        cmd += ["--spines", str(args.spines)]
    if args.levels == 3 and args.pods:
        cmd += ["--pods", str(args.pods)]
    if args.levels == 3 and args.cores:
        cmd += ["--cores", str(args.cores)]
    cmd += ["--speed", args.speed]
    if args.switch_model is not None:
        cmd += ["--switch-model", args.switch_model]
    for nid, port, val in args.degrade:
        cmd += ["--degrade", "'%s[%d]=%s'" % (nid, port, val)]
    if args.title:
        cmd += ["--title", "'%s'" % args.title.replace("'", "'\\''")]
    return " ".join(cmd)


def render(args, nodes, info, ws, model):
    out = []
    w = out.append
    if args.title:
        w("# %s" % args.title)
    w("# ibsim topology, generated by tools/genfabric.py; do not edit.")
    w("# Regenerate with:")
    w("#   %s" % canonical_command(args))
    w("# %d-level fat tree, radix %d, %d cable(s) per switch pair, %d port(s) per HCA, %s"
      % (args.levels, args.radix, args.parallel, args.ports_per_hca, args.speed))
    w("# nodes %d: switches %d (leaves %d, spines %d, cores %d%s), hosts %d"
      % (info["nodes"], info["switches"], info["leaves"], info["spines"],
         info["cores"], ", pods %d" % info["pods"] if args.levels == 3 else "",
         info["hosts"]))
    w("# links %d: host links %d, switch-to-switch links %d; LIDs 1..%d"
      % (info["links"], info["host_links"],
         info["links"] - info["host_links"], info["lids"]))
    for nid, port, val in args.degrade:
        w("# degraded: %s[%d] enabled as %s (peer %s)"
          % (nid, port, val, args.speed))
    w("# First node S-leaf01: ibsim attaches clients without SIM_HOST (and so")
    w("# opensm) to its port 0.")
    w("# ibsim needs: -N %d -S %d -P %d%s (defaults 2048 256 13312 30720)"
      % (max(2048, info["nodes"]), max(256, info["switches"]),
         max(13312, info["ports"]),
         " -L %d" % (info["lids"] + 1) if info["lids"] + 1 > 30720 else ""))
    w("")
    for n in nodes:
        w("vendid=0x%x" % VENDOR_ID)
        w("devid=0x%x" % n.devid)
        w("sysimgguid=0x%x" % n.guid)
        if n.kind == "switch":
            w("switchguid=0x%x(%x)" % (n.guid, n.guid))
            w('Switch\t%d "%s"\t\t# "%s" base port 0 lid %d lmc 0'
              % (n.nports, n.id, n.desc, n.lid[0]))
        else:
            w("caguid=0x%x" % n.guid)
            w('Ca\t%d "%s"\t\t# "%s"' % (n.nports, n.id, n.desc))
        for p in sorted(n.peer):
            peer, pp = n.peer[p]
            speed = ws[(n.id, p)]
            if n.kind == "switch":
                pg = "(%x) " % peer.port_guid(pp) if peer.kind == "ca" else ""
                w('[%d]\t"%s"[%d]%s\t\t# "%s" lid %d %s'
                  % (p, peer.id, pp, pg, peer.desc, peer.port_lid(pp), speed))
            else:
                w('[%d](%x) \t"%s"[%d]\t\t# lid %d lmc 0 "%s" lid %d %s'
                  % (p, n.port_guid(p), peer.id, pp, n.lid[p], peer.desc,
                     peer.port_lid(pp), speed))
        w("")
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="genfabric.py",
        description="Generate a deterministic fat-tree topology file for "
                    "ibsim (ibnetdiscover-like format).",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--levels", type=int, choices=(2, 3), default=2,
                    help="switch levels of the fat tree (default 2)")
    ap.add_argument("--radix", type=int, default=36,
                    help="ports per switch: 36 (EDR), 40 (HDR) or any even "
                         "number >= 4 for small test fabrics (default 36)")
    ap.add_argument("--hosts", type=int,
                    help="number of hosts (HCAs); default: fully populated")
    ap.add_argument("--ports-per-hca", type=int, choices=(1, 2), default=1,
                    help="1, or 2: port 2 cabled to a different leaf")
    ap.add_argument("--parallel", type=int, default=1,
                    help="parallel cables between each connected switch pair "
                         "(default 1)")
    ap.add_argument("--spines", type=int, default=0,
                    help="spine switches (per pod with --levels 3); default "
                         "(radix/2)/parallel")
    ap.add_argument("--pods", type=int, default=0,
                    help="--levels 3: number of pods; default as few as fit")
    ap.add_argument("--cores", type=int, default=0,
                    help="--levels 3: core switches in total, a multiple of "
                         "the spines per pod; default spines*(radix/2)/parallel")
    ap.add_argument("--speed", type=parse_ws, default="4xEDR",
                    help="enabled width and speed of every port, e.g. 4xEDR "
                         "(default), 4xHDR, 4xQDR")
    ap.add_argument("--degrade", type=parse_degrade, action="append",
                    default=[], metavar="NODEID[PORT]=WxSPEED",
                    help="write another width/speed on one port only, e.g. "
                         "'S-leaf01[3]=1xEDR' (repeatable; see below)")
    ap.add_argument("--switch-model", choices=sorted(SWITCH_MODELS) + ["none"],
                    help="switch description style: MSB7800 (default for "
                         "radix 36), MQM8790 (radix 40), none = plain names")
    ap.add_argument("--title", default="",
                    help="a first comment line for the file")
    ap.add_argument("-o", "--output", default="-",
                    help="output file (default stdout)")
    args = ap.parse_args(argv)

    nodes, info, ws, model = build(args)
    text = render(args, nodes, info, ws, model)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as f:
            f.write(text)
    sys.stderr.write("genfabric.py: %d nodes (%d switches, %d hosts), "
                     "%d links\n" % (info["nodes"], info["switches"],
                                     info["hosts"], info["links"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
