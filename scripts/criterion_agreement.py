#!/usr/bin/env python3
"""Joins criterion's and the drop-in's numbers for one crate (scripts/criterion_agreement.sh).

Usage: criterion_agreement.py CRATE OURS_DIR PROBES_CSV CRITERION_HOME-1 [CRITERION_HOME-2 ...]
       criterion_agreement.py --slowed-ids PROBES_CSV BENCH
       criterion_agreement.py --dropin-probes CRATE OURS_DIR   (the drop-in's processes as CSV)
Each CRITERION_HOME-R (criterion run R of every id) holds criterion's
<id>/new/{benchmark,estimates}.json; PROBES_CSV the speed probe read before and after each
criterion run of each id (bench,id,run,probe_start_ns,probe_end_ns); OURS_DIR one run directory
per bench binary, each with results.json. A criterion run met a slowed machine by the drop-in's
own rule (harness/src/model/slowed.rs): full speed is the 2nd percentile of the runs' faster
readings, and a run is slowed when both readings pass 1.25x it or one passes 1.6x. The
reference is the median of an id's criterion runs at full speed (of all its runs, marked, when
none was). Prints a Markdown table: every id, criterion's reference per iteration (with the
range of its runs and how many were at full speed), ours (the latency row's centre and 95%
interval), the ratio, our verdict and, for a flagged row, its reason. A row agrees when the ratio
lies in [0.8, 1.25]; a row outside that is acceptable only when flagged (`unstable`). An
unflagged row outside the band but inside criterion's own range of runs says so: one criterion
process is one draw of the code's layout (unicode-segmentation's chars/scalar/* moved 1.5-1.8x
between criterion runs of one binary, 2026-12-06).
"""
import csv
import glob
import re
import statistics
import json
import os
import sys

LOW, HIGH = 0.8, 1.25
# harness/src/model/slowed.rs: FASTEST_QUANTILE, SLOWED_FACTOR, SLOWED_ONE_END.
FASTEST_QUANTILE, SLOWED_FACTOR, SLOWED_ONE_END = 0.02, 1.25, 1.6


def read_probes(path):
    """{(bench, id, run): (start, end)} from the reference's probe CSV."""
    out = {}
    for row in csv.DictReader(open(path)):
        out[(row["bench"], row["id"], int(row["run"]))] = (float(row["probe_start_ns"]), float(row["probe_end_ns"]))
    return out


def full_speed(probes):
    """The reference's full-speed reading: the quantile slowed.rs takes of the faster readings."""
    fast = sorted(min(p) for p in probes.values())
    if len(fast) < 3:
        return None
    pos = FASTEST_QUANTILE * (len(fast) - 1)
    lo = int(pos)
    return fast[lo] + (fast[min(lo + 1, len(fast) - 1)] - fast[lo]) * (pos - lo)


def slowed(reading, fastest):
    return fastest is not None and (min(reading) > SLOWED_FACTOR * fastest or max(reading) > SLOWED_ONE_END * fastest)


def slowed_ids(path, bench):
    """Ids of BENCH none of whose criterion runs so far met the machine at full speed."""
    probes = read_probes(path)
    fastest = full_speed(probes)
    runs = {}
    for (b, i, _), reading in probes.items():
        if b == bench:
            runs.setdefault(i, []).append(slowed(reading, fastest))
    return sorted(i for i, s in runs.items() if all(s))


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


def dropin_probes(crate, root):
    """Each drop-in process's latency and speed-probe readings, from its results.jsonl."""
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["crate", "bench", "scenario", "run_index", "latency_ns", "probe_start_ns", "probe_end_ns"])
    for path in sorted(glob.glob(os.path.join(root, "*", "results.jsonl"))):
        bench = os.path.basename(os.path.dirname(path))
        for line in open(path):
            r = json.loads(line)
            for m in r.get("metrics", []):
                if m["name"] == "latency_ns" and m.get("speed_probe_ns"):
                    out.writerow([crate, bench, r["scenario"], r["run_index"], m["value"], *m["speed_probe_ns"]])


def main():
    if sys.argv[1] == "--dropin-probes":
        dropin_probes(sys.argv[2], sys.argv[3])
        return
    if sys.argv[1] == "--slowed-ids":
        print("\n".join(slowed_ids(sys.argv[2], sys.argv[3])))
        return
    crate, root, probes_csv, homes = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    probes = read_probes(probes_csv)
    fastest = full_speed(probes)
    # Run R of an id: its median in CRITERION_HOME-R, and whether its probes read full speed.
    at_full = {}
    for (_, i, r), reading in probes.items():
        at_full[(i, r)] = not slowed(reading, fastest)
    runs = {int(re.search(r"(\d+)$", h).group(1)): criterion_medians(h) for h in homes}
    ids_crit = set().union(*runs.values())
    crit, full_of, spans = {}, {}, {}
    for i in ids_crit:
        mine_runs = {r: m[i] for r, m in runs.items() if i in m}
        full = [v for r, v in mine_runs.items() if at_full.get((i, r), False)]
        full_of[i] = (len(full), len(mine_runs))
        crit[i] = statistics.median(full or mine_runs.values())
        spans[i] = (min(mine_runs.values()), max(mine_runs.values()))
    mine = ours(root)
    ids = sorted(set(crit) | set(mine))
    within_runs, ref_slowed = [], []
    rows, agree, flagged, wrong, missing = [], 0, 0, [], []
    for i in ids:
        c, o = crit.get(i), mine.get(i)
        if c is None or o is None:
            missing.append(i)
            rows.append(f"| `{i}` | {fmt_ns(c)} | | {fmt_ns(o and o['value'])} | - | missing on one side | | |")
            continue
        ratio = o["value"] / c
        inside = LOW <= ratio <= HIGH
        is_flagged = o["verdict"] == "unstable"
        full, n = full_of[i]
        if inside:
            agree += 1
            mark = "agrees"
        elif is_flagged:
            flagged += 1
            mark = "flagged"
        else:
            wrong.append(i)
            lo, hi = spans[i]
            mark = "**outside, not flagged**"
            if full == 0:
                ref_slowed.append(i)
                mark += ", criterion never at full speed"
            elif n > 1 and lo <= o["value"] <= hi:
                within_runs.append(i)
                mark += ", inside criterion's runs"
        ci = f" [{fmt_ns(o['low'])}, {fmt_ns(o['high'])}]" if o["low"] is not None else ""
        verdict = "ok" if o["verdict"] == "measured" else o["verdict"]
        reason = o["reason"].replace("|", "/")
        lo, hi = spans[i]
        span = f" ({fmt_ns(lo)}-{fmt_ns(hi)})" if n > 1 else ""
        rows.append(f"| `{i}` | {fmt_ns(c)}{span} | {full} of {n} | {fmt_ns(o['value'])}{ci} | {ratio:.2f} | {mark} ({verdict}) | {reason} | {o['slowed']} |")
    print(f"# {crate}: criterion 0.5 against harness-criterion\n")
    print(f"criterion's reference: the median of an id's runs at full speed by the drop-in's probe rule "
          f"(of all its runs when none was); the range of all its runs in brackets. Full speed "
          f"{fmt_ns(fastest)} (the probe's reading, {len(probes)} criterion runs).\n")
    print("| id | criterion | runs at full speed | drop-in (95% CI) | ratio | result | reason flagged | processes left out |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print()
    print(f"{len(ids)} ids: {agree} within [{LOW}, {HIGH}] of criterion's reference, {flagged} outside and flagged, "
          f"{len(wrong)} outside and not flagged ({len(ref_slowed)} of them against a criterion that never ran at full speed), "
          f"{len(missing)} missing on one side.")
    if wrong:
        print("Outside and not flagged: " + ", ".join(f"`{w}`" for w in wrong))
    if within_runs:
        print("Of those, inside the range of criterion's runs: " + ", ".join(f"`{w}`" for w in within_runs))

if __name__ == "__main__":
    main()
