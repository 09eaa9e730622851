#!/bin/bash
# routes --check reads the switches' SLtoVLMappingTables (the (in, out)
# pairs the routes use between switches) and the SA's PathRecord SL of each
# route that crosses the cyclic part, on ring4 under minhop, where the
# routes loop round the ring and the SA puts every path on SL 0:
# - OpenSM's default tables (SL 0 on VL 0): the credit loop on VL 0;
# - OpenSM's QoS with switch ports mapping SL 0 to VL 1 (qos_swe_sl2vl):
#   the same loop, on VL 1;
# each time every hop's VL equals the one `smpquery sl2vl LID OUT` gives
# SL 0 for that in-port, and the capture the check recorded replays to
# the same document.
. "$(dirname "$0")/lib.sh"

# check NAME WANT_VL: the check, its VLs against smpquery, and its replay.
check() {
	local name=$1 want=$2 lid out
	expect_rc 2 ibs routes --check --json -o "$TMP/$name.json" --record "$TMP/$name.cap"
	python3 - "$TMP/$name.json" "$want" >"$TMP/$name.hops" <<'PY' || fail "$name: routes --check"
import json, sys
d = json.load(open(sys.argv[1]))
want = int(sys.argv[2])
cl = d["credit_loops"]
assert cl["sl2vl_read"] and cl["sl2vl_note"] is None, cl
# minhop: the SA answers every pair asked, each with SL 0.
assert not cl["sl0_assumed"] and cl["sl_source"] == "sa" and cl["sl_note"] is None, cl
assert cl["pathrecords_asked"] > 0 and cl["pathrecords_answered"] == cl["pathrecords_asked"], cl
# Every pair on SL 0: one group, its count and its first pairs.
assert [(g["sl"], g["pairs"]) for g in cl["pathrecords"]] == [(0, cl["pathrecords_asked"])] and cl["sls"] == [0], cl
assert len(cl["pathrecords"][0]["sample"]) == min(8, cl["pathrecords_asked"]), cl["pathrecords"]
assert cl["sl2vl_pairs"] > 0 and cl["sl2vl_answered"] == cl["sl2vl_pairs"], cl
assert cl["count"] == 1, cl
c = cl["cycles"][0]
assert c["vls"] == [want] and c["sls"] == [0], c
links = c["links"]
assert sorted(l["from"]["name"] for l in links) == ["SwA", "SwB", "SwC", "SwD"], links
# Each hop: the switch the route enters (b's), its in-port (a's to_port), its out-port and the VL it leaves on.
for a, b in zip(links, links[1:] + links[:1]):
    assert a["to"]["guid"] == b["from"]["guid"] and b["vl"] == want, (a, b)
    print(b["from"]["lid"], a["to_port"], b["port"], b["vl"])
PY
	while read -r lid in out vl; do
		sim_run smpquery sl2vl "$lid" "$out" >"$TMP/q" 2>&1 || fail "smpquery sl2vl $lid $out: $(cat "$TMP/q")"
		got=$(awk -v p="$in" -F'|' '$1 ~ "^ports: in +" p ", out" { gsub(/ /, "", $2); print $2 }' "$TMP/q")
		[ "$got" = "$vl" ] || fail "$name: LID $lid in $in out $out: ibscan VL $vl, smpquery SL 0 -> VL '$got': $(cat "$TMP/q")"
	done <"$TMP/$name.hops"
	ok "$name: the credit loop on VL $want, $(wc -l <"$TMP/$name.hops") hops' VLs equal to smpquery sl2vl's"
	expect_rc 2 "$IBSCAN" routes --check --json --replay "$TMP/$name.cap" -o "$TMP/$name.replay.json"
	cmp -s "$TMP/$name.json" "$TMP/$name.replay.json" || fail "$name: the replay differs: $(diff "$TMP/$name.json" "$TMP/$name.replay.json" | head)"
	ok "$name: the recorded capture replays to the same document"
}

SIM_OSM_ARGS="-R minhop" sim_start "$FABRICS/ring4"
check default 0
expect_rc 2 ibs routes --check
grep -q "^credit loops: each route's SL from the sa ([0-9]* PathRecords, SL 0), VLs from the switches' SL2VL tables ([0-9]* in/out pairs, 1 VL used)" "$TMP/out" ||
	fail "text: $(grep 'credit loops' "$TMP/out")"
# health --routing reads the same (the same code): the loop, made by SL 0's routes as the SA says.
expect_rc 2 ibs health --routing --no-counters
grep -q '^CRITICAL route.credit_loop: credit loop of 4 links (4 channels depend on each other; routes of SL 0, SLs from the SA): "Sw.' "$TMP/out" ||
	fail "health --routing: $(grep credit "$TMP/out")"
ok "health --routing: the loop, of SL 0 from the SA"
sim_stop

# Two data VLs; SL 0 on VL 1 out of every switch port (qos_swe_sl2vl), CAs as before.
cat >"$TMP/osm.conf" <<'CONF'
qos TRUE
qos_max_vls 2
qos_high_limit 0
qos_vlarb_high 0:0
qos_vlarb_low 0:64,1:64
qos_sl2vl 0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1
qos_swe_sl2vl 1,0,1,0,1,0,1,0,1,0,1,0,1,0,1,0
CONF
SIM_OSM_ARGS="-R minhop -Q -F $TMP/osm.conf" sim_start "$FABRICS/ring4"
check qos 1
expect_rc 2 ibs routes --check
grep -q '^  cycle on VL 1 of SL 0 (4 channels depend on each other): "Sw."\[2\] vl 1 -> ' "$TMP/out" || fail "text: $(grep cycle "$TMP/out")"
sim_stop
t_done
