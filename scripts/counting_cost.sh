#!/usr/bin/env bash
# What counting costs a run (issue 26) and what explaining adds to it (issue 27): the suite run
# plainly, then with --counters=valgrind with per-function profiles (HARNESS_EXPLAIN=1, the
# default) and without (HARNESS_EXPLAIN=0). One line a run: wall time, load, and for counted
# runs the counting processes and the profiles kept. Run it under scripts/quiet.sh on a shared
# machine.
# Usage: scripts/counting_cost.sh SUITE OUT [suite args]
set -euo pipefail
suite=$1 out=$2
shift 2
mkdir -p "$out"
echo "host: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(valgrind --version), $(git -C "$(dirname "$0")" rev-parse --short HEAD), suite $(basename "$suite") $*"
timed() { # NAME ENV... -- ARGS
  local name=$1 d="$out/$1" s t
  shift
  s=$(date +%s.%N)
  env "$@" --out "$d" >"$d.log" 2>&1 || true
  t=$(echo "$(date +%s.%N) - $s" | bc)
  local counting kept
  counting=$( (grep -c '"counted_by":"valgrind' "$d/results.jsonl" || true) )
  kept=$( (grep -o '"profile"' "$d/results.jsonl" || true) | wc -l)
  echo "$name: $t s, counting processes $counting, profiles kept $kept, load $(cut -d' ' -f1-3 /proc/loadavg)"
}
timed plain HARNESS_EXPLAIN=1 "$suite" --seed 1 "$@"
timed counted-explain HARNESS_EXPLAIN=1 "$suite" --seed 1 --counters=valgrind "$@"
timed counted-no-explain HARNESS_EXPLAIN=0 "$suite" --seed 1 --counters=valgrind "$@"
