#!/usr/bin/env python3
"""The heat map's counts against `ibscan routes --through`, cable by cable.

heatcmp.py IBSCAN CAPTURE DOT [SAMPLE_RE]

Every edge of DOT (`topology --format dot --heat routes`) whose tooltip
holds per-cable lines "A [pa] -- [pb] B RATE: routes: N (up U, down D)":
for the cables whose line matches SAMPLE_RE (all without it), `routes
--through A:pa --json` on the same capture must give N routes; for a
host's cable, U must be the host's routes from it and D those to it (the
drawing puts hosts below their switch). Then the colours: the busiest
edge darkest, the least busy lightest, and lightness never rising with
the count (an edge's count: its busiest cable's busier way); the legend's
scale runs from 0 to the most of those counts.
"""
import json
import re
import subprocess
import sys

ibscan, cap, dot = sys.argv[1:4]
sample = re.compile(sys.argv[4]) if len(sys.argv) > 4 else None
cable = re.compile(r"^(.*) \[(\d+)\] -- \[(\d+)\] (.*?) (\S*): routes: (\d+) \(up (\d+), down (\d+)\)$")
edge = re.compile(r'\[id="(e-[^"]*)".*?color="(#[0-9a-f]{6})", penwidth=([\d.]+), tooltip="((?:[^"\\]|\\.)*)"')
# A cable drawn alone for a problem keeps the problem's colour: its tooltip's counts follow "\n".
alone = re.compile(r'\[id="(e-[^"]*)".*tooltip="((?:[^"\\]|\\.)*)"')

edges, cables = [], []
text = open(dot).read()
for line in text.splitlines():
    m = edge.search(line)
    if m and "routes: " in m.group(4):
        tip = m.group(4).replace('\\"', '"').split("\\n")
        mine = [cable.match(t) for t in tip[1:]]
        assert mine and all(mine), (m.group(1), tip)
        busiest = max(max(int(c.group(7)), int(c.group(8))) for c in mine)
        head = re.match(r"routes: (\d+) \(up (\d+), down (\d+)\)", tip[0])
        assert head, tip[0]
        assert max(int(head.group(2)), int(head.group(3))) == busiest, (tip[0], busiest)
        edges.append((busiest, m.group(2), float(m.group(3)), m.group(1)))
        cables += mine
        continue
    m = alone.search(line)
    if m and "routes: " in m.group(2):
        raise SystemExit("a cable drawn alone in %s: this fabric has none to check" % m.group(1))
assert edges, "no edge with routes in " + dot

checked = 0
for c in cables:
    a, pa, pb, b, rate, n, up, down = c.groups()
    if sample and not sample.search(c.group(0)):
        continue
    out = subprocess.run([ibscan, "routes", "--through", "%s:%s" % (a, pa), "--replay", cap, "--json"],
                         capture_output=True, text=True)
    assert out.returncode == 0, (a, pa, out.stderr)
    d = json.loads(out.stdout)
    assert d["routes"] == int(n), "%s [%s] -- [%s] %s: the heat map says %s routes, routes --through %d" % (
        a, pa, pb, b, n, d["routes"])
    assert int(up) + int(down) == int(n), c.group(0)
    for end in (a, b):
        host = [x for x in d["cas_crossing"] if x["name"] == end]
        if host and not end.startswith("MF0;"):
            h = host[0]
            assert (h["from"], h["to"]) == (int(up), int(down)), (c.group(0), h)
    checked += 1
assert checked, "no cable matched the sample"


def lightness(hexc):
    r, g, b = (int(hexc[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


edges.sort()
lo, hi = edges[0][0], edges[-1][0]
assert lo < hi, (lo, hi)
assert [e[1] for e in edges if e[0] == hi] == ["#081d58"] * len([e for e in edges if e[0] == hi]), edges[-3:]
for (v1, c1, p1, i1), (v2, c2, p2, i2) in zip(edges, edges[1:]):
    assert lightness(c2) <= lightness(c1) + 1e-9, "%s (%d routes) %s is lighter than %s (%d) %s" % (
        i2, v2, c2, i1, v1, c1)
    assert p2 >= p1, (i1, p1, i2, p2)
# Half the busiest or less: no darker than the middle of the ramp (#1d91c0, mid blue).
for v, c, p, i in edges:
    if 2 * v <= hi:
        assert lightness(c) >= lightness("#1d91c0") - 1e-9, (i, v, c, hi)
leg = re.search(r'<td align="right">(\d+)</td>.*?<td align="left">(\d+)</td>', text)
assert leg and (int(leg.group(1)), int(leg.group(2))) == (0, hi), (leg and leg.groups(), hi)
print("%d edges, %d cables, %d checked against routes --through; edges from %d to %d routes, scale 0 to %d" % (
    len(edges), len(cables), checked, lo, hi, hi))
