#!/bin/bash
# The forms of topology file the real ibnetdiscover writes load to one model
# (fabric/load/load_netfile.c): plain, -g (here a real chassis: the director
# fabric's five ASICs share a system image GUID, and two servers have two
# adapters each, so ibnetdiscover groups them as chassis), -f, and output
# saved with 2>&1 while a switch drops every MAD (diagnostics on stderr).
# `ibscan diff` between any two says "no differences", and ibscan's own
# walk agrees with them. -p, -l and iblinkinfo outputs are refused, saying
# what they are. tests/cli/t_netfile.sh covers what ibsim cannot make.
. "$(dirname "$0")/lib.sh"
sim_start "$FABRICS/director"
sim_run ibnetdiscover >"$TMP/plain.net" 2>/dev/null || fail "ibnetdiscover"
sim_run ibnetdiscover -g >"$TMP/g.net" 2>/dev/null || fail "ibnetdiscover -g"
sim_run ibnetdiscover -f >"$TMP/f.net" 2>/dev/null || fail "ibnetdiscover -f"
sim_run ibnetdiscover -p >"$TMP/p.txt" 2>/dev/null || fail "ibnetdiscover -p"
sim_run ibnetdiscover -l >"$TMP/l.txt" 2>/dev/null || fail "ibnetdiscover -l"
sim_run iblinkinfo >"$TMP/li.txt" 2>/dev/null || fail "iblinkinfo"
ibs topology --json -o "$TMP/walk.json" || fail "ibscan topology"
grep -q '^Chassis 1 (guid 0x' "$TMP/g.net" || fail "ibnetdiscover -g wrote no chassis: the test proves nothing"
grep -q ' s=[0-9]* w=[0-9]* v=[0-9]*$' "$TMP/f.net" || fail "ibnetdiscover -f wrote no s= w= v="

same() { # A B
	"$IBSCAN" diff "$1" "$2" >"$TMP/out" 2>"$TMP/err" || { cat "$TMP/out" "$TMP/err" >&2; fail "diff $(basename "$1") $(basename "$2")"; }
	grep -q '^no differences$' "$TMP/out" || fail "diff $(basename "$1") $(basename "$2"): not 'no differences'"
}
same "$TMP/plain.net" "$TMP/g.net"
same "$TMP/plain.net" "$TMP/f.net"
same "$TMP/walk.json" "$TMP/g.net"
ok "ibnetdiscover, -g ($(grep -c '^Chassis ' "$TMP/g.net") chassis), -f and ibscan's walk: one model"
rc=0
ibs health --baseline "$TMP/g.net" >"$TMP/out" 2>"$TMP/err" || rc=$?
# WARNING at most (the fabric's factory-default descriptions), and no drift from the -g file.
[ $rc -le 1 ] && head -1 "$TMP/out" | grep -q ' nodes_missing=0 nodes_new=0 cables_moved=0 rates_changed=0 ' ||
	{ cat "$TMP/out" "$TMP/err" >&2; fail "health --baseline on the -g file: exit $rc"; }
ok "health --baseline reads the -g file: no drift"

for f in p.txt:"ibnetdiscover -p output" l.txt:"ibnetdiscover -l output" li.txt:"iblinkinfo output"; do
	rc=0
	"$IBSCAN" diff "$TMP/${f%%:*}" "$TMP/plain.net" >"$TMP/out" 2>"$TMP/err" || rc=$?
	[ $rc = 3 ] && grep -q "is ${f#*:}" "$TMP/err" && grep -q "save plain ibnetdiscover output" "$TMP/err" ||
		{ cat "$TMP/err" >&2; fail "${f#*:}: exit $rc, want 3 and what it is"; }
done
ok "-p, -l and iblinkinfo outputs are refused, each named"

# 2>&1 while a switch drops every MAD: the same file as its stdout alone, and one warning.
sim_console 'Error "S-ibcore1-S02" 100' >/dev/null
sim_run ibnetdiscover >"$TMP/dead.out" 2>"$TMP/dead.err" || true
sim_run ibnetdiscover >"$TMP/dead.both" 2>&1 || true
n=$(wc -l <"$TMP/dead.err")
[ "$n" -ge 1 ] || fail "ibnetdiscover said nothing on stderr: the test proves nothing"
same "$TMP/dead.out" "$TMP/dead.both"
grep -q "skipped $n lines* that .* ibnetdiscover's diagnostics (its stderr, saved with 2>&1), first at line 1$" "$TMP/err" ||
	{ cat "$TMP/err" >&2; fail "want one warning counting the $n diagnostics"; }
ok "2>&1: $n diagnostic lines skipped, counted in one warning, same model as stdout alone"
t_done
