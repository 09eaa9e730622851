#!/bin/bash
# `ibscan topology --format slurm` on the bundled captures: every host under
# exactly one leaf, Switches= naming only switches one level down, the right
# levels on the 2- and 3-level fat trees, hostlists that expand back to the
# hosts `ibscan nodes --json` reports, and dual-rail hosts under the leaf of
# their port 1 (the rule in docs/slurm.md).
. "$(dirname "$0")/lib.sh"
caps=$ROOT/fixtures/captures

cat >"$TMP/check.py" <<'EOF'
import json, re, subprocess, sys
from collections import deque

conf_path, topo_path, nodes_path, kind = sys.argv[1:5]

def expand(expr):
    """Slurm's own expansion: scontrol show hostnames (slurm-client), as slurmctld reads the file."""
    if not expr:
        return []
    r = subprocess.run(['scontrol', 'show', 'hostnames', expr], capture_output=True, text=True, timeout=60)
    if r.returncode or 'Invalid hostlist' in r.stdout + r.stderr:
        fail('Slurm refuses the hostlist %r: %s' % (expr, (r.stdout + r.stderr).strip()))
    return r.stdout.split()

def fail(msg):
    print('FAIL (%s): %s' % (kind, msg))
    sys.exit(1)

topo = json.load(open(topo_path))
nodes = json.load(open(nodes_path))['nodes']
byguid = {n['guid']: n for n in topo['nodes']}
switches = {n['guid'] for n in topo['nodes'] if n['type'] == 'switch'}
# Independent level computation: leaves have a CA cabled, then BFS.
def peers(n):
    return [p['peer'] for p in n.get('ports', []) if p.get('peer')]
level = {}
q = deque()
for g in sorted(switches):
    if any(byguid[p['guid']]['type'] == 'ca' for p in peers(byguid[g])):
        level[g] = 1
        q.append(g)
while q:
    g = q.popleft()
    for p in peers(byguid[g]):
        if p['guid'] in switches and p['guid'] not in level:
            level[p['guid']] = level[g] + 1
            q.append(p['guid'])

# Hosts, independently of fabric/model/hosts.c: the first word of a CA's name unless
# its description names no host (docs/slurm.md's table), and the CAs that share
# a system image GUID or a name are one host, named by its lowest name or
# host-<lowest system image GUID>.
def names_host(desc):
    w = desc.split()
    if not w:
        return False
    first = w[0].lower()
    if re.fullmatch(r'mt\d+', first) or desc.strip().lower().endswith('mellanox technologies'):
        return False
    if first in ('localhost', 'localhost.localdomain', '(none)', 'ubuntu', 'debian', 'fedora'):
        return False
    return bool(re.search(r'[A-Za-z0-9]', w[0]))
cas = [n for n in topo['nodes'] if n['type'] == 'ca' and 'Aggregation Node' not in (n.get('description') or '')]
named = {n['guid']: n['name'].split()[0] for n in nodes
         if n['type'] == 'ca' and (n['name'] != n.get('description') or names_host(n.get('description') or ''))}
parent = {n['guid']: n['guid'] for n in cas}
def find(g):
    while parent[g] != g:
        g = parent[g]
    return g
for key in ('system_image_guid', 'word'):
    first = {}
    for n in cas:
        k = n['system_image_guid'] if key == 'system_image_guid' else named.get(n['guid'])
        if not k or k == '0x0000000000000000':
            continue
        if k in first:
            a, b = find(first[k]), find(n['guid'])
            parent[max(a, b)] = min(a, b)
        else:
            first[k] = n['guid']
members = {}
for n in cas:
    members.setdefault(find(n['guid']), []).append(n)
host_of = {}
for ms in members.values():
    words = sorted(named[m['guid']] for m in ms if m['guid'] in named)
    name = words[0] if words else 'host-' + min(m['system_image_guid'] for m in ms)[2:]
    name = re.sub(r'[^A-Za-z0-9._-]+', '_', name).strip('_')
    for m in ms:
        host_of[m['guid']] = name
hosts = set(host_of.values())

lines, left_out = [], []
for raw in open(conf_path):
    raw = raw.rstrip('\n')
    # Slurm reads a line into 4096 bytes with fgets (src/common/parse_config.c): 4094 + newline at most.
    if len(raw) > 4094:
        fail('a line of %d characters: Slurm cuts it' % len(raw))
    if raw.startswith('# left out: '):
        left_out.append(raw)
        continue
    if not raw or raw.startswith('#'):
        continue
    body, _, comment = raw.partition('#')
    kv = dict(f.split('=', 1) for f in body.split())
    if set(kv) - {'SwitchName', 'Switches', 'Nodes'} or 'SwitchName' not in kv:
        fail('bad line: ' + raw)
    m = re.fullmatch(r' level (\d+), (0x[0-9a-f]{16})', comment)
    if not m:
        fail('bad comment: ' + raw)
    kv['level'], kv['guid'] = int(m.group(1)), m.group(2)
    lines.append(kv)

names = [l['SwitchName'] for l in lines]
if len(set(names)) != len(names):
    fail('SwitchName not unique')
for n in names:
    if not re.fullmatch(r'[A-Za-z0-9._-]+', n):
        fail('switch name Slurm cannot take: ' + n)
by_name = {l['SwitchName']: l for l in lines}

# Levels: the line's own, the independent computation, and the names' tier.
tier = {'leaf': 1, 'spine': 2, 'core': 3}
for l in lines:
    if l['level'] != level.get(l['guid']):
        fail('%s: level %s, computed %s' % (l['SwitchName'], l['level'], level.get(l['guid'])))
    t = re.match(r'(leaf|spine|core)\d', l['SwitchName'])
    if kind in ('fattree2', 'fattree3', 'dualrail'):
        if not t or tier[t.group(1)] != l['level']:
            fail('%s is at level %d' % (l['SwitchName'], l['level']))
    if ('Nodes' in l) != (l['level'] == 1):
        fail('%s: Nodes= on a switch of level %d' % (l['SwitchName'], l['level']))

# Switches=: exactly the listed neighbours one level down.
for l in lines:
    kids = expand(l.get('Switches', ''))
    if len(set(kids)) != len(kids):
        fail('%s lists a switch twice' % l['SwitchName'])
    for k in kids:
        if k not in by_name:
            fail('%s lists %s, which has no line' % (l['SwitchName'], k))
        if by_name[k]['level'] != l['level'] - 1:
            fail('%s (level %d) lists %s (level %d)' % (l['SwitchName'], l['level'], k, by_name[k]['level']))
    want = {by_name[o]['SwitchName'] for o in by_name
            if by_name[o]['level'] == l['level'] - 1
            and any(p['guid'] == by_name[o]['guid'] for p in peers(byguid[l['guid']]))}
    if set(kids) != want:
        fail('%s lists %s, want %s' % (l['SwitchName'], sorted(kids), sorted(want)))
    if l['level'] > 1 and not kids:
        fail('%s has no children' % l['SwitchName'])

# Hosts: each under exactly one leaf; together, every host of the fabric.
seen = {}
for l in lines:
    for h in expand(l.get('Nodes', '')):
        if h in seen:
            fail('%s under %s and %s' % (h, seen[h], l['SwitchName']))
        seen[h] = l['SwitchName']
if set(seen) != hosts:
    fail('hosts differ: missing %s, extra %s' % (sorted(hosts - set(seen))[:5], sorted(set(seen) - hosts)[:5]))

# Every host sits under the switch its (first) port 1 is cabled to.
for n in topo['nodes']:
    if n['type'] != 'ca':
        continue
    p1 = [p for p in n['ports'] if p['port'] == 1][0]
    if [m for m in cas if host_of[m['guid']] == host_of[n['guid']]][0] is not n:
        continue  # a host of several CAs is under the leaf of its first CA's port 1
    leaf = by_name[seen[host_of[n['guid']]]]
    if p1['peer']['guid'] != leaf['guid']:
        fail('%s is under %s, not the leaf of its port 1' % (n['name'], leaf['SwitchName']))

maxlevel = max(level.values())
if kind == 'fattree2' and (maxlevel != 2 or len(lines) != 15):
    fail('fattree2-small: %d levels, %d lines' % (maxlevel, len(lines)))
if kind == 'fattree3' and (maxlevel != 3 or len(lines) != 180 or sum(l['level'] == 3 for l in lines) != 36):
    fail('fattree3: %d levels, %d lines' % (maxlevel, len(lines)))
if kind == 'dualrail':
    # Port 2 of every host is on leaf02 or leaf04: those have nothing of their own.
    if sorted(l['SwitchName'] for l in lines if l['level'] == 1) != ['leaf01', 'leaf03']:
        fail('dualrail leaves: %s' % [l['SwitchName'] for l in lines if l['level'] == 1])
    if len(left_out) != 2 or not all('listed under another leaf' in x for x in left_out):
        fail('dualrail: left out %s' % left_out)
    for l in lines:
        if l['level'] == 2 and l['Switches'] != 'leaf[01,03]':
            fail('%s: Switches=%s' % (l['SwitchName'], l['Switches']))
if kind == 'net2':
    if sorted(names) != ['Switch1', 'Switch2'] or maxlevel != 1:
        fail('net.2sw2path4hca: %s' % names)
print('ok %s: %d lines, %d hosts, %d levels' % (kind, len(lines), len(seen), maxlevel))
EOF

# scontrol show hostnames runs without a controller, given any slurm.conf.
command -v scontrol >/dev/null || fail "scontrol is not installed (make deps: slurm-client)"
printf 'ClusterName=ibscan-test\nSlurmctldHost=localhost\n' >"$TMP/slurm.conf"
export SLURM_CONF=$TMP/slurm.conf
# The expansion is Slurm's: checked here on Slurm's documented examples and on the forms ibscan writes.
[ "$(scontrol show hostnames 'tux[0-5,12,20-25]' | tr '\n' ' ')" = "tux0 tux1 tux2 tux3 tux4 tux5 tux12 tux20 tux21 tux22 tux23 tux24 tux25 " ] ||
	fail "scontrol does not expand Slurm's own example"
[ "$(scontrol show hostnames 'E[1-2]_H[1],node[09-10]' | tr '\n' ' ')" = "E1_H1 E2_H1 node09 node10 " ] ||
	fail "scontrol does not expand a number inside a name"
scontrol show hostnames 'E[1-2]_H1' 2>&1 | grep -q 'Invalid hostlist' ||
	fail "scontrol takes a bracket before text: the test's premise is wrong"

check() {
	local cap=$1 kind=$2
	run 0 topology --format slurm --replay "$caps/$cap.cap"
	cp "$TMP/out" "$TMP/$kind.conf"
	run 0 topology --json --replay "$caps/$cap.cap" -o "$TMP/$kind.topo.json"
	run 0 nodes --json --replay "$caps/$cap.cap" -o "$TMP/$kind.nodes.json"
	python3 "$TMP/check.py" "$TMP/$kind.conf" "$TMP/$kind.topo.json" "$TMP/$kind.nodes.json" "$kind" ||
		fail "$cap: topology.conf is wrong (in $TMP/$kind.conf)"
	# Deterministic, and -o writes the same bytes.
	run 0 topology --format slurm --replay "$caps/$cap.cap" -o "$TMP/$kind.again"
	cmp -s "$TMP/$kind.conf" "$TMP/$kind.again" || fail "$cap: -o output differs from stdout"
}

check fattree2-small fattree2
check fattree3 fattree3
check dualrail dualrail
check net.2sw2path4hca net2
check director director

# Sorted and compressed as Slurm writes them: numbers as numbers, wherever they stand.
grep -qx 'SwitchName=ibcore1_L01 Nodes=E\[1-12\]_H\[1\]  # level 1, 0x0002c90300a00011' "$TMP/director.conf" ||
	fail "director: leaf L01's E1_H1 ... E12_H1 not E[1-12]_H[1]"
grep -qx 'SwitchName=ibcore1_L03 Nodes=gpu01,host-0002c90300f1c000,host-0002c90300f10130,host-0002c90300f10140,host-0002c90300f10170,host-0002c90300f10180,login1  # level 1, 0x0002c90300a00013' \
	"$TMP/director.conf" || fail "director: leaf L03's hosts (GUID names are not numbers)"

# director: 27 CAs on 25 servers; descriptions that name no host are not hosts.
out_has_conf() { grep -qF -- "$1" "$TMP/director.conf" || { cat "$TMP/director.conf" >&2; fail "director: lacks $1"; }; }
out_has_conf "5 switches in 2 levels, 25 hosts."
grep -E '^SwitchName=' "$TMP/director.conf" | grep -Eq 'MT4129|localhost|ubuntu|Mellanox' &&
	fail "director: a factory-default description became a host"
# The two adapters of one unnamed server are one host, named by its system image GUID.
out_has_conf "host-0002c90300f1c000"
# A director's ASICs keep their slot (MF0;ibcore1:SX6536/L01/U1 is ibcore1_L01), no GUID appended.
grep -qx 'SwitchName=ibcore1_S01 Switches=ibcore1_L\[01-03\]  # level 2, 0x0002c90300a00001' "$TMP/director.conf" ||
	fail "director: spine S01 line"
grep -q '^SwitchName=ibcore1_L02 Nodes=' "$TMP/director.conf" || fail "director: leaf L02 line"
grep -q 'ibcore1-0002c9' "$TMP/director.conf" && fail "director: ASICs made unique by GUID, not by slot"
# A node-name map names what the description does not.
printf '0x0002c90300f10130 "rack7-n3"\n' >"$TMP/dmap"
run 0 topology --format slurm --node-name-map "$TMP/dmap" --replay "$caps/director.cap"
out_has "rack7-n3"
! grep -q "host-0002c90300f10130" "$TMP/out" || fail "director: the mapped CA is still named by its GUID"

# The fixture descriptions, as operators see them.
grep -qx 'SwitchName=leaf01 Nodes=node\[0001-0018\]  # level 1, 0x0002c90300e10001' "$TMP/fattree2.conf" ||
	fail "fattree2-small: leaf01 line"
grep -qx 'SwitchName=spine01 Switches=leaf\[01-06\]  # level 2, 0x0002c90300e20001' "$TMP/fattree2.conf" ||
	fail "fattree2-small: spine01 line"
grep -qx 'SwitchName=core01 Switches=spine\[01,07,13,19,25,31,37,43,49,55,61,67\]  # level 3, 0x0002c90300e30001' \
	"$TMP/fattree3.conf" || fail "fattree3: core01 line"
# Two leaves cabled to each other with no switch above: said in the file.
grep -q '^# WARNING: no switch reaches every host' "$TMP/net2.conf" || fail "net.2sw2path4hca: no warning"
! grep -q WARNING "$TMP/fattree3.conf" || fail "fattree3: a warning"

# A node-name map renames switches and hosts; names Slurm cannot take are sanitised.
printf '0x0002c90300e10001 "edge 1"\n0x0002c90300f00004 "login01 (front end)"\n' >"$TMP/map"
run 0 topology --format slurm --node-name-map "$TMP/map" --replay "$caps/fattree2-small.cap"
out_has 'SwitchName=edge_1 Nodes=login01,node[0002-0018]  # level 1'
out_has 'SwitchName=spine01 Switches=edge_1,leaf[02-06]  # level 2'

# Only the topology view has it.
run 2 nodes --format slurm --replay "$caps/fattree2-small.cap"
err_has "unknown format 'slurm' (text or json)"
run 2 topology --format slurmx --replay "$caps/fattree2-small.cap"
err_has "(text, json, dot, svg, netfile, slurm, slurm-block, slurm-yaml or plan)"
run 0 help topology
out_has "slurm (topology.conf for Slurm's topology/tree plugin)"

# A partial walk still writes the file, marked, and exits 3.
run 3 topology --format slurm --replay "$caps/dead-switch.cap"
out_has "# PARTIAL:"
echo "slurm: ok"
t_done
