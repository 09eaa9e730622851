#!/bin/bash
# ibscan route equals ibtracert hop for hop for many endpoint pairs; ibscan
# path equals `saquery --src-to-dst`; routes --dump covers every switch.
. "$(dirname "$0")/lib.sh"
sim_start "$FABRICS/fattree2-small"
pairs="16:40 16:2 40:16 1:111 111:1 17:18 30:100 7:95 2:9 50:51 60:15 99:7 5:6 12:13 33:88 104:22 45:46 70:3 8:110 25:26"
n=0
for pr in $pairs; do
	s=${pr%:*} d=${pr#*:}
	sim_run ibtracert "$s" "$d" >"$TMP/tr" 2>/dev/null || fail "ibtracert $s $d"
	ibs route "$s" "$d" --json -o "$TMP/r.json" || fail "ibscan route $s $d exited $?"
	# ibtracert: "[out] -> type port {guid}[in] ...": the hops after the source.
	sed -n 's/^\[\([0-9]*\)\] -> [a-z]* port {\(0x[0-9a-f]*\)}\[\([0-9]*\)\].*/\1 \2 \3/p' "$TMP/tr" >"$TMP/a"
	python3 - "$TMP/r.json" >"$TMP/b" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["result"] == "ok", d
for h in d["hops"]:
    print(h["out_port"], h["guid"], h["in_port"])
PY
	# ibtracert names CA ports by port GUID, switches by node GUID: compare ports and switch GUIDs.
	paste -d' ' "$TMP/a" "$TMP/b" | awk '{ if ($1 != $4 || $3 != $6) bad = 1 } END { exit bad }' ||
		{ paste "$TMP/a" "$TMP/b"; fail "route $s -> $d differs from ibtracert"; }
	[ "$(wc -l <"$TMP/a")" = "$(wc -l <"$TMP/b")" ] || fail "route $s -> $d: hop count differs"
	n=$((n + 1))
done
ok "$n routes equal to ibtracert"

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
expect_rc 2 ibs route 16 9999
grep -q "no port has LID 9999\|not a unicast LID" "$TMP/err" || fail "bad LID message"
expect_rc 2 ibs route node0001
expect_rc 2 ibs routes
sim_stop
