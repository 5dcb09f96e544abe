#!/usr/bin/env bash
# A/A false positives and power at injected 5% / 10% slowdowns: `harness compare` (interleaved
# pairs) against criterion's own change detection (saved baseline, --baseline), on the same three
# workloads (harness/src/bin/fixture_compare.rs = bench/criterion-aa/benches/workloads.rs).
#
# Usage: scripts/compare_vs_criterion.sh     (env: SESSIONS=5 RUNS=30 ITER=100 OUT=reports/compare-vs-criterion)
# Criterion: 2 s measurement, 1 s warm-up, one saved baseline, then SESSIONS runs against it.
# Ours: SESSIONS comparisons of two copies of one binary (A/A), then SESSIONS with
# FIXTURE_SLOWDOWN=1.05 and 1.10 on the candidate only. Wall time of each side is printed so
# RUNS / ITER can be set to match criterion's.
set -euo pipefail
ROOT=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
cd "$ROOT"
SESSIONS=${SESSIONS:-5}
RUNS=${RUNS:-30}
ITER=${ITER:-100}
OUT=${OUT:-$ROOT/reports/compare-vs-criterion}
T=${CARGO_TARGET_DIR:-$ROOT/target}
CT=${CRITERION_TARGET_DIR:-$T-criterion}
mkdir -p "$OUT"
SUMMARY="$OUT/summary.txt"
: > "$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY"; }

cargo build --release -p harness --features test-support --bins
H="$T/release/harness"
cp "$T/release/fixture_compare" "$OUT/base"
cp "$T/release/fixture_compare" "$OUT/cand"

# --- criterion -------------------------------------------------------------------------------
crit() { # $1 = label, rest = extra args; prints "<bench> <regressed|improved|nochange|noise>" lines
  local label=$1; shift
  (cd bench/criterion-aa && CARGO_TARGET_DIR="$CT" cargo bench -q --bench workloads -- \
      --measurement-time 2 --warm-up-time 1 --noplot "$@" 2>&1) > "$OUT/criterion-$label.log"
  awk '$2=="time:"{n=$1} /^[^ ]+ *$/{n=$1}
       /Performance has regressed/{print n, "regressed"} /Performance has improved/{print n, "improved"}
       /No change in performance/{print n, "nochange"} /Change within noise/{print n, "noise"}' "$OUT/criterion-$label.log"
}
(cd bench/criterion-aa && CARGO_TARGET_DIR="$CT" cargo bench --no-run -q)
crit save --save-baseline base > /dev/null
s=$(date +%s.%N)
crit_fp=0; crit_n=0
for i in $(seq 1 "$SESSIONS"); do
  r=$(crit "aa-$i" --baseline base)
  crit_n=$((crit_n + $(echo "$r" | grep -c .)))
  crit_fp=$((crit_fp + $(echo "$r" | grep -cE 'regressed|improved' || true)))
done
crit_wall=$(echo "($(date +%s.%N) - $s) / $SESSIONS" | bc -l)
declare -A crit_pow
for f in 1.05 1.10; do
  hits=0
  for i in $(seq 1 "$SESSIONS"); do
    r=$(FIXTURE_SLOWDOWN=$f crit "slow$f-$i" --baseline base)
    hits=$((hits + $(echo "$r" | grep -c '^work/scaled regressed' || true)))
  done
  crit_pow[$f]=$hits
done

# --- harness compare -------------------------------------------------------------------------
ours() { # $1 = label, rest = extra args
  local label=$1; shift
  "$H" compare --baseline "$OUT/base" --candidate "$OUT/cand" --runs "$RUNS" --iterations "$ITER" --warmup 3 \
      --out "$OUT/ours-$label" "$@" > "$OUT/ours-$label.log" 2>&1 || true
  python3 - "$OUT/ours-$label/compare.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1])):
    if r["better"] != "neither":
        print(r["name"], r["metric"], r["verdict"])
PY
}
s=$(date +%s.%N)
our_fp=0; our_n=0; our_lat_fp=0; our_lat_n=0
for i in $(seq 1 "$SESSIONS"); do
  r=$(ours "aa-$i" --seed "$i")
  our_n=$((our_n + $(echo "$r" | grep -c .)))
  our_fp=$((our_fp + $(echo "$r" | grep -cE 'regressed|improved' || true)))
  our_lat_n=$((our_lat_n + $(echo "$r" | grep -c latency_ns)))
  our_lat_fp=$((our_lat_fp + $(echo "$r" | grep latency_ns | grep -cE 'regressed|improved' || true)))
done
our_wall=$(echo "($(date +%s.%N) - $s) / $SESSIONS" | bc -l)
declare -A our_pow
for f in 1.05 1.10; do
  hits=0
  for i in $(seq 1 "$SESSIONS"); do
    r=$(ours "slow$f-$i" --seed "$((100 + i))" --candidate-env "FIXTURE_SLOWDOWN=$f" work/)
    hits=$((hits + $(echo "$r" | grep -c '^work/scaled latency_ns regressed' || true)))
  done
  our_pow[$f]=$hits
done

say "host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); sessions $SESSIONS"
say "criterion (2 s measurement, 1 s warm-up, saved baseline): A/A flagged $crit_fp of $crit_n benchmark comparisons; wall $(printf %.1f "$crit_wall") s a session"
say "criterion power, work/scaled: 5% slower found $((crit_pow[1.05])) of $SESSIONS, 10% slower found $((crit_pow[1.10])) of $SESSIONS"
say "harness compare ($RUNS pairs, $ITER iterations): A/A flagged $our_fp of $our_n directed rows ($our_lat_fp of $our_lat_n latency rows); wall $(printf %.1f "$our_wall") s a session"
say "harness compare power, work/scaled latency: 5% slower found $((our_pow[1.05])) of $SESSIONS, 10% slower found $((our_pow[1.10])) of $SESSIONS"
