#!/usr/bin/env bash
# What explaining costs (issue 27): a suite's counted run (--counters=valgrind) with per-function
# profiles (the default) and without (HARNESS_EXPLAIN=0), alternated; each line the wall time,
# results.jsonl's size and how many profiles were kept. The order flips each round so that
# neither setting always runs first.
# Usage: scripts/explain_cost.sh SUITE OUT ROUNDS [suite args, e.g. --skip cuda/]
set -euo pipefail
suite=$1 out=$2 rounds=$3
shift 3
mkdir -p "$out"
echo "host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(valgrind --version), suite $(basename "$suite") $*"
for r in $(seq "$rounds"); do
  order="1 0"; [ $((r % 2)) -eq 0 ] && order="0 1"
  for e in $order; do
    d="$out/round$r-explain$e"
    s=$(date +%s.%N)
    HARNESS_EXPLAIN=$e "$suite" --seed 1 --counters=valgrind "$@" --out "$d" > "$d.log" 2>&1 || true
    t=$(echo "$(date +%s.%N) - $s" | bc)
    kept=$( (grep -o '"profile"' "$d/results.jsonl" || true) | wc -l)
    rows=$(grep -c '"instructions"' "$d/results.jsonl" || true)
    echo "round $r HARNESS_EXPLAIN=$e: $t s, results.jsonl $(du -k "$d/results.jsonl" | cut -f1) KiB, profiles kept: $kept, records with instructions: $rows, load $(cut -d' ' -f1-3 /proc/loadavg)"
  done
done
