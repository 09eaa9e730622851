#!/bin/bash
# Browser tier: ibscan's HTML report opened in Debian's chromium, headless,
# driven by puppeteer-core (tests/browser/node_modules, installed by
# `make deps`; it never downloads a browser). Makes the reports first: the
# degraded capture, a capture and a node-name map full of hostile strings,
# the 2,900-node fat tree of `make bench` and the 8,831-node one of issue 28
# walked live under ibsim; then
# runs report.test.mjs with node's test runner. Screenshots go to
# $ARTEFACTS (default build/browser/).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export IBSCAN=${IBSCAN:-$root/ibscan}
export ARTEFACTS=${ARTEFACTS:-$root/build/browser}
export CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
fail() {
	echo "browser: $*" >&2
	echo "browser: 0 passed, 1 failed"
	exit 1
}
# Every tool first, all at once (tools/deps/need.sh), then the driver.
NEED_WHO=browser "$root/tools/deps/need.sh" browser || fail "tools are missing (above)"
[ -x "$CHROMIUM" ] || fail "$CHROMIUM is missing: run 'make deps' (package chromium)"
[ -d "$root/tests/browser/node_modules/puppeteer-core" ] ||
	fail "puppeteer-core is missing: run 'make check-browser' or 'tools/deps/deps.sh --driver' (npm)"

REPORTS=$(mktemp -d "${TMPDIR:-/tmp}/ibscan-browser.XXXXXX")
export REPORTS
trap 'rm -rf "$REPORTS"' EXIT
mkdir -p "$ARTEFACTS"
caps=$root/fixtures/captures
# A fixed time: the page says when it was taken, and tests compare it.
export SOURCE_DATE_EPOCH=1767225600

# report NAME ARGS...: the report and, from the same source, the topology JSON the tests compare with.
report() {
	local name=$1 rc=0
	shift
	"$IBSCAN" report "$@" -o "$REPORTS/$name.html" 2>"$REPORTS/$name.err" || rc=$?
	[ $rc = 0 ] || { cat "$REPORTS/$name.err" >&2; fail "ibscan report $* exited $rc"; }
	"$IBSCAN" topology --json "$@" -o "$REPORTS/$name.json"
}

report degraded --replay "$caps/degraded.cap"
report small --replay "$caps/fattree2-small.cap"

# report --routing on walks that hold every forwarding table (fixtures/routes/): a credit
# loop round ring4 under minhop, and a forwarding loop planted in fattree2-small's tables.
for r in ring4-minhop fattree2-small-loop; do
	"$IBSCAN" report --routing --no-counters --replay "$root/fixtures/routes/$r.cap" -o "$REPORTS/$r.html" \
		2>"$REPORTS/$r.err" || { cat "$REPORTS/$r.err" >&2; fail "ibscan report --routing on $r failed"; }
	"$IBSCAN" topology --json --replay "$root/fixtures/routes/$r.cap" -o "$REPORTS/$r.json"
done

# Hostile NodeDescriptions (tests/hostile.py) and names aimed at the page: ending the
# data's script element, opening a comment, markup with a handler, line separators.
python3 "$root/tests/hostile.py" capture "$caps/fattree2-small.cap" "$REPORTS/hostile.cap"
"$IBSCAN" topology --json --replay "$REPORTS/hostile.cap" -o "$REPORTS/hostile-plain.json"
python3 - "$REPORTS/hostile-plain.json" "$REPORTS/hostile.map" <<'PY'
import json, sys
nodes = json.load(open(sys.argv[1]))['nodes']
names = ['</script><script>window.__pwned=1</script>', '<!--<script>window.__pwned=2//',
         'sep\u2028line\u2029para', '<img src=x onerror=window.__pwned=3>', '&lt;b&gt;amp&amp;',
         '</SCRIPT ><svg onload=window.__pwned=4>']
with open(sys.argv[2], 'wb') as f:
    for n, name in zip(nodes[1::3], names):
        f.write(n['guid'].encode() + b' "' + name.encode() + b'"\n')
PY
report hostile --replay "$REPORTS/hostile.cap" --node-name-map "$REPORTS/hostile.map"

# The 2,900-node fat tree of `make bench`, walked live.
if [ "${BROWSER_LARGE:-1}" = 1 ]; then
	. "$root/tests/sim/simlib.sh"
	python3 "$root/tools/fixtures/genfabric.py" --levels 3 --radix 36 --hosts 2304 -o "$REPORTS/large.fabric"
	sim_start "$REPORTS/large.fabric" || fail "the simulator did not start"
	rc=0
	t0=$(date +%s.%N)
	sim_run "$IBSCAN" report -o "$REPORTS/large.html" 2>"$REPORTS/large.err" || rc=$?
	t1=$(date +%s.%N)
	[ $rc = 0 ] && { sim_run "$IBSCAN" topology --json -o "$REPORTS/large.json" || rc=$?; }
	[ $rc = 0 ] && { sim_run "$IBSCAN" topology --format svg -o "$REPORTS/large.svg" || rc=$?; }
	sim_stop
	[ $rc = 0 ] || { cat "$REPORTS/large.err" >&2; fail "ibscan report on the 2,900-node fabric exited $rc"; }
	awk -v b="$(stat -c %s "$REPORTS/large.html")" -v a="$t0" -v z="$t1" \
		'BEGIN { printf "browser: the 2,900-node report: walked and written in %.1f s, %d bytes\n", z - a, b }'
fi

# The 8,831-node fat tree of issue 28 (7,650 hosts, three levels of radix 36): its page must
# stay under 15 MB (72 MB when every document was plain JSON). Walked once live, recorded;
# the topology JSON the test compares with is the replay of that same walk.
if [ "${BROWSER_LARGE:-1}" = 1 ]; then
	python3 "$root/tools/fixtures/genfabric.py" --levels 3 --radix 36 --hosts 7650 -o "$REPORTS/huge.fabric" 2>/dev/null
	sim_start "$REPORTS/huge.fabric" || fail "the simulator did not start (8,831 nodes)"
	rc=0
	sim_run "$IBSCAN" report --record "$REPORTS/huge.cap" -o "$REPORTS/huge.html" 2>"$REPORTS/huge.err" || rc=$?
	sim_stop
	[ $rc = 0 ] || { cat "$REPORTS/huge.err" >&2; fail "ibscan report on the 8,831-node fabric exited $rc"; }
	"$IBSCAN" topology --json --replay "$REPORTS/huge.cap" -o "$REPORTS/huge.json"
	rm -f "$REPORTS/huge.cap"
fi

# The tests pass only when node's runner says every one of them ran and
# passed: a count it prints at its end (a run cut short prints none).
cd "$root/tests/browser"
rc=0
node --test --test-reporter=spec report.test.mjs 2>&1 | tee "$REPORTS/node.log" || rc=$?
n=$(sed -n 's/^\S* *tests \([0-9]*\)$/\1/p' "$REPORTS/node.log" | tail -1)
p=$(sed -n 's/^\S* *pass \([0-9]*\)$/\1/p' "$REPORTS/node.log" | tail -1)
declared=$(grep -cE "^\s*(test|it)\(" report.test.mjs || true)
[ $rc = 0 ] || fail "node --test exited $rc"
sk=$(sed -n 's/^\S* *skipped \([0-9]*\)$/\1/p' "$REPORTS/node.log" | tail -1)
# Only the large reports' tests may be skipped, and only when asked (BROWSER_LARGE=0): they
# are counted as skipped, never as passed.
want_skip=0
[ "${BROWSER_LARGE:-1}" = 0 ] && want_skip=2
[ "${sk:-0}" = $want_skip ] || fail "node --test skipped '${sk:-0}' tests, want $want_skip"
[ -n "$n" ] && [ "$n" -gt 0 ] && [ "$((p + want_skip))" = "$n" ] ||
	fail "node --test did not report every test passed (tests '$n', pass '$p', skipped '${sk:-0}')"
[ "$n" -ge "$declared" ] || fail "node --test ran $n tests, report.test.mjs declares $declared"
if [ $want_skip != 0 ]; then
	echo "browser: $p passed, 0 failed, $want_skip skipped (BROWSER_LARGE=0)"
else
	echo "browser: $p passed, 0 failed"
fi
