#!/bin/bash
# Golden files: replay every capture in fixtures/captures (no simulator) and
# compare each view and format, and its exit code, with tests/cli/golden/.
# The golden files are written by `make golden` (tests/cli/run.sh --regenerate)
# and reviewed before they are committed.
. "$(dirname "$0")/lib.sh"
gold=$ROOT/tests/cli/golden
cases=(
	"topology.txt topology"
	"topology.json topology --json"
	"topology.dot topology --format dot"
	"topology.net topology --format netfile"
	"nodes.txt nodes"
	"nodes.json nodes --json"
	"links.txt links"
	"links.json links --json"
	"sm.txt sm"
	"sm.json sm --json"
	"health.txt health"
	"health.json health --json"
	"health.prom health --format prom"
	"counters.txt counters"
	"counters.json counters --json"
)
n=0
for cap in "$ROOT"/fixtures/captures/*.cap; do
	name=$(basename "$cap" .cap)
	mkdir -p "$TMP/$name"
	: >"$TMP/$name/rc.txt"
	for c in "${cases[@]}"; do
		read -r file args <<<"$c"
		rc=0
		# shellcheck disable=SC2086
		"$IBSCAN" $args --replay "$cap" -o "$TMP/$name/$file" 2>/dev/null || rc=$?
		echo "$file $rc" >>"$TMP/$name/rc.txt"
	done
	base=$ROOT/fixtures/baselines/$name.json
	if [ -f "$base" ]; then
		rc=0
		"$IBSCAN" health --baseline "$base" --replay "$cap" -o "$TMP/$name/health-baseline.txt" 2>/dev/null || rc=$?
		echo "health-baseline.txt $rc" >>"$TMP/$name/rc.txt"
		rc=0
		"$IBSCAN" diff "$base" live --replay "$cap" -o "$TMP/$name/diff.txt" 2>/dev/null || rc=$?
		echo "diff.txt $rc" >>"$TMP/$name/rc.txt"
		sed -i "s|$ROOT/||" "$TMP/$name/diff.txt"
	fi
	rc=0
	"$IBSCAN" capture info "$cap" -o "$TMP/$name/capinfo.txt" || rc=$?
	echo "capinfo.txt $rc" >>"$TMP/$name/rc.txt"
	# capture info names the file; keep it repository-relative.
	sed -i "s|$ROOT/||" "$TMP/$name/capinfo.txt"
	if [ "$REGENERATE" = 1 ]; then
		rm -rf "${gold:?}/$name"
		mkdir -p "$gold/$name"
		cp "$TMP/$name"/* "$gold/$name/"
		echo "regenerated $gold/$name"
		continue
	fi
	[ -d "$gold/$name" ] || fail "no golden files for $name: run 'make golden' and review them"
	diff -r "$gold/$name" "$TMP/$name" >"$TMP/diff" || { head -40 "$TMP/diff"; fail "$name differs from its golden files"; }
	n=$((n + 1))
done
[ "$REGENERATE" = 1 ] || [ $n -ge 17 ] || fail "only $n captures checked"
echo "golden: $n captures match"
t_done
