#!/usr/bin/env python3
"""Judge a laid-out fabric drawing (the SVG of `ibscan topology --format svg`,
here tools/bench/drawfile.c's of a generated ibnetdiscover topology file) against the
fabric in that file, read independently here. Used by tests/cli/t_drawscale.sh.

  drawscale.py SVG NETFILE [checks...]     checks (default all):
    size     the SVG's width and height at 96 dpi: no side over 16,000 px,
             aspect between 1:4 and 4:1
    tiers    every node of a tier strictly above every node of the tier
             below (cores, spines, leaves, hosts; levels computed here from
             the cables; a host group g-<leaf> is a host); where rail panels
             stand in rows, one under another (ibscan's grid), the leaves
             above the hosts within each panel, each row of its leaves above
             the hosts down to its next (and those in no panel against each
             other), each tier above the leaves above all
    an       every SHARP Aggregation Node drawn in its switch's box (a
             "+ SHARP AN" line, its GUID in the switch's tooltip), not as a
             node of its own
    legend   the legend above every node (so no cable crosses it), on a
             white background
    edges=N  at most N visible edges
    blocks   each leaf's hosts in a block under it: the leaf's centre within
             the x-span of its hosts' boxes (hosts and groups cabled to it
             alone); no leaf-host cable crossing another leaf's, and none
             running through a node other than its two ends, no two nodes
             overlapping (the cables'
             paths taken as the polygons of their Bezier points, which for
             straight pieces are the pieces)
    spines   spine-leaf cables (a switch of a tier above the leaves, or a
             bundle's junction, to a leaf): none running through a node
             other than its two ends, none crossing a leaf-host cable, and
             every crossing between two of them in the band above the
             leaves (where each bundle's cables run across to their
             columns), not among the leaf rows; and the cables among the
             tiers above (spine-core, a bundle's arms): none through a
             node other than its ends either (a tier wrapped into rows)
    units=N  drawn as N panels, one per scalable unit (--panels su; the
             leaves hosts' cables join, hosts by name, computed here): each
             unit's leaves and their hosts in one panel of its own, titled
             "unit <its hosts>"
    railrows=K each rail's leaves in at most K rows (their centres' y within 1 pt)
    panels=N a rail-optimized fabric drawn as N panels, one per rail (a
             leaf's rail: the device, "dgx001 mlx5_2", most of its hosts'
             cables come from; computed here): each panel (an SVG cluster
             rail-K) holds the boxes of its rail's leaves and their hosts
             and no other leaf, no switch above the leaves is in a panel
             (the spines are shared), no two panels overlap; each panel
             titled "rail <device>", its title inside its frame
Prints the measured figures.
"""
import re
import sys
import xml.etree.ElementTree as ET
from collections import deque

NS = '{http://www.w3.org/2000/svg}'


def parse_net(p):
    nodes, links = {}, []
    cur = guid = None
    for line in open(p):
        m = re.match(r'(switchguid|caguid)=0x([0-9a-fA-F]+)', line)
        if m:
            guid = int(m.group(2), 16)
            continue
        m = re.match(r'(Switch|Ca)\s+\d+\s+"([^"]+)"\s*#\s*"([^"]*)"', line)
        if m:
            cur = m.group(2)
            nodes[cur] = {'type': m.group(1), 'guid': guid, 'desc': m.group(3)}
            continue
        m = re.match(r'\[(\d+)\]\s*"([^"]+)"\[(\d+)\]', line)
        if m and cur:
            links.append((cur, m.group(2)))
    return nodes, links


def levels(nodes, links):
    adj = {}
    for a, b in links:
        adj.setdefault(a, set()).add(b)
        adj.setdefault(b, set()).add(a)
    an = {k for k, v in nodes.items() if v['type'] == 'Ca' and 'Aggregation Node' in v['desc']}
    lv, q = {}, deque()
    for k, v in nodes.items():
        if v['type'] == 'Switch' and any(nodes[p]['type'] == 'Ca' and p not in an for p in adj.get(k, ())):
            lv[k] = 1
            q.append(k)
    while q:
        k = q.popleft()
        for p in adj.get(k, ()):
            if nodes[p]['type'] == 'Switch' and p not in lv:
                lv[p] = lv[k] + 1
                q.append(p)
    for k, v in nodes.items():
        if v['type'] == 'Ca' and k not in an:
            lv[k] = 0
    return lv, an, adj


def pt(v):
    m = re.match(r'([0-9.]+)(pt|px)?$', v)
    n = float(m.group(1))
    return n if m.group(2) == 'px' else n * 96 / 72


def bbox(g):
    xs, ys = [], []
    for e in g.iter():
        if e.tag == NS + 'polygon':
            for p in e.get('points').split():
                x, y = p.split(',')
                xs.append(float(x))
                ys.append(float(y))
        elif e.tag == NS + 'ellipse':
            cx, cy, rx, ry = (float(e.get(a)) for a in ('cx', 'cy', 'rx', 'ry'))
            xs += [cx - rx, cx + rx]
            ys += [cy - ry, cy + ry]
        elif e.tag == NS + 'path' and g.get('class') == 'node':
            for x, y in re.findall(r'(-?[0-9.]+),(-?[0-9.]+)', e.get('d')):
                xs.append(float(x))
                ys.append(float(y))
    if not xs:
        return None
    return min(xs), min(ys), max(xs), max(ys)


def path_points(g):
    pts = []
    for e in g.iter(NS + 'path'):
        pts += [(float(x), float(y)) for x, y in re.findall(r'(-?[0-9.]+),(-?[0-9.]+)', e.get('d'))]
    return pts


def seg_cross(p, q, r, s):
    """Whether segments pq and rs cross properly (touching ends do not count)."""
    def orient(a, b, c):
        v = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
        return 0 if abs(v) < 1e-6 else (1 if v > 0 else -1)
    return (orient(p, q, r) * orient(p, q, s) < 0) and (orient(r, s, p) * orient(r, s, q) < 0)


def seg_box(p, q, b):
    """Whether segment pq runs through the inside of box b (x0, y0, x1, y1), shrunk by 1."""
    x0, y0, x1, y1 = b[0] + 1, b[1] + 1, b[2] - 1, b[3] - 1
    if x0 >= x1 or y0 >= y1:
        return False
    t0, t1 = 0.0, 1.0
    dx, dy = q[0] - p[0], q[1] - p[1]
    for pp, qq in ((-dx, p[0] - x0), (dx, x1 - p[0]), (-dy, p[1] - y0), (dy, y1 - p[1])):
        if pp == 0:
            if qq < 0:
                return False
            continue
        t = qq / pp
        if pp < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 >= t1:
            return False
    return True


BIN = 200.0


def bins(x0, x1):
    return range(int(x0 // BIN), int(x1 // BIN) + 1)


def check_blocks(root, box, lv, bad):
    """Leaf-host cables: hosts under their leaf, no crossings, nothing run through."""
    edges = []  # (leaf, host end, segments)
    for g in root.iter(NS + 'g'):
        if g.get('class') != 'edge':
            continue
        t = g.find(NS + 'title')
        if t is None or '--' not in (t.text or ''):
            continue
        a, b = t.text.split('--', 1)
        ta, tb = lv.get(a), lv.get(b)
        if ta == 1 and tb == 0:
            leaf, host = a, b
        elif tb == 1 and ta == 0:
            leaf, host = b, a
        else:
            continue
        pts = path_points(g)
        edges.append((leaf, host, list(zip(pts, pts[1:]))))
    leaves_of = {}
    for leaf, host, _ in edges:
        leaves_of.setdefault(host, set()).add(leaf)
    under, n_blocks = 0, 0
    hosts_of = {}
    for host, ls in leaves_of.items():
        if len(ls) == 1 and host in box:
            hosts_of.setdefault(next(iter(ls)), []).append(host)
    for leaf, hs in hosts_of.items():
        if leaf not in box:
            continue
        n_blocks += 1
        lx = (box[leaf][0] + box[leaf][2]) / 2
        x0, x1 = min(box[h][0] for h in hs), max(box[h][2] for h in hs)
        if x0 <= lx <= x1:
            under += 1
    if under < n_blocks:
        bad.append('%d of %d leaves have their hosts elsewhere, not under them' % (n_blocks - under, n_blocks))
    # Segments binned by x: crossings between different leaves' cables; boxes run through.
    seg_bins, box_bins = {}, {}
    for i, (leaf, host, segs) in enumerate(edges):
        for j, (p, q) in enumerate(segs):
            for k in bins(min(p[0], q[0]), max(p[0], q[0])):
                seg_bins.setdefault(k, []).append((i, j))
    for name, b in box.items():
        for k in bins(b[0], b[2]):
            box_bins.setdefault(k, []).append(name)
    crossings, through = set(), set()
    for k, v in seg_bins.items():
        for x in range(len(v)):
            i, j = v[x]
            p, q = edges[i][2][j]
            for y in range(x + 1, len(v)):
                i2, j2 = v[y]
                if edges[i2][0] == edges[i][0]:
                    continue
                if seg_cross(p, q, *edges[i2][2][j2]):
                    crossings.add((min(i, i2), max(i, i2)))
            for name in box_bins.get(k, ()):
                if name not in (edges[i][0], edges[i][1]) and seg_box(p, q, box[name]):
                    through.add((i, name))
    overlaps = set()
    for k, names in box_bins.items():
        for x in range(len(names)):
            a = box[names[x]]
            for y in range(x + 1, len(names)):
                b = box[names[y]]
                if min(a[2], b[2]) - max(a[0], b[0]) > 1 and min(a[3], b[3]) - max(a[1], b[1]) > 1:
                    overlaps.add(tuple(sorted((names[x], names[y]))))
    if overlaps:
        bad.append('%d pairs of nodes overlap, e.g. %s' % (len(overlaps), sorted(overlaps)[0]))
    if crossings:
        bad.append('%d pairs of leaf-host cables of different leaves cross' % len(crossings))
    if through:
        bad.append('%d times a leaf-host cable runs through a node other than its ends' % len(through))
    print('blocks: %d leaves with their hosts under them of %d; %d leaf-host cables, %d crossings, %d through a node'
          % (under, n_blocks, len(edges), len(crossings), len(through)))


def edge_ends(g):
    t = g.find(NS + 'title')
    if t is None or '--' not in (t.text or ''):
        return None
    return t.text.split('--', 1)


def seg_point(p, q, r, s):
    """Where the lines of segments pq and rs meet (they cross)."""
    d = (q[0] - p[0]) * (s[1] - r[1]) - (q[1] - p[1]) * (s[0] - r[0])
    t = ((r[0] - p[0]) * (s[1] - r[1]) - (r[1] - p[1]) * (s[0] - r[0])) / d
    return p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])


def check_spines(root, box, lv, bad):
    """Spine-leaf cables: through no node, across no leaf-host cable, crossing each other only above the leaves."""
    up, down, high = [], [], []  # (ends, segments): spine-leaf cables; leaf-host cables; the others above the leaves
    for g in root.iter(NS + 'g'):
        if g.get('class') != 'edge':
            continue
        ab = edge_ends(g)
        if not ab:
            continue
        a, b = ab
        ta = 9 if re.match(r'b\d+$', a) else lv.get(a)
        tb = 9 if re.match(r'b\d+$', b) else lv.get(b)
        pts = path_points(g)
        segs = list(zip(pts, pts[1:]))
        if {ta, tb} == {0, 1}:
            down.append(((a, b), segs))
        elif (ta == 1 and tb is not None and tb >= 2) or (tb == 1 and ta is not None and ta >= 2):
            up.append(((a, b), segs))
        elif ta is not None and tb is not None and ta >= 2 and tb >= 2 and (ta, tb) != (9, 9):
            high.append(((a, b), segs))
    leaves = [b for k, b in box.items() if lv.get(k) == 1]
    if not up or not leaves:
        print('spines: no spine-leaf cable drawn')
        return
    top = min(b[1] for b in leaves)  # SVG y grows downwards
    seg_bins, box_bins = {}, {}
    for i, (_, segs) in enumerate(up + down):
        for j, (p, q) in enumerate(segs):
            for k in bins(min(p[0], q[0]), max(p[0], q[0])):
                seg_bins.setdefault(k, []).append((i, j))
    for name, b in box.items():
        for k in bins(b[0], b[2]):
            box_bins.setdefault(k, []).append(name)
    allc = up + down
    through, with_hosts, among, low = set(), set(), set(), set()
    for k, v in seg_bins.items():
        for x in range(len(v)):
            i, j = v[x]
            if i >= len(up):
                continue
            p, q = allc[i][1][j]
            for name in box_bins.get(k, ()):
                if name not in allc[i][0] and seg_box(p, q, box[name]):
                    through.add((i, name))
            for y in range(len(v)):
                i2, j2 = v[y]
                if i2 == i or (i2 < len(up) and i2 < i):
                    continue
                r, s2 = allc[i2][1][j2]
                if not seg_cross(p, q, r, s2):
                    continue
                if i2 >= len(up):
                    with_hosts.add((i, i2))
                    continue
                among.add((min(i, i2), max(i, i2)))
                if seg_point(p, q, r, s2)[1] > top:
                    low.add((min(i, i2), max(i, i2)))
    # The cables among the tiers above (spine-core, and the bundles' arms): through no node either
    # (a tier wrapped into rows: the upper row's cables pass the lower's between its boxes).
    high_through = set()
    for i, (ends, segs) in enumerate(high):
        for p, q in segs:
            for k in bins(min(p[0], q[0]), max(p[0], q[0])):
                for name in box_bins.get(k, ()):
                    if name not in ends and seg_box(p, q, box[name]):
                        high_through.add((i, name))
    if through:
        i, name = sorted(through)[0]
        bad.append('%d times a spine-leaf cable runs through a node other than its ends (%s--%s through %s)'
                   % (len(through), allc[i][0][0], allc[i][0][1], name))
    if high_through:
        i, name = sorted(high_through)[0]
        bad.append('%d times a cable among the tiers above the leaves runs through a node other than its ends '
                   '(%s--%s through %s)' % (len(high_through), high[i][0][0], high[i][0][1], name))
    if with_hosts:
        bad.append('%d pairs of a spine-leaf and a leaf-host cable cross' % len(with_hosts))
    if low:
        bad.append('%d pairs of spine-leaf cables cross among the leaf rows (below y %.1f)' % (len(low), top))
    print('spines: %d spine-leaf cables, %d through a node, %d crossing a leaf-host cable, '
          '%d pairs crossing each other (%d among the leaf rows); %d cables above, %d through a node'
          % (len(up), len(through), len(with_hosts), len(among), len(low), len(high), len(high_through)))


def leaf_rails(nodes, lv, an, adj):
    """Each leaf's rail: the device most of its host CAs name, when more than half do."""
    rails = {}
    for k, t in lv.items():
        if t != 1:
            continue
        devs = [nodes[p]['desc'].split()[1] for p in adj.get(k, ())
                if nodes[p]['type'] == 'Ca' and p not in an and len(nodes[p]['desc'].split()) > 1]
        hosts = [p for p in adj.get(k, ()) if nodes[p]['type'] == 'Ca' and p not in an]
        if devs:
            best = max(sorted(set(devs)), key=devs.count)
            if 2 * devs.count(best) > len(hosts):
                rails[k] = best
    return rails


def inside(b, c):
    return b[0] >= c[0] and b[2] <= c[2] and b[1] >= c[1] and b[3] <= c[3]


def panel_frames(root):
    """The rail panels drawn (SVG clusters rail-K): id -> (frame box, title text, title's x, y)."""
    panels = {}
    for g in root.iter(NS + 'g'):
        if g.get('class') == 'cluster' and (g.get('id') or '').startswith('rail-'):
            pts = [(float(x), float(y)) for e in g.iter(NS + 'path')
                   for x, y in re.findall(r'(-?[0-9.]+),(-?[0-9.]+)', e.get('d'))]
            t = next(g.iter(NS + 'text'), None)
            if pts:
                panels[g.get('id')] = ((min(p[0] for p in pts), min(p[1] for p in pts),
                                        max(p[0] for p in pts), max(p[1] for p in pts)),
                                       t.text if t is not None else None,
                                       float(t.get('x')) if t is not None else None,
                                       float(t.get('y')) if t is not None else None)
    return panels


def stacked(frames):
    """Whether a panel stands below another (rows of panels, on ibscan's grid): not side by side."""
    fs = list(frames)
    return any(min(a[2], c[2]) > max(a[0], c[0]) and (a[1] >= c[3] or c[1] >= a[3])
               for i, a in enumerate(fs) for c in fs[i + 1:])


def check_panels(root, box, nodes, lv, an, adj, want, bad, max_rows=1 << 30):
    """One panel per rail: its leaves and their hosts in it, no other leaf and no spine; its
    leaves in at most max_rows rows; its title ("rail mlx5_2") inside its frame."""
    found = panel_frames(root)
    panels = {k: v[0] for k, v in found.items()}
    rails = leaf_rails(nodes, lv, an, adj)
    if len(panels) != want:
        bad.append('%d panels drawn, want %d (rails here: %s)' % (len(panels), want, sorted(set(rails.values()))))
    panel_of, miss = {}, []
    for leaf, rail in sorted(rails.items()):
        if leaf not in box or not want:
            continue
        ps = [p for p, c in panels.items() if inside(box[leaf], c)]
        if len(ps) != 1:
            miss.append('%s (rail %s) in %d' % (leaf, rail, len(ps)))
            continue
        panel_of.setdefault(rail, set()).add(ps[0])
        for h in adj.get(leaf, ()):
            if nodes[h]['type'] == 'Ca' and h not in an:
                hb = box.get(h) or box.get('g-%016x' % nodes[leaf]['guid'])
                if hb and not inside(hb, panels[ps[0]]):
                    bad.append('host %s of leaf %s is outside its panel' % (h, leaf))
                    break
    if miss:
        bad.append('%d leaves not in exactly one panel, e.g. %s' % (len(miss), miss[0]))
    for rail, ps in panel_of.items():
        if len(ps) != 1:
            bad.append('rail %s is drawn in %d panels' % (rail, len(ps)))
            continue
        ys = sorted(set(round((box[k][1] + box[k][3]) / 2) for k, r in rails.items() if r == rail and k in box))
        if len(ys) > max_rows:
            bad.append('the leaves of rail %s are in %d rows (y %s)' % (rail, len(ys), ys))
        fr, text, tx, ty = found[next(iter(ps))]
        if text != 'rail ' + rail:
            bad.append('panel %s of rail %s is titled %r' % (next(iter(ps)), rail, text))
        elif not (fr[0] <= tx <= fr[2] and fr[1] <= ty <= fr[3]):
            bad.append('the title of rail %s is outside its frame' % rail)
    if len(set(frozenset(v) for v in panel_of.values())) != len(panel_of):
        bad.append('two rails share a panel')
    for k, b in box.items():
        if not k.startswith('g-') and (lv.get(k) or 0) >= 2 and any(inside(b, c) for c in panels.values()):
            bad.append('switch %s above the leaves is in a panel' % k)
    names = sorted(panels)
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            a, c = panels[names[i]], panels[names[j]]
            if min(a[2], c[2]) - max(a[0], c[0]) > 0 and min(a[3], c[3]) - max(a[1], c[1]) > 0:
                bad.append('panels %s and %s overlap' % (names[i], names[j]))
    print('panels: %d, rails %s' % (len(panels), ', '.join('%s: %d leaves' % (r, list(rails.values()).count(r))
                                                            for r in sorted(set(rails.values())))))


def check_units(root, box, nodes, lv, an, adj, want, bad):
    """One panel per scalable unit (--panels su): the leaves that hosts join (a host: the first
    word of its CAs' descriptions), all of a unit's leaves and their hosts in its panel and no
    other unit's, titled "unit <hosts>"."""
    up = {}

    def find(x):
        while up.setdefault(x, x) != x:
            x = up[x]
        return x
    for k, t in lv.items():
        if t == 1:
            for p in adj.get(k, ()):
                if nodes[p]['type'] == 'Ca' and p not in an:
                    up[find(k)] = find('host:' + nodes[p]['desc'].split()[0])
    units = {}
    for k, t in lv.items():
        if t == 1 and any(nodes[p]['type'] == 'Ca' and p not in an for p in adj.get(k, ())):
            units.setdefault(find(k), []).append(k)
    found = panel_frames(root)
    if len(found) != want or len(units) != want:
        bad.append('%d panels drawn, %d units here, want %d' % (len(found), len(units), want))
    seen = set()
    for u, leaves in sorted(units.items()):
        ps = {p for leaf in leaves if leaf in box for p, v in found.items() if inside(box[leaf], v[0])}
        if len(ps) != 1:
            bad.append('the leaves of unit %s are in %d panels' % (u, len(ps)))
            continue
        p = ps.pop()
        if p in seen:
            bad.append('two units share panel %s' % p)
        seen.add(p)
        if not (found[p][1] or '').startswith('unit '):
            bad.append('panel %s is titled %r' % (p, found[p][1]))
        for leaf in leaves:
            for h in adj.get(leaf, ()):
                hb = box.get(h) or box.get('g-%016x' % nodes[leaf]['guid'])
                if nodes[h]['type'] == 'Ca' and h not in an and hb and not inside(hb, found[p][0]):
                    bad.append('host %s of unit %s is outside its panel' % (h, u))
    print('units: %d panels, %s' % (len(found), ', '.join(sorted(v[1] or '' for v in found.values()))))


def main():
    svg_p, net_p = sys.argv[1], sys.argv[2]
    checks = sys.argv[3:] or ['size', 'tiers', 'an', 'legend']
    root = ET.parse(svg_p).getroot()
    w, h = pt(root.get('width')), pt(root.get('height'))
    nodes, links = parse_net(net_p)
    lv, an, adj = levels(nodes, links)
    by_id = {'n-%016x' % v['guid']: k for k, v in nodes.items()}
    box, legend, n_edges, elem = {}, None, 0, {}
    for g in root.iter(NS + 'g'):
        gid, cls = g.get('id', ''), g.get('class')
        if cls == 'edge':
            n_edges += 1
        if cls != 'node':
            continue
        b = bbox(g)
        elem[gid] = g
        if gid == 'legend':
            legend = (b, g)
        elif gid in by_id:
            box[by_id[gid]] = b
        elif gid.startswith('g-'):
            box[gid] = b
    bad = []
    print('%s: %.0f x %.0f px at 96 dpi (%.2f:1), %d nodes drawn, %d edges'
          % (svg_p, w, h, w / h, len(box), n_edges))
    for c in checks:
        if c == 'size':
            if max(w, h) > 16000:
                bad.append('a side over 16,000 px: %.0f x %.0f' % (w, h))
            if not 0.25 <= w / h <= 4:
                bad.append('aspect %.2f:1 is outside 1:4 .. 4:1' % (w / h))
        elif c == 'tiers':
            tier = {}
            for k, b in box.items():
                t = 0 if k.startswith('g-') else lv.get(k)
                if t is not None:
                    tier.setdefault(t, []).append(b)
            # Rows of rail panels (each its leaves and their hosts, tests/drawscale.py panels=N): the
            # leaves above the hosts in each panel (and those in none against each other), every
            # tier above the leaves above all of them.
            frames = [v[0] for v in panel_frames(root).values()]
            parts = stacked(frames)
            for t in sorted(tier):
                if t == 0:
                    continue
                if t == 1 and parts:
                    groups = [[[b for b in tier[q] if not any(inside(b, fr) for fr in frames)] for q in (1, 0)]]
                    for fr in frames:
                        # A rail's leaves wrapped into rows: each row of leaves above its blocks' hosts.
                        ups = [b for b in tier[1] if inside(b, fr)]
                        downs = [b for b in tier[0] if inside(b, fr)]
                        ys = sorted(set(b[1] for b in ups))
                        for i, y0 in enumerate(ys):
                            y1 = ys[i + 1] if i + 1 < len(ys) else float('inf')
                            groups.append([[b for b in ups if b[1] == y0],
                                           [b for b in downs if y0 < b[1] < y1]])
                else:
                    groups = [[tier[t], tier.get(t - 1, [])]]
                for up, down in groups:
                    if not up or not down:
                        continue
                    low = max(b[3] for b in up)  # SVG y grows downwards
                    top_below = min(b[1] for b in down)
                    if low >= top_below:
                        bad.append('tier %d reaches down to y %.1f, tier %d up to %.1f' % (t, low, t - 1, top_below))
            print('tiers: ' + ', '.join('%d: %d nodes' % (t, len(tier[t])) for t in sorted(tier)))
        elif c == 'an':
            for a in sorted(an):
                sw = next((p for p in adj.get(a, ()) if nodes[p]['type'] == 'Switch'), None)
                aid = 'n-%016x' % nodes[a]['guid']
                if a in box:
                    bad.append('aggregation node %s is drawn as a node of its own' % a)
                g = elem.get('n-%016x' % nodes[sw]['guid']) if sw else None
                if g is None:
                    bad.append('the switch of aggregation node %s is not drawn' % a)
                    continue
                text = ' '.join(t.text or '' for t in g.iter(NS + 'text'))
                tips = ' '.join(v for e in g.iter() for k, v in e.attrib.items() if k.endswith('title'))
                if 'SHARP AN' not in text or '0x%016x' % nodes[a]['guid'] not in tips:
                    bad.append('switch %s does not show its aggregation node %s (label %r)' % (sw, a, text))
            print('aggregation nodes: %d, each in its switch' % len(an))
        elif c == 'legend':
            if not legend:
                bad.append('no legend')
                continue
            lb, lg = legend
            top = min(b[1] for b in box.values())
            if lb[3] >= top:
                bad.append('the legend reaches down to y %.1f, the nodes start at %.1f' % (lb[3], top))
            if not any(e.get('fill') == 'white' for e in lg.iter(NS + 'polygon')):
                bad.append('the legend has no white background')
        elif c == 'blocks':
            tier_of = {}
            for k in box:
                tier_of[k] = 0 if k.startswith('g-') else lv.get(k)
            ids = {('n-%016x' % v['guid']): tier_of.get(k) for k, v in nodes.items()}
            ids.update({k: 0 for k in box if k.startswith('g-')})
            check_blocks(root, {('n-%016x' % nodes[k]['guid']) if not k.startswith('g-') else k: b
                                for k, b in box.items()}, ids, bad)
        elif c == 'spines':
            ids = {('n-%016x' % v['guid']): lv.get(k) for k, v in nodes.items()}
            ids.update({k: 0 for k in box if k.startswith('g-')})
            check_spines(root, {('n-%016x' % nodes[k]['guid']) if not k.startswith('g-') else k: b
                                for k, b in box.items()}, ids, bad)
        elif c.startswith('panels='):
            rr = [int(x[9:]) for x in checks if x.startswith('railrows=')]
            check_panels(root, box, nodes, lv, an, adj, int(c[7:]), bad, *rr)
        elif c.startswith('units='):
            check_units(root, box, nodes, lv, an, adj, int(c[6:]), bad)
        elif c.startswith('railrows='):
            pass  # with panels=N
        elif c.startswith('edges='):
            if n_edges > int(c[6:]):
                bad.append('%d edges, want at most %s' % (n_edges, c[6:]))
    if bad:
        sys.exit('\n'.join(bad))
    print('ok: ' + ' '.join(checks))


if __name__ == '__main__':
    main()
