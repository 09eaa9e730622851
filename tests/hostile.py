#!/usr/bin/env python3
"""Hostile strings for every input ibscan reads, and checks that every output stays safe.

Used by tests/cli/t_hostile.sh (captures, baselines, node-name maps) and
tests/sim/t_hostile.sh (a live fabric, an ibnetdiscover cache, ibsim loading
the netfile ibscan writes). Subcommands:

  capture SRC OUT          SRC with hostile tool/ca= header lines and NodeDescriptions
  json-baseline SRC OUT    an ibscan topology (JSON) with hostile descriptions; one
                           hostile node gets a new GUID, so a diff names it as removed
  net-baseline SRC OUT     the same for an ibnetdiscover netfile (raw bytes)
  namemap TOPO OUT         a node-name map giving hostile names to nodes of TOPO (JSON)
  ibsim-topology SRC OUT   an ibsim topology file with hostile node descriptions
  cache SRC OUT            an ibnetdiscover cache of that fabric with its descriptions
                           (64-byte fields, cleaned by ibnetdiscover) made hostile again
  slurm-chain TOPO OUT     a node-name map naming the switches of TOPO so that
                           suffixing a colliding name collides again, round after round
  text FILE...             the files are safe text (see check_text)
  json FILE...             the files are JSON whose every string is safe text
  slurm CONF               exactly one SwitchName line per switch, all names distinct
  netfile FILE             every line fits ibsim's 255-byte line buffer
"""
import json
import re
import sys
import unicodedata

# What an attacker may put in a string: terminal escapes, BEL, a C1 CSI in
# both forms, a bidi override, invalid UTF-8, quotes and backslashes, line
# breaks, ibsim port options, markup, and length.
HOSTILE = [
    b'\x1b[31mred\x1b[0m\x07\x1b]0;pwned\x07',
    b'csi\x9b2J\xc2\x9b31m',
    b'evil\xe2\x80\xaetxt.exe\xe2\x81\xa6',
    b'bad\xff\xfe\xc0\xafutf8\xe2\x80',
    b'q"uo"te \\back\\slash\\x1b',
    b'new\nline\rtab\t',
    b' w=3 s=0 e=99 <script>alert(1)</script>',
    b'\x00nul',
]
LONG = b'L\x1b' * 1500


def fail(msg):
    print('FAIL: ' + msg, file=sys.stderr)
    sys.exit(1)


def wire(i):
    """A NodeDescription (at most 64 bytes) holding hostile string i."""
    return (b'h%d ' % i + HOSTILE[i % len(HOSTILE)])[:64]


def no_quote_nl(b):
    """For formats that cannot carry a quote or a line break at all."""
    return b.replace(b'"', b'').replace(b'\n', b'').replace(b'\r', b'').replace(b'\x00', b'')


# ---- generators ----

def as_unicode(b):
    """JSON holds code points: UTF-8 where it is, else each byte as one (0x9b is U+009B)."""
    try:
        return b.decode('utf-8')
    except UnicodeDecodeError:
        return b.decode('latin-1')


def gen_capture(src, out):
    lines = open(src, 'rb').read().split(b'\n')
    res, n = [], 0
    for i, l in enumerate(lines):
        if l.startswith(b'tool '):
            l = b'tool ibscan \x1b[31m\x07\xe2\x80\xae\xc2\x9b\x9b\xff "\\<script>'
        elif l.startswith(b'local '):
            l = l.replace(b'ca=ibsim0', b'ca=ib\x1b]0;pwned\x07\x9b\xe2\x80\xaesim0')
        elif l.startswith(b'< resp ') and i >= 2 and b' NodeDescription ' in lines[i - 2]:
            mad = bytearray(bytes.fromhex(l[7:].decode()).ljust(256, b'\0'))
            # every third node, leaves and hosts alike; the rest keep their names
            if n % 3 == 0:
                d = wire(n // 3) if n // 3 != 5 else b'\x9b' * 64
                mad[64:128] = d.ljust(64, b'\0')
            n += 1
            l = b'< resp ' + mad.hex().encode()
        res.append(l)
    open(out, 'wb').write(b'\n'.join(res))


def gen_json_baseline(src, out):
    d = json.load(open(src))
    nodes = d['nodes']
    for k, n in enumerate(nodes):
        if k % 4 == 0:
            b = HOSTILE[(k // 4) % len(HOSTILE)] if k // 4 != 3 else LONG
            # jansson refuses \u0000 (a baseline with one is refused whole): no NUL here
            n['description'] = as_unicode(b.replace(b'\x00', b''))
    # One hostile node is "removed": a GUID the live fabric does not have.
    nodes[4]['guid'] = '0x00000000deadbeef'
    json.dump(d, open(out, 'w'))


def gen_net_baseline(src, out):
    lines = open(src, 'rb').read().split(b'\n')
    res, k, moved = [], 0, False
    for l in lines:
        m = re.match(rb'^((?:Switch|Ca|Rt)\t\d+ "[^"]*"\t\t# ")([^"]*)(".*)$', l)
        if m:
            if k % 3 == 0:
                l = m.group(1) + no_quote_nl(HOSTILE[(k // 3) % len(HOSTILE)] if k // 3 != 4 else LONG[:200]) + m.group(3)
            k += 1
        elif l.startswith(b'caguid=') and not moved and k > 3:
            l, moved = b'caguid=0xdeadbeef', True
        res.append(l)
    open(out, 'wb').write(b'\n'.join(res))


def gen_namemap(topo, out):
    nodes = json.load(open(topo))['nodes']
    with open(out, 'wb') as f:
        f.write(b'# hostile names\n')
        for k, n in enumerate(nodes):
            if k % 2 == 0:
                name = no_quote_nl(HOSTILE[(k // 2) % len(HOSTILE)] if k // 2 != 2 else LONG)
                f.write(n['guid'].encode() + b' "' + name + b'"\n')


def ibsim_desc(k):
    """Node k's description in the ibsim topology (and the cache): 63 bytes at most, as ibsim keeps."""
    return no_quote_nl(b'h%d ' % k + HOSTILE[(k // 3) % len(HOSTILE)])[:63]


def gen_ibsim_topology(src, out):
    lines = open(src, 'rb').read().split(b'\n')
    res, k = [], 0
    for l in lines:
        m = re.match(rb'^((?:Switch|Ca|Hca|Rt)\t\d+ "[^"]*"\t\t# ")([^"]*)(".*)$', l)
        if m and k > 0:  # the first node is where clients attach: leave its name
            if k % 3 == 1:
                # ibsim keeps 63 bytes of a description
                l = m.group(1) + ibsim_desc(k) + m.group(3)
        if m:
            k += 1
        res.append(l)
    open(out, 'wb').write(b'\n'.join(res))


def gen_cache(src, out):
    """
    ibnetdiscover blanks control characters before it writes a cache, but a
    cache is a file anyone may hand over: put raw bytes back into the 64-byte
    NodeDescription fields of the nodes gen_ibsim_topology named "hN ...".
    """
    b = bytearray(open(src, 'rb').read())
    n = 0
    for m in re.finditer(rb'(?<=\x00)h(\d+) [^\x00]*\x00', bytes(b)):
        i, k = m.start(), int(m.group(1))
        b[i:i + 64] = ibsim_desc(k).ljust(64, b'\0')
        n += 1
    if not n:
        fail('%s: no description to replace' % src)
    open(out, 'wb').write(b)


def gen_slurm_chain(topo, out):
    """
    Two switches named "x" become "x-G0" and "x-G1"; a third already named
    "x-G0" then collides with the first, and so on: each switch is named
    what the previous round would have turned the first one into (ibscan
    up to 0.1.0 appended "-GUID", then "-index", for at most 8 rounds).
    """
    sws = [n for n in json.load(open(topo))['nodes'] if n['type'] == 'switch']
    if len(sws) < 11:
        fail('slurm-chain needs 11 switches')
    g0, i0 = sws[0]['guid'][2:], sws[0]['index']
    names = ['x', 'x']
    cur = 'x-' + g0
    for _ in sws[2:]:
        names.append(cur)
        cur += '-%d' % i0
    with open(out, 'w') as f:
        for s, name in zip(sws, names):
            f.write('%s "%s"\n' % (s['guid'], name))


# ---- checks ----

def bad_char(c):
    """A character no text output may hold: controls but newline and tab, C1, format, separators."""
    if c in '\n\t':
        return False
    return unicodedata.category(c) in ('Cc', 'Cf', 'Zl', 'Zp', 'Cs') or 0x80 <= ord(c) <= 0x9f


def check_str(s, where):
    for i, c in enumerate(s):
        if bad_char(c):
            fail('%s: character U+%04X at %d: %r' % (where, ord(c), i, s[max(0, i - 20):i + 20]))


def check_text(path):
    b = open(path, 'rb').read()
    for bad in (b'\x1b', b'\x9b', b'\x07'):
        if bad in b:
            i = b.index(bad)
            fail('%s: byte %r at %d: %r' % (path, bad, i, b[max(0, i - 30):i + 30]))
    try:
        s = b.decode('utf-8')
    except UnicodeDecodeError as e:
        fail('%s: not UTF-8: %s' % (path, e))
    for n, line in enumerate(s.split('\n'), 1):
        check_str(line, '%s:%d' % (path, n))


def check_json(path):
    check_text(path)

    def walk(v, where):
        if isinstance(v, str):
            check_str(v, where)
        elif isinstance(v, list):
            for i, x in enumerate(v):
                walk(x, '%s[%d]' % (where, i))
        elif isinstance(v, dict):
            for k, x in v.items():
                check_str(k, where)
                walk(x, '%s.%s' % (where, k))
    walk(json.load(open(path)), path)


def check_slurm(path):
    names, guids = [], []
    for line in open(path, encoding='utf-8'):
        if not line.startswith('SwitchName='):
            continue
        names.append(line.split()[0].split('=', 1)[1])
        m = re.search(r'# level \d+, (0x[0-9a-f]{16})$', line.rstrip('\n'))
        if not m:
            fail('%s: no level/GUID comment: %s' % (path, line))
        guids.append(m.group(1))
        if not re.fullmatch(r'[A-Za-z0-9._-]+', names[-1]):
            fail('%s: a name Slurm cannot take: %s' % (path, names[-1]))
    if not names:
        fail('%s: no SwitchName line' % path)
    # A list too long for Slurm's line goes on in NAME-partK lines of the same switch.
    first = {}
    for nm, g in zip(names, guids):
        if g in first and not re.fullmatch(re.escape(first[g]) + r'-part\d+', nm):
            fail('%s: a switch has two SwitchName lines' % path)
        first.setdefault(g, nm)
    for line in open(path, encoding='utf-8'):
        if len(line.rstrip('\n')) > 4094:
            fail('%s: a line longer than Slurm reads (4094 + newline)' % path)
    dup = sorted(n for n in set(names) if names.count(n) > 1)
    if dup:
        fail('%s: SwitchName not unique: %s' % (path, dup))
    print('%d switches, %d distinct names' % (len(guids), len(set(names))))


def check_netfile(path):
    for n, line in enumerate(open(path, 'rb'), 1):
        if len(line) > 255:
            fail('%s:%d: %d bytes, longer than ibsim reads' % (path, n, len(line)))
    check_text(path)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    gens = {'capture': gen_capture, 'cache': gen_cache, 'json-baseline': gen_json_baseline, 'net-baseline': gen_net_baseline,
            'namemap': gen_namemap, 'ibsim-topology': gen_ibsim_topology, 'slurm-chain': gen_slurm_chain}
    if cmd in gens:
        gens[cmd](*args)
    elif cmd == 'text':
        for a in args:
            check_text(a)
    elif cmd == 'json':
        for a in args:
            check_json(a)
    elif cmd == 'slurm':
        check_slurm(args[0])
    elif cmd == 'netfile':
        check_netfile(args[0])
    else:
        fail('unknown subcommand ' + cmd)


if __name__ == '__main__':
    main()
