#!/bin/bash
# `ibscan report` without a browser (tests/browser/ opens it in chromium):
# one HTML page whose data elements parse to exactly the documents of
# topology/health/counters --json of the same source, whose inline script
# and style are the ones its Content-Security-Policy names by hash, and
# which no hostile name or NodeDescription can break out of: no extra
# element, no raw "</script", "<!--", U+2028 or U+2029 in the data. Exit
# codes as topology's; -o and standard output give the same page.
. "$(dirname "$0")/lib.sh"
caps=$ROOT/fixtures/captures
export SOURCE_DATE_EPOCH=1767225600

cat >"$TMP/check.py" <<'PY'
"""check.py PAGE [NAME=JSONFILE...]: the page's structure, CSP, and data elements."""
import base64, hashlib, json, re, sys
page = open(sys.argv[1], encoding='utf-8').read()
def fail(m):
    sys.exit('FAIL: ' + m)
low = page.lower()
# Elements that can run or fetch anything: exactly the page's own.
if low.count('<script') != page.count('<script type="application/json" id="ibs-') + 1:
    fail('%d <script, not the data elements and one page script' % low.count('<script'))
if low.count('</script') != low.count('<script'):
    fail('a "</script" beyond the elements\' own ends')
DATA = r'<script type="application/json" id="(ibs-[a-z]+)">(.*?)</script>'
for name, text in re.findall(DATA, page, re.S):
    for bad in ('<', '>', '&', '\u2028', '\u2029'):
        if bad in text:
            fail('%r raw in %s' % (bad, name))
MAP = r'<div id="map">(.*?)</div>\n</section>'
m = re.search(MAP, page, re.S)
if not m:
    fail('no map element')
svg = m.group(1).lower()
if not svg.startswith('<svg') and 'no map in this report' not in svg:
    fail('the map is neither an SVG nor says there is none')
# The map: Graphviz's SVG without comments, and nothing that runs or fetches.
for bad in ('<!--', '<script', '<foreignobject', '<iframe', '<image', 'javascript:', '<?xml', '<!doctype'):
    if bad in svg:
        fail('%r in the map' % bad)
if svg.startswith('<svg'):
    import xml.etree.ElementTree as ET
    for e in ET.fromstring(m.group(1)).iter():
        if any(a.split('}')[-1].lower().startswith('on') for a in e.attrib):
            fail('an event handler attribute in the map: %s %r' % (e.tag, e.attrib))
outside = re.sub(MAP, '', re.sub(DATA, '', page, flags=re.S), flags=re.S).lower()
for bad in ('<!--', '\u2028', '\u2029', '<img', '<iframe', '<object', '<link', '<svg', ' src=', ' href='):
    if bad in outside:
        fail('%r in the page' % bad)
csp = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', page)
if not csp or not csp.group(1).startswith("default-src 'none'; "):
    fail('no Content-Security-Policy with default-src none')
script = re.search(r'<script>(.*?)</script>', page, re.S).group(1)
style = re.search(r'<style>(.*?)</style>', page, re.S).group(1)
for what, text in (('script', script), ('style', style)):
    h = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
    if "%s-src 'sha256-%s'" % (what, h) not in csp.group(1):
        fail('the inline %s is not the one the CSP names' % what)
data = dict(re.findall(DATA, page, re.S))
meta = json.loads(data['ibs-meta'])
if meta['schema'] != 'ibscan.report/1' or meta['generated'] != '2026-01-01T00:00:00Z':
    fail('meta: %r' % meta)
for arg in sys.argv[2:]:
    name, path = arg.split('=', 1)
    if json.loads(data['ibs-' + name]) != json.load(open(path)):
        fail('ibs-%s differs from %s' % (name, path))
print('ok: %s: %d data elements, CSP hashes match' % (sys.argv[1], len(data)))
PY

# --- the data are the JSON views of the same source, byte for value ---
src=(--replay "$caps/degraded.cap")
run 0 report "${src[@]}" -o "$TMP/degraded.html"
[ ! -s "$TMP/out" ] && [ ! -s "$TMP/err" ] || fail "report -o wrote to stdout or stderr"
"$IBSCAN" topology --json "${src[@]}" -o "$TMP/topology.json"
rc=0
"$IBSCAN" health --json "${src[@]}" -o "$TMP/health.json" || rc=$?
[ $rc = 1 ] || fail "health of degraded.cap exited $rc, want 1 (WARNING)"
"$IBSCAN" counters --json "${src[@]}" -o "$TMP/counters.json"
python3 "$TMP/check.py" "$TMP/degraded.html" topology="$TMP/topology.json" health="$TMP/health.json" \
	counters="$TMP/counters.json"
run 0 report "${src[@]}"
cmp -s "$TMP/out" "$TMP/degraded.html" || fail "the page on stdout differs from the one -o wrote"
grep -q '"source":{"kind":"replay","what":"[^"]*degraded.cap"}' "$TMP/out" || fail "meta does not name the capture"
echo "ok: the page's data are topology, health and counters --json; stdout and -o agree"

# --- without counters: no counters element, said in meta ---
run 0 report "${src[@]}" --no-counters
grep -q 'id="ibs-counters"' "$TMP/out" && fail "--no-counters: the page holds counters"
out_has '"counters":false'

# --- hostile NodeDescriptions (tests/hostile.py) and names aimed at the page ---
python3 "$ROOT/tests/hostile.py" capture "$caps/fattree2-small.cap" "$TMP/hostile.cap"
"$IBSCAN" topology --json --replay "$TMP/hostile.cap" -o "$TMP/plain.json"
python3 - "$TMP/plain.json" "$TMP/hostile.map" <<'PY'
import json, sys
nodes = json.load(open(sys.argv[1]))['nodes']
names = ['</script><script>window.__pwned=1</script>', '<!--<script>', 'sep\u2028line\u2029para',
         '<img src=x onerror=alert(1)>', '</SCRIPT ><svg onload=alert(2)>', '&lt;b&gt;&amp;']
with open(sys.argv[2], 'wb') as f:
    for n, name in zip(nodes[1::3], names):
        f.write(n['guid'].encode() + b' "' + name.encode() + b'"\n')
PY
h=(--replay "$TMP/hostile.cap" --node-name-map "$TMP/hostile.map")
run 0 report "${h[@]}" -o "$TMP/hostile.html"
"$IBSCAN" topology --json "${h[@]}" -o "$TMP/hostile.json"
grep -q '</script><script>window.__pwned=1' "$TMP/hostile.json" || fail "the name map did not name a node"
python3 "$TMP/check.py" "$TMP/hostile.html" topology="$TMP/hostile.json"
echo "ok: hostile names stay inside their data element"

# --- usage and failures ---
run 2 report --json "${src[@]}"
err_has "a report is HTML only"
run 2 report extra "${src[@]}"
err_has "unexpected argument 'extra'"
run 2 report --threshold Bogus=1 "${src[@]}"
run 3 report "${src[@]}" -o /dev/full
[ ! -s "$TMP/out" ] || fail "a failed write left output on stdout"
run 3 report --replay "$TMP/missing.cap"
err_has "missing.cap"
echo "ok: usage errors exit 2, write and input failures 3"
t_done
