#!/bin/bash
# The fabric drawing (`--format dot` and `svg`), judged by Graphviz's own
# layout of it (dot -Tjson) against `ibscan nodes/links --json`
# (tests/drawcheck.py): on the bundled trees every spine is above every
# leaf and every leaf above its hosts; fabrics of up to ten leaves stay
# within 6:1 (fattree3, wrapped and laid out by ibscan, within 4:1); edges are the distinct (node pair, rate, state) groups of
# healthy cables plus one per problem cable; degraded cables are their own
# orange edges; `--format svg` is valid SVG (xmllint) with the nodes and
# edges `dot -Tsvg` makes of `--format dot`; `health --format svg` puts the
# findings on the picture. The live fault: tests/sim/t_draw.sh.
. "$(dirname "$0")/lib.sh"
caps=$ROOT/fixtures/captures
check=$ROOT/tests/drawcheck.py
command -v dot >/dev/null || fail "dot is not installed (make deps: graphviz)"
command -v xmllint >/dev/null || fail "xmllint is not installed (make deps: libxml2-utils)"

for c in fattree2-small fattree3 dualrail degraded net.2sw2path4hca director; do
	"$IBSCAN" nodes --json --replay "$caps/$c.cap" -o "$TMP/$c.nodes.json"
	"$IBSCAN" links --json --replay "$caps/$c.cap" -o "$TMP/$c.links.json"
	"$IBSCAN" topology --format dot --all-hosts --replay "$caps/$c.cap" -o "$TMP/$c.all.dot"
	"$IBSCAN" topology --format dot --replay "$caps/$c.cap" -o "$TMP/$c.dot"
	dot -Tjson "$TMP/$c.all.dot" >"$TMP/$c.all.json" || fail "$c: dot rejects the drawing"
	dot -Tjson "$TMP/$c.dot" >"$TMP/$c.json" || fail "$c: dot rejects the drawing"
	python3 "$check" tiers "$TMP/$c.nodes.json" "$TMP/$c.links.json" "$TMP/$c.all.json" || fail "$c: tiers"
	python3 "$check" edges "$TMP/$c.links.json" "$TMP/$c.all.json" all || fail "$c: edges (every host)"
	python3 "$check" edges "$TMP/$c.links.json" "$TMP/$c.json" || fail "$c: edges (hosts grouped)"
	# Up to ten leaves: readable proportions, not one long row.
	[ "$c" = fattree3 ] || python3 "$check" ratio "$TMP/$c.json" 6 || fail "$c: proportions"
	# fattree3's 72 spines and 72 leaves are wrapped into rows, laid out by ibscan (layout=nop): within 4:1
	# (dot's own layout of those rows was 11.9:1 grouped, 30:1 with every host).
	if [ "$c" = fattree3 ]; then
		python3 "$check" ratio "$TMP/$c.json" 4 || fail "$c: proportions"
		python3 "$check" ratio "$TMP/$c.all.json" 4 || fail "$c: proportions (every host)"
		grep -q 'layout=nop' "$TMP/$c.dot" || fail "$c: not laid out by ibscan"
	fi
done

# A director's ASICs (one system image GUID) are one box, each ASIC named with its slot.
"$IBSCAN" topology --json --replay "$caps/director.cap" -o "$TMP/director.topo.json"
python3 "$check" chassis "$TMP/director.topo.json" "$TMP/director.json" ibcore1 || fail "director: chassis box"
for slot in L01 L02 L03 S01 S02; do
	grep -q "label=\"ibcore1/$slot\\\\nLID " "$TMP/director.dot" || fail "director: no ASIC labelled ibcore1/$slot"
done

# Hosts grouped: fattree2-small's six leaves carry 18 and 6 hosts; each group is one node in hostlist form.
grep -q 'label="node\[0001-0018\]\\n18 hosts, 4xEDR"' "$TMP/fattree2-small.dot" || fail "no group node[0001-0018]"
grep -q "xlabel=\"${NBSP2}18 × 4xEDR${NBSP2}\", weight=18" "$TMP/fattree2-small.dot" || fail "no merged edge of 18 host cables"
# Every leaf-spine pair is "2 × 4xEDR": said once, in the legend, not on 54 crossing edges.
grep -q 'comment="2 × 4xEDR", weight=2' "$TMP/fattree2-small.dot" || fail "parallel leaf-spine cables not merged"
! grep -q 'xlabel="[^"]*2 × 4xEDR' "$TMP/fattree2-small.dot" || fail "the common leaf-spine label is on the edges"
grep -q 'leaf–spine cables: 2 × 4xEDR per pair where not labelled' "$TMP/fattree2-small.dot" || fail "the common label is not in the legend"
n=$(grep -c 'shape=folder' "$TMP/fattree2-small.dot")
[ "$n" = 6 ] || fail "fattree2-small: $n host groups, want 6"
# A threshold above the largest leaf draws every host.
"$IBSCAN" topology --format dot --group-hosts 19 --replay "$caps/fattree2-small.cap" -o "$TMP/g19.dot"
! grep -q 'shape=folder' "$TMP/g19.dot" || fail "--group-hosts 19 still groups"
run 2 topology --format dot --group-hosts 1 --replay "$caps/fattree2-small.cap"
err_has "--group-hosts wants a number from 2 to 100000"
run 2 nodes --group-hosts 4 --replay "$caps/fattree2-small.cap"
# With a format that draws nothing they would do nothing: refused, before any walk.
for f in text json netfile slurm; do
	run 2 topology --format $f --all-hosts --replay "$caps/fattree2-small.cap"
	err_has "--group-hosts and --all-hosts go with --format dot or svg, not $f"
	run 2 topology --format $f --group-hosts 4 --replay "$caps/fattree2-small.cap"
done
"$IBSCAN" report --all-hosts --replay "$caps/fattree2-small.cap" -o "$TMP/all-hosts.html" || fail "report --all-hosts"
# --panels (the drawings themselves: tests/cli/t_drawscale.sh): a kind it knows, and a drawing format.
for k in rail su none; do
	"$IBSCAN" topology --format dot --panels $k --replay "$caps/fattree2-small.cap" -o "$TMP/p-$k.dot" ||
		fail "--panels $k refused"
done
run 2 topology --format dot --panels rails --replay "$caps/fattree2-small.cap"
err_has "--panels wants rail, su or none, not 'rails'"
run 2 report --panels unit --replay "$caps/fattree2-small.cap" -o "$TMP/p.html"
err_has "--panels wants rail, su or none, not 'unit'"
run 2 topology --format json --panels su --replay "$caps/fattree2-small.cap"
err_has "--panels goes with --format dot or svg, not json"
"$IBSCAN" report --panels su --replay "$caps/fattree2-small.cap" -o "$TMP/p.html" || fail "report --panels su"
echo "ok: tiers, proportions, merged edges and host groups"

# The degraded fixture: leaf01[3] runs 1x (degraded), leaf02[6]-spine02 runs QDR (held down by
# spine02's configuration): each its own orange edge, labelled with ports.
python3 "$check" alone "$TMP/degraded.links.json" "$TMP/degraded.json" 0x0002c90300e10001 3 '#ff7f0e' || fail "degraded host cable"
python3 "$check" alone "$TMP/degraded.links.json" "$TMP/degraded.json" 0x0002c90300e10002 6 '#ff7f0e' || fail "degraded switch cable"
grep -q "xlabel=\"${NBSP2}6:2 4xQDR${NBSP2}\"" "$TMP/degraded.dot" || fail "the degraded cable is not labelled with its ports"
echo "ok: degraded cables drawn alone, in orange"

# --format svg: libgvc in-process, valid SVG, the same nodes and edges as dot -Tsvg of --format dot.
for c in fattree2-small degraded dualrail; do
	for cmd in topology health; do
		rc=0
		"$IBSCAN" $cmd --format svg --replay "$caps/$c.cap" -o "$TMP/$c.$cmd.svg" 2>"$TMP/err" || rc=$?
		[ $cmd = health ] || [ $rc = 0 ] || { cat "$TMP/err"; fail "$c: topology --format svg exited $rc"; }
		rc=0
		"$IBSCAN" $cmd --format dot --replay "$caps/$c.cap" -o "$TMP/$c.$cmd.dot" 2>/dev/null || rc=$?
		xmllint --noout "$TMP/$c.$cmd.svg" || fail "$c: $cmd --format svg is not valid XML"
		head -c 400 "$TMP/$c.$cmd.svg" | grep -q '<svg' || fail "$c: $cmd --format svg is not SVG"
		dot -Tsvg "$TMP/$c.$cmd.dot" >"$TMP/$c.$cmd.ref.svg"
		for class in node edge; do
			a=$(grep -c "class=\"$class\"" "$TMP/$c.$cmd.svg")
			b=$(grep -c "class=\"$class\"" "$TMP/$c.$cmd.ref.svg")
			[ "$a" = "$b" ] && [ "$a" -gt 0 ] || fail "$c: $cmd --format svg has $a ${class}s, dot -Tsvg $b"
		done
	done
done
# Ids as the report finds them (Graphviz writes '-' as &#45;: read them as XML); GUIDs in tooltips, not on labels.
svg=$TMP/fattree2-small.topology.svg
xid() { xmllint --xpath "string(//*[local-name()='g'][@id='$1']/@class)" "$svg"; }
[ "$(xid n-0002c90300e10001)" = node ] || fail "svg: no node n-0002c90300e10001"
[ "$(xid g-0002c90300e10001)" = node ] || fail "svg: no group node g-0002c90300e10001"
[ "$(xid e-0002c90300e10001-0002c90300e20001)" = edge ] || fail "svg: no merged edge e-0002c90300e10001-0002c90300e20001"
[ "$(xid e-0002c90300e10001-g-0002c90300e10001)" = edge ] || fail "svg: no edge from leaf01 to its group"
t=$(xmllint --xpath "string(//*[local-name()='g'][@id='a_n-0002c90300e10001']/*/@*[local-name()='title'])" "$svg")
[ "$t" = "MF0;leaf01:MSB7800/U1
switch 0x0002c90300e10001, LID 1" ] || fail "svg: leaf01's tooltip is '$t'"
echo "ok: --format svg valid, same nodes and edges as dot -Tsvg"

# health: every finding on the picture: the status line as the title, degraded cables orange, said why.
run 1 health --format dot --replay "$caps/degraded.cap"
out_has 'label="IBSCAN WARNING - 1 degraded link, 1 link held down by configuration"'
out_has 'leaf01 [3] -- [1] node0003 mlx5_0 1xEDR: degraded'
out_has 'leaf02 [6] -- [2] spine02 4xQDR: held down by configuration'
run 2 counters --format svg --replay "$caps/degraded.cap"
run 3 health --format dot --replay "$TMP/nonexistent.cap"
# A node the walk could not read past is outlined, with or without a health run.
run 3 topology --format dot --replay "$caps/dead-switch.cap"
out_has 'label="Switch1\nLID 1", tooltip="Switch1\nswitch 0x0000000000200000, LID 1\nWARNING: a neighbour could not be discovered'
out_has 'color="#ff7f0e", penwidth=3'
run 1 health --format dot --replay "$caps/dead-switch.cap"
out_has 'WARNING: nothing answers behind Switch1 port 3 (path 0,3): timeout'
out_has 'color="#ff7f0e", penwidth=3'
echo "ok: health drawn"
t_done
