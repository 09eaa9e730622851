#!/bin/bash
# `ibscan fleet FILE...`: hosts' `local --json` merged; the hosts that differ from the majority (devices,
# rails, GID index, rates, firmware) listed under what differs, as a Python reading of the same files
# says; monitoring-plugin exit codes; the host files read as untrusted input.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
d=$TMP/hosts
mkdir -p "$d"
run 0 local --json --sysfs fixtures/sysfs/gpu-h100 -o "$TMP/h100.json"
for n in 01 02 03 04 05; do cp "$TMP/h100.json" "$d/n$n.json"; done
# One host per defect, made from the H100's document.
python3 - "$TMP/h100.json" "$d" <<'PY'
import copy, json, sys
base = json.load(open(sys.argv[1]))
def dev(doc, name):
    return next(x for x in doc["devices"] if x["name"] == name)
def save(name, doc):
    json.dump(doc, open(f"{sys.argv[2]}/{name}.json", "w"), indent=1)
x = copy.deepcopy(base); x["devices"] = [v for v in x["devices"] if v["name"] != "mlx5_9"]; save("n06", x)   # a NIC gone
x = copy.deepcopy(base)                                                                                      # an IPv6 address first:
g = dev(x, "mlx5_4")["ports"][0]["gids"]                                                                     # IPv4 GIDs at 4-5
for e in g[2:]:
    e["index"] += 2
g[2:2] = [dict(g[0], index=2, gid="fd00:0000:0000:0001:0000:0000:0000:0004", ipv4=None),
          dict(g[1], index=3, gid="fd00:0000:0000:0001:0000:0000:0000:0004", ipv4=None)]
save("n07", x)
x = copy.deepcopy(base); dev(x, "mlx5_0")["fw_ver"] = "28.38.1002"; save("n08", x)                          # other firmware
x = copy.deepcopy(base); p = dev(x, "mlx5_5")["ports"][0]; p["rate_gbps"] = 200.0; p["rate"] = "200 Gb/sec (2X NDR)"; save("n09", x)
PY

# The expectation, from the files themselves: per property, the hosts whose value is not the majority's.
expect() {
	python3 - "$@" <<'PY'
import collections, json, os, sys
hosts = {}
for f in sys.argv[1:]:
    doc = json.load(open(f))
    name = os.path.basename(f)[:-5]
    ports = [(d, p) for d in doc["devices"] for p in d["ports"] if p["state"] == "ACTIVE" and p["phys_state"] == "LinkUp"]
    def v2(p):
        ok = [g["index"] for g in p["gids"] if g["type"] == "RoCE v2" and g["ipv4"]]
        return ok[0] if ok else None
    idx = {v2(p) for d, p in ports}
    rates = collections.Counter(p["rate_gbps"] for d, p in ports)
    hosts[name] = {
        "devices": ",".join(d["name"] for d in doc["devices"]),
        "rails": ",".join(f'{d["name"]}:{p["port"]}' for d, p in ports),
        "gid_index": str(idx.pop()) if len(idx) == 1 and None not in idx else "none shared",
        "rates": sorted(rates.items()),
        "firmware": sorted({d["fw_ver"] for d, p in ports}),
    }
for prop in ["devices", "rails", "gid_index", "rates", "firmware"]:
    c = collections.Counter(json.dumps(h[prop]) for h in hosts.values())
    major = c.most_common(1)[0][0]
    print(prop, " ".join(sorted(n for n, h in hosts.items() if json.dumps(h[prop]) != major)))
PY
}
got() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for prop in ["devices", "rails", "gid_index", "rates", "firmware"]:
    print(prop, " ".join(sorted(x["host"] for x in d["properties"][prop]["differ"])))' "$TMP/out"
}
run 2 fleet "$d"/*.json --json
diff -u <(expect "$d"/*.json) <(got) || fail "fleet lists other hosts than the files say"
grep -q '"value": "none shared"' "$TMP/out" || fail "n07's GID index is not 'none shared'"
# Each defect is where it should be (so the comparison above cannot pass by listing nothing).
want=$(expect "$d"/*.json)
grep -qx "gid_index n07" <<<"$want" || fail "the expectation lost n07"
grep -qx "devices n06" <<<"$want" || fail "the expectation lost n06"
run 2 fleet "$d"/*.json
out_has "IBSCAN FLEET CRITICAL - 4 of 9 hosts differ from the majority (devices, rails, gid_index, rates, firmware)"
out_has "  CRITICAL n07: none shared"
out_has "  WARNING  n08: 28.38.1002,28.39.1002"
out_has "n07              CRITICAL 10 rails, 10 Active; mlx5_4 port 1 has its RoCE v2 IPv4 GID at index 5, the other rails at 3"

# Only WARNING-class differences: exit 1; the same hosts held to the H100 profile: all alike and OK, exit 0.
run 1 fleet "$d"/n0[1-5].json "$d/n08.json"
out_has "1 of 6 hosts differ from the majority (firmware)"
run 0 fleet "$d"/n0[1-5].json --profile examples/gpu-h100-8rail.profile
out_has "IBSCAN FLEET OK - 5 hosts agree | hosts=5 differ=0"
run 0 fleet "$d"/n0[1-5].json --profile examples/gpu-h100-8rail.profile -o "$TMP/fleet.txt"
[ ! -s "$TMP/out" ] || fail "-o also wrote stdout"
grep -q "^IBSCAN FLEET OK" "$TMP/fleet.txt" || fail "-o file lacks the status line"

# Untrusted files: each refused with its name and why, the rest still compared; the verdict UNKNOWN.
printf '{"schema": "ibscan.local/1", "devices": [\n' >"$d/bad.json"
run 0 topology --json --replay fixtures/captures/fattree2-small.cap -o "$TMP/topo.json"
head -c $((17 * 1024 * 1024)) /dev/zero | tr '\0' ' ' >"$TMP/huge.json"
run 3 fleet "$d"/n0[1-5].json "$d/bad.json" "$TMP/topo.json" "$TMP/huge.json" "$TMP/missing.json"
out_has "IBSCAN FLEET UNKNOWN - 4 of 9 host files unreadable"
err_has "$d/bad.json:2: not valid JSON"
err_has "$TMP/topo.json: not a host view"
err_has "$TMP/huge.json"
err_has "$TMP/missing.json"
out_has "  bad              UNKNOWN  $d/bad.json:2: not valid JSON"
run 3 fleet --json "$TMP/missing.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["status"]=="UNKNOWN" and d["exit_code"]==3 and d["n_unreadable"]==1, d' "$TMP/out" ||
	fail "fleet JSON when nothing could be read"
# A profile with an error: UNKNOWN before any host is read.
printf 'ports many\n' >"$TMP/bad.profile"
run 3 fleet "$d/n01.json" --profile "$TMP/bad.profile"
out_has "IBSCAN FLEET UNKNOWN - $TMP/bad.profile:1: ports wants a number"

# Usage errors speak the plugin language: exit 3 and a status line.
run 3 fleet
out_has "IBSCAN FLEET UNKNOWN - usage error"
err_has "fleet wants the hosts' 'ibscan local --json' files"
run 3 fleet "$d/n01.json" --format prom
run 3 fleet --bogus
t_done
