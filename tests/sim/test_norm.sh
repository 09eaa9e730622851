#!/usr/bin/env bash
# test_norm.sh: offline checks (no simulator) of the fixture generator and
# the topology normalizers: tools/fixtures/genfabric.py, tests/sim/ibnd2norm.py,
# tests/sim/ibscan2norm.py, tests/sim/compare.sh.
# Usage: tests/sim/test_norm.sh   (from anywhere; ends with "N passed, N failed")
set -u -o pipefail
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../done.sh"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
samples=$here/samples
fabrics=$root/fixtures/fabrics
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibscan-norm.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

pass=0 fail=0
ok() { pass=$((pass + 1)); printf 'ok   %s\n' "$1"; }
not_ok() { fail=$((fail + 1)); printf 'FAIL %s\n' "$1"; }
check() { # check NAME CMD...: CMD must succeed
	local name=$1
	shift
	if "$@" >"$tmp/out" 2>&1; then ok "$name"; else not_ok "$name"; sed 's/^/     /' "$tmp/out"; fi
}
check_rc() { # check_rc NAME RC CMD...: CMD must exit with RC
	local name=$1 want=$2 rc
	shift 2
	"$@" >"$tmp/out" 2>&1
	rc=$?
	if [[ $rc == "$want" ]]; then ok "$name"; else
		not_ok "$name (exit $rc, want $want)"
		sed 's/^/     /' "$tmp/out"
	fi
}

ibnd2norm=$here/ibnd2norm.py
ibscan2norm=$here/ibscan2norm.py
compare=$here/compare.sh
norm=$samples/net.2sw2path4hca.norm

# ibnd2norm on a real ibnetdiscover capture
check "ibnd2norm: net.2sw2path4hca capture" \
	bash -c "'$ibnd2norm' '$samples/net.2sw2path4hca.ibnetdiscover' -o '$tmp/a' && '$compare' '$tmp/a' '$norm'"
check "ibnd2norm: reads stdin" \
	bash -c "'$ibnd2norm' < '$samples/net.2sw2path4hca.ibnetdiscover' | cmp - '$norm'"
check "ibnd2norm: degraded capture" \
	bash -c "'$ibnd2norm' '$samples/degraded.ibnetdiscover' | cmp - '$samples/degraded.norm'"
check "ibnd2norm: fdr10 capture (FDR10 kept as a speed)" \
	bash -c "'$ibnd2norm' '$samples/fdr10.ibnetdiscover' | cmp - '$samples/fdr10.norm' && grep -q ' 4x FDR10$' '$samples/fdr10.norm'"
check_rc "ibnd2norm: rejects garbage" 2 \
	bash -c "printf 'Switch 8 \"S-1\"\n[1] bogus\n' | '$ibnd2norm' -q"

# ibscan2norm on the hand-made JSON sample: same form as ibnetdiscover's
check "ibscan2norm: sample equals ibnetdiscover's normalized form" \
	bash -c "'$ibscan2norm' '$samples/net.2sw2path4hca.topology.json' -o '$tmp/b' && '$compare' '$tmp/b' '$norm'"
check "ibscan2norm: links derived from peers when \"links\" is absent" \
	bash -c "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); del d[\"links\"]; json.dump(d, sys.stdout)' \
		'$samples/net.2sw2path4hca.topology.json' | '$ibscan2norm' | cmp - '$norm'"
check "ibscan2norm: peers by index only" \
	bash -c "python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
del d[\"links\"]
for n in d[\"nodes\"]:
    for p in n[\"ports\"]:
        if p[\"peer\"]:
            del p[\"peer\"][\"guid\"]
json.dump(d, sys.stdout)' '$samples/net.2sw2path4hca.topology.json' | '$ibscan2norm' | cmp - '$norm'"
check_rc "ibscan2norm: rejects another schema" 2 \
	bash -c "sed 's/ibscan.topology\\/1/other\\/9/' '$samples/net.2sw2path4hca.topology.json' | '$ibscan2norm'"
check_rc "ibscan2norm: rejects bad JSON" 2 bash -c "echo '{' | '$ibscan2norm'"

# compare.sh
check_rc "compare: identical files" 0 "$compare" "$norm" "$norm"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["links"].pop()
d["nodes"][1]["ports"][0]["width"] = "1x"
json.dump(d, open(sys.argv[2], "w"))' "$samples/net.2sw2path4hca.topology.json" "$tmp/changed.json"
"$ibscan2norm" "$tmp/changed.json" -o "$tmp/changed.norm"
check_rc "compare: differences exit 1" 1 "$compare" "$norm" "$tmp/changed.norm"
"$compare" "$norm" "$tmp/changed.norm" >"$tmp/diff" 2>&1
check "compare: reports both directions" \
	bash -c "grep -q '^-  link 0x0000000000100009 1 0x0000000000200001 2' '$tmp/diff' &&
		grep -q '^-  port 0x0000000000100000 1 0x0000000000100001 2 4x SDR' '$tmp/diff' &&
		grep -q '^+  port 0x0000000000100000 1 0x0000000000100001 2 1x SDR' '$tmp/diff'"
check_rc "compare: missing file exits 2" 2 "$compare" "$norm" "$tmp/nonexistent"

# genfabric: help, determinism, each fixture regenerates from its header
check "genfabric: --help" bash -c "'$root/tools/fixtures/genfabric.py' --help | grep -q 'ibsim limits'"
for f in "$fabrics"/*; do
	cmd=$(sed -n 's/^#   \(tools\/fixtures\/genfabric.py .*\)$/\1/p' "$f")
	[[ -n $cmd ]] || continue
	check "genfabric: $(basename "$f") regenerates byte for byte" \
		bash -c "cd '$root' && $cmd 2>/dev/null | cmp - '$f'"
done
check_rc "genfabric: refuses too many hosts for 2 levels" 2 \
	"$root/tools/fixtures/genfabric.py" --levels 2 --radix 8 --hosts 100 -o "$tmp/x"
check_rc "genfabric: refuses a width ibsim would abort on" 2 \
	"$root/tools/fixtures/genfabric.py" --radix 8 --hosts 2 --degrade 'S-leaf01[1]=2xEDR' -o "$tmp/x"
check "genfabric: dual-port HCA ports on different leaves" \
	bash -c "'$root/tools/fixtures/genfabric.py' --radix 8 --hosts 6 --ports-per-hca 2 2>/dev/null | awk '
		/^Ca/ { id = \$3 } /^\\[[12]\\]\\(/ && id != \"\" { split(\$0, a, \"\\\"\"); leaf[id, substr(\$1, 2, 1)] = a[2] }
		END { for (k in leaf) { split(k, p, SUBSEP); if (p[2] == 1) { n++; if (leaf[p[1], 1] == leaf[p[1], 2]) bad++ } }
		      exit !(n == 6 && bad == 0) }'"

# the generated fixtures are themselves ibnetdiscover-like: ibnd2norm reads
# them, and the degraded one differs from the real discovery only on the two
# degraded links (the file holds each port's enabled value, the fabric the
# active one)
"$ibnd2norm" -q "$fabrics/degraded" -o "$tmp/deg.file"
"$compare" "$tmp/deg.file" "$samples/degraded.norm" >"$tmp/deg.diff"
check "ibnd2norm: degraded fixture vs capture differ only on the degraded links" \
	bash -c "grep -c '^[-+]  ' '$tmp/deg.diff' | grep -qx 4 &&
		grep -q '^+  port 0x0002c90300f0000c 1 0x0002c90300f0000d 9 1x EDR' '$tmp/deg.diff' &&
		grep -q '^+  port 0x0002c90300e10002 6 0x0002c90300e10002 2 4x QDR' '$tmp/deg.diff'"

printf '%d passed, %d failed\n' "$pass" "$fail"
((fail == 0)) || exit 1
t_done
