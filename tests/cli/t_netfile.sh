#!/bin/bash
# ibnetdiscover topology files as operators have them (fabric/load/load_netfile.c):
# grouped (-g) files, the man page's own example, files saved with 2>&1, and
# other tools' outputs given by mistake (fabric/load/filekind.c). Every readable
# form must load to the same model as the plain file: `ibscan diff` between
# them says "no differences". tests/sim/t_netfile_forms.sh does the same with
# files the real ibnetdiscover writes on the simulator.
. "$(dirname "$0")/lib.sh"
nf=$ROOT/fixtures/netfiles
cap=$ROOT/fixtures/captures/net.2sw2path4hca.cap

same() { # A B: diff says no differences, exit 0
	run 0 diff "$1" "$2"
	out_has "no differences"
}

# One unrelated node: a diff against it lists every node and cable of the other file.
printf 'switchguid=0x7\nSwitch\t4 "S-0000000000000007"\t\t# "other" base port 0 lid 9 lmc 0\n' >"$TMP/one.net"

# The man page's example (grouped: "Non-Chassis Nodes") loads, whole.
run 1 diff "$nf/ibnetdiscover-man.net" "$TMP/one.net"
[ "$(grep -c '^node_removed' "$TMP/out")" = 6 ] || fail "man page example: want its 6 nodes"
[ "$(grep -c '^link_removed' "$TMP/out")" = 7 ] || fail "man page example: want its 7 cables"
grep -v '^Non-Chassis Nodes' "$nf/ibnetdiscover-man.net" >"$TMP/man-plain.net"
same "$TMP/man-plain.net" "$nf/ibnetdiscover-man.net"
# health --baseline reads it too (it was UNKNOWN "the baseline cannot be read").
rc=0
"$IBSCAN" health --baseline "$nf/ibnetdiscover-man.net" --replay "$cap" >"$TMP/out" 2>"$TMP/err" || rc=$?
grep -q "baseline cannot be read" "$TMP/out" "$TMP/err" && fail "health --baseline refused the man page example"
[ "$rc" = 2 ] || fail "health --baseline against another fabric: exit $rc, want 2 (its nodes missing)"

# -g of a chassis: "Chassis N (guid ...)", "# Chassis N" comments, "[15][ext 1]" external ports.
same "$nf/chassis-plain.net" "$nf/chassis-g.net"
# The external port number is not the port: a cable moved in the plain file is a difference.
sed 's/^\[15\]\t"H-0008f10403960558"/[16]\t"H-0008f10403960558"/; s/"S-0008f104004128b0"\[15\]/"S-0008f104004128b0"[16]/' \
	"$nf/chassis-plain.net" >"$TMP/moved.net"
run 1 diff "$TMP/moved.net" "$nf/chassis-g.net"
# Separator lines people put between saved sections are skipped.
sed 's/^Non-Chassis Nodes$/&\n--------------------/' "$nf/chassis-g.net" >"$TMP/sep.net"
same "$nf/chassis-plain.net" "$TMP/sep.net"

# Saved with 2>&1: ibnetdiscover's diagnostics are skipped and counted in one warning.
{
	echo 'ibwarn: [14944] sim_connect: attached as client 1 at node "S-0008f104004128a0"'
	echo 'src/query_smp.c:195; umad (DR path slid 0; dlid 0; 0,1,1,31 Attr 0x11:0) bad status 110; Connection timed out'
	cat "$nf/chassis-plain.net"
	echo './libibnetdisc/query_smp.c:186; umad (DR path slid 0; dlid 0; 0,32 Attr 0x11:0) bad status 110; Connection timed out'
	echo 'ibnetdiscover: iberror: failed: discover failed'
} >"$TMP/stderr.net"
same "$nf/chassis-plain.net" "$TMP/stderr.net"
err_has "$TMP/stderr.net: skipped 4 lines that are ibnetdiscover's diagnostics (its stderr, saved with 2>&1), first at line 1"
[ "$(grep -c 'skipped' "$TMP/err")" = 1 ] || fail "want one warning for the diagnostics, not one per line"
# A file of diagnostics alone says what happened.
head -2 "$TMP/stderr.net" >"$TMP/diags.net"
run 3 diff "$TMP/diags.net" "$nf/chassis-plain.net"
err_has "diags.net:1: no nodes, only ibnetdiscover's diagnostics: the walk that wrote it failed"

# Other tools' outputs and ibscan's own files, given to the wrong option: what the file is, and what reads it.
wrong() { # WANT_RC WANT_TEXT ARGS...
	local rc=$1 text=$2
	shift 2
	run "$rc" "$@"
	err_has "$text"
	[ "$(wc -l <"$TMP/err")" = 1 ] || fail "$*: want one line on stderr"
}
saved="save plain ibnetdiscover output for diff and health --baseline, or ibnetdiscover --cache FILE for --load-cache"
wrong 3 "is ibnetdiscover -p output (a list of ports), not an ibnetdiscover topology file; ibscan reads no such output: $saved" \
	diff "$nf/net.2sw2path4hca.ports" "$nf/chassis-plain.net"
wrong 3 "is iblinkinfo output, not an ibnetdiscover topology file; ibscan reads no such output: $saved" \
	diff "$nf/chassis-plain.net" "$nf/net.2sw2path4hca.iblinkinfo"
wrong 3 "is ibnetdiscover -l output (a list of nodes, without cables), not an ibnetdiscover topology file" \
	diff "$nf/net.2sw2path4hca.list" "$nf/chassis-plain.net"
wrong 3 "is an ibscan capture, not an ibnetdiscover topology file: --replay reads it" diff "$cap" "$nf/chassis-plain.net"
wrong 3 "is an ibnetdiscover topology file, not an ibnetdiscover cache: diff and health --baseline read it" \
	topology --load-cache "$nf/chassis-g.net"
wrong 3 "is ibscan topology JSON, not an ibnetdiscover cache: diff and health --baseline read it" \
	topology --load-cache "$ROOT/fixtures/baselines/net.2sw2path4hca.json"
wrong 3 "is an ibscan capture, not an ibnetdiscover cache: --replay reads it" topology --load-cache "$cap"
wrong 3 "is ibnetdiscover -p output (a list of ports), not an ibnetdiscover cache" \
	topology --load-cache "$nf/net.2sw2path4hca.ports"
wrong 3 "is an ibnetdiscover topology file, not an ibscan capture: diff and health --baseline read it" \
	topology --replay "$nf/chassis-plain.net"
wrong 3 "is ibscan topology JSON, not an ibscan capture: diff and health --baseline read it" \
	topology --replay "$ROOT/fixtures/baselines/net.2sw2path4hca.json"
wrong 3 "is an ibnetdiscover cache (ibnetdiscover --cache), not an ibscan capture: --load-cache reads it" \
	topology --replay "$ROOT/fixtures/caches/net.2sw2path4hca.cache"
wrong 3 "is iblinkinfo output, not an ibscan capture" topology --replay "$nf/net.2sw2path4hca.iblinkinfo"
"$IBSCAN" health --json --replay "$cap" >"$TMP/health.json" 2>/dev/null || true
wrong 3 "is ibscan JSON of another kind than a topology, not an ibscan capture" topology --replay "$TMP/health.json"
echo "netfile: grouped, man page, 2>&1 and wrong-option files all behave"
t_done
