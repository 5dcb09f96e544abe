#!/usr/bin/env python3
"""scalar-ends.csv: unicode-segmentation's chars/scalar/* run by the drop-in with the probe's
start and end readings written beside each process's value (a debug build, 2026-12-06). Groups
each process by its two readings against the run's 10th percentile of the faster one and prints
the median value, over the row's both-fast median, per group."""
import csv, collections, statistics as st
rows = list(csv.DictReader(open("scalar-ends.csv")))
mins = sorted(min(float(r["probe_start_ns"]), float(r["probe_end_ns"])) for r in rows)
p10 = mins[len(mins) // 10]
groups = collections.defaultdict(lambda: collections.defaultdict(list))
for r in rows:
    s, e, v = float(r["probe_start_ns"]) / p10, float(r["probe_end_ns"]) / p10, float(r["latency_ns"])
    g = ("both fast" if max(s, e) < 1.2 else "start fast, end 1.2-1.55x" if s < 1.2 and e < 1.55
         else "both over 1.55x" if min(s, e) >= 1.55 else "other")
    groups[r["scenario"]][g].append(v)
print(f"p10 of the faster reading: {p10:.0f} ns")
for sc, g in sorted(groups.items()):
    base = st.median(g["both fast"]) if g["both fast"] else None
    cells = [f"{k}: {st.median(v) / base:.2f} ({len(v)})" for k, v in sorted(g.items()) if base]
    print(f"{sc:26s} " + "  ".join(cells))
ends = [float(r["probe_end_ns"]) / p10 for r in rows
        if float(r["probe_start_ns"]) / p10 < 1.2 and 1.2 <= float(r["probe_end_ns"]) / p10 < 1.55]
both = [min(float(r["probe_start_ns"]), float(r["probe_end_ns"])) / p10 for r in rows
        if min(float(r["probe_start_ns"]), float(r["probe_end_ns"])) / p10 >= 1.55]
print(f"end reading alone over 1.2x: {len(ends)} processes, {min(ends):.2f}-{max(ends):.2f}x; "
      f"both over 1.55x: {len(both)} processes, the faster reading {min(both):.2f}-{max(both):.2f}x")
