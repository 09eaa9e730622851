#!/usr/bin/env python3
"""Check docs/exporter.md's table of the other exporters' names against the metrics ibscan serves.

exporter_names.py DOC EXPOSITION...: every ibscan name of the table's first column (and its
label value, where the cell gives one: name{label="value"}) must have a series in one of the
expositions; every name of the treydock and guilbaults columns (with {switch,hca} expanded)
must be a valid Prometheus metric name. Exit 1 with each problem named.
"""
import re
import sys

NAME = re.compile(r"^[a-zA-Z_:][a-zA-Z0-9_:]*$")
CELL = re.compile(r"^`([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{([a-z_]+)=\"([^\"]*)\"\})?`$")


def table(doc):
    text = open(doc).read()
    start = text.index("### The same data in the other exporters' names")
    rows, seen_head = [], False
    for line in text[start:].split("\n"):
        if line.startswith("| ibscan |"):
            seen_head = True
            continue
        if not seen_head:
            continue
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if set(cells[0]) <= set("-"):
            continue
        rows.append(cells)
    return rows


def served(paths):
    series = set()
    for p in paths:
        for line in open(p):
            if line.startswith("#") or not line.strip():
                continue
            m = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s", line)
            if not m:
                continue
            labels = dict(re.findall(r'([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"', m.group(2) or ""))
            series.add((m.group(1), None, None))
            for k, v in labels.items():
                series.add((m.group(1), k, v))
    return series


def main():
    rows, have = table(sys.argv[1]), served(sys.argv[2:])
    bad = []
    if len(rows) < 20:
        bad.append("the table has %d rows: not found or cut short" % len(rows))
    for cells in rows:
        if len(cells) < 3:
            bad.append("a row without three columns: %s" % cells)
            continue
        if cells[0] != "—":
            m = CELL.match(cells[0])
            if not m:
                bad.append("not a metric name: %s" % cells[0])
            elif (m.group(1), m.group(2), m.group(3)) not in have:
                bad.append("ibscan serves no %s" % cells[0])
        for cell in cells[1:3]:
            if cell == "—":
                continue
            name = cell.strip("`")
            for n in (name.replace("{switch,hca}", "switch"), name.replace("{switch,hca}", "hca")):
                if not NAME.match(n):
                    bad.append("not a Prometheus name: %s" % cell)
                    break
    for b in bad:
        print("exporter_names: " + b, file=sys.stderr)
    print("exporter_names: %d rows, %d problems" % (len(rows), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
