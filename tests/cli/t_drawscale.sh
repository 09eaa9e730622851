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
# - size: no side over 16,000 px at 96 dpi, aspect within 1:4 .. 4:1, on
#   the fabrics where that holds today (see docs: up to the 100-node tree;
#   the 592-node rail pod is 4.3:1 and a 2,562-node three-level tree 42:1,
#   which needs the meshes drawn as bundles: not done).
. "$(dirname "$0")/lib.sh"
draw=$ROOT/build/rel/drawfile
check=$ROOT/tests/drawscale.py
[ -x "$draw" ] || fail "$draw is not built (make build/rel/drawfile)"

# A DGX SuperPOD-like pod: 4 scalable units x 32 servers x 4 rails, 24 spines, an Aggregation Node in every switch (592 nodes).
python3 "$ROOT/tools/genrails.py" --units 4 --servers 32 --rails 4 --spines 24 --sharp -o "$TMP/pod.net"
"$draw" svg "$TMP/pod.net" "$TMP/pod.svg" || fail "pod: no drawing"
python3 "$check" "$TMP/pod.svg" "$TMP/pod.net" tiers an legend || fail "pod: tiers, aggregation nodes, legend"

# A two-level tree of 100 nodes, and the small rail fabric of the rails tests (74 nodes), with Aggregation Nodes.
python3 "$ROOT/tools/genfabric.py" --levels 2 --radix 36 --hosts 80 -o "$TMP/t100.net" 2>/dev/null
python3 "$ROOT/tools/genrails.py" --sharp -o "$TMP/rail.net"
for c in t100 rail; do
	"$draw" svg "$TMP/$c.net" "$TMP/$c.svg" || fail "$c: no drawing"
	python3 "$check" "$TMP/$c.svg" "$TMP/$c.net" size tiers an legend || fail "$c: size, tiers, aggregation nodes, legend"
done
echo "ok: tiers in order, legend on top, aggregation nodes in their switch"
t_done
