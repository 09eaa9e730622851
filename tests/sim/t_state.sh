#!/bin/bash
# health --state on the simulator: live PMA counters set through ibsim's console between two
# runs. A LinkDownedCounter rise is link.flapped (perfquery reads the same counter), an error
# counter is judged by its rise, a port clean since the last run stops alarming on its total,
# and a counter cleared in between is said, never a delta.
. "$(dirname "$0")/lib.sh"

sim_start "$FABRICS/net.2sw2path4hca"
st=$TMP/health.state
expect_rc 0 ibs health --state "$st" --json
grep -qF "no earlier readings (the first run)" "$TMP/err" || fail "first run not said: $(cat "$TMP/err")"
[ "$(grep -c '^0x' "$st")" = 12 ] || fail "the state holds $(grep -c '^0x' "$st") ports, want 12"
ok "first run: OK, said, 12 ports kept"

sim_console 'PerformanceSet "Switch2"[3] PortCounters.LinkDownedCounter=3' >/dev/null
sim_console 'PerformanceSet "Switch1"[1] PortCounters.SymbolErrorCounter=500' >/dev/null
# The reference tool reads the counter the flap is judged from.
lid=$(jq -r '.nodes[] | select(.description == "Switch2") | .ports[0].lid' <(sim_run "$IBSCAN" topology --json 2>/dev/null))
sim_run perfquery "$lid" 3 >"$TMP/pq" 2>&1 || fail "perfquery: $(cat "$TMP/pq")"
grep -qE '^LinkDownedCounter:\.*3$' "$TMP/pq" || fail "perfquery does not read LinkDownedCounter 3: $(cat "$TMP/pq")"
expect_rc 1 ibs health --state "$st" --json
jq -e '.counts["link.flapped"] == 1 and .counts.counters == 1
	and ([.findings[] | select(.check == "link.flapped")][0] | .value == 3 and .node.name == "Switch2" and .port == 3)
	and ([.findings[] | select(.check == "counters")][0] | .value == 500 and .counter == "SymbolErrorCounter"
		and (.message | test("rose by 500 since the last run")))' "$TMP/out" >/dev/null ||
	fail "flap and rise: $(jq -c '[.counts, .findings]' "$TMP/out")"
ok "a LinkDowned rise of 3 is link.flapped (perfquery agrees), SymbolErrorCounter rose by 500"

# Nothing changed since: the totals (LinkDowned 3, 500 symbol errors) stop alarming.
expect_rc 0 ibs health --state "$st"
head -1 "$TMP/out" | grep -q "^IBSCAN OK" || fail "clean since the last run: $(head -1 "$TMP/out")"
# Cleared by someone (as perfquery -R would): said, judged on the count now (0), not a delta.
sim_console 'PerformanceSet "Switch1"[1] PortCounters.SymbolErrorCounter=0' >/dev/null
expect_rc 0 ibs health --state "$st" --json
grep -qF "Switch1 port 1: SymbolErrorCounter went down from 500 to 0 since the last run (cleared by someone)" "$TMP/err" ||
	fail "reset not said: $(cat "$TMP/err")"
jq -e '.state.notes | length == 1' "$TMP/out" >/dev/null || fail "notes: $(jq -c .state "$TMP/out")"
ok "a port clean since is quiet; a cleared counter is said, not a delta"
sim_stop
t_done
