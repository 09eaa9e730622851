#!/bin/bash
# The man page docs/ibscan.1: lint-clean for man(1)/groff and mandoc, and the
# same commands and long options as `ibscan --help` and `ibscan help CMD`
# (both ways: a command or option added to one and not the other fails).
# The checker is also run on a doctored page and a doctored ibscan, to show
# that it does fail then.
. "$(dirname "$0")/lib.sh"
page=$ROOT/docs/ibscan.1

command -v mandoc >/dev/null || fail "mandoc is not installed (make deps)"
command -v man >/dev/null || fail "man is not installed (make deps)"
out=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null) || fail "man -l failed: $out"
[ -z "$out" ] || fail "man --warnings: $out"
out=$(mandoc -T lint "$page" 2>&1) || fail "mandoc -T lint: $out"
[ -z "$out" ] || fail "mandoc -T lint: $out"

cat >"$TMP/check.py" <<'EOF'
import re, subprocess, sys

page, ibscan = sys.argv[1], sys.argv[2]
src = open(page).read().split('\n')
errors = []

def sections(lines, macro):
    """[(title, [lines])] for each `macro` heading."""
    out, cur = [], None
    for l in lines:
        m = re.match(r'^\.%s\s+"?([^"]*)"?\s*$' % macro, l)
        if m:
            cur = (m.group(1), [])
            out.append(cur)
        elif cur:
            cur[1].append(l)
    return out

def tp_options(lines):
    """Long options named on the line after each .TP."""
    opts = set()
    for i, l in enumerate(lines):
        if l.startswith('.TP') and i + 1 < len(lines):
            opts |= set(re.findall(r'\\-\\-((?:[a-z0-9]|\\-)+)', lines[i + 1]))
    return {o.replace('\\-', '-') for o in opts}

sh = dict(sections(src, 'SH'))
groups = {t.split()[0].lower(): tp_options(b) for t, b in sections(sh.get('OPTIONS', []), 'SS')}
man_cmds = {}
for title, body in sections(sh.get('COMMANDS', []), 'SS'):
    text = ' '.join(l for l in body if not l.startswith('.\\"'))
    text = re.sub(r'\s+', ' ', re.sub(r'^\.[A-Z]+ ?', '', text))
    opts = tp_options(body)
    for g in ('view', 'drawing', 'fabric', 'common'):
        if re.search(r'the %s options' % g, text):
            opts |= groups.get(g, set())
    man_cmds[title] = opts

def run(*args):
    p = subprocess.run([ibscan] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout

rc, usage = run('--help')
if rc != 0:
    errors.append('ibscan --help exited %d' % rc)
cmds = []
inside = False
for l in usage.split('\n'):
    if l.startswith('commands:'):
        inside = True
    elif inside and not l.strip():
        break
    elif inside and re.match(r'^  [a-z]', l):
        cmds.append(l.split()[0])
for c in sorted(set(cmds) - set(man_cmds)):
    errors.append('command %s is in ibscan --help but has no .SS in the man page' % c)
for c in sorted(set(man_cmds) - set(cmds)):
    errors.append('command %s is in the man page but not in ibscan --help' % c)

def help_options(text):
    return set(re.findall(r'^\s+(?:-\w, )?--([a-z0-9][a-z0-9-]*)', text, re.M))

for c in cmds:
    if c == 'help':
        if man_cmds.get(c):
            errors.append('help has options in the man page: %s' % sorted(man_cmds[c]))
        continue
    rc, text = run('help', c)
    if rc != 0:
        errors.append('ibscan help %s exited %d' % (c, rc))
        continue
    want, got = help_options(text), man_cmds.get(c, set())
    for o in sorted(want - got):
        errors.append('%s: --%s is in ibscan help %s, not in the man page' % (c, o, c))
    for o in sorted(got - want):
        errors.append('%s: --%s is in the man page, not in ibscan help %s' % (c, o, c))

glob_help = set(re.findall(r'\[--([a-z-]+)\]', usage.split('\n')[0]))
if glob_help != groups.get('global', set()):
    errors.append('global options: ibscan --help has %s, the man page %s' %
                  (sorted(glob_help), sorted(groups.get('global', set()))))

rc, version = run('--version')
th = [l for l in src if l.startswith('.TH ')]
if not th or '"%s"' % version.strip() not in th[0]:
    errors.append('.TH does not name "%s": %s' % (version.strip(), th[:1]))

for s in ('EXIT STATUS', 'FILES', 'EXAMPLES', 'SEE ALSO', 'OUTPUT FORMATS'):
    if s not in sh:
        errors.append('no %s section' % s)
for fmt in ('text', 'json', 'dot', 'netfile', 'slurm', 'prom'):
    if '.B %s' % fmt not in sh.get('OUTPUT FORMATS', []):
        errors.append('format %s is not in OUTPUT FORMATS' % fmt)
exits = ' '.join(sh.get('EXIT STATUS', []))
for w in ('WARNING', 'CRITICAL', 'UNKNOWN'):
    if w not in exits:
        errors.append('EXIT STATUS lacks the health code %s' % w)
for ref in ('ibnetdiscover (8)', 'iblinkinfo (8)', 'perfquery (8)', 'ibsim (1)'):
    if '.BR %s' % ref not in ' '.join(sh.get('SEE ALSO', [])):
        errors.append('SEE ALSO lacks %s' % ref)

if errors:
    print('\n'.join(errors))
    sys.exit(1)
print('man page: %d commands, %d options checked' % (len(cmds), sum(len(v) for v in man_cmds.values())))
EOF

python3 "$TMP/check.py" "$page" "$IBSCAN" || fail "the man page and ibscan help disagree"

# The checker catches drift: an option dropped from the page, a command the
# page has and ibscan lacks, and a command ibscan gains.
grep -v '^\\fB\\-\\-no\\-counters\\fR$' "$page" >"$TMP/drop.1"
cmp -s "$page" "$TMP/drop.1" && fail "could not doctor the page"
python3 "$TMP/check.py" "$TMP/drop.1" "$IBSCAN" >"$TMP/o" && fail "a dropped option went unnoticed"
grep -q 'health: --no-counters is in ibscan help health, not in the man page' "$TMP/o" || fail "$(cat "$TMP/o")"
sed 's/^\.SS help$/.SS frobnicate\n.PP\nFrob.\n&/' "$page" >"$TMP/extra.1"
python3 "$TMP/check.py" "$TMP/extra.1" "$IBSCAN" >"$TMP/o" && fail "an extra command went unnoticed"
grep -q 'command frobnicate is in the man page but not in ibscan --help' "$TMP/o" || fail "$(cat "$TMP/o")"
cat >"$TMP/ibscan-new" <<EOF
#!/bin/bash
if [ "\$1" = --help ]; then "$IBSCAN" --help | sed 's/^  help /  zzfake     A command the man page lacks.\n&/'; exit; fi
if [ "\$1 \$2" = "help zzfake" ]; then printf 'usage: ibscan zzfake\n\noptions:\n      --json  x\n'; exit; fi
exec "$IBSCAN" "\$@"
EOF
chmod +x "$TMP/ibscan-new"
python3 "$TMP/check.py" "$page" "$TMP/ibscan-new" >"$TMP/o" && fail "a new command went unnoticed"
grep -q 'command zzfake is in ibscan --help but has no .SS in the man page' "$TMP/o" || fail "$(cat "$TMP/o")"
echo "man: ok"
