#!/bin/bash
# `ibscan local`: the fixture machines under fixtures/sysfs/ against golden files
# (text and JSON), the no-device message on this machine, bad roots, usage errors.
. "$(dirname "$0")/lib.sh"
gold=$ROOT/tests/cli/golden/local
cd "$ROOT"

# This machine: without RDMA (the case here) a clear message and exit 3.
if ls /sys/class/infiniband/* >/dev/null 2>&1; then
	run 0 local
	out_has "port 1:"
else
	run 3 local
	err_has "ibscan: error: no RDMA device found under /sys/class/infiniband"
	err_has "ibscan: hint: "
	[ ! -s "$TMP/out" ] || fail "local printed something on stdout with no device"
fi

# The fixture machines: text and JSON, as reviewed in the golden files.
n=0
for dir in fixtures/sysfs/*/; do
	name=$(basename "$dir")
	[ "$name" = empty ] && continue
	for fmt in txt json; do
		args=()
		[ "$fmt" = json ] && args=(--json)
		run 0 local --sysfs "fixtures/sysfs/$name" "${args[@]}"
		if [ "$REGENERATE" = 1 ]; then
			mkdir -p "$gold"
			cp "$TMP/out" "$gold/$name.$fmt"
			continue
		fi
		[ -f "$gold/$name.$fmt" ] || fail "no golden file $gold/$name.$fmt: run 'make golden' and review it"
		diff -u "$gold/$name.$fmt" "$TMP/out" >"$TMP/diff" || { head -40 "$TMP/diff"; fail "local $name ($fmt) differs"; }
	done
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"]=="ibscan.local/1" and d["devices"], d' \
		"$gold/$name.json" || fail "$name.json is not an ibscan.local/1 document"
	n=$((n + 1))
done
[ "$REGENERATE" = 1 ] || [ $n -ge 6 ] || fail "only $n fixture machines checked"

# What each fixture is there to show.
run 0 local --sysfs fixtures/sysfs/roce
out_has "RoCE v2     ens1f0      192.168.10.5  <- ibscan ping's choice"
run 0 local --sysfs fixtures/sysfs/dualport-down --json
python3 - "$TMP/out" <<'PY' || fail "dualport-down JSON"
import json, sys
d = json.load(open(sys.argv[1]))["devices"][0]
p1, p2 = d["ports"]
assert p1["state"] == "ACTIVE" and p2["state"] == "DOWN" and p2["phys_state"] == "Polling", d
assert [i["name"] for i in p1["ipoib"]] == ["ib0"] and [i["name"] for i in p2["ipoib"]] == ["ib1"], d
PY
run 0 local --sysfs fixtures/sysfs/sriov --json
python3 - "$TMP/out" <<'PY' || fail "sriov JSON"
import json, sys
pf, vf = json.load(open(sys.argv[1]))["devices"]
assert pf["pci"]["sriov"] == "pf" and pf["pci"]["sriov_numvfs"] == 2 and pf["pci"]["sriov_totalvfs"] == 8
assert vf["pci"]["sriov"] == "vf" and vf["pci"]["physfn"] == "0000:3b:00.0" and vf["pci"]["vf_known_by"] == "physfn"
PY
run 0 local --sysfs fixtures/sysfs/vm-vf
out_has "SR-IOV virtual function (known by its device ID"
run 0 local --sysfs fixtures/sysfs/noactive
out_has "port 1: INIT (LinkUp)"

# No device, or no sysfs at all.
run 3 local --sysfs fixtures/sysfs/empty
err_has "ibscan: error: no RDMA device found under fixtures/sysfs/empty/class/infiniband"
err_has "--sysfs DIR reads another tree"
[ ! -s "$TMP/out" ] || fail "local printed something on stdout with no device"
run 3 local --sysfs "$TMP/nonexistent"
err_has "ibscan: error: cannot read sysfs root '$TMP/nonexistent': No such file or directory"

# -o writes the file (atomically), nothing on stdout.
run 0 local --sysfs fixtures/sysfs/ib-ipoib --format json -o "$TMP/local.json"
[ ! -s "$TMP/out" ] || fail "-o also wrote stdout"
cmp -s "$TMP/local.json" "$gold/ib-ipoib.json" || [ "$REGENERATE" = 1 ] || fail "-o output differs from stdout's"

# Usage errors.
run 2 local --format dot
err_has "unknown format 'dot' (text, json or prom)"
run 2 local extra
err_has "unexpected argument 'extra'"
run 2 local --sysfs
err_has "option '--sysfs' needs a value"
run 2 local --sysfs ""
err_has "--sysfs wants a directory"
run 2 local -v --sysfs "" --json
err_has "--sysfs wants a directory"
run 2 local --window 4
err_has "unknown option '--window'"
run 0 help local
out_has "--sysfs DIR"
out_has "--json"
t_done
