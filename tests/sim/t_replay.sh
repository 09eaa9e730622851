#!/bin/bash
# A replayed run prints byte-for-byte what the live run it was recorded from
# printed, for every fabric command and format, on every bundled fabric.
. "$(dirname "$0")/lib.sh"
views=("topology" "topology --json" "topology --format dot" "topology --format netfile"
	"nodes" "nodes --json" "links" "links --json" "sm" "sm --json")
for fabric in net.2sw2path4hca fattree2-small dualrail fattree3 degraded; do
	sim_start "$FABRICS/$fabric"
	i=0
	for v in "${views[@]}"; do
		i=$((i + 1))
		# shellcheck disable=SC2086
		ibs $v --record "$TMP/$i.cap" -o "$TMP/$i.live" || fail "$fabric: live '$v' exited $?"
		# The replay needs no simulator: run it outside the shim.
		# shellcheck disable=SC2086
		"$IBSCAN" $v --replay "$TMP/$i.cap" -o "$TMP/$i.replay" || fail "$fabric: replay of '$v' exited $?"
		cmp "$TMP/$i.live" "$TMP/$i.replay" || fail "$fabric: replay of '$v' differs from the live run"
	done
	ok "$fabric: ${#views[@]} views identical live and replayed"
	sim_stop
done
t_done
