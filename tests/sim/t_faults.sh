#!/bin/bash
# Faults during discovery: a pulled cable, a node that drops every MAD, a node
# answering with bad status, and the simulator killed mid-walk.
. "$(dirname "$0")/lib.sh"

# 1. Both cables between the two switches pulled: the reachable half is reported,
#    the pulled ports show Down, and nothing else is claimed.
sim_start "$FABRICS/net.2sw2path4hca"
n=$(sim_subnet_up_count)
sim_console 'Unlink "Switch1"[3]' >/dev/null
sim_console 'Unlink "Switch1"[5]' >/dev/null
[ "$(sim_port_state Switch1 3)" = "Down/Polling" ] || fail "Unlink did not take effect"
expect_rc 0 ibs topology --json
python3 - "$TMP/out" <<'PY' || fail "pulled cable: wrong model"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["summary"]["nodes"] == 3, d["summary"]
assert d["summary"]["links"] == 2, d["summary"]
sw = [n for n in d["nodes"] if n["guid"] == "0x0000000000200000"][0]
p3 = [p for p in sw["ports"] if p["port"] == 3][0]
assert p3["state"] == "Down" and p3["peer"] is None, p3
PY
ok "pulled cable: reachable part (3 nodes, 2 links) reported, ports Down"
sim_stop

# 2. A switch that drops every MAD (ibsim's Error at 100%): the walk goes on,
#    lists what it could not reach, says partial and exits 3.
sim_start "$FABRICS/net.2sw2path4hca"
sim_console 'Error "Switch2" 100' >/dev/null
expect_rc 3 ibs topology --json --timeout 200 --retries 1
grep -q "the result is partial" "$TMP/err" || fail "no partial message"
# Every node it missed is named on stderr by the port it lies behind (Switch2 by both cables).
grep -q "^ibscan: error: the result is partial: .*; not discovered: the node behind port 3 of 'Switch1' (0x0000000000200000), the node behind port 5 of 'Switch1' (0x0000000000200000)$" "$TMP/err" ||
	{ cat "$TMP/err"; fail "the nodes behind Switch1 ports 3 and 5 are not named on stderr"; }
# A port protected by an M_Key drops SMPs with the wrong key, silently, just so:
# the hint names the first port where answers stopped and --m-key.
grep -q "^ibscan: hint: SMPs through port [35] of 'Switch1' (0x0000000000200000) got no answer: a port protected by an M_Key drops SMPs whose M_Key does not match, silently; if the fabric uses M_Keys, give --m-key KEY$" "$TMP/err" ||
	{ cat "$TMP/err"; fail "no M_Key hint naming Switch1's port"; }
python3 - "$TMP/out" <<'PY' || fail "dead switch: wrong model"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["partial"] is True
assert d["summary"]["nodes"] == 3, d["summary"]
un = [e for e in d["errors"] if e["kind"] == "unreachable"]
assert len(un) == 2, un          # through Switch1 ports 3 and 5
assert {e["port"] for e in un} == {3, 5}, un
assert all(e["node_guid"] == "0x0000000000200000" and e["attribute"] == "NodeInfo" for e in un), un
PY
expect_rc 3 ibs topology --timeout 200 --retries 1 --m-key 0x1234
grep -q "got no answer: .*; check the --m-key given$" "$TMP/err" || { cat "$TMP/err"; fail "the M_Key hint ignores --m-key"; }
# The key is read as written: 0100 is decimal 100 (0x64) in bytes 24-31 of every SMP, not octal 64.
expect_rc 3 ibs nodes --timeout 200 --retries 0 --m-key 0100 --record "$TMP/mkey.cap"
req=$(grep -m1 '^> ' "$TMP/mkey.cap" | cut -c3-)
[ "${req:48:16}" = 0000000000000064 ] || fail "--m-key 0100: the SMP carries M_Key 0x${req:48:16}, want 0x0000000000000064"
grep -q "PARTIAL" "$TMP/out" || fail "text view does not say PARTIAL"
grep -q "unreachable path 0,3 behind 0x0000000000200000 \"Switch1\" port 3: NodeInfo timeout" "$TMP/out" || fail "text view does not list the unreachable port"
ok "dead switch: partial, exit 3, unreachable ports listed"
sim_stop

# 3. The simulator killed mid-walk: a clear error within 1.5 s (at most one
#    per-MAD timeout of 500 ms, not the 20 s deadline), partial output kept.
sim_start "$FABRICS/fattree3"
ibs topology --json --window 1 --deadline 20 --record "$TMP/k.cap" -o "$TMP/k.json" >"$TMP/k.out" 2>"$TMP/k.err" &
pid=$!
# Kill the simulator mid-walk: once the capture shows 300 exchanges done.
sim_poll 20 mid_walk $pid 300 || fail "the walk did not get going"
sim_kill_ibsim
t0=$(date +%s%N)
rc=0
wait $pid || rc=$?
t1=$(date +%s%N)
[ $rc -eq 3 ] || { cat "$TMP/k.err"; fail "killed simulator: exit $rc, want 3"; }
ms=$(((t1 - t0) / 1000000))
echo "killed simulator: ibscan ended $ms ms after ibsim"
[ $ms -le 1500 ] || fail "killed simulator: ibscan took $ms ms to end, want at most 1500"
grep -q "the transport failed during the walk" "$TMP/k.err" || { cat "$TMP/k.err"; fail "no clear error"; }
# What was found before is kept, and marked partial with the reason.
[ -s "$TMP/k.json" ] || fail "killed simulator: no output kept"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['partial'] and d['abort_reason'] and d['summary']['nodes'] > 1" "$TMP/k.json" ||
	fail "partial JSON not marked"
ok "killed simulator: exit 3 after $ms ms, clear error"
sim_stop
t_done
