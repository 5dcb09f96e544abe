#!/usr/bin/env python3
"""The figures of issue 21 (detect at scale), from real runs; scripts/detect_scale.sh drives it.

    detect_scale.py corpus OUT   # detect vs 20 random orders; quality vs the old schedule
    detect_scale.py scale OUT    # generated binaries of 100, 1000, 10000 tests
    detect_scale.py crates OUT   # dotenvy and internment, before and after
    detect_scale.py family OUT   # 8 logger installers + 20 independent tests (issue 29)
    detect_scale.py bad OUT      # issue 29's bad inputs: all fail alone, a hang after one
                                 # predecessor, N/2 polluters with one victim each

Environment: NEW and OLD (harness binaries: this tree's and the base's), FIXTURE_PLANTED,
FIXTURE_MECHANISM (test binaries), GEN_DIR (where generated crates are built), SEEDS (default
"1 2 3"; "1" for crates), SIZES and OLD_UP_TO (scale), and for `crates`: DOTENVY_BINS and
INTERNMENT_BINS (space-separated test binaries), DOTENVY_CWD and INTERNMENT_CWD (the package
directories, where cargo runs them), CRATE_DETECT_ARGS (default "--timeout 900"); for `bad`:
BAD_SIZES (default "all-fail:100 hang-after:20 pairs:10000") and BAD_TIMEOUT (default 5 s, the
--timeout of every detect there: the hang costs whole timeouts). `uptime` goes into every
output before and after (other processes on the machine move the figures).
Every detect runs with its own --out under OUT; what this prints is also written to
OUT/<command>.txt. RUST_BACKTRACE is removed from every child's environment: with it set, each
panic symbolizes a backtrace (about half a second in a debug test binary), which would weigh on
whichever side fails more often.
"""

import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
ENV = {k: v for k, v in os.environ.items() if k != "RUST_BACKTRACE"}
RANDOM_ORDERS = 20

PLANTED_TRUTH = {
    "alpha_victim_of_zulu": ("victim", ["zulu_polluter"]),
    "golf_victim_env": ("victim", ["echo_polluter_env"]),
    "kilo_brittle": ("brittle", ["charlie_state_setter"]),
    "mike_victim_two": ("victim", ["bravo_polluter_one", "xray_polluter_two"]),
    "papa_victim_cwd": ("victim", ["lima_cwd_changer"]),
    "india_flaky": ("flaky", []),
    "hotel_crasher": ("fail", []),
    "juliet_always_fails": ("fail", []),
}
M = "shared_prefix_module::"
MECHANISM_TRUTH = {M + v: ("victim", [M + p]) for v, p in [
    ("cwd_victim", "cwd_changer"), ("env_victim", "env_polluter"),
    ("file_victim", "file_polluter"), ("static_victim", "static_polluter"),
]}

LOG = []


def say(line=""):
    print(line, flush=True)
    LOG.append(line)


def uptime():
    say("uptime: " + subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


def gen(n):
    """Build (once) the generated crate of n tests; its binary and truth."""
    out = os.path.join(os.environ["GEN_DIR"], f"gen{n}")
    stamp = os.path.join(out, "binary.txt")
    if not os.path.exists(stamp):
        exe = subprocess.run([sys.executable, os.path.join(HERE, "detect_scale_gen.py"), str(n), out],
                             check=True, capture_output=True, text=True).stdout.split()[0]
        with open(stamp, "w") as f:
            f.write(exe)
    exe = os.path.join(out, open(stamp).read().strip())  # absolute, or relative to the crate's directory
    truth = json.load(open(os.path.join(out, "truth.json")))
    return exe, {k: (v["verdict"], v["culprits"]) for k, v in truth.items()}


def hwm_kb(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


def detect(harness, bins, seed, out, extra=(), env=None, cwd=ROOT):
    """One detect over `bins`: (wall seconds, harness peak RSS kB, entries, run)."""
    cmd = [harness, "detect", "--seed", str(seed), "--no-fail", "--out", out, *extra]
    for b in bins:
        cmd += ["--test-bin", b]
    start = time.monotonic()
    with open(out + ".log", "w") as log:
        p = subprocess.Popen(cmd, env=env or ENV, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=cwd)
        peak = None
        while p.poll() is None:
            peak = hwm_kb(p.pid) or peak
            time.sleep(0.05)
    wall = time.monotonic() - start
    # Keep what the figures come from (detect.json, detect-run.json, the log), not every record.
    for f in ("results.jsonl", "index.html", "junit.xml"):
        if os.path.exists(os.path.join(out, f)):
            os.remove(os.path.join(out, f))
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {p.returncode}: see {out}.log")
    entries = json.load(open(os.path.join(out, "detect.json")))
    run = json.load(open(os.path.join(out, "detect-run.json")))
    return wall, peak, entries, run


def random_orders(bins, seed, env=None):
    """RANDOM_ORDERS libtest orders of every binary, one after another: wall seconds."""
    start = time.monotonic()
    for b in bins:
        for s in range(RANDOM_ORDERS):
            subprocess.run([b, "--test-threads=1", "-Zunstable-options", f"--shuffle-seed={seed * 1000 + s}"],
                           env={**(env or ENV), "RUSTC_BOOTSTRAP": "1"}, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, cwd=ROOT)
    return time.monotonic() - start


def quality(entries, truth):
    """OD precision/recall, flaky recall, culprits found / relations, wrong culprits."""
    by = {e["name"]: e for e in entries}
    od_true = {n for n, (v, _) in truth.items() if v in ("victim", "brittle")}
    od_pred = {e["name"] for e in entries if e["verdict"] in ("victim", "brittle")}
    flaky_true = {n for n, (v, _) in truth.items() if v == "flaky"}
    rel = [(n, c) for n, (v, cs) in truth.items() if v in ("victim", "brittle") for c in cs]
    found = sum(1 for n, c in rel if n in by and c in by[n]["polluters"] + by[n]["state_setters"])
    wrong = sum(1 for n in od_pred for c in by[n]["polluters"] + by[n]["state_setters"]
                if c not in truth.get(n, ("", []))[1])
    return {
        "od_tp": len(od_true & od_pred), "od_pred": len(od_pred), "od_true": len(od_true),
        "flaky_tp": sum(1 for n in flaky_true if n in by and by[n]["verdict"] == "flaky"), "flaky_true": len(flaky_true),
        "culprits_found": found, "relations": len(rel), "wrong_culprits": wrong,
        "unknown": sum(1 for e in entries if e["verdict"] == "unknown"),
    }


def add(a, b):
    return {k: a.get(k, 0) + b[k] for k in b}


def fmt_quality(q):
    prec = q["od_tp"] / q["od_pred"] if q["od_pred"] else 1.0
    rec = q["od_tp"] / q["od_true"] if q["od_true"] else 1.0
    return (f"OD precision {q['od_tp']}/{q['od_pred']} = {prec:.2f}, recall {q['od_tp']}/{q['od_true']} = {rec:.2f}; "
            f"flaky recall {q['flaky_tp']}/{q['flaky_true']}; culprits {q['culprits_found']}/{q['relations']} "
            f"({q['wrong_culprits']} wrong); unknown {q['unknown']}")


def corpus(out):
    seeds = [int(s) for s in os.environ.get("SEEDS", "1 2 3").split()]
    mech_dir = os.path.join(out, "mechanism-dir")
    os.makedirs(os.path.join(mech_dir, "elsewhere"), exist_ok=True)
    env = {**ENV, "HARNESS_FIXTURE": "1", "HARNESS_FIXTURE_DIR": mech_dir}
    g50, t50 = gen(50)
    g200, t200 = gen(200)
    bins = [os.environ["FIXTURE_PLANTED"], os.environ["FIXTURE_MECHANISM"], g50, g200]
    truth = {**PLANTED_TRUTH, **MECHANISM_TRUTH, **t50, **t200}
    say(f"corpus: {len(bins)} libtest binaries (fixture_planted, fixture_mechanism, generated 50 and 200 tests), "
        f"{len(truth)} planted tests, seeds {seeds}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    uptime()
    walls = {"new": [], "old": [], "random": []}
    qual = {"new": {}, "old": {}}
    procs = {"new": [], "old": []}
    for seed in seeds:
        # Interleaved, so the machine's load weighs on each side alike.
        walls["random"].append(random_orders(bins, seed, env))
        for side in ("new", "old"):
            wall, _, entries, run = detect(os.environ[side.upper()], bins, seed, os.path.join(out, f"corpus-{side}-{seed}"), env=env)
            walls[side].append(wall)
            procs[side].append(run["runs"]["total"])
            qual[side] = add(qual[side], quality(entries, truth))
        say(f"  seed {seed}: random orders {walls['random'][-1]:.1f} s, detect new {walls['new'][-1]:.1f} s "
            f"({procs['new'][-1]} processes), old {walls['old'][-1]:.1f} s ({procs['old'][-1]} processes)")
    med = {k: statistics.median(v) for k, v in walls.items()}
    say(f"median wall: {RANDOM_ORDERS} random orders {med['random']:.1f} s; detect new {med['new']:.1f} s "
        f"= {med['new'] / med['random']:.2f}x (target <= 1.5x); old {med['old']:.1f} s = {med['old'] / med['random']:.2f}x")
    for side in ("new", "old"):
        ratios = sorted(w / r for w, r in zip(walls[side], walls["random"]))
        say(f"{side} / random orders, per seed (measured side by side): {', '.join(f'{x:.2f}' for x in ratios)}; "
            f"median {statistics.median(ratios):.2f}x")
    for side in ("new", "old"):
        say(f"{side} over {len(seeds)} seeds: {fmt_quality(qual[side])}")
    uptime()
    phases = json.load(open(os.path.join(out, f"corpus-new-{seeds[-1]}", "detect-run.json")))["phases"]
    say("new, seed %d, phases: %s" % (seeds[-1], ", ".join(
        f"{p['name']} {p['processes']} processes in {p['wall_s']:.1f} s (from {p['started_s']:.1f} s)" for p in phases)))


def scale(out):
    sizes = [int(s) for s in os.environ.get("SIZES", "100 1000 10000").split()]
    old_up_to = int(os.environ.get("OLD_UP_TO", "1000"))
    say(f"scaling: generated binaries, seed 1, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    say("| tests | side | processes | executions | wall s | harness peak RSS MB | 20 random orders s (median of 3) | verdicts |")
    say("|---|---|---|---|---|---|---|---|")
    for n in sizes:
        exe, truth = gen(n)
        rnd = statistics.median(random_orders([exe], s) for s in (1, 2, 3))
        for side in ("new", "old"):
            if side == "old" and n > old_up_to:
                continue
            wall, peak, entries, run = detect(os.environ[side.upper()], [exe], 1, os.path.join(out, f"scale-{side}-{n}"))
            counts = {}
            for e in entries:
                counts[e["verdict"]] = counts.get(e["verdict"], 0) + 1
            execs = sum(p.get("executions", 0) for p in run.get("phases", [])) or "-"
            say(f"| {n} | {side} | {run['runs']['total']} | {execs} | {wall:.1f} | {peak / 1024:.1f} | {rnd:.1f} | "
                f"{', '.join(f'{k} {v}' for k, v in sorted(counts.items()))} |")
        say(f"  {n}: new quality {fmt_quality(quality(entries_of(out, 'new', n), truth))}")


def entries_of(out, side, n):
    return json.load(open(os.path.join(out, f"scale-{side}-{n}", "detect.json")))


def findings(entries):
    return sorted((e["name"], e["verdict"], tuple(sorted(e["polluters"] + e["state_setters"])))
                  for e in entries if e["verdict"] != "pass")


def crates(out):
    seeds = [int(s) for s in os.environ.get("SEEDS", "1").split()]
    # A test of internment takes 35 s alone on a quiet machine: the default 60 s timeout is too
    # tight on a loaded one.
    extra = os.environ.get("CRATE_DETECT_ARGS", "--timeout 900").split()
    for crate in ("dotenvy", "internment"):
        bins = os.environ[f"{crate.upper()}_BINS"].split()
        cwd = os.environ.get(f"{crate.upper()}_CWD", ROOT)  # where `cargo test` would run them
        for seed in seeds:
            res = {}
            for side in ("old", "new"):
                res[side] = detect(os.environ[side.upper()], bins, seed, os.path.join(out, f"{crate}-{side}-{seed}"), extra, cwd=cwd)
            (ow, _, oe, orun), (nw, _, ne, nrun) = res["old"], res["new"]
            say(f"{crate} ({len(bins)} binaries, {len(ne)} tests), seed {seed}: before {ow:.1f} s "
                f"({orun['runs']['total']} processes), after {nw:.1f} s ({nrun['runs']['total']} processes)")
            say(f"  findings before: {findings(oe)}")
            say(f"  findings after:  {findings(ne)}")
            say("  phases after: " + ", ".join(f"{p['name']} {p['processes']} in {p['wall_s']:.1f} s" for p in nrun["phases"]))


def gen_family(k, n):
    """Build (once) the crate of k installers and n independent tests; its binary and truth."""
    out = os.path.join(os.environ["GEN_DIR"], f"family{k}-{n}")
    stamp = os.path.join(out, "binary.txt")
    if not os.path.exists(stamp):
        exe = subprocess.run([sys.executable, os.path.join(HERE, "detect_scale_gen.py"), str(n), out, "--family", str(k)],
                             check=True, capture_output=True, text=True).stdout.split()[0]
        with open(stamp, "w") as f:
            f.write(exe)
    exe = os.path.join(out, open(stamp).read().strip())
    truth = json.load(open(os.path.join(out, "truth.json")))
    return exe, {k: (v["verdict"], v["culprits"]) for k, v in truth.items()}


def screen_lines(log):
    """Lines of the terminal summary in a detect log (from its `detect: N scenarios in` line)."""
    lines = open(log).read().splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith("detect: ") and " scenarios in " in l), len(lines))
    return len([l for l in lines[start:] if not l.startswith(("report: ", "detect: /"))])


def fmt_phases(run):
    return ", ".join(f"{p['name']} {p['processes']} in {p['wall_s']:.3f} s" for p in run.get("phases", []))


def gen_bad(kind, n):
    """Build (once) the crate of a bad input (detect_scale_gen.py --bad); its binary and truth."""
    out = os.path.join(os.environ["GEN_DIR"], f"bad-{kind}-{n}")
    stamp = os.path.join(out, "binary.txt")
    if not os.path.exists(stamp):
        exe = subprocess.run([sys.executable, os.path.join(HERE, "detect_scale_gen.py"), str(n), out, "--bad", kind],
                             check=True, capture_output=True, text=True).stdout.split()[0]
        with open(stamp, "w") as f:
            f.write(exe)
    exe = os.path.join(out, open(stamp).read().strip())
    truth = json.load(open(os.path.join(out, "truth.json")))
    return exe, {k: (v["verdict"], v["culprits"]) for k, v in truth.items()}


def bad(out):
    sizes = [x.split(":") for x in os.environ.get("BAD_SIZES", "all-fail:100 hang-after:20 pairs:10000").split()]
    timeout = os.environ.get("BAD_TIMEOUT", "5")
    sides = [s for s in ("new", "old") if os.environ.get(s.upper())]
    say(f"bad inputs, seed 1, --timeout {timeout}, {os.cpu_count()} cores, sides {sides}")
    uptime()
    for kind, n in sizes:
        exe, truth = gen_bad(kind, int(n))
        rnd = random_orders([exe], 1) if kind != "hang-after" else None
        for side in sides:
            d = os.path.join(out, f"bad-{kind}-{n}-{side}")
            wall, peak, entries, run = detect(os.environ[side.upper()], [exe], 1, d, ["--timeout", timeout])
            counts = {}
            for e in entries:
                counts[e["verdict"]] = counts.get(e["verdict"], 0) + 1
            say(f"{kind} ({n} tests), {side}: {wall:.1f} s, {run['runs']['total']} processes, harness peak RSS "
                f"{(peak or 0) / 1024:.1f} MB; 20 random orders {'-' if rnd is None else f'{rnd:.1f} s'}; verdicts "
                f"{', '.join(f'{k} {v}' for k, v in sorted(counts.items()))}; {fmt_quality(quality(entries, truth))}")
            say(f"  phases: {fmt_phases(run)}")
            say(f"  findings: {findings(entries)[:6]}{' ...' if len(findings(entries)) > 6 else ''}")
    uptime()


def family(out):
    seeds = [int(s) for s in os.environ.get("SEEDS", "1 2 3").split()]
    exe, truth = gen_family(8, 20)
    say(f"family: 8 logger installers + 20 independent tests, seeds {seeds}, {os.cpu_count()} cores, "
        f"load {os.getloadavg()[0]:.1f}")
    uptime()
    # OLD may be left out (FAMILY_NEW_ONLY=1): the base has no family-specific code to compare.
    sides = ["new"] if os.environ.get("FAMILY_NEW_ONLY") else ["new", "old"]
    walls = {"new": [], "old": [], "random": []}
    for seed in seeds:
        walls["random"].append(random_orders([exe], seed))
        row = []
        for side in sides:
            d = os.path.join(out, f"family-{side}-{seed}")
            wall, _, entries, run = detect(os.environ[side.upper()], [exe], seed, d)
            walls[side].append(wall)
            row.append(f"{side} {wall:.2f} s ({run['runs']['total']} processes, {run['runs']['localization']} "
                       f"localization, {screen_lines(d + '.log')} summary lines; {fmt_quality(quality(entries, truth))}; "
                       f"phases: {fmt_phases(run)})")
        say(f"  seed {seed}: random orders {walls['random'][-1]:.2f} s; " + "; ".join(row))
    for side in sides:
        ratios = sorted(w / r for w, r in zip(walls[side], walls["random"]))
        say(f"{side} / random orders, per seed (measured side by side): {', '.join(f'{x:.2f}' for x in ratios)}; "
            f"median {statistics.median(ratios):.2f}x (target <= 1.5x)")
    uptime()


def main():
    what, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    {"corpus": corpus, "scale": scale, "crates": crates, "family": family, "bad": bad}[what](out)
    with open(os.path.join(out, f"{what}.txt"), "w") as f:
        f.write("\n".join(LOG) + "\n")


if __name__ == "__main__":
    main()
