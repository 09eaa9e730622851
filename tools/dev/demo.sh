#!/bin/bash
# make demo: start ibsim + opensm on a bundled fabric, walk it with ibscan,
# write topology.json, topology.svg (the tiered drawing, laid out by
# ibscan itself through libgvc) and report.html (ibscan report: open it in
# a browser), print the text view, and stop everything that was started.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
fabric=${DEMO_FABRIC:-$root/fixtures/fabrics/fattree2-small}
. "$root/tests/sim/simlib.sh"

echo "demo: starting ibsim + opensm on $(basename "$fabric")..." >&2
sim_start "$fabric"
echo "demo: subnet up in ${SIM_UP_SECONDS}s; walking it with ibscan" >&2
rc=0
sim_run "$root/ibscan" topology --json -o "$root/topology.json" || rc=$?
[ $rc -eq 0 ] && { sim_run "$root/ibscan" topology --format svg -o "$root/topology.svg" || rc=$?; }
[ $rc -eq 0 ] && { sim_run "$root/ibscan" report -o "$root/report.html" || rc=$?; }
[ $rc -eq 0 ] && { sim_run "$root/ibscan" topology || rc=$?; }
sim_stop
if [ $rc -ne 0 ]; then
	echo "demo: failed (exit $rc)" >&2
	exit $rc
fi
echo "demo: wrote $root/topology.json and $root/topology.svg" >&2
echo "demo: wrote $root/report.html: open it in a browser (file://$root/report.html)" >&2
