#!/bin/bash
# The drawing of generated fabrics of real size, measured on the SVG that
# libgvc lays out (tools/drawfile: what `topology --format svg` writes, for
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
# - size: no side over 16,000 px at 96 dpi, aspect within 1:4 .. 4:1, on
#   the 74-, 100- and 592-node fabrics (the pod was 31:1, 19,051 px wide);
#   a 2,562-node three-level tree keeps its tiers and legend but is still
#   17,585 px wide (3.97:1), over the limit: not asserted (docs: "Drawing
#   large fabrics").
. "$(dirname "$0")/lib.sh"
draw=$ROOT/build/rel/drawfile
check=$ROOT/tests/drawscale.py
[ -x "$draw" ] || fail "$draw is not built (make build/rel/drawfile)"

# A DGX SuperPOD-like pod: 4 scalable units x 32 servers x 4 rails, 24 spines, an Aggregation Node in every switch (592 nodes).
python3 "$ROOT/tools/genrails.py" --units 4 --servers 32 --rails 4 --spines 24 --sharp -o "$TMP/pod.net"
"$draw" svg "$TMP/pod.net" "$TMP/pod.svg" || fail "pod: no drawing"
python3 "$check" "$TMP/pod.svg" "$TMP/pod.net" size tiers an legend edges=56 || fail "pod: size, tiers, aggregation nodes, legend, bundles"
grep -q '24 × 16 mesh: 4xEDR each, 384 cables' "$TMP/pod.svg" || fail "pod: the leaf-spine mesh is not one bundle"

# A three-level tree of 2,562 nodes (2,000 hosts, 562 switches): tiers, legend, meshes bundled (4,397 edges unbundled).
python3 "$ROOT/tools/genfabric.py" --levels 3 --radix 36 --hosts 2000 -o "$TMP/t2k.net" 2>/dev/null
"$draw" svg "$TMP/t2k.net" "$TMP/t2k.svg" || fail "t2k: no drawing"
python3 "$check" "$TMP/t2k.svg" "$TMP/t2k.net" tiers legend edges=1000 || fail "t2k: tiers, legend, bundles"

# A two-level tree of 100 nodes, and the small rail fabric of the rails tests (74 nodes), with Aggregation Nodes.
python3 "$ROOT/tools/genfabric.py" --levels 2 --radix 36 --hosts 80 -o "$TMP/t100.net" 2>/dev/null
python3 "$ROOT/tools/genrails.py" --sharp -o "$TMP/rail.net"
for c in t100 rail; do
	"$draw" svg "$TMP/$c.net" "$TMP/$c.svg" || fail "$c: no drawing"
	python3 "$check" "$TMP/$c.svg" "$TMP/$c.net" size tiers an legend || fail "$c: size, tiers, aggregation nodes, legend"
done
echo "ok: tiers in order, legend on top, aggregation nodes in their switch, meshes bundled, sizes"
t_done
