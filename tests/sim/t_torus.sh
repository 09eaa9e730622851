#!/bin/bash
# routes --check on a torus, where OpenSM's torus-2QoS engine breaks the
# rings' credit loops with datelines: each path's SL says which datelines
# it crosses, and each switch's SL2VL tables put a hop on the VL of that
# SL's bit for the direction the out-port points in (and, after a turn that
# dimension order forbids, on VL + 2: the in-port counts too).
# fixtures/fabrics/torus55 (5 x 5) cables the four directions to other ports
# on each switch, so the tables differ from switch to switch (ibsim takes
# OpenSM's SL2VL Sets and answers them back per switch):
# - torus-2QoS: `smpquery sl2vl` gives Sw00 and Sw01 different VLs out of
#   the same port number; routes --check reads every switch's own tables and
#   the SA's SLs (0-3, each pair's equal to saquery's), finds no credit loop
#   (exit 0), and its capture replays to the same document;
# - the same tables with OpenSM stopped (every route taken to be on SL 0):
#   the five-switch rings' loops, one per ring and direction, each named
#   link by link (exit 2);
# - Sw22 unlinked, torus-2QoS routing round it with turns it puts on VLs 2
#   and 3: no credit loop on the 4 VLs (exit 0). Reading every switch's
#   tables, in-port by in-port, is what proves it: with Sw00's tables taken
#   for every switch, or the in-port's VL bit dropped, the check finds 2
#   loops on this fabric (measured by changing routecheck_vl.c);
# - the same fabric under minhop: a credit loop, named link by link (exit 2),
#   its 1200 PathRecords (SL 0) listed as one group of SL 0: a count and 8 pairs.
. "$(dirname "$0")/lib.sh"
here=$ROOT/tests/sim/routecheck

# cycles FILE WANT: each cycle of the document closes (each link ends at the
# next one's switch, on the port the next link enters by) and names its
# switches; at least one when WANT is "some", else exactly WANT.
cycles() {
	python3 - "$1" "$2" <<'PY'
import json, sys
cl = json.load(open(sys.argv[1]))["credit_loops"]
want = sys.argv[2]
assert cl["count"] == len(cl["cycles"]) and (cl["count"] > 0 if want == "some" else cl["count"] == int(want)), cl["count"]
for c in cl["cycles"]:
    links = c["links"]
    for a, b in zip(links, links[1:] + links[:1]):
        assert a["to"]["guid"] == b["from"]["guid"], (a, b)
    print(" -> ".join('%s[%d]' % (l["from"]["name"], l["port"]) for l in links))
PY
}

SIM_OSM_ARGS="-R torus-2QoS,no_fallback -Q --torus_config $here/torus55.conf" sim_start "$FABRICS/torus55"
grep -q "Built 5 x 5 x 1 torus w/ 75 links, 25 switches, 25 CA ports" "$SIM_DIR/osm.log" &&
	grep -q "torus-2QoS tables configured on all switches" "$SIM_DIR/osm.log" ||
	fail "torus-2QoS did not route the torus: $(grep -i torus "$SIM_DIR/osm.log" | tail -5)"
# Port 2 points +x on Sw00 (VL = SL bit 0) and +y on Sw01 (VL = SL bit 1): SLs 0-3 from the host's port.
sl2vl_row() {
	sim_run smpquery -D sl2vl "$1" 2 >"$TMP/q" 2>&1 || fail "smpquery -D sl2vl $1 2: $(cat "$TMP/q")"
	awk -F'|' '$1 ~ /^ports: in +1, out +2/ { gsub(/ /, "", $2); gsub(/ /, "", $3); gsub(/ /, "", $4); gsub(/ /, "", $5); print $2, $3, $4, $5 }' "$TMP/q"
}
a=$(sl2vl_row 0) b=$(sl2vl_row 0,4)
[ "$a" = "0 1 0 1" ] && [ "$b" = "0 0 1 1" ] || fail "SL2VL out of port 2, SLs 0-3: Sw00 '$a', Sw01 '$b'"
ok "torus-2QoS: SL 0-3 out of port 2 go on VLs $a at Sw00 and $b at Sw01 (smpquery sl2vl)"

expect_rc 0 ibs routes --check --json -o "$TMP/t2q.json" --record "$TMP/t2q.cap"
python3 - "$TMP/t2q.json" >"$TMP/pairs" <<'PY' || fail "torus-2QoS: routes --check --json: $(head -c 2000 "$TMP/t2q.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "OK" and d["findings"] == [], (d["status"], d["findings"])
s = d["summary"]
assert s["pairs"] == 25 * 49 and s["ok"] == s["pairs"] and s["non_minimal"] == 0, s
cl = d["credit_loops"]
assert cl["sl_source"] == "sa" and not cl["sl0_assumed"] and cl["sl_note"] is None, cl
assert cl["pathrecords_asked"] > 0 and cl["pathrecords_answered"] == cl["pathrecords_asked"], cl
# SL bit 0: the path crosses the x dateline, bit 1 the y dateline.
assert cl["sls"] == [0, 1, 2, 3], cl["sls"]
assert cl["sl2vl_read"] and cl["sl2vl_note"] is None and cl["sl2vl_answered"] == cl["sl2vl_pairs"] > 0, cl
assert cl["vls"] == 2 and cl["count"] == 0 and cl["cycles"] == [], cl
# The pairs asked, grouped by SL: each group's count and its first 8 pairs.
prs = cl["pathrecords"]
assert [g["sl"] for g in prs] == [0, 1, 2, 3], prs
assert sum(g["pairs"] for g in prs) == cl["pathrecords_asked"], prs
for g in prs:
    assert len(g["sample"]) == min(8, g["pairs"]), g
    for p in g["sample"]:
        print(p["slid"], p["dlid"], g["sl"])
PY
n=0
while read -r slid dlid sl; do
	sim_run saquery -p --slid "$slid" --dlid "$dlid" >"$TMP/sa" 2>&1 || fail "saquery -p --slid $slid --dlid $dlid: $(cat "$TMP/sa")"
	want=$(awk -F. '/^[ \t]*sl\.\.\./ { v = $NF } END { print v }' "$TMP/sa")
	[ -n "$want" ] && [ "$((want))" = "$sl" ] || fail "SLID $slid DLID $dlid: ibscan SL $sl, saquery '$want'"
	n=$((n + 1))
done <"$TMP/pairs"
[ "$n" -gt 10 ] || fail "only $n pairs to compare"
ok "torus-2QoS: no credit loop, on SLs 0-3 and 2 VLs; $n sampled pairs' SLs (8 of each SL) equal to saquery's"
expect_rc 0 "$IBSCAN" routes --check --json --replay "$TMP/t2q.cap" -o "$TMP/t2q.replay.json"
cmp -s "$TMP/t2q.json" "$TMP/t2q.replay.json" || fail "the replay differs: $(diff "$TMP/t2q.json" "$TMP/t2q.replay.json" | head -20)"
ok "torus-2QoS: the recorded capture replays to the same document"

# Without the SA's SLs the datelines are gone: every x ring loops, both ways.
sim_stop_opensm
expect_rc 2 ibs routes --check --json -o "$TMP/sl0.json"
python3 - "$TMP/sl0.json" <<'PY' || fail "SA stopped: $(head -c 2000 "$TMP/sl0.json")"
import json, sys
cl = json.load(open(sys.argv[1]))["credit_loops"]
assert cl["sl0_assumed"] and cl["sl2vl_read"] and cl["vls"] == 1, cl
rings = sorted(tuple(sorted(l["from"]["name"] for l in c["links"])) for c in cl["cycles"])
want = sorted([tuple("Sw%d%d" % (x, y) for x in range(5)) for y in range(5)] * 2 +
              [tuple(sorted("Sw%d%d" % (x, y) for y in range(5))) for x in range(5)] * 2)
assert rings == want, rings
PY
cycles "$TMP/sl0.json" 20 >"$TMP/c" || fail "SA stopped: the cycles"
ok "SA stopped, SL 0 assumed: the 20 ring loops (5 x, 5 y, each way), e.g. $(head -1 "$TMP/c")"
sim_stop

SIM_OSM_ARGS="-R torus-2QoS,no_fallback -Q --torus_config $here/torus55.conf" sim_start "$FABRICS/torus55"
n=$(sim_subnet_up_count)
sim_console 'Unlink "Sw22"' >/dev/null || fail "Unlink"
sim_wait_subnet_up $((n + 1)) || fail "no resweep after the Unlink"
[ "$(grep -c "torus-2QoS tables configured on all switches" "$SIM_DIR/osm.log")" = 2 ] ||
	fail "torus-2QoS did not route round Sw22: $(grep -i torus "$SIM_DIR/osm.log" | tail -5)"
expect_rc 0 ibs routes --check --json -o "$TMP/cut.json"
python3 - "$TMP/cut.json" >"$TMP/nm" <<'PY' || fail "Sw22 unlinked: $(head -c 2000 "$TMP/cut.json")"
import json, sys
d = json.load(open(sys.argv[1]))
s, cl = d["summary"], d["credit_loops"]
assert s["pairs"] == 24 * 47 and s["ok"] == s["pairs"] and s["non_minimal"] > 0, s
assert cl["sl_source"] == "sa" and cl["pathrecords_answered"] == cl["pathrecords_asked"] > 0, cl
assert cl["sl2vl_read"] and cl["vls"] == 4 and cl["count"] == 0, cl
print(s["non_minimal"])
PY
ok "Sw22 unlinked: $(cat "$TMP/nm") routes detour round it, on 4 VLs; no credit loop"
sim_stop

SIM_OSM_ARGS="-R minhop" sim_start "$FABRICS/torus55"
expect_rc 2 ibs routes --check --json -o "$TMP/mh.json"
python3 - "$TMP/mh.json" <<'PY' || fail "minhop: $(head -c 2000 "$TMP/mh.json")"
import json, sys
cl = json.load(open(sys.argv[1]))["credit_loops"]
assert cl["sl_source"] == "sa" and cl["sls"] == [0] and cl["sl2vl_read"] and cl["vls"] == 1, cl
# 1200 pairs asked, all on SL 0: one group, its count and 8 pairs, not 1200 entries.
n = cl["pathrecords_asked"]
assert n == cl["pathrecords_answered"] == 1200, (n, cl["pathrecords_answered"])
assert len(cl["pathrecords"]) == 1 and cl["pathrecords"][0]["sl"] == 0 and cl["pathrecords"][0]["pairs"] == n, cl["pathrecords"]
s = cl["pathrecords"][0]["sample"]
assert len(s) == 8 and s == sorted(s, key=lambda p: (p["dlid"], p["slid"])), s
assert all(c["sls"] == [0] and c["vls"] == [0] for c in cl["cycles"]), cl["cycles"]
PY
cycles "$TMP/mh.json" some >"$TMP/c" || fail "minhop: the cycles"
expect_rc 2 ibs routes --check
grep -q '^  cycle of SL 0 ([0-9]* channels depend on each other): "Sw[0-4][0-2]"\[[2-5]\] -> ' "$TMP/out" || fail "minhop, text: $(grep cycle "$TMP/out")"
ok "minhop: $(wc -l <"$TMP/c") credit loop(s) on VL 0, SL 0: $(head -1 "$TMP/c")"
sim_stop
t_done
