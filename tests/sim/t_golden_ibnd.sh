#!/bin/bash
# The golden topologies (tests/cli/golden/*/topology.json, ibscan's own
# replayed output) against ibnetdiscover: each state the fixture captures were
# recorded in is brought back on the simulator (tests/sim/fixture_states.sh),
# and ibnetdiscover's nodes, ports (GUID, LID, width, speed) and links must
# equal the golden file's. Not comparable: dropped (random MAD loss) and
# dup-guid (ibnetdiscover merges the two nodes); the hand-edited captures
# (bad-status, dup-port-guid, lid-zero) have no simulator state.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/sim/fixture_states.sh"
gold=$ROOT/tests/cli/golden
checked=" "

against_ibnetdiscover() { # NAME [the capture's ibscan options, unused here]
	local name=$1
	case $name in dropped | dup-guid) return 0 ;; esac
	sim_run ibnetdiscover >"$TMP/$name.ibnd" 2>"$TMP/$name.ibnd.err" || fail "$name: ibnetdiscover exited $?"
	python3 "$ROOT/tests/sim/ibnd2norm.py" "$TMP/$name.ibnd" -o "$TMP/$name.ref"
	python3 "$ROOT/tests/sim/ibscan2norm.py" "$gold/$name/topology.json" -o "$TMP/$name.gold"
	[ -s "$TMP/$name.gold" ] || fail "$name: empty normalized golden topology"
	bash "$ROOT/tests/sim/compare.sh" "$TMP/$name.gold" "$TMP/$name.ref" ||
		fail "$name: golden topology.json differs from ibnetdiscover on the same fabric"
	ok "$name: golden topology equals ibnetdiscover ($(grep -c '^node' "$TMP/$name.ref") nodes, $(grep -c '^link' "$TMP/$name.ref") links)"
	checked+="$name "
}

fixture_states against_ibnetdiscover
# Every golden topology is checked above, is the same fabric as one that is,
# or is named above as not comparable.
for d in "$gold"/*/; do
	name=$(basename "$d")
	[ -f "$d/topology.json" ] || continue
	case $name in
	dropped | dup-guid | bad-status | dup-port-guid | lid-zero) ;;
	flap) ;; # caught while a cable flapped: tests/cli/t_flap.sh compares it with fattree2-small's walk
	net.2sw2path4hca-routes | net.2sw2path4hca-path) # recorded on net.2sw2path4hca as it is
		python3 "$ROOT/tests/sim/ibscan2norm.py" "$d/topology.json" -o "$TMP/same.norm"
		bash "$ROOT/tests/sim/compare.sh" "$TMP/net.2sw2path4hca.ref" "$TMP/same.norm" ||
			fail "$name: golden topology differs from ibnetdiscover on net.2sw2path4hca" ;;
	*) [[ $checked == *" $name "* ]] || fail "$name: golden topology not checked against ibnetdiscover" ;;
	esac
done
ok "every golden topology checked:$checked"
t_done
