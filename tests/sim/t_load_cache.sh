#!/bin/bash
# --load-cache: the cache written by `ibnetdiscover --cache` renders the same
# nodes, ports and links as ibscan's own live walk of the same fabric.
. "$(dirname "$0")/lib.sh"
for fabric in net.2sw2path4hca dualrail fattree2-small; do
	sim_start "$FABRICS/$fabric"
	sim_run ibnetdiscover --cache "$TMP/$fabric.cache" >/dev/null 2>&1 || fail "$fabric: ibnetdiscover --cache"
	ibs topology --json -o "$TMP/live.json" || fail "$fabric: live walk"
	sim_stop
	"$IBSCAN" topology --json --load-cache "$TMP/$fabric.cache" -o "$TMP/cache.json" || fail "$fabric: --load-cache exited $?"
	python3 "$ROOT/tests/schema_check.py" topology "$TMP/cache.json" || fail "$fabric: cache JSON schema"
	for x in live cache; do python3 "$ROOT/tests/sim/ibscan2norm.py" "$TMP/$x.json" -o "$TMP/$x.norm"; done
	bash "$ROOT/tests/sim/compare.sh" "$TMP/live.norm" "$TMP/cache.norm" || fail "$fabric: cache differs from the live walk"
	"$IBSCAN" topology --format dot --load-cache "$TMP/$fabric.cache" | dot -Tsvg >/dev/null || fail "$fabric: cache DOT"
	ok "$fabric: cache and live walk agree ($(grep -c '^link' "$TMP/live.norm") links)"
done
# Not a cache: a clear error, exit 3.
echo "hello" >"$TMP/bad.cache"
expect_rc 3 "$IBSCAN" topology --load-cache "$TMP/bad.cache"
grep -q "bad.cache" "$TMP/err" || fail "bad cache: message does not name the file"
expect_rc 3 "$IBSCAN" topology --load-cache "$TMP/missing.cache"
grep -q "cannot open" "$TMP/err" || fail "missing cache: no clear error"
ok "bad caches refused"
t_done
