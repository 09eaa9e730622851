#!/bin/bash
# Usage errors exit 2 with one line saying what is wrong and a hint; help and version exit 0.
. "$(dirname "$0")/lib.sh"
run 2
err_has "usage: ibscan"
run 0 --help
out_has "topology"
out_has "exit status: 0 ok, 1 findings, 2 usage error, 3 runtime failure"
run 0 --version
grep -qE '^ibscan [0-9]+\.[0-9]+\.[0-9]+$' "$TMP/out" || fail "version line"
run 0 help topology
out_has "usage: ibscan topology [options]"
out_has "--format F"
run 0 topology --help
out_has "--window N"
run 0 help help
out_has "help       Show help for a command: ibscan help COMMAND."
run 2 help nosuch
err_has "ibscan: error: unknown command 'nosuch'"
run 2 frobnicate
err_has "ibscan: error: unknown command 'frobnicate'"
# Exact names only: a prefix is not run, only suggested.
run 2 top
err_has "did you mean 'topology'?"
run 2 topology --bogus
err_has "ibscan: error: unknown option '--bogus'"
err_has "see 'ibscan help topology'"
run 2 topology -Z
err_has "unknown option '-Z'"
run 2 topology --window
err_has "option '--window' needs a value"
for bad in 0 1025 -1 abc 3x ""; do
	run 2 topology --window "$bad"
	err_has "--window wants a number from 1 to 1024"
done
run 2 topology --timeout 0
err_has "--timeout wants milliseconds"
run 2 topology --deadline -5
err_has "--deadline wants seconds"
run 2 topology --deadline nan
# Under a millisecond is still a deadline, not none: a 612-node replay takes longer than 1 ms.
run 3 topology --deadline 0.0001 --replay "$ROOT/fixtures/captures/fattree3.cap"
err_has "the walk did not finish within --deadline 0.0001 s"
# The deadline is the cause: the capture (recorded before LID routing) is not blamed.
! grep -q 'the capture held no answer' "$TMP/err" || fail "a replay stopped by --deadline blames the capture"
run 2 topology --retries 101
for bad in -1 +5 zz 0x 0x10000000000000000 ""; do
	run 2 topology --m-key "$bad"
	err_has "--m-key wants a 64-bit key (decimal, or hex with 0x), not '$bad'"
done
# Decimal means decimal: a leading 0 is not octal (08 was refused, 0100 read as 64; tests/sim/t_faults.sh
# checks the key in the SMPs).
run 0 nodes --m-key 08 --replay "$ROOT/fixtures/captures/net.2sw2path4hca.cap"
run 2 topology --format yaml
err_has "unknown format 'yaml' (text, json, dot, svg, netfile"
run 2 nodes --format dot
err_has "unknown format 'dot' (text or json)"
run 2 topology extra
err_has "unexpected argument 'extra'"
run 2 --frob
err_has "unknown option '--frob'"

# Help fits 80 columns: the general help and every command's, wrapped at word boundaries.
run 0 --help
cmds=$(awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }' "$TMP/out")
[ "$(echo "$cmds" | wc -w)" -ge 10 ] || fail "ibscan --help lists only: $cmds"
for c in "" $cmds; do
	[ "$c" = help ] && continue
	run 0 help $c
	awk -v c="${c:---help}" 'length > 80 { printf "ibscan help %s: %d columns: %s\n", c, length, $0; bad = 1 } END { exit bad }' \
		"$TMP/out" >&2 || fail "help wider than 80 columns"
done
