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

# The index answers alone: one whose answers name a switch otherwise
# (forged from the documented layout, resealed) is what replay says.
forge() { python3 "$ROOT/tests/cli/forgeidx.py" "$@"; }
cp "$cap" "$TMP/orig.cap"
forge "$cap.idx" "$cap" -o "$TMP/renamed.idx" --rename leaf01 LEAFXX
cp "$cap.idx" "$TMP/good.idx"
cp "$TMP/renamed.idx" "$cap.idx"
run 0 nodes --replay "$cap"
out_has '"MF0;LEAFXX:MSB7800/U1"'
[ ! -s "$TMP/err" ] || fail "the renamed index was not believed: $(cat "$TMP/err")"
cp "$TMP/good.idx" "$cap.idx"

# The capture's bytes are sampled: the text overwritten in place, its size,
# inode and time kept (cp -p, rsync --inplace -t), makes the index stale.
touch -r "$cap" "$TMP/stamp"
size=$(stat -c %s "$cap")
head -c "$size" /dev/zero | tr '\0' '#' | dd of="$cap" conv=notrunc status=none
touch -r "$TMP/stamp" "$cap"
run 3 topology --replay "$cap"
err_has "$cap.idx: stale: the capture's bytes changed after the index was written (its size, inode and time did not); reading the capture itself"
err_has "$cap:1: line too long"

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

# An index of another capture, copied beside this one, is stale; with its
# header made to name this capture, its checksum no longer holds (it
# covers the header): an older ibscan believed it.
cp "$ROOT/fixtures/captures/dead-switch.cap" "$TMP/d.cap"
run 0 capture index "$TMP/d.cap" -o "$cap.idx"
run 0 topology --replay "$cap"
err_has "stale"
cmp -s "$TMP/out" "$TMP/text.out" || fail "foreign index: the text replay differs"
forge "$cap.idx" "$cap" -o "$cap.idx" --no-seal
run 0 topology --replay "$cap"
err_has "$cap.idx: checksum mismatch: the index is damaged; reading the capture itself"
cmp -s "$TMP/out" "$TMP/text.out" || fail "foreign index, header patched: the text replay differs"
# One that its group or others may write is not believed, whoever owns it;
# capture index makes none, whatever the umask.
(umask 0 && "$IBSCAN" capture index "$cap") || fail "capture index under umask 0"
[ "$(stat -c %a "$cap.idx")" = 644 ] || fail "capture index under umask 0 made a $(stat -c %a "$cap.idx") index, want 644"
chmod 664 "$cap.idx"
run 0 topology --replay "$cap"
err_has "$cap.idx: not trusted: its group or others may write it (mode 0664); reading the capture itself"
cmp -s "$TMP/out" "$TMP/text.out" || fail "group-writable index: the text replay differs"
# An index of the previous layout (2) is passed over, naming its version.
python3 - "$cap.idx" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read()); struct.pack_into("<I", b, 8, 2); open(sys.argv[1], "wb").write(b)
PY
chmod 644 "$cap.idx"
run 0 topology --replay "$cap"
err_has "$cap.idx: index version 2 is not supported (this ibscan reads version 3)"
# A FIFO where the index would be (planted beside a capture handed over) is passed over like
# any other file that is not one, at once: its open() blocked until the watchdog.
rm "$cap.idx"
mkfifo "$cap.idx"
rc=0
timeout 20 "$IBSCAN" topology --replay "$cap" >"$TMP/out" 2>"$TMP/err" || rc=$?
[ $rc = 0 ] || { cat "$TMP/err"; fail "a FIFO as the index: exit $rc, want 0"; }
err_has "$cap.idx: not a regular file; reading the capture itself"
cmp -s "$TMP/out" "$TMP/text.out" || fail "FIFO index: the text replay differs"
rm "$cap.idx"

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
# Cut short after its checks, while replay reads it: the read comes back short.
run 0 capture index "$cap"
rc=0
REWIDX=cut LD_PRELOAD=$TMP/cutidx.so "${IBSCAN_PRELOAD_BIN:-$ROOT/ibscan}" topology --replay "$cap" >"$TMP/out" 2>"$TMP/err" || rc=$?
[ "$rc" = 3 ] || fail "index cut short after its checks: exit $rc, want 3 ($(cat "$TMP/err"))"
err_has "ibscan: error: $cap.idx: the replay index changed while in use: cut short (nothing at byte "
[ ! -s "$cap.idx" ] || fail "the preload did not cut the index"

# Rewritten in place after it passed its checks (the same preload, told to
# write into the mapped file when replay starts): every length, offset and link is checked
# again where replay reads it, and a damaged index ends the run with a
# message and exit 3, never a read or write past a buffer. Under the ASan
# build (make check-cli) any overflow fails the run. Offsets come from the
# index's own header: attempts at x_off (header byte 104), 32 bytes each.
u64() { od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '; }
rewritten() { # WHAT SPEC: replay while SPEC is written into the index; want exit 3 and the message
	local rc=0
	run 0 capture index "$cap"
	cp "$cap.idx" "$TMP/before.idx"
	REWIDX=$2 ASAN_OPTIONS=verify_asan_link_order=0 LD_PRELOAD=$TMP/cutidx.so "$IBSCAN" topology --replay "$cap" \
		>"$TMP/out" 2>"$TMP/err" || rc=$?
	! cmp -s "$cap.idx" "$TMP/before.idx" || fail "$1: the preload did not rewrite the index"
	[ "$rc" = 3 ] || { cat "$TMP/err" >&2; fail "$1: exit $rc, want 3"; }
	! grep -q Sanitizer "$TMP/err" || { cat "$TMP/err" >&2; fail "$1: a memory error"; }
	err_has "ibscan: error: $cap.idx: the replay index changed while in use: $3"
}
run 0 capture index "$cap"
x0=$(u64 "$cap.idx" 104)
rewritten "a 64 KB response length" "$((x0 + 26))=ffff" "attempt 0 is inconsistent"
rewritten "more stored bytes than the length" "$((x0 + 30))=0101" "attempt 0 is inconsistent"
rewritten "a response offset past the end" "$((x0 + 8))=00000000ffffffff" "attempt 0 is inconsistent"
rewritten "a chain link beyond the attempts" "$((x0 + 16))=feffffff" "attempt 0 is inconsistent"
rewritten "a chain link backwards" "$((x0 + 32 + 20))=05000000" "attempt 1 is inconsistent"
rewritten "an unknown outcome" "$((x0 + 28))=07" "attempt 0 is inconsistent"
# A table slot naming an attempt beyond the count: attempt 0's key changed
# so that the table is asked, and its slot rewritten.
slot=$(python3 - "$cap.idx" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
slots, tab = struct.unpack_from("<Q", b, 80)[0], struct.unpack_from("<Q", b, 112)[0]
for s in range(slots):
    key, first, count = struct.unpack_from("<QII", b, tab + 16 * s)
    if first == 0:
        print(tab + 16 * s + 8)
PY
)
[ -n "$slot" ] || fail "no table slot names attempt 0"
rewritten "a table slot beyond the attempts" "$x0=0000000000000000,$slot=ffffff7f" "table slot"
# The header is copied when the index is checked: a count changed later is not believed.
run 0 capture index "$cap"
cp "$cap.idx" "$TMP/before.idx"
REWIDX="72=ffffff7f" ASAN_OPTIONS=verify_asan_link_order=0 LD_PRELOAD=$TMP/cutidx.so "$IBSCAN" topology --replay "$cap" \
	>"$TMP/out" 2>"$TMP/err" || fail "header rewritten: exit $? ($(cat "$TMP/err"))"
! cmp -s "$cap.idx" "$TMP/before.idx" || fail "header rewritten: the preload did not rewrite the index"
cmp -s "$TMP/out" "$TMP/text.out" || fail "header rewritten: the replay differs"

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
t_done
