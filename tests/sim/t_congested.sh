#!/bin/bash
# PortXmitWait as a share of the time, on the simulator. ibsim drops PortSamplesControl (it
# handles no such attribute: the requester sees a timeout), so the tick's length is never
# known here: PortXmitWait risen between the two readings of counters --interval, or since
# the last run of health --state, gives the rate of ticks, asks PortSamplesControl once per
# PMA (a timeout, not retried for the PMA's other ports), says why there is no share, and
# makes no counters.congested finding, even at a threshold of 0 %. A port that did not wait
# has share 0 and costs no request; the Prometheus gauge passes promtool.
. "$(dirname "$0")/lib.sh"

sim_start "$FABRICS/net.2sw2path4hca"
psc_reqs() { grep -cE "^x PMA Get PortSamplesControl " "$1" || true; }
# answered_pc FILE: the PortCounters reads the capture being recorded holds, answered.
answered_pc() { awk '/^x PMA Get PortCounters / { x = 1; next } x && /^< / { if ($2 == "resp") n++; x = 0 } END { print n + 0 }' "$1"; }
first_reading_done() { recording "$pid" >/dev/null && [ "$(answered_pc "$RECORDING")" -ge "$1" ]; }

expect_rc 0 ibs counters --json -o "$TMP/once.json"
nports=$(jq '.answered' "$TMP/once.json")
[ "$nports" -gt 4 ] || fail "want the fabric's ports read: $nports"

# counters --interval: Hca3[1]'s PortXmitWait rises by 1000000 between the readings.
sim_console 'PerformanceSet "Hca3"[1] PortCounters.PortXmitWait=1000' >/dev/null || fail "PerformanceSet refused"
rc=0
ibs counters --interval 1 --json --record "$TMP/i.cap" -o "$TMP/i.json" 2>"$TMP/i.err" &
pid=$!
sim_poll 30 first_reading_done "$nports" || fail "the first reading did not complete"
sim_console 'PerformanceSet "Hca3"[1] PortCounters.PortXmitWait=1001000' >/dev/null || fail "PerformanceSet refused"
wait $pid || rc=$?
[ $rc -eq 0 ] || { cat "$TMP/i.err"; fail "counters --interval exited $rc"; }
# One request and its retries (the default 2), to Hca3's LID alone.
[ "$(psc_reqs "$TMP/i.cap")" -ge 1 ] && [ "$(psc_reqs "$TMP/i.cap")" -le 3 ] &&
	[ "$(grep -E '^x PMA Get PortSamplesControl ' "$TMP/i.cap" | sort -u | wc -l)" = 1 ] ||
	fail "want one PortSamplesControl request (and its retries): $(grep -E '^x PMA Get' "$TMP/i.cap" | sort | uniq -c)"
jq -e '[.ports_counters[] | select(.name | startswith("Hca3")) | select(.port == 1)][0].deltas
	| .PortXmitWait == 1000000 and .xmit_wait_ticks_per_s > 0 and .xmit_wait_share == null and .xmit_wait_tick_s == null' \
	"$TMP/i.json" >/dev/null || fail "Hca3[1]: $(jq -c '[.ports_counters[] | select(.name | startswith("Hca3"))]' "$TMP/i.json")"
jq -e '[.ports_counters[] | select(.deltas != null) | select(.deltas.PortXmitWait == 0)]
	| length > 0 and all(.deltas.xmit_wait_share == 0)' "$TMP/i.json" >/dev/null ||
	fail "ports that did not wait: $(jq -c '[.ports_counters[].deltas.xmit_wait_share]' "$TMP/i.json")"
ok "counters --interval: PortSamplesControl asked once and dropped by ibsim; no share, ports that did not wait 0"

# The same readings replayed in text: the port says why it has no share, no other port does.
expect_rc 0 "$IBSCAN" counters --replay "$TMP/i.cap" --interval 1
grep -E '^0x[0-9a-f]+\[ 1\] Hca3' "$TMP/out" | grep -qF 'ticks/s (no share: PortSamplesControl not answered: timeout)' ||
	fail "Hca3[1] does not say why: $(grep Hca3 "$TMP/out")"
[ "$(grep -c 'no share' "$TMP/out")" = 1 ] || fail "want one port without a share: $(grep 'no share' "$TMP/out")"
ok "text: the port that waited says PortSamplesControl was not answered"

# Prometheus: the share gauge for the ports that did not wait (0), none for Hca3[1]; promtool passes.
expect_rc 0 "$IBSCAN" counters --replay "$TMP/i.cap" --interval 1 --format prom -o "$TMP/i.prom"
promtool check metrics <"$TMP/i.prom" >"$TMP/pt" 2>&1 || fail "promtool: $(cat "$TMP/pt")"
grep -q '^# TYPE ibscan_port_xmit_wait_share gauge$' "$TMP/i.prom" || fail "no share gauge"
grep '^ibscan_port_xmit_wait_share{' "$TMP/i.prom" | grep -vq ' 0$' && fail "a share above 0: $(grep '^ibscan_port_xmit_wait_share{' "$TMP/i.prom")"
grep -q '^ibscan_port_xmit_wait_share{.*name="Hca3' "$TMP/i.prom" && grep '^ibscan_port_xmit_wait_share{.*name="Hca3' "$TMP/i.prom" |
	grep -q 'port="1"' && fail "Hca3[1] has a share: $(grep Hca3 "$TMP/i.prom")"
ok "prom: ibscan_port_xmit_wait_share 0 where no port waited, absent for Hca3[1]; promtool passes"

# health --state: the rise since the last run, judged where the tick is known, so never here.
st=$TMP/health.state
expect_rc 0 ibs health --state "$st" --json --threshold counters.congested=0
sim_console 'PerformanceSet "Hca3"[1] PortCounters.PortXmitWait=9000000' >/dev/null || fail "PerformanceSet refused"
expect_rc 0 ibs health --state "$st" --json --threshold counters.congested=0 --record "$TMP/h.cap"
[ "$(psc_reqs "$TMP/h.cap")" -ge 1 ] || fail "health --state asked no PortSamplesControl"
jq -e '.counts["counters.congested"] == 0 and ([.findings[] | select(.check == "counters.congested")] | length == 0)' \
	"$TMP/out" >/dev/null || fail "a congested finding under ibsim: $(jq -c '.findings' "$TMP/out")"
ok "health --state: PortSamplesControl dropped, no counters.congested finding even at 0 %"
sim_stop
t_done
