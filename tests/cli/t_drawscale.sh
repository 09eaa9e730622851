#!/bin/bash
# The drawing of generated fabrics of real size, measured on the SVG that
# libgvc lays out (tools/bench/drawfile.c: what `topology --format svg` writes, for
# an ibnetdiscover topology file; judged by tests/drawscale.py, which reads
# the fabric from the file itself):
# - tiers: every spine strictly above every leaf, every leaf above every
#   host (group), each tier on ranks of its own, also where a tier is
#   wrapped into rows;
# - the legend on a rank of its own above every node (no cable crosses it),
#   on white;
# - SHARP Aggregation Nodes (CAs "Mellanox Technologies Aggregation Node" on
#   a switch's last port) drawn in their switch's box, not as ellipses of
#   their own on the hosts' row;
# - full meshes between two switch tiers drawn as bundles (a junction, one
#   arm per switch): the pod's 384 leaf-spine pairs are 40 arms, the whole
#   pod 56 edges where it was 440;
# - blocks: on ibscan's grid, each leaf's hosts (its groups, and hosts drawn
#   alone, here two with a degraded cable) in a block under it, and no
#   leaf-host cable crossing another leaf's or running through a node (the
#   leaves of a wrapped tier had their hosts in rows spread across the
#   drawing: on the 1,223-node tree below 41 of 45 leaves had their hosts
#   elsewhere, 9 pairs of cables crossed, 37 times one ran through a node
#   and 4 pairs of nodes overlapped; on the 8,831-node one 424 of 425,
#   16,723 pairs and 3,595 times);
# - spines: there too, the cables from the spines (the pods' bundles' junctions) into the
#   leaves run across a band above the leaves, down a drop at their column's left and in
#   above their leaf: none through a node, none across a leaf-host cable, and every crossing
#   of two of them in that band (drawn diagonally, on the 1,223-node tree 41 ran through a
#   leaf, 133 crossed a leaf-host cable and 109 pairs crossed among the leaf rows);
# - panels: a rail-optimized fabric (the pod, the rails tests' fabric) drawn as one panel per
#   rail ("rail mlx5_2": its leaves and their hosts), the spines above shared, no panel on a fat
#   tree of one device (t100); before, the leaves stood in one row by scalable unit, no rail shown;
#   on ibscan's grid too (r8, r48): each panel framed and titled, its leaves in one row (or, too
#   wide for that, rows of its own) with their blocks under them, the tiers in order inside each
#   panel and the spines above every panel;
# - two rows of spines (a tier wrapped: fattree3's 72 spines, a generated tree's 54): the cables
#   from the upper row down to the leaves, and the arms from the cores' bundles down to the lower
#   row, pass the lower row between its boxes (aside just under the row above, down a gap), none
#   through a box (drawn straight, on fattree3 216 spine-leaf cables ran through a spine of the
#   lower row and 126 times an arm through a spine; on the 440-node tree 162, and 436 times a
#   spine-core cable through a spine or a core of a row under its own);
# - size: no side over 16,000 px at 96 dpi, aspect within 1:4 .. 4:1, on
#   every fabric here, 74 to 29,938 nodes (the pod was 31:1, 19,051 px
#   wide); from DRAW_GRID_MIN (600) drawn nodes on, ibscan computes the
#   positions and Graphviz's nop engine draws them (dot, with the tiers
#   wrapped, took 182 s on the 2,562-node tree and drew it 125,872 px wide;
#   with the meshes bundled the 9,530-node one 38,881 px). Measured here (CPU): 2,562 nodes 0.2 s, 29,938 nodes
#   2.0 s (4,452 edges, 13,381 x 13,556 px).
. "$(dirname "$0")/lib.sh"
draw=$ROOT/build/rel/drawfile
check=$ROOT/tests/drawscale.py
[ -x "$draw" ] || fail "$draw is not built (make build/rel/drawfile)"

# A DGX SuperPOD-like pod: 4 scalable units x 32 servers x 4 rails, 24 spines, an Aggregation Node in every switch (592 nodes).
python3 "$ROOT/tools/fixtures/genrails.py" --units 4 --servers 32 --rails 4 --spines 24 --sharp -o "$TMP/pod.net"
"$draw" svg "$TMP/pod.net" "$TMP/pod.svg" || fail "pod: no drawing"
python3 "$check" "$TMP/pod.svg" "$TMP/pod.net" size tiers an legend edges=56 panels=4 || fail "pod: size, tiers, aggregation nodes, legend, bundles, panels"
grep -q '24 × 16 mesh: 4xEDR each, 384 cables' "$TMP/pod.svg" || fail "pod: the leaf-spine mesh is not one bundle"

# Rail-optimized fabrics on ibscan's grid (over DRAW_GRID_MIN drawn nodes): one framed panel per rail,
# the spines above shared; 8 units x 32 servers x 8 rails (2,144 nodes), each rail's 8 leaves in one
# row with their host groups under them (before: 64 leaves in 5 rows of 13 filled rail after rail,
# no panel); 48 units x 3 servers x 4 rails (992 nodes, hosts drawn alone, Aggregation Nodes), each
# rail's 48 leaves wrapped into rows of 16 inside its panel, each row's blocks under it; 4 x 32 x 8
# with 64 spines (1,120 nodes, the spines wrapped): the panels three side by side, in three rows.
python3 "$ROOT/tools/fixtures/genrails.py" --units 8 --servers 32 --rails 8 --spines 32 -o "$TMP/r8.net"
python3 "$ROOT/tools/fixtures/genrails.py" --units 48 --servers 3 --rails 4 --spines 16 --sharp -o "$TMP/r48.net"
python3 "$ROOT/tools/fixtures/genrails.py" --units 4 --servers 32 --rails 8 --spines 64 -o "$TMP/r4w.net"
for c in r8:8:1 r48:4:3 r4w:8:1; do
	p=${c#*:} c=${c%%:*} rr=${p#*:} p=${p%:*}
	"$draw" svg "$TMP/$c.net" "$TMP/$c.svg" || fail "$c: no drawing"
	python3 "$check" "$TMP/$c.svg" "$TMP/$c.net" size tiers an legend blocks spines panels=$p railrows=$rr ||
		fail "$c: size, tiers, legend, blocks, spines, $p panels, rails in $rr rows"
	grep -q 'layout=nop2' <("$draw" dot "$TMP/$c.net" /dev/stdout) || fail "$c: not laid out by ibscan"
done

# --panels su: one panel per scalable unit (its leaves of every rail, its hosts) instead, on dot's
# layout (the pod: 4) and on the grid (r8: 8); --panels none: no panel.
for c in pod:4 r8:8; do
	p=${c#*:} c=${c%:*}
	"$draw" svg "$TMP/$c.net" "$TMP/$c.su.svg" --panels su || fail "$c: no drawing by unit"
	python3 "$check" "$TMP/$c.su.svg" "$TMP/$c.net" size tiers legend units=$p || fail "$c: size, tiers, legend, $p units"
done
"$draw" svg "$TMP/pod.net" "$TMP/pod.none.svg" --panels none || fail "pod: no drawing without panels"
python3 "$check" "$TMP/pod.none.svg" "$TMP/pod.net" size tiers legend panels=0 || fail "pod: a panel with --panels none"

# A three-level tree of 2,562 nodes (2,000 hosts, 562 switches): meshes bundled (4,397 edges unbundled).
python3 "$ROOT/tools/fixtures/genfabric.py" --levels 3 --radix 36 --hosts 2000 -o "$TMP/t2k.net" 2>/dev/null
"$draw" svg "$TMP/t2k.net" "$TMP/t2k.svg" || fail "t2k: no drawing"
python3 "$check" "$TMP/t2k.svg" "$TMP/t2k.net" size tiers legend blocks spines edges=1000 || fail "t2k: size, tiers, legend, blocks, spines, bundles"
grep -q 'layout=nop' <("$draw" dot "$TMP/t2k.net" /dev/stdout) || fail "t2k: not laid out by ibscan"
# 9,530 and 29,938 nodes (three levels, radix 64).
for h in 8000 27200; do
	python3 "$ROOT/tools/fixtures/genfabric.py" --levels 3 --radix 64 --hosts $h -o "$TMP/t$h.net" 2>/dev/null
	"$draw" svg "$TMP/t$h.net" "$TMP/t$h.svg" || fail "t$h: no drawing"
	python3 "$check" "$TMP/t$h.svg" "$TMP/t$h.net" size tiers legend blocks spines edges=6000 || fail "t$h: size, tiers, legend, blocks, spines, bundles"
done

# 1,223 nodes (800 hosts on 45 leaves, a tier wrapped: on the grid), two hosts drawn alone
# beside their leaf's group; and the 8,831-node tree of the report's size test (tests/browser).
python3 "$ROOT/tools/fixtures/genfabric.py" --levels 3 --radix 36 --hosts 800 --degrade 'H-node0005[1]=1xEDR' \
	--degrade 'H-node0100[1]=4xFDR' -o "$TMP/t1k.net" 2>/dev/null
python3 "$ROOT/tools/fixtures/genfabric.py" --levels 3 --radix 36 --hosts 7650 -o "$TMP/t8k.net" 2>/dev/null
for c in t1k t8k; do
	"$draw" svg "$TMP/$c.net" "$TMP/$c.svg" || fail "$c: no drawing"
	python3 "$check" "$TMP/$c.svg" "$TMP/$c.net" size tiers legend blocks spines || fail "$c: size, tiers, legend, blocks, spines"
done
grep -q 'layout=nop2' <("$draw" dot "$TMP/t1k.net" /dev/stdout) || fail "t1k: not laid out by ibscan"

# Two rows of spines: fattree3 (612 nodes, 72 spines in rows of 36, 36 cores) and a generated
# three-level tree of 440 nodes (radix 12, 300 hosts: 54 spines in two rows, 36 cores).
cp "$ROOT/fixtures/fabrics/fattree3" "$TMP/ft3.net"
python3 "$ROOT/tools/fixtures/genfabric.py" --levels 3 --radix 12 --hosts 300 -o "$TMP/t440.net" 2>/dev/null
for c in ft3 t440; do
	"$draw" svg "$TMP/$c.net" "$TMP/$c.svg" || fail "$c: no drawing"
	python3 "$check" "$TMP/$c.svg" "$TMP/$c.net" size tiers legend blocks spines || fail "$c: size, tiers, legend, blocks, spines"
	grep -q 'subgraph "tier2-2"' <("$draw" dot "$TMP/$c.net" /dev/stdout) || fail "$c: the spines are not in two rows"
done

# A two-level tree of 100 nodes, and the small rail fabric of the rails tests (74 nodes), with Aggregation Nodes.
python3 "$ROOT/tools/fixtures/genfabric.py" --levels 2 --radix 36 --hosts 80 -o "$TMP/t100.net" 2>/dev/null
python3 "$ROOT/tools/fixtures/genrails.py" --sharp -o "$TMP/rail.net"
for c in t100:0 rail:4; do
	p=${c#*:} c=${c%:*}
	"$draw" svg "$TMP/$c.net" "$TMP/$c.svg" || fail "$c: no drawing"
	python3 "$check" "$TMP/$c.svg" "$TMP/$c.net" size tiers an legend panels=$p || fail "$c: size, tiers, aggregation nodes, legend, $p panels"
done
echo "ok: tiers in order, legend on top, aggregation nodes in their switch, meshes bundled, hosts under their leaves, spine rows passed, sizes"
t_done
