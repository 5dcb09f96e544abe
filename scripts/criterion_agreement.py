#!/usr/bin/env python3
"""Joins criterion's and the drop-in's numbers for one crate (scripts/criterion_agreement.sh).

Usage: criterion_agreement.py CRATE OURS_DIR CRITERION_HOME [CRITERION_HOME ...]
Each CRITERION_HOME (one per criterion run of the bench binaries) holds criterion's
<id>/new/{benchmark,estimates}.json; OURS_DIR one run directory per bench binary, each with
results.json. Prints a Markdown table: every id, criterion's median per iteration (the median
over its runs, and their range when there are several), ours (the latency row's centre and 95%
interval), the ratio, our verdict and, for a flagged row, its reason. A row agrees when the ratio
lies in [0.8, 1.25]; a row outside that is acceptable only when flagged (`unstable`). An
unflagged row outside the band but inside criterion's own range of runs says so: one criterion
process is one draw of the code's layout (unicode-segmentation's chars/scalar/* moved 1.5-1.8x
between criterion runs of one binary, 2026-12-06).
"""
import statistics
import glob
import json
import os
import sys

LOW, HIGH = 0.8, 1.25


def criterion_medians(home):
    out = {}
    for bench in glob.glob(os.path.join(home, "**", "new", "benchmark.json"), recursive=True):
        est = os.path.join(os.path.dirname(bench), "estimates.json")
        if not os.path.exists(est):
            continue
        full_id = json.load(open(bench))["full_id"]
        out[full_id] = json.load(open(est))["median"]["point_estimate"]
    return out


def ours(root):
    out = {}
    for path in glob.glob(os.path.join(root, "*", "results.json")):
        for s in json.load(open(path))["summaries"]:
            for m in s.get("metrics", []):
                if m["metric"] != "latency_ns":
                    continue
                ci = m.get("ci") or {}
                out[s["scenario"]] = {
                    "value": m["center_value"],
                    "low": ci.get("low"),
                    "high": ci.get("high"),
                    "verdict": s["verdict"],
                    "reason": m.get("unstable_reason") or "",
                    "slowed": slowed_note(m.get("slowed")),
                }
    return out


def slowed_note(slowed):
    """Processes left out for a slowed machine (results.json `slowed`), in a few words."""
    if not slowed or not slowed.get("left_out"):
        return ""
    return f"{len(slowed['left_out'])} of {slowed['of']} left out (slowed {slowed['probe_ratio']:.1f}x)"


def fmt_ns(v):
    if v is None:
        return "-"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if v >= scale:
            return f"{v / scale:.3g} {unit}"
    return f"{v:.3g} ns"


def main():
    crate, root, homes = sys.argv[1], sys.argv[2], sys.argv[3:]
    runs = [criterion_medians(h) for h in homes]
    crit = {i: statistics.median(r[i] for r in runs if i in r) for i in set().union(*runs)}
    spans = {i: (min(r[i] for r in runs if i in r), max(r[i] for r in runs if i in r)) for i in crit}
    mine = ours(root)
    ids = sorted(set(crit) | set(mine))
    within_runs = []
    rows, agree, flagged, wrong, missing = [], 0, 0, [], []
    for i in ids:
        c, o = crit.get(i), mine.get(i)
        if c is None or o is None:
            missing.append(i)
            rows.append(f"| `{i}` | {fmt_ns(c)} | {fmt_ns(o and o['value'])} | - | missing on one side | | |")
            continue
        ratio = o["value"] / c
        inside = LOW <= ratio <= HIGH
        is_flagged = o["verdict"] == "unstable"
        if inside:
            agree += 1
            mark = "agrees"
        elif is_flagged:
            flagged += 1
            mark = "flagged"
        else:
            wrong.append(i)
            lo, hi = spans[i]
            if len(runs) > 1 and lo <= o["value"] <= hi:
                within_runs.append(i)
                mark = "**outside, not flagged**, inside criterion's runs"
            else:
                mark = "**outside, not flagged**"
        ci = f" [{fmt_ns(o['low'])}, {fmt_ns(o['high'])}]" if o["low"] is not None else ""
        verdict = "ok" if o["verdict"] == "measured" else o["verdict"]
        reason = o["reason"].replace("|", "/")
        lo, hi = spans[i]
        span = f" ({fmt_ns(lo)}-{fmt_ns(hi)})" if len(runs) > 1 else ""
        rows.append(f"| `{i}` | {fmt_ns(c)}{span} | {fmt_ns(o['value'])}{ci} | {ratio:.2f} | {mark} ({verdict}) | {reason} | {o['slowed']} |")
    print(f"# {crate}: criterion 0.5 against harness-criterion\n")
    print(f"criterion runs per id: {len(runs)}" + (" (the median of their medians; their range in brackets)" if len(runs) > 1 else "") + "\n")
    print("| id | criterion median | drop-in (95% CI) | ratio | result | reason flagged | processes left out |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print()
    print(f"{len(ids)} ids: {agree} within [{LOW}, {HIGH}] of criterion's median, {flagged} outside and flagged, "
          f"{len(wrong)} outside and not flagged, {len(missing)} missing on one side.")
    if wrong:
        print("Outside and not flagged: " + ", ".join(f"`{w}`" for w in wrong))
    if within_runs:
        print(f"Of those, inside criterion's own range of {len(runs)} runs: " + ", ".join(f"`{w}`" for w in within_runs))


if __name__ == "__main__":
    main()
