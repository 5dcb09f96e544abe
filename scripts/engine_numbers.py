#!/usr/bin/env python3
"""Markdown tables for docs/engine-numbers.md from one run of the default suite.

Usage: scripts/engine_numbers.py RUN_DIR           (the --out directory of `cargo run --release -p scenarios`)
       scripts/engine_numbers.py --ratio RUN_DIR   (only the matmul share of the FMA peak, same process)

Each kernel's achieved rate sits beside the ceiling measured in the same run and on the same thread count:
matmul GFLOP/s against peak/fma_f32, add/gather/reduce GB/s against peak/triad (the DRAM roof; sizes that fit
in cache can exceed it). Centres are the harness's centre_value over processes, with its 95% interval. The
"of ceiling" interval divides two sets of processes: a Welch interval on the difference of mean logs of the
per-process values (ratio of geometric means), Satterthwaite df.

`peak/matmul_f32_of_fma/...` measures the matmul and the FMA peak in each process; its `of_fma_peak` metric
is one ratio per process, and its interval is the harness's across those processes. A target is reported as
met only when that interval's lower end clears it.
"""
import json
import math
import re
import sys
from statistics import NormalDist

TARGET_OF_FMA_PEAK = 40.0  # %, the target for matmul f32 32x1024x1024


def t_quantile(p, df):
    """Student t quantile by the Cornish-Fisher expansion: within 0.15% of tables for df >= 3."""
    z = NormalDist().inv_cdf(p)
    g = [(z**3 + z) / 4, (5 * z**5 + 16 * z**3 + 3 * z) / 96, (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384,
         (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160]
    return z + sum(gi / df ** (i + 1) for i, gi in enumerate(g))


def ratio_interval(num, den, level=0.95):
    """Ratio of geometric means of two sets of per-process values, with a Welch interval on logs."""
    a = [math.log(v) for _, v in num["values"]]
    b = [math.log(v) for _, v in den["values"]]
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    va = sum((x - ma) ** 2 for x in a) / (len(a) - 1) / len(a)
    vb = sum((x - mb) ** 2 for x in b) / (len(b) - 1) / len(b)
    se = math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1)) if se > 0 else 1e9
    h = t_quantile(1 - (1 - level) / 2, max(df, 3.0)) * se
    d = ma - mb
    return math.exp(d), math.exp(d - h), math.exp(d + h)


def ratio_section(metric):
    """The same-process share of the FMA peak, per thread count, judged against the target."""
    print(f"| matmul f32, same process as the FMA probe | processes | matmul GFLOP/s | FMA GFLOP/s "
          f"| matmul / FMA peak (95% CI) | target {TARGET_OF_FMA_PEAK:.0f}% |")
    print("|---|---|---|---|---|---|")
    for (name, met), m in sorted(metric.items()):
        if not (name.startswith("peak/matmul_f32_of_fma/") and met == "of_fma_peak"):
            continue
        ci = m.get("ci")
        lo, hi = (ci["low"], ci["high"]) if ci else (m["center_value"], m["center_value"])
        verdict = ("met (lower end clears it)" if lo >= TARGET_OF_FMA_PEAK
                   else "not met (upper end below it)" if hi < TARGET_OF_FMA_PEAK
                   else "not shown (the interval contains it)")
        mm = metric[(name, "gflop_per_s")]["center_value"]
        fma = metric[(name, "fma_gflop_per_s")]["center_value"]
        print(f"| {name.split('/', 2)[2]} | {m['n']} | {mm:.3g} | {fma:.3g} "
              f"| {m['center_value']:.1f}% [{lo:.1f}%, {hi:.1f}%] | {verdict} |")


def load(run_dir):
    r = json.load(open(f"{run_dir}/results.json"))
    metric = {}
    for s in r["summaries"]:
        for m in s.get("metrics", []):
            metric[(s["scenario"], m["metric"])] = m
    return r, metric


def run_lines(r):
    meta, host = r["meta"], r["meta"]["host"]
    print(f"- host: {host['cpu']}, {host['logical_cores']} logical cores, {host['os']}, kernel {host['kernel']}; "
          f"load average {host['load_start']} at start, {host['load_end']} at end")
    print(f"- seed {meta['seed']}; {meta['repeat'] if meta['repeat'] else 'default'} processes x {meta['iterations']} iterations "
          f"(+{meta['warmup']} warm-up); started {meta['started_at']}, finished {meta['finished_at']}; commit {host['git_commit']}")
    print(f"- command: `{' '.join(meta['command'])}`\n")


def of_ceiling(m, p):
    c, lo, hi = ratio_interval(m, p)
    return f"{100 * c:.0f}% [{100 * lo:.0f}%, {100 * hi:.0f}%]"


def main(run_dir):
    r, metric = load(run_dir)
    run_lines(r)
    ratio_section(metric)
    print()

    def fmt(m):
        ci = m.get("ci")
        c = m["center_value"]
        return f"{c:.3g} [{ci['low']:.3g}, {ci['high']:.3g}]" if ci else f"{c:.3g}"

    print("| kernel | dtype | threads | size | achieved (95% CI) | ceiling, same run | of ceiling (95% CI) |")
    print("|---|---|---|---|---|---|---|")
    pat = re.compile(r"^(matmul|add|gather|reduce_mean_rows)/(\w+)/threads=(\d+)/(.+)$")
    rows = []
    for (name, met), m in metric.items():
        g = pat.match(name)
        if not g:
            continue
        kernel, dtype, threads, size = g.groups()
        want = "gflop_per_s" if kernel == "matmul" else "gbytes_per_s"
        if met != want:
            continue
        peak_name = f"peak/fma_f32/threads={threads}" if kernel == "matmul" else f"peak/triad/threads={threads}"
        peak_metric = "gflop_per_s" if kernel == "matmul" else "gbytes_per_s"
        p = metric[(peak_name, peak_metric)]
        unit = "GFLOP/s" if kernel == "matmul" else "GB/s"
        rows.append(((kernel, ["f32", "f16", "bf16"].index(dtype), size, int(threads)),
                     f"| {kernel} | {dtype} | {threads} | {size} | {fmt(m)} {unit} | {fmt(p)} {unit} ({peak_name.split('/')[1]}) "
                     f"| {of_ceiling(m, p)} |"))
    for _, line in sorted(rows):
        print(line)

    print("\n| sampler | vocab | latency, us (95% CI) |")
    print("|---|---|---|")
    for (name, met), m in sorted(metric.items()):
        if name.startswith("sampling/") and met == "latency_ns":
            _, what, vocab = name.split("/")
            ci = m.get("ci")
            ci_s = f" [{ci['low'] / 1e3:.3g}, {ci['high'] / 1e3:.3g}]" if ci else ""
            print(f"| {what} | {vocab.split('=')[1]} | {m['center_value'] / 1e3:.3g}{ci_s} |")

    print("\n| top-k (k = 50) | partial selection, us | full sort, us | full sort / partial (95% CI) |")
    print("|---|---|---|---|")
    for vocab in ["32000", "151936"]:
        fast = metric[(f"sampling/top_k/vocab={vocab}", "latency_ns")]
        slow = metric[(f"sampling/top_k_full_sort/vocab={vocab}", "latency_ns")]
        c, lo, hi = ratio_interval(slow, fast)
        print(f"| vocab {vocab} | {fast['center_value'] / 1e3:.3g} | {slow['center_value'] / 1e3:.4g} "
              f"| {c:.1f}x [{lo:.1f}x, {hi:.1f}x] |")

    print("\n| KV cache | latency, ns (95% CI) |")
    print("|---|---|")
    for name in ["kv_cache/alloc_dealloc_pages", "kv_cache/grow_sequence"]:
        print(f"| {name} | {fmt(metric[(name, 'latency_ns')])} |")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--ratio":
        r, metric = load(sys.argv[2])
        run_lines(r)
        ratio_section(metric)
    else:
        main(sys.argv[1] if len(sys.argv) > 1 else "reports/latest")
