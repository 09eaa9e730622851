#!/bin/bash
# counters --interval: rates over the time each port's two readings really
# lie apart, not the nominal interval. Data counters on three ports are set
# through ibsim's console before the run and raised by a known amount
# between the two readings (once the capture shows the first reading of
# every port done); each rate must be that amount over the time between the
# port's two PMA reads in the capture (--record-times), within 2%. The
# readings are slowed (--window 1 on 612 nodes, some 0.4 s each) so that the
# nominal interval would be off by far more than that: the test checks that
# too, and fails if it could not tell them apart.
. "$(dirname "$0")/lib.sh"

interval=2
ports=('S-leaf01 1' 'S-spine05 3' 'H-node0100 1')
base=1000000 dx=500000000 dr=300000000 # 4-octet words
set_data() { # NODE PORT XMIT RCV: both the 32-bit and the 64-bit counters (ibsim keeps them apart)
	local a
	for a in PortCounters PortCountersExtended; do
		sim_console "PerformanceSet \"$1\"[$2] $a.PortXmitData=$3" >/dev/null || fail "PerformanceSet refused"
		sim_console "PerformanceSet \"$1\"[$2] $a.PortRcvData=$4" >/dev/null || fail "PerformanceSet refused"
	done
}
# data_reads FILE: the data-counter reads (one per port and reading) a capture holds.
data_reads() { grep -c '^x PMA Get PortCountersExtended ' "$1"; }
# first_reading_done N: the capture being recorded (by $pid) holds N data-counter reads.
# answered_reads FILE: those of them that were answered (a retried read under load is counted once).
answered_reads() { awk '/^x PMA Get PortCountersExtended / { x = 1; next } x && /^< / { if ($2 == "resp") n++; x = 0 } END { print n + 0 }' "$1"; }
first_reading_done() { recording "$pid" >/dev/null && [ "$(answered_reads "$RECORDING")" -ge "$1" ]; }

sim_start "$FABRICS/fattree3"
expect_rc 0 ibs topology --json -o "$TMP/topo.json"
expect_rc 0 ibs counters --json -o "$TMP/once.json"
read -r nports next <<<"$(python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
print(d['answered'], sum(1 for p in d['ports_counters'] if p['extended']))" "$TMP/once.json")"
[ "$nports" -gt 2000 ] && [ "$next" = "$nports" ] || fail "want every port read with 64-bit counters: $nports ports, $next extended"
for p in "${ports[@]}"; do set_data $p $base $base; done

rc=0
ibs counters --interval $interval --json --window 1 --record "$TMP/r.cap" --record-times -o "$TMP/rate.json" \
	2>"$TMP/rate.err" &
pid=$!
sim_poll 60 first_reading_done "$next" || fail "the first reading did not complete"
for p in "${ports[@]}"; do set_data $p $((base + dx)) $((base + dr)); done
wait $pid || rc=$?
[ $rc -eq 0 ] || { cat "$TMP/rate.err"; fail "counters --interval exited $rc"; }
# Under load a read may time out and be retried, and both attempts may then be answered
# (the late answer to the first completes the read; the second's is dropped): counted, not
# forbidden. What must hold is that each port was read in exactly two readings, so every
# rate rests on one answer at each end; its time is that answer's (checked below).
python3 - "$TMP/r.cap" "$next" <<'PY' || fail "the data reads are not two readings of every port"
import re, sys
cap, want = open(sys.argv[1]).read().split("\n"), int(sys.argv[2])
ans, reads = {}, 0
for i, l in enumerate(cap):
    m = re.match(r"x PMA Get PortCountersExtended mod=0 addr=lid:(\d+) t=(\d+)$", l)
    if m:
        reads += 1
        if cap[i + 2].startswith("< resp"):
            ans.setdefault((m.group(1), cap[i + 1][2:][130:132]), []).append(int(m.group(2)))
def readings(ts): # answered attempts more than 1 s apart are another reading (they are 2 s apart)
    ts = sorted(ts)
    return 1 + sum(1 for a, b in zip(ts, ts[1:]) if b - a > 1e9)
bad = [k for k, ts in ans.items() if readings(ts) != 2]
n = sum(len(ts) for ts in ans.values())
assert len(ans) == want and not bad, ("ports read", len(ans), "want", want, "not in two readings", bad[:5])
print("data reads: %d sent, %d answered; %d ports each in two readings; %d answers beyond one per reading" %
      (reads, n, len(ans), n - 2 * want))
PY
python3 - "$TMP/rate.json" "$TMP/topo.json" "$TMP/r.cap" $interval $dx $dr "${ports[@]}" <<'PY' || fail "rates do not follow the measured time"
import json, re, sys
rate, topo, cap = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), open(sys.argv[3]).read().split("\n")
interval, dx, dr = float(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
assert rate["interval_s"] == interval, rate["interval_s"]
# Send times of each (LID, port) data read: the PortSelect is byte 65 of the MAD.
times = {}
for i, l in enumerate(cap):
    m = re.match(r"x PMA Get PortCountersExtended mod=0 addr=lid:(\d+) t=(\d+)$", l)
    if m and cap[i + 2].startswith("< resp"):
        req = cap[i + 1][2:]
        times.setdefault((int(m.group(1)), int(req[130:132], 16)), []).append(int(m.group(2)))
for spec in sys.argv[7:]:
    nid, port = spec.split()
    port = int(port)
    desc = nid[2:]
    node = [n for n in topo["nodes"] if n["description"].split()[0] == desc]
    assert len(node) == 1, (nid, len(node))
    node = node[0]
    lid = node["lid"] if node["type"] == "switch" else [p for p in node["ports"] if p["port"] == port][0]["lid"]
    pc = [p for p in rate["ports_counters"] if p["guid"] == node["guid"] and p["port"] == port]
    assert len(pc) == 1 and pc[0]["extended"], (nid, pc)
    d = pc[0]["deltas"]
    # One time per reading: a read answered twice (a retry under load) offers either attempt.
    t = sorted(times[(lid, port)])
    first = [x for x in t if x - t[0] <= 1e9]
    second = [x for x in t if x - t[0] > 1e9]
    assert first and second and second[-1] - second[0] <= 1e9, (nid, t)
    measured = min(((b - a) / 1e9 for a in first for b in second), key=lambda m: abs(d["seconds"] - m))
    # The deltas are what was injected, give or take the MADs that crossed the port.
    assert abs(d["xmit_bytes"] - dx * 4) <= 100000 * 4, (nid, d)
    assert abs(d["rcv_bytes"] - dr * 4) <= 100000 * 4, (nid, d)
    # The port's own time, as the capture saw it, and the rates over it.
    assert abs(d["seconds"] - measured) < 0.01, (nid, d["seconds"], measured)
    for key, n in (("xmit_bytes_per_s", d["xmit_bytes"]), ("rcv_bytes_per_s", d["rcv_bytes"])):
        want = n / measured
        assert abs(d[key] / want - 1) < 0.02, (nid, key, d[key], want)
        # The nominal interval would give a rate off by more than twice the tolerance.
        assert abs(n / interval / want - 1) > 0.04, ("cannot tell measured from nominal", nid, measured)
    print("%s[%d]: %.0f B/s out over %.3f s (nominal %.0f s would say %.0f)" %
          (nid, port, d["xmit_bytes_per_s"], measured, interval, d["xmit_bytes"] / interval))
PY
ok "counters --interval $interval: rates over each port's measured time, within 2%"
sim_stop
t_done
