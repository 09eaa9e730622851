#!/bin/bash
# ibscan health on the simulator: every check silent on a healthy fabric, and
# each one detected, with its verdict and exit code, when its fault is
# injected through ibsim's console.
. "$(dirname "$0")/lib.sh"

# health_json WANT_RC ARGS...: run health --json, keep it in $TMP/h.json.
health_json() {
	local want=$1
	shift
	expect_rc "$want" ibs health --json "$@"
	cp "$TMP/out" "$TMP/h.json"
}
# check_count CHECK N: the JSON says N findings of CHECK.
check_count() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); n=d['counts'][sys.argv[2]]; sys.exit(0 if n==int(sys.argv[3]) else 1)" \
		"$TMP/h.json" "$1" "$2" || { python3 -m json.tool "$TMP/h.json" | head -60; fail "want $2 findings of $1"; }
}
port_active() { [ "$(sim_port_state "$1" "$2")" = "Active/LinkUp" ]; }
only_checks() { # the checks with findings are exactly these
	python3 - "$TMP/h.json" "$@" <<'PY' || fail "unexpected checks fired"
import json, sys
d = json.load(open(sys.argv[1]))
fired = sorted(k for k, v in d["counts"].items() if v)
want = sorted(sys.argv[2:])
if fired != want:
    print("fired:", fired, "want:", want)
    for f in d["findings"]:
        print(" ", f["severity"], f["check"], f["message"])
    sys.exit(1)
PY
}

# --- healthy: OK, exit 0, every check silent, prom valid ---
sim_start "$FABRICS/fattree2-small"
health_json 0
only_checks
grep -q '"status": "OK"' "$TMP/h.json" || fail "healthy: status not OK"
expect_rc 0 ibs health
head -1 "$TMP/out" | grep -q "^IBSCAN OK - 111 nodes, 204 links, no findings | links_down=0 " || fail "healthy: status line: $(head -1 "$TMP/out")"
expect_rc 0 ibs health --format prom -o "$TMP/h.prom"
promtool check metrics <"$TMP/h.prom" || fail "promtool rejects the health metrics"
grep -q '^ibscan_port_symbol_errors_total{guid="0x[0-9a-f]*",port="[0-9]*",name="[^"]*",peer="[^"]*"} 0$' "$TMP/h.prom" || fail "no per-port counter metric"
ok "healthy fabric: OK, exit 0, no findings, promtool accepts the metrics"
sim_stop

# --- drift: a host cable moved to another port ---
sim_start "$FABRICS/net.2sw2path4hca"
ibs topology --json -o "$TMP/base-mv.json"
ibs topology --format netfile -o "$TMP/base-mv.net"
n=$(sim_subnet_up_count)
sim_console 'Unlink "Switch1"[1]' >/dev/null
# ibsim links the cable but may still answer "can't link: ... already connected".
sim_console 'Link "Switch1"[4] "Hca1"[1]' >/dev/null || true
sim_poll 30 port_active Switch1 4 || fail "the moved cable did not come up"
health_json 1 --no-counters --baseline "$TMP/base-mv.json"
only_checks drift.cable_moved
grep -q '"message": "Switch1 port 4 moved from' "$TMP/h.json" || grep -q 'port 1 moved from' "$TMP/h.json" || fail "moved: no message"
health_json 1 --no-counters --baseline "$TMP/base-mv.net"
only_checks drift.cable_moved
ok "cable moved: drift.cable_moved, WARNING, exit 1 (JSON and netfile baselines)"
sim_stop

# --- counters: every error counter over its threshold, on its own port ---
sim_start "$FABRICS/net.2sw2path4hca"
health_json 0
only_checks
ibs topology --json -o "$TMP/base.json"
ports=('"Switch1"[1]' '"Switch1"[2]' '"Switch1"[3]' '"Switch1"[5]' '"Switch2"[1]' '"Switch2"[2]'
	'"Switch2"[3]' '"Switch2"[5]' '"Hca1"[1]' '"Hca2"[1]' '"Hca3"[1]' '"Hca4"[1]')
counters=(SymbolErrorCounter LinkErrorRecoveryCounter LinkDownedCounter PortRcvErrors
	PortRcvRemotePhysicalErrors PortRcvSwitchRelayErrors PortXmitDiscards PortXmitConstraintErrors
	PortRcvConstraintErrors LocalLinkIntegrityErrors ExcessiveBufferOverrunErrors VL15Dropped)
for i in "${!counters[@]}"; do
	# 4-bit counters hold at most 15; 8-bit 255.
	v=200; case ${counters[$i]} in LocalLinkIntegrityErrors | ExcessiveBufferOverrunErrors) v=15 ;; esac
	sim_console "PerformanceSet ${ports[$i]} PortCounters.${counters[$i]}=$v" >/dev/null
done
sim_console 'PerformanceSet "Hca1"[1] PortCounters.PortXmitWait=100000' >/dev/null
# PortRcvSwitchRelayErrors alone is no finding by default (issue 24: ibqueryerrors -c leaves it
# out, its man page says it can usually be ignored); a threshold given for it turns it on.
health_json 1
only_checks counters
check_count counters 11
python3 - "$TMP/h.json" "${counters[@]}" <<'PY' || fail "not every counter but relay errors was reported"
import json, sys
d = json.load(open(sys.argv[1]))
got = sorted(f["counter"] for f in d["findings"])
assert got == sorted(c for c in sys.argv[2:] if c != "PortRcvSwitchRelayErrors"), got
assert all(f["value"] > f["threshold"] for f in d["findings"])
PY
health_json 1 --threshold PortRcvSwitchRelayErrors=100
check_count counters 12
expect_rc 0 ibs counters --json
python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
p=[x for x in d['ports_counters'] if x['guid']=='0x0000000000100000'][0]
assert p['counters']['PortXmitWait']==100000 and p['counters']['SymbolErrorCounter']==0, p
assert p['xmit_bytes'] % 4 == 0
" "$TMP/out" || fail "counters: XmitWait not reported as data"
ok "counters: the 11 error counters over threshold found, relay errors with a threshold; XmitWait reported, not a finding"
# Thresholds from flags and a file silence them.
health_json 1 --threshold SymbolErrorCounter=1000
check_count counters 10
printf '# test thresholds\n' >"$TMP/thr"
for c in "${counters[@]}"; do echo "$c=1000" >>"$TMP/thr"; done
health_json 0 --thresholds "$TMP/thr"
only_checks
ok "thresholds: --threshold and --thresholds override the defaults"
# --reset-counters clears them (after reporting them once).
health_json 1 --reset-counters
health_json 0
only_checks
ok "--reset-counters: findings once, then a clean fabric"

# --- drift: a node the baseline lacks, a rate the baseline had otherwise ---
ibs topology --format netfile -o "$TMP/base.net"
python3 - "$TMP/base.net" "$TMP/base-nohca4.net" <<'PY'
import sys
blocks = open(sys.argv[1]).read().split("\n\n")
keep = [b for b in blocks if 'Ca\t2 "H-0000000000100009"' not in b]
out = "\n\n".join(keep)
out = "\n".join(l for l in out.split("\n") if '"H-0000000000100009"' not in l)
open(sys.argv[2], "w").write(out)
PY
health_json 1 --no-counters --baseline "$TMP/base-nohca4.net"
only_checks drift.node_new
python3 - "$TMP/base.json" "$TMP/base-ddr.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for n in d["nodes"]:
    if n["guid"] == "0x0000000000100000":
        n["ports"][0]["speed"] = "DDR"
json.dump(d, open(sys.argv[2], "w"))
PY
health_json 1 --no-counters --baseline "$TMP/base-ddr.json"
only_checks drift.rate_changed
grep -q 'speed changed from DDR to SDR' "$TMP/h.json" || fail "rate change: no message"
ok "drift: a new node (netfile baseline) and a rate change (JSON baseline): WARNING, exit 1"

# --- identity: duplicate node GUID, port GUID, LID; active port with LID 0 ---
sim_console 'Guid "Hca4" 0x0000000000100000' >/dev/null
health_json 2 --no-counters
check_count identity.duplicate_guid 1
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['nodes']==6, d['nodes']" "$TMP/h.json" || fail "duplicate GUID merged away"
grep -q '"status": "CRITICAL"' "$TMP/h.json" || fail "duplicate GUID: not CRITICAL"
sim_console 'Guid "Hca4" 0x0000000000100009' >/dev/null
ok "duplicate node GUID: CRITICAL, exit 2, both nodes kept"
# ibsim's `Guid "node"[port]` does not reach NodeInfo or GUIDInfo, and opensm
# will not bring up a fabric loaded with duplicate port GUIDs: that check is
# proven on an edited capture (tests/cli/t_health.sh) and in unit tests.
sim_console 'Baselid "Hca2"[1] 2' >/dev/null
health_json 2 --no-counters
check_count identity.duplicate_lid 1
# ibsim refuses LID 0 ("bad lid"): identity.lid_zero is proven on an edited capture.
sim_console 'Baselid "Hca2"[1] 4' >/dev/null
health_json 0 --no-counters
only_checks
ok "duplicate LID: CRITICAL, exit 2; silent once fixed"

# --- link.down: a cable the baseline had is gone; a node behind it is missing ---
n=$(sim_subnet_up_count)
sim_console 'Unlink "Switch1"[5]' >/dev/null
sim_console 'Unlink "Switch1"[2]' >/dev/null
sim_wait_subnet_up $((n + 1)) 60 || true
health_json 2 --no-counters --baseline "$TMP/base.json"
only_checks link.down drift.node_missing
check_count link.down 2
check_count drift.node_missing 1
ok "pulled cables: link.down x2 and the node behind one missing: CRITICAL, exit 2"

# --- link.down: physically up but not Active (no SM to bring it up) ---
sim_stop_opensm
sim_console 'Link "Switch1"[2] "Hca3"[1]' >/dev/null || true
st=$(sim_port_state Switch1 2)
[ "$st" = "Init/LinkUp" ] || fail "the new cable is $st, not Init/LinkUp"
health_json 2 --no-counters
check_count link.down 2 # both ends of the new cable are LinkUp but Init
check_count sm.unreachable 1 # and the master SM is gone
ok "port LinkUp but Init: link.down; SM stopped: sm.unreachable; CRITICAL"
# The walk's hint names the SM that stopped, not an M_Key: its port answered every other SMP.
rc=0
ibs topology --timeout 200 >/dev/null 2>"$TMP/smgone.err" || rc=$?
[ $rc = 3 ] || fail "topology with the SM gone exited $rc, want 3 (SMInfo unanswered)"
grep -q "^ibscan: hint: the subnet manager at port [0-9]* of '.*' (0x[0-9a-f]*), which the ports name as theirs, did not answer SMInfo: it has stopped" "$TMP/smgone.err" &&
	! grep -q "M_Key" "$TMP/smgone.err" || { cat "$TMP/smgone.err"; fail "the hint does not name the stopped SM"; }
ok "SM stopped: the hint names it, not an M_Key"
sim_stop

# --- link.held_down: the bundled fabric with a narrowed and a slowed link ---
# S-leaf01[3] enables 1x (of 1x-12x supported) facing a host that enables 4x:
# held down by S-leaf01's configuration, named on that end only. The QDR link
# is no finding: ibsim says both its ends support no speed above QDR (a real
# port keeps saying what it supports: tests/unit/test_rate.c, degraded.cap).
# A true link.degraded (trained below what both ends enable) ibsim cannot make.
sim_start "$FABRICS/degraded"
health_json 0 --no-counters
only_checks link.held_down
check_count link.held_down 1
python3 - "$TMP/h.json" <<'PY' || fail "link.held_down does not name S-leaf01 port 3"
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
assert [(x["node"]["name"], x["port"], x["severity"]) for x in f] == [("leaf01", 3, "OK")], f
PY
ok "narrowed (1x) link: link.held_down on the narrowed end, verdict OK, exit 0"
sim_stop

# --- partial: a switch that drops every MAD; then the simulator killed: UNKNOWN ---
sim_start "$FABRICS/net.2sw2path4hca"
sim_console 'Error "Switch2" 100' >/dev/null
health_json 1 --no-counters --timeout 200 --retries 1
only_checks partial
check_count partial 2
expect_rc 1 ibs health --no-counters --timeout 200 --retries 1
head -1 "$TMP/out" | grep -q "^IBSCAN WARNING - 2 unreachable parts |" || fail "partial: status line"
ok "unreachable switch: partial x2, WARNING, exit 1 (the documented rule)"
sim_stop
sim_start "$FABRICS/fattree3"
ibs health --window 1 --deadline 30 --record "$TMP/k.cap" >"$TMP/k.out" 2>"$TMP/k.err" &
pid=$!
sim_poll 20 mid_walk $pid 300 || fail "the walk did not get going"
# Held still while the simulator dies (a loaded machine could otherwise let the walk run on
# between the poll and the kill), then let go: it finds the simulator gone.
kill -STOP "$MID_WALK_PID" 2>/dev/null || fail "the walk ended before the simulator could be killed"
seen=$(grep -c '^x ' "$RECORDING" 2>/dev/null || true)
sim_kill_ibsim
! _sim_alive "${SIM_IBSIM_PID:-}" || fail "ibsim $SIM_IBSIM_PID outlived SIGKILL"
kill -CONT "$MID_WALK_PID" 2>/dev/null || true
rc=0
wait $pid || rc=$?
[ $rc -eq 3 ] || fail "killed simulator (after $seen exchanges of $(grep -c '^x ' "$TMP/k.cap" 2>/dev/null || echo '?')): health exit $rc, want 3 (UNKNOWN); $(head -3 "$TMP/k.err" | tr '\n' '|')"
head -1 "$TMP/k.out" | grep -q "^IBSCAN UNKNOWN - " || fail "killed simulator: no UNKNOWN status line: $(head -1 "$TMP/k.out")"
ok "simulator killed during health: UNKNOWN, exit 3"
sim_stop

# counters --interval: two readings, deltas and rates in between.
sim_start "$FABRICS/net.2sw2path4hca"
expect_rc 0 ibs counters --interval 1 --json --deadline 30
python3 - "$TMP/out" <<'PY' || fail "counters --interval: no deltas"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["interval_s"] == 1.0, d["interval_s"]
ports = [p for p in d["ports_counters"] if p["error"] is None]
assert len(ports) == 12, len(ports)
for p in ports:
    dl = p["deltas"]
    assert dl is not None and dl["xmit_bytes"] >= 0 and dl["xmit_bytes_per_s"] >= 0, p
    assert all(v >= 0 for k, v in dl.items() if k[0].isupper()), dl
PY
expect_rc 2 ibs counters --interval 400 --deadline 300
ok "counters --interval 1: deltas and rates for all 12 ports"
sim_stop
t_done
