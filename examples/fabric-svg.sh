#!/bin/bash
# Draw the fabric as SVG with Graphviz's sfdp, which lays out large fabrics
# (hundreds to thousands of nodes) that dot cannot:
#   fabric-svg.sh fabric.svg                       # walk the fabric
#   fabric-svg.sh fabric.svg --replay run.cap      # any ibscan option goes after OUT
# Edges are straight (-Gsplines=false): with the curved edges ibscan asks
# for (fine for dot on small fabrics) sfdp takes minutes on a few hundred
# nodes; straight, fixtures/captures/fattree3.cap (612 nodes, 1296 links)
# takes under a second. Set IBSCAN to use another ibscan binary.
set -euo pipefail
IBSCAN=${IBSCAN:-ibscan}
out=${1:?usage: fabric-svg.sh OUT.svg [ibscan options]}
shift
"$IBSCAN" topology --format dot "$@" | sfdp -Tsvg -Gsplines=false -Goverlap=prism -o "$out"
