#!/bin/bash
# make fixtures: re-record fixtures/captures/ from the bundled topology files
# with ibsim + opensm, with ibscan's own --record on `ibscan health` (so each
# capture holds the walk, SMInfo and every PMA counter query). One capture per
# fabric; for net.2sw2path4hca also what health does not read, and the
# ibnetdiscover cache (fixtures/caches/) that --load-cache reads:
#   net.2sw2path4hca-routes  `ibscan routes --dump`: every forwarding table
#   net.2sw2path4hca-path    `ibscan path Hca1 Hca4`: one SA PathRecord
# Then fault captures:
#   cable-pulled   net.2sw2path4hca with both inter-switch cables unlinked
#   dropped        fattree2-small with ibsim dropping 10% of MADs (Error)
#   dead-switch    net.2sw2path4hca with Switch2 dropping every MAD
#   counters       net.2sw2path4hca with error counters set (PerformanceSet)
#   dup-guid       net.2sw2path4hca with Hca4 given Hca1's node GUID (Guid)
#   dup-lid        net.2sw2path4hca with Hca2 given Hca1's LID (Baselid)
#   no-sm          net.2sw2path4hca with opensm stopped after the sweep
#   port-init      Hca1 recabled to Switch1 port 4 with no SM: LinkUp but Init
#   moved          Hca1 recabled to Switch1 port 4, the SM running
#   bad-status     Switch2's NodeDescription answer edited to status 0x001c
#   dup-port-guid  Hca3's NodeInfo PortGUID edited to Hca1's port GUID
#   lid-zero       Hca2's PortInfo LID edited to 0
# and degraded.cap has leaf01 port 3's LinkWidthEnabled edited to 1x|4x and the
# extended speeds of leaf02 port 6 and spine02 port 2 restored (see below).
# flap.cap is not re-recorded here: a walk during which a cable flapped is
# caught, not made (tests/sim/t_flap.sh with FLAP_KEEP=DIR keeps each one;
# tests/cli/t_flap.sh says what the kept one must hold).
# The last three (and that edit) are made by hand, as docs/capture-format.md allows: ibsim
# cannot produce them. fixtures/baselines/ holds the baseline the drift
# captures are checked against. Then regenerate the golden files on purpose
# with `make golden` and review them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/fixtures/captures
fab=$root/fixtures/fabrics
. "$root/tests/sim/simlib.sh"
. "$root/tests/sim/fixture_states.sh"
FABRICS=$fab
mkdir -p "$out" "$root/fixtures/baselines"

record() { # NAME [ibscan options...]
	local name=$1 rc=0
	shift
	# stdout to /dev/null by the shell, not `-o /dev/null` (an older ibscan replaced it with a file).
	# --format prom: the metrics read ClassPortInfo and PortCountersExtended too, which `counters` replays.
	sim_run "$root/ibscan" health --format prom --record "$out/$name.cap" "$@" >/dev/null || rc=$?
	[ $rc -le 3 ] || { echo "fixtures: $name: ibscan health exited $rc" >&2; exit 1; }
	echo "fixtures: $name.cap: $(grep -c '^x ' "$out/$name.cap") exchanges (health exit $rc)"
	if [ "$name" = net.2sw2path4hca ]; then
		sim_run "$root/ibscan" topology --json -o "$root/fixtures/baselines/$name.json"
		sim_run "$root/ibscan" routes --dump --record "$out/$name-routes.cap" >/dev/null
		sim_run "$root/ibscan" path Hca1 Hca4 --record "$out/$name-path.cap" >/dev/null
		mkdir -p "$root/fixtures/caches"
		sim_run ibnetdiscover --cache "$root/fixtures/caches/$name.cache" >/dev/null
	fi
}

fixture_states record

# Hand edits: the hex of one response each (offsets are MAD bytes, 2 hex digits each).
python3 - "$out" <<'PY'
import sys
d = sys.argv[1]

def edit(src, dst, attr, addr, byte_off, new_hex, every=False):
    lines = open(f"{d}/{src}.cap").read().split("\n")
    done = False
    for i, l in enumerate(lines):
        if (l.startswith(f"x SMI-DR Get {attr} ") or l.startswith(f"x SMI Get {attr} ")) and l.endswith(
                f" addr={addr}") and (every or not done):
            r = lines[i + 2]
            assert r.startswith("< resp "), r
            h = r[7:].ljust(512, "0")
            h = h[:2 * byte_off] + new_hex + h[2 * byte_off + len(new_hex):]
            while h.endswith("00"):
                h = h[:-2]
            lines[i + 2] = "< resp " + h
            done = True
    assert done, (src, attr, addr)
    open(f"{d}/{dst}.cap", "w").write("\n".join(lines))

# SMP status: bytes 4-5 (D bit + status 0x001c). Switch2 is asked by its LID: find it.
sw2 = [l for l in range(1, 7) if "Switch2".encode().hex() in open(f"{d}/net.2sw2path4hca.cap").read().split(
    f"x SMI Get NodeDescription mod=0 addr=lid:{l}\n", 1)[-1].split("\n")[1][:200]]
assert len(sw2) == 1, sw2
edit("net.2sw2path4hca", "bad-status", "NodeDescription", f"lid:{sw2[0]}", 4, "801c")
# NodeInfo PortGUID: SMP data (byte 64) + 20 = byte 84. Hca3 is behind Switch1 port 2.
edit("net.2sw2path4hca", "dup-port-guid", "NodeInfo", "dr:0,2", 84, "0000000000100001")
# Only switches are asked by LID (issue 24): Hca3's NodeInfo comes by directed route alone.
# PortInfo LID: SMP data + 16 = byte 80. Hca2 is behind Switch1 port 3, Switch2 port 1.
edit("net.2sw2path4hca", "lid-zero", "PortInfo mod=1", "dr:0,3,1", 80, "0000")
# PortInfo LinkWidthEnabled: SMP data + 29 = byte 93. leaf01 (the local switch) port 3 is
# enabled 1x|4x facing a 4x host and runs 1x: a link trained below what both ends
# support and enable (link.degraded), which ibsim cannot make (it runs every link at the
# best both ends enable).
edit("degraded", "degraded", "PortInfo mod=3", "dr:0", 93, "03")
# LinkSpeedExtActive/Supported, LinkSpeedExtEnabled: SMP data + 62, 63 = bytes 126, 127.
# ibsim says a port it runs at QDR supports no extended speed; a real one still does: leaf02
# (LID 2) port 6 supports FDR|EDR|HDR and enables FDR|EDR, spine02 (LID 4) port 2 supports
# them and enables none, so spine02's end holds the QDR link down (link.held_down).
edit("degraded", "degraded", "PortInfo mod=6", "lid:2", 126, "0703")
edit("degraded", "degraded", "PortInfo mod=2", "lid:4", 126, "0700")
PY
cp "$root/fixtures/baselines/net.2sw2path4hca.json" "$root/fixtures/baselines/cable-pulled.json"
cp "$root/fixtures/baselines/net.2sw2path4hca.json" "$root/fixtures/baselines/moved.json"
echo "fixtures: bad-status, dup-port-guid, lid-zero: edited from net.2sw2path4hca.cap; degraded: edited"

# fixtures/routes/: walks with every forwarding table, and the SL2VL pairs of a
# loop's channels (`ibscan routes --check`, which exits 1 or 2 on what it finds) under
# OpenSM's own engines, for the heat map and the report's route findings
# (tests/cli/t_heat.sh, tests/browser): kept out of captures/ (no golden files).
mkdir -p "$root/fixtures/routes"
record_check() { # CAPTURE
	local rc=0
	sim_run "$root/ibscan" routes --check --record "$1" >/dev/null || rc=$?
	[ $rc -le 2 ] || { echo "fixtures: $1: ibscan routes --check exited $rc" >&2; exit 1; }
}
SIM_OSM_ARGS="-R ftree" sim_start "$fab/fattree2-small"
n=$(sim_subnet_up_count)
sim_console 'Unlink "S-leaf01"[19]' >/dev/null # leaf01's cable to spine01, the SM resweeping
sim_wait_subnet_up $((n + 1))
record_check "$root/fixtures/routes/fattree2-small-cut.cap"
sim_stop
SIM_OSM_ARGS="-R minhop" sim_start "$fab/ring4" # a credit loop round the ring
record_check "$root/fixtures/routes/ring4-minhop.cap"
sim_stop
echo "fixtures: routes/fattree2-small-cut.cap, routes/ring4-minhop.cap: every forwarding table (and ring4 the SL2VL of its loop)"
# A forwarding loop planted in ftree's own tables, for a host of leaf03 (the report's loop highlight).
SIM_OSM_ARGS="-R ftree" sim_start "$fab/fattree2-small"
tmpr=$(mktemp -d)
sim_run dump_lfts >"$tmpr/ft.lfts" 2>/dev/null
sim_run "$root/ibscan" topology --json -o "$tmpr/topo.json"
sim_stop
lid=$(python3 - "$tmpr/topo.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
leaf = [n for n in d["nodes"] if n["type"] == "switch" and "leaf03" in n["description"]][0]
host = [p for p in leaf["ports"] if p.get("peer") and p["peer"]["name"].startswith("node")][0]
print([m for m in d["nodes"] if m["guid"] == host["peer"]["guid"]][0]["ports"][0]["lid"])
PY
)
python3 "$root/tests/sim/routecheck/plant.py" "$tmpr/ft.lfts" "$tmpr/planted.lfts" "$tmpr/topo.json" \
	"set MF0;leaf01:MSB7800/U1 $lid 19, set MF0;spine01:MSB7800/U1 $lid 3," \
	"set MF0;leaf02:MSB7800/U1 $lid 21, set MF0;spine02:MSB7800/U1 $lid 1"
SIM_OSM_ARGS="-R file -U $tmpr/planted.lfts" sim_start "$fab/fattree2-small"
record_check "$root/fixtures/routes/fattree2-small-loop.cap"
sim_stop
rm -rf "$tmpr"
echo "fixtures: routes/fattree2-small-loop.cap: a forwarding loop planted for LID $lid"
