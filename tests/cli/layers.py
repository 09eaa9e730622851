#!/usr/bin/env python3
"""Check that #include "..." only goes down the layers (docs/architecture.md).

Usage: layers.py ROOT

Reads every #include "..." (and every #include <...> that names a file of
the tree, from the including file's folder or from ROOT) of the .c and .h files under ROOT/cmd, ROOT/core,
ROOT/fabric, ROOT/host and ROOT/output (and their subfolders), resolves it
against the including file's folder, and checks:

  layers   cmd -> output -> fabric and host -> core: a file includes its
           own layer or a lower one, never a higher one, and nothing outside
           them; fabric and host lie beside each other and include nothing
           of one another;
  fabric   the parts of fabric go fabric/ (the session) -> check -> load ->
           walk -> model: a part includes its own or a lower one,
           never a higher one;
  core     every core file lies in core/base, core/mad, core/capture or
           core/probe; base includes only base; mad includes base and mad;
           capture includes base, mad and capture; probe includes base and
           probe (mad, capture and probe include each other only as
           capture -> mad);
  probe    fabric and host include nothing of core/probe: the fabric model
           and the host view know nothing of the probe;
  cycles   no include cycle between units, a unit being a .c file and the
           .h of the same name beside it (x.c including y.h while y.c
           includes x.h is a cycle, as one between headers is);
  tops     a file that runs the others of its family calls down only:
           fabric/walk/walk.c runs the walker's other files
           (fabric/walk/walk_*.c, which share walk_int.h), and none of
           them includes walk.h or calls a function walk.c defines;
  chain    the walker's files call down one chain, walk.c -> walk_query.c
           -> walk_lid.c -> walk_path.c: none names a function that a file
           before it defines (they share one header, so no include shows
           such a cycle);
  model    fabric/model knows nothing of the engine nor of the way a MAD
           goes: it includes nothing of core/mad/engine*, and defines no
           function named for a route or the engine (which nodes an SMP
           passes, for the engine's per-node cap, is fabric/walk's).

Prints one line per violation and exits 1 when there is any; prints what it
read and exits 0 otherwise. A ROOT with no source file under those folders is
an error (exit 2): a wrong root must not pass.
"""

import os
import re
import sys

LAYERS = ["core", "fabric", "host", "output", "cmd"]
RANK = {"core": 0, "fabric": 1, "host": 1, "output": 2, "cmd": 3}  # fabric and host beside each other
# The parts of fabric, lowest first; "" is fabric/ itself (the session), above them all.
FABRIC = ["model", "walk", "load", "check", ""]
CORE = {
    "base": {"base"},
    "mad": {"base", "mad"},
    "capture": {"base", "mad", "capture"},
    "probe": {"base", "probe"},
}
# A file above the others of its family (their path's start): they neither include its header nor call it.
TOPS = {"fabric/walk/walk.c": "fabric/walk/walk_"}
# Files that call down in this order only: each names no function that one before it defines.
CHAIN = ["fabric/walk/walk.c", "fabric/walk/walk_query.c", "fabric/walk/walk_lid.c", "fabric/walk/walk_path.c"]
# What fabric/model may not name a function for (a word of its name, split at "_"), nor include.
MODEL_NOT_NAMED = {"route", "routes", "engine"}
MODEL_NOT_INCLUDED = re.compile(r"^core/mad/engine")
DEFINES = re.compile(r"^(?!static\b)[A-Za-z_][\w \t\*]*?\b(\w+)\s*\([^;{]*\)\s*\{", re.M)
DEFINES_ANY = re.compile(r"^[A-Za-z_][\w \t\*]*?\b(\w+)\s*\([^;{]*\)\s*\{", re.M)  # static ones too
INCLUDE = re.compile(r'^\s*#\s*include\s*(?:"([^"]+)"|<([^>]+)>)', re.M)


def layer(rel):
    return RANK.get(rel.split("/", 1)[0])


def fabric_part(rel):
    """model, walk, load or check for a file in fabric/<part>/; '' for one directly in fabric/."""
    parts = rel.split("/")
    return parts[1] if len(parts) > 2 else ""


def core_part(rel):
    """base, mad, capture or probe for a file in core/<part>/; '' for one directly in core/."""
    parts = rel.split("/")
    return parts[1] if len(parts) > 2 else ""


def unit(rel):
    return os.path.splitext(rel)[0]


def sources(root):
    for top in LAYERS:
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(d, f), root)


def check(root):
    errors = []
    graph = {}
    n_files = n_incs = 0
    for src in sorted(sources(root)):
        n_files += 1
        text = open(os.path.join(root, src), encoding="utf-8", errors="replace").read()
        if src.startswith("core/"):
            part = core_part(src)
            if part not in CORE:
                errors.append(f"{src}: core files belong in core/base, core/mad, core/capture or core/probe")
        if src.startswith("fabric/") and fabric_part(src) not in FABRIC:
            errors.append(f"{src}: fabric files belong in fabric/model, fabric/walk, fabric/load, fabric/check or fabric/")
        for m in INCLUDE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            if m.group(1) is not None:
                where = f'{src}:{line}: #include "{m.group(1)}"'
                dst = os.path.normpath(os.path.join(os.path.dirname(src), m.group(1)))
            else:
                # A system include is the tree's own when it names a file of the tree
                # (-I. or a relative path would make it one): judged as "..." is.
                name = m.group(2)
                where = f"{src}:{line}: #include <{name}>"
                dst = None
                for cand in (os.path.join(os.path.dirname(src), name), name):
                    cand = os.path.normpath(cand)
                    if not cand.startswith("..") and os.path.isfile(os.path.join(root, cand)):
                        dst = cand
                        break
                if dst is None:
                    continue
            n_incs += 1
            if not os.path.isfile(os.path.join(root, dst)):
                errors.append(f"{where}: no such file")
                continue
            if layer(dst) is None:
                errors.append(f"{where}: {dst} lies outside the layers (cmd, output, fabric, host, core)")
                continue
            if layer(dst) > layer(src):
                errors.append(f"{where}: goes up a layer ({src.split('/')[0]} may not include {dst.split('/')[0]})")
            elif layer(dst) == layer(src) and src.split("/")[0] != dst.split("/")[0]:
                errors.append(f"{where}: {src.split('/')[0]} and {dst.split('/')[0]} lie beside each other "
                              f"({src.split('/')[0]} may not include {dst.split('/')[0]})")
            if src.startswith("core/") and dst.startswith("core/"):
                sp, dp = core_part(src), core_part(dst)
                if sp in CORE and dp not in CORE[sp]:
                    allowed = ", ".join(p for p in CORE if p in CORE[sp])
                    errors.append(f"{where}: core/{sp} may include only core/{{{allowed}}}, not core/{dp or '.'}")
            if src.startswith("fabric/") and dst.startswith("fabric/"):
                sp, dp = fabric_part(src), fabric_part(dst)
                if sp in FABRIC and dp in FABRIC and FABRIC.index(dp) > FABRIC.index(sp):
                    errors.append(f"{where}: goes up the parts of fabric (fabric/{sp} may not include "
                                  f"fabric/{dp or '.'}; they go fabric/ -> check -> load -> walk -> model)")
            if src.startswith("fabric/model/") and MODEL_NOT_INCLUDED.match(dst):
                errors.append(f"{where}: the model knows nothing of the engine (fabric/model may not include {dst})")
            if src.split("/")[0] in ("fabric", "host") and dst.startswith("core/probe/"):
                errors.append(f"{where}: {src.split('/')[0]} includes nothing of the probe (core/probe)")
            if unit(dst) != unit(src):
                graph.setdefault(unit(src), set()).add(unit(dst))
    for cycle in cycles(graph):
        errors.append("include cycle: " + " -> ".join(cycle + [cycle[0]]))
    errors += tops(root, graph)
    errors += chain(root)
    errors += model_names(root)
    return errors, n_files, n_incs


def strip_comments(text):
    return re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)


def tops(root, graph):
    """The calls and includes of TOPS that go up: a family member that includes or calls its top."""
    errors = []
    for top, family in TOPS.items():
        path = os.path.join(root, top)
        if not os.path.isfile(path):
            errors.append(f"{top}: no such file (the top of {family}*)")
            continue
        names = set(DEFINES.findall(strip_comments(open(path, encoding="utf-8", errors="replace").read())))
        for src in sorted(sources(root)):
            if not src.startswith(family) or unit(src) == unit(top):
                continue
            if unit(top) in graph.get(unit(src), ()):
                errors.append(f"{src}: includes {unit(top)}.h, the header of the file above it ({top})")
            text = strip_comments(open(os.path.join(root, src), encoding="utf-8", errors="replace").read())
            for name in sorted(names):
                if re.search(r"\b%s\s*\(" % re.escape(name), text):
                    errors.append(f"{src}: calls or declares {name}, which {top} defines: {top} calls down to it, never back")
    return errors


def chain(root):
    """The calls of CHAIN that go back: a file that names a function which a file before it defines."""
    errors = []
    texts = {}
    for f in CHAIN:
        path = os.path.join(root, f)
        if not os.path.isfile(path):
            errors.append(f"{f}: no such file (on the chain {' -> '.join(CHAIN)})")
            continue
        texts[f] = strip_comments(open(path, encoding="utf-8", errors="replace").read())
    for i, upper in enumerate(CHAIN):
        if upper not in texts:
            continue
        for name in sorted(set(DEFINES.findall(texts[upper]))):
            for lower in CHAIN[i + 1:]:
                if lower in texts and re.search(r"\b%s\b" % re.escape(name), texts[lower]):
                    errors.append(f"{lower}: names {name}, which {upper} defines: the walker's files call down "
                                  f"{' -> '.join(os.path.basename(c) for c in CHAIN)}, never back")
    return errors


def model_names(root):
    """The functions fabric/model defines that are named for a route or the engine."""
    errors = []
    for src in sorted(sources(root)):
        if not src.startswith("fabric/model/") or not src.endswith(".c"):
            continue
        text = strip_comments(open(os.path.join(root, src), encoding="utf-8", errors="replace").read())
        for name in sorted(set(DEFINES_ANY.findall(text))):
            if MODEL_NOT_NAMED & set(name.lower().split("_")):
                errors.append(f"{src}: defines {name}: the model knows nothing of the way a MAD goes or of the "
                              f"engine (the nodes an SMP passes are fabric/walk's, smp_route.c)")
    return errors


def cycles(graph):
    """One cycle from each strongly connected component of more than one unit (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(path_in(graph, set(comp)))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def path_in(graph, comp):
    """A cycle through the first unit of comp, staying inside comp (breadth-first)."""
    start = min(comp)
    prev = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(graph.get(v, ())):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return path[::-1]
            if w in comp and w not in prev:
                prev[w] = v
                queue.append(w)
    return sorted(comp)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.setrecursionlimit(10000)
    errors, n_files, n_incs = check(sys.argv[1])
    if n_files == 0:
        print(f"layers: no .c or .h file under {sys.argv[1]}/{{{','.join(LAYERS)}}}: not the tree's root")
        sys.exit(2)
    for e in errors:
        print(e)
    if errors:
        print(f"layers: {len(errors)} violation(s) in {n_files} files")
        sys.exit(1)
    print(f"layers: {n_files} files, {n_incs} includes, every one down the layers, no cycle")


if __name__ == "__main__":
    main()
