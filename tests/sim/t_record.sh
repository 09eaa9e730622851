#!/bin/bash
# --record FILE writes as -o does (issue 23): through the same code, so a
# symlink another user planted in a sticky world-writable directory is not
# followed (as root, against a root-owned file the test made).
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
sim_stop
