#!/bin/bash
# health --state FILE on replayed captures: the first run said and judged on totals, the next one
# judged by what changed (a LinkDowned rise is link.flapped, a port clean since is quiet), a reset
# counter or a moved LID said and never made a delta, and a state file another user owns or others
# may write refused with one line (UNKNOWN).
. "$(dirname "$0")/lib.sh"
cap=$ROOT/fixtures/captures/counters.cap
st=$TMP/health.state

# First run: no file yet. Said; the lifetime totals judged as without a state; the file written.
run 1 health --replay "$cap" --state "$st" --json
err_has "ibscan: warning: $st: no earlier readings (the first run): counters judged on their totals"
jq -e '.counts.counters == 3 and .counts["link.flapped"] == 0 and .state.notes == ["no earlier readings (the first run): counters judged on their totals"]' \
	"$TMP/out" >/dev/null || fail "first run: $(cat "$TMP/out")"
[ -f "$st" ] || fail "the state file was not written"
head -1 "$st" | grep -qx "ibscan-state 2" || fail "the state file lacks its magic line"
[ "$(grep -c '^0x' "$st")" = 12 ] || fail "the state file does not hold the 12 ports read"
grep -q '^0x0000000000200001 3 3 [0-9]* 0 0 0 40 ' "$st" || fail "Switch2 port 3's LinkDownedCounter 40 is not kept"
[ "$(stat -c %a "$st")" = 644 ] || [ "$(stat -c %a "$st")" = 600 ] || fail "state file mode $(stat -c %a "$st")"
# Hca3[1]'s PortXmitWait moved: its PortVLXmitWaitCounters are kept too (vl=, docs/checks.md).
grep -qx '0x0000000000100006 1 5 [0-9]* 0 0 0 0 0 0 0 0 0 0 0 0 0 123456 vl=1000,0,0,456,0,0,0,0,0,0,0,0,0,0,0,65535' "$st" ||
	fail "Hca3[1]'s VL counters are not kept: $(grep '^0x0000000000100006 ' "$st")"
[ "$(grep -c '^0x.* vl=' "$st")" = 1 ] || fail "VL counters kept where none were read: $(grep ' vl=' "$st")"
echo "ok: the first run is said, judged on totals, and its readings kept (VL counters where read)"

# Same counters again: nothing rose, so the lifetime totals (5000 symbol errors...) stop alarming.
run 0 health --replay "$cap" --state "$st"
head -1 "$TMP/out" | grep -q "^IBSCAN OK - 6 nodes, 6 links, no findings | .*links_flapped=0" || fail "unchanged counters: $(head -1 "$TMP/out")"
[ ! -s "$TMP/err" ] || fail "an unchanged run says something: $(cat "$TMP/err")"
echo "ok: a port clean since the last run does not alarm on its lifetime total"

# The last run's readings edited against today's capture, one change per port: Switch2[3]
# LinkDowned 38 (now 40: flapped twice), Hca2[1] PortRcvErrors 700 (now 777: rose by 77),
# Switch1[1] SymbolErrorCounter 6000 (now 5000: cleared), Hca1[1] at LID 99 (now 2: moved),
# Hca4[1] missing (its first reading).
sed -e 's/^\(0x0000000000200001 3 3 [0-9]* 0 0 0\) 40 /\1 38 /' \
	-e 's/^\(0x0000000000100003 1 4 [0-9]* 0 0 0 0\) 777 /\1 700 /' \
	-e 's/^\(0x0000000000200000 1 1 [0-9]* 0\) 5000 /\1 6000 /' \
	-e 's/^0x0000000000100000 1 2 /0x0000000000100000 1 99 /' \
	-e '/^0x0000000000100009 /d' "$st" >"$TMP/edited"
[ "$(diff "$st" "$TMP/edited" | grep -c '^<')" = 5 ] || fail "the edit did not take"
cp "$TMP/edited" "$st"
run 1 health --replay "$cap" --state "$st" --json
jq -e '.counts["link.flapped"] == 1 and .counts.counters == 2' "$TMP/out" >/dev/null || fail "changes: $(jq -c '.counts' "$TMP/out")"
jq -e '[.findings[] | select(.check == "link.flapped")][0] | .node.port == 3 and .value == 2 and .severity == "WARNING"
	and (.message | test("^Switch2 port 3 went down 2 times since the last run \\([0-9]+ s ago; LinkDownedCounter 38 to 40\\)$"))' \
	"$TMP/out" >/dev/null || fail "link.flapped: $(jq -c '.findings' "$TMP/out")"
jq -e '[.findings[] | select(.check == "counters" and .counter == "PortRcvErrors")][0] | .value == 77
	and (.message | test("rose by 77 since the last run"))' "$TMP/out" >/dev/null || fail "rise: $(jq -c '.findings' "$TMP/out")"
# The cleared counter: judged on its count since the reset (5000), said, no delta (no "rose by -1000").
jq -e '[.findings[] | select(.check == "counters" and .counter == "SymbolErrorCounter")][0] | .value == 5000
	and (.message | test("is 5000"))' "$TMP/out" >/dev/null || fail "reset: $(jq -c '.findings' "$TMP/out")"
jq -e '.state.notes | length == 3' "$TMP/out" >/dev/null || fail "notes: $(jq -c '.state' "$TMP/out")"
err_has "Switch1 port 1: SymbolErrorCounter went down from 6000 to 5000 since the last run (cleared by someone): judged on its count since then"
err_has "Hca1 port 1: its LID moved from 99 to 2 since the last run: not compared, judged on its totals"
err_has "Hca4 port 1: no earlier reading: judged on its totals"
jq -e '.state.notes | any(test("its LID moved from 99 to 2"))' "$TMP/out" >/dev/null || fail "the moved LID is not in JSON"
# The prom output counts the new check; the next run, against what this one wrote, is quiet again.
run 0 health --replay "$cap" --state "$st" --format prom
out_has 'ibscan_findings{check="link.flapped"} 0'
echo "ok: link.flapped, a rise judged, a reset and a moved LID said, never a false delta"

# Refusals: one line on stderr, UNKNOWN, the file left as it was.
cp "$st" "$TMP/keep"
chmod g+w "$st"
run 3 health --replay "$cap" --state "$st"
[ "$(wc -l <"$TMP/err")" = 1 ] || fail "a group-writable state: not one line: $(cat "$TMP/err")"
err_has "ibscan: error: state file '$st' may be written by its group or others (mode 0664): refused"
out_has "IBSCAN UNKNOWN - the state file was refused"
cmp -s "$st" "$TMP/keep" || fail "a refused state file was rewritten"
chmod 644 "$st"
printf 'not a state\n' >"$TMP/bad.state"
run 3 health --replay "$cap" --state "$TMP/bad.state"
err_has "$TMP/bad.state:1: not an ibscan state file (want 'ibscan-state 2' or 'ibscan-state 1')"
run 3 health --replay "$cap" --state "$st" --no-counters
err_has "--state keeps counter readings: --no-counters reads none"
run 2 counters --replay "$cap" --state "$st"
err_has "--state is an option of 'ibscan health'"
run 3 health --replay "$cap" --state "$cap"
err_has "is an input of this run too"
run 3 health --replay "$cap" --state "$st" -o "$st"
err_has "refusing to write '$st' (-o): it is the input '$st' (--state)"
printf 'mlx5_0\n' >"$TMP/rails.list"
run 3 health --replay "$cap" --state "$TMP/rails.list" --rails "@$TMP/rails.list"
err_has "is an input of this run too"
run 3 health --replay "$cap" --rails "@$TMP/rails.list" -o "$TMP/rails.list"
err_has "refusing to write '$TMP/rails.list' (-o): it is the input '$TMP/rails.list' (--rails)"
[ "$(cat "$TMP/rails.list")" = mlx5_0 ] || fail "the rails file was written over"
echo "ok: a group-writable, malformed or misused state file is refused"

# Another user's state file: as root, uid 65534 runs a copy of ibscan on a copy of the capture
# with root's (readable) state file; as another user, a root-owned file stands for it.
if [ "$(id -u)" = 0 ]; then
	ocap=$(for_others "$cap")
	obin=$(for_others "$IBSCAN")
	cp "$st" "$TMP/others/root.state"
	chmod 644 "$TMP/others/root.state"
	chmod 777 "$TMP/others"
	rc=0
	(cd "$TMP/others" && setpriv --reuid=65534 --regid=65534 --clear-groups "$obin" health --replay "$ocap" \
		--state "$TMP/others/root.state") >"$TMP/out" 2>"$TMP/err" || rc=$?
	owner=0 me=65534 path=$TMP/others/root.state
else
	rc=0
	"$IBSCAN" health --replay "$cap" --state /etc/passwd >"$TMP/out" 2>"$TMP/err" || rc=$?
	owner=$(stat -c %u /etc/passwd) me=$(id -u) path=/etc/passwd
fi
[ $rc = 3 ] || fail "another user's state file: exit $rc, want 3: $(cat "$TMP/err")"
[ "$(wc -l <"$TMP/err")" = 1 ] || fail "another user's state file: not one line: $(cat "$TMP/err")"
err_has "ibscan: error: state file '$path' belongs to uid $owner, not to this user (uid $me): refused"
out_has "IBSCAN UNKNOWN - the state file was refused"
echo "ok: a state file another user owns is refused with one line"

# A version 1 file (before the VL counters were kept) is read as it is and rewritten as version 2.
v1=$TMP/v1.state
sed -e '1s/.*/ibscan-state 1/' -e 's/ vl=[0-9,]*$//' "$st" >"$v1"
chmod 600 "$v1"
grep -q '^0x.* vl=' "$v1" && fail "the version 1 file holds vl="
run 0 health --replay "$cap" --state "$v1"
[ ! -s "$TMP/err" ] || fail "a version 1 file: $(cat "$TMP/err")"
head -1 "$v1" | grep -qx "ibscan-state 2" || fail "the version 1 file was not rewritten as version 2"
[ "$(grep -c '^0x.* vl=' "$v1")" = 1 ] || fail "the rewritten file lacks Hca3's VL counters"
echo "ok: a version 1 state file is read, and written back as version 2"
t_done
