#!/bin/bash
# ibscan's routes against infiniband-diags' on fattree2-small under OpenSM's
# ftree engine (tests/sim/routecheck/tracecmp.py does the comparing):
# - `ibscan route SLID DLID` equals `ibtracert SLID DLID` hop by hop (each
#   switch's GUID, the port out of each node and into the next, the
#   destination) on a fixed sample of 44 pairs: CA to CA on one leaf and across
#   the spines, CA to its own leaf switch, to another leaf, to a spine;
# - `routes --through` a leaf's uplink: each CA's count of routes from it and
#   to it equal to every CA-to-CA route traced through dump_lfts' tables over
#   ibnetdiscover -p's cables, and to ibtracert run pair by pair on every
#   route from one of the leaf's CAs and into one CA the spine sends down it;
#   and the switch's end of a host's cable, judged by the tables;
# - `routes --nodes` a 6-host job: the links crossed and their counts equal
#   to ibtracert's on each of the job's 30 routes;
# - under LMC 2, `route` to each LID of a port's range (some ranges take
#   more than one path) and to switches from LIDs that are not the base.
# Each comparison is fed one planted error too, and must catch it.
. "$(dirname "$0")/lib.sh"
cmp=$ROOT/tests/sim/routecheck/tracecmp.py
uplink="MF0;leaf01:MSB7800/U1" port=19
job="node[0001-0002,0019,0040,0060,0096]"

SIM_OSM_ARGS="-R ftree" sim_start "$FABRICS/fattree2-small"
grep -q "ftree" "$SIM_DIR/osm.log" || fail "opensm's log does not name the ftree engine"
ibs topology --json -o "$TMP/topo.json" || fail "ibscan topology"
sim_run ibnetdiscover -p >"$TMP/ibnd" 2>"$TMP/err" || fail "ibnetdiscover -p: $(cat "$TMP/err")"
sim_run dump_lfts >"$TMP/lfts" 2>"$TMP/err" || fail "dump_lfts: $(cat "$TMP/err")"

# route: the sample, ibtracert and ibscan on each pair.
python3 "$cmp" sample "$TMP/topo.json" >"$TMP/pairs" || fail "no sample"
[ "$(wc -l <"$TMP/pairs")" -ge 30 ] || fail "sample of $(wc -l <"$TMP/pairs") pairs"
mkdir "$TMP/tr" "$TMP/rt"
while read -r s d _; do
	sim_run ibtracert "$s" "$d" >"$TMP/tr/$s-$d" 2>"$TMP/err" || fail "ibtracert $s $d: $(cat "$TMP/err")"
	ibs route "$s" "$d" --json -o "$TMP/rt/$s-$d.json" || fail "ibscan route $s $d exited $?"
done <"$TMP/pairs"
python3 "$cmp" route "$TMP/topo.json" "$TMP/ibnd" "$TMP/lfts" "$TMP/pairs" "$TMP/tr" "$TMP/rt" >"$TMP/cmp" ||
	fail "route differs from ibtracert"
ok "route equal to ibtracert hop by hop: $(cat "$TMP/cmp")"

# routes --through the uplink: ibtracert on the pairs that judge it.
expect_rc 0 ibs routes --through "$uplink:$port" --json -o "$TMP/thr.json"
python3 "$cmp" rows "$TMP/topo.json" "$TMP/ibnd" "$TMP/lfts" "$uplink" "$port" >"$TMP/rows" || fail "no rows"
mkdir "$TMP/tt"
while read -r s d; do
	sim_run ibtracert "$s" "$d" >"$TMP/tt/$s-$d" 2>"$TMP/err" || fail "ibtracert $s $d: $(cat "$TMP/err")"
done <"$TMP/rows"
python3 "$cmp" through "$TMP/topo.json" "$TMP/ibnd" "$TMP/lfts" "$uplink" "$port" "$TMP/thr.json" \
	"$TMP/rows" "$TMP/tt" >"$TMP/cmp" || fail "routes --through $uplink:$port"
ok "routes --through $uplink:$port: $(cat "$TMP/cmp")"
# A host's cable given from the switch's end (leaf01 port 1: node0001): its
# routes from it cross it too.
expect_rc 0 ibs routes --through "$uplink:1" --json -o "$TMP/thr1.json"
python3 "$cmp" through "$TMP/topo.json" "$TMP/ibnd" "$TMP/lfts" "$uplink" 1 "$TMP/thr1.json" - - >"$TMP/cmp" ||
	fail "routes --through $uplink:1"
ok "routes --through $uplink:1 (a host's cable): $(cat "$TMP/cmp")"

# routes --nodes: ibtracert on every route of the job.
expect_rc 0 ibs routes --nodes "$job" --json -o "$TMP/job.json"
python3 "$cmp" job "$TMP/ibnd" "$job" >"$TMP/jpairs" || fail "no job pairs"
mkdir "$TMP/tj"
while read -r s d; do
	sim_run ibtracert "$s" "$d" >"$TMP/tj/$s-$d" 2>"$TMP/err" || fail "ibtracert $s $d: $(cat "$TMP/err")"
done <"$TMP/jpairs"
python3 "$cmp" nodes "$TMP/topo.json" "$TMP/ibnd" "$TMP/lfts" "$job" "$TMP/job.json" "$TMP/jpairs" "$TMP/tj" \
	>"$TMP/cmp" || fail "routes --nodes $job"
ok "routes --nodes $job: $(cat "$TMP/cmp")"
sim_stop

# LMC 2 (OpenSM's default engine): each LID of a range is routed on its own;
# route must trace the LID asked, not the port's base LID.
SIM_OSM_ARGS="-l 2" sim_start "$FABRICS/fattree2-small"
ibs topology --json -o "$TMP/topo.json" || fail "ibscan topology"
python3 "$cmp" sample-lmc "$TMP/topo.json" >"$TMP/pairs" || fail "no LMC sample"
rm -rf "$TMP/tr" "$TMP/rt"
mkdir "$TMP/tr" "$TMP/rt"
while read -r s d _; do
	sim_run ibtracert "$s" "$d" >"$TMP/tr/$s-$d" 2>"$TMP/err" || fail "ibtracert $s $d: $(cat "$TMP/err")"
	ibs route "$s" "$d" --json -o "$TMP/rt/$s-$d.json" || fail "ibscan route $s $d exited $?"
done <"$TMP/pairs"
python3 "$cmp" route "$TMP/topo.json" - - "$TMP/pairs" "$TMP/tr" "$TMP/rt" >"$TMP/cmp" ||
	fail "route under LMC 2 differs from ibtracert"
ok "LMC 2: route equal to ibtracert hop by hop: $(cat "$TMP/cmp")"
sim_stop
t_done
