#!/usr/bin/env python3
"""The comparisons of tools/hwcheck/hwcheck.sh: a reference tool's output (in the
format its source prints, cited at each parser) against ibscan's JSON. Each
subcommand prints one line, "PASS detail" or "FAIL detail", and exits 0.

  path SAQUERY PATH_JSON                 saquery -p vs ibscan path
  sm SMINFO SM_JSON                      sminfo vs ibscan sm
  linkinfo IBLINKINFO TOPO_JSON LINKS_JSON
                                         iblinkinfo --line vs ibscan: two lines,
                                         port states, then degraded links
  gids SMPQUERY_GI TOPO_JSON GUID PORT   smpquery GUIDInfo vs ibscan --gids
  counters BEFORE AFTER CTR_JSON GUID PORT [ext]
                                         ibscan's counters between two perfquery
                                         readings (perfquery, or perfquery -x)
  rate BEFORE AFTER SECONDS CTR_JSON GUID PORT TOL_PCT
                                         ibscan counters --interval's xmit rate vs
                                         perfquery -x's over the same span
  routes IBROUTE ROUTES_JSON LID         ibroute -n vs ibscan routes --dump
  rdma-count KIND CA PORT                count of `rdma res show KIND` lines
                                         (stdin) on CA (QPs: on CA/PORT)
"""
import json
import re
import sys


def out(ok, detail):
    print(('PASS ' if ok else 'FAIL ') + detail)
    sys.exit(0)


def load(p):
    with open(p) as f:
        return json.load(f)


def dotted(text):
    """Lines "name.......value", as perfquery (mad_dump_* fields) and saquery's dumps print them."""
    d = {}
    for line in text.splitlines():
        m = re.match(r'^\s*([A-Za-z_0-9]+):?\.+(\S+)\s*$', line)
        if m:
            d.setdefault(m.group(1), m.group(2))
    return d


def num(s):
    return int(s, 0)


def cmd_path(sa_p, js_p):
    # infiniband-diags saquery.c dump_path_record: dlid and slid "%u" (decimal),
    # sl and mtu "0x%X" (mtu with its 2-bit selector on top).
    sa = dotted(open(sa_p).read())
    pr = load(js_p)
    bad = []
    for f in ('slid', 'dlid', 'sl'):
        if f not in sa or num(sa[f]) != pr.get(f):
            bad.append('%s saquery %s ibscan %s' % (f, sa.get(f), pr.get(f)))
    if 'mtu' not in sa or num(sa['mtu']) & 0x3f != pr.get('mtu_code'):
        bad.append('mtu saquery %s ibscan %s' % (sa.get('mtu'), pr.get('mtu_code')))
    if bad:
        out(False, '; '.join(bad))
    out(True, 'LID %s to %s: slid, dlid, sl, mtu as saquery' % (sa['slid'], sa['dlid']))


def cmd_sm(si_p, js_p):
    # infiniband-diags sminfo.c: "sminfo: sm lid %d sm guid 0x%" PRIx64 ", activity count %u priority %d state %d %s"
    m = re.search(r'sm lid (\d+) sm guid (0x[0-9a-fA-F]+), activity count (\d+) priority (\d+) state (\d+) (\S+)',
                  open(si_p).read())
    if not m:
        out(False, 'no sminfo line')
    lid, guid, prio, state = int(m.group(1)), int(m.group(2), 16), int(m.group(4)), int(m.group(5))
    sm = load(js_p)['sm']
    names = {0: 'not active', 1: 'discovering', 2: 'standby', 3: 'master'}
    hit = [s for s in sm['sms'] if s.get('lid') == lid]
    if sm.get('master_lid') != lid or not hit:
        out(False, 'sminfo: master at LID %d, ibscan: %s' % (lid, sm.get('master_lid')))
    s = hit[0]
    bad = []
    if int(s.get('sm_guid') or '0', 16) != guid:
        bad.append('guid sminfo 0x%x ibscan %s' % (guid, s.get('sm_guid')))
    if s.get('priority') != prio:
        bad.append('priority sminfo %d ibscan %s' % (prio, s.get('priority')))
    if s.get('state') != names.get(state):
        bad.append('state sminfo %s ibscan %s' % (m.group(6), s.get('state')))
    if bad:
        out(False, '; '.join(bad))
    out(True, 'master at LID %d, GUID 0x%x, priority %d, %s, as sminfo' % (lid, guid, prio, m.group(6)))


def linkinfo_lines(text):
    """iblinkinfo --line (infiniband-diags iblinkinfo.c print_port):
    GUID "DESC" LID PORT[EXT] ==( WIDTH SPEED STATE/ PHYS)==> PEERGUID LID PORT[EXT] "PEER" ( could be ... )"""
    ports = {}
    for line in text.splitlines():
        m = re.match(r'^(0x[0-9a-f]{16}) +"[^"]*" +(\d+) +(\d+)\[[^\]]*\] ==\((.*)\)==> *(.*)$', line)
        if not m:
            continue
        guid, port, link, rest = int(m.group(1), 16), int(m.group(3)), m.group(4), m.group(5)
        st = re.search(r'(\w+)/ *(\w+)\s*$', link)
        could = re.search(r'\(([^()]*)\)\s*$', rest)
        ports[(guid, port)] = {
            'state': st.group(1) if st else None,
            'phys': st.group(2) if st else None,
            'could': bool(could and 'Could be' in could.group(1)),
        }
    return ports


def port_key(topo, end):
    """(port GUID, port) of one end of a link, as iblinkinfo keys it."""
    for n in topo['nodes']:
        if n['guid'] == end['guid']:
            for p in n.get('ports', []):
                if p['port'] == end['port'] and p.get('guid'):
                    return (int(p['guid'], 16), p['port'])
    return (int(end['guid'], 16), end['port'])


def cmd_linkinfo(li_p, topo_p, links_p):
    li = linkinfo_lines(open(li_p).read())
    topo = load(topo_p)
    mine = {}
    for n in topo['nodes']:
        for p in n.get('ports', []):
            # iblinkinfo names a port by its port GUID (a switch's ports all carry the switch's).
            if p.get('guid') and (p['port'] > 0 or n['type'] != 'switch'):
                mine[(int(p['guid'], 16), p['port'])] = p
    bad = []
    for k, v in li.items():
        p = mine.get(k)
        if not p:
            bad.append('0x%016x[%d] not in ibscan' % k)
        elif (p.get('state'), p.get('phys_state')) != (v['state'], v['phys']):
            bad.append('0x%016x[%d] iblinkinfo %s/%s ibscan %s/%s' % (k + (v['state'], v['phys'], p.get('state'),
                                                                            p.get('phys_state'))))
    print(('FAIL port-states: ' + '; '.join(bad[:5])) if bad or not li else
          'PASS port-states: %d ports, state and physical state as iblinkinfo' % len(li))
    # "Could be" (ibdiag_common.c get_max_msg): active below what both ends SUPPORT. ibscan's
    # degraded: below what both ends support AND have enabled. So ibscan's degraded links are
    # iblinkinfo's, less those an operator limited (the enabled sets allow no more).
    rank = {'1x': 1, '2x': 2, '4x': 4, '8x': 8, '12x': 12}
    speeds = ['SDR', 'DDR', 'QDR', 'FDR10', 'FDR', 'EDR', 'HDR', 'NDR', 'XDR']
    bad = []
    n_deg = 0
    def room(pa, pb, l):
        """Whether what both ends have enabled allows more than the link runs at."""
        w = set(pa.get('width_enabled') or []) & set(pb.get('width_enabled') or [])
        s = set(pa.get('speed_enabled') or []) & set(pb.get('speed_enabled') or [])
        wmax = max((rank.get(x, 0) for x in w), default=0)
        smax = max((speeds.index(x) for x in s if x in speeds), default=-1)
        return wmax > rank.get(l.get('width'), 0) or smax > (speeds.index(l['speed']) if l.get('speed') in speeds else -1)

    for l in load(links_p)['links']:
        a, b = l['a'], l['b']
        ka, kb = port_key(topo, a), port_key(topo, b)
        could = li.get(ka, {}).get('could') or li.get(kb, {}).get('could')
        more = room(mine.get(ka, {}), mine.get(kb, {}), l)
        if l.get('degraded'):
            n_deg += 1
            if not could:
                bad.append('%s[%d]: ibscan degraded, iblinkinfo not' % (a['name'], a['port']))
            elif not more:
                bad.append('%s[%d]: ibscan degraded, but the enabled rates allow no more' % (a['name'], a['port']))
        elif could and more:
            bad.append('%s[%d]: iblinkinfo Could be, enabled allows more, ibscan not degraded' % (a['name'], a['port']))
    if bad:
        print('FAIL degraded: ' + '; '.join(bad[:5]))
    else:
        print('PASS degraded: %d degraded links, each one iblinkinfo says Could be; the others are limited by '
              'their enabled rates' % n_deg)


def cmd_gids(gi_p, topo_p, guid, port):
    # infiniband-diags smpquery.c guid_info: "%4u: 0x%016" PRIx64 " 0x%016" PRIx64, two GUIDs a line,
    # then "%d guids capacity for this port".
    want = {}
    for line in open(gi_p):
        m = re.match(r'^\s*(\d+): (0x[0-9a-f]{16}) (0x[0-9a-f]{16})\s*$', line)
        if m:
            i = int(m.group(1))
            want[i], want[i + 1] = int(m.group(2), 16), int(m.group(3), 16)
    cap = re.search(r'(\d+) guids capacity', open(gi_p).read())
    if not want or not cap:
        out(False, 'no GUIDInfo table from smpquery')
    n = int(cap.group(1))
    node = [x for x in load(topo_p)['nodes'] if int(x['guid'], 16) == int(guid, 16)]
    p = [x for x in node[0]['ports'] if x['port'] == int(port)] if node else []
    if not p:
        out(False, 'ibscan has no port %s of %s' % (port, guid))
    got = {}
    # ibscan's gids: GID[i] = GidPrefix + GUIDInfo[i], in index order.
    for i, g in enumerate(p[0].get('gids') or []):
        got[i] = int(g.replace(':', '')[16:], 16)
    bad = ['index %d smpquery 0x%016x ibscan %s' % (i, want[i], '0x%016x' % got[i] if i in got else 'none')
           for i in range(n) if want.get(i) and got.get(i) != want[i]]
    bad += ['index %d ibscan 0x%016x smpquery none' % (i, got[i]) for i in got if got[i] and not want.get(i)]
    if p[0].get('guid_cap') != n:
        bad.append('GUIDCap smpquery %d ibscan %s' % (n, p[0].get('guid_cap')))
    if bad:
        out(False, '; '.join(bad[:5]))
    out(True, '%d GUIDs of %d as smpquery GUIDInfo' % (sum(1 for v in want.values() if v), n))


# perfquery's names for what ibscan counters --json reports under other keys (data in bytes: perfquery
# counts 4-byte words, IBA 16.1.3.5).
DATA = {'PortXmitData': ('xmit_bytes', 4), 'PortRcvData': ('rcv_bytes', 4),
        'PortXmitPkts': ('xmit_packets', 1), 'PortRcvPkts': ('rcv_packets', 1)}


def port_counters(ctr_p, guid, port):
    for p in load(ctr_p)['ports_counters']:
        if int(p['guid'], 16) == int(guid, 16) and p['port'] == int(port):
            return p
    return None


def cmd_counters(before_p, after_p, ctr_p, guid, port, ext=''):
    # perfquery.c dumps PortCounters (or -x PortCountersExtended) with mad_dump_fields: "Name:....value".
    b, a = dotted(open(before_p).read()), dotted(open(after_p).read())
    p = port_counters(ctr_p, guid, port)
    if not p:
        out(False, 'ibscan has no counters of %s port %s' % (guid, port))
    bad, n = [], 0
    for name in sorted(set(b) & set(a)):
        if name in ('PortSelect', 'CounterSelect', 'CounterSelect2'):
            continue
        if name in DATA:
            key, mul = DATA[name]
            got = p.get(key)
            lo, hi = num(b[name]) * mul, num(a[name]) * mul
        else:
            if ext:
                continue  # the extended attribute adds unicast/multicast packet counts ibscan does not report
            got = p['counters'].get(name)
            lo, hi = num(b[name]), num(a[name])
        if got is None:
            continue
        n += 1
        if not lo <= got <= hi:
            bad.append('%s ibscan %d, perfquery %d then %d' % (name, got, lo, hi))
    if bad or not n:
        out(False, '; '.join(bad[:5]) or 'no counter to compare')
    out(True, '%d %scounters of %s port %s between two perfquery readings' % (n, 'extended ' if ext else '', guid,
                                                                                port))


def cmd_rate(before_p, after_p, secs, ctr_p, guid, port, tol):
    b, a = dotted(open(before_p).read()), dotted(open(after_p).read())
    p = port_counters(ctr_p, guid, port)
    d = p and p.get('deltas')
    if not d or d.get('xmit_bytes_per_s') is None:
        out(False, 'ibscan counters --interval gave no rate for %s port %s' % (guid, port))
    ref = (num(a['PortXmitData']) - num(b['PortXmitData'])) * 4 / float(secs)
    got = d['xmit_bytes_per_s']
    # A quiet port moves a few MAD-sized packets a second: judge those in bytes, not percent.
    if abs(got - ref) <= max(ref * float(tol) / 100, 4096):
        out(True, 'xmit %.0f B/s, perfquery -x over the span %.0f B/s' % (got, ref))
    out(False, 'xmit %.0f B/s, perfquery -x over the span %.0f B/s (more than %s %% apart)' % (got, ref, tol))


def cmd_routes(ibr_p, js_p, lid):
    # infiniband-diags ibroute.c dump_unicast_tables with -n: "0x%04x %03u " then (no names).
    want = set()
    for line in open(ibr_p):
        m = re.match(r'^(0x[0-9a-fA-F]+) (\d+)\b', line)
        if m:
            want.add((int(m.group(1), 16), int(m.group(2))))
    sw = [s for s in load(js_p)['switches'] if s['lid'] == int(lid)]
    got = {(r['lid'], r['port']) for r in sw[0]['routes']} if sw else set()
    if not want or want != got:
        out(False, 'switch LID %s: %d entries differ' % (lid, len(want ^ got)))
    out(True, 'switch LID %s: %d LFT entries as ibroute -n' % (lid, len(want)))


def cmd_rdma_count(kind, ca, port):
    # iproute2 rdma/res-qp.c prints "link %s/%u" (device/port) first; res-mr.c and the others "dev %s".
    want = ('link %s/%s ' % (ca, port)) if kind == 'qp' else ('dev %s ' % ca)
    print(sum(1 for line in sys.stdin if line.startswith(want)))


cmds = {'path': cmd_path, 'sm': cmd_sm, 'linkinfo': cmd_linkinfo, 'gids': cmd_gids, 'counters': cmd_counters,
        'rate': cmd_rate, 'routes': cmd_routes, 'rdma-count': cmd_rdma_count}
if len(sys.argv) < 2 or sys.argv[1] not in cmds:
    sys.exit(__doc__)
try:
    cmds[sys.argv[1]](*sys.argv[2:])
except (OSError, ValueError, KeyError, IndexError, TypeError, json.JSONDecodeError) as e:
    print('FAIL cannot compare: %s: %s' % (type(e).__name__, e))
