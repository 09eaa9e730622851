#!/bin/bash
# `ibscan capture index`: replay through the index gives the output of the
# text; the index is really what answers; a stale, damaged or foreign index
# is passed over with a warning naming why; bad arguments are usage errors.
. "$(dirname "$0")/lib.sh"
cp "$ROOT/fixtures/captures/fattree2-small.cap" "$TMP/f.cap"
cap=$TMP/f.cap

run 0 topology --replay "$cap"
cp "$TMP/out" "$TMP/text.out"
run 0 capture index "$cap"
[ -s "$cap.idx" ] || fail "no $cap.idx written"
[ "$(head -c 7 "$cap.idx")" = IBSCIDX ] || fail "index lacks its magic"
for view in topology nodes links; do
	run 0 "$view" --replay "$cap"
	[ ! -s "$TMP/err" ] || fail "$view: a fresh index should replay silently: $(cat "$TMP/err")"
	cp "$TMP/out" "$TMP/idx.out"
	mv "$cap.idx" "$TMP/aside.idx"
	run 0 "$view" --replay "$cap"
	mv "$TMP/aside.idx" "$cap.idx"
	cmp -s "$TMP/out" "$TMP/idx.out" || fail "$view: replay through the index differs from the text"
done

# The index answers alone: the text overwritten in place (same inode, size
# and time) still replays the fabric.
cp "$cap" "$TMP/orig.cap"
touch -r "$cap" "$TMP/stamp"
size=$(stat -c %s "$cap")
head -c "$size" /dev/zero | tr '\0' '#' | dd of="$cap" conv=notrunc status=none
touch -r "$TMP/stamp" "$cap"
run 0 topology --replay "$cap"
cmp -s "$TMP/out" "$TMP/text.out" || fail "the index did not answer alone"

# Any change to the capture's time makes the index stale: the text is read.
touch "$cap"
run 3 topology --replay "$cap"
err_has "$cap.idx: stale: the capture changed after the index was written; reading the capture itself"
err_has "$cap:1: line too long"
cp "$TMP/orig.cap" "$cap"
run 0 topology --replay "$cap"
err_has "stale"
cmp -s "$TMP/out" "$TMP/text.out" || fail "stale index: the text replay differs"

# Damaged: one byte flipped near the end, then cut short, then not an index.
run 0 capture index "$cap"
printf '\x5a' | dd of="$cap.idx" bs=1 seek=$(($(stat -c %s "$cap.idx") - 5)) conv=notrunc status=none
run 0 topology --replay "$cap"
err_has "checksum mismatch: the index is damaged; reading the capture itself"
cmp -s "$TMP/out" "$TMP/text.out" || fail "damaged index: the text replay differs"
run 0 capture index "$cap"
truncate -s -16 "$cap.idx"
run 0 nodes --replay "$cap"
err_has "truncated or extended"
cp "$ROOT/fixtures/captures/net.2sw2path4hca.cap" "$cap.idx"
run 0 nodes --replay "$cap"
err_has "not an ibscan replay index"

# An index of another capture, copied beside this one, is stale.
cp "$ROOT/fixtures/captures/dead-switch.cap" "$TMP/d.cap"
run 0 capture index "$TMP/d.cap" -o "$cap.idx"
run 0 topology --replay "$cap"
err_has "stale"
cmp -s "$TMP/out" "$TMP/text.out" || fail "foreign index: the text replay differs"

# Cut short in place while mapped (a preload truncates it after mmap): a
# message naming the index and exit 3, not a bare SIGBUS. The release build:
# ASan refuses foreign preloads first in line.
cc -shared -fPIC -o "$TMP/cutidx.so" "$ROOT/tests/cli/preload/cutidx.c" -ldl || fail "cannot build the preload"
run 0 capture index "$cap"
rc=0
LD_PRELOAD=$TMP/cutidx.so "${IBSCAN_PRELOAD_BIN:-$ROOT/ibscan}" topology --replay "$cap" >"$TMP/out" 2>"$TMP/err" || rc=$?
[ "$rc" = 3 ] || fail "index cut short: exit $rc, want 3 ($(cat "$TMP/err"))"
err_has "ibscan: error: $cap.idx: the replay index was cut short while in use"
[ ! -s "$cap.idx" ] || fail "the preload did not cut the index"

# -o elsewhere; errors.
run 0 capture index "$cap" -o "$TMP/other.idx"
[ -s "$TMP/other.idx" ] || fail "-o: nothing written"
run 2 capture index "$cap" -o -
err_has "index writes a binary file"
run 2 capture index -
err_has "index needs a capture file"
run 2 capture index "$cap" --json
err_has "--format is for info only"
run 3 capture index "$TMP/missing.cap"
err_has "cannot read capture '$TMP/missing.cap'"
printf 'ibscan-capture 1\nnonsense\n' >"$TMP/bad.cap"
run 3 capture index "$TMP/bad.cap"
err_has "$TMP/bad.cap:2:"
[ ! -e "$TMP/bad.cap.idx" ] || fail "an index was written for a bad capture"
run 3 capture index "$cap" -o "$TMP/nodir/x.idx"
err_has "ibscan: error: cannot write '$TMP/nodir/x.idx': No such file or directory"
echo "capture index: ok"
