#!/bin/bash
# The fault matrix: MAD drop rates of 1%, 10% and 30% on every switch, a
# cable pulled during the walk, no subnet manager at all. (A walk sends some
# 1,800 MADs, many of them across several dropping switches: 6 retries
# lost a node at 10% once in a few runs, so the test allows 20. A dropped
# MAD comes back at once, so retries cost little.) Each run must end
# before its --deadline with an honest exit code and output. (The simulator
# killed mid-walk, a dead switch and bad status are in t_faults.sh and
# t_health.sh; a bad-status answer and duplicate GUIDs in captures and unit
# tests.)
. "$(dirname "$0")/lib.sh"

timed() { # DEADLINE_S CMD...: run, fail if it takes longer than the deadline
	local dl=$1 t0 t1 rc=0
	shift
	t0=$(date +%s%N)
	"$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	t1=$(date +%s%N)
	TOOK_MS=$(((t1 - t0) / 1000000))
	[ $TOOK_MS -le $((dl * 1000 + 500)) ] || fail "'$*' took ${TOOK_MS} ms, past its ${dl}s deadline"
	return $rc
}
switches() { grep -o '^Switch[[:space:]]*[0-9]* "[^"]*"' "$FABRICS/fattree2-small" | sed 's/.*"\(.*\)"/\1/'; }

sim_start "$FABRICS/fattree2-small"
ibs topology --json -o "$TMP/clean.json"
for rate in 1 10 30; do
	for s in $(switches); do sim_console "Error \"$s\" $rate" >/dev/null; done
	rc=0
	timed 60 ibs topology --json --deadline 60 --timeout 100 --retries 20 || rc=$?
	python3 - "$TMP/out" "$TMP/clean.json" "$rate" "$rc" <<'PY' || fail "drop $rate%: wrong result"
import json, sys
d, clean, rate, rc = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3]), int(sys.argv[4])
complete = not d["partial"] and d["summary"]["nodes"] == clean["summary"]["nodes"] and d["summary"]["links"] == clean["summary"]["links"]
if rate <= 10:
    # Retries carry a walk through 1-10% loss: the whole fabric, exit 0.
    assert complete and rc == 0, (rate, rc, d["summary"], d["partial"])
else:
    # At 30%: complete, or partial and saying so with exit 3 and the failures listed.
    assert complete and rc == 0 or (d["partial"] and rc == 3 and d["errors"]), (rc, d["summary"])
    # Whatever it reports is true: every node it lists exists.
    guids = {n["guid"] for n in clean["nodes"]}
    assert all(n["guid"] in guids for n in d["nodes"])
print("drop %d%%: exit %d, %d nodes, partial %s" % (rate, rc, d["summary"]["nodes"], d["partial"]))
PY
	ok "MAD drop $rate% on every switch: exit $rc in ${TOOK_MS} ms"
	for s in $(switches); do sim_console "Error \"$s\" 0" >/dev/null; done
done
sim_stop

# A cable pulled while the walk runs: the walk ends, and says what it saw.
sim_start "$FABRICS/fattree3"
rc=0
ibs topology --json --window 1 --deadline 30 --record "$TMP/p.cap" -o "$TMP/p.json" 2>"$TMP/p.err" &
pid=$!
sim_poll 20 mid_walk "$TMP/p.cap" 200 || fail "the walk did not get going"
sim_console 'Unlink "S-leaf02"[7]' >/dev/null || fail "Unlink refused"
[ "$(sim_port_state S-leaf02 7)" = "Down/Polling" ] || fail "the cable was not pulled"
wait $pid || rc=$?
[ $rc -eq 0 ] || [ $rc -eq 3 ] || fail "cable pulled mid-walk: exit $rc"
python3 -c "
import json,sys; d=json.load(open(sys.argv[1])); rc=int(sys.argv[2])
assert (rc == 3) == d['partial'], (rc, d['partial'])
" "$TMP/p.json" "$rc" || fail "cable pulled mid-walk: exit code and 'partial' disagree"
ok "cable pulled mid-walk: exit $rc, output consistent"
sim_stop

# No subnet manager: no LIDs. The directed-route walk works; LID-routed steps say why not.
SIM_NO_SM=1 sim_start "$FABRICS/net.2sw2path4hca"
timed 30 ibs topology --json || fail "no SM: topology exited $?"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['summary']['nodes']==6 and d['summary']['links']==6" "$TMP/out" || fail "no SM: walk incomplete"
rc=0
timed 30 ibs counters || rc=$?
[ $rc -eq 3 ] || fail "no SM: counters exit $rc, want 3"
grep -q "no port has a LID" "$TMP/err" || fail "no SM: counters do not say why"
grep -q "not read: the port has no LID" "$TMP/out" || fail "no SM: ports not listed as unread"
rc=0
timed 30 ibs health || rc=$?
[ $rc -eq 2 ] || fail "no SM: health exit $rc, want 2 (CRITICAL: no master SM)"
grep -q "sm.no_master" "$TMP/out" || fail "no SM: no sm.no_master finding"
rc=0
timed 30 ibs path 1 2 || rc=$?
[ $rc -ne 0 ] || fail "no SM: path succeeded"
ok "no SM: walk complete, counters exit 3 naming the cause, health CRITICAL sm.no_master"
sim_stop

# Duplicate GUIDs in a loop: Switch2 (joined to Switch1 by two cables) takes
# Switch1's GUID. Both switches stay in the model, the cables stay right.
sim_start "$FABRICS/net.2sw2path4hca"
sim_console 'Guid "Switch2" 0x0000000000200000' >/dev/null
rc=0
timed 30 ibs health --json --no-counters || rc=$?
[ $rc -eq 2 ] || fail "duplicate switch GUID in a loop: health exit $rc, want 2"
python3 - "$TMP/out" <<'PY' || fail "duplicate switch GUID in a loop: wrong model"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["nodes"] == 6 and d["links"] == 6, (d["nodes"], d["links"])
assert d["counts"]["identity.duplicate_guid"] == 1, d["counts"]
PY
ok "duplicate GUIDs in a loop: 6 nodes, 6 links kept, CRITICAL"
sim_stop
