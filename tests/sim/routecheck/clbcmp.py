#!/usr/bin/env python3
# check_lft_balance -v output against `ibscan routes --check --json`: the CA
# LIDs each switch port carries must be equal, port by port.
# Usage: clbcmp.py CLB_OUTPUT IBSCAN_JSON
import json, re, sys
# check_lft_balance -v: per switch "…Switch Port Usage: NAME, GUID" then "Port NNN: count".
clb, cur = {}, None
for l in open(sys.argv[1]):
    m = re.match(r"^(?:Unbalanced )?Switch Port Usage: .*, (0x[0-9a-f]+)$", l.strip())
    if m:
        cur = clb.setdefault(int(m.group(1), 16), {})
        continue
    m = re.match(r"^Port (\d+): (\d+)$", l.strip())
    if m and cur is not None:
        cur[int(m.group(1))] = int(m.group(2))
d = json.load(open(sys.argv[2]))
ibs = {int(w["switch"]["guid"], 16): {p["port"]: p["lids"] for p in w["ports"] if p["role"] != "host"}
       for w in d["switches"]}
assert clb and set(clb) == set(ibs), (sorted(clb), sorted(ibs))
# check_lft_balance leaves out a port it takes for a host's: one that carries
# exactly one LID (lids_per_port) while some host's LIDs all leave by one port
# (its Perl compares the peer's name with == , true for any two names).
skipped = 0
for g in clb:
    for p, n in ibs[g].items():
        if p in clb[g]:
            assert clb[g][p] == n, (hex(g), p, clb[g][p], n)
        else:
            assert n == 1, ("check_lft_balance left out", hex(g), p, n)
            skipped += 1
    assert set(clb[g]) <= set(ibs[g]), (hex(g), clb[g], ibs[g])
print("switches", len(clb), "ports", sum(len(v) for v in clb.values()), "left out by check_lft_balance", skipped)
