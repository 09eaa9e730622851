#!/bin/bash
# Switches of more than 36 ports, as real fabrics have them: bigswitch41 (two
# 41-port Quantum switches, the SHARP Aggregation Node on port 41, cables on
# ports 37-40, one of them from port 39 to port 40 of the same switch) and
# bigswitch129 (a 129-port Quantum-2 with hosts on ports 65-128, the
# Aggregation Node on port 129, a leaf on port 96). For each: the walk equals
# ibnetdiscover's; the netfile ibscan writes walks back to the same fabric in
# a fresh ibsim; Slurm's topology.conf lists every host on its switch and no
# Aggregation Node; the drawing has every cable; the forwarding tables
# (read by LID) equal ibroute's; JSON leaves port-0-only PortInfo fields null
# on external ports; health finds the looped cable, and only it.
. "$(dirname "$0")/lib.sh"

for fabric in bigswitch41 bigswitch129; do
	sim_start "$FABRICS/$fabric"
	compare_with_ibnetdiscover "$fabric"
	python3 "$ROOT/tests/schema_check.py" topology "$TMP/$fabric.json" || fail "$fabric: JSON does not match the schema"

	# Port-0-only fields: null on every external switch port, set on port 0.
	python3 - "$TMP/$fabric.json" <<'PY' || fail "$fabric: port-0-only PortInfo fields"
import json, sys
d = json.load(open(sys.argv[1]))
keys = ("capability_mask", "sm_lid", "guid_cap", "gid_prefix")
for n in d["nodes"]:
    for p in n["ports"]:
        if p["state"] is None:
            continue
        ext = n["type"] == "switch" and p["port"] != 0
        for k in keys:
            assert (p[k] is None) == ext, (n["name"], p["port"], k, p[k])
        assert p["inferred"] is False, (n["name"], p["port"])
PY

	# Netfile: walked again in a fresh simulator, the same nodes and links.
	ibs topology --format netfile -o "$TMP/$fabric.net" || fail "$fabric: netfile"
	ibs topology --format slurm -o "$TMP/$fabric.slurm" || fail "$fabric: slurm"
	ibs topology --format dot --all-hosts -o "$TMP/$fabric.dot" || fail "$fabric: dot"
	ibs links --json -o "$TMP/$fabric.links.json" || fail "$fabric: links"
	ibs nodes --json -o "$TMP/$fabric.nodes.json" || fail "$fabric: nodes"

	# Forwarding tables by LID, against ibroute on every switch.
	ibs routes --dump --json --record "$TMP/$fabric.routes.cap" -o "$TMP/$fabric.routes.json" ||
		fail "$fabric: routes --dump"
	"$IBSCAN" capture info "$TMP/$fabric.routes.cap" >"$TMP/$fabric.info" || fail "capture info"
	! awk '$1 == "SMI-DR" && $2 == "LinearForwardingTable"' "$TMP/$fabric.info" | grep -q . ||
		fail "$fabric: LFT blocks read by directed route"
	for lid in $(jq -r '.switches[].lid' "$TMP/$fabric.routes.json"); do
		sim_run ibroute "$lid" >"$TMP/ibroute.$lid" 2>&1 || fail "$fabric: ibroute $lid"
	done
	python3 - "$TMP/$fabric.routes.json" "$TMP" <<'PY' || fail "$fabric: forwarding tables differ from ibroute"
import json, re, sys
d = json.load(open(sys.argv[1]))
high = 0
for s in d["switches"]:
    ref = {}
    for l in open(f"{sys.argv[2]}/ibroute.{s['lid']}"):
        m = re.match(r"^0x([0-9a-f]+) (\d+) :", l)
        if m:
            ref[int(m.group(1), 16)] = int(m.group(2))
    got = {r["lid"]: r["port"] for r in s["routes"]}
    assert s["complete"], s["name"]
    assert got == ref, (s["name"], sorted(set(got.items()) ^ set(ref.items()))[:6])
    high = max([high] + list(got.values()))
print("highest egress port routed:", high)
PY
	sim_stop

	sim_start "$TMP/$fabric.net"
	ibs topology --json -o "$TMP/$fabric.again.json" || fail "$fabric: walk of the netfile"
	sim_stop
	for x in "$fabric" "$fabric.again"; do
		python3 "$ROOT/tests/sim/ibscan2norm.py" "$TMP/$x.json" -o "$TMP/$x.norm"
		grep -v '^port' "$TMP/$x.norm" >"$TMP/$x.nl"
	done
	bash "$ROOT/tests/sim/compare.sh" "$TMP/$fabric.nl" "$TMP/$fabric.again.nl" || fail "$fabric: netfile round trip differs"

	# Slurm: every host on its switch's line (from ibnetdiscover's cables), no Aggregation Node.
	python3 - "$TMP/$fabric.ibnd" "$TMP/$fabric.slurm" <<'PY' || fail "$fabric: slurm topology.conf"
import re, sys
ibnd, conf = open(sys.argv[1]).read(), open(sys.argv[2]).read()
want = {}
sw = None
for l in ibnd.splitlines():
    m = re.match(r'^Switch\s+\d+\s+"[^"]+"\s+# "([^"]+)"', l)
    if m:
        sw = m.group(1)
        continue
    if not l.strip():
        sw = None
    m = re.match(r'^\[(\d+)\]\s+"H-[^"]+"\[1\]\(\w+\)\s+# "([^"]+)"', l)
    if sw and m and "Aggregation Node" not in m.group(2):
        want.setdefault(sw, set()).add(m.group(2).split()[0])
lines = [l for l in conf.splitlines() if l.startswith("SwitchName=")]
assert "Aggregation" not in conf and "an1" not in conf, conf
got = set()
for l in lines:
    m = re.search(r"Nodes=(\S+)", l)
    if m:
        for part in re.findall(r"[a-z]+\[[^\]]+\]|[a-z]+\d+", m.group(1)):
            if "[" in part:
                pre, rng = part[:-1].split("[")
                for r in rng.split(","):
                    a, _, b = r.partition("-")
                    for i in range(int(a), int(b or a) + 1):
                        got.add(pre + str(i).zfill(len(a)))
            else:
                got.add(part)
allw = set().union(*want.values())
assert got == allw, (sorted(got ^ allw))
assert len(lines) >= len(want), lines
PY

	# Drawing: every cable drawn, Graphviz lays it out.
	dot -Tjson "$TMP/$fabric.dot" >"$TMP/$fabric.dot.json" || fail "$fabric: dot rejects the drawing"
	python3 "$ROOT/tests/drawcheck.py" edges "$TMP/$fabric.links.json" "$TMP/$fabric.dot.json" all ||
		fail "$fabric: cables missing from the drawing"
	ok "$fabric: walk, netfile round trip, Slurm, drawing and LFTs (by LID, equal to ibroute) agree"
done

# Health: the looped cable of bigswitch41, and only it; bigswitch129 is clean.
sim_start "$FABRICS/bigswitch41"
expect_rc 1 ibs health --no-counters --format json
jq -e '[.findings[].check] == ["link.self_loop"] and .findings[0].port == 39 and .findings[0].peer.port == 40
	and .counts["link.self_loop"] == 1' "$TMP/out" >/dev/null || fail "bigswitch41: health: $(cat "$TMP/out")"
grep -q '^\[39\].*"S-[0-9a-f]*"\[40\]' "$TMP/bigswitch41.ibnd" || fail "ibnetdiscover does not show the looped cable"
sim_stop
sim_start "$FABRICS/bigswitch129"
expect_rc 0 ibs health --no-counters
sim_stop
ok "health: the cable from q1 port 39 to port 40 is link.self_loop (WARNING), as ibnetdiscover shows it; bigswitch129 OK"
t_done
