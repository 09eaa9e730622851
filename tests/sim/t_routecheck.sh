#!/bin/bash
# ibscan routes --check against OpenSM's own routing engines and against
# tables planted on purpose (OpenSM's file engine, -R file -U):
# - fattree2-small under ftree: every pair reachable, no credit loop, every
#   route minimal and up/down, uplinks balanced (exit 0); the CA LIDs per
#   switch port equal check_lft_balance's on dump_lfts output and an
#   ibnetdiscover cache of the same simulator;
# - the same tables with one hole, one loop and every LID of one leaf on one
#   uplink: exactly those findings (exit 2);
# - leaf01's cable to spine01 unlinked, the SM resweeping: every pair still
#   reachable, leaf01's uplinks unbalanced (exit 1);
# - ring4 under minhop: the credit loop round the ring, named link by link
#   (exit 2); under updn rooted at one switch: none (exit 0).
. "$(dirname "$0")/lib.sh"
here=$ROOT/tests/sim/routecheck

SIM_OSM_ARGS="-R ftree" sim_start "$FABRICS/fattree2-small"
grep -q "ftree" "$SIM_DIR/osm.log" || fail "opensm's log does not name the ftree engine"
! grep -qi "falling back\|fall back" "$SIM_DIR/osm.log" || fail "ftree fell back: $(grep -i 'fall' "$SIM_DIR/osm.log" | head -3)"
expect_rc 0 ibs routes --check --json -o "$TMP/ft.json"
python3 - "$TMP/ft.json" <<'PY' || fail "ftree: routes --check"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["summary"]
assert d["status"] == "OK", d["status"]
assert s["sources"] == 96 and s["destinations"] == 111 and s["pairs"] == 96 * 110, s
assert s["ok"] == s["pairs"] and s["non_minimal"] == 0 and s["not_updown"] == 0, s
assert s["minimal_known"] == 96 * 95 and s["tiers"] == 2, s  # routes to CAs: switch LIDs are not compared
assert d["findings"] == [] and d["credit_loops"]["count"] == 0, d["credit_loops"]
assert d["credit_loops"]["dependencies"] > 0
# No cycle on one VL: none on any, and no SL2VL asked (tests/sim/t_sl2vl.sh: a ring that loops).
assert d["credit_loops"]["sl2vl_pairs"] == 0 and not d["credit_loops"]["sl2vl_read"], d["credit_loops"]
assert d["credit_loops"]["sl2vl_note"].startswith("no cycle even on one VL"), d["credit_loops"]
# ... nor any PathRecord: every route on SL 0, and why.
assert d["credit_loops"]["pathrecords_asked"] == 0 and d["credit_loops"]["pathrecords"] == [], d["credit_loops"]
assert d["credit_loops"]["sl_source"] == "assumed_sl0", d["credit_loops"]
assert d["credit_loops"]["sl_note"].startswith("no cycle even on one VL, so none on any SL"), d["credit_loops"]
assert not [w for w in d["switches"] if w["up"]["unbalanced"]]
print("pairs", s["pairs"], "hops", s["min_hops"], s["mean_hops"], s["max_hops"])
PY
ok "ftree: 10560 routes reach their destination, minimal and up/down, no credit loop, uplinks balanced"
sim_run dump_lfts >"$TMP/ft.lfts" 2>/dev/null || fail "dump_lfts"
[ "$(grep -c '^Unicast lids' "$TMP/ft.lfts")" = 15 ] || fail "dump_lfts did not dump the 15 switches"
sim_run ibnetdiscover --cache "$TMP/ft.cache" >/dev/null 2>&1 || fail "ibnetdiscover --cache"
# check_lft_balance runs iblinkinfo on the cache, which still opens a port: under the shim.
sim_run check_lft_balance -v -l "$TMP/ft.lfts" -i "$TMP/ft.cache" >"$TMP/clb" 2>/dev/null || fail "check_lft_balance"
python3 "$here/clbcmp.py" "$TMP/clb" "$TMP/ft.json" >"$TMP/cmp" || fail "balance differs from check_lft_balance"
ok "balance equal to check_lft_balance's: $(cat "$TMP/cmp")"
ibs topology --json -o "$TMP/topo1.json" || fail "topology"
expect_rc 0 ibs health --routing --no-counters
ok "health --routing under ftree: $(head -1 "$TMP/out" | cut -d'|' -f1)"

# A spine-leaf cable pulled and the SM resweeping: every host still reaches
# every other, and leaf01's uplinks are found unbalanced (WARNING).
n=$(sim_subnet_up_count)
sim_console 'Unlink "S-leaf01"[19]' >/dev/null || fail "Unlink"
sim_wait_subnet_up $((n + 1)) || fail "no resweep after the Unlink"
expect_rc 1 ibs routes --check --json -o "$TMP/cut.json"
python3 - "$TMP/cut.json" >"$TMP/cut" <<'PY' || fail "after the Unlink"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["summary"]
assert s["ok"] == s["pairs"] and s["pairs"] == 96 * 110 and d["findings"] == [], (s, d["findings"][:3])
assert d["credit_loops"]["count"] == 0
leaf = [w for w in d["switches"] if w["switch"]["name"] == "MF0;leaf01:MSB7800/U1"][0]
ups = [p for p in leaf["ports"] if p["role"] == "up"]
assert len(ups) == 17 and 19 not in [p["port"] for p in ups], ups
# The imbalance found: spread evenly, the remote LIDs over 17 uplinks would differ by one at most.
assert [w["switch"]["name"] for w in d["switches"] if w["up"]["unbalanced"]] == ["MF0;leaf01:MSB7800/U1"]
assert leaf["up"]["max"] > leaf["up"]["min"] + 1 and d["status"] == "WARNING", (leaf["up"], d["status"])
print("leaf01 uplinks min %d max %d, %d switches with unbalanced uplinks, %d routes not up/down, status %s" % (
    leaf["up"]["min"], leaf["up"]["max"], len([w for w in d["switches"] if w["up"]["unbalanced"]]),
    s["not_updown"], d["status"]))
PY
ok "leaf01 port 19 unlinked, resweep: every route still arrives; $(cat "$TMP/cut")"
sim_stop

# Planted: leaf01 loses its entry for the first host of leaf03 (a hole); leaf01
# sends the first host of leaf02 up to spine01 (its port 19), and spine01 sends
# it back down to leaf01 (a loop); leaf04 sends every LID up port 19 (one uplink).
read -r hole loop <<<"$(python3 - "$TMP/topo1.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
first = {}
for n in d["nodes"]:
    if n["type"] == "switch" and "leaf0" in n["description"]:
        for p in n["ports"]:
            if p.get("peer") and p["peer"]["name"].startswith("node"):
                lid = [m for m in d["nodes"] if m["guid"] == p["peer"]["guid"]][0]["ports"][0]["lid"]
                first.setdefault(n["description"], lid)
print(first["MF0;leaf03:MSB7800/U1"], first["MF0;leaf02:MSB7800/U1"])
PY
)"
[ -n "$loop" ] || fail "no LIDs to plant"
python3 "$here/plant.py" "$TMP/ft.lfts" "$TMP/planted.lfts" "$TMP/topo1.json" \
	"hole MF0;leaf01:MSB7800/U1 $hole, set MF0;leaf01:MSB7800/U1 $loop 19, set MF0;spine01:MSB7800/U1 $loop 1," \
	"all MF0;leaf04:MSB7800/U1 19" || fail "plant"
SIM_OSM_ARGS="-R file -U $TMP/planted.lfts" sim_start "$FABRICS/fattree2-small"
ibs topology --json -o "$TMP/topo2.json" || fail "topology"
python3 - "$TMP/topo1.json" "$TMP/topo2.json" <<'PY' || fail "opensm gave other LIDs the second time: the planted tables do not apply"
import json, sys
lids = lambda f: sorted((n["guid"], p["port"], p["lid"]) for n in json.load(open(f))["nodes"] for p in n["ports"] if p["lid"])
assert lids(sys.argv[1]) == lids(sys.argv[2])
PY
expect_rc 2 ibs routes --check --json -o "$TMP/pl.json"
python3 - "$TMP/pl.json" "$hole" "$loop" <<'PY' || fail "planted: routes --check"
import json, sys
d = json.load(open(sys.argv[1]))
hole, loop = int(sys.argv[2]), int(sys.argv[3])
f = sorted((x["kind"], x["lid"], x["at"]["name"], x["routes"]) for x in d["findings"])
# The hole: leaf01's 18 hosts. The loop: leaf01's 18 hosts and any host whose leaf sends it via spine01.
assert len(f) == 2, f
assert f[1] == ("unreachable", hole, "MF0;leaf01:MSB7800/U1", 18), f
assert f[0][0] == "loop" and f[0][1] == loop and f[0][2] in ("MF0;leaf01:MSB7800/U1", "MF0;spine01:MSB7800/U1") and f[0][3] >= 18, f
s = d["summary"]
assert s["unreachable"] == 18 and s["loop"] == f[0][3] and s["down_port"] == 0 and s["dead_end"] == 0, s
assert s["ok"] + 18 + f[0][3] == s["pairs"], s
up = [w["switch"]["name"] for w in d["switches"] if w["up"]["unbalanced"]]
assert up == ["MF0;leaf04:MSB7800/U1"], up
w = [w for w in d["switches"] if w["switch"]["name"] == up[0]][0]
assert w["up"]["min"] == 0 and w["up"]["max"] == sum(p["lids"] for p in w["ports"] if p["role"] == "up"), w["up"]
assert [p["port"] for p in w["ports"] if p["role"] == "up" and p["lids"]] == [19], w["ports"]
assert d["credit_loops"]["count"] == 0, d["credit_loops"]
assert d["status"] == "CRITICAL" and d["exit_code"] == 2
PY
expect_rc 2 ibs routes --check
grep -q "^IBSCAN ROUTES CRITICAL - 18 routes unreachable, .* routes looping, 1 switches unbalanced |" "$TMP/out" ||
	fail "status line: $(head -1 "$TMP/out")"
ok "planted: exactly the hole (LID $hole), the loop (LID $loop) and the one uplink (leaf04), exit 2"
expect_rc 2 ibs health --routing --no-counters
grep -q "^IBSCAN CRITICAL - 1 switch with unreachable LIDs, 1 forwarding loop, 1 switch with unbalanced uplinks |.* route_unreachable=1 route_down_port=0 route_loop=1 route_credit_loop=0 route_imbalance=1 route_not_updown=0 " "$TMP/out" ||
	fail "health --routing: $(head -1 "$TMP/out")"
ok "health --routing on the planted tables: CRITICAL, route.unreachable 1, route.loop 1, route.imbalance 1"
sim_stop

SIM_OSM_ARGS="-R minhop" sim_start "$FABRICS/ring4"
expect_rc 2 ibs routes --check --json -o "$TMP/ring.json"
python3 - "$TMP/ring.json" <<'PY' || fail "ring4 minhop: no credit loop named"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["findings"] == [] and d["summary"]["ok"] == d["summary"]["pairs"], d["findings"]
c = d["credit_loops"]["cycles"]
assert len(c) >= 1, c
for cyc in c:
    links = cyc["links"]
    # A cycle: each link ends at the switch the next one leaves.
    for a, b in zip(links, links[1:] + links[:1]):
        assert a["to"]["guid"] == b["from"]["guid"], (a, b)
names = sorted(l["from"]["name"] for l in c[0]["links"])
assert names == ["SwA", "SwB", "SwC", "SwD"], names
PY
expect_rc 2 ibs routes --check
grep -q '^  cycle of SL 0 (4 channels depend on each other): "Sw."\[[0-9]\] -> "Sw."\[[0-9]\] -> ' "$TMP/out" || fail "the cycle is not named: $(grep cycle "$TMP/out")"
ok "ring4 under minhop: the credit loop round the ring, $(grep -c '^  cycle' "$TMP/out") cycle(s): $(grep '^  cycle' "$TMP/out" | head -1 | cut -d: -f2-)"
sim_stop

echo 0x0000000000200000 >"$TMP/roots" # SwA
SIM_OSM_ARGS="-R updn -a $TMP/roots" sim_start "$FABRICS/ring4"
grep -qi "fall" "$SIM_DIR/osm.log" && fail "updn fell back: $(grep -i fall "$SIM_DIR/osm.log" | head -2)"
expect_rc 0 ibs routes --check
grep -q "^IBSCAN ROUTES OK - 54 routes, all reach their destination, no credit loop" "$TMP/out" || fail "updn: $(head -1 "$TMP/out")"
ok "ring4 under updn: every route arrives, no credit loop"
sim_stop
t_done
