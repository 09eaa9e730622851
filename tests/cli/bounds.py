#!/usr/bin/env python3
"""Check that ibscan's memory and time grow linearly with the files it reads.

Usage: bounds.py RUSAGE IBSCAN WORKDIR [KIND...]

For each input kind (docs/reliability.md, "Bounded work and memory"), files
of 1x, 10x and 100x a base size (tests/cli/genbound.py) are given to IBSCAN,
and its peak RSS and CPU time (user + system, not wall: the machine may be
loaded) are read by RUSAGE (tests/cli/rusage.c, wait4()). Checks, for each
kind:

  memory  peak RSS at 100x <= peak RSS at 1x + BOUND x the bytes read, the
          bound docs/reliability.md states for that input;
  time    CPU at 100x <= 30 x CPU at 10x (+ 20 ms for the clock's grain).
          Linear work makes that 10x; quadratic work makes it 100x.

Prints one line per kind with the figures; exits 1 when a check fails.
"""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import genbound  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIX = os.path.join(ROOT, "fixtures", "captures", "fattree3.cap")
RUSAGE = None

# name: (generator kind, or two for {f} and {g}, base size, ibscan arguments
# with {f} and {g} for the files and {w} for the work directory, memory
# bound in bytes of RSS per byte read, whether CPU time is checked)
KINDS = {
    "netfile-declared-ports": ("netfile-ports", 1000, ["diff", "{f}", "{f}"], 32, True),
    "netfile-cables-moved": (("netfile-links", "netfile-links-moved"), 600, ["diff", "{f}", "{g}"], 32, True),
    "netfile-dup-guids": ("netfile-dup-guids", 300, ["diff", "{f}", "{f}"], 32, True),
    "baseline-dup-guids": ("netfile-dup-guids", 300, ["health", "--replay", FIX, "--baseline", "{f}"], 32, True),
    "json-declared-ports": ("json-ports", 1000, ["health", "--replay", FIX, "--baseline", "{f}"], 32, True),
    "json-cables-moved": (("json-links", "json-links-moved"), 300, ["diff", "{f}", "{g}"], 32, True),
    "capture-kinds": ("capture-kinds", 1000, ["capture", "info", "{f}"], 8, True),
    "capture-info": ("capture-small", 2000, ["capture", "info", "{f}"], 8, True),
    "capture-export": ("capture-small", 2000, ["capture", "export", "{f}", "-o", "{w}/x.pcap"], 8, True),
    "capture-index": ("capture-small", 2000, ["capture", "index", "{f}", "-o", "{w}/x.idx"], 8, True),
    "replay-text": ("capture-small", 2000, ["nodes", "--replay", "{f}"], 8, True),
    "replay-text-full": ("capture-resp", 300, ["nodes", "--replay", "{f}"], 8, True),
    "replay-index": ("capture-small", 2000, ["nodes", "--replay", "{f}"], 8, True),
    "node-name-map": ("namemap", 2000, ["nodes", "--replay", FIX, "--node-name-map", "{f}"], 8, True),
    "thresholds": ("thresholds", 400, ["health", "--replay", FIX, "--thresholds", "{f}"], 8, True),
    # libibnetdisc reads caches: its hash chains make time grow as the
    # square of the nodes (docs/reliability.md); memory is checked.
    "cache": ("cache", 200, ["nodes", "--load-cache", "{f}"], 24, False),
    "cache-declared-ports": ("cache-ports", 200, ["nodes", "--load-cache", "{f}"], 24, False),
}


def run(ibscan, argv):
    """Run ibscan under RUSAGE; return (exit code, peak RSS in bytes, CPU seconds)."""
    out = subprocess.run([RUSAGE, ibscan] + argv, stdout=subprocess.PIPE, check=True).stdout.split()
    return int(out[0]), int(out[1]) * 1024, float(out[2])


def measure(ibscan, work, name):
    kinds, base, args, bound, timed = KINDS[name]
    kinds = kinds if isinstance(kinds, tuple) else (kinds, kinds)
    rows = []
    for scale in (1, 10, 100):
        f, g = (os.path.join(work, "%s-%d-%s" % (name, scale, k)) for k in "fg")
        for path, kind in ((f, kinds[0]), (g, kinds[1])):
            with open(path, "w") as out:
                genbound.KINDS[kind](base * scale, out)
        if name == "replay-index":
            rc, _, _ = run(ibscan, ["capture", "index", f])
            if rc:
                return "%s: capture index failed (exit %d)" % (name, rc), None
        argv = [a.format(f=f, g=g, w=work) for a in args]
        # Bytes read: each file as often as the command names it.
        size = sum(os.path.getsize(p) for p in (f, g) for a in args if a == "{" + p[-1] + "}")
        # The least CPU of two runs: the other helpers' load only adds.
        (rc, rss, cpu), (_, rss2, cpu2) = run(ibscan, argv), run(ibscan, argv)
        if rc < 0 or rc > 3:
            return "%s: ibscan died (exit %d)" % (name, rc), None
        rows.append((size, max(rss, rss2), min(cpu, cpu2), rc))
        for p in (f, f + ".idx", g):
            if os.path.exists(p):
                os.unlink(p)
    (s1, r1, c1, _), (s10, r10, c10, _), (s100, r100, c100, _) = rows
    line = "%-24s %9d B %6.1f MB %6.3f s | %9d B %6.1f MB %6.3f s | %9d B %6.1f MB %6.3f s | %.1f B/B" % (
        name, s1, r1 / 1e6, c1, s10, r10 / 1e6, c10, s100, r100 / 1e6, c100, (r100 - r1) / max(s100 - s1, 1))
    errors = []
    if r100 > r1 + bound * s100:
        errors.append("%s: %.1f MB at 100x: above %.1f MB at 1x + %d x %d bytes read" % (
            name, r100 / 1e6, r1 / 1e6, bound, s100))
    # 10x the input in 30x the CPU, plus 0.1 s: at 10x a run takes some 0.01 s, below what
    # the clock tells apart from start-up, and page faults of a fresh machine add to 100x
    # (seen on a fresh root: 0.009 s at 10x, 0.317 s at 100x, linear from 100x to 300x).
    # Quadratic growth would be 100x the 10x figure.
    if timed and c100 > 30 * c10 + 0.1:
        errors.append("%s: %.3f s of CPU at 100x, %.3f s at 10x: not linear" % (name, c100, c10))
    return line, errors


def main():
    global RUSAGE
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    RUSAGE, ibscan, work = sys.argv[1:4]
    names = sys.argv[4:] or list(KINDS)
    failed = []
    print("%-24s %-32s | %-32s | %-32s | memory per byte" % ("input", "1x: size, peak RSS, CPU", "10x", "100x"))
    for name in names:
        line, errors = measure(ibscan, work, name)
        print(line, flush=True)
        if errors is None:
            failed.append(line)
        else:
            failed += errors
    for e in failed:
        print("FAIL: " + e, file=sys.stderr)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
