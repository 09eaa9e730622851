#!/bin/bash
# routes --check takes each route's SL from the SA: ring4 under OpenSM's
# LASH engine, which breaks the ring's credit loop by putting some paths on
# SL 1 (and SL 1 on VL 1). On one VL the ring's routes make a cycle, so the
# check asks the SA a PathRecord for every pair whose route crosses it:
# - every PathRecord asked is answered, some on SL 1, and the check finds
#   no credit loop (exit 0); with SL 0 assumed for every route it would
#   report the ring's loop;
# - each sampled pair's SL (the JSON's first 8 of each SL) equals the one
#   `saquery -p --slid S --dlid D` gives;
# - the capture the check recorded replays to the same document;
# - health --routing and report --routing read them the same way: no
#   route.credit_loop, no credit loop on the page;
# - with OpenSM stopped (no SA to answer, the tables kept), every route is
#   taken to be on SL 0, the output says why, and the ring's loop is found.
. "$(dirname "$0")/lib.sh"

SIM_OSM_ARGS="-R lash" sim_start "$FABRICS/ring4"
grep -qi "lash" "$SIM_DIR/osm.log" || fail "opensm did not name lash: $(tail -3 "$SIM_DIR/osm.log")"
expect_rc 0 ibs routes --check --json -o "$TMP/lash.json" --record "$TMP/lash.cap"
python3 - "$TMP/lash.json" "$TMP/asked" >"$TMP/pairs" <<'PY' || fail "lash: routes --check --json: $(head -c 2000 "$TMP/lash.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "OK" and d["exit_code"] == 0 and d["findings"] == [], (d["status"], d["findings"])
cl = d["credit_loops"]
assert cl["sl_source"] == "sa" and not cl["sl0_assumed"] and cl["sl_note"] is None, cl
assert cl["pathrecords_asked"] > 0 and cl["pathrecords_answered"] == cl["pathrecords_asked"], cl
prs = cl["pathrecords"]
assert sum(g["pairs"] for g in prs) == cl["pathrecords_asked"], prs
assert all(g["sl"] is not None and len(g["sample"]) == min(8, g["pairs"]) for g in prs), prs
assert cl["sls"] == sorted({0} | {g["sl"] for g in prs}) and 1 in cl["sls"], cl["sls"]
assert cl["sl2vl_read"] and cl["sl2vl_answered"] == cl["sl2vl_pairs"] > 0 and cl["vls"] >= 2, cl
assert cl["count"] == 0 and cl["cycles"] == [], cl["cycles"]
open(sys.argv[2], "w").write("%d\n" % cl["pathrecords_asked"])
for g in prs:
    for p in g["sample"]:
        print(p["slid"], p["dlid"], g["sl"])
PY
n=0
while read -r slid dlid sl; do
	sim_run saquery -p --slid "$slid" --dlid "$dlid" >"$TMP/sa" 2>&1 || fail "saquery -p --slid $slid --dlid $dlid: $(cat "$TMP/sa")"
	want=$(awk -F. '/^[ \t]*sl\.\.\./ { v = $NF } END { print v }' "$TMP/sa")
	[ -n "$want" ] && [ "$((want))" = "$sl" ] || fail "SLID $slid DLID $dlid: ibscan SL $sl, saquery '$want': $(cat "$TMP/sa")"
	n=$((n + 1))
done <"$TMP/pairs"
[ "$n" -gt 0 ] || fail "no pair to compare"
asked=$(cat "$TMP/asked")
ok "lash: no credit loop, every PathRecord asked answered, $n sampled (8 of each SL) equal to saquery's ($(awk '{ print $3 }' "$TMP/pairs" | sort -u | tr '\n' ' ')in use)"

expect_rc 0 ibs routes --check
grep -q "^credit loops: each route's SL from the sa ($asked PathRecords, SL 0,1), VLs from the switches' SL2VL tables ([0-9]* in/out pairs, [0-9]* VLs used);.* 0 cycles$" "$TMP/out" ||
	fail "text: $(grep 'credit loops' "$TMP/out")"
ok "lash: the text names the SA's SLs"

expect_rc 0 "$IBSCAN" routes --check --json --replay "$TMP/lash.cap" -o "$TMP/lash.replay.json"
cmp -s "$TMP/lash.json" "$TMP/lash.replay.json" || fail "the replay differs: $(diff "$TMP/lash.json" "$TMP/lash.replay.json" | head -20)"
ok "lash: the recorded capture (PathRecords included) replays to the same document"

expect_rc 0 ibs health --routing --no-counters
grep -q "^IBSCAN OK - .*| .* route_credit_loop=0 " "$TMP/out" || fail "health --routing: $(head -1 "$TMP/out")"
expect_rc 0 ibs report --routing --no-counters -o "$TMP/lash.html"
python3 - "$TMP/lash.html" <<'PY' || fail "report --routing: the page's documents"
import json, re, sys
page = open(sys.argv[1]).read()
doc = lambda i: json.loads(re.search(r'<script type="application/json" id="%s">(.*?)</script>' % i, page).group(1))
h, r = doc("ibs-health"), doc("ibs-routes")
assert [f for f in h["findings"] if f["check"].startswith("route.")] == [] and r["credit_loops"] == [], (h["findings"], r)
PY
expect_rc 0 "$IBSCAN" health --routing --no-counters --replay "$TMP/lash.cap"
grep -q "^IBSCAN OK - .*| .* route_credit_loop=0 " "$TMP/out" || fail "health --routing --replay: $(head -1 "$TMP/out")"
ok "lash: health --routing OK (route_credit_loop=0), live and from the capture; report --routing shows no credit loop"

sim_stop_opensm
expect_rc 2 ibs routes --check --json -o "$TMP/silent.json"
python3 - "$TMP/silent.json" "$asked" <<'PY' || fail "SA stopped: $(head -c 2000 "$TMP/silent.json")"
import json, sys
cl = json.load(open(sys.argv[1]))["credit_loops"]
assert cl["sl0_assumed"] and cl["sl_source"] == "assumed_sl0" and cl["sls"] == [0], cl
assert cl["sl_note"] == "PathRecords not answered for every pair", cl["sl_note"]
assert cl["pathrecords_asked"] == int(sys.argv[2]) and cl["pathrecords_answered"] == 0, cl
assert [(g["sl"], g["pairs"]) for g in cl["pathrecords"]] == [(None, int(sys.argv[2]))], cl["pathrecords"]
assert cl["count"] == 1 and cl["cycles"][0]["sls"] == [], cl["cycles"]
assert sorted(l["from"]["name"] for l in cl["cycles"][0]["links"]) == ["SwA", "SwB", "SwC", "SwD"], cl["cycles"]
PY
expect_rc 2 ibs routes --check
grep -q "^credit loops: every route assumed on SL 0 (PathRecords not answered for every pair), VLs from" "$TMP/out" ||
	fail "SA stopped, text: $(grep 'credit loops' "$TMP/out")"
ok "SA stopped: SL 0 assumed and why, $asked PathRecords unanswered, the ring's loop reported (exit 2)"
expect_rc 2 ibs health --routing --no-counters
grep -q "^IBSCAN CRITICAL - .*| .* route_credit_loop=1 " "$TMP/out" || fail "SA stopped, health --routing: $(head -1 "$TMP/out")"
grep -q '^CRITICAL route.credit_loop: credit loop of 4 links (4 channels depend on each other; SL 0 assumed): ' "$TMP/out" ||
	fail "SA stopped, health --routing: $(grep credit "$TMP/out")"
ok "SA stopped: health --routing CRITICAL, route_credit_loop=1"
sim_stop
t_done
