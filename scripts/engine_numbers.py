#!/usr/bin/env python3
"""Markdown tables for docs/engine-numbers.md from one run of the default suite.

Usage: scripts/engine_numbers.py RUN_DIR   (the --out directory of `cargo run --release -p scenarios`)

Each kernel's achieved rate sits beside the ceiling measured in the same run and on the same thread count:
matmul GFLOP/s against peak/fma_f32, add/gather/reduce GB/s against peak/triad (the DRAM roof; sizes that fit
in cache can exceed it). Centres are the harness's centre_value over processes, with its 95% interval.
"""
import json
import re
import sys


def main(run_dir):
    r = json.load(open(f"{run_dir}/results.json"))
    metric = {}
    for s in r["summaries"]:
        for m in s.get("metrics", []):
            metric[(s["scenario"], m["metric"])] = m
    meta, host = r["meta"], r["meta"]["host"]
    print(f"- host: {host['cpu']}, {host['logical_cores']} logical cores, {host['os']}, kernel {host['kernel']}; "
          f"load average {host['load_start']} at start, {host['load_end']} at end")
    print(f"- seed {meta['seed']}; {meta['repeat'] if meta['repeat'] else 'default'} processes x {meta['iterations']} iterations "
          f"(+{meta['warmup']} warm-up); started {meta['started_at']}, finished {meta['finished_at']}; commit {host['git_commit']}")
    print(f"- command: `{' '.join(meta['command'])}`\n")

    def fmt(m):
        ci = m.get("ci")
        c = m["center_value"]
        return f"{c:.3g} [{ci['low']:.3g}, {ci['high']:.3g}]" if ci else f"{c:.3g}"

    print("| kernel | dtype | threads | size | achieved (95% CI) | ceiling, same run | of ceiling |")
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
                     f"| {100 * m['center_value'] / p['center_value']:.0f}% |"))
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

    print("\n| top-k (k = 50) | partial selection, us | full sort, us | full sort / partial |")
    print("|---|---|---|---|")
    for vocab in ["32000", "151936"]:
        fast = metric[(f"sampling/top_k/vocab={vocab}", "latency_ns")]["center_value"]
        slow = metric[(f"sampling/top_k_full_sort/vocab={vocab}", "latency_ns")]["center_value"]
        print(f"| vocab {vocab} | {fast / 1e3:.3g} | {slow / 1e3:.4g} | {slow / fast:.1f}x |")

    print("\n| KV cache | latency, ns (95% CI) |")
    print("|---|---|")
    for name in ["kv_cache/alloc_dealloc_pages", "kv_cache/grow_sequence"]:
        print(f"| {name} | {fmt(metric[(name, 'latency_ns')])} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "reports/latest")
