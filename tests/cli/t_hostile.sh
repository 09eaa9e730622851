#!/bin/bash
# Hostile strings from every offline source (a capture's header lines and
# NodeDescriptions, a JSON and a netfile baseline, a node-name map) through
# every view and format: text has no ESC, BEL or C1 byte and is printable
# UTF-8, JSON passes jq, Prometheus passes promtool, DOT passes dot, the
# netfile reloads and fits ibsim's lines, Slurm has exactly one SwitchName per
# switch even for names crafted to collide round after round. The live walk,
# an ibnetdiscover cache and ibsim loading the netfile: tests/sim/t_hostile.sh.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/hostile.sh"
caps=$ROOT/fixtures/captures

# --- a capture: hostile tool and ca= header lines, NodeDescriptions of switches and hosts ---
$H capture "$caps/fattree2-small.cap" "$TMP/hostile.cap"
views capture ALL_VIEWS "$IBSCAN" --replay "$TMP/hostile.cap"
for fmt in "" --json; do
	rc=0
	"$IBSCAN" capture info $fmt "$TMP/hostile.cap" -o "$TMP/capinfo$fmt" 2>"$TMP/capinfo.err" || rc=$?
	[ $rc = 0 ] || { cat "$TMP/capinfo.err"; fail "capture info $fmt exited $rc"; }
done
$H text "$TMP/capinfo" "$TMP/capinfo.err" || fail "capture info"
$H json "$TMP/capinfo--json" || fail "capture info --json"
# Visibly escaped, not dropped: an operator can see what the node sent.
grep -qF 'h0 \x1b[31mred\x1b[0m\x07' "$TMP/capture/nodes.txt" || fail "ESC and BEL not shown as \\x1b, \\x07"
grep -qF 'evil\u{202e}txt.exe' "$TMP/capture/nodes.txt" || fail "U+202E not shown as \\u{202e}"
grep -qF 'csi\x9b2J\u{9b}31m' "$TMP/capture/nodes.txt" || fail "C1 (raw and UTF-8) not shown"
grep -qF 'local port: ib\x1b]0;pwned\x07\x9b\u{202e}sim0 port 0' "$TMP/capinfo" || fail "capture info: ca= not escaped"
jq -e '.tool == "ibscan \\x1b[31m\\x07\\u{202e}\\u{9b}\\x9b\\xff \"\\<script>"' "$TMP/capinfo--json" >/dev/null ||
	fail "capture info --json: tool is $(jq .tool "$TMP/capinfo--json")"
echo "ok: capture header lines and NodeDescriptions escaped visibly"

# --- baselines: JSON (code points) and netfile (raw bytes), through diff and health ---
"$IBSCAN" topology --json --replay "$caps/fattree2-small.cap" -o "$TMP/clean.json"
"$IBSCAN" topology --format netfile --replay "$caps/fattree2-small.cap" -o "$TMP/clean.net"
$H json-baseline "$TMP/clean.json" "$TMP/base.json"
$H net-baseline "$TMP/clean.net" "$TMP/base.net"
for base in base.json base.net; do
	for fmt in "" --json; do
		f=$TMP/diff-$base$fmt
		rc=0
		"$IBSCAN" diff $fmt "$TMP/$base" live --replay "$caps/fattree2-small.cap" -o "$f" 2>"$f.err" || rc=$?
		[ $rc = 1 ] || { cat "$f.err"; fail "diff $fmt $base exited $rc, want 1"; }
		$H text "$f" "$f.err" || fail "diff $fmt $base"
		[ -z "$fmt" ] || $H json "$f" || fail "diff $fmt $base"
	done
	grep -q 'removed' "$TMP/diff-$base" || fail "diff $base: the hostile node is not reported removed"
	views "baseline-$base" HEALTH_VIEWS "$IBSCAN" --baseline "$TMP/$base" --replay "$caps/fattree2-small.cap"
done
grep -qF 'node_removed   "csi\u{9b}2J' "$TMP/diff-base.json" || fail "diff: the removed node's description is not shown escaped"
echo "ok: JSON and netfile baselines: diff and health output safe"

# --- a node-name map with hostile names (and one 3000 bytes long) ---
$H namemap "$TMP/clean.json" "$TMP/map"
views namemap ALL_VIEWS "$IBSCAN" --replay "$caps/fattree2-small.cap" --node-name-map "$TMP/map"

# --- a GUID named twice: the first name kept, one warning with file:line, even when two fabrics are named ---
g=$(jq -r '.nodes[0].guid' "$TMP/clean.json")
printf '%s "first"\n# a comment\n%s second\n' "$g" "$g" >"$TMP/dup.map"
run 0 diff "$TMP/clean.json" live --replay "$caps/fattree2-small.cap" --node-name-map "$TMP/dup.map"
[ "$(grep -c 'warning' "$TMP/err")" = 1 ] || { cat "$TMP/err"; fail "name map: want one warning"; }
err_has "dup.map:3: GUID $g is named again; the name on line 1 ('first') is kept"
run 0 nodes --replay "$caps/fattree2-small.cap" --node-name-map "$TMP/dup.map"
out_has '"first"'
echo "ok: a GUID named twice keeps its first name, with one warning"

# --- Slurm: names crafted so that every suffix collides again ---
$H slurm-chain "$TMP/clean.json" "$TMP/chain.map"
run 0 topology --format slurm --replay "$caps/fattree2-small.cap" --node-name-map "$TMP/chain.map"
$H slurm "$TMP/out" || { grep SwitchName "$TMP/out"; fail "slurm: crafted chain of names"; }
# Ordinary collisions keep the documented form: NAME-<GUID>.
grep -q '^SwitchName=x-0002c90300e10002 ' "$TMP/out" || fail "slurm: colliding names do not get -<GUID>"
echo "ok: slurm: one SwitchName per switch for a crafted chain of names"

# --- arguments quoted back in usage errors (a name or format taken from a config file) ---
esc=$'\x1b[31mX\x07'
for args in "$esc" "topology --format $esc" "topology --$esc" "topology --window $esc" "health --threshold $esc=5" \
	"capture $esc x" "help $esc"; do
	# shellcheck disable=SC2086
	"$IBSCAN" $args >"$TMP/u.out" 2>"$TMP/u.err" && fail "ibscan $args succeeded"
	$H text "$TMP/u.err" || fail "usage error of 'ibscan ${args//$esc/ESC...BEL}' passes control bytes"
	grep -qF '\x1b[31mX\x07' "$TMP/u.err" || { cat "$TMP/u.err"; fail "usage error: the argument is not shown escaped"; }
done
echo "ok: usage errors show the arguments they quote escaped"

# --- file names shown in the output (diff's A and B, capture info's file), e.g. from a directory listing ---
cp "$caps/net.2sw2path4hca.cap" "$TMP/c$esc.cap"
cp "$ROOT/fixtures/baselines/net.2sw2path4hca.json" "$TMP/b$esc.json"
for fmt in "" --json; do
	run 0 capture info $fmt "$TMP/c$esc.cap"
	$H text "$TMP/out" || fail "capture info $fmt: the file name passes control bytes"
	[ -z "$fmt" ] || $H json "$TMP/out" || fail "capture info $fmt: JSON"
	run 0 diff $fmt "$TMP/b$esc.json" live --replay "$caps/net.2sw2path4hca.cap"
	$H text "$TMP/out" || fail "diff $fmt: a file name passes control bytes"
	[ -z "$fmt" ] || $H json "$TMP/out" || fail "diff $fmt: JSON"
	[ -n "$fmt" ] || out_has "--- $TMP/b\x1b[31mX\x07.json"
done
echo "ok: file names in the output are shown escaped"
t_done
