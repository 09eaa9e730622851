#!/bin/bash
# PortRcvErrorDetails and PortXmitDiscardDetails on the simulator (ibsim answers both, and
# its console sets them): a clean fabric costs no MAD more (the capture holds no details
# request); once PortRcvErrors and PortXmitDiscards are set on two ports, exactly those two
# ports' details are asked, once each, and every member agrees with perfquery -E / -D on
# the same port; `health` names the reason, --format prom passes promtool.
. "$(dirname "$0")/lib.sh"

sim_start "$FABRICS/net.2sw2path4hca"
details_reqs() { grep -cE "^x PMA Get (PortRcvErrorDetails|PortXmitDiscardDetails|attribute) " "$1" || true; }

expect_rc 0 ibs counters --json --record "$TMP/clean.cap" -o "$TMP/clean.json"
[ "$(details_reqs "$TMP/clean.cap")" = 0 ] || fail "a clean fabric asked for details: $(grep -E 'Details|0x001[56]' "$TMP/clean.cap")"
jq -e '[.ports_counters[] | select(.rcv_error_details != null or .xmit_discard_details != null)] | length == 0' \
	"$TMP/clean.json" >/dev/null || fail "details on a clean fabric"
ok "clean fabric: no details request, no details"

sim_console 'PerformanceSet "Hca2"[1] PortCounters.PortRcvErrors=777' >/dev/null
sim_console 'PerformanceSet "Hca2"[1] PortRcvErrorDetails.PortLocalPhysicalErrors=700' >/dev/null
sim_console 'PerformanceSet "Hca2"[1] PortRcvErrorDetails.PortMalformedPacketErrors=77' >/dev/null
sim_console 'PerformanceSet "Hca2"[1] PortRcvErrorDetails.PortLoopingErrors=3' >/dev/null
sim_console 'PerformanceSet "Switch1"[2] PortCounters.PortXmitDiscards=120' >/dev/null
sim_console 'PerformanceSet "Switch1"[2] PortXmitDiscardDetails.PortSwHOQLifetimeLimitDiscards=100' >/dev/null
sim_console 'PerformanceSet "Switch1"[2] PortXmitDiscardDetails.PortNeighborMTUDiscards=20' >/dev/null
# Another port of the same switch with details set but a clean summary: never asked.
sim_console 'PerformanceSet "Switch1"[3] PortXmitDiscardDetails.PortInactiveDiscards=9' >/dev/null

expect_rc 0 ibs counters --json --record "$TMP/err.cap" -o "$TMP/err.json"
[ "$(grep -cE '^x PMA Get PortRcvErrorDetails ' "$TMP/err.cap")" = 1 ] &&
	[ "$(grep -cE '^x PMA Get PortXmitDiscardDetails ' "$TMP/err.cap")" = 1 ] ||
	fail "want one request of each: $(grep -E '^x PMA Get' "$TMP/err.cap" | sort | uniq -c)"
grep -qE '^x PMA Set' "$TMP/err.cap" && fail "a Set went out without --reset-counters"
ok "two ports moved: one PortRcvErrorDetails and one PortXmitDiscardDetails request, no Set"

# perfquery's names (libibmad's) for the members ibscan names as the IBA does.
compare() { # NAME PORT OPT ATTR
	local name=$1 port=$2 opt=$3 attr=$4 lid
	lid=$(jq -r --arg n "$name" '.nodes[] | select(.description == $n) | .ports[0].lid' "$TMP/topo.json")
	sim_run perfquery "$opt" "$lid" "$port" >"$TMP/pq" 2>&1 || fail "perfquery $opt $lid $port: $(cat "$TMP/pq")"
	python3 - "$TMP/pq" "$TMP/err.json" "$name" "$port" "$attr" <<'PY' || fail "$name[$port] $attr differs from perfquery $opt"
import json, re, sys
pq, js, name, port, attr = sys.argv[1:]
lib = {"PortMalformedPktErrors": "PortMalformedPacketErrors"}
want = {}
for l in open(pq):
    m = re.match(r"^(\w+):\.*(\d+)$", l.strip())
    if m and m.group(1) not in ("PortSelect", "CounterSelect"):
        want[lib.get(m.group(1), m.group(1))] = int(m.group(2))
p = [p for p in json.load(open(js))["ports_counters"] if p["name"] == name and p["port"] == int(port)][0]
got = {k: v for k, v in p[attr].items() if k != "error"}
assert p[attr]["error"] is None, p[attr]
assert got == want and len(want) in (4, 6), (got, want)
print(f"{name}[{port}] {attr}: {got}")
PY
}
ibs topology --json >"$TMP/topo.json" 2>/dev/null
compare Hca2 1 -E rcv_error_details
compare Switch1 2 -D xmit_discard_details
jq -e '[.ports_counters[] | select(.rcv_error_details != null or .xmit_discard_details != null)
	| "\(.name)[\(.port)]"] == ["Hca2[1]", "Switch1[2]"]' "$TMP/err.json" >/dev/null ||
	fail "details on other ports: $(jq -c '[.ports_counters[] | select(.rcv_error_details != null or .xmit_discard_details != null)]' "$TMP/err.json")"
ok "every member agrees with perfquery -E and -D; no other port has details"

expect_rc 1 ibs health
grep -qF "Hca2 port 1: PortRcvErrors is 777 (threshold 10; PortRcvErrorDetails: LocalPhysical 700, MalformedPacket 77, Looping 3)" "$TMP/out" ||
	fail "health does not name the reasons: $(cat "$TMP/out")"
grep -qF "Switch1 port 2: PortXmitDiscards is 120 (threshold 100; PortXmitDiscardDetails: NeighborMTU 20, SwHOQLifetimeLimit 100)" "$TMP/out" ||
	fail "health does not name the reasons: $(cat "$TMP/out")"
ok "health names the reasons"

expect_rc 1 ibs health --format prom -o "$TMP/h.prom"
promtool check metrics <"$TMP/h.prom" >"$TMP/pt" 2>&1 || fail "promtool: $(cat "$TMP/pt")"
grep -qE '^ibscan_port_xmit_discard_details_total\{guid="0x0000000000200000",port="2",name="Switch1",peer="[^"]*",reason="sw_hoq_lifetime_limit"\} 100$' "$TMP/h.prom" ||
	fail "no HOQ series: $(grep details "$TMP/h.prom")"
grep -qE '^ibscan_port_rcv_error_details_total\{.*name="Hca2".*reason="local_physical"\} 700$' "$TMP/h.prom" ||
	fail "no local_physical series: $(grep details "$TMP/h.prom")"
[ "$(grep -c '^ibscan_port_rcv_error_details_total{' "$TMP/h.prom")" = 6 ] ||
	fail "want 6 rcv series (one port): $(grep -c '^ibscan_port_rcv_error_details_total{' "$TMP/h.prom")"
ok "prom: details series per reason, promtool passes"
sim_stop
t_done
