#!/bin/bash
# Hostile NodeDescriptions on a live fabric (ibsim serves what its topology
# file says: ESC, BEL, 0x9b, U+202E, invalid UTF-8, backslashes, " w=3",
# "<script>"), through the walk, through an `ibnetdiscover --cache` file
# read with --load-cache, and through the netfile ibscan writes, which a
# fresh ibsim must load and serve as the same fabric. Every output is judged
# by its consumer (tests/hostile.sh); the offline sources are in
# tests/cli/t_hostile.sh.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/hostile.sh"

$H ibsim-topology "$FABRICS/fattree2-small" "$TMP/hostile.topo"
grep -q $'\x1b\\[31m' "$TMP/hostile.topo" || fail "the topology file holds no ESC"
sim_start "$TMP/hostile.topo"

# --- the live walk: NodeDescriptions as the nodes send them ---
views live ALL_VIEWS ibs
grep -qF 'h1 \x1b[31mred\x1b[0m\x07' "$TMP/live/nodes.txt" || fail "live: ESC and BEL not shown as \\x1b, \\x07"
grep -qF 'evil\u{202e}txt.exe' "$TMP/live/nodes.txt" || fail "live: U+202E not shown as \\u{202e}"
ibs topology --json -o "$TMP/live.json" || fail "live: topology --json"

# --- an ibnetdiscover cache of the same fabric, read through libibnetdisc ---
# ibnetdiscover blanks control characters when it writes a cache; one handed
# over may hold anything: the raw bytes are put back into its description fields.
sim_run ibnetdiscover --cache "$TMP/fabric.cache" >/dev/null 2>"$TMP/ibnd.err" || { cat "$TMP/ibnd.err"; fail "ibnetdiscover --cache"; }
views cache CACHE_VIEWS "$IBSCAN" --load-cache "$TMP/fabric.cache"
$H cache "$TMP/fabric.cache" "$TMP/hostile.cache"
views hostile-cache CACHE_VIEWS "$IBSCAN" --load-cache "$TMP/hostile.cache"
cmp -s <(jq -S '[.nodes[] | {guid, description}]' "$TMP/live.json") \
	<(jq -S '[.nodes[] | {guid, description}]' "$TMP/hostile-cache/topology.json") ||
	fail "the hostile cache's descriptions, cleaned, differ from the walk's"

# --- the netfile ibscan wrote loads into ibsim, and walking it gives the same fabric ---
cp "$TMP/live/topology.net" "$TMP/again.topo"
grep -qF ' w\x3d3 ' "$TMP/again.topo" || fail "netfile: ' w=' not escaped"
sim_stop
sim_start "$TMP/again.topo" || fail "ibsim (and opensm) did not come up on the netfile ibscan wrote"
! grep -Eq 'bad port option|cannot parse|fatal' "$SIM_DIR/ibsim.log" || { cat "$SIM_DIR/ibsim.log"; fail "ibsim complained about the netfile"; }
expect_rc 0 ibs diff --json "$TMP/live.json" live
jq -e '.equal' "$TMP/out" >/dev/null || fail "the netfile's fabric differs from the original"
expect_rc 0 ibs nodes
grep -qF 'h1 \x1b[31mred\x1b[0m\x07' "$TMP/out" || fail "again: descriptions not carried over"
$H text "$TMP/out" || fail "again: nodes"
ok "ibsim loads the netfile ibscan wrote: same nodes and links, descriptions still escaped"
sim_stop
t_done
