#!/usr/bin/env python3
"""The CUDA race against fill size, from detect's output: one row per size, and a judgement.

Usage: scripts/race_sweep.py DETECT_DIR_OR_JSON...

Produced by (on a GPU machine; the race check is ignored by default):
    scenarios detect cuda/race --include-ignored --isolated 20 --shuffles 6 --seed 7 --no-fail --out DIR
Each size is an env-matrix variant (`...[SCENARIOS_CUDA_RACE_MIB=N]`), so detect judges it in its own
process set with the warm-up sibling. Older sweeps (one directory per size, no variant suffix) take the
size from the directory name.

Per size: detect's verdict, isolated failures, shared-run failures, and the failure rate over all of
them with a 95% Wilson interval. Exit status 1 when no size was flagged (the race was not shown on
this machine: sweep larger sizes) or when the warm-up sibling, which is correct code, was ever flagged.
"""
import json
import math
import os
import re
import sys

RACE = "cuda/race/legacy_readback_after_nonblocking_fill"
SIBLING = "cuda/race/context_warm_up_sibling"


def wilson(k, n, z=1.959963984540054):
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def counts(entry):
    """(isolated failed, isolated runs, shared failed, shared runs) from an entry's evidence."""
    iso_f = iso_n = sh_f = sh_n = 0
    for ev in entry["evidence"]:
        m = re.match(r"(\d+) of (\d+) (isolated|shared) runs", ev["detail"])
        failed = ev["outcome"] != "passed"
        if ev["kind"] == "isolated" and m:
            k, _ = int(m.group(1)), int(m.group(2))
            iso_n += k
            iso_f += k if failed else 0
        elif ev["kind"] in ("order", "reverse", "shuffle"):
            k = int(m.group(1)) if m else 1
            sh_n += k
            sh_f += k if failed else 0
    return iso_f, iso_n, sh_f, sh_n


def size_of(name, path):
    m = re.search(r"SCENARIOS_CUDA_RACE_MIB=(\d+)", name)
    if m:
        return int(m.group(1))
    base = os.path.basename(os.path.dirname(os.path.abspath(path)))
    return int(base) if base.isdigit() else None


def load(args):
    rows, sibling_flags = {}, []
    for a in args:
        path = os.path.join(a, "detect.json") if os.path.isdir(a) else a
        for e in json.load(open(path)):
            size = size_of(e["name"], path)
            if e["name"].startswith(SIBLING) and e["verdict"] != "pass":
                sibling_flags.append((size, e["verdict"]))
            if e["name"].startswith(RACE):
                rows[size] = e
    return rows, sibling_flags


def main(args):
    rows, sibling_flags = load(args)
    print("| fill | detect verdict | isolated failed | shared runs failed | failure rate (95% Wilson) |")
    print("|---|---|---|---|---|")
    flagged = []
    for size in sorted(rows, key=lambda s: (s is None, s)):
        e = rows[size]
        iso_f, iso_n, sh_f, sh_n = counts(e)
        k, n = iso_f + sh_f, iso_n + sh_n
        lo, hi = wilson(k, n)
        verdict = f"`{e['verdict']}`"
        if e["polluters"]:
            verdict += ", after " + ", ".join(f"`{p}`" for p in e["polluters"])
        print(f"| {size} MiB | {verdict} | {iso_f}/{iso_n} | {sh_f}/{sh_n} | "
              f"{k}/{n} = {100 * k / max(n, 1):.0f}% [{100 * lo:.0f}%, {100 * hi:.0f}%] |")
        if e["verdict"] != "pass":
            flagged.append(size)
    ok = True
    if flagged:
        print(f"\nrace shown at {', '.join(f'{s} MiB' for s in flagged)}; "
              f"passed at {', '.join(f'{s} MiB' for s in sorted(set(rows) - set(flagged))) or 'no size'}")
    else:
        print("\nrace NOT shown: detect passed it at every size; sweep larger sizes on this machine")
        ok = False
    for size, verdict in sibling_flags:
        print(f"the warm-up sibling (correct code) was flagged `{verdict}` at {size} MiB")
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
