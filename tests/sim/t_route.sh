#!/bin/bash
# ibscan route equals ibtracert hop for hop (ports, and the GUID of each node on
# the way) for many endpoint pairs; ibscan path equals `saquery --src-to-dst`;
# routes --dump covers every switch.
. "$(dirname "$0")/lib.sh"
sim_start "$FABRICS/fattree2-small"
pairs="16:40 16:2 40:16 1:111 111:1 17:18 30:100 7:95 2:9 50:51 60:15 99:7 5:6 12:13 33:88 104:22 45:46 70:3 8:110 25:26"
ibs topology --json -o "$TMP/topo.json" || fail "ibscan topology"
n=0
for pr in $pairs; do
	s=${pr%:*} d=${pr#*:}
	sim_run ibtracert "$s" "$d" >"$TMP/tr" 2>/dev/null || fail "ibtracert $s $d"
	ibs route "$s" "$d" --json -o "$TMP/r.json" || fail "ibscan route $s $d exited $?"
	# Hop for hop: out port, the node reached (switch GUID, or the CA's), in port.
	python3 - "$TMP/tr" "$TMP/r.json" "$TMP/topo.json" <<'PY' || fail "route $s -> $d differs from ibtracert"
import json, re, sys
# ibtracert: "[out] -> type port {guid}[in] lid ...": the hops after the source.
# It names a switch by its node GUID (every switch port has it), a CA by the port GUID.
tr = [m.groups() for m in (re.match(r"^\[(\d+)\] -> ([a-z]+) port \{(0x[0-9a-f]+)\}\[(\d+)\]", l)
                           for l in open(sys.argv[1])) if m]
d = json.load(open(sys.argv[2]))
assert d["result"] == "ok", d
node_of = {}
for node in json.load(open(sys.argv[3]))["nodes"]:
    for p in node["ports"]:
        if p["guid"]:
            node_of[int(p["guid"], 16)] = int(node["guid"], 16)
assert len(tr) == len(d["hops"]) and tr, (tr, d["hops"])
for (out, kind, guid, inp), h in zip(tr, d["hops"]):
    assert (int(out), kind, int(inp)) == (h["out_port"], h["type"], h["in_port"]), (out, kind, inp, h)
    want = int(guid, 16) if kind == "switch" else node_of[int(guid, 16)]
    assert want == int(h["guid"], 16), ("GUID", guid, h)
PY
	n=$((n + 1))
done
ok "$n routes equal to ibtracert: ports and the GUID of every switch on the way"

for pr in 16:40 40:16 1:111 33:88 104:22; do
	s=${pr%:*} d=${pr#*:}
	sim_run saquery --src-to-dst "$s:$d" >"$TMP/sa" 2>/dev/null || fail "saquery $s:$d"
	ibs path "$s" "$d" --json -o "$TMP/p.json" || fail "ibscan path $s $d exited $?"
	python3 - "$TMP/sa" "$TMP/p.json" <<'PY' || fail "path $s -> $d differs from saquery"
import ipaddress, json, sys
sa = {}
for l in open(sys.argv[1]):
    if "...." in l:
        k, v = l.strip().split(".", 1)
        sa[k] = v.strip(".")
p = json.load(open(sys.argv[2]))
g = lambda s: ipaddress.IPv6Address(s) if ":" in s else None
assert int(sa["slid"]) == p["slid"] and int(sa["dlid"]) == p["dlid"], (sa, p)
assert g(sa["sgid"]) == ipaddress.IPv6Address(p["sgid"]) and g(sa["dgid"]) == ipaddress.IPv6Address(p["dgid"])
assert int(sa["sl"], 16) == p["sl"]
assert int(sa["mtu"], 16) & 0x3f == p["mtu_code"] and int(sa["rate"], 16) & 0x3f == p["rate_code"]
assert int(sa["pkt_life"], 16) & 0x3f == p["packet_lifetime"]
assert int(sa["pkey"], 16) == p["pkey"]
PY
done
ok "5 PathRecords equal to saquery"

expect_rc 0 ibs routes --dump --json
python3 - "$TMP/out" <<'PY' || fail "routes --dump"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["switches"]) == 15 and all(s["complete"] for s in d["switches"])
# Every switch has a route to every LID 1..111.
for s in d["switches"]:
    assert sorted(r["lid"] for r in s["routes"]) == list(range(1, 112)), s["name"]
PY
ok "routes --dump: 15 switches, a route to every LID"

# The forwarding tables are read by LID (only the switch handles the SMP),
# not by directed route, once the SM has set up routing: each switch's 2
# blocks (LIDs 0-127) once, none by directed route, the same tables.
expect_rc 0 ibs routes --dump --json --record "$TMP/routes.cap"
cp "$TMP/out" "$TMP/routes-live.json"
"$IBSCAN" capture info "$TMP/routes.cap" >"$TMP/info" || fail "capture info"
lid=$(awk '$1 == "SMI" && $2 == "LinearForwardingTable" {print $4}' "$TMP/info")
dr=$(awk '$1 == "SMI-DR" && $2 == "LinearForwardingTable" {print $4}' "$TMP/info")
[ "${lid:-0}" = 30 ] && [ -z "$dr" ] || fail "LFT reads: $lid by LID, ${dr:-0} by directed route: $(grep Linear "$TMP/info")"
"$IBSCAN" routes --dump --json --replay "$TMP/routes.cap" --replay-strict >"$TMP/routes-replay.json" || fail "routes replay"
cmp -s "$TMP/routes-live.json" "$TMP/routes-replay.json" || fail "routes replayed differ"
ok "routes --dump read 30 LFT blocks by LID, none by directed route; the strict replay equal"
expect_rc 2 ibs route 16 9999
grep -q "no port has LID 9999\|not a unicast LID" "$TMP/err" || fail "bad LID message"
expect_rc 2 ibs route node0001
expect_rc 2 ibs routes
sim_stop
t_done
