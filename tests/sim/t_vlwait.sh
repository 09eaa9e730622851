#!/bin/bash
# PortVLXmitWaitCounters on the simulator (ibsim answers it, and its console sets it): a
# clean fabric asks for none; once PortXmitWait is set on one port, exactly that port's
# per-VL counters are asked, once, and every VL agrees with `perfquery --vlxmitcounters`
# on the same port; health makes no finding of congestion (reported, not judged);
# --format prom has one ibscan_port_vl_xmit_wait_total series per VL and passes promtool.
. "$(dirname "$0")/lib.sh"

sim_start "$FABRICS/net.2sw2path4hca"
vl_reqs() { grep -cE "^x PMA Get PortVLXmitWaitCounters " "$1" || true; }

expect_rc 0 ibs counters --json --record "$TMP/clean.cap" -o "$TMP/clean.json"
[ "$(vl_reqs "$TMP/clean.cap")" = 0 ] || fail "a clean fabric asked for PortVLXmitWaitCounters"
jq -e '[.ports_counters[] | select(.vl_xmit_wait != null)] | length == 0' "$TMP/clean.json" >/dev/null ||
	fail "per-VL counters on a clean fabric"
ok "clean fabric: no PortVLXmitWaitCounters request"

sim_console 'PerformanceSet "Hca3"[1] PortCounters.PortXmitWait=123456' >/dev/null
sim_console 'PerformanceSet "Hca3"[1] PortVLXmitWaitCounters.PortVLXmitWaitCounters0=1000' >/dev/null
sim_console 'PerformanceSet "Hca3"[1] PortVLXmitWaitCounters.PortVLXmitWaitCounters3=456' >/dev/null
sim_console 'PerformanceSet "Hca3"[1] PortVLXmitWaitCounters.PortVLXmitWaitCounters15=65535' >/dev/null
# Another port with per-VL counts but PortXmitWait 0: never asked.
sim_console 'PerformanceSet "Hca4"[1] PortVLXmitWaitCounters.PortVLXmitWaitCounters1=9' >/dev/null

expect_rc 0 ibs counters --json --record "$TMP/vl.cap" -o "$TMP/vl.json"
[ "$(vl_reqs "$TMP/vl.cap")" = 1 ] || fail "want one request: $(grep -E '^x PMA Get' "$TMP/vl.cap" | sort | uniq -c)"
grep -qE '^x PMA Set' "$TMP/vl.cap" && fail "a Set went out without --reset-counters"
ok "one port's PortXmitWait moved: one PortVLXmitWaitCounters request, no Set"

ibs topology --json >"$TMP/topo.json" 2>/dev/null
lid=$(jq -r '.nodes[] | select(.description == "Hca3") | .ports[] | select(.port == 1) | .lid' "$TMP/topo.json")
[ -n "$lid" ] && [ "$lid" != null ] || fail "no LID for Hca3: $(jq -c '.nodes[] | select(.description == "Hca3")' "$TMP/topo.json")"
sim_run perfquery --vlxmitcounters "$lid" 1 >"$TMP/pq" 2>&1 || fail "perfquery --vlxmitcounters $lid 1: $(cat "$TMP/pq")"
python3 - "$TMP/pq" "$TMP/vl.json" <<'PY' || fail "Hca3[1] differs from perfquery --vlxmitcounters"
import json, re, sys
pq, js = sys.argv[1:]
want = {}
for l in open(pq):
    m = re.match(r"^(PortVLXmitWait\d+):\.*(\d+)$", l.strip())
    if m:
        want[m.group(1)] = int(m.group(2))
p = [p for p in json.load(open(js))["ports_counters"] if p["name"] == "Hca3" and p["port"] == 1][0]
got = {k: v for k, v in p["vl_xmit_wait"].items() if k != "error"}
assert p["vl_xmit_wait"]["error"] is None, p["vl_xmit_wait"]
assert len(want) == 16 and got == want, (got, want)
assert want["PortVLXmitWait3"] == 456 and want["PortVLXmitWait15"] == 65535, want
print(f"Hca3[1]: {got}")
PY
jq -e '[.ports_counters[] | select(.vl_xmit_wait != null) | "\(.name)[\(.port)]"] == ["Hca3[1]"]' "$TMP/vl.json" >/dev/null ||
	fail "per-VL counters on other ports: $(jq -c '[.ports_counters[] | select(.vl_xmit_wait != null) | .name]' "$TMP/vl.json")"
ok "every VL agrees with perfquery --vlxmitcounters; no other port asked"

expect_rc 0 ibs counters
grep -qF "Hca3                     xmit" "$TMP/out" && grep -qF "PortXmitWait=123456 (VL0 1000, VL3 456, VL15 65535)" "$TMP/out" ||
	fail "text: $(grep Hca3 "$TMP/out")"
ok "text names the VLs that waited"

# counters --interval: PortVLXmitWaitCounters in both readings of every port whose PMA's
# ClassPortInfo says it counts PortXmitWait (ibsim's do), so each VL's rise is known: none
# rose (share 0, no tick needed), and Hca3[1]'s VL15, at 65535, is said saturated (null).
expect_rc 0 ibs counters --interval 1 --json --record "$TMP/iv.cap" -o "$TMP/iv.json"
nread=$(jq '[.ports_counters[] | select(.counters != null)] | length' "$TMP/iv.json")
[ "$nread" -gt 4 ] && [ "$(vl_reqs "$TMP/iv.cap")" = $((2 * nread)) ] ||
	fail "want 2 x $nread PortVLXmitWaitCounters requests, got $(vl_reqs "$TMP/iv.cap")"
jq -e '[.ports_counters[] | select(.counters != null) | .deltas.vl_xmit_wait_share as $v
	| [range(16) | . as $i | $v["PortVLXmitWait\($i)"] == (if ($v.saturated | index($i)) then null else 0 end)] | all]
	| length > 4 and all' "$TMP/iv.json" >/dev/null ||
	fail "per-VL shares: $(jq -c '[.ports_counters[] | .deltas.vl_xmit_wait_share]' "$TMP/iv.json")"
jq -e '[.ports_counters[] | select(.counters != null) | {k: "\(.name)[\(.port)]", v: .deltas.vl_xmit_wait_share.saturated}
	| select(.v != [])] == [{k: "Hca3[1]", v: [15]}]' "$TMP/iv.json" >/dev/null ||
	fail "saturated: $(jq -c '[.ports_counters[] | .deltas.vl_xmit_wait_share.saturated]' "$TMP/iv.json")"
expect_rc 0 ibs counters --interval 1
grep -qF ", VL15 is at 65535 (saturated: share unknown; clear with --reset-counters)" "$TMP/out" ||
	fail "text: $(grep Hca3 "$TMP/out")"
ok "counters --interval: VL counters read twice on all $nread ports, shares 0, Hca3[1] VL15 saturated"

expect_rc 0 ibs health
grep -qE 'XmitWait|VL[0-9]' "$TMP/out" && fail "health judged congestion: $(cat "$TMP/out")"
ok "health: no finding of congestion"

expect_rc 0 ibs health --format prom -o "$TMP/h.prom"
promtool check metrics <"$TMP/h.prom" >"$TMP/pt" 2>&1 || fail "promtool: $(cat "$TMP/pt")"
[ "$(grep -c '^ibscan_port_vl_xmit_wait_total{.*name="Hca3"' "$TMP/h.prom")" = 16 ] ||
	fail "want 16 series: $(grep vl_xmit_wait "$TMP/h.prom")"
grep -qE '^ibscan_port_vl_xmit_wait_total\{guid="[^"]+",port="1",name="Hca3",peer="[^"]*",vl="3"\} 456$' "$TMP/h.prom" ||
	fail "no VL3 series: $(grep vl_xmit_wait "$TMP/h.prom")"
grep -qF '# TYPE ibscan_port_vl_xmit_wait_total counter' "$TMP/h.prom" || fail "no TYPE line"
ok "prom: one series per VL with a vl label, promtool passes"
grep -qE '^ibscan_port_vl_xmit_wait_saturated\{guid="[^"]+",port="1",name="Hca3",peer="[^"]*",vl="15"\} 1$' "$TMP/h.prom" ||
	fail "VL15 not marked saturated: $(grep -c vl_xmit_wait_saturated "$TMP/h.prom") series"
[ "$(grep -c '^ibscan_port_vl_xmit_wait_saturated{' "$TMP/h.prom")" = 1 ] || fail "other VLs marked saturated"
ok "prom: Hca3[1] VL15 marked saturated, no other"

# The tick behind the shares, in Prometheus: health --state asks PortSamplesControl where
# PortXmitWait is above 0 (Hca3[1]); ibsim drops it, so the recorded answers are rewritten
# into a GetResp with Tick 31 and replayed: Hca3[1] (a CA: the IBA's rule) gets
# ibscan_port_xmit_wait_tick_seconds{...,rule="assumed"}, 32 symbol times of its link, and
# promtool passes.
expect_rc 0 ibs health --state "$TMP/st1" --format prom --record "$TMP/psc.cap" -o /dev/null
python3 - "$TMP/psc.cap" "$TMP/psc2.cap" <<'PY' || fail "no PortSamplesControl request to rewrite"
import sys
src, dst = sys.argv[1:]
out, req, n = [], None, 0
for line in open(src):
    if line.startswith("x "):
        req = None
        if " PortSamplesControl " in line:
            req = ""
    elif line.startswith("> ") and req == "":
        req = line[2:].strip()
    elif line.startswith("< ") and req:
        b = bytearray(bytes.fromhex(req).ljust(256, b"\0"))
        b[3] = 0x81          # GetResp, status 0
        b[64 + 2] = 31       # data: OpCode, PortSelect (kept), Tick, CounterWidth
        line = "< resp " + b.hex().rstrip("0") + "\n"
        n += 1
    out.append(line)
assert n > 0, n
open(dst, "w").writelines(out)
PY
"$IBSCAN" health --state "$TMP/st2" --format prom --replay "$TMP/psc2.cap" -o "$TMP/psc.prom" >"$TMP/out" 2>&1 ||
	fail "replay: $(cat "$TMP/out")"
promtool check metrics <"$TMP/psc.prom" >"$TMP/pt" 2>&1 || fail "promtool: $(cat "$TMP/pt")"
grep -qF '# TYPE ibscan_port_xmit_wait_tick_seconds gauge' "$TMP/psc.prom" || fail "no tick gauge"
grep -qE '^ibscan_port_xmit_wait_tick_seconds\{guid="[^"]+",port="1",name="Hca3",peer="[^"]*",rule="assumed"\} [0-9.e+-]+$' \
	"$TMP/psc.prom" || fail "tick: $(grep xmit_wait_tick "$TMP/psc.prom")"
[ "$(grep -c '^ibscan_port_xmit_wait_tick_seconds{' "$TMP/psc.prom")" = 1 ] || fail "a tick on other ports"
ok "prom: Hca3[1]'s tick said assumed (ibscan_port_xmit_wait_tick_seconds), promtool passes"

# --reset-counters clears the VL counters it read (Hca3[1]'s, the only port whose
# PortXmitWait moved): one Set of PortVLXmitWaitCounters, and perfquery reads 0 on every VL.
expect_rc 0 ibs counters --reset-counters --record "$TMP/reset.cap"
[ "$(grep -cE '^x PMA Set PortVLXmitWaitCounters ' "$TMP/reset.cap" || true)" = 1 ] ||
	fail "want one VL Set: $(grep -E '^x PMA Set' "$TMP/reset.cap" | cut -d' ' -f1-4 | sort | uniq -c)"
sim_run perfquery --vlxmitcounters "$lid" 1 >"$TMP/pq2" 2>&1 || fail "perfquery: $(cat "$TMP/pq2")"
[ "$(grep -cE '^PortVLXmitWait[0-9]+:\.*0$' "$TMP/pq2")" = 16 ] || fail "VLs not cleared: $(cat "$TMP/pq2")"
ok "--reset-counters: Hca3[1]'s PortVLXmitWaitCounters cleared (perfquery: 16 VLs at 0)"
sim_stop
t_done
