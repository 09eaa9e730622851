#!/usr/bin/env python3
# ibscan's routes against infiniband-diags' own: `ibscan route` hop by hop
# against ibtracert, and `routes --through` / `routes --nodes` against
# ibtracert run pair by pair and against every CA-to-CA route traced here
# through dump_lfts' tables over ibnetdiscover -p's cables (two tools that
# share no code with ibscan). Each comparison is also fed one planted error
# and must catch it, so a check that cannot fail fails.
# Usage (tests/sim/t_routetrace.sh):
#   tracecmp.py sample TOPO                       pairs to trace: "SLID DLID KIND"
#   tracecmp.py sample-lmc TOPO                   the same under LMC
#   tracecmp.py route TOPO IBND LFTS PAIRS TRDIR RTDIR   (IBND LFTS "- -": no tables)
#   tracecmp.py rows TOPO IBND LFTS NODE PORT     pairs for --through, "SLID DLID"
#   tracecmp.py through TOPO IBND LFTS NODE PORT THR_JSON PAIRS TRDIR   (PAIRS TRDIR "- -": tables only)
#   tracecmp.py job IBND HOSTLIST                 the job's ordered pairs, "SLID DLID"
#   tracecmp.py nodes TOPO IBND LFTS HOSTLIST JOB_JSON PAIRS TRDIR
import copy, json, os, re, sys
from collections import Counter


def die(msg):
    print("tracecmp: " + msg, file=sys.stderr)
    sys.exit(1)


# --- the fabric as the reference tools see it ---------------------------------

def node_of(topo):
    """Port GUID -> node GUID (ibtracert names a CA on the way by its port GUID)."""
    m = {}
    for n in json.load(open(topo))["nodes"]:
        for p in n["ports"]:
            if p["guid"]:
                m[int(p["guid"], 16)] = int(n["guid"], 16)
    return m


class Fabric:
    """ibnetdiscover -p (cables, LIDs, port GUIDs) and dump_lfts (tables)."""

    def __init__(self, ibnd, lfts, topo):
        self.node = node_of(topo)
        self.cables(ibnd)
        self.lft = {}     # switch GUID -> {LID: port}
        cur = None
        for l in open(lfts):
            m = re.match(r"^Unicast lids .* guid (0x[0-9a-f]+) ", l)
            if m:
                cur = self.lft.setdefault(int(m.group(1), 16), {})
                continue
            m = re.match(r"^(0x[0-9a-f]+) (\d+) :", l)
            if m and cur is not None:
                cur[int(m.group(1), 16)] = int(m.group(2))
        if not self.peer or not self.lft:
            die("no cables in %s or no tables in %s" % (ibnd, lfts))

    def cables(self, ibnd):
        self.peer = {}    # (port GUID, port) -> (type, port GUID, port, lid)
        self.lid_of = {}  # LID -> (type, port GUID)
        self.name = {}    # port GUID -> description
        self.port_of = {} # a CA's port GUID -> its port number
        rx = re.compile(r"^(CA|SW)\s+(\d+)\s+(\d+)\s+(0x[0-9a-f]+)\s.*?-\s+(CA|SW)\s+(\d+)\s+(\d+)\s+(0x[0-9a-f]+)"
                        r" \( '(.*)' - '(.*)' \)")
        for l in open(ibnd):
            m = rx.match(l)
            if not m:
                continue
            t1, l1, p1, g1, t2, l2, p2, g2, n1, n2 = m.groups()
            a = ("ca" if t1 == "CA" else "switch", int(g1, 16), int(p1), int(l1))
            b = ("ca" if t2 == "CA" else "switch", int(g2, 16), int(p2), int(l2))
            for x, y, nm in ((a, b, n1), (b, a, n2)):
                self.peer[(x[1], x[2])] = y
                self.lid_of[x[3]] = (x[0], x[1])
                self.name[x[1]] = nm
                if x[0] == "ca":
                    self.port_of[x[1]] = x[2]

    def cas(self):
        """Every CA port: (LID, port GUID, port), by LID."""
        return sorted((lid, g, self.port_of[g]) for lid, (t, g) in self.lid_of.items() if t == "ca")

    def trace(self, slid, dlid):
        """The route from SLID (a CA) to DLID through the tables, as parse_ibtracert gives it."""
        t, g = self.lid_of[slid]
        hops, out, seen = [], self.port_of[g], set()
        while True:
            nt, ng, np, nl = self.peer[(g, out)]
            hops.append((out, nt, self.node.get(ng, ng), np))
            if nt == "ca":
                return {"hops": hops, "to": ("ca", self.node[ng], np, nl)}
            if ng in seen or len(hops) > 64:
                return {"hops": hops, "to": ("loop",)}
            seen.add(ng)
            out = self.lft[ng].get(dlid, 255)
            if out == 0:
                return {"hops": hops, "to": ("switch", ng, 0, dlid)}
            if out == 255 or (ng, out) not in self.peer:
                return {"hops": hops, "to": ("hole", out)}
            g = ng


# --- the two tools' paths, normalized -------------------------------------------
# A path: {"hops": [(out port, type, node GUID, in port)...], "to": (type, node GUID, port, LID)}.

def parse_ibtracert(path, node):
    hops, to = [], None
    for l in open(path):
        m = re.match(r"^\[(\d+)\] -> ([a-z]+) port \{(0x[0-9a-f]+)\}\[(\d+)\]", l)
        if m:
            out, kind, guid, inp = m.groups()
            g = int(guid, 16)
            hops.append((int(out), kind, g if kind == "switch" else node[g], int(inp)))
        # The destination port's LIDs, base-top (LMC): the DLID traced is one of them.
        m = re.match(r"^To ([a-z]+) \{(0x[0-9a-f]+)\} portnum (\d+) lid (\d+)-(\d+)", l)
        if m:
            to = (m.group(1), int(m.group(2), 16), int(m.group(3)), int(m.group(4)))
            lids = range(int(m.group(4)), int(m.group(5)) + 1)
    if not hops or not to:
        die("%s: no route in ibtracert's output:\n%s" % (path, open(path).read()))
    return {"hops": hops, "to": to, "lids": lids}


def parse_route(path):
    d = json.load(open(path))
    if d["result"] != "ok":
        die("%s: ibscan route result %s (%s)" % (path, d["result"], d["why"]))
    hops = [(h["out_port"], h["type"], int(h["guid"], 16), h["in_port"]) for h in d["hops"]]
    t = d["to"]
    return {"hops": hops, "to": (t["type"], int(t["guid"], 16), t["port"], t["lid"])}


def hop_s(h):
    return "[%d] -> %s 0x%016x[%d]" % h


def to_s(p):
    to = p["to"]
    if len(to) != 4:
        return str(to)
    r = p.get("lids")
    return "%s 0x%016x port %d lid %s" % (to[:3] + ("%d-%d" % (r[0], r[-1]) if r else "%d" % to[3],))


def show(p):
    return "".join("\n    " + hop_s(h) for h in p["hops"]) + "\n    to " + to_s(p)


def differs(a, b):
    """The first hop at which two paths part, or None."""
    for i, (x, y) in enumerate(zip(a["hops"], b["hops"])):
        if x != y:
            return "hop %d: %s against %s" % (i + 1, hop_s(x), hop_s(y))
    if len(a["hops"]) != len(b["hops"]):
        return "%d hops against %d" % (len(a["hops"]), len(b["hops"]))
    # ibtracert names the destination port by its base LID and its range, ibscan by the LID traced.
    ta, tb = a["to"], b["to"]
    if "lids" in a and len(tb) == 4 and tb[3] in a["lids"]:
        ta = ta[:3] + (tb[3],)
    if ta != tb:
        return "destination %s against %s" % (to_s(a), to_s(b))
    return None


def plant(p):
    """The same path with one hop wrong: another out port at the last switch."""
    q = copy.deepcopy(p)
    o, t, g, i = q["hops"][-1]
    q["hops"][-1] = (o + 1, t, g, i)
    return q


def trace_dir(pairs, trdir, node):
    """ibtracert's path for each pair, from TRDIR/SLID-DLID."""
    return {(s, d): parse_ibtracert(os.path.join(trdir, "%d-%d" % (s, d)), node) for s, d in pairs}


def read_pairs(path):
    return [tuple(int(x) for x in l.split()[:2]) for l in open(path) if l.strip()]


# --- commands -------------------------------------------------------------------

def sample(topo):
    """A fixed sample: CA to CA on one leaf and across the spines, CA to its own
    leaf, to another leaf and to spines. Deterministic: strides over LIDs."""
    d = json.load(open(topo))
    leaf_of, cas, sws = {}, [], []
    for n in d["nodes"]:
        if n["type"] == "switch":
            sws.append((n["ports"][0]["lid"], n["description"]))
            for p in n["ports"]:
                if p.get("peer") and not p["peer"]["name"].startswith("S-"):
                    leaf_of[p["peer"]["guid"]] = n["ports"][0]["lid"]
    for n in d["nodes"]:
        if n["type"] == "ca":
            for p in n["ports"]:
                if p["lid"]:
                    cas.append((p["lid"], leaf_of[n["guid"]]))
    cas.sort()
    leaves = sorted({l for _, l in cas})
    spines = sorted(l for l, _ in sws if l not in leaves)
    out, seen = [], set()

    def add(s, t, kind):
        if s != t and (s, t) not in seen:
            seen.add((s, t))
            out.append((s, t, kind))

    n = len(cas)
    for i in range(10):  # CA -> CA on the same leaf
        s, l = cas[(i * 29) % n]
        peers = [c for c, m in cas if m == l and c != s]
        add(s, peers[(i * 7) % len(peers)], "ca-ca-leaf")
    for i in range(20):  # CA -> CA on another leaf: across a spine
        s, l = cas[(i * 17 + 3) % n]
        far = [c for c, m in cas if m != l]
        add(s, far[(i * 41 + 11) % len(far)], "ca-ca-spine")
    for i in range(4):  # CA -> its own leaf switch
        s, l = cas[(i * 23 + 5) % n]
        add(s, l, "ca-own-leaf")
    for i in range(4):  # CA -> another leaf switch
        s, l = cas[(i * 31 + 9) % n]
        far = [x for x in leaves if x != l]
        add(s, far[i % len(far)], "ca-leaf")
    for i in range(6):  # CA -> a spine switch
        s, _ = cas[(i * 13 + 1) % n]
        add(s, spines[(i * 5) % len(spines)], "ca-spine")
    for s, t, k in out:
        print(s, t, k)


def sample_lmc(topo):
    """Under LMC: from CA LIDs (base or not) to every LID of a CA port's range,
    and to switches."""
    d = json.load(open(topo))
    cas, sws = [], []
    for n in d["nodes"]:
        for p in n["ports"]:
            if p["lid"] and n["type"] == "ca":
                cas.append((p["lid"], 1 << p["lmc"], n["guid"]))
            elif p["lid"] and p["port"] == 0:
                sws.append(p["lid"])
    cas.sort()
    sws.sort()
    n = len(cas)
    if cas[0][1] < 2:
        die("no LMC: the CA ports have one LID each")
    out = []
    for i in range(6):  # every LID of a far port's range
        s, k, g = cas[(i * 37 + 2) % n]
        t, m, h = cas[(i * 53 + 40) % n]
        if h == g:
            t, m, h = cas[(i * 53 + 41) % n]
        out += [(s + i % k, t + j, "lmc-range") for j in range(m)]
    for i in range(6):  # to a switch, from a LID not the base
        s, k, _ = cas[(i * 19 + 7) % n]
        out.append((s + 1 + i % (k - 1), sws[(i * 5 + 1) % len(sws)], "lmc-switch"))
    for s, t, kind in out:
        print(s, t, kind)


def route(topo, ibnd, lfts, pairs_f, trdir, rtdir):
    node = node_of(topo)
    fab = Fabric(ibnd, lfts, topo) if ibnd != "-" else None
    pairs = [l.split() for l in open(pairs_f) if l.strip()]
    kinds, bad, spread = Counter(), 0, {}
    for s, d, kind in pairs:
        s, d = int(s), int(d)
        tr = parse_ibtracert(os.path.join(trdir, "%d-%d" % (s, d)), node)
        rt = parse_route(os.path.join(rtdir, "%d-%d.json" % (s, d)))
        if rt["to"][3] != d:
            die("ibscan route %d -> %d arrives at LID %d" % (s, d, rt["to"][3]))
        why = differs(tr, rt)
        if why:
            print("route %d -> %d (%s): ibscan differs from ibtracert at %s\n  ibtracert:%s\n  ibscan route:%s"
                  % (s, d, kind, why, show(tr), show(rt)), file=sys.stderr)
            bad += 1
        # The tables dump_lfts read give the same route: the tracer that judges
        # --through and --nodes below is right where ibtracert can say.
        why = fab and differs(tr, fab.trace(s, d))
        if why:
            print("route %d -> %d: dump_lfts' tables differ from ibtracert at %s" % (s, d, why), file=sys.stderr)
            bad += 1
        if not differs(tr, plant(rt)):
            die("a planted wrong hop on %d -> %d was not caught" % (s, d))
        kinds[kind] += 1
        if kind == "lmc-range":
            spread.setdefault((s, rt["to"][1]), set()).add(tuple(tr["hops"]))
    if bad:
        die("%d of %d routes differ" % (bad, len(pairs)))
    print("%d routes (%s)" % (len(pairs), ", ".join("%s %d" % kv for kv in sorted(kinds.items()))), end="")
    if spread:
        # The LIDs of one port take different paths somewhere: a route traced
        # to the base LID instead of the one asked would differ.
        n = sum(1 for v in spread.values() if len(v) > 1)
        if not n:
            die("every LID of each port sampled takes one path: the LMC sample proves nothing")
        print("; %d of %d ports' LID ranges take more than one path" % (n, len(spread)), end="")
    print()


def crosses(p, a, b):
    """Does path p cross the cable between (node a, port) and b = (node, port), either way?"""
    prev = p["src"]
    for out, t, g, inp in p["hops"]:
        ends = {(prev, out), (g, inp)}
        if a in ends and b in ends:
            return True
        prev = g
    return False


def cable(fab, name, port):
    """(node GUID, port) at each end of NAME's port PORT, from ibnetdiscover."""
    gs = [g for g, n in fab.name.items() if n == name and (g, port) in fab.peer]
    if len(gs) != 1:
        die("%r port %d: %d ports of that name in ibnetdiscover" % (name, port, len(gs)))
    t, pg, pp, _ = fab.peer[(gs[0], port)]
    return (fab.node.get(gs[0], gs[0]), port), (fab.node[pg], pp)


def all_routes(fab):
    """Every CA-to-CA route through dump_lfts' tables, each with its source node."""
    cas = fab.cas()
    r = {}
    for s, sg, _ in cas:
        for d, _, _ in cas:
            if s != d:
                p = fab.trace(s, d)
                if p["to"][0] != "ca":
                    die("route %d -> %d does not arrive in dump_lfts' tables: %s" % (s, d, show(p)))
                p["src"] = fab.node[sg]
                r[(s, d)] = p
    return r


def rows(topo, ibnd, lfts, name, port):
    """Pairs for ibtracert to judge --through: every route from a CA on the
    cable's switch and every route to a CA whose LID the far end sends over
    the cable (a CA elsewhere crosses it only on such a route)."""
    fab = Fabric(ibnd, lfts, topo)
    (ag, ap), (bg, bp) = cable(fab, name, int(port))
    cas = fab.cas()
    here = [l for l, g, p in cas if fab.peer[(g, p)][1] == ag]
    down = [l for l, _, _ in cas if fab.lft[bg].get(l) == bp]
    if not here or not down:
        die("no CA for the rows: %s %s" % (here, down))
    srcs = [here[1 % len(here)]]
    out = {(s, d) for s in srcs for d, _, _ in cas if d != s}
    out |= {(s, down[0]) for s, _, _ in cas if s != down[0]}
    for s, d in sorted(out):
        print(s, d)


def through(topo, ibnd, lfts, name, port, thr_json, pairs_f, trdir):
    fab = Fabric(ibnd, lfts, topo)
    a, b = cable(fab, name, int(port))
    d = json.load(open(thr_json))
    got = {int(c["lid"]): (c["from"], c["to"]) for c in d["cas_crossing"]}
    # Every route through the tables: the counts of each CA, from and to it.
    frm, to, n = Counter(), Counter(), 0
    for (s, t), p in all_routes(fab).items():
        if crosses(p, a, b):
            frm[s] += 1
            to[t] += 1
            n += 1
    want = {l: (frm[l], to[l]) for l in set(frm) | set(to)}

    def judge(g, total):
        diff = sorted(l for l in set(g) | set(want) if g.get(l, (0, 0)) != want.get(l, (0, 0)))
        if diff or total != n:
            return "%d routes against %d; CAs (LID: ibscan from/to, tables from/to): %s" % (
                total, n, ", ".join("%d: %s %s" % (l, g.get(l), want.get(l)) for l in diff[:10]))
        return None

    why = judge(got, d["routes"])
    if why:
        die("--through %s:%s differs from the tables: %s" % (name, port, why))
    planted = dict(got)
    k = sorted(planted)[0]
    planted[k] = (planted[k][0] + 1, planted[k][1])
    if not judge(planted, d["routes"] + 1):
        die("a planted wrong count was not caught")
    if pairs_f == "-":
        print("%d routes from or to %d CAs equal to the tables'" % (n, len(want)))
        return
    # ibtracert pair by pair: each CA's routes from it (and to the column's CA)
    # that cross, equal to ibscan's counts.
    node = node_of(topo)
    pairs = read_pairs(pairs_f)
    tr = trace_dir(pairs, trdir, node)
    cas = {l: g for l, g, _ in fab.cas()}
    srcs = Counter(s for s, _ in pairs)
    dsts = Counter(t for _, t in pairs)
    full_rows = [s for s, c in srcs.items() if c == len(cas) - 1]
    full_cols = [t for t, c in dsts.items() if c == len(cas) - 1]
    crossing = set()
    for (s, t), p in tr.items():
        p["src"] = node[cas[s]]
        if crosses(p, a, b):
            crossing.add((s, t))
    for s in full_rows:
        x = sum(1 for (u, _) in crossing if u == s)
        if x != got.get(s, (0, 0))[0]:
            die("--through: %d routes from LID %d cross by ibtracert, ibscan says %s" % (x, s, got.get(s)))
    for t in full_cols:
        x = sum(1 for (_, v) in crossing if v == t)
        if x != got.get(t, (0, 0))[1]:
            die("--through: %d routes to LID %d cross by ibtracert, ibscan says %s" % (x, t, got.get(t)))
    if not full_rows or not full_cols or not crossing:
        die("nothing judged: rows %s columns %s crossing %d" % (full_rows, full_cols, len(crossing)))
    print("%d routes from or to %d CAs equal to the tables'; by ibtracert, %d of %d routes cross "
          "(from LIDs %s, to LID %s)" % (n, len(want), len(crossing), len(pairs),
                                         ",".join(map(str, sorted(full_rows))), ",".join(map(str, full_cols))))


def expand(hostlist):
    """A Slurm hostlist with one bracket group: node[0001-0003,0020]."""
    m = re.match(r"^([^\[]*)\[([^\]]*)\]$", hostlist)
    if not m:
        return [hostlist]
    out = []
    for r in m.group(2).split(","):
        lo, _, hi = r.partition("-")
        for i in range(int(lo), int(hi or lo) + 1):
            out.append("%s%0*d" % (m.group(1), len(lo), i))
    return out


def job_lids(fab, hostlist):
    hosts = set(expand(hostlist))
    lids = sorted(l for l, g, _ in fab.cas() if fab.name[g].split()[0] in hosts)
    if len(lids) != len(hosts):
        die("%s: %d CAs in ibnetdiscover" % (hostlist, len(lids)))
    return lids


def job(ibnd, hostlist):
    fab = Fabric.__new__(Fabric)
    fab.cables(ibnd)
    lids = job_lids(fab, hostlist)
    for s in lids:
        for d in lids:
            if s != d:
                print(s, d)


def links(paths):
    """Switch-to-switch links the paths cross: (from node, port, to node, to port) -> routes."""
    c = Counter()
    for p in paths:
        prev = None
        for out, t, g, inp in p["hops"]:
            if prev is not None and t == "switch":
                c[(prev, out, g, inp)] += 1
            prev = g if t == "switch" else None
    return c


def nodes(topo, ibnd, lfts, hostlist, job_json, pairs_f, trdir):
    fab = Fabric(ibnd, lfts, topo)
    lids = job_lids(fab, hostlist)
    d = json.load(open(job_json))
    got = Counter({(int(x["from"]["guid"], 16), x["port"], int(x["to"]["guid"], 16), x["to_port"]): x["routes"]
                   for x in d["links"]})
    counts = [x["routes"] for x in d["links"]]
    if counts != sorted(counts, reverse=True):
        die("--nodes: links not most-shared first: %s" % counts)
    if d["cas"] != len(lids) or d["routes"] != len(lids) * (len(lids) - 1):
        die("--nodes: %d CAs, %d routes; want %d, %d" % (d["cas"], d["routes"], len(lids), len(lids) * (len(lids) - 1)))
    pairs = read_pairs(pairs_f)
    if sorted(pairs) != sorted((s, t) for s in lids for t in lids if s != t):
        die("--nodes: ibtracert was not run on every pair of the job")
    by_tr = links(trace_dir(pairs, trdir, node_of(topo)).values())
    by_tables = links(fab.trace(s, t) for s, t in pairs)

    def judge(a, b):
        diff = sorted(k for k in set(a) | set(b) if a[k] != b[k])
        return ", ".join("0x%016x[%d] -> 0x%016x[%d]: %d against %d" % (k + (a[k], b[k])) for k in diff[:10]) or None

    why = judge(got, by_tr)
    if why:
        die("--nodes %s differs from ibtracert (ibscan against ibtracert): %s" % (hostlist, why))
    why = judge(got, by_tables)
    if why:
        die("--nodes %s differs from dump_lfts' tables: %s" % (hostlist, why))
    planted = Counter(got)
    k = sorted(planted)[0]
    planted[k] -= 1
    if not judge(planted, by_tr):
        die("a planted wrong count was not caught")
    print("%d links crossed by %d routes among %d CAs, equal to ibtracert's pair by pair, most shared %d" % (
        len(got), d["routes"], len(lids), counts[0] if counts else 0))


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    {"sample": sample, "sample-lmc": sample_lmc, "route": route, "rows": rows, "through": through, "job": job, "nodes": nodes}[cmd](*args)
