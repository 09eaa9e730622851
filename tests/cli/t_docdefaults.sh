#!/bin/bash
# The defaults and ranges that the README and the man page say of each option are those that
# `ibscan help` derives from the option tables (tests/cli/docdefaults.py); a doctored README or
# man page (a default or a range changed) must fail, naming the option.
. "$(dirname "$0")/lib.sh"
check=$ROOT/tests/cli/docdefaults.py
python3 "$check" "$IBSCAN" "$ROOT/README.md" "$ROOT/docs/ibscan.1" >"$TMP/out" 2>&1 || { cat "$TMP/out" >&2; fail "the docs and ibscan help disagree"; }
out_has "each as ibscan help says"
n=$(grep -o '^docs: [0-9]*' "$TMP/out" | cut -d' ' -f2)
[ "$n" -ge 15 ] || fail "only $n defaults found in the docs: the checker reads too little"

sed 's/MADs in flight, default 32/MADs in flight, default 64/' "$ROOT/README.md" >"$TMP/README.md"
grep -q 'default 64' "$TMP/README.md" || fail "the README plant did not take"
! python3 "$check" "$IBSCAN" "$TMP/README.md" "$ROOT/docs/ibscan.1" >"$TMP/out" 2>&1 || fail "a README default out of step passes"
out_has "README.md: --window: says default 64, ibscan help says 32"

sed 's/in seconds (default 300)/in seconds (default 30)/; s/(default 4, 0 to 1024; 0: no cap)/(default 4, 0 to 2048; 0: no cap)/' \
	"$ROOT/docs/ibscan.1" >"$TMP/ibscan.1"
! python3 "$check" "$IBSCAN" "$ROOT/README.md" "$TMP/ibscan.1" >"$TMP/out" 2>&1 || fail "a man page default out of step passes"
out_has "--deadline: says default 30, ibscan help says 300"
out_has "--max-smps-per-switch: says 0 to 2048, ibscan help says 0-1024"
echo done
