#!/bin/bash
# counters --interval lists the findings its two readings make, judged by the code health
# uses (issue 30): between the readings Hca2[1]'s SymbolErrorCounter rises by 500 (a counters
# finding, "rose by 500 in the ... between the two readings") and Hca3[1]'s LinkDownedCounter by
# 3 (link.flapped); Hca4[1]'s SymbolErrorCounter, 900 before and after, did not rise: no finding,
# although its total is above the threshold. Text, JSON and Prometheus all list them; promtool
# passes. One reading (no --interval) judges the totals, as health does.
. "$(dirname "$0")/lib.sh"

sim_start "$FABRICS/net.2sw2path4hca"
# answered_pc FILE: the PortCounters reads the capture being recorded holds, answered.
answered_pc() { awk '/^x PMA Get PortCounters / { x = 1; next } x && /^< / { if ($2 == "resp") n++; x = 0 } END { print n + 0 }' "$1"; }
first_reading_done() { recording "$pid" >/dev/null && [ "$(answered_pc "$RECORDING")" -ge "$1" ]; }
pset() { sim_console "PerformanceSet \"$1\"[1] PortCounters.$2=$3" >/dev/null || fail "PerformanceSet refused"; }

expect_rc 0 ibs counters --json -o "$TMP/once.json"
nports=$(jq '.answered' "$TMP/once.json")
[ "$nports" -gt 4 ] || fail "want the fabric's ports read: $nports"
jq -e '.findings == []' "$TMP/once.json" >/dev/null || fail "findings on a clean fabric: $(jq -c .findings "$TMP/once.json")"

pset Hca2 SymbolErrorCounter 100
pset Hca3 LinkDownedCounter 2
pset Hca4 SymbolErrorCounter 900
rc=0
ibs counters --interval 1 --json --record "$TMP/i.cap" -o "$TMP/i.json" 2>"$TMP/i.err" &
pid=$!
sim_poll 30 first_reading_done "$nports" || fail "the first reading did not complete"
pset Hca2 SymbolErrorCounter 600
pset Hca3 LinkDownedCounter 5
wait $pid || rc=$?
[ $rc -eq 0 ] || { cat "$TMP/i.err"; fail "counters --interval exited $rc"; }
jq -e '[.findings[] | select(.check == "counters")] | length == 1 and
	(.[0] | .counter == "SymbolErrorCounter" and .value == 500 and .port == 1 and (.node.name | startswith("Hca2"))
	 and (.message | test("SymbolErrorCounter rose by 500 in the [0-9.]+ s between the two readings \\(threshold 10\\)")))' \
	"$TMP/i.json" >/dev/null || fail "want one counters finding, Hca2[1] +500: $(jq -c .findings "$TMP/i.json")"
jq -e '[.findings[] | select(.check == "link.flapped")] | length == 1 and
	(.[0] | .counter == "LinkDownedCounter" and .value == 3 and (.node.name | startswith("Hca3"))
	 and (.message | test("went down 3 times in the [0-9.]+ s between the two readings \\(LinkDownedCounter 2 to 5\\)")))' \
	"$TMP/i.json" >/dev/null || fail "want one link.flapped finding, Hca3[1] 2 to 5: $(jq -c .findings "$TMP/i.json")"
jq -e '[.findings[] | select(.node.name | startswith("Hca4"))] | length == 0' "$TMP/i.json" >/dev/null ||
	fail "Hca4[1] did not rise but has a finding: $(jq -c .findings "$TMP/i.json")"
ok "counters --interval --json: a rise above its threshold is a counters finding, a LinkDowned rise link.flapped, no rise none"

# The same readings replayed, in text and Prometheus.
expect_rc 0 "$IBSCAN" counters --replay "$TMP/i.cap" --interval 1
grep -qx 'findings:' "$TMP/out" || fail "text lists no findings: $(tail -5 "$TMP/out")"
grep -qE '^WARNING  counters: Hca2.* port 1: SymbolErrorCounter rose by 500 in the ' "$TMP/out" || fail "text: $(tail -6 "$TMP/out")"
grep -qE '^WARNING  link.flapped: Hca3.* port 1 went down 3 times in the ' "$TMP/out" || fail "text: $(tail -6 "$TMP/out")"
expect_rc 0 "$IBSCAN" counters --replay "$TMP/i.cap" --interval 1 --format prom -o "$TMP/i.prom"
promtool check metrics <"$TMP/i.prom" >"$TMP/pt" 2>&1 || fail "promtool: $(cat "$TMP/pt")"
grep -qx 'ibscan_findings{check="counters"} 1' "$TMP/i.prom" &&
	grep -qx 'ibscan_findings{check="link.flapped"} 1' "$TMP/i.prom" &&
	grep -qx 'ibscan_findings{check="counters.congested"} 0' "$TMP/i.prom" ||
	fail "prom: $(grep ibscan_findings "$TMP/i.prom")"
ok "text and prom list the same findings; promtool passes"

# One reading: the totals, as health judges them (Hca2 600, Hca4 900 above 10; 5 link downs below 10).
expect_rc 0 ibs counters --json
jq -e '([.findings[] | select(.check == "counters")] | length == 2) and ([.findings[] | select(.check == "link.flapped")] | length == 0)' \
	"$TMP/out" >/dev/null || fail "one reading: $(jq -c .findings "$TMP/out")"
ok "one reading: judged on the totals"
sim_stop
t_done
