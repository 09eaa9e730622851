#!/bin/bash
# Gentle on switches (issue 15): under the fabric model (tools/bench/fabricmodel.c,
# default figures: a queue of 8 at each switch), ibscan keeps at most
# --max-smps-per-switch SMPs in flight at any one switch (the model's out_max,
# counting a directed-route SMP at every switch on its path), drops none,
# reads nodes by LID once known, and still finds what ibnetdiscover finds.
# Without the cap its window of 32 lands on the leaf next to it.
. "$(dirname "$0")/lib.sh"
make -s -C "$ROOT" build/rel/fabricmodel.so >/dev/null || fail "cannot build the layer"
FM=$ROOT/build/rel/fabricmodel.so
fabric=$FABRICS/fattree2-small
sim_start "$fabric" H-node0001
export FABRICMODEL_TOPO=$fabric FABRICMODEL_REPORT=$TMP/report

# model CMD...: run CMD under the default model; stdout in $TMP/out, exit status in $rc, the report line in $rep.
model() {
	: >"$TMP/report"
	rc=0
	(cd "$SIM_DIR" && LD_PRELOAD="$FM:$SIM_SHIM" "$@" >"$TMP/out" 2>"$TMP/err") || rc=$?
	rep=$(cat "$TMP/report")
	[ "$(wc -l <"$TMP/report")" = 1 ] || fail "$*: exit $rc, not one report line: '$rep'; stderr: $(head -3 "$TMP/err")"
}
val() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$rep"; }

sim_run ibnetdiscover >"$TMP/ibnd" 2>/dev/null || fail "ibnetdiscover"
python3 "$ROOT/tests/sim/ibnd2norm.py" "$TMP/ibnd" -o "$TMP/ibnd.norm"

for cap in 4 2 1; do
	model "$IBSCAN" topology --format netfile --max-smps-per-switch $cap
	[ $rc = 0 ] || fail "ibscan --max-smps-per-switch $cap exited $rc: $(head -3 "$TMP/err")"
	python3 "$ROOT/tests/sim/ibnd2norm.py" "$TMP/out" -o "$TMP/ibscan.norm"
	cmp -s "$TMP/ibscan.norm" "$TMP/ibnd.norm" || fail "cap $cap: ibscan's topology differs from ibnetdiscover's: $(diff "$TMP/ibnd.norm" "$TMP/ibscan.norm" | head -5)"
	[ "$(val out_max)" -le $cap ] || fail "cap $cap, yet one switch ($(val out_max_at)) served $(val out_max) at once: $rep"
	[ "$(val dropped)" = 0 ] && [ "$(val timed_out)" = 0 ] && [ "$(val unresolved)" = 0 ] || fail "cap $cap: $rep"
	# Most SMPs go by LID once the SM has routed: only the probes (NodeInfo) and each node's first PortInfo by directed route.
	[ "$(val lid_smp)" -gt "$(val dr_smp)" ] || fail "cap $cap: by LID $(val lid_smp), by directed route $(val dr_smp): $rep"
	ok "cap $cap: at most $(val out_max) at one switch ($(val out_max_at)), 0 dropped, $(val lid_smp) by LID, $(val dr_smp) by directed route"
done

# The check has teeth: without a cap, the window lands on the leaf.
model "$IBSCAN" topology --format netfile --max-smps-per-switch 0
[ "$(val out_max)" -gt 8 ] || fail "no cap, window 32, yet at most $(val out_max) at one switch: $rep"
ok "no cap: $(val out_max) at $(val out_max_at) at once, $(val dropped) dropped"

# health's PMA queries (LID-routed GMPs) keep to the same cap, per destination.
model "$IBSCAN" health
[ $rc = 0 ] || fail "ibscan health under the model exited $rc: $(head -3 "$TMP/out")"
[ "$(val gmp)" -gt 0 ] && [ "$(val out_max)" -le 4 ] && [ "$(val dropped)" = 0 ] || fail "health: $rep"
ok "health: $(val gmp) PMA queries, at most $(val out_max) at one switch, 0 dropped"

# routes reads every LFT block of every switch at once: the same cap holds
# (a directed-route read counts at each switch on its path), none is
# dropped, and the tables are those a run without the model reads.
sim_run "$IBSCAN" routes --dump --json >"$TMP/routes.ref" 2>/dev/null || fail "ibscan routes --dump without the model"
# ... which are ibroute's, switch by switch (ibroute lists the entries that are not 255).
python3 - "$TMP/routes.ref" >"$TMP/routes.lids" <<'PY' || fail "routes --dump without the model: not every switch's table"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["switches"] and all(s["complete"] and s["routes"] for s in d["switches"])
for s in d["switches"]:
    print(s["lid"], " ".join("%d:%d" % (r["lid"], r["port"]) for r in s["routes"]))
PY
while read -r lid want; do
	got=$(sim_run ibroute "$lid" 2>/dev/null | python3 -c 'import re, sys; print(" ".join("%d:%d" % (int(m[1], 16), int(m[2])) for m in re.finditer(r"^(0x[0-9a-f]+) (\d+) :", sys.stdin.read(), re.M)))')
	[ "$got" = "$want" ] || fail "switch LID $lid: ibscan routes '${want:0:60}...', ibroute '${got:0:60}...'"
done <"$TMP/routes.lids"
ok "routes --dump without the model: $(wc -l <"$TMP/routes.lids") switches' tables equal to ibroute's"
for cap in 4 1; do
	model "$IBSCAN" routes --dump --json --max-smps-per-switch $cap
	[ $rc = 0 ] || fail "routes, cap $cap, exited $rc: $(head -3 "$TMP/err")"
	cmp -s "$TMP/out" "$TMP/routes.ref" || fail "routes, cap $cap: tables differ from a run without the model: $(diff "$TMP/routes.ref" "$TMP/out" | head -5)"
	[ "$(val out_max)" -le $cap ] && [ "$(val dropped)" = 0 ] && [ "$(val timed_out)" = 0 ] ||
		fail "routes, cap $cap: one switch ($(val out_max_at)) served $(val out_max) at once: $rep"
	ok "routes, cap $cap: the same tables, at most $(val out_max) at one switch ($(val out_max_at)), 0 dropped"
done
t_done
