#!/bin/bash
# The fault matrix, all with ibscan's default settings: MADs dropped (ibsim's
# Error) on a quarter of the switches of a 264-node 3-level fat tree and on
# every switch of fattree2-small, a cable pulled during the walk, no subnet
# manager, duplicate GUIDs in a loop. With 10% dropped at a quarter of the
# switches, or 1% at all of them, the walk must be complete: the topology
# ibnetdiscover finds on the clean fabric, exit 0. With 30% at a quarter, or
# 10% and 30% at all of them (every MAD then crosses several dropping
# switches, the local one included), it may be partial, but then it exits 3,
# reports nothing that is not there and names every node it missed, in the
# JSON's errors and on stderr. Each run must end before its --deadline. (The simulator killed mid-walk, a dead switch and bad status
# are in t_faults.sh and t_health.sh; a bad-status answer and duplicate
# GUIDs in captures and unit tests; the alternate paths and the re-sweep,
# with deterministic drops, in tests/unit/test_walk.c.)
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
switches() { grep -o '^Switch[[:space:]]*[0-9]* "[^"]*"' "$1" | sed 's/.*"\(.*\)"/\1/'; }
# drop RATE SWITCH...: ibsim drops RATE% of the MADs entering each switch (both ways).
drop() {
	local rate=$1 s
	shift
	for s in "$@"; do sim_console "Error \"$s\" $rate" >/dev/null || fail "Error refused for $s"; done
}
norm_ibscan() { python3 "$ROOT/tests/sim/ibscan2norm.py" "$1" -o "$2"; }

# clean_reference: ibscan's clean walk (JSON, median time of 3 in CLEAN_MS)
# and ibnetdiscover's, normalized, which must agree.
clean_reference() {
	local i times=()
	for i in 1 2 3; do
		timed 60 ibs topology --json -o "$TMP/clean.json" || fail "clean walk exited $?"
		times+=("$TOOK_MS")
	done
	CLEAN_MS=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)
	sim_run ibnetdiscover >"$TMP/ibnd" 2>"$TMP/ibnd.err" || fail "ibnetdiscover exited $?"
	python3 "$ROOT/tests/sim/ibnd2norm.py" "$TMP/ibnd" -o "$TMP/ibnd.norm"
	norm_ibscan "$TMP/clean.json" "$TMP/clean.norm"
	bash "$ROOT/tests/sim/compare.sh" "$TMP/clean.norm" "$TMP/ibnd.norm" >/dev/null ||
		fail "the clean walk differs from ibnetdiscover"
}

# lossy_run MODE NAME: a walk with the default settings, judged against the clean one.
# MODE complete: exit 0, not partial, normalized equal to ibnetdiscover's clean view.
# MODE named: that, or exit 3, partial, nothing reported that is not there,
# and every node missing from the clean walk named (by the port it lies
# behind, in the JSON's errors and on stderr) unless all its neighbours are
# missing too. Sets LOSSY_RC.
lossy_run() {
	local mode=$1 name=$2 rc=0
	timed 60 ibs topology --json --deadline 60 || rc=$?
	cp "$TMP/out" "$TMP/$name.json"
	cp "$TMP/err" "$TMP/$name.err"
	python3 - "$TMP/$name.json" "$TMP/clean.json" "$TMP/$name.err" "$rc" "$mode" <<'PY' || fail "$name: wrong result (exit $rc)"
import json, re, sys
d, clean = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
err, rc, mode = open(sys.argv[3]).read(), int(sys.argv[4]), sys.argv[5]
complete = not d["partial"] and d["summary"]["nodes"] == clean["summary"]["nodes"] and \
    d["summary"]["links"] == clean["summary"]["links"]
if mode == "complete" or complete:
    # Every node and cable found. A query lost on all its attempts through one port may still
    # be reported (exit 3) when what lies behind that port was found by another path: seen
    # once in CI (1 of 5 runs, the cable known from its other end). Anything else fails.
    whole = d["summary"]["nodes"] == clean["summary"]["nodes"] and d["summary"]["links"] == clean["summary"]["links"]
    if whole and rc == 3 and d["errors"]:
        cabled = {(n["guid"], p["port"]) for n in d["nodes"] for p in n["ports"] if p["peer"]}
        assert all((e["node_guid"], e["port"]) in cabled for e in d["errors"]), (rc, d["errors"][:5])
        print("lost on one path, found by another: %d quer%s reported" % (len(d["errors"]), "y" if len(d["errors"]) == 1 else "ies"))
        sys.exit(0)
    assert complete and rc == 0 and not d["errors"], (rc, d["summary"], d["errors"][:5])
    sys.exit(0)
assert d["partial"] and rc == 3 and d["errors"], (rc, d["summary"])
# Whatever it reports is true: every node and every cable.
peer = {}
for n in clean["nodes"]:
    for p in n["ports"]:
        if p["peer"]:
            peer[(n["guid"], p["port"])] = p["peer"]["guid"]
guids = {n["guid"] for n in clean["nodes"]}
assert all(n["guid"] in guids for n in d["nodes"]), "a node the clean walk does not have"
for n in d["nodes"]:
    for p in n["ports"]:
        if p["peer"]:
            assert peer.get((n["guid"], p["port"])) == p["peer"]["guid"], ("a cable that is not there", n["guid"], p)
# Every missing node is named: by the port of a found node that it lies behind.
found = {n["guid"] for n in d["nodes"]}
named_json = {peer.get((e["node_guid"], e["port"])) for e in d["errors"] if e["node_guid"] and e["port"]}
line = [l for l in err.split("\n") if l.startswith("ibscan: error: the result is partial: ")]
assert len(line) == 1, ("want one line saying the result is partial", err)
named_err = {peer.get((g, int(p))) for p, g in
             re.findall(r"(?:; not discovered:|,) the node behind port (\d+) of '[^']*' \((0x[0-9a-f]{16})\)", line[0])}
neighbours = {}
for (g, _), h in peer.items():
    neighbours.setdefault(h, set()).add(g)
missing = guids - found
for m in missing:
    if neighbours.get(m, set()) <= missing:
        continue  # only missing nodes lead to it: no found node can point at it
    assert m in named_json, ("a missing node not named in the JSON's errors", m)
    assert m in named_err, ("a missing node not named on stderr", m)
PY
	if [ "$rc" = 0 ]; then
		norm_ibscan "$TMP/$name.json" "$TMP/$name.norm"
		bash "$ROOT/tests/sim/compare.sh" "$TMP/$name.norm" "$TMP/ibnd.norm" >/dev/null ||
			fail "$name: not the topology ibnetdiscover finds on the clean fabric"
	fi
	LOSSY_RC=$rc
}

# 1. A quarter of the switches of a 264-node 3-level tree (2 cables per
#    switch pair): every fourth in file order, so leaves, spines and cores,
#    and S-leaf01 among them, where ibscan attaches (every answer crosses it).
python3 "$ROOT/tools/fixtures/genfabric.py" --levels 3 --radix 24 --parallel 2 --hosts 216 --cores 12 \
	-o "$TMP/tree264.net" 2>/dev/null
mapfile -t quarter < <(switches "$TMP/tree264.net" | awk 'NR % 4 == 1')
[ ${#quarter[@]} -eq 12 ] || fail "want 12 lossy switches, got ${#quarter[@]}"
sim_start "$TMP/tree264.net"
clean_reference
drop 10 "${quarter[@]}"
for i in 1 2 3 4 5; do
	lossy_run complete "q10-$i"
	# A sanity bound only (twice the clean time, plus a second for a machine
	# busy with other tests): `make bench` measures the ratio.
	[ "$TOOK_MS" -le $((2 * CLEAN_MS + 1000)) ] || fail "10% on a quarter: ${TOOK_MS} ms, clean ${CLEAN_MS} ms"
	ok "MAD drop 10% on 12 of 48 switches, run $i: complete, equal to ibnetdiscover's clean view, ${TOOK_MS} ms (clean ${CLEAN_MS} ms)"
done
drop 30 "${quarter[@]}"
for i in 1 2 3; do
	lossy_run named "q30-$i"
	ok "MAD drop 30% on 12 of 48 switches, run $i: exit $LOSSY_RC, $(jq .summary.nodes "$TMP/q30-$i.json") of 264 nodes, every missing node named"
done
# Which other paths a walk takes, and what it asks, depends on the answers
# only: its capture replays (strictly: no request the capture lacks) to the
# same bytes. Three pairs: one once differed in about 1 run of 10 (a switch
# port's MlnxExtPortInfo asked or not as its port 0 answered before it or
# after; test_walk's test_fdr10_asked_whatever_order holds it every time).
for i in 1 2 3; do
	rc=0
	ibs topology --json --record "$TMP/q30.cap" -o "$TMP/q30-live.json" 2>/dev/null || rc=$?
	rc2=0
	"$IBSCAN" topology --json --replay "$TMP/q30.cap" --replay-strict -o "$TMP/q30-replay.json" \
		2>"$TMP/q30-replay.err" || rc2=$?
	[ $rc = $rc2 ] || { cat "$TMP/q30-replay.err"; fail "30%, pair $i: live exit $rc, replay exit $rc2"; }
	cmp -s "$TMP/q30-live.json" "$TMP/q30-replay.json" ||
		{ cat "$TMP/q30-replay.err"; fail "30%, pair $i: the replay of a lossy walk differs from the walk"; }
	ok "MAD drop 30%, pair $i: the capture of a lossy walk replays strictly to the same output (exit $rc)"
done
sim_stop

# 2. Every switch of fattree2-small (the local leaf too).
sim_start "$FABRICS/fattree2-small"
clean_reference
mapfile -t all < <(switches "$FABRICS/fattree2-small")
for rate in 1 10 30; do
	drop "$rate" "${all[@]}"
	mode=complete
	[ "$rate" -le 1 ] || mode=named
	lossy_run "$mode" "all$rate"
	ok "MAD drop $rate% on every switch: exit $LOSSY_RC in ${TOOK_MS} ms, $(jq .summary.nodes "$TMP/all$rate.json") of 111 nodes"
	drop 0 "${all[@]}"
done
sim_stop

# A cable pulled while the walk runs: the walk ends, and says what it saw.
sim_start "$FABRICS/fattree3"
rc=0
ibs topology --json --window 1 --deadline 30 --record "$TMP/p.cap" -o "$TMP/p.json" 2>"$TMP/p.err" &
pid=$!
sim_poll 20 mid_walk $pid 200 || fail "the walk did not get going"
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
t_done
