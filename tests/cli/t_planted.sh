#!/bin/bash
# Files planted by another user where ibscan writes (issue 23, item 2). As
# root, in a sticky world-writable directory of the test's own (as /tmp is),
# uid 65534 plants symlinks to a root-owned file the test made, to a name
# that does not exist, a symlinked directory on the way, a regular file and
# a FIFO; every writer (-o of a view, health's prom file, capture index's
# FILE.idx, capture export, the report) refuses each one with one line naming
# the kernel's rule, and writes nothing anywhere. The rule's other half
# holds too: links of root, of the directory's owner, and in a directory
# that is not sticky, are followed; /proc/self/fd/N and /dev/stdout still
# write where they lead. The same for an unprivileged user against a second
# one. ibscan applies the rule whatever fs.protected_symlinks says (this
# machine may have it off: the test then shows that ibscan, not the kernel,
# refused). A replay index that another user forged beside root's capture
# is passed over with a warning (item 3).
. "$(dirname "$0")/lib.sh"
cap=$ROOT/fixtures/captures/net.2sw2path4hca.cap
NOBODY=65534 OTHER=65533

if [ "$(id -u)" != 0 ]; then
	# Planting as another user needs root (CI runs as root): this user's own links in a sticky directory.
	echo "t_planted: not root: only this user's own links in a sticky directory are checked" >&2
	d=$TMP/pub
	mkdir "$d" && chmod 1777 "$d"
	echo old >"$TMP/target"
	ln -s "$TMP/target" "$d/mine"
	run 0 nodes --replay "$cap" -o "$d/mine"
	[ -L "$d/mine" ] && grep -q '^nodes:' "$TMP/target" || fail "this user's own link was not followed"
	echo "ok: this user's own links are followed (the planted cases need root)"
	t_done
	exit 0
fi

chmod 711 "$TMP"
# What another user runs and reads is a copy it can reach, wherever the checkout is.
cap=$(for_others "$cap")
IBSCAN=$(for_others "$IBSCAN")
forgeidx=$(for_others "$ROOT/tests/cli/forgeidx.py")
pub=$TMP/pub
mkdir "$pub"
chmod 1777 "$pub"
as_nobody() { setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "$@"; }
# The system's python: one in root's home (pyenv) is not for uid 65534.
PY=$(command -v /usr/bin/python3 || command -v python3)
as_other() { setpriv --reuid=$OTHER --regid=$OTHER --clear-groups "$@"; }
echo "root's own file" >"$TMP/victim"
chmod 644 "$TMP/victim"
mkdir "$TMP/realdir"
victim_sum=$(stat -c %i:%s:%Y "$TMP/victim" && md5sum <"$TMP/victim")

# untouched: the victim is as it was, nothing was created beside it or in pub but what was planted.
untouched() {
	[ "$(stat -c %i:%s:%Y "$TMP/victim" && md5sum <"$TMP/victim")" = "$victim_sum" ] ||
		fail "$1: the root-owned file the link points at was written"
	[ ! -e "$TMP/created" ] || fail "$1: a file was created where a dangling link points"
	[ -z "$(ls -A "$TMP/realdir")" ] || fail "$1: a file was created through a linked directory: $(ls -A "$TMP/realdir")"
	[ -z "$(cd "$pub" && ls -A | grep -vxF -f <(printf '%s\n' "${planted[@]}"))" ] ||
		fail "$1: left in $pub: $(ls -A "$pub")"
}
# refused NAME RULE CMD...: exit 3 (health: 3 UNKNOWN too), one line naming the rule, nothing written.
refused() {
	local name=$1 rule=$2
	shift 2
	run 3 "$@"
	grep -qF "ibscan: error: refusing to write '$pub/$name': " "$TMP/err" && grep -qF "(the kernel's $rule rule)" "$TMP/err" ||
		fail "ibscan $*: stderr is '$(cat "$TMP/err")', want a refusal of $pub/$name naming $rule"
	[ "$(grep -c 'refusing to write' "$TMP/err")" = 1 ] || fail "ibscan $*: not one line: $(cat "$TMP/err")"
	untouched "ibscan $*"
}

as_nobody ln -s "$TMP/victim" "$pub/ibscan.json"
as_nobody ln -s "$TMP/created" "$pub/dangling.json"
as_nobody ln -s "$TMP/realdir" "$pub/dir"
as_nobody ln -s "$TMP/victim" "$pub/h.prom"
as_nobody ln -s "$TMP/victim" "$pub/report.html"
as_nobody ln -s "$TMP/victim" "$pub/x.pcap"
as_nobody ln -s /proc/self/fd/1 "$pub/fd1"
cp "$cap" "$pub/x.cap" # root's capture; nobody plants its index name
as_nobody ln -s "$TMP/victim" "$pub/x.cap.idx"
ln -s ibscan.json "$pub/roots-link" # root's own link, to nobody's link: the second is not followed
planted=(ibscan.json dangling.json dir h.prom report.html x.pcap fd1 x.cap x.cap.idx roots-link)

refused ibscan.json fs.protected_symlinks topology --json --replay "$cap" -o "$pub/ibscan.json"
refused dangling.json fs.protected_symlinks nodes --replay "$cap" -o "$pub/dangling.json"
refused dir/x fs.protected_symlinks nodes --replay "$cap" -o "$pub/dir/x"
err_has "the symlink '$pub/dir' on its way belongs to uid $NOBODY"
refused roots-link fs.protected_symlinks nodes --replay "$cap" -o "$pub/roots-link"
err_has "the symlink '$pub/ibscan.json' on its way belongs to uid $NOBODY"
refused h.prom fs.protected_symlinks health --format prom --replay "$ROOT/fixtures/captures/counters.cap" -o "$pub/h.prom"
refused report.html fs.protected_symlinks report --replay "$cap" -o "$pub/report.html"
refused x.pcap fs.protected_symlinks capture export "$cap" -o "$pub/x.pcap"
refused x.cap.idx fs.protected_symlinks capture index "$pub/x.cap"
# A magic link behind a planted one: the planted one decides, and is not followed.
refused fd1 fs.protected_symlinks nodes --replay "$cap" -o "$pub/fd1"

# A regular file or FIFO of another user there: not replaced, not written (protected_regular/fifos).
echo "nobody's" | as_nobody tee "$pub/theirs.prom" >/dev/null
as_nobody mkfifo "$pub/fifo"
planted+=(theirs.prom fifo)
refused theirs.prom fs.protected_regular health --format prom --replay "$cap" -o "$pub/theirs.prom"
[ "$(stat -c %U "$pub/theirs.prom")" = nobody ] && [ "$(cat "$pub/theirs.prom")" = "nobody's" ] ||
	fail "another user's file in the sticky directory was replaced"
refused fifo fs.protected_fifos nodes --replay "$cap" -o "$pub/fifo"

# Where the kernel follows, ibscan follows: root's own link there, a link of the
# directory's owner, a link in a directory that is not sticky.
ln -s "$TMP/mine" "$pub/mine"
run 0 nodes --replay "$cap" -o "$pub/mine"
[ -L "$pub/mine" ] && grep -q '^nodes:' "$TMP/mine" || fail "root's own link in the sticky directory was not followed"
mkdir "$TMP/nobodys" && chown $NOBODY:$NOBODY "$TMP/nobodys" && chmod 1777 "$TMP/nobodys"
as_nobody ln -s "$TMP/by-owner" "$TMP/nobodys/link"
run 0 nodes --replay "$cap" -o "$TMP/nobodys/link"
grep -q '^nodes:' "$TMP/by-owner" || fail "a link of the sticky directory's owner was not followed"
mkdir "$TMP/plain" && chown $NOBODY:$NOBODY "$TMP/plain"
as_nobody ln -s "$TMP/by-plain" "$TMP/plain/link"
run 0 nodes --replay "$cap" -o "$TMP/plain/link"
grep -q '^nodes:' "$TMP/by-plain" || fail "a link in a directory that is not sticky was not followed"
# Magic links: this process's descriptor, as the shell set it up, and /dev/stdout (to /proc/self/fd/1).
"$IBSCAN" nodes --replay "$cap" -o /proc/self/fd/3 3>"$pub/by-fd" 2>"$TMP/err" || fail "-o /proc/self/fd/3: $(cat "$TMP/err")"
grep -q '^nodes:' "$pub/by-fd" || fail "-o /proc/self/fd/3 did not write the shell's file"
"$IBSCAN" nodes --replay "$cap" -o /dev/stdout 2>"$TMP/err" | grep -q '^nodes:' || fail "-o /dev/stdout: $(cat "$TMP/err")"
rm -f "$pub/by-fd" "$pub/mine"

# An unprivileged user is kept from another one's links the same way, and follows the directory owner's.
echo "nobody's own" | as_nobody tee "$TMP/nobodys/file" >/dev/null
as_other ln -s "$TMP/nobodys/file" "$pub/other"
planted+=(other)
rc=0
as_nobody "$IBSCAN" nodes --replay "$cap" -o "$pub/other" >"$TMP/out" 2>"$TMP/err" || rc=$?
[ $rc = 3 ] && grep -qF "refusing to write '$pub/other': it is a symlink that belongs to uid $OTHER, not to this user (uid $NOBODY)" "$TMP/err" ||
	fail "nobody followed uid $OTHER's link: exit $rc, $(cat "$TMP/err")"
[ "$(cat "$TMP/nobodys/file")" = "nobody's own" ] || fail "nobody wrote through uid $OTHER's link"
ln -s "$TMP/nobodys/file" "$pub/from-root"
as_nobody "$IBSCAN" nodes --replay "$cap" -o "$pub/from-root" 2>"$TMP/err" || fail "nobody did not follow the directory owner's link: $(cat "$TMP/err")"
grep -q '^nodes:' "$TMP/nobodys/file" || fail "nobody did not write through the directory owner's link"
rm -f "$pub/from-root"
# A replay index planted beside root's capture (item 3): a forged one that
# renames a switch is passed over, saying why; the capture's owner's own is believed.
cp "$cap" "$pub/r.cap"
"$IBSCAN" nodes --replay "$pub/r.cap" >"$TMP/r.text" || fail "replay of r.cap"
"$IBSCAN" capture index "$pub/r.cap" -o "$TMP/r.good.idx" || fail "capture index of r.cap"
as_nobody "$PY" "$forgeidx" "$TMP/r.good.idx" "$pub/r.cap" -o "$pub/r.cap.idx" --rename Switch1 EVILSW1
planted+=(r.cap r.cap.idx)
run 0 nodes --replay "$pub/r.cap"
err_has "ibscan: warning: $pub/r.cap.idx: not trusted: it belongs to uid $NOBODY, neither this user (uid 0) nor the capture's owner (uid 0); reading the capture itself"
cmp -s "$TMP/out" "$TMP/r.text" || fail "a forged index planted by uid $NOBODY was believed: $(grep -c EVIL "$TMP/out") EVIL"
cp "$pub/r.cap" "$TMP/n.cap"
mkdir "$TMP/nobodys/caps" && chown $NOBODY:$NOBODY "$TMP/nobodys/caps"
as_nobody cp "$TMP/n.cap" "$TMP/nobodys/caps/n.cap"
as_nobody "$PY" "$forgeidx" "$TMP/r.good.idx" "$TMP/nobodys/caps/n.cap" -o "$TMP/nobodys/caps/n.cap.idx" --rename Switch1 EVILSW1
run 0 nodes --replay "$TMP/nobodys/caps/n.cap"
out_has '"EVILSW1"'
[ ! -s "$TMP/err" ] || fail "the capture's owner's own index was not believed: $(cat "$TMP/err")"
untouched "the end"
echo "ok: links, files and FIFOs planted by another user are refused, naming the rule; the kernel's other cases are followed"
t_done
