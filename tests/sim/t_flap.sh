#!/bin/bash
# A cable that flaps during a walk (issue 23 item 1): one leaf-spine cable of
# fattree2-small is pulled for 20 ms (ibsim's console Unlink, then ReLink) at
# a moment drawn from a fixed seed in each of FLAP_RUNS walks. No walk may
# report more nodes than ibnetdiscover finds on the fabric, nor a GUID twice:
# a port read Down while the cable was out and then carrying a probe used to
# make the walker add the known switch again and copy the fabric around
# every loop (3,442 nodes in one run of ten). Each run that read a port again
# (-vvv says so) must replay from its own capture to the same nodes.
# FLAP_KEEP=DIR keeps those captures (fixtures/captures/flap.cap is one,
# recorded with `health --format prom`; tests/cli/t_flap.sh replays it).
. "$(dirname "$0")/lib.sh"
runs=${FLAP_RUNS:-16}
RANDOM=${FLAP_SEED:-23}

sim_start "$FABRICS/fattree2-small"
sim_run ibnetdiscover >"$TMP/ibnd" 2>"$TMP/ibnd.err" || fail "ibnetdiscover exited $?"
want=$(grep -cE '^(Switch|Ca)[[:space:]]' "$TMP/ibnd")
[ "$want" = 111 ] || fail "ibnetdiscover found $want nodes, want 111"

# guids FILE: the node GUIDs of an ibscan JSON, one a line.
guids() { jq -r '.nodes[].guid' "$1"; }

_flap_active() { [ "$(sim_port_state S-leaf02 "$1")" = "Active/LinkUp" ]; }

reread=0 partial=0
for i in $(seq 1 "$runs"); do
	delay=$((RANDOM % 50))
	cable=$((19 + RANDOM % 18)) # one of S-leaf02's spine cables, ports 19-36
	rc=0
	# As tools/fixtures/record-fixtures.sh records: the walk, SMInfo and every counter query.
	ibs health --format prom -o "$TMP/r.prom" --record "$TMP/r.cap" -vvv 2>"$TMP/r.err" &
	pid=$!
	# Straight into the console FIFO: sim_console waits for ibsim's reply, which takes longer than a walk.
	exec {fd}<>"$SIM_DIR/console"
	sleep "$(printf '0.%03d' "$delay")"
	printf 'Unlink "S-leaf02"[%d]\n' "$cable" >&"$fd"
	sleep 0.02
	printf 'ReLink "S-leaf02"[%d]\n' "$cable" >&"$fd"
	exec {fd}>&-
	wait "$pid" || rc=$?
	[ "$rc" -le 3 ] || fail "run $i: exit $rc: $(head -5 "$TMP/r.err")"
	n=$(awk '$1 == "ibscan_nodes" { print $2 }' "$TMP/r.prom")
	[ -n "$n" ] || fail "run $i: no ibscan_nodes: $(head -5 "$TMP/r.err")"
	[ "$n" -le "$want" ] || fail "run $i (cable $cable, ${delay} ms in): $n nodes, the fabric has $want"
	grep -qx 'ibscan_findings{check="identity.duplicate_guid"} 0' "$TMP/r.prom" ||
		fail "run $i: $(grep 'identity.duplicate_guid' "$TMP/r.prom")"
	grep -qx 'ibscan_partial 1' "$TMP/r.prom" && partial=$((partial + 1))
	# The same walk from its capture: the nodes it counted, each GUID once.
	"$IBSCAN" topology --json --replay "$TMP/r.cap" -o "$TMP/re.json" 2>"$TMP/re.err" || [ $? = 3 ] ||
		fail "run $i: its capture does not replay: $(head -3 "$TMP/re.err")"
	[ "$(jq '.nodes | length' "$TMP/re.json")" = "$n" ] || fail "run $i: the replay has other nodes"
	dup=$(guids "$TMP/re.json" | sort | uniq -d | head -3 | tr '\n' ' ')
	[ -z "$dup" ] || fail "run $i: GUIDs reported twice: $dup"
	if grep -q 'was read down and now answers' "$TMP/r.err"; then
		reread=$((reread + 1))
		[ -n "${FLAP_KEEP:-}" ] && cp "$TMP/r.cap" "$FLAP_KEEP/flap-$i.cap"
	fi
	# Let opensm take the port back to Active before the next run.
	sim_poll 30 _flap_active "$cable" || fail "S-leaf02[$cable] did not come back: $(sim_port_state S-leaf02 "$cable")"
done
ok "$runs walks with a cable flapping: never more than the $want nodes, no GUID twice ($reread read a port again, $partial partial)"
sim_stop
t_done
