#!/bin/bash
# The drawing of a live fabric with faults: a cable that comes back after the
# SM is gone (ibsim console Unlink/Link: LinkUp but Init) is its own red
# dashed edge, labelled with its ports, while its parallel sibling stays a
# plain edge; the degraded fixture's narrowed cable (held down) is its own orange
# edge; `--format svg` of the live walk is valid SVG. Judged by Graphviz's
# layout of ibscan's DOT (tests/drawcheck.py).
. "$(dirname "$0")/lib.sh"
check=$ROOT/tests/drawcheck.py

layout() { # NAME ARGS...: DOT of the live fabric, laid out by dot as JSON
	local name=$1
	shift
	ibs "$@" --format dot -o "$TMP/$name.dot" 2>"$TMP/$name.err" || true
	[ -s "$TMP/$name.dot" ] || fail "$name: no drawing"
	dot -Tjson "$TMP/$name.dot" >"$TMP/$name.json" || fail "$name: dot rejects the drawing"
}

# 1. Two parallel cables Switch1[3]/[5] -- Switch2: one edge "2 × 4xSDR". Then,
#    with no SM, Switch1[5] is recabled: LinkUp but Init, drawn on its own.
sim_start "$FABRICS/net.2sw2path4hca"
layout before topology
grep -q "xlabel=\"${NBSP2}2 × 4xSDR${NBSP2}\", weight=2" "$TMP/before.dot" || fail "parallel switch cables not merged"
sim_stop_opensm
sim_console 'Unlink "Switch1"[5]' >/dev/null
sim_console 'Link "Switch1"[5] "Switch2"[5]' >/dev/null || true
[ "$(sim_port_state Switch1 5)" != "Down/Polling" ] || fail "the link did not come back"
# The SM is gone: its SMInfo times out, so the walk is partial (exit 3) but whole.
rc=0
ibs links --json --timeout 200 -o "$TMP/links.json" 2>/dev/null || rc=$?
[ $rc = 3 ] || fail "links --json exited $rc, want 3 (SMInfo unanswered)"
python3 - "$TMP/links.json" <<'PY' || fail "the recabled link is not Init"
import json, sys
ls = json.load(open(sys.argv[1]))["links"]
l = [l for l in ls if {(l["a"]["name"], l["a"]["port"]), (l["b"]["name"], l["b"]["port"])} == {("Switch1", 5), ("Switch2", 5)}]
assert l and l[0]["state"] != "Active", l
PY
layout after topology --timeout 200
python3 "$check" alone "$TMP/links.json" "$TMP/after.json" 0x0000000000200000 5 '#d62728' || fail "the Init cable is not its own red edge"
grep -q 'style=dashed' "$TMP/after.dot" || fail "the Init cable is not dashed"
grep -q "xlabel=\"${NBSP2}5:5 4xSDR${NBSP2}\"" "$TMP/after.dot" || fail "the Init cable is not labelled with its ports"
python3 "$check" edges "$TMP/links.json" "$TMP/after.json" all || fail "edges after the fault"
ok "a cable recabled without an SM (Init): its own red dashed edge, its sibling plain"
sim_stop

# 2. The degraded fixture, live: its narrowed cable (held down by S-leaf01) orange, alone; health
#    puts it on the picture. (ibsim says the QDR link's ends support nothing faster: no finding.)
sim_start "$FABRICS/degraded"
ibs nodes --json -o "$TMP/dn.json" || fail "nodes --json"
ibs links --json -o "$TMP/dl.json" || fail "links --json"
layout deg health --no-counters --all-hosts
python3 "$check" alone "$TMP/dl.json" "$TMP/deg.json" 0x0002c90300e10001 3 '#ff7f0e' || fail "1x host cable"
python3 "$check" tiers "$TMP/dn.json" "$TMP/dl.json" "$TMP/deg.json" || fail "tiers"
grep -q 'label="IBSCAN OK - 1 link held down by configuration"' "$TMP/deg.dot" || fail "health verdict not on the picture"
rc=0
ibs health --no-counters --format svg -o "$TMP/deg.svg" || rc=$?
[ $rc = 0 ] || fail "health --format svg exited $rc, want 0 (OK: held down is informational)"
xmllint --noout "$TMP/deg.svg" || fail "health --format svg is not valid XML"
ok "the narrowed cable live: orange, its own edge; SVG valid"
sim_stop

# 3. An irregular fabric (fixtures/fabrics/ring4): four switches in a ring and a
#    dual-homed host. No tiers to find, yet every node is drawn, every cable
#    group is an edge, and it is no long row.
sim_start "$FABRICS/ring4"
ibs nodes --json -o "$TMP/rn.json" || fail "ring: nodes --json"
ibs links --json -o "$TMP/rl.json" || fail "ring: links --json"
layout ring topology --all-hosts
python3 "$check" whole "$TMP/rn.json" "$TMP/ring.json" || fail "ring: not drawn whole"
python3 "$check" edges "$TMP/rl.json" "$TMP/ring.json" all || fail "ring: edges"
python3 "$check" ratio "$TMP/ring.json" 6 || fail "ring: proportions"
ibs topology --format svg -o "$TMP/ring.svg" || fail "ring: --format svg"
xmllint --noout "$TMP/ring.svg" || fail "ring: --format svg is not valid XML"
ok "a ring of switches with a dual-homed host: drawn whole, every cable group an edge"
sim_stop
t_done
