#!/usr/bin/env python3
"""Judge a fabric drawing from Graphviz's own layout (`dot -Tjson` of
`ibscan ... --format dot`) against the fabric as `ibscan nodes/links --json`
describe it. Used by tests/cli/t_draw.sh and tests/sim/t_draw.sh.

  drawcheck.py tiers NODES LINKS LAYOUT     every core above every spine above
                                            every leaf above every host (levels
                                            computed here, independently)
  drawcheck.py ratio LAYOUT MAX             width/height of the drawing <= MAX
  drawcheck.py edges LINKS LAYOUT [all]     edges = distinct (node pair, rate,
                                            state) groups of healthy cables +
                                            one per cable with a problem (a
                                            bundle's arms standing for the
                                            full mesh they bundle; an
                                            Aggregation Node's cable none);
                                            'all': hosts drawn alone (--all-hosts)
  drawcheck.py chassis TOPOLOGY LAYOUT NAME
                                            the switches that share a system
                                            image GUID (a director's ASICs)
                                            are in one box, labelled NAME:,
                                            which holds no other node
  drawcheck.py alone LINKS LAYOUT GUID PORT COLOR
                                            that cable is an edge of its own
                                            (id e-A-pA-B-pB), in COLOR
"""
import json
import re
import sys
from collections import deque


def load(p):
    with open(p) as f:
        return json.load(f)


def layout(p):
    g = load(p)
    objs = g.get('objects', [])
    pos = {}
    for o in objs:
        if 'pos' in o:
            x, y = (float(v) for v in o['pos'].split(','))
            pos[o['name']] = (x, y)
    edges = []
    for e in g.get('edges', []):
        if e.get('style') == 'invis':
            continue
        edges.append(e)
    bb = [float(v) for v in g['bb'].split(',')]
    return g, pos, edges, bb


def nid(guid):
    return 'n-%016x' % int(guid, 16)


def levels(nodes, links):
    types = {n['guid']: n['type'] for n in nodes['nodes']}
    adj = {}
    for l in links['links']:
        a, b = l['a']['guid'], l['b']['guid']
        adj.setdefault(a, set()).add(b)
        adj.setdefault(b, set()).add(a)
    lv = {}
    q = deque()
    for g, t in types.items():
        if t == 'switch' and any(types.get(p) == 'ca' for p in adj.get(g, ())):
            lv[g] = 1
            q.append(g)
    while q:
        g = q.popleft()
        for p in adj.get(g, ()):
            if types.get(p) == 'switch' and p not in lv:
                lv[p] = lv[g] + 1
                q.append(p)
    for g, t in types.items():
        if t == 'ca':
            lv[g] = 0
    return lv


def tiers(nodes_p, links_p, lay_p):
    lv = levels(load(nodes_p), load(links_p))
    _, pos, _, _ = layout(lay_p)
    by = {}
    for g, l in lv.items():
        if nid(g) not in pos:
            sys.exit('node %s is not drawn' % g)
        by.setdefault(l, []).append(pos[nid(g)][1])
    top = max(by)
    if top < 1:
        sys.exit('no switch tiers')
    for l in range(1, top + 1):
        if min(by[l]) <= max(by[l - 1]):
            sys.exit('tier %d (lowest y %.1f) is not above tier %d (highest y %.1f)'
                     % (l, min(by[l]), l - 1, max(by[l - 1])))
    print('tiers ok: %s' % ', '.join('%d: %d nodes' % (l, len(by[l])) for l in sorted(by)))


def ratio(lay_p, mx):
    _, _, _, bb = layout(lay_p)
    w, h = bb[2] - bb[0], bb[3] - bb[1]
    if w / h > float(mx):
        sys.exit('drawing is %.0f x %.0f points: ratio %.1f > %s' % (w, h, w / h, mx))
    print('ratio ok: %.0f x %.0f points (%.1f:1)' % (w, h, w / h))


def problem(l):
    return l['state'] != 'Active' or l['degraded']


def edges(links_p, lay_p, all_hosts):
    links = load(links_p)['links']
    _, _, es, _ = layout(lay_p)
    drawn = [e for e in es if e.get('id', '').startswith('e-')]
    if len(drawn) != len(es):
        sys.exit('%d visible edges without an e- id' % (len(es) - len(drawn)))
    groups, alone = set(), 0
    for l in links:
        # A SHARP Aggregation Node is drawn inside its switch's box: its cable is no edge.
        if any('Aggregation Node' in (l[k].get('name') or '') for k in ('a', 'b')):
            continue
        pair = tuple(sorted((l['a']['guid'], l['b']['guid'])))
        if problem(l):
            alone += 1
        else:
            groups.add((pair, l['width'], l['speed'], l['state']))
    # A bundle (a full mesh drawn through junction bN): arms e-<A>-bN (upper) and e-bN-<B> (lower)
    # stand for every pair of an upper and a lower switch, each pair one healthy group.
    ups, downs = {}, {}
    for e in drawn:
        m = re.match(r'e-([0-9a-f]{16})-(b\d+)$', e['id']) or re.match(r'e-(b\d+)-([0-9a-f]{16})$', e['id'])
        if m and m.group(1).startswith('b'):
            downs.setdefault(m.group(1), set()).add(int(m.group(2), 16))
        elif m:
            ups.setdefault(m.group(2), set()).add(int(m.group(1), 16))
    healthy = {}
    for (pair, w, sp, st) in groups:
        healthy.setdefault(tuple(sorted(int(g, 16) for g in pair)), []).append((w, sp))
    covered = 0
    for b in ups:
        for u in ups[b]:
            for d in downs.get(b, ()):
                k = tuple(sorted((u, d)))
                if len(healthy.get(k, ())) != 1:
                    sys.exit('bundle %s: 0x%016x and 0x%016x are not one group of healthy cables' % (b, u, d))
                covered += 1
    want = len(groups) + alone - covered + sum(len(v) for v in ups.values()) + sum(len(v) for v in downs.values())
    if all_hosts and len(drawn) != want:
        sys.exit('%d edges drawn, want %d (%d groups of healthy cables + %d problem cables)'
                 % (len(drawn), want, len(groups), alone))
    if not all_hosts and len(drawn) > want:
        sys.exit('%d edges drawn, more than %d' % (len(drawn), want))
    print('edges ok: %d drawn for %d cables (%d groups + %d alone, %d pairs in %d bundles)'
          % (len(drawn), len(links), len(groups), alone, covered, len(ups)))


def whole(nodes_p, lay_p):
    """Every node of the fabric is drawn (as n-<guid>), nothing left out."""
    nodes = load(nodes_p)['nodes']
    g, _, _, _ = layout(lay_p)
    ids = {o.get('id', '') for o in g.get('objects', [])}
    missing = [n['name'] for n in nodes if nid(n['guid']) not in ids]
    if missing:
        sys.exit('%d of %d nodes not drawn: %s' % (len(missing), len(nodes), ', '.join(missing[:5])))
    print('whole: all %d nodes drawn' % len(nodes))


def alone(links_p, lay_p, guid, port, color):
    _, _, es, _ = layout(lay_p)
    guid, port = int(guid, 16), int(port)
    for l in load(links_p)['links']:
        ends = [(int(l[k]['guid'], 16), l[k]['port']) for k in ('a', 'b')]
        if (guid, port) in ends:
            break
    else:
        sys.exit('no cable at 0x%016x port %d' % (guid, port))
    ends.sort()
    want = 'e-%016x-%d-%016x-%d' % (ends[0][0], ends[0][1], ends[1][0], ends[1][1])
    for e in es:
        if e.get('id') == want:
            if e.get('color', '').lower() != color.lower():
                sys.exit('edge %s is %s, want %s' % (want, e.get('color'), color))
            print('alone ok: %s in %s, label %s' % (want, color, e.get('xlabel')))
            return
    sys.exit('no edge %s of its own (ids: %s)' % (want, ' '.join(sorted(e.get('id', '?') for e in es))))


def chassis(topo_p, lay_p, name):
    topo = load(topo_p)
    g, pos, _, _ = layout(lay_p)
    groups = {}
    for n in topo['nodes']:
        if n['type'] == 'switch':
            groups.setdefault(n['system_image_guid'], []).append(nid(n['guid']))
    groups = {k: v for k, v in groups.items() if len(v) > 1}
    if not groups:
        sys.exit('no chassis in %s: the check proves nothing' % topo_p)
    clusters = {o['name']: o for o in g.get('objects', []) if o.get('name', '').startswith('cluster_chassis-')}
    for sysimg, members in groups.items():
        c = clusters.get('cluster_chassis-%016x' % int(sysimg, 16))
        if not c:
            sys.exit('chassis %s is not drawn as a box' % sysimg)
        if not c.get('label', '').startswith(name + ': chassis '):
            sys.exit('chassis %s is labelled %r, want %s: ...' % (sysimg, c.get('label'), name))
        x0, y0, x1, y1 = (float(v) for v in c['bb'].split(','))
        inside = {k for k, (x, y) in pos.items() if x0 <= x <= x1 and y0 <= y <= y1 and not k.startswith('legend')}
        if inside != set(members):
            sys.exit('chassis %s box holds %s, want %s' % (sysimg, sorted(inside), sorted(members)))
        print('chassis ok: %s, %d ASICs in one box' % (c['label'], len(members)))


cmd = sys.argv[1]
if cmd == 'tiers':
    tiers(*sys.argv[2:5])
elif cmd == 'ratio':
    ratio(*sys.argv[2:4])
elif cmd == 'edges':
    edges(sys.argv[2], sys.argv[3], len(sys.argv) > 4 and sys.argv[4] == 'all')
elif cmd == 'whole':
    whole(*sys.argv[2:4])
elif cmd == 'chassis':
    chassis(*sys.argv[2:5])
elif cmd == 'alone':
    alone(*sys.argv[2:7])
else:
    sys.exit('unknown check ' + cmd)
