#!/usr/bin/env bash
# Issue 18's targets for --counters on this machine, printed as figures:
#  (a) A/A: the default suite against a copy of itself with --counters=valgrind within AA_BUDGET
#      (default 10m): share of counter rows unchanged (target >= 95%) and any regressed/improved
#      (target: none);
#  (b) +2%: fixture_counters' count/scaled/* (a loop, a pointer chase, a sort, a hash map) doing
#      2% more work on the candidate only (FIXTURE_COUNTERS_SCALE=102), over SEEDS seeds (default
#      10): how often their instructions rows are called regressed (target 10 of 10) and whether
#      any other row moved (target: none);
#  (c) history: 12 runs of count/scaled/* with one process per run and --counters, a 10% step
#      from run 7 (FIXTURE_COUNTERS_SCALE=110): where `history check` puts each scenario's
#      instructions change (target: run 7 in every scenario);
#  (d) overhead: the default suite plainly, then with --counters=valgrind, in this one script run
#      (target: at most 15x), and the process-to-process variation of each scenario's
#      instructions in the counted run.
#
# Usage: scripts/counter_targets.sh        env: AA_BUDGET=10m SEEDS=10 SKIP_AA=1 SKIP_B=1 SKIP_C=1 SKIP_OVERHEAD=1
#        OUT=reports/counter-targets. Smoke test: AA_BUDGET=3m SEEDS=2 SKIP_OVERHEAD=1 ...
set -euo pipefail
ROOT=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
cd "$ROOT"
AA_BUDGET=${AA_BUDGET:-10m}
SEEDS=${SEEDS:-10}
OUT=${OUT:-$ROOT/reports/counter-targets}
T=${CARGO_TARGET_DIR:-$ROOT/target}
mkdir -p "$OUT"
SUMMARY="$OUT/summary.txt"
: > "$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY"; }

cargo build --release -p harness --bins --features test-support
cargo build --release -p scenarios
H="$T/release/harness"
cp "$T/release/scenarios" "$OUT/suite-a"
cp "$T/release/scenarios" "$OUT/suite-b"
FIX="$T/release/fixture_counters"

# Verdicts of counter rows, then of the others: "regressed improved unchanged inconclusive | moved-other".
counts() {
  python3 - "$1" "${2:-}" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
only = sys.argv[2]
counter = [r for r in rows if r.get("source") and (not only or r["name"].startswith(only))]
other = [r for r in rows if not (r.get("source") and (not only or r["name"].startswith(only)))]
moved = sum(r["verdict"] in ("regressed", "improved") for r in other if r["better"] != "neither")
print(*[sum(r["verdict"] == v for r in counter) for v in ("regressed", "improved", "unchanged", "inconclusive")], moved)
PY
}

say "host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(git rev-parse --short HEAD), $(valgrind --version)"

# --- (a) A/A of the default suite with counters ------------------------------------------------
if [ -z "${SKIP_AA:-}" ]; then
  "$H" compare --baseline "$OUT/suite-a" --candidate "$OUT/suite-b" --counters=valgrind --budget "$AA_BUDGET" \
    --seed 1 --out "$OUT/aa" > "$OUT/aa.log" 2>&1 || true
  read -r reg imp unch inc _ < <(counts "$OUT/aa/compare.json")
  total=$((reg + imp + unch + inc))
  say "(a) A/A default suite, --counters=valgrind, budget $AA_BUDGET: $unch of $total counter rows unchanged ($((100 * unch / (total > 0 ? total : 1)))%), $reg regressed, $imp improved, $inc inconclusive"
  python3 -c "import json; r=json.load(open('$OUT/aa/compare-run.json')); s=r.get('sequential') or {}; print('    looks', s.get('looks'), 'pairs', s.get('pairs'), 'spent %.0fs' % s.get('spent_s', 0))" | tee -a "$SUMMARY"
fi

# --- (b) +2% work in count/scaled/* over seeds ---------------------------------------------------
if [ -z "${SKIP_B:-}" ]; then
found=0; moved=0
for seed in $(seq 1 "$SEEDS"); do
  o="$OUT/plus2-$seed"
  "$H" compare --baseline "$FIX" --candidate "$FIX" --candidate-env FIXTURE_COUNTERS_SCALE=102 --counters=valgrind \
    --runs 3 --seed "$seed" --out "$o" count/ --skip count/crash --skip count/custom > "$o.log" 2>&1 || true
  read -r reg imp unch inc other < <(counts "$o/compare.json" count/scaled/)
  n=$(python3 -c "import json; print(sum(r['metric']=='instructions' and r['name'].startswith('count/scaled/') and r['verdict']=='regressed' for r in json.load(open('$o/compare.json'))))")
  untouched=$(python3 -c "import json; print(sum(r['verdict'] in ('regressed','improved') for r in json.load(open('$o/compare.json')) if r.get('source') and not r['name'].startswith('count/scaled/')))")
  [ "$n" = 4 ] && found=$((found + 1))
  moved=$((moved + untouched))
  say "    seed $seed: $n of 4 scaled instructions rows regressed; untouched counter rows moved: $untouched"
done
say "(b) +2% in count/scaled/*: all 4 instructions rows regressed in $found of $SEEDS seeds; untouched counter rows called regressed/improved: $moved"
fi

# --- (c) history with a 10% step at run 7, one process per run ---------------------------------
if [ -z "${SKIP_C:-}" ]; then
db="$OUT/history.sqlite"; rm -f "$db"
for i in $(seq 1 12); do
  scale=100; [ "$i" -ge 7 ] && scale=110
  FIXTURE_COUNTERS_SCALE=$scale "$FIX" run count/scaled/ --counters=valgrind --repeat 1 --counter-processes 1 \
    --seed "$i" --out "$OUT/hist-$i" --history "$db" --history-label "run-$i" > "$OUT/hist-$i.log" 2>&1 || true
done
"$FIX" history check --db "$db" --out "$OUT/hist-check" > "$OUT/hist-check.log" 2>&1 || true
python3 - "$OUT/hist-check/changes.json" <<'PY' | tee -a "$SUMMARY"
import json, sys
ch = [c for c in json.load(open(sys.argv[1])) if c["metric"] == "instructions"]
at = {c["name"]: c["run"] for c in ch}
names = ["count/scaled/loop", "count/scaled/chase", "count/scaled/sort", "count/scaled/hashmap"]
print("(c) history, 12 runs, 10% step at run 7, 1 process a run: instructions change found at",
      ", ".join(f"{n.split('/')[-1]} run {at.get(n, 'none')}" for n in names),
      f"({sum(at.get(n) == 7 for n in names)} of 4 at run 7)")
PY
fi

# --- (d) overhead of a counted default run, and the variation of instructions -------------------
if [ -z "${SKIP_OVERHEAD:-}" ]; then
  s=$(date +%s.%N); "$OUT/suite-a" --seed 1 --out "$OUT/plain" > "$OUT/plain.log" 2>&1 || true; e=$(date +%s.%N)
  plain=$(echo "$e - $s" | bc)
  s=$(date +%s.%N); "$OUT/suite-a" --seed 1 --counters=valgrind --out "$OUT/counted" > "$OUT/counted.log" 2>&1 || true; e=$(date +%s.%N)
  counted=$(echo "$e - $s" | bc)
  say "(d) default suite: plain run ${plain%.*} s, with --counters=valgrind ${counted%.*} s: $(echo "scale=1; $counted / $plain" | bc)x"
  python3 - "$OUT/counted/results.json" <<'PY' | tee "$OUT/variation.txt" | tail -3 | tee -a "$SUMMARY"
import json, sys
r = json.load(open(sys.argv[1]))
rows = []
for s in r["summaries"]:
    for m in s.get("metrics", []):
        if m["metric"] == "instructions":
            v = [x for _, x in m["values"]]
            spread = (max(v) - min(v)) / m["center_value"] if m["center_value"] else 0
            rows.append((s["scenario"], len(v), m["center_value"], "exact" if m["exact"] else f"{100 * spread:.3f}%"))
for name, n, c, s in rows:
    print(f"{name:55} n={n} instructions {c:14.0f} max-min {s}")
exact = sum(s == "exact" for *_, s in rows)
spreads = sorted(float(s[:-1]) for *_, s in rows if s != "exact")
print(f"    instructions across processes: {exact} of {len(rows)} scenarios exact; the others' max-min spread"
      f" median {spreads[len(spreads) // 2] if spreads else 0:.3f}%, largest {spreads[-1] if spreads else 0:.3f}%")
PY
  # estimated_cycles per scenario, and the sd of ln(count) between processes over both metrics
  # (the shape docs/statistics.md gives).
  python3 - "$OUT/counted/results.json" <<'PY' > "$OUT/variation-cycles.txt"
import json, math, sys
r = json.load(open(sys.argv[1]))
sds = []
for s in r["summaries"]:
    for m in s.get("metrics", []):
        if m["metric"] not in ("instructions", "estimated_cycles"):
            continue
        v = [x for _, x in m["values"]]
        l = [math.log(x) for x in v]
        mu = sum(l) / len(l)
        sds.append((sum((x - mu) ** 2 for x in l) / max(len(l) - 1, 1)) ** 0.5)
        if m["metric"] == "estimated_cycles":
            print(f"{s['scenario']:55} n={len(v)} estimated_cycles {m['center_value']:14.0f} max-min {100 * (max(v) - min(v)) / m['center_value']:.3f}%")
rs = [json.loads(l) for l in open(sys.argv[1].replace("results.json", "results.jsonl"))]
secs = {}
for x in rs:
    if x.get("counted_by"):
        secs.setdefault(x["scenario"], []).append(x["wall_ns"] / 1e9)
mean = sorted((sum(v) / len(v), k) for k, v in secs.items())
print(f"counting process seconds, mean a scenario: smallest {mean[0][0]:.1f} ({mean[0][1]}), median {mean[len(mean) // 2][0]:.1f}, "
      f"{sum(m >= 2 for m, _ in mean)} scenarios at 2 s or more (largest {mean[-1][0]:.1f}, {mean[-1][1]}), "
      f"{sum(sum(v) for v in secs.values()):.0f} s over {sum(map(len, secs.values()))} processes")
edges = [0, 1e-9, 5e-4, 2e-3, 1e-2, float("inf")]
for a, b in zip(edges, edges[1:]):
    k = sorted(x for x in sds if a <= x < b)
    print(f"sd of ln(count) in [{a:g}, {b:g}): {len(k)} of {len(sds)} rows ({len(k) / len(sds):.2f}), median {k[len(k) // 2] if k else 0:.2g}")
PY
fi
say "load at the end: $(cut -d" " -f1-3 /proc/loadavg)"
