#!/usr/bin/env python3
"""probe-out.txt: one line a sample, `alu ilp branchy grapheme` in µs, 10 samples a process.
Splits the samples by the grapheme iterator's time (fast: under 1.08x its 25th percentile,
slow: over 1.3x) and prints each loop's median in both."""
import statistics as st
rows = [list(map(float, l.split())) for l in open("probe-out.txt")]
q1 = sorted(r[3] for r in rows)[len(rows) // 4]
fast = [r for r in rows if r[3] < q1 * 1.08]
slow = [r for r in rows if r[3] > q1 * 1.3]
print(len(rows), "samples: fast", len(fast), "slow", len(slow))
for k, name in enumerate(["alu (one dependent chain)", "ilp (eight chains: the probe's loop)", "branchy", "grapheme (unicode-segmentation)"]):
    f, s = st.median(r[k] for r in fast), st.median(r[k] for r in slow)
    print(f"{name:40s} fast {f:7.0f}  slow {s:7.0f}  ratio {s / f:.2f}")
