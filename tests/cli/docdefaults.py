#!/usr/bin/env python3
"""Check the defaults and ranges that the README and the man page say against `ibscan help`.

Usage: docdefaults.py IBSCAN README MANPAGE

`ibscan help CMD` derives each shared option's "(default D, LO-HI)" from its
row in cmd/options.c; the docs say them again in words. Every "default N"
said of an option (`--name ...` in the README, the .TP paragraph of
\\-\\-name in the man page) must be a default that some command's help gives
that option, and every "A to B" range in that man paragraph must be its
range. Prints one line per disagreement and exits 1 when there is any.
"""
import re
import subprocess
import sys


def help_of(ibscan, *args):
    return subprocess.run([ibscan, *args], capture_output=True, text=True).stdout


def help_table(ibscan):
    """{option: (set of defaults, set of (lo, hi))} over every command's help."""
    cmds, inside = [], False
    for line in help_of(ibscan, "--help").splitlines():
        if line.startswith("commands:"):
            inside = True
        elif inside and not line.strip():
            break
        elif inside and re.match(r"^  [a-z]", line):
            cmds.append(line.split()[0])
    table = {}
    for c in cmds:
        if c == "help":
            continue
        blocks, cur = [], None
        for line in help_of(ibscan, "help", c).splitlines():
            if re.match(r"^  -\w, --|^      --", line):
                cur = [line]
                blocks.append(cur)
            elif cur is not None and line.startswith(" " * 25):
                cur.append(line)
            else:
                cur = None
        for b in blocks:
            text = " ".join(x.strip() for x in b)
            names = re.findall(r"^\s*(?:-\w, )?--([a-z0-9-]+)", b[0])
            if not names:
                continue
            d, r = table.setdefault(names[0], (set(), set()))
            d.update(re.findall(r"\(default (\d+(?:\.\d+)?)", text))
            r.update((int(a), int(z)) for a, z in re.findall(r"\(default \d+(?:\.\d+)?, (\d+)-(\d+)\)", text))
    return cmds, table


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    ibscan, readme, man = sys.argv[1:]
    cmds, table = help_table(ibscan)
    errors = []
    if len(cmds) < 10 or len(table) < 20:
        errors.append(f"ibscan help: read only {len(cmds)} commands and {len(table)} options")
    said = 0

    def check(where, name, text, ranges):
        nonlocal said
        if name not in table:
            return
        m = re.search(r"\bdefault (\d+(?:\.\d+)?)\b", text)
        if m:
            said += 1
            if m.group(1) not in table[name][0]:
                errors.append(f"{where}: --{name}: says default {m.group(1)}, ibscan help says "
                              f"{', '.join(sorted(table[name][0])) or 'none'}")
        for a, z in ranges:
            if table[name][1] and (int(a), int(z)) not in table[name][1]:
                errors.append(f"{where}: --{name}: says {a} to {z}, ibscan help says "
                              + ", ".join(f"{x}-{y}" for x, y in sorted(table[name][1])))

    # README: a backticked `--name ...` and the words after it, up to the next option.
    text = open(readme, encoding="utf-8").read()
    for para in re.split(r"\n\s*\n", text):
        flat = " ".join(para.split())
        for m in re.finditer(r"`--([a-z0-9-]+)[^`]*`", flat):
            rest = flat[m.end():]
            nxt = rest.find("`--")
            check(readme, m.group(1), rest[: nxt if nxt >= 0 else 120][:120], [])

    # The man page: each .TP paragraph whose tag names one option.
    lines = open(man, encoding="utf-8").read().split("\n")
    for i, line in enumerate(lines):
        if not line.startswith(".TP") or i + 1 >= len(lines):
            continue
        names = re.findall(r"\\-\\-((?:[a-z0-9]|\\-)+)", lines[i + 1])
        if len(names) != 1:
            continue
        body = []
        for l in lines[i + 2:]:
            if re.match(r"^\.(TP|SS|SH|PP)\b", l):
                break
            body.append(l)
        para = " ".join(body).replace("\\(en", "-")
        ranges = re.findall(r"\((?:[^()]*?, )?(\d+) to (\d+)[,;)]", para)
        check(f"{man}:{i + 2}", names[0].replace("\\-", "-"), para, ranges)

    for e in errors:
        print(e)
    if errors:
        sys.exit(1)
    print(f"docs: {said} defaults said in the README and the man page, each as ibscan help says")


if __name__ == "__main__":
    main()
