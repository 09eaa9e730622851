#!/bin/bash
# capture export: tshark decodes every fixture with no malformed packet, and
# the NodeGUIDs it prints in NodeInfo answers are the GUIDs ibscan reports.
. "$(dirname "$0")/lib.sh"
command -v tshark >/dev/null || fail "tshark is missing: run 'make deps'"
for cap in "$ROOT"/fixtures/captures/*.cap; do
	name=$(basename "$cap" .cap)
	run 0 capture export "$cap" -o "$TMP/$name.pcap"
	tshark -r "$TMP/$name.pcap" -V >"$TMP/$name.txt" 2>"$TMP/$name.err" || fail "$name: tshark failed"
	if grep -qi "malformed" "$TMP/$name.txt"; then
		grep -i -m3 -B5 malformed "$TMP/$name.txt" >&2
		fail "$name: tshark reports a malformed packet"
	fi
	pkts=$(grep -c "^Frame [0-9]" "$TMP/$name.txt")
	[ "$pkts" -gt 0 ] || fail "$name: no packets decoded"
	# GUIDs in answers (requests carry zeros) vs ibscan's nodes from the same capture.
	grep -E "^\s+NodeGUID: 0x" "$TMP/$name.txt" | awk '{print $2}' | grep -v '^0x0000000000000000$' | sort -u >"$TMP/$name.tshark"
	"$IBSCAN" nodes --json --replay "$cap" -o "$TMP/$name.json" 2>/dev/null || true
	python3 -c "import json,sys; [print(n['guid']) for n in json.load(open(sys.argv[1]))['nodes']]" "$TMP/$name.json" | sort -u >"$TMP/$name.ibscan"
	diff "$TMP/$name.tshark" "$TMP/$name.ibscan" || fail "$name: tshark's NodeGUIDs differ from ibscan's"
	echo "ok: $name: $pkts packets, $(wc -l <"$TMP/$name.ibscan") NodeGUIDs agree"
done
t_done
