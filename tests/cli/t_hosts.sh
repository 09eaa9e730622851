#!/bin/bash
# Hosts as servers (fabric/model/hosts.c) on the director capture: 27 CAs on 25
# servers, six of them described by a factory or distribution default
# ("MT4129 ConnectX7   Mellanox Technologies", "localhost HCA-1", "ubuntu").
# health reports each such CA (identity.default_description, WARNING, with
# its GUID) unless a node-name map names it; the drawing counts servers, not
# adapters. t_slurm.sh checks topology.conf's hosts against an independent
# computation; tests/unit/test_hosts.c the table of defaults.
. "$(dirname "$0")/lib.sh"
cap=$ROOT/fixtures/captures/director.cap

run 1 health --replay "$cap"
head -1 "$TMP/out" | grep -q '^IBSCAN WARNING - 6 CAs without a host name |.* cas_default_description=6 ' ||
	fail "status line: $(head -1 "$TMP/out")"
for g in 0x0002c90300f10130 0x0002c90300f10140 0x0002c90300f10150 0x0002c90300f10160 0x0002c90300f10170 0x0002c90300f10180; do
	grep -q "^WARNING  identity.default_description: CA $g \"" "$TMP/out" || fail "no finding for CA $g"
done
out_has 'CA 0x0002c90300f10150 "MT4129 ConnectX7   Mellanox Technologies" names no host (the adapter firmware'"'"'s default: rdma-ndd is not running): Slurm and MPI jobs cannot place it; listed as host-0002c90300f1c000'
out_has '"localhost HCA-1" names no host (the host name before one is set)'
out_has '"ubuntu" names no host (Ubuntu'"'"'s default host name'
grep -q 'identity.default_description: CA 0x0002c90300f10190' "$TMP/out" && fail "gpu01 names its host"
run 1 health --json --replay "$cap"
python3 - "$TMP/out" <<'PY' || fail "health --json: identity.default_description findings"
import json, sys
d = json.load(open(sys.argv[1]))
f = [x for x in d['findings'] if x['check'] == 'identity.default_description']
assert len(f) == 6 and all(x['severity'] == 'WARNING' for x in f), f
assert sorted(x['guid'] for x in f)[0] == '0x0002c90300f10130', f
PY
# A node-name map entry names the CA: no finding for it.
printf '0x0002c90300f10130 "rack7-n3 mlx5_0"\n' >"$TMP/map"
run 1 health --node-name-map "$TMP/map" --replay "$cap"
head -1 "$TMP/out" | grep -q '^IBSCAN WARNING - 5 CAs without a host name' || fail "with a map: $(head -1 "$TMP/out")"
grep -q 'CA 0x0002c90300f10130' "$TMP/out" && fail "the mapped CA is still reported"
# Fabrics whose CAs name their hosts have no such finding.
run 0 health --replay "$ROOT/fixtures/captures/fattree2-small.cap"
grep -q 'default_description=0' <(head -1 "$TMP/out") && ! grep -q identity.default_description "$TMP/out" ||
	fail "fattree2-small: default descriptions reported"

# The drawing counts servers: leaf 3's group is 9 CAs on 7 hosts.
run 0 topology --format dot --replay "$cap"
grep -q 'label="[^"]*\\n7 hosts, 4xEDR", tooltip="7 hosts (9 CAs) at 4xEDR on MF0;ibcore1:SX6536/L03/U1' "$TMP/out" ||
	fail "drawing: leaf 3's group is not 7 hosts of 9 CAs"
grep -q 'MT4129\\n' "$TMP/out" && fail "drawing: a factory default as a host name"
echo "hosts: defaults reported, servers counted"
t_done
