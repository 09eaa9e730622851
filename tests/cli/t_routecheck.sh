#!/bin/bash
# `ibscan routes --check` on a capture that holds the forwarding tables:
# the status line, the figures (4 hosts, 2 switches: 20 routes), JSON under
# its schema, and the monitoring-plugin exit codes.
. "$(dirname "$0")/lib.sh"
cap=$ROOT/fixtures/captures/net.2sw2path4hca-routes.cap

run 0 routes --check --replay "$cap"
out_has "IBSCAN ROUTES OK - 20 routes, all reach their destination, no credit loop | pairs=20 ok=20 unreachable=0"
# 4 hosts x (3 other hosts + 2 switches): 1 hop to its own switch, 2 to a host
# on it or to the other switch, 3 to a host on the other.
out_has "sources 4 CA ports, destinations 6 LIDs, 20 routes, 20 reach their destination"
out_has "hops histogram: 1:4 2:8 3:8"
out_has "credit loops: every route assumed on SL 0, one VL per link (no cycle even on one VL, so none on any: SL2VL not needed)"
echo "ok: text"

run 0 routes --check --replay "$cap" --json
python3 - "$TMP/out" <<'PY' || fail "JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "ibscan.routecheck/2", d["schema"]
assert d["status"] == "OK" and d["exit_code"] == 0
s = d["summary"]
assert (s["pairs"], s["ok"], s["min_hops"], s["max_hops"]) == (20, 20, 1, 3), s
assert d["findings"] == [] and d["credit_loops"]["cycles"] == []
assert len(d["switches"]) == 2
for w in d["switches"]:
    for p in w["ports"]:
        assert p["role"] in ("host", "up", "down", "side"), p
PY
echo "ok: json"

run 2 routes --check --dump --replay "$cap"
err_has "say what to do with the routes: one of --dump, --check, --through, --nodes"
run 3 routes --check --replay "$ROOT/fixtures/captures/fattree2-small.cap"
err_has "holds no forwarding tables"
echo "ok: usage 2, no tables 3"

# --through: Switch1 and Switch2 have two cables (ports 3 and 5), routes by
# LID: the hosts across the switches reach each other over one of them.
run 0 routes --through Switch1:3 --replay "$cap"
out_has 'link "Switch1"[3] -- "Switch2"[3]: 4 host-to-host routes cross it, from or to 4 CAs'
out_has '"Hca1" LID 2: from it 1, to it 2'
# A CA's own cable: all 3 routes from it and the 3 to it.
run 0 routes --through Hca1 --replay "$cap" --json
python3 - "$TMP/out" <<'PY' || fail "--through Hca1 JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "ibscan.routethrough/1" and d["routes"] == 6, d
me = [c for c in d["cas_crossing"] if c["name"] == "Hca1"][0]
assert (me["from"], me["to"]) == (3, 3), me
PY
# The same cable given from the switch's end: the same 6 routes, Hca1's 3 from it too.
run 0 routes --through Switch1:1 --replay "$cap" --json
python3 - "$TMP/out" <<'PY' || fail "--through Switch1:1 JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["routes"] == 6 and (d["link"]["a_port"], d["link"]["b"]["name"]) == (1, "Hca1"), d
me = [c for c in d["cas_crossing"] if c["name"] == "Hca1"][0]
assert (me["from"], me["to"]) == (3, 3), me
PY
run 2 routes --through Switch1 --replay "$cap"
err_has "is a switch: say which cable, as NAME:PORT"
# --nodes: a Slurm hostlist; all four hosts: 12 routes, 2 over each switch-to-switch channel.
run 0 routes --nodes 'Hca[1-4]' --replay "$cap"
out_has "job: 4 CAs, 12 routes among them; switch-to-switch links they cross, most routes first:"
out_has '  "Switch1"[3] -> "Switch2"[3]: 2 routes'
run 0 routes --nodes 'Hca[1,3]' --replay "$cap"
out_has "job: 2 CAs, 2 routes among them; they cross no switch-to-switch link"
run 2 routes --nodes 'Hca[1-' --replay "$cap"
err_has "not a hostlist"
run 2 routes --nodes 'nosuch' --replay "$cap"
err_has "no CA of a host 'nosuch' in the fabric"
echo "ok: --through and --nodes"

# health --routing: the route.* counts join the performance data only then.
run 0 health --routing --no-counters --replay "$cap"
out_has "IBSCAN OK - 6 nodes, 6 links, no findings |"
out_has " route_unreachable=0 route_down_port=0 route_loop=0 route_credit_loop=0 route_imbalance=0 route_not_updown=0 nodes=6"
run 0 health --no-counters --replay "$cap"
! grep -q route_ "$TMP/out" || fail "route.* counts without --routing: $(head -1 "$TMP/out")"
run 0 health --routing --no-counters --replay "$cap" --format prom
out_has 'ibscan_findings{check="route.credit_loop"} 0'
run 3 health --routing --no-counters --replay "$ROOT/fixtures/captures/fattree2-small.cap"
out_has "IBSCAN UNKNOWN"
run 3 health --threshold route.imbalance=x --routing
err_has "want a whole number"
echo "ok: health --routing"

# Credit loops per VL (fixtures/routes/ring4-minhop.cap: ring4 under minhop,
# recorded by routes --check with the SL2VL pairs of the loop's channels).
ring=$ROOT/fixtures/routes/ring4-minhop.cap
run 2 routes --check --replay "$ring" --json
python3 - "$TMP/out" <<'PY' || fail "ring4: SL2VL read"
import json, sys
cl = json.load(open(sys.argv[1]))["credit_loops"]
# The out-channels of the loop (port 2 of each switch) from every in-port a route enters by:
# SwA and SwB each from a host, HostE and the ring, SwC from a host and the ring, SwD from the ring.
assert cl["sl2vl_read"] and cl["sl2vl_note"] is None, cl
assert (cl["sl2vl_pairs"], cl["sl2vl_answered"], cl["vls"]) == (10, 10, 1), cl
assert cl["count"] == 1 and cl["cycles"][0]["vls"] == [0], cl
assert [l["vl"] for l in cl["cycles"][0]["links"]] == [0, 0, 0, 0], cl
PY
# The same capture without its SL2VL exchanges (as one recorded by routes --dump),
# and without one switch's: one VL per link, and why.
strip() { # CAPTURE OUT PATTERN: CAPTURE without the exchanges whose x line matches PATTERN
	awk -v pat="$3" 'skip > 0 { skip--; next } /^x / && $0 ~ pat { skip = 2; next } { print }' "$1" >"$2"
}
strip "$ring" "$TMP/nosl.cap" 'SLtoVLMappingTable'
run 2 routes --check --replay "$TMP/nosl.cap"
out_has "credit loops: every route assumed on SL 0, one VL per link (the capture holds no SL2VL); 8 switch-to-switch channels, 7 dependencies, 1 cycle"
strip "$ring" "$TMP/onesw.cap" 'SLtoVLMappingTable .*addr=lid:6$'
run 2 routes --check --replay "$TMP/onesw.cap" --json
python3 - "$TMP/out" <<'PY' || fail "ring4: one switch's SL2VL missing"
import json, sys
cl = json.load(open(sys.argv[1]))["credit_loops"]
assert not cl["sl2vl_read"] and cl["sl2vl_note"] == "SL2VL not answered by every switch", cl
assert cl["sl2vl_pairs"] == 10 and cl["sl2vl_answered"] < 10 and cl["count"] == 1, cl
PY
echo "ok: credit loops per VL, and one VL when the capture holds no SL2VL or not every switch's"
t_done
