#!/bin/bash
# ibscan against the infiniband-diags tools on the same simulated fabric:
# links against iblinkinfo (state, physical state, width, speed, far end:
# every port it prints, down ones included), counters against perfquery on
# every cabled port (error counters set with PerformanceSet, equal; data
# counters between two ibscan readings), and --gids against smpquery's
# GUIDInfo and PortInfo (GUIDCap) on every port with a LID. ibsim answers
# GUIDInfo with the port GUID in entry 0 and zeros after it, with GUIDCap 32
# on CA ports: it cannot hold alias GUIDs (no Set, no console command), so
# alias GUIDs are tested on the in-process fabric (tests/unit/test_gids.c).
. "$(dirname "$0")/lib.sh"
ref=$ROOT/tests/sim/refcheck.py

# perfquery and smpquery, one run per port: their outputs in $TMP/q/.
query_ports() { # TOPOLOGY.json
	rm -rf "$TMP/q"
	mkdir -p "$TMP/q"
	python3 "$ref" targets "$1" >"$TMP/targets"
	while read -r lid port guid; do
		sim_run perfquery "$lid" "$port" >"$TMP/q/$lid.$port.$guid" 2>&1 || fail "perfquery $lid $port"
		sim_run perfquery -x "$lid" "$port" >"$TMP/q/$lid.$port.$guid.x" 2>&1 || fail "perfquery -x $lid $port"
	done <"$TMP/targets"
	python3 "$ref" gid-targets "$1" >"$TMP/gid-targets"
	while read -r lid port guid; do
		sim_run smpquery guidinfo "$lid" >"$TMP/q/$lid.$port.$guid.guidinfo" 2>&1 || fail "smpquery guidinfo $lid"
		sim_run smpquery portinfo "$lid" "$port" >"$TMP/q/$lid.$port.$guid.portinfo" 2>&1 ||
			fail "smpquery portinfo $lid $port"
	done <"$TMP/gid-targets"
}

against_tools() { # NAME
	ibs topology --gids --json -o "$TMP/$1.json" || fail "$1: ibscan topology --gids exited $?"
	sim_run iblinkinfo >"$TMP/$1.iblinkinfo" 2>&1 || fail "$1: iblinkinfo exited $?"
	python3 "$ref" links "$TMP/$1.json" "$TMP/$1.iblinkinfo" || fail "$1: links differ from iblinkinfo"
	ibs counters --json -o "$TMP/$1.c1.json" || fail "$1: ibscan counters exited $?"
	query_ports "$TMP/$1.json"
	ibs counters --json -o "$TMP/$1.c2.json" || fail "$1: ibscan counters exited $?"
	python3 "$ref" counters "$TMP/$1.c1.json" "$TMP/q" "$TMP/$1.c2.json" || fail "$1: counters differ from perfquery"
	python3 "$ref" gids "$TMP/$1.json" "$TMP/q" || fail "$1: GID tables differ from smpquery"
	ok "$1: links as iblinkinfo, counters as perfquery ($(wc -l <"$TMP/targets") ports), GID tables as smpquery ($(wc -l <"$TMP/gid-targets") ports)"
}

# Every error counter on some port, each with its own value.
sim_start "$FABRICS/net.2sw2path4hca"
i=0
for c in SymbolErrorCounter LinkErrorRecoveryCounter LinkDownedCounter PortRcvErrors PortRcvRemotePhysicalErrors \
	PortRcvSwitchRelayErrors PortXmitDiscards PortXmitConstraintErrors PortRcvConstraintErrors \
	LocalLinkIntegrityErrors ExcessiveBufferOverrunErrors VL15Dropped PortXmitWait; do
	set -- '"Switch1"[1]' '"Switch1"[3]' '"Switch2"[5]' '"Hca1"[1]' '"Hca2"[1]' '"Hca3"[1]' '"Hca4"[1]'
	shift $((i % 7))
	sim_console "PerformanceSet $1 PortCounters.$c=$((i + 3))" >/dev/null || fail "PerformanceSet $1 $c"
	i=$((i + 1))
done
against_tools net.2sw2path4hca
sim_stop
# The checks fail on a doctored ibscan output: a width, an error counter, a GID.
python3 - "$TMP" <<'PY'
import json, sys
t = sys.argv[1]
d = json.load(open(t + "/net.2sw2path4hca.json"))
ports = [p for n in d["nodes"] for p in n["ports"]]
next(p for p in ports if p["peer"])["width"] = "1x"
next(p for p in ports if p["gids"])["gids"] = []
json.dump(d, open(t + "/bad.json", "w"))
c = json.load(open(t + "/net.2sw2path4hca.c1.json"))
c["ports_counters"][0]["counters"]["PortRcvErrors"] += 1
json.dump(c, open(t + "/bad.c1.json", "w"))
PY
! python3 "$ref" links "$TMP/bad.json" "$TMP/net.2sw2path4hca.iblinkinfo" 2>/dev/null || fail "links: a wrong width passes"
! python3 "$ref" counters "$TMP/bad.c1.json" "$TMP/q" "$TMP/net.2sw2path4hca.c2.json" 2>/dev/null ||
	fail "counters: a wrong counter passes"
! python3 "$ref" gids "$TMP/bad.json" "$TMP/q" 2>/dev/null || fail "gids: a missing GID passes"
ok "the checks catch a wrong width, counter and GID"

# Links at 1x and at QDR, and a cable pulled: Down/Polling on both ends.
sim_start "$FABRICS/degraded"
# opensm sweeps again on the trap the Unlink raises and sets ports as it goes
# (ibsim recomputes a link's width then): compare once that sweep is done.
n=$(sim_subnet_up_count)
sim_console 'Unlink "S-leaf02"[2]' >/dev/null
sim_wait_subnet_up $((n + 1)) || fail "degraded: opensm did not sweep again after the Unlink"
against_tools degraded
grep -q 'Down/ Polling' "$TMP/degraded.iblinkinfo" || fail "degraded: iblinkinfo shows no down port"
grep -q '1X .*Active' "$TMP/degraded.iblinkinfo" || fail "degraded: iblinkinfo shows no 1x link"
sim_stop

# FDR10, which only Mellanox ExtendedPortInfo tells: two links run it and one
# runs QDR. Every port's speed as iblinkinfo and ibnetdiscover say, and
# ExtendedPortInfo asked only of ports whose PortInfo says QDR, each of its
# own end (every port is read, nothing is taken from the far end, issue 24):
# both ends of the host link and of each switch-to-switch link: 6.
sim_start "$FABRICS/fdr10"
ibs topology --json --record "$TMP/fdr10.cap" -o "$TMP/fdr10.json" || fail "fdr10: ibscan topology exited $?"
sim_run iblinkinfo >"$TMP/fdr10.iblinkinfo" 2>&1 || fail "fdr10: iblinkinfo exited $?"
[ "$(grep -c '(FDR10)' "$TMP/fdr10.iblinkinfo")" = 4 ] || fail "fdr10: iblinkinfo shows no 4 ports at FDR10"
python3 "$ref" links "$TMP/fdr10.json" "$TMP/fdr10.iblinkinfo" || fail "fdr10: links differ from iblinkinfo"
sim_run ibnetdiscover >"$TMP/fdr10.ibnd" 2>"$TMP/fdr10.ibnd.err" || fail "fdr10: ibnetdiscover exited $?"
python3 "$ROOT/tests/sim/ibnd2norm.py" "$TMP/fdr10.ibnd" -o "$TMP/fdr10.ref"
python3 "$ROOT/tests/sim/ibscan2norm.py" "$TMP/fdr10.json" -o "$TMP/fdr10.norm"
[ "$(grep -c ' FDR10$' "$TMP/fdr10.ref")" = 4 ] || fail "fdr10: ibnetdiscover shows no 4 ports at FDR10"
bash "$ROOT/tests/sim/compare.sh" "$TMP/fdr10.norm" "$TMP/fdr10.ref" || fail "fdr10: topology differs from ibnetdiscover"
[ "$(jq '[.nodes[].ports[] | select(.speed == "QDR")] | length' "$TMP/fdr10.json")" = 2 ] ||
	fail "fdr10: the QDR link is not QDR at both ends"
asked=$(grep -c 'MlnxExtPortInfo' "$TMP/fdr10.cap")
[ "$asked" = 6 ] || fail "fdr10: ExtendedPortInfo asked $asked times, not 6"
sim_stop
jq '(first(.nodes[].ports[] | select(.speed == "FDR10"))).speed = "QDR"' "$TMP/fdr10.json" >"$TMP/bad.json"
! python3 "$ref" links "$TMP/bad.json" "$TMP/fdr10.iblinkinfo" 2>/dev/null || fail "links: QDR for FDR10 passes"
ok "fdr10: 4 ports at FDR10 and 2 at QDR as iblinkinfo and ibnetdiscover say; ExtendedPortInfo asked 6 times"
t_done
