#!/bin/bash
# topology --heat routes: every cable's counts in the drawing equal what
# `routes --through` finds crossing it (itself checked against ibtracert
# in tests/sim/t_routetrace.sh), on the 2-switch capture and on
# fattree2-small under ftree with leaf01's cable to spine01 pulled (its
# other cable to spine01 then carries both: the hot uplink, darkest); the
# colours follow the counts, none near a colour that marks a problem; dot and xmllint take the output; report
# --routing holds the heat map and each cycle's cables; a source
# without forwarding tables is refused with a one-line reason.
. "$(dirname "$0")/lib.sh"
caps=$ROOT/fixtures/captures
cut=$ROOT/fixtures/routes/fattree2-small-cut.cap

run 0 topology --format dot --heat routes --replay "$caps/net.2sw2path4hca-routes.cap"
cp "$TMP/out" "$TMP/small.dot"
python3 "$ROOT/tests/cli/heat/heatcmp.py" "$IBSCAN" "$caps/net.2sw2path4hca-routes.cap" "$TMP/small.dot" >"$TMP/cmp" ||
	fail "net.2sw2path4hca: the heat map differs from routes --through"
echo "ok: net.2sw2path4hca: $(cat "$TMP/cmp")"
# Hca1's cable: 3 routes from it, 3 to it (t_routecheck's --through Hca1).
grep -qF 'Hca1 [1] -- [1] Switch1 4xSDR: routes: 6 (up 3, down 3)' "$TMP/small.dot" || fail "Hca1's cable"

run 0 topology --format dot --heat routes --replay "$cut"
cp "$TMP/out" "$TMP/cut.dot"
python3 "$ROOT/tests/cli/heat/heatcmp.py" "$IBSCAN" "$cut" "$TMP/cut.dot" >"$TMP/cmp" ||
	fail "fattree2-small cut: the heat map differs from routes --through"
echo "ok: fattree2-small, a cable pulled: $(cat "$TMP/cmp")"
# The hot uplink: leaf01's one cable left to spine01, darkest and widest, 156 routes down it.
grep -F 'color="#081d58", penwidth=5.0' "$TMP/cut.dot" >"$TMP/hot" || fail "no edge at the top of the scale"
[ "$(wc -l <"$TMP/hot")" = 1 ] && grep -qF 'MF0;leaf01:MSB7800/U1 [20] -- [2] MF0;spine01:MSB7800/U1 4xEDR: routes: 246 (up 90, down 156)' "$TMP/hot" ||
	fail "the hottest edge is not leaf01's cable to spine01: $(cut -c1-300 "$TMP/hot")"
echo "ok: the hot uplink is leaf01-spine01, alone at the top of the scale"
python3 "$ROOT/tests/cli/heat/heatpalette.py" "$TMP/cut.dot" >"$TMP/pal" || fail "the heat map's colours"
echo "ok: $(cat "$TMP/pal")"

dot -Tsvg "$TMP/cut.dot" >"$TMP/dot.svg" 2>"$TMP/dot.err" || fail "dot refuses the drawing: $(head -3 "$TMP/dot.err")"
[ ! -s "$TMP/dot.err" ] || fail "dot warns: $(head -3 "$TMP/dot.err")"
xmllint --noout "$TMP/dot.svg" || fail "dot's SVG is not XML"
run 0 topology --format svg --heat routes --replay "$cut"
xmllint --noout "$TMP/out" || fail "the SVG is not XML"
grep -q 'stroke="#081d58"' "$TMP/out" || fail "the SVG has no edge at the top of the scale"
echo "ok: dot -Tsvg and xmllint take it"

# Without --heat the drawing has no counts.
run 0 topology --format dot --replay "$cut"
! grep -q "routes: " "$TMP/out" || fail "routes in a drawing without --heat"
# health --routing's drawing is the same heat map, its findings on it.
run 1 health --routing --no-counters --format dot --replay "$cut"
diff <(grep -o 'routes: [0-9]* (up [0-9]*, down [0-9]*)' "$TMP/out") \
	<(grep -o 'routes: [0-9]* (up [0-9]*, down [0-9]*)' "$TMP/cut.dot") >/dev/null ||
	fail "health --routing --format dot: other counts than topology --heat routes"
grep -q 'label="IBSCAN WARNING - 1 switch with unbalanced uplinks"' "$TMP/out" || fail "health's status line is not on the drawing"
run 1 health --routing --no-counters --replay "$cut"
! grep -q "routes: " "$TMP/out" || fail "routes per cable in health's text"
echo "ok: health --routing --format dot: the same heat map"

# Refused: no tables, no drawing, no such heat.
run 3 topology --format dot --heat routes --replay "$caps/fattree2-small.cap"
err_has "holds no forwarding tables"
[ "$(wc -l <"$TMP/err")" = 1 ] || fail "more than one line: $(cat "$TMP/err")"
[ ! -s "$TMP/out" ] || fail "a drawing without tables"
run 2 topology --format dot --heat routes --load-cache "$ROOT/fixtures/caches/net.2sw2path4hca.cache"
err_has "holds no forwarding tables"
run 2 topology --heat routes --replay "$cut"
err_has "--heat colours a drawing: give --format dot or svg"
run 2 topology --format svg --heat lids --replay "$cut"
err_has "--heat wants 'routes'"
echo "ok: refused without tables, without a drawing, for another heat"

# report --routing: the route findings, the heat map, and each cycle's links for the page.
run 0 report --routing --no-counters --replay "$ROOT/fixtures/routes/ring4-minhop.cap"
out_has "cable colour and width: the host&#45;to&#45;host routes"
python3 - "$TMP/out" <<'PY' || fail "report --routing: the page's documents"
import json, re, sys
page = open(sys.argv[1]).read()
doc = lambda i: json.loads(re.search(r'<script type="application/json" id="%s">(.*?)</script>' % i, page).group(1))
h, r = doc("ibs-health"), doc("ibs-routes")
cl = [f for f in h["findings"] if f["check"] == "route.credit_loop"]
assert len(cl) == 1 and len(r["credit_loops"]) == 1 and r["loops"] == [], (cl, r)
links = r["credit_loops"][0]["links"]
assert [l["port"] for l in links] == [2, 2, 2, 2] and len({l["guid"] for l in links}) == 4, links
assert (links[0]["guid"], links[0]["port"]) == (cl[0]["node"]["guid"], cl[0]["node"]["port"]), (links[0], cl[0])
PY
run 0 report --routing --no-counters --replay "$ROOT/fixtures/routes/fattree2-small-loop.cap"
grep -qF '"loops":[{"guid":"0x0002c90300e10001","index":0,"lid":52,"links":[{"index":0,"guid":"0x0002c90300e10001","port":19},{"index":6,"guid":"0x0002c90300e20001","port":3},{"index":1,"guid":"0x0002c90300e10002","port":21},{"index":7,"guid":"0x0002c90300e20002","port":1}]}]' "$TMP/out" ||
	fail "the planted loop's cables: $(grep -o '"loops":[^<]*' "$TMP/out")"
run 0 report --no-counters --replay "$ROOT/fixtures/routes/ring4-minhop.cap"
! grep -q 'id="ibs-routes"\|cable colour and width' "$TMP/out" || fail "route data in a report without --routing"
run 3 report --routing --no-counters --replay "$caps/fattree2-small.cap"
err_has "holds no forwarding tables"
echo "ok: report --routing: the credit loop's and the planted loop's cables in the page"
t_done
