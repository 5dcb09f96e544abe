#!/usr/bin/env bash
# Issue 15's targets for `harness compare` on this machine, printed as figures:
#  (a) A/A: the default suite (`scenarios` release binary) against a copy of itself within
#      AA_BUDGET (default 10m): share of directed rows unchanged at the 5% margin, and any
#      regressed/improved (target: >= 80% unchanged, none moved);
#  (b) +10%: fixture_compare with FIXTURE_SLOWDOWN=1.10 on the candidate only (work/scaled does
#      10% more work; the other scenarios are untouched) within B_BUDGET (default 3m), over SEEDS
#      seeds (default 10): how often work/scaled latency is called regressed (target: >= 8 of 10)
#      and whether any untouched scenario moved.
#
# Usage: scripts/compare_targets.sh
#   env: AA_BUDGET=10m B_BUDGET=3m SEEDS=10 RUNS=10 AA_FILTER= (name filter for a smoke run)
#        SKIP_AA=1 (only (b)), SEED_FROM=1 (first seed of (b))
#        OUT=reports/compare-targets
# Smoke test (a minute): AA_BUDGET=20s AA_FILTER=sampling B_BUDGET=15s SEEDS=2 scripts/compare_targets.sh
set -euo pipefail
ROOT=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
cd "$ROOT"
AA_BUDGET=${AA_BUDGET:-10m}
B_BUDGET=${B_BUDGET:-3m}
SEEDS=${SEEDS:-10}
RUNS=${RUNS:-10}
AA_FILTER=${AA_FILTER:-}
OUT=${OUT:-$ROOT/reports/compare-targets}
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
cp "$T/release/fixture_compare" "$OUT/fix-a"
cp "$T/release/fixture_compare" "$OUT/fix-b"

# Counts of verdicts over directed rows that are not derived rates: "regressed improved unchanged inconclusive".
counts() {
  python3 - "$1" <<'PY'
import json, sys
rows = [r for r in json.load(open(sys.argv[1])) if r["better"] != "neither" and not r.get("derived_from")]
print(*[sum(r["verdict"] == v for r in rows) for v in ("regressed", "improved", "unchanged", "inconclusive")])
PY
}

say "host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(git rev-parse --short HEAD)"
# --- (a) A/A of the default suite --------------------------------------------------------------
if [ -z "${SKIP_AA:-}" ]; then
"$H" compare --baseline "$OUT/suite-a" --candidate "$OUT/suite-b" --runs "$RUNS" --budget "$AA_BUDGET" \
  --seed 1 --out "$OUT/aa" ${AA_FILTER:+"$AA_FILTER"} > "$OUT/aa.log" 2>&1 || true
read -r reg imp unch inc < <(counts "$OUT/aa/compare.json")
total=$((reg + imp + unch + inc))
say "(a) A/A default suite, budget $AA_BUDGET: $unch of $total directed rows unchanged ($((100 * unch / (total > 0 ? total : 1)))%), $reg regressed, $imp improved, $inc inconclusive"
python3 -c "import json; r=json.load(open('$OUT/aa/compare-run.json'))['sequential']; print('    looks', r['looks'], 'pairs', r['pairs'], 'spent %.0fs' % r['spent_s'], 'more to decide the rest ~%.0fs' % r['seconds_to_decide_rest'])" | tee -a "$SUMMARY"
fi

# --- (b) +10% work in work/scaled over seeds ----------------------------------------------------
found=0; moved=0
SEED_FROM=${SEED_FROM:-1}
for seed in $(seq "$SEED_FROM" $((SEED_FROM + SEEDS - 1))); do
  o="$OUT/slow-$seed"
  "$H" compare --baseline "$OUT/fix-a" --candidate "$OUT/fix-b" --candidate-env FIXTURE_SLOWDOWN=1.10 \
    --runs "$RUNS" --budget "$B_BUDGET" --seed "$seed" --out "$o" > "$o.log" 2>&1 || true
  v=$(python3 -c "import json; print(next(r['verdict'] for r in json.load(open('$o/compare.json')) if r['name']=='work/scaled' and r['metric']=='latency_ns'))")
  others=$(python3 -c "import json; print(sum(r['verdict'] in ('regressed','improved') for r in json.load(open('$o/compare.json')) if r['name']!='work/scaled' and r['better']!='neither'))")
  [ "$v" = regressed ] && found=$((found + 1))
  moved=$((moved + others))
  say "    seed $seed: work/scaled $v; untouched rows moved: $others"
done
say "(b) +10% in work/scaled, budget $B_BUDGET: regressed in $found of $SEEDS seeds; untouched rows called regressed/improved: $moved"
say "load at the end: $(cut -d" " -f1-3 /proc/loadavg)"
