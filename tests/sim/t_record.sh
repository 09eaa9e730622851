#!/bin/bash
# --record FILE writes as -o does (issue 23): through the same code, so a
# symlink another user planted in a sticky world-writable directory is not
# followed (as root, against a root-owned file the test made), and into a
# new file renamed over FILE when the run ends (item 7): the previous
# capture stays whole for its readers while the run lasts, a run that ends
# by itself (its deadline, the transport lost) puts its capture in place
# with an end record, SIGTERM puts it in place as far as it got, without
# one (capture info: cut short), and SIGKILL leaves the previous one.
. "$(dirname "$0")/lib.sh"
NOBODY=65534
[ "$(id -u)" = 0 ] || fail "t_record plants files as another user: run it as root (CI does)"
chmod 711 "$TMP"
pub=$TMP/pub
mkdir "$pub"
chmod 1777 "$pub"
echo "root's own file" >"$TMP/victim"
sum=$(md5sum <"$TMP/victim")

sim_start "$FABRICS/net.2sw2path4hca"

# A link planted by uid 65534: refused before the walk, naming the rule; nothing written through it.
setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups ln -s "$TMP/victim" "$pub/run.cap"
setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups ln -s "$TMP/made" "$pub/new.cap"
for name in run.cap new.cap; do
	expect_rc 3 ibs nodes --record "$pub/$name"
	grep -qF "ibscan: error: refusing to write '$pub/$name': it is a symlink that belongs to uid $NOBODY" "$TMP/err" &&
		grep -qF "(the kernel's fs.protected_symlinks rule)" "$TMP/err" || fail "--record $name: $(cat "$TMP/err")"
done
[ "$(md5sum <"$TMP/victim")" = "$sum" ] || fail "--record wrote through a planted link"
[ ! -e "$TMP/made" ] || fail "--record created the file a planted link names"
[ "$(ls -A "$pub" | tr '\n' ' ')" = "new.cap run.cap " ] || fail "left in $pub: $(ls -A "$pub")"
# root's own link there is followed, as the kernel would.
ln -s "$TMP/mine.cap" "$pub/mine.cap"
expect_rc 0 ibs nodes --record "$pub/mine.cap"
[ -L "$pub/mine.cap" ] && head -1 "$TMP/mine.cap" | grep -q '^ibscan-capture ' || fail "root's own link was not followed"
ok "--record: a planted link is refused naming the rule; root's own link is followed"

# A whole recording ends with its end record; capture info says complete.
"$IBSCAN" capture info --json "$TMP/mine.cap" >"$TMP/info.json" || fail "capture info"
jq -e '.format == 2 and .complete == true' "$TMP/info.json" >/dev/null || fail "a whole capture: $(jq -c '{format,complete}' "$TMP/info.json")"
[ "$(tail -1 "$TMP/mine.cap")" = end ] || fail "a whole capture does not end with its end record"
sim_stop

sim_start "$FABRICS/fattree3"
# The run recorded: a walk of 612 nodes, a first counter reading, 2 s asleep, a second one.
# Whenever the capture is first seen with 300 exchanges, the run has at least the 2 s of its
# interval to go (and the test holds it with SIGSTOP while it looks): no race with its end.
run=(counters --interval 2 --window 1 --json)
full=$TMP/full.cap
ibs "${run[@]}" --record "$full" >/dev/null || fail "the first recording"
grep -q '^end$' "$full" || fail "no end record"
sum=$(md5sum <"$full") ino=$(stat -c %i "$full")
# same_as_first PATH: the inode and bytes of PATH are still the first recording's.
same_as_first() { [ "$(stat -c %i "$1")" = "$ino" ] && [ "$(md5sum <"$1")" = "$sum" ]; }

# Recording again over it: while the run lasts, the first capture is whole, and a reader that
# opened it reads it whole after the new one is in place (it used to be cut to nothing at the
# start, and a reader that had it mapped died by SIGBUS).
cp "$full" "$TMP/again.cap"
ino=$(stat -c %i "$TMP/again.cap")
exec 7<"$TMP/again.cap"
ibs "${run[@]}" --record "$TMP/again.cap" -o "$TMP/again.json" 2>"$TMP/again.err" &
pid=$!
sim_poll 20 mid_walk $pid 300 || fail "the run did not get going"
kill -STOP "$MID_WALK_PID" # held while the previous capture is looked at
same_as_first "$TMP/again.cap" || fail "the previous capture changed while the new one was recorded"
kill -CONT "$MID_WALK_PID"
wait $pid || fail "the second recording exited $?"
[ "$(stat -c %i "$TMP/again.cap")" != "$ino" ] && grep -q '^end$' "$TMP/again.cap" || fail "the new capture is not in place"
[ "$(md5sum <&7)" = "$sum" ] || fail "a reader of the previous capture did not read it whole"
exec 7<&-
ok "a recording replaces the previous capture when it ends; until then, and for its readers, the previous one is whole"

# SIGTERM: the capture as far as it got, whole records, no end record; capture info and
# replay say it was cut short.
cp "$full" "$TMP/cut.cap"
ibs "${run[@]}" --record "$TMP/cut.cap" -o "$TMP/cut.json" 2>"$TMP/cut.err" &
pid=$!
sim_poll 20 mid_walk $pid 300 || fail "the run did not get going"
kill -STOP "$MID_WALK_PID"
kill -TERM "$MID_WALK_PID"
kill -CONT "$MID_WALK_PID"
rc=0
wait $pid || rc=$?
[ $rc = 143 ] || fail "SIGTERM: exit $rc, want 143"
! grep -q '^end$' "$TMP/cut.cap" && [ "$(tail -c 1 "$TMP/cut.cap" | od -An -c | tr -d ' ')" = '\n' ] ||
	fail "SIGTERM: the capture kept is not whole records without an end record"
n=$(grep -c '^x ' "$TMP/cut.cap")
[ "$n" -ge 300 ] && [ "$n" -lt "$(grep -c '^x ' "$full")" ] || fail "SIGTERM: $n exchanges kept"
expect_rc 0 "$IBSCAN" capture info "$TMP/cut.cap"
grep -q '^format 2: cut short (no end record' "$TMP/out" || fail "capture info of a capture cut short: $(sed -n 3p "$TMP/out")"
"$IBSCAN" capture info --json "$TMP/cut.cap" | jq -e '.complete == false' >/dev/null || fail "capture info --json: complete is not false"
rc=0
"$IBSCAN" nodes --replay "$TMP/cut.cap" >"$TMP/out" 2>"$TMP/err" || rc=$?
[ $rc = 0 ] || [ $rc = 3 ] || fail "replay of a capture cut short: exit $rc"
grep -q "cut.cap: the recording was cut short (no end record)" "$TMP/err" || fail "replay of a capture cut short: $(cat "$TMP/err")"
ok "SIGTERM: $n exchanges kept in whole records, capture info and replay say it was cut short"

# SIGKILL cannot be caught: the previous capture stays as it was, and nothing is left beside it.
cp "$full" "$TMP/killed.cap"
ino=$(stat -c %i "$TMP/killed.cap")
: >"$TMP/killed.err"
before=$(ls -A "$TMP" | sort)
ibs "${run[@]}" --record "$TMP/killed.cap" -o "$TMP/killed.json" 2>"$TMP/killed.err" &
pid=$!
sim_poll 20 mid_walk $pid 300 || fail "the run did not get going"
kill -KILL "$MID_WALK_PID"
wait $pid || true
same_as_first "$TMP/killed.cap" || fail "SIGKILL: the previous capture changed"
[ "$(ls -A "$TMP" | sort)" = "$before" ] ||
	fail "SIGKILL: left behind: $(comm -13 <(echo "$before") <(ls -A "$TMP" | sort))"
ok "SIGKILL: the previous capture is kept whole, nothing is left beside it"

# The transport lost: the run ends by itself, and its capture goes in place with its end
# record (it does not record why the run stopped).
ibs "${run[@]}" --deadline 20 --record "$TMP/lost.cap" -o "$TMP/lost.json" 2>"$TMP/lost.err" &
pid=$!
sim_poll 20 mid_walk $pid 300 || fail "the run did not get going"
kill -STOP "$MID_WALK_PID"
sim_kill_ibsim
kill -CONT "$MID_WALK_PID"
rc=0
wait $pid || rc=$?
[ $rc = 3 ] || fail "transport lost: exit $rc, want 3"
grep -q '^end$' "$TMP/lost.cap" || fail "transport lost: the capture has no end record"
"$IBSCAN" capture info --json "$TMP/lost.cap" | jq -e '.complete == true' >/dev/null || fail "transport lost: not complete"
"$IBSCAN" nodes --replay "$TMP/lost.cap" >"$TMP/out" 2>"$TMP/err" || [ $? = 3 ] || fail "transport lost: its capture does not replay"
! grep -q "cut short" "$TMP/err" || fail "transport lost: the replay says cut short"
ok "transport lost: the capture is in place with its end record"
sim_stop
t_done
