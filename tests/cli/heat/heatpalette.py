#!/usr/bin/env python3
"""The heat map's colours kept apart from the colours that mark problems.

heatpalette.py DOT

Every colour of DOT's heat map (each heat edge's colour, each cell of the
legend's scale) must lie at least MIN_DE (CIE76 colour difference, in
CIELAB) from every colour the legend gives a problem (not Active,
degraded, other rate, a finding): a hot cable must not read as a down or
degraded one. The problem colours are read from the legend itself.
"""
import re
import sys

MIN_DE = 25  # about where two colours stop being "the same red" side by side


def lab(h):
    c = [int(h[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    c = [((v + 0.055) / 1.055) ** 2.4 if v > 0.04045 else v / 12.92 for v in c]
    x = (0.4124 * c[0] + 0.3576 * c[1] + 0.1805 * c[2]) / 0.95047
    y = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]
    z = (0.0193 * c[0] + 0.1192 * c[1] + 0.9505 * c[2]) / 1.08883
    f = lambda t: t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116
    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def de(a, b):
    return sum((p - q) ** 2 for p, q in zip(lab(a), lab(b))) ** 0.5


text = open(sys.argv[1]).read()
problems = {c: what for c, what in re.findall(r'<font color="(#[0-9a-f]{6})">([^<]*)</font>', text)
            if re.search(r"not Active|degraded|other rate|finding|warning", what)}
assert len(set(problems)) >= 3, problems
heat = set(re.findall(r'color="(#[0-9a-f]{6})", penwidth=', text))
scale = re.findall(r'<td bgcolor="(#[0-9a-f]{6})" width="16">', text)
assert heat and len(scale) >= 5, (heat, scale)
bad = sorted((round(de(h, p), 1), h, p, problems[p]) for h in heat | set(scale) for p in problems if de(h, p) < MIN_DE)
assert not bad, "heat colours too near a problem's: " + "; ".join(
    "%s is %s from %s (%s)" % (h, d, p, w) for d, h, p, w in bad[:6])
print("%d heat colours, each at least %d from the %d problem colours (nearest %.1f)" % (
    len(heat | set(scale)), MIN_DE, len(set(problems)),
    min(de(h, p) for h in heat | set(scale) for p in problems)))
