#!/bin/bash
# ibscan's netfile loads into a fresh ibsim, and walking that gives the same nodes and links.
. "$(dirname "$0")/lib.sh"
for fabric in net.2sw2path4hca dualrail fattree2-small; do
	sim_start "$FABRICS/$fabric"
	ibs topology --json -o "$TMP/a.json" || fail "$fabric: first walk"
	ibs topology --format netfile -o "$TMP/$fabric.net" || fail "$fabric: netfile"
	sim_stop
	sim_start "$TMP/$fabric.net"
	ibs topology --json -o "$TMP/b.json" || fail "$fabric: walk of the netfile"
	sim_stop
	# Compare nodes and links (LIDs may be assigned differently by the new SM).
	for x in a b; do
		python3 "$ROOT/tests/sim/ibscan2norm.py" "$TMP/$x.json" -o "$TMP/$x.norm"
		grep -v '^port' "$TMP/$x.norm" >"$TMP/$x.nl"
	done
	bash "$ROOT/tests/sim/compare.sh" "$TMP/a.nl" "$TMP/b.nl" || fail "$fabric: netfile round trip differs"
	ok "$fabric: $(grep -c '^node' "$TMP/a.nl") nodes and $(grep -c '^link' "$TMP/a.nl") links survive the round trip"
done
t_done
