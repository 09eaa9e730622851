#!/bin/bash
# A walk during which a cable flapped replays to the true fabric (issue 23
# item 1). fixtures/captures/flap.cap is a `health --format prom` walk of
# fattree2-small recorded by tests/sim/t_flap.sh while S-leaf02[27] was
# pulled for 20 ms: spine05 read its end of that cable (port 3) Down, then
# the leaf reached spine05 through it. The walker used to add spine05 again
# as a second node with its GUID (and, live, walk it on: 3,442 nodes); now it is the leaf,
# its port read again. Compared with the clean capture of the same fabric:
# the same nodes and the same cables.
. "$(dirname "$0")/lib.sh"
caps=$ROOT/fixtures/captures
# cables FILE: every cable of a topology JSON, both ends by GUID and port, one a line.
cables() { jq -r '.nodes[] | .guid as $g | .ports[] | select(.peer) | "\($g)[\(.port)] \(.peer.guid)[\(.peer.port)]"' "$1" | sort; }

run 0 topology --json --replay "$caps/flap.cap" -vvv
cp "$TMP/out" "$TMP/flap.json"
grep -q 'port 3 of 0x0002c90300e20005 was read down and now answers: read again' "$TMP/err" ||
	fail "the capture no longer holds the flap: $(grep -c . "$TMP/err") lines on stderr"
[ "$(jq '.nodes | length' "$TMP/flap.json")" = 111 ] || fail "$(jq '.nodes | length' "$TMP/flap.json") nodes, the fabric has 111"
[ -z "$(jq -r '.nodes[].guid' "$TMP/flap.json" | sort | uniq -d)" ] || fail "a GUID twice"
jq -e '.partial == false' "$TMP/flap.json" >/dev/null || fail "partial"
run 0 topology --json --replay "$caps/fattree2-small.cap"
cmp -s <(jq -r '.nodes[].guid' "$TMP/flap.json" | sort) <(jq -r '.nodes[].guid' "$TMP/out" | sort) || fail "other nodes than the clean walk"
cables "$TMP/flap.json" >"$TMP/a"
cables "$TMP/out" >"$TMP/b"
diff "$TMP/b" "$TMP/a" >"$TMP/d" || fail "other cables than the clean walk: $(head -5 "$TMP/d")"
[ "$(wc -l <"$TMP/a")" = 408 ] || fail "$(wc -l <"$TMP/a") cable ends, want 408 (204 cables)"
# The port read again is as it was then: LinkUp, Init (opensm had not made it Active yet).
jq -e '.nodes[] | select(.guid == "0x0002c90300e20005") | .ports[] | select(.port == 3) |
	.state == "Init" and .phys_state == "LinkUp" and .peer.guid == "0x0002c90300e10002" and .peer.port == 27' \
	"$TMP/flap.json" >/dev/null || fail "spine05 port 3 is not the cable to S-leaf02[27], read again"
echo "ok: a walk with a flapping cable replays to the 111 nodes and 204 cables of the clean walk"
t_done
