#!/bin/bash
# Every bundled fabric: ibscan's nodes, ports and links equal ibnetdiscover's, both ways;
# its DOT renders with Graphviz and its JSON matches the documented schema.
. "$(dirname "$0")/lib.sh"
for fabric in net.2sw2path4hca fattree2-small dualrail fattree3 degraded; do
	sim_start "$FABRICS/$fabric"
	compare_with_ibnetdiscover "$fabric"
	python3 "$ROOT/tests/schema_check.py" topology "$TMP/$fabric.json" || fail "$fabric: JSON does not match the schema"
	ibs topology --format dot -o "$TMP/$fabric.dot" || fail "$fabric: dot output"
	dot -Tsvg -o "$TMP/$fabric.svg" "$TMP/$fabric.dot" || fail "$fabric: dot cannot render ibscan's DOT"
	grep -q '<svg' "$TMP/$fabric.svg" || fail "$fabric: no SVG"
	for v in nodes links sm; do
		ibs $v --json -o "$TMP/$fabric.$v.json" || fail "$fabric: ibscan $v"
		python3 "$ROOT/tests/schema_check.py" $v "$TMP/$fabric.$v.json" || fail "$fabric: $v JSON does not match the schema"
	done
	sim_stop
done
t_done
