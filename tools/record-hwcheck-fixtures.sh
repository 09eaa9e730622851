#!/bin/bash
# Record fixtures/hwcheck/: what the reference tools and ibscan say on one
# simulated fabric (fixtures/fabrics/net.2sw2path4hca, ibsim + opensm), in
# the order tools/hwcheck.sh runs them, from the port it uses (Switch1, LID 1,
# where the simulator attaches clients). tests/cli/t_hwcheck.sh's stand-ins
# print these files: the tools' real output, not a copy of their format.
# perfquery is read before and after each ibscan counters, as hwcheck does.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/fixtures/hwcheck
. "$root/tests/sim/simlib.sh"
mkdir -p "$out"
sim_start "$root/fixtures/fabrics/net.2sw2path4hca"
ibs() { sim_run "$root/ibscan" "$@"; }
sim_run ibnetdiscover >"$out/ibnetdiscover"
ibs topology --json -o "$out/topology.json"
ibs topology --json --gids -o "$out/topology-gids.json"
sim_run perfquery >"$out/perfquery-vl15"
sim_run perfquery 1 1 >"$out/perfquery-1"
ibs counters --json -o "$out/counters.json"
sim_run perfquery 1 1 >"$out/perfquery-2"
sim_run perfquery -x 1 1 >"$out/perfquery-x-1"
ibs counters --json -o "$out/counters-x.json"
sim_run perfquery -x 1 1 >"$out/perfquery-x-2"
sim_run perfquery -x 1 1 >"$out/perfquery-r-1"
ibs counters --interval 2 --json -o "$out/counters-interval.json"
sim_run perfquery -x 1 1 >"$out/perfquery-r-2"
sim_run saquery -p --src-to-dst 1:1 >"$out/saquery"
ibs path 1 1 --json -o "$out/path.json"
ibs routes --dump --json -o "$out/routes.json"
for l in $(jq -r '.switches[].lid' "$out/routes.json"); do sim_run ibroute -n "$l" >"$out/ibroute-$l"; done
sim_run sminfo >"$out/sminfo"
ibs sm --json -o "$out/sm.json"
sim_run iblinkinfo --line >"$out/iblinkinfo"
ibs links --json -o "$out/links.json"
sim_run smpquery GI 1 >"$out/smpquery-gi"
sim_stop
echo "hwcheck fixtures: $(ls "$out" | wc -l) files in $out"
